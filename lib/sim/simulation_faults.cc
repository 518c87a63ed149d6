// Node failures (simulation.h): the fault plan's listed failures and seeded random ones, a failed
// node's workloads evicted through the engine (reason NodeFailures), and repairs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "sim/simulation.h"

namespace qm::sim::internal {

// Checks the fault plan against the nodes and queues its failures and repairs, and each node's
// first random failure.
absl::Status Simulation::PlanFaults() {
  if (!faults_.failures.empty() || faults_.mtbf.us > 0) {
    if (!pool_.has_value()) {
      return absl::InvalidArgumentError(
          "faults: the cluster has no nodes (no Node objects and no HyperPodCluster), so no node can fail");
    }
  }
  for (size_t i = 0; i < faults_.failures.size(); ++i) {
    const FaultPlan::Failure& f = faults_.failures[i];
    const int32_t node = FindNode(f.node);
    if (node < 0) {
      return absl::InvalidArgumentError(fmt::format("faults: failures[{}].node: no node \"{}\" in the cluster", i, f.node));
    }
    node_events_.Push(Time{f.at.us}, NodeEvent{node, true, false});
    if (f.repair.us > 0) node_events_.Push(Time{f.at.us + f.repair.us}, NodeEvent{node, false, false});
  }
  if (faults_.mtbf.us > 0) {
    for (int32_t n = 0; n < pool_->node_count(); ++n) {
      rngs_.emplace_back(faults_.seed * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(n) + 1);
    }
    for (int32_t n = 0; n < pool_->node_count(); ++n) ScheduleRandomFailure(n, 0);
  }
  return absl::OkStatus();
}

// The index of the node named `name` (the pool's nodes are sorted by name), or -1.
int32_t Simulation::FindNode(std::string_view name) const {
  int32_t lo = 0, hi = pool_->node_count();
  while (lo < hi) {
    const int32_t mid = (lo + hi) / 2;
    if (pool_->node(mid).name < name) lo = mid + 1; else hi = mid;
  }
  return lo < pool_->node_count() && pool_->node(lo).name == name ? lo : -1;
}

// Queues `node`'s next random failure, an exponential time with mean `mtbf` after `from_us`.
// (std::log, not PortableLog: switching would move every seeded failure by a rounding.)
void Simulation::ScheduleRandomFailure(int32_t node, int64_t from_us) {
  const double gap = -std::log(rngs_[static_cast<size_t>(node)].Open01()) * static_cast<double>(faults_.mtbf.us);
  const int64_t at = from_us + static_cast<int64_t>(std::min(gap, 4e18 - static_cast<double>(from_us)));
  node_events_.Push(Time{at}, NodeEvent{node, true, true});
}

// The node goes down: its capacity leaves, the jobs running on it are evicted through the engine
// (NodeFailures), and a random failure schedules its own repair.
absl::Status Simulation::FailNode(const NodeEvent& e) {
  const size_t n = static_cast<size_t>(e.node);
  if (node_up_[n]) {
    node_up_[n] = false;
    ++nodes_down_;
    ++node_failures_;
    pool_->SetUp(e.node, false);
    ChangeNodeCapacity(e.node, -1);
    const std::vector<uint32_t> victims = jobs_on_node_[n];
    const std::string message = fmt::format("node {} failed", pool_->node(e.node).name);
    for (uint32_t j : victims) {
      if (jobs_[j].phase == Phase::kEvicting) {
        // Preempted, stopping within its grace period: its pods died with the node.
        ++jobs_[j].generation;  // its pending stop is now stale
        QM_RETURN_IF_ERROR(StopAndConfirm(j));
        continue;
      }
      if (jobs_[j].phase != Phase::kRunning) continue;
      QM_RETURN_IF_ERROR(engine_.Evict(jobs_[j].handle, "NodeFailures", message));
      ++fault_evictions_;
      QM_RETURN_IF_ERROR(HandleEvents(engine_.LastEvents()));
    }
    const int64_t repair = e.random ? faults_.repair_time.us : 0;
    if (repair > 0) node_events_.Push(Time{now_ + repair}, NodeEvent{e.node, false, true});
  }
  return absl::OkStatus();
}

// The node comes back: its capacity returns (waiting jobs may now fit) and, with random failures,
// its next failure is drawn.
absl::Status Simulation::RepairNode(int32_t node) {
  const size_t n = static_cast<size_t>(node);
  if (node_up_[n]) return absl::OkStatus();
  node_up_[n] = true;
  --nodes_down_;
  pool_->SetUp(node, true);
  ChangeNodeCapacity(node, +1);
  ++capacity_epoch_;
  if (faults_.mtbf.us > 0) ScheduleRandomFailure(node, now_);
  return absl::OkStatus();
}

}  // namespace qm::sim::internal
