// The trace's jobs (simulation.h): every row resolved to its namespace, LocalQueue, ClusterQueue
// and priority class before anything runs, so that a bad row is an error naming its line rather
// than a job that silently never runs; then each submitted to the engine at its submit time.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/model/namespace_name.h"
#include "sim/simulation.h"

namespace qm::sim::internal {

// An error naming the trace file, the job's line and the column at fault.
absl::Status Simulation::RowError(const TraceJob& job, std::string_view column, std::string_view message) const {
  return absl::InvalidArgumentError(
      fmt::format("{}:{}: {}: {}", trace_.source, job.line, column, message));
}

// Every job's namespace, LocalQueue, ClusterQueue and priority class, checked before anything runs.
absl::Status Simulation::ResolveJobs() {
  jobs_.resize(trace_.jobs.size());
  absl::flat_hash_map<uint64_t, uint32_t> target_of;  // (namespace/team, queue) ids → target
  absl::flat_hash_map<uint64_t, uint32_t> group_of;   // (queue, class id) → group
  class_ref_.assign(trace_.strings.size(), PriorityClassRef{});
  std::vector<int8_t> class_checked(trace_.strings.size(), 0);
  for (size_t i = 0; i < trace_.jobs.size(); ++i) {
    const TraceJob& tj = trace_.jobs[i];
    const bool by_team = tj.team != 0;
    const uint64_t key = (static_cast<uint64_t>(by_team ? tj.team : tj.namespace_) << 33) |
                         (static_cast<uint64_t>(by_team) << 32) | tj.queue;
    auto found = target_of.find(key);
    if (found == target_of.end()) {
      QM_ASSIGN_OR_RETURN(Target target, Resolve(tj));
      found = target_of.emplace(key, static_cast<uint32_t>(targets_.size())).first;
      targets_.push_back(std::move(target));
    }
    if (tj.priority_class != 0 && !class_checked[tj.priority_class]) {
      QM_RETURN_IF_ERROR(ResolveClass(tj));
      class_checked[tj.priority_class] = 1;
    }
    job_target_.push_back(found->second);
    const uint32_t queue = targets_[found->second].queue;
    const uint64_t gkey = (static_cast<uint64_t>(queue) << 32) | tj.priority_class;
    auto [g, fresh] = group_of.try_emplace(gkey, static_cast<uint32_t>(groups_.size()));
    if (fresh) {
      GroupAcc acc;
      acc.queue = queue;
      acc.priority_class = tj.priority_class == 0 ? "(none)" : std::string(trace_.str(tj.priority_class));
      acc.used_us.assign(quota_resources_, 0);
      acc.goodput_lost_us.assign(quota_resources_, 0);
      groups_.push_back(std::move(acc));
    }
    jobs_[i].group = g->second;
    jobs_[i].queue = queue;
    jobs_[i].counted = tj.submit.us >= options_.window_start.us &&
                       (options_.window_end.us <= 0 || tj.submit.us < options_.window_end.us);
    if (jobs_[i].counted) ++groups_[g->second].jobs;
    for (const TracePodSet& ps : trace_.PodSetsOf(tj)) {
      for (const TraceRequest& r : trace_.RequestsOf(ps)) {
        // Admission multiplies the request by the count (`Admit`): refuse a product past int64
        // here, naming the row, rather than wrap there.
        int64_t total = 0;
        if (__builtin_mul_overflow(r.amount, int64_t{ps.count}, &total))
          return RowError(tj, "pod_sets",
                          fmt::format("pod set \"{}\": {} pods of {} {} overflow a 64-bit total", trace_.str(ps.name),
                                      ps.count, r.amount, trace_.str(r.resource)));
        if (resource_of_string_.size() <= r.resource) resource_of_string_.resize(trace_.strings.size(), kNone);
        if (resource_of_string_[r.resource] == kNone) {
          resource_of_string_[r.resource] = ResourceIndex(trace_.str(r.resource));
        }
      }
    }
  }
  if (options_.record_jobs) {
    outcomes_.resize(jobs_.size());
    for (size_t i = 0; i < jobs_.size(); ++i) {
      const TraceJob& tj = trace_.jobs[i];
      JobOutcome& o = outcomes_[i];
      o.namespace_ = targets_[job_target_[i]].namespace_;
      o.name = trace_.JobName(tj);
      o.cluster_queue = queues_[jobs_[i].queue].name;
      o.priority_class = std::string(trace_.str(tj.priority_class));
      o.submit_us = tj.submit.us;
    }
  }
  return absl::OkStatus();
}

// The row's namespace (or HyperPod team's namespace), its LocalQueue (the namespace's only one
// when the row names none) and that LocalQueue's ClusterQueue.
absl::StatusOr<Target> Simulation::Resolve(const TraceJob& tj) const {
  Target t;
  std::string_view column = "namespace";
  if (tj.team != 0) {
    column = "team";
    t.namespace_ = fmt::format("hyperpod-ns-{}", trace_.str(tj.team));
  } else {
    t.namespace_ = std::string(trace_.str(tj.namespace_));
    DefaultNamespace(t.namespace_);
  }
  auto ns = queues_of_namespace_.find(t.namespace_);
  if (ns == queues_of_namespace_.end()) {
    return RowError(tj, column, fmt::format("no LocalQueue in namespace \"{}\"{}", t.namespace_,
                                            tj.team != 0 ? " (is the team's ComputeQuota defined?)" : ""));
  }
  if (tj.queue != 0) {
    t.local_queue = std::string(trace_.str(tj.queue));
    if (!std::binary_search(ns->second.begin(), ns->second.end(), t.local_queue)) {
      return RowError(tj, "queue", fmt::format("LocalQueue \"{}\" not found in namespace \"{}\" (it has: {})",
                                               t.local_queue, t.namespace_, fmt::join(ns->second, ", ")));
    }
  } else if (ns->second.size() == 1) {
    t.local_queue = ns->second.front();
  } else {
    return RowError(tj, "queue", fmt::format("namespace \"{}\" has {} LocalQueues ({}); name one",
                                             t.namespace_, ns->second.size(), fmt::join(ns->second, ", ")));
  }
  const std::string& cq = local_queues_.at(fmt::format("{}/{}", t.namespace_, t.local_queue));
  auto q = queue_index_.find(cq);
  if (q == queue_index_.end()) {
    return RowError(tj, "queue", fmt::format("LocalQueue \"{}/{}\" points to ClusterQueue \"{}\", which does not exist",
                                             t.namespace_, t.local_queue, cq));
  }
  t.queue = q->second;
  return t;
}

// A class is a WorkloadPriorityClass, else a PriorityClass; HyperPod's `<name>-priority` classes
// may be named without the suffix.
absl::Status Simulation::ResolveClass(const TraceJob& tj) {
  const std::string name(trace_.str(tj.priority_class));
  PriorityClassRef& ref = class_ref_[tj.priority_class];
  if (workload_classes_.contains(name)) {
    ref = {PriorityClassSource::kWorkloadPriorityClass, name};
  } else if (workload_classes_.contains(name + "-priority")) {
    ref = {PriorityClassSource::kWorkloadPriorityClass, name + "-priority"};
  } else if (pod_classes_.contains(name)) {
    ref = {PriorityClassSource::kPriorityClass, name};
  } else {
    std::vector<std::string> known;
    for (const auto& [k, v] : workload_classes_) known.push_back(k);
    for (const auto& [k, v] : pod_classes_) known.push_back(k);
    std::sort(known.begin(), known.end());
    return RowError(tj, "priority_class",
                    fmt::format("\"{}\" is neither a WorkloadPriorityClass nor a PriorityClass of the cluster{}",
                                name, known.empty() ? std::string(" (it defines none)")
                                                    : fmt::format(" (defined: {})", fmt::join(known, ", "))));
  }
  return absl::OkStatus();
}

// Submits trace job `index` to the engine as a Workload, created now (`spec_` is reused so that a
// submission allocates only what the engine keeps).
absl::Status Simulation::SubmitJob(uint32_t index) {
  const TraceJob& tj = trace_.jobs[index];
  const Target& target = targets_[job_target_[index]];
  spec_.namespace_ = target.namespace_;
  spec_.name = trace_.JobName(tj);
  spec_.uid = fmt::format("{:010d}", tj.row);
  spec_.queue_name = target.local_queue;
  spec_.priority_class = tj.priority_class == 0 ? PriorityClassRef{} : class_ref_[tj.priority_class];
  spec_.priority = tj.priority;
  spec_.creation_time = kEpoch + Duration{now_};
  const auto pod_sets = trace_.PodSetsOf(tj);
  const TraceNodeConstraints* constraints = trace_.NodeConstraintsOf(tj);
  spec_.pod_sets.resize(pod_sets.size());
  for (size_t p = 0; p < pod_sets.size(); ++p) {
    const TracePodSet& ps = pod_sets[p];
    PodSetSpec& out = spec_.pod_sets[p];
    out.name = std::string(trace_.str(ps.name));
    out.count = ps.count;
    out.min_count = ps.min_count > 0 ? std::optional<int32_t>(ps.min_count) : std::nullopt;
    out.requests.clear();
    for (const TraceRequest& r : trace_.RequestsOf(ps)) out.requests.emplace_back(trace_.str(r.resource), r.amount);
    // The job's node constraints reach the engine's flavor assignment as a pod template's would.
    out.node_selector.clear();
    out.required_node_affinity.reset();
    out.tolerations.clear();
    if (constraints != nullptr) {
      out.node_selector = constraints->node_selector;
      if (!constraints->node_affinity.empty()) out.required_node_affinity = constraints->node_affinity;
      out.tolerations = constraints->tolerations;
    }
  }
  absl::StatusOr<WorkloadHandle> handle = engine_.Submit(spec_);
  if (!handle.ok()) {
    return absl::Status(handle.status().code(),
                        fmt::format("{}:{}: {}", trace_.source, tj.line, std::string(handle.status().message())));
  }
  Job& job = jobs_[index];
  job.handle = *handle;
  job.submitted = true;
  job.phase = Phase::kPending;
  if (job_of_slot_.size() <= handle->index) job_of_slot_.resize(handle->index + 1, kNone);
  job_of_slot_[handle->index] = index;
  ++queues_[job.queue].pending;
  return absl::OkStatus();
}

}  // namespace qm::sim::internal
