// Writing traces as CSV (trace.h, docs/trace-format.md §Canonical form).
#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>

#include "fmt/format.h"
#include "qm/core/quantity_text.h"
#include "qm/sim/trace.h"
#include "sim/csv_value.h"
#include "sim/trace_constraints.h"

namespace qm::sim {
namespace {

using internal::AppendCsvValue;

// The pod-set list of a job; names are written only when they differ from the default ones.
void AppendPodSets(std::string& out, const Trace& trace, const TraceJob& job) {
  const auto pod_sets = trace.PodSetsOf(job);
  for (size_t k = 0; k < pod_sets.size(); ++k) {
    const TracePodSet& ps = pod_sets[k];
    if (k > 0) out.push_back('+');
    const std::string_view name = trace.str(ps.name);
    const bool default_name = pod_sets.size() == 1 ? name == "main" : name == fmt::format("ps{}", k);
    if (!default_name) fmt::format_to(std::back_inserter(out), "{}:", name);
    fmt::format_to(std::back_inserter(out), "{}x{{", ps.count);
    bool first = true;
    for (const TraceRequest& r : trace.RequestsOf(ps)) {
      if (!first) out.push_back(';');
      first = false;
      const std::string_view resource = trace.str(r.resource);
      fmt::format_to(std::back_inserter(out), "{}={}", resource, FormatQuantityForManifest(resource, r.amount));
    }
    out.push_back('}');
  }
}

}  // namespace

std::string WriteTrace(const Trace& trace) {
  // The checkpoint_interval column only when a job gives one, so traces without it keep their bytes.
  const bool checkpoints = std::any_of(trace.checkpoint_intervals.begin(), trace.checkpoint_intervals.end(),
                                       [](Duration d) { return d.us >= 0; });
  std::string out = "submit,namespace,team,queue,priority_class,priority,pod_sets,min_count,duration,name";
  // Likewise pod_startup.
  const bool startups = std::any_of(trace.pod_startups.begin(), trace.pod_startups.end(),
                                    [](Duration d) { return d.us >= 0; });
  if (checkpoints) out += ",checkpoint_interval";
  if (startups) out += ",pod_startup";
  // Likewise the node constraints, all three columns when any job has one.
  const bool constraints = std::any_of(trace.job_node_constraints.begin(), trace.job_node_constraints.end(),
                                       [](uint32_t c) { return c != 0; });
  if (constraints) out += ",node_selector,node_affinity,tolerations";
  out += "\n";
  out.reserve(out.size() + trace.jobs.size() * 96);
  std::string cell;
  for (size_t k = 0; k < trace.jobs.size(); ++k) {
    const TraceJob& job = trace.jobs[k];
    out += FormatTraceTime(job.submit);
    out.push_back(',');
    AppendCsvValue(out, trace.str(job.namespace_));
    out.push_back(',');
    AppendCsvValue(out, trace.str(job.team));
    out.push_back(',');
    AppendCsvValue(out, trace.str(job.queue));
    out.push_back(',');
    AppendCsvValue(out, trace.str(job.priority_class));
    out.push_back(',');
    if (job.priority.has_value()) fmt::format_to(std::back_inserter(out), "{}", *job.priority);
    out.push_back(',');
    cell.clear();
    AppendPodSets(cell, trace, job);
    AppendCsvValue(out, cell);
    out.push_back(',');
    bool any_min = false;
    for (const TracePodSet& ps : trace.PodSetsOf(job)) any_min = any_min || ps.min_count > 0;
    if (any_min) {
      bool first = true;
      for (const TracePodSet& ps : trace.PodSetsOf(job)) {
        if (!first) out.push_back('+');
        first = false;
        if (ps.min_count > 0) fmt::format_to(std::back_inserter(out), "{}", ps.min_count);
      }
    }
    out.push_back(',');
    out += FormatTraceTime(job.duration);
    out.push_back(',');
    // An unnamed job keeps its name `job-<row>` only if it lands on the same row: else write it.
    if (job.name_size > 0) {
      AppendCsvValue(out, std::string_view(trace.names).substr(job.name_offset, job.name_size));
    } else if (job.row != static_cast<int64_t>(k) + 1) {
      fmt::format_to(std::back_inserter(out), "job-{}", job.row);
    }
    if (checkpoints) {
      out.push_back(',');
      const Duration interval = trace.CheckpointIntervalOf(job, Duration::Microseconds(-1));
      if (interval.us >= 0) out += FormatTraceTime(interval);
    }
    if (startups) {
      out.push_back(',');
      if (const std::optional<Duration> d = trace.PodStartupOf(job)) out += FormatTraceTime(*d);
    }
    if (constraints) {
      const TraceNodeConstraints* c = trace.NodeConstraintsOf(job);
      out.push_back(',');
      if (c != nullptr) AppendCsvValue(out, internal::FormatNodeSelector(c->node_selector));
      out.push_back(',');
      if (c != nullptr) AppendCsvValue(out, internal::FormatNodeAffinity(c->node_affinity));
      out.push_back(',');
      if (c != nullptr) AppendCsvValue(out, internal::FormatTolerations(c->tolerations));
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace qm::sim
