// SenseTime's Helios traces (HeliosData; docs/trace-import.md §Helios): one Slurm job per row of a
// cluster's `cluster_log.csv`.
//
//   job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
//   1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0
#include <algorithm>
#include <iterator>
#include <optional>
#include <string_view>

#include "qm/core/status.h"
#include "sim/import_fields.h"
#include "sim/import_formats.h"
#include "sim/import_pods.h"

namespace qm::sim::internal {
namespace {

constexpr int64_t kMaxNodes = 1'000'000;  // pods per pod set (kMaxTracePodCount)

// The job's pods: `nodes` pods (one per node) sharing its GPUs and CPUs as evenly as whole units
// allow, larger shares first; equal pods form one pod set. The first `gpus % nodes` pods have one
// GPU more, the first `cpus % nodes` one core more: at most three pod sets, whatever `nodes` is.
void SplitAcrossNodes(int64_t gpus, int64_t cpus, int64_t nodes, PodSetsText& pods) {
  pods.Clear();
  const int64_t extra_gpu = gpus % nodes, extra_cpu = cpus % nodes;
  const int64_t cuts[] = {0, std::min(extra_gpu, extra_cpu), std::max(extra_gpu, extra_cpu), nodes};
  for (size_t k = 0; k + 1 < std::size(cuts); ++k) {
    const int64_t first = cuts[k], count = cuts[k + 1] - cuts[k];
    if (count == 0) continue;
    pods.Add("", count,
             {.cpu_milli = EvenShare(cpus, nodes, first) * 1000, .gpu_milli = EvenShare(gpus, nodes, first) * 1000});
  }
}

absl::Status ReadLog(CsvTable& t, ImportSink& sink) {
  TraceImportSummary& s = sink.summary();
  t.UseFirstAsHeader();
  QM_ASSIGN_OR_RETURN(const int id_col, t.Require("job_id"));
  QM_ASSIGN_OR_RETURN(const int vc_col, t.Require("vc"));
  QM_ASSIGN_OR_RETURN(const int gpu_col, t.Require("gpu_num"));
  QM_ASSIGN_OR_RETURN(const int cpu_col, t.Require("cpu_num"));
  QM_ASSIGN_OR_RETURN(const int node_col, t.Require("node_num"));
  QM_ASSIGN_OR_RETURN(const int state_col, t.Require("state"));
  QM_ASSIGN_OR_RETURN(const int submit_col, t.Require("submit_time"));
  QM_ASSIGN_OR_RETURN(const int start_col, t.Require("start_time"));
  QM_ASSIGN_OR_RETURN(const int end_col, t.Require("end_time"));
  PodSetsText pods(sink.options().gpu_resource);
  while (t.Next()) {
    ++s.rows;
    QM_ASSIGN_OR_RETURN(const int64_t gpus, t.Integer(gpu_col, 0, 1'000'000'000));
    QM_ASSIGN_OR_RETURN(const int64_t cpus, t.Integer(cpu_col, 0, 1'000'000'000));
    QM_ASSIGN_OR_RETURN(const int64_t nodes, t.Integer(node_col, 0, kMaxNodes));
    QM_ASSIGN_OR_RETURN(const std::optional<int64_t> submitted, t.DateTime(submit_col));
    QM_ASSIGN_OR_RETURN(const std::optional<int64_t> started, t.DateTime(start_col));
    QM_ASSIGN_OR_RETURN(const std::optional<int64_t> ended, t.DateTime(end_col));
    if (started) sink.SeeTime(*started, t[start_col]);
    if (ended) sink.SeeTime(*ended, t[end_col]);
    if (!submitted) {
      ++s.no_submit;
      continue;
    }
    sink.SeeSubmit(*submitted, t[submit_col], t.input_index(), t.line());
    uint32_t owner = 0;
    QM_ASSIGN_OR_RETURN(const bool has_owner, ResolveOwner(sink, t[vc_col], t.input_index(), t.line(), "vc", &owner));
    if (!has_owner) {
      ++s.no_owner;
      continue;
    }
    // Slurm gives a job cancelled while pending its cancel time as both start and end.
    const bool cancelled = t[state_col].starts_with("CANCELLED");
    if (!started || (cancelled && ended == started)) {
      ++(cancelled ? s.cancelled_pending : s.never_scheduled);
      continue;
    }
    ImportedJob job;
    job.submit_us = *submitted;
    if (!sink.SetRun(job, *started, ended)) continue;
    if (sink.options().gpu_only && gpus == 0) {
      ++s.cpu_only;
      continue;
    }
    SplitAcrossNodes(gpus, cpus, nodes == 0 ? 1 : nodes, pods);
    job.pod_sets = sink.PodSets(pods.text());
    job.owner = owner;
    job.input = t.input_index();
    job.line = t.line();
    job.name = t[id_col];
    QM_RETURN_IF_ERROR(sink.Add(job, "job_id"));
  }
  return t.status();
}

}  // namespace

absl::Status ImportHelios(std::span<const ImportInput> inputs, ImportSink& sink, NodeYaml& /*nodes*/) {
  for (uint32_t i = 0; i < inputs.size(); ++i) {
    CsvTable t(inputs[i], i);
    if (!t.ReadFirst()) return t.status();
    bool is_log = false;
    for (const std::string& h : t.first()) is_log = is_log || h == "job_id";
    if (!is_log) {
      // cluster_gpu_number.csv lists GPUs per virtual cluster and day, not machines.
      return ImportError(inputs[i].name, t.first_line(), "",
                         "not a Helios cluster_log.csv (a header with job_id, user, vc, gpu_num, cpu_num, node_num, "
                         "state, submit_time, start_time, end_time)");
    }
    sink.Reserve(inputs[i].content().size() / 96);  // a job row is 100 bytes or more
    QM_RETURN_IF_ERROR(ReadLog(t, sink));
  }
  return absl::OkStatus();
}

}  // namespace qm::sim::internal
