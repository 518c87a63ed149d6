// The quota an admitted job holds (simulation.h): booked per (ClusterQueue, flavor, resource)
// triple when the engine admits it, with its cohort pool's borrowed and idle totals kept current
// for the lending integrals, and given back when the job is requeued or finishes.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "sim/simulation.h"

namespace qm::sim::internal {

// The engine admitted job `j` (event `e`): books the quota of each pod set's flavors, records what
// its pods need on nodes, and queues it for placement.
void Simulation::Admitted(uint32_t j, const Event& e) {
  Job& job = jobs_[j];
  GroupAcc& g = groups_[job.group];
  const TraceJob& tj = trace_.jobs[j];
  --queues_[job.queue].pending;
  ++admissions_;
  if (options_.forecast_every.us > 0) admission_log_.emplace_back(j, now_);
  if (job.first_admitted_us < 0) {
    job.first_admitted_us = now_;
    if (job.counted) {
      ++g.admitted;
      g.waits_us.push_back(now_ - tj.submit.us);
    }
  }
  job.phase = Phase::kAdmitted;
  job.holding = NewHolding();
  Holding& h = holdings_[job.holding];
  h.admitted_us = now_;
  const auto pod_sets = trace_.PodSetsOf(tj);
  // The trace outlives every holding, so the demand may point into its node constraints.
  const TraceNodeConstraints* constraints = trace_.NodeConstraintsOf(tj);
  h.demand.resize(e.pod_sets.size());
  h.pod_amounts.resize(e.pod_sets.size());
  for (size_t i = 0; i < e.pod_sets.size(); ++i) {
    const AdmittedPodSet& aps = e.pod_sets[i];
    const TracePodSet& ps = pod_sets[aps.index];
    PodSetDemand& d = h.demand[i];
    d.count = aps.count;
    d.min_count = ps.min_count > 0 ? std::min(ps.min_count, aps.count) : aps.count;
    d.flavors.clear();
    d.requests.clear();
    d.node_selector = constraints != nullptr && !constraints->node_selector.empty() ? &constraints->node_selector : nullptr;
    d.node_affinity = constraints != nullptr && !constraints->node_affinity.empty() ? &constraints->node_affinity : nullptr;
    h.pod_amounts[i].clear();
    for (const TraceRequest& r : trace_.RequestsOf(ps)) {
      const uint32_t res = resource_of_string_[r.resource];
      const uint32_t flavor = FlavorOfResource(aps, res);
      if (pool_.has_value()) d.requests.emplace_back(pool_->ResourceIndex(resources_[res]), r.amount);
      if (flavor == kNone || res >= quota_resources_) continue;  // no quota for it: not counted
      if (pool_.has_value()) d.flavors.push_back(pool_->FlavorIndex(flavors_[flavor]));
      const int64_t amount = r.amount * aps.count;  // no overflow: ResolveJobs checked count × amount
      h.pod_amounts[i].emplace_back(FrIndex(flavor, res), r.amount);
      auto t = triple_index_.find(TripleKey(job.queue, flavor, res));
      if (t == triple_index_.end()) continue;
      h.quota.emplace_back(t->second, amount);
      ChangeHeld(t->second, amount);
    }
    std::sort(d.flavors.begin(), d.flavors.end());
    d.flavors.erase(std::unique(d.flavors.begin(), d.flavors.end()), d.flavors.end());
  }
  if (!outcomes_.empty()) {
    // The flavors of this admission, `resource=flavor` once each, by resource name.
    std::vector<std::string> pairs;
    for (const AdmittedPodSet& aps : e.pod_sets)
      for (const auto& [resource, flavor] : aps.flavors)
        pairs.push_back(engine_.ResourceName(resource) + "=" + engine_.FlavorName(flavor));
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    JobOutcome& o = outcomes_[j];
    o.flavors.clear();
    for (const std::string& p : pairs) o.flavors += (o.flavors.empty() ? "" : ";") + p;
    if (o.first_admitted_us < 0) o.first_admitted_us = now_;
  }
  waiting_.push_back(j);
}

// The flavor the admission assigned to resource `res` of a pod set, or kNone.
uint32_t Simulation::FlavorOfResource(const AdmittedPodSet& aps, uint32_t res) {
  for (const auto& [rid, fid] : aps.flavors) {
    if (ResourceOfEngine(rid) == res) return FlavorOfEngine(fid);
  }
  return kNone;
}

// The engine's resource and flavor ids as the simulator's indices, looked up by name once each.
uint32_t Simulation::ResourceOfEngine(ResourceId id) {
  const size_t i = id.value;
  if (engine_resource_.size() <= i) engine_resource_.resize(i + 1, kNone);
  if (engine_resource_[i] == kNone) engine_resource_[i] = ResourceIndex(engine_.ResourceName(id));
  return engine_resource_[i];
}

uint32_t Simulation::FlavorOfEngine(FlavorId id) {
  const size_t i = id.value;
  if (engine_flavor_.size() <= i) engine_flavor_.resize(i + 1, kNone);
  if (engine_flavor_[i] == kNone) {
    auto it = flavor_index_.find(engine_.FlavorName(id));
    engine_flavor_[i] = it == flavor_index_.end() ? kNone : it->second;
  }
  return engine_flavor_[i];
}

// Changes what a triple holds, keeping its pool's borrowed and idle totals and its queue's sums.
void Simulation::ChangeHeld(uint32_t triple, int64_t delta) {
  Triple& t = triples_[triple];
  Pool& p = pools_[t.pool];
  p.borrowed -= std::max<int64_t>(0, t.held - t.nominal);
  p.idle -= std::max<int64_t>(0, t.nominal - t.held);
  t.held += delta;
  p.borrowed += std::max<int64_t>(0, t.held - t.nominal);
  p.idle += std::max<int64_t>(0, t.nominal - t.held);
  queues_[t.queue].held[t.resource] += delta;
}

// A cleared `Holding` slot, reusing a released one when there is one.
uint32_t Simulation::NewHolding() {
  if (!free_holdings_.empty()) {
    const uint32_t h = free_holdings_.back();
    free_holdings_.pop_back();
    holdings_[h].quota.clear();
    holdings_[h].placement.clear();
    holdings_[h].placed = false;
    holdings_[h].saved_us = 0;
    holdings_[h].startup_us = 0;
    holdings_[h].failed_epoch = std::numeric_limits<uint64_t>::max();
    return h;
  }
  holdings_.emplace_back();
  return static_cast<uint32_t>(holdings_.size() - 1);
}

// Gives back the quota job `j` holds and frees its holding.
void Simulation::ReleaseQuota(uint32_t j) {
  Job& job = jobs_[j];
  Holding& h = holdings_[job.holding];
  for (const auto& [triple, amount] : h.quota) ChangeHeld(triple, -amount);
  free_holdings_.push_back(job.holding);
  job.holding = kNone;
}

// The engine confirmed job `j`'s eviction: its quota is free; it waits again unless deactivated.
void Simulation::Requeued(uint32_t j, bool pending) {
  Job& job = jobs_[j];
  if (job.phase != Phase::kEvicting) return;
  ReleaseQuota(j);
  job.phase = Phase::kPending;
  if (pending) ++queues_[job.queue].pending;
}

}  // namespace qm::sim::internal
