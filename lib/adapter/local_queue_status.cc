// Kueue's LocalQueue status (docs/semantics.md §1.5.1): the Active condition the LocalQueue
// controller writes, the pending count the queue manager keeps and the reservation and usage the
// scheduler cache keeps per LocalQueue. The engine keeps no per-LocalQueue counters on its hot
// path, so a query counts them from the queues of the LocalQueue's ClusterQueue.
#include <algorithm>
#include <string>
#include <vector>

#include "adapter/engine_state.h"

namespace qm::internal {
namespace {

// Kueue's condition texts (pkg/controller/core/localqueue_controller.go at the commit we follow).
constexpr const char* kReady = "Ready";
constexpr const char* kReadyMessage = "Can submit new workloads to localQueue";
constexpr const char* kStopped = "Stopped";
constexpr const char* kStoppedMessage = "LocalQueue is stopped";
constexpr const char* kQueueInactive = "ClusterQueueIsInactive";
constexpr const char* kQueueMissing = "ClusterQueueDoesNotExist";
constexpr const char* kCannotSubmitMessage = "Can't submit new workloads to clusterQueue";

// Where each (flavor, resource) of a ClusterQueue lands in the status lists: Kueue lists the flavors
// in resource-group then flavor order and, inside a flavor, the covered resources by name.
struct TotalsLayout {
  std::vector<LocalQueueFlavorTotals> empty;  // every amount 0
  std::vector<std::pair<FrId, std::pair<size_t, size_t>>> slots;  // FrId → (flavor, resource) index
};

TotalsLayout LayoutOf(const ClusterState& s, const ClusterQueueState& cq) {
  TotalsLayout layout;
  for (const CqResourceGroup& g : cq.groups) {
    std::vector<size_t> by_name(g.covered.size());
    for (size_t k = 0; k < by_name.size(); ++k) by_name[k] = k;
    std::sort(by_name.begin(), by_name.end(),
              [&](size_t a, size_t b) { return s.ResourceName(g.covered[a]) < s.ResourceName(g.covered[b]); });
    for (const CqFlavor& f : g.flavors) {
      LocalQueueFlavorTotals& totals = layout.empty.emplace_back();
      totals.flavor = s.FlavorName(f.flavor);
      for (size_t pos = 0; pos < by_name.size(); ++pos) {
        const size_t k = by_name[pos];
        totals.resources.emplace_back(s.ResourceName(g.covered[k]), 0);
        layout.slots.push_back({f.frs[k], {layout.empty.size() - 1, pos}});
      }
    }
  }
  std::sort(layout.slots.begin(), layout.slots.end(),
            [](const auto& a, const auto& b) { return a.first.value < b.first.value; });
  return layout;
}

void Add(const TotalsLayout& layout, const FrUsage& usage, std::vector<LocalQueueFlavorTotals>* totals) {
  for (const auto& [fr, amount] : usage) {
    auto it = std::lower_bound(layout.slots.begin(), layout.slots.end(), fr.value,
                               [](const auto& slot, uint32_t v) { return slot.first.value < v; });
    if (it == layout.slots.end() || it->first != fr) continue;  // not a quota the queue declares
    // Never overflows: the same amounts are summed into the ClusterQueue's usage.
    (*totals)[it->second.first].resources[it->second.second].second += amount;
  }
}

}  // namespace

LocalQueueStatus EngineState::LocalQueueStatusOf(LocalQueueId id) const {
  const LocalQueueState& lq = s.local_queues[id.value];
  LocalQueueStatus st;
  st.namespace_ = s.namespaces_names.Name(lq.ns);
  st.name = lq.spec.name;
  st.cluster_queue = lq.spec.cluster_queue;
  const QueueNameId queue_name = s.queue_names.Find(lq.spec.name);
  const auto mine = [&](WorkloadId w) {
    const WorkloadRecord& r = s.wl(w);
    return r.ns == lq.ns && r.queue_name == queue_name;
  };
  const ClusterQueueId cq_id = s.cq_names.Find(lq.spec.cluster_queue);
  const bool cq_exists = cq_id.valid() && s.cq(cq_id).exists;
  const bool stopped = lq.spec.stop_policy != StopPolicy::kNone;

  // The condition, in the order Kueue's controller decides it.
  if (stopped) {
    st.reason = kStopped;
    st.message = kStoppedMessage;
  } else if (!cq_exists) {
    st.reason = kQueueMissing;
    st.message = kCannotSubmitMessage;
  } else if (!s.cq(cq_id).active) {
    st.reason = kQueueInactive;
    st.message = kCannotSubmitMessage;
  } else {
    st.active = true;
    st.reason = kReady;
    st.message = kReadyMessage;
  }

  // Pending: every pending workload naming this queue, wherever it waits. Kueue's queue manager
  // skips the count for a stopped LocalQueue and reports 0.
  if (!stopped && queue_name.valid()) {
    if (cq_exists) {
      const ClusterQueueState& cq = s.cq(cq_id);
      for (const PendingKey& k : cq.heap) st.pending_workloads += mine(k.id) ? 1 : 0;
      for (const PendingKey& k : cq.inadmissible) st.pending_workloads += mine(k.id) ? 1 : 0;
    }
    for (uint64_t key : s.unqueued) st.pending_workloads += mine(UnqueuedId(key)) ? 1 : 0;
  }

  // Reservation and usage: the workloads of this queue holding quota in its ClusterQueue.
  if (!cq_exists) return st;
  const ClusterQueueState& cq = s.cq(cq_id);
  const TotalsLayout layout = LayoutOf(s, cq);
  st.flavors_reservation = layout.empty;
  if (queue_name.valid()) {
    for (const CandidateSet* set : {&cq.admitted, &cq.evicting}) {
      for (const CandidateKey& k : *set) {
        if (!mine(k.id)) continue;
        ++st.reserving_workloads;
        Add(layout, AdmissionUsage(s, s.wl(k.id)), &st.flavors_reservation);
      }
    }
  }
  // Without admission checks every reservation is an admission (docs/semantics.md §1.5.1).
  st.admitted_workloads = st.reserving_workloads;
  st.flavors_usage = st.flavors_reservation;
  return st;
}

}  // namespace qm::internal
