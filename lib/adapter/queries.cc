// Read-only views: workload and queue status, assignments in API form.
#include <algorithm>
#include <string>

#include "adapter/engine_state.h"
#include "qm/solver/fair_sharing.h"

namespace qm::internal {

Assignment EngineState::AdmissionToApi(WorkloadId id) const {
  const WorkloadRecord& w = s.wl(id);
  const WorkloadShape& shape = s.shape(w);
  const AdmissionRecord& a = *w.admission;
  Assignment out;
  out.representative_mode = AssignmentMode::kFit;
  out.borrow_level = a.borrow_level;
  for (size_t i = 0; i < a.pod_sets.size(); ++i) {
    const AdmissionRecord::PodSet& ps = a.pod_sets[i];
    PodSetAssignment& p = out.pod_sets.emplace_back();
    p.name = shape.pod_sets[i].name;
    p.count = ps.count;
    for (const FrId fr : ps.frs)
      p.resources.push_back(ResourceAssignment{s.ResourceName(s.catalog.FrResource(fr)),
                                               s.FlavorName(s.catalog.FrFlavor(fr)), AssignmentMode::kFit, 0});
    for (const auto& [r, v] : PodSetUsage(s, w, i)) p.usage.emplace_back(s.ResourceName(r), v);
    std::sort(p.resources.begin(), p.resources.end(),
              [](const ResourceAssignment& x, const ResourceAssignment& y) { return x.resource < y.resource; });
    std::sort(p.usage.begin(), p.usage.end());
  }
  return out;
}

Assignment EngineState::ToApi(WorkloadId id, const AssignmentResult& a) const {
  const WorkloadRecord& w = s.wl(id);
  const WorkloadShape& shape = s.shape(w);
  Assignment out;
  out.representative_mode = a.RepresentativeMode();
  out.borrow_level = a.borrow;
  out.message = a.Message([&](uint32_t i) { return shape.pod_sets[i].name; });
  out.attempts = a.attempts;
  for (size_t i = 0; i < shape.pod_sets.size(); ++i) {
    PodSetAssignment& p = out.pod_sets.emplace_back();
    p.name = shape.pod_sets[i].name;
    const PodSetResult* ps = nullptr;
    for (const PodSetResult& r : a.pod_sets)
      if (r.index == i) ps = &r;
    if (ps == nullptr) {  // never evaluated: an earlier pod set failed
      p.count = shape.pod_sets[i].count;
      for (const auto& [r, v] : shape.pod_sets[i].per_pod)
        p.resources.push_back(ResourceAssignment{s.ResourceName(r), "", AssignmentMode::kNoFit, 0});
    } else {
      p.count = ps->count;
      for (const ChosenFlavor& c : ps->flavors) {
        p.resources.push_back(ResourceAssignment{s.ResourceName(c.resource), s.FlavorName(c.flavor), c.mode, c.borrow});
        for (const auto& [r, v] : ps->requests)
          if (r == c.resource) p.usage.emplace_back(s.ResourceName(r), v);
      }
      if (ps->flavors.empty() && !ps->reasons.empty())
        for (const auto& [r, v] : ps->requests)
          p.resources.push_back(ResourceAssignment{s.ResourceName(r), "", AssignmentMode::kNoFit, 0});
    }
    std::sort(p.resources.begin(), p.resources.end(),
              [](const ResourceAssignment& x, const ResourceAssignment& y) { return x.resource < y.resource; });
    std::sort(p.usage.begin(), p.usage.end());
  }
  return out;
}

WorkloadStatus EngineState::Status(WorkloadId id) const {
  const WorkloadRecord& w = s.wl(id);
  WorkloadStatus st;
  st.id = s.Handle(id);
  st.namespace_ = s.namespaces_names.Name(w.ns);
  st.name = w.name;
  st.state = w.state;
  st.priority = w.priority;
  st.creation_time = w.creation_time;
  if (w.admission) {
    st.cluster_queue = s.cq(w.admission->cluster_queue).name;
    st.admission = AdmissionToApi(id);
    st.quota_reserved_time = w.admission->reserved_at;
  } else if (w.place != QueuePlace::kNone && w.queued_in.valid()) {
    st.cluster_queue = s.cq(w.queued_in).name;
  }
  st.inadmissible = PlaceOf(s, id) == QueuePlace::kInadmissible;
  st.reason = ReasonOf(s, id);
  st.message = MessageOf(s, id);
  // Admissions do not store Kueue's "Quota reserved" message; it is rebuilt here from the queue.
  if (st.message.empty() && w.admission && std::string_view(w.reason) == "QuotaReserved")
    st.message = fmt::format("Quota reserved in ClusterQueue {}", s.cq(w.admission->cluster_queue).name);
  st.preemption_reason = w.preemption_reason;
  st.pods_ready = w.admission && w.admission->pods_ready;
  if (w.extras) {
    st.requeue_count = w.extras->requeue_count;
    st.requeue_at = w.extras->requeue_at;
  }
  if (w.extras && w.extras->preemptions) {
    const PreemptionHistory& h = *w.extras->preemptions;
    PreemptionSummary& p = st.preemptions;
    p.preempted = h.preempted;
    for (int r = 0; r < kPreemptionReasons; ++r) p.by_reason[r] = h.by_reason[r];
    p.caused = h.caused;
    p.held_lost = h.held_lost;
    for (const PreemptionHistory::Entry& e : h.recent) {
      const bool queue_exists = e.preemptor_cq.valid() && e.preemptor_cq.value < s.cqs.size() &&
                                s.cqs[e.preemptor_cq.value].exists;
      p.recent.push_back(PreemptionSummary::Record{
          e.at, e.preemptor_name, queue_exists ? s.cqs[e.preemptor_cq.value].name : std::string(), e.reason});
    }
    if (h.borrow_allowed_at > s.Now()) p.borrow_allowed_at = h.borrow_allowed_at;
  }
  return st;
}

ClusterQueueStatus EngineState::QueueStatus(ClusterQueueId id) const {
  const ClusterQueueState& cq = s.cq(id);
  ClusterQueueStatus st;
  st.name = cq.name;
  st.cohort = cq.cohort.valid() ? s.cohorts[cq.cohort.value].name : std::string();
  st.active = cq.active;
  st.active_message = cq.active_message;
  for (const CqResourceGroup& g : cq.groups) {
    for (const CqFlavor& f : g.flavors) {
      for (size_t k = 0; k < g.covered.size(); ++k) {
        const FrQuota& q = s.tree.quota(cq.node, f.frs[k]);
        st.usage.push_back(FlavorResourceUsage{s.FlavorName(f.flavor), s.ResourceName(g.covered[k]), q.nominal, q.usage,
                                               std::max<int64_t>(0, q.usage - q.nominal)});
      }
    }
  }
  const bool sticky = cq.sticky_preemptor.valid() && s.wl(cq.sticky_preemptor).queued_in == id &&
                      PlaceOf(s, cq.sticky_preemptor) == QueuePlace::kActive;
  if (sticky) st.pending.push_back(s.Handle(cq.sticky_preemptor));
  for (const PendingKey& k : cq.heap)
    if (!sticky || k.id != cq.sticky_preemptor) st.pending.push_back(s.Handle(k.id));
  for (const PendingKey& k : cq.inadmissible) {
    st.pending.push_back(s.Handle(k.id));
    st.inadmissible.push_back(s.Handle(k.id));
  }
  for (const CandidateSet* set : {&cq.admitted, &cq.evicting})
    for (const CandidateKey& k : *set) st.admitted.push_back(s.Handle(k.id));
  std::sort(st.admitted.begin(), st.admitted.end(), [&](WorkloadHandle a, WorkloadHandle b) {
    const WorkloadRecord& wa = s.wl(WorkloadId(a.index));
    const WorkloadRecord& wb = s.wl(WorkloadId(b.index));
    const std::string& na = s.namespaces_names.Name(wa.ns);
    const std::string& nb = s.namespaces_names.Name(wb.ns);
    return na != nb ? na < nb : wa.name < wb.name;
  });
  if (cq.node != kNoNode) st.weighted_share = NodeShare(s, cq.node).WeightedShareCeil();
  return st;
}

}  // namespace qm::internal
