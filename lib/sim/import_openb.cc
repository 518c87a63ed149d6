// Alibaba's openb trace (clusterdata cluster-trace-gpu-v2023; docs/trace-import.md §openb): a pod
// list (one pod per job) and a node list.
//
//   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
//   openb-pod-0017,88000,327680,8,1000,,Burstable,Succeeded,9437497,10769854,9437497
//
//   sn,cpu_milli,memory_mib,gpu,model
//   openb-node-0228,128000,786432,8,G3
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fmt/format.h"
#include "qm/core/status.h"
#include "sim/import_fields.h"
#include "sim/import_formats.h"
#include "sim/import_pods.h"
#include "sim/trace_text.h"

namespace qm::sim::internal {
namespace {

constexpr int64_t kMaxMebibytes = std::numeric_limits<int64_t>::max() >> 20;  // bytes fit in int64

enum class Phase { kPending, kRunning, kSucceeded, kFailed };

std::optional<Phase> ParsePhase(std::string_view v) {
  if (v == "Pending") return Phase::kPending;
  if (v == "Running") return Phase::kRunning;
  if (v == "Succeeded") return Phase::kSucceeded;
  if (v == "Failed") return Phase::kFailed;
  return std::nullopt;
}

absl::Status ReadPods(CsvTable& t, ImportSink& sink) {
  TraceImportSummary& s = sink.summary();
  const TraceImportOptions& options = sink.options();
  t.UseFirstAsHeader();
  QM_ASSIGN_OR_RETURN(const int name_col, t.Require("name"));
  QM_ASSIGN_OR_RETURN(const int cpu_col, t.Require("cpu_milli"));
  QM_ASSIGN_OR_RETURN(const int memory_col, t.Require("memory_mib"));
  QM_ASSIGN_OR_RETURN(const int num_gpu_col, t.Require("num_gpu"));
  QM_ASSIGN_OR_RETURN(const int gpu_milli_col, t.Require("gpu_milli"));
  QM_ASSIGN_OR_RETURN(const int phase_col, t.Require("pod_phase"));
  QM_ASSIGN_OR_RETURN(const int creation_col, t.Require("creation_time"));
  QM_ASSIGN_OR_RETURN(const int deletion_col, t.Require("deletion_time"));
  QM_ASSIGN_OR_RETURN(const int scheduled_col, t.Require("scheduled_time"));
  const int spec_col = t.Find("gpu_spec");  // optional: only the gpuspec pod lists constrain models
  // openb has no owner column: every job belongs to one team or namespace.
  QM_ASSIGN_OR_RETURN(const uint32_t owner,
                      sink.Owner(options.owner.empty() ? "default" : options.owner, t.input_index(), t.line(), "owner"));
  PodSetsText pods(options.gpu_resource);
  std::string affinity;
  while (t.Next()) {
    ++s.rows;
    QM_ASSIGN_OR_RETURN(const int64_t cpu_milli, t.Integer(cpu_col));
    QM_ASSIGN_OR_RETURN(const int64_t memory_mib, t.Integer(memory_col, 0, kMaxMebibytes));
    QM_ASSIGN_OR_RETURN(const int64_t num_gpu, t.Integer(num_gpu_col, 0, 1'000'000));
    // Thousandths of each GPU: GPU-sharing pods (num_gpu 1) ask for part of one.
    QM_ASSIGN_OR_RETURN(const int64_t gpu_milli, t.Integer(gpu_milli_col, 0, 1000));
    const std::optional<Phase> phase = ParsePhase(t[phase_col]);
    if (!phase) {
      return t.Error(phase_col, fmt::format("{} is not Pending, Running, Succeeded or Failed", QuoteValue(t[phase_col])));
    }
    QM_ASSIGN_OR_RETURN(const std::optional<int64_t> created, t.Seconds(creation_col));
    QM_ASSIGN_OR_RETURN(const std::optional<int64_t> deleted, t.Seconds(deletion_col));
    QM_ASSIGN_OR_RETURN(const std::optional<int64_t> scheduled, t.Seconds(scheduled_col));
    if (deleted) sink.SeeTime(*deleted, t[deletion_col]);
    if (scheduled) sink.SeeTime(*scheduled, t[scheduled_col]);
    if (!created) {
      ++s.no_submit;
      continue;
    }
    sink.SeeSubmit(*created, t[creation_col], t.input_index(), t.line());
    if (!scheduled) {
      sink.SkipPending(deleted.value_or(kNoTime));
      continue;
    }
    ImportedJob job;
    job.submit_us = *created;
    if (!sink.SetRun(job, *scheduled, deleted)) continue;
    // A pod still running when the trace was taken has the trace's end as its deletion time.
    job.ends_with_trace = deleted && *phase == Phase::kRunning;
    const int64_t gpu_total = num_gpu * gpu_milli;
    if (options.gpu_only && gpu_total == 0) {
      ++s.cpu_only;
      continue;
    }
    pods.Clear();
    pods.Add("", 1, {.cpu_milli = cpu_milli, .memory_bytes = memory_mib << 20, .gpu_milli = gpu_total});
    job.pod_sets = sink.PodSets(pods.text());
    job.fractional = pods.fractional();
    if (spec_col >= 0 && !IsMissing(t[spec_col])) {
      QM_RETURN_IF_ERROR(ModelAffinity(sink, t[spec_col], t.input_index(), t.line(), "gpu_spec", &affinity));
      job.affinity = sink.Affinity(affinity);
    }
    job.owner = owner;
    job.input = t.input_index();
    job.line = t.line();
    job.name = t[name_col];
    QM_RETURN_IF_ERROR(sink.Add(job, "name"));
  }
  return t.status();
}

absl::Status ReadNodes(CsvTable& t, ImportSink& sink, NodeYaml& nodes) {
  t.UseFirstAsHeader();
  QM_ASSIGN_OR_RETURN(const int sn_col, t.Require("sn"));
  QM_ASSIGN_OR_RETURN(const int cpu_col, t.Require("cpu_milli"));
  QM_ASSIGN_OR_RETURN(const int memory_col, t.Require("memory_mib"));
  QM_ASSIGN_OR_RETURN(const int gpu_col, t.Require("gpu"));
  QM_ASSIGN_OR_RETURN(const int model_col, t.Require("model"));
  while (t.Next()) {
    ++sink.summary().node_rows;
    QM_ASSIGN_OR_RETURN(const int64_t cpu_milli, t.Integer(cpu_col));
    QM_ASSIGN_OR_RETURN(const int64_t memory_mib, t.Integer(memory_col, 0, kMaxMebibytes));
    QM_ASSIGN_OR_RETURN(const int64_t gpus, t.Integer(gpu_col, 0, 1'000'000));
    const std::string_view model = IsMissing(t[model_col]) ? std::string_view() : t[model_col];
    QM_RETURN_IF_ERROR(nodes.Add({.name = t[sn_col], .model = model, .cpu_milli = cpu_milli,
                                  .memory_bytes = memory_mib << 20, .gpus = gpus},
                                 t.file(), t.line(), "sn", "model"));
  }
  return t.status();
}

bool Has(const std::vector<std::string>& header, std::string_view name) {
  for (const std::string& h : header) {
    if (h == name) return true;
  }
  return false;
}

}  // namespace

absl::Status ImportOpenb(std::span<const ImportInput> inputs, ImportSink& sink, NodeYaml& nodes) {
  for (uint32_t i = 0; i < inputs.size(); ++i) {
    CsvTable t(inputs[i], i);
    if (!t.ReadFirst()) return t.status();
    if (Has(t.first(), "sn")) {
      QM_RETURN_IF_ERROR(ReadNodes(t, sink, nodes));
    } else if (Has(t.first(), "creation_time")) {
      sink.Reserve(inputs[i].content().size() / 64);  // a pod row is 70 bytes or more
      QM_RETURN_IF_ERROR(ReadPods(t, sink));
    } else {
      return ImportError(inputs[i].name, t.first_line(), "",
                         "not an openb pod list (a header with name, cpu_milli, memory_mib, num_gpu, gpu_milli, "
                         "gpu_spec, qos, pod_phase, creation_time, deletion_time, scheduled_time) or node list "
                         "(sn, cpu_milli, memory_mib, gpu, model)");
    }
  }
  return absl::OkStatus();
}

}  // namespace qm::sim::internal
