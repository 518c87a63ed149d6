// Jobs that can never run (docs/simulate.md §Jobs that fit no node): Kueue admits by quota alone,
// so a pod larger than every node of its queue's flavors is admitted and then waits for ever,
// unplaced. Such shapes are found before the run, reported once each, and counted.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "qm/core/quantity_text.h"
#include "sim/simulation.h"

namespace qm::sim::internal {

// Why no single node can take one pod of some pod set of `tj` in `queue`, or "" when each fits
// somewhere. A node qualifies for a pod set when it is schedulable, carries, for every requested
// resource the queue has quota for, one of the queue's flavors of that resource, satisfies the
// job's node selector and affinity, and has the pod's requests allocatable.
std::string Simulation::NoNodeFits(const TraceJob& tj, uint32_t queue,
                                   const std::vector<std::vector<int32_t>>& node_flavors) const {
  const TraceNodeConstraints* constraints = trace_.NodeConstraintsOf(tj);
  for (const TracePodSet& ps : trace_.PodSetsOf(tj)) {
    const auto requests = trace_.RequestsOf(ps);
    bool fits = false, any_candidate = false;
    // Per request, the largest allocatable among the candidate nodes, to say what is too small.
    std::vector<int64_t> largest(requests.size(), -1);
    std::vector<std::string> largest_node(requests.size());
    for (int32_t n = 0; n < pool_->node_count() && !fits; ++n) {
      const NodeSpec& node = pool_->node(n);
      if (node.unschedulable) continue;
      if (constraints != nullptr &&
          !NodeAccepts(node.labels, &constraints->node_selector, &constraints->node_affinity))
        continue;
      bool carries = true;
      for (const TraceRequest& r : requests) {
        const uint32_t res = resource_of_string_[r.resource];
        if (res >= quota_resources_) continue;
        bool any = false;
        for (int32_t f : node_flavors[static_cast<size_t>(n)])
          any = any || triple_index_.contains(TripleKey(queue, static_cast<uint32_t>(f), res));
        carries = carries && any;
      }
      if (!carries) continue;
      any_candidate = true;
      bool room = true;
      for (size_t k = 0; k < requests.size(); ++k) {
        const int32_t pr = pool_->ResourceIndex(resources_[resource_of_string_[requests[k].resource]]);
        if (pr < 0 || requests[k].amount == 0) continue;  // no node has it: it does not limit placement
        const int64_t have = pool_->Allocatable(n, pr);
        if (have > largest[k]) {
          largest[k] = have;
          largest_node[k] = node.name;
        }
        room = room && have >= requests[k].amount;
      }
      fits = room;
    }
    if (fits) continue;
    std::string asks, why = any_candidate ? " (no node has room for all of one pod at once)" : " (no node carries them)";
    for (size_t k = 0; k < requests.size(); ++k) {
      const std::string_view resource = trace_.str(requests[k].resource);
      asks += fmt::format("{}{}={}", asks.empty() ? "" : ";", resource,
                          FormatQuantityForManifest(resource, requests[k].amount));
      if (largest[k] >= 0 && largest[k] < requests[k].amount && why.find("largest") == std::string::npos)
        why = fmt::format(" (the largest of them, {}, has {}={})", largest_node[k], resource,
                          FormatQuantityForManifest(resource, largest[k]));
    }
    return fmt::format("a pod of pod set \"{}\" ({{{}}}) fits no node of ClusterQueue \"{}\"'s flavors{}{}",
                       trace_.str(ps.name), asks, queues_[queue].name,
                       constraints != nullptr ? " that matches the job's node constraints" : "", why);
  }
  return "";
}

void Simulation::CheckNodeFit() {
  if (!pool_.has_value()) return;  // without nodes every admitted job runs at once
  // The simulator's flavor indices each node carries.
  std::vector<std::vector<int32_t>> node_flavors(static_cast<size_t>(pool_->node_count()));
  for (uint32_t f = 0; f < flavors_.size(); ++f) {
    const int32_t pf = pool_->FlavorIndex(flavors_[f]);
    if (pf < 0) continue;
    for (int32_t n : pool_->NodesOfFlavor(pf)) node_flavors[static_cast<size_t>(n)].push_back(static_cast<int32_t>(f));
  }
  // Jobs of one shape (pod sets, queue, constraints) share the answer and one warning.
  struct Shape {
    std::string problem;
    uint32_t first_job = 0;
    int64_t jobs = 0;
  };
  absl::flat_hash_map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, uint32_t> shape_of;
  std::vector<Shape> shapes;
  fits_no_node_.assign(trace_.jobs.size(), false);
  for (uint32_t i = 0; i < trace_.jobs.size(); ++i) {
    const TraceJob& tj = trace_.jobs[i];
    const size_t row = static_cast<size_t>(tj.row - 1);
    const uint32_t constraints = row < trace_.job_node_constraints.size() ? trace_.job_node_constraints[row] : 0;
    const auto key = std::make_tuple(jobs_[i].queue, tj.first_pod_set, tj.pod_set_count, constraints);
    auto [it, fresh] = shape_of.try_emplace(key, static_cast<uint32_t>(shapes.size()));
    if (fresh) shapes.push_back({NoNodeFits(tj, jobs_[i].queue, node_flavors), i, 0});
    Shape& shape = shapes[it->second];
    if (shape.problem.empty()) continue;
    ++shape.jobs;
    ++fit_no_node_;
    fits_no_node_[i] = true;
  }
  for (const Shape& shape : shapes) {
    if (shape.problem.empty()) continue;
    const TraceJob& tj = trace_.jobs[shape.first_job];
    warnings_.push_back(fmt::format("{}:{}: {}{}: {}; admitted by quota, it can never run", trace_.source, tj.line,
                                    trace_.JobName(tj),
                                    shape.jobs > 1 ? fmt::format(" and {} more jobs of its shape", shape.jobs - 1) : "",
                                    shape.problem));
  }
}

}  // namespace qm::sim::internal
