// Figures integrated over virtual time (simulation.h): between two instants nothing changes but
// the clock, so `Advance` adds value × elapsed time for held and lent quota, capacity, placed pods,
// pending jobs and shares, exactly, into totals and into the report's time buckets.
#include <algorithm>
#include <cstdint>

#include "qm/sim/sim_result.h"
#include "sim/simulation.h"

namespace qm::sim::internal {

// Series layout: used[resource][queue], capacity[resource], pending[queue], share[queue],
// preemptions[queue], then the Jain sum.
void Simulation::BuildSeries() {
  const int r = static_cast<int>(quota_resources_), q = static_cast<int>(queues_.size());
  s_used_ = 0;
  s_capacity_ = r * q;
  s_pending_ = s_capacity_ + r;
  s_share_ = s_pending_ + q;
  s_preempt_ = s_share_ + q;
  s_jain_ = s_preempt_ + q;
  buckets_.emplace(s_jain_ + 1, options_.buckets);
  for (QueueInfo& info : queues_) {
    info.held.assign(quota_resources_, 0);
    info.placed.assign(quota_resources_, 0);
    info.borrowed_us.assign(quota_resources_, 0);
    info.lent_us.assign(quota_resources_, 0);
  }
  capacity_.assign(quota_resources_, 0);
  total_nominal_.assign(quota_resources_, 0);
  accelerator_.assign(quota_resources_, false);
  for (size_t res = 0; res < quota_resources_; ++res) accelerator_[res] = IsAcceleratorResource(resources_[res]);
  for (const Triple& t : triples_) total_nominal_[t.resource] += t.nominal;
  if (pool_.has_value()) {
    for (int32_t n = 0; n < pool_->node_count(); ++n) ChangeNodeCapacity(n, +1);
  }
}

// Adds (+1) or removes (−1) a node's allocatable from the capacity figures.
void Simulation::ChangeNodeCapacity(int32_t node, int sign) {
  for (size_t r = 0; r < quota_resources_; ++r) {
    const int32_t pr = pool_->ResourceIndex(resources_[r]);
    if (pr >= 0) capacity_[r] += sign * pool_->Allocatable(node, pr);
  }
  for (size_t fr = 0; fr < frs_.size(); ++fr) {
    const auto [flavor, resource] = frs_[fr];
    const int32_t pf = pool_->FlavorIndex(flavors_[flavor]);
    const int32_t pr = pool_->ResourceIndex(resources_[resource]);
    if (pf < 0 || pr < 0) continue;
    const auto nodes = pool_->NodesOfFlavor(pf);
    if (std::binary_search(nodes.begin(), nodes.end(), node)) {
      fr_capacity_[fr] += sign * pool_->Allocatable(node, pr);
    }
  }
}

// Moves the clock to `t`, integrating everything held since the previous instant.
void Simulation::Advance(int64_t t) {
  const int64_t t0 = now_;
  if (t <= t0) return;
  // The integrals count only the metrics window; the time series cover the whole run.
  const double dt = static_cast<double>(InWindow(t0, t));
  for (Triple& tr : triples_) {
    if (tr.held == 0 && tr.nominal == 0) continue;
    fr_admitted_us_[tr.fr] += static_cast<double>(tr.held) * dt;
    QueueInfo& q = queues_[tr.queue];
    if (tr.held > tr.nominal) q.borrowed_us[tr.resource] += static_cast<double>(tr.held - tr.nominal) * dt;
    const Pool& p = pools_[tr.pool];
    if (tr.held < tr.nominal && p.borrowed > 0 && p.idle > 0) {
      const double lent_share = static_cast<double>(std::min(p.borrowed, p.idle)) / static_cast<double>(p.idle);
      q.lent_us[tr.resource] += static_cast<double>(tr.nominal - tr.held) * lent_share * dt;
    }
  }
  for (size_t fr = 0; fr < frs_.size(); ++fr) fr_capacity_us_[fr] += static_cast<double>(fr_capacity_[fr]) * dt;
  const int nq = static_cast<int>(queues_.size());
  for (size_t r = 0; r < quota_resources_; ++r) {
    buckets_->Add(s_capacity_ + static_cast<int>(r), t0, t,
                  pool_.has_value() ? static_cast<double>(capacity_[r]) : static_cast<double>(total_nominal_[r]));
  }
  double sum = 0, sum_sq = 0;
  int demand = 0;
  for (int q = 0; q < nq; ++q) {
    const QueueInfo& info = queues_[static_cast<size_t>(q)];
    bool holds = false;
    double dominant = 0;
    for (size_t r = 0; r < quota_resources_; ++r) {
      buckets_->Add(s_used_ + static_cast<int>(r) * nq + q, t0, t, static_cast<double>(info.placed[r]));
      if (info.held[r] > 0) {
        holds = true;
        if (total_nominal_[r] > 0) {
          dominant = std::max(dominant, static_cast<double>(info.held[r]) / static_cast<double>(total_nominal_[r]));
        }
      }
    }
    buckets_->Add(s_pending_ + q, t0, t, static_cast<double>(info.pending));
    if (info.pending > 0 || holds) {
      const double x = dominant / info.weight;
      buckets_->Add(s_share_ + q, t0, t, x);
      sum += x;
      sum_sq += x * x;
      ++demand;
    }
  }
  // Jain's index over the queues with demand. An idle cluster counts as fair (1); queues with
  // demand of which none holds anything count as 0, the index's floor: starvation, not fairness.
  const double jain = demand == 0 ? 1.0 : sum_sq == 0 ? 0.0 : sum * sum / (demand * sum_sq);
  buckets_->Add(s_jain_, t0, t, jain);
  if (demand > 0) {
    demand_us_ += dt;
    jain_us_ += jain * dt;
  }
  now_ = t;
}

}  // namespace qm::sim::internal
