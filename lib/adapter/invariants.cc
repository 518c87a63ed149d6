// `Engine::CheckInvariants`: the engine's incremental structures checked against a from-scratch
// recomputation from the workloads.
//
// The checks run in a fixed order and each walks ids in increasing order, so the first violation
// reported is the same on every run:
//   1. ids resolve: namespaces, shapes (and their reference counts), queue names, admissions'
//      ClusterQueues and (flavor, resource) slots, the name index, the free lists;
//   2. every workload is in exactly one state, consistent with its admission and queue place;
//   3. pending queues: every key is the workload's current key, each set is sorted, every pending
//      workload is in exactly one place (an active queue, an inadmissible set or `unqueued`);
//   4. preemption-candidate sets hold exactly the workloads holding quota, under their current key;
//   5. the usage of every ClusterQueue is the sum of its admissions;
//   6. every derived value of the quota tree (cohort usage, subtree, guaranteed and potential
//      quota, borrowed and lendable sums, heights, dominant shares) equals `QuotaTree::Recompute`;
//   7. no node is above nominal + borrowing limit (a root: above its quota), counting only workloads
//      not being evicted (a workload admitted by Fit may count on the quota of victims still
//      stopping, docs/semantics.md §4.6), unless a workload it holds was admitted before its quota
//      last changed (quota updates never evict, §2).
// Nothing is changed; the cost is O(workloads + queued entries + tree nodes × FR slots).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "adapter/engine_state.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/solver/fair_sharing.h"

namespace qm {
namespace internal {
namespace {

absl::Status Violation(std::string message) { return absl::InternalError(std::move(message)); }

// Decimal text of an exact sum (fmt 9 cannot be relied on to format __int128 everywhere).
std::string WideText(WideAmount v) {
  if (v >= kMinusUnlimited && v <= kUnlimited) return std::to_string(static_cast<int64_t>(v));
  const bool negative = v < 0;
  std::string digits;
  do {
    const int d = static_cast<int>(v % 10);
    digits.insert(digits.begin(), static_cast<char>('0' + (negative ? -d : d)));
    v /= 10;
  } while (v != 0);
  return negative ? "-" + digits : digits;
}

// A node's usage as text: the exact sum, or the int64 reading when that one is what disagrees.
std::string UsageText(const FrQuota& q) {
  return q.usage == ClampAmount(q.usage_exact) ? WideText(q.usage_exact) : std::to_string(q.usage);
}

class Checker {
 public:
  explicit Checker(const EngineState& st) : st_(st), s_(st.s) {}

  absl::Status Run() {
    QM_RETURN_IF_ERROR(CheckIds());
    QM_RETURN_IF_ERROR(CheckStates());
    QM_RETURN_IF_ERROR(CheckPendingQueues());
    QM_RETURN_IF_ERROR(CheckCandidateSets());
    QM_RETURN_IF_ERROR(CheckClusterQueueUsage());
    QM_RETURN_IF_ERROR(CheckTree());
    return CheckLimits();
  }

 private:
  // ---- Names for messages ---------------------------------------------------------------------

  std::string Wl(WorkloadId id) const {
    const WorkloadRecord& w = s_.wl(id);
    if (w.ns.valid() && w.ns.value < s_.namespaces_names.size())
      return fmt::format("Workload '{}'", s_.WorkloadName(id));
    return fmt::format("Workload slot {}", id.value);
  }
  std::string Fr(uint32_t f) const {
    const FrId fr(f);
    if (f >= s_.catalog.fr_count()) return fmt::format("(slot {})", f);
    return fmt::format("({}, {})", s_.FlavorName(s_.catalog.FrFlavor(fr)), s_.ResourceName(s_.catalog.FrResource(fr)));
  }
  std::string Node(NodeIndex n) const {
    const QuotaTree::Node& node = s_.tree.node(n);
    if (node.is_cluster_queue) return fmt::format("ClusterQueue '{}'", s_.cqs[node.owner].name);
    return fmt::format("Cohort '{}'", s_.cohorts[node.owner].name);
  }
  bool InUse(NodeIndex n) const {
    const QuotaTree::Node& node = s_.tree.node(n);
    if (node.is_cluster_queue) return node.owner < s_.cqs.size() && s_.cqs[node.owner].exists;
    return node.owner < s_.cohorts.size() && (s_.cohorts[node.owner].exists || s_.cohorts[node.owner].refs > 0);
  }

  // ---- 1. Ids ---------------------------------------------------------------------------------

  absl::Status CheckIds() {
    const uint32_t frs = s_.tree.fr_count();
    std::vector<uint32_t> shape_refs(s_.shapes.size(), 0);
    size_t live = 0;
    for (uint32_t i = 0; i < s_.workloads.size(); ++i) {
      const WorkloadId id(i);
      const WorkloadRecord& w = s_.workloads[i];
      if (w.deleted) {
        if (w.admission || w.place != QueuePlace::kNone)
          return Violation(fmt::format("Workload slot {} is deleted but still holds quota or a queue place", i));
        continue;
      }
      ++live;
      if (!w.ns.valid() || w.ns.value >= s_.namespaces.size() || w.ns.value >= s_.namespaces_names.size())
        return Violation(fmt::format("Workload slot {}: namespace id {} does not resolve", i, w.ns.value));
      if (s_.FindWorkload(w.ns, w.name) != id)
        return Violation(fmt::format("{}: the name index does not map its name to slot {}", Wl(id), i));
      if (w.shape >= s_.shapes.size())
        return Violation(fmt::format("{}: pod-set shape {} does not resolve", Wl(id), w.shape));
      ++shape_refs[w.shape];
      if (!w.queue_name.valid() || w.queue_name.value >= s_.queue_names.size())
        return Violation(fmt::format("{}: queue name id {} does not resolve", Wl(id), w.queue_name.value));
      if (w.preempted_by.valid() && w.preempted_by.value >= s_.workloads.size())
        return Violation(fmt::format("{}: preemptor slot {} does not resolve", Wl(id), w.preempted_by.value));
      if (w.queued_in.valid() && (w.queued_in.value >= s_.cqs.size() || !s_.cq(w.queued_in).exists))
        return Violation(fmt::format("{}: it waits in ClusterQueue id {}, which does not exist", Wl(id), w.queued_in.value));
      if (w.admission) {
        const AdmissionRecord& a = *w.admission;
        if (!a.cluster_queue.valid() || a.cluster_queue.value >= s_.cqs.size() || !s_.cq(a.cluster_queue).exists)
          return Violation(fmt::format("{}: admitted to ClusterQueue id {}, which does not exist", Wl(id),
                                       a.cluster_queue.value));
        if (a.pod_sets.size() != s_.shapes[w.shape].pod_sets.size())
          return Violation(fmt::format("{}: its admission has {} pod sets, its shape {}", Wl(id), a.pod_sets.size(),
                                       s_.shapes[w.shape].pod_sets.size()));
        for (const AdmissionRecord::PodSet& ps : a.pod_sets) {
          for (size_t k = 0; k < ps.frs.size(); ++k) {
            const FrId fr = ps.frs[k];
            if (!fr.valid() || fr.value >= frs)
              return Violation(fmt::format("{}: its admission uses FR slot {}, which does not exist", Wl(id), fr.value));
            if (k > 0 && !(s_.catalog.FrResource(ps.frs[k - 1]) < s_.catalog.FrResource(fr)))
              return Violation(fmt::format("{}: its admission's flavors are not sorted by resource", Wl(id)));
          }
          if (ps.count < 0 || ps.reclaimable < 0 || ps.reclaimable > ps.count)
            return Violation(fmt::format("{}: its admission counts {} pods, {} reclaimable", Wl(id), ps.count,
                                         ps.reclaimable));
        }
        for (const auto& [fr, v] : AdmissionUsage(s_, w))
          if (v < 0) return Violation(fmt::format("{}: its admission holds {} of {}", Wl(id), v, Fr(fr.value)));
        // Pod sets' usage is kept only when the shape and counts do not give it (so a copy, a
        // restore and the engine hold the same).
        if (a.explicit_usage &&
            (a.explicit_usage->size() != a.pod_sets.size() || UsageIsDerived(s_, w, *a.explicit_usage)))
          return Violation(fmt::format("{}: its admission keeps pod set usage its shape gives", Wl(id)));
      }
    }
    if (s_.workload_index.size() != live)
      return Violation(fmt::format("the name index holds {} workloads, {} are live", s_.workload_index.size(), live));
    std::vector<bool> free_seen(s_.workloads.size(), false);
    for (WorkloadId id : s_.free_workloads) {
      if (id.value >= s_.workloads.size() || !s_.wl(id).deleted || free_seen[id.value])
        return Violation(fmt::format("free workload slot {} is out of range, live or listed twice", id.value));
      free_seen[id.value] = true;
    }
    if (s_.free_workloads.size() != s_.workloads.size() - live)
      return Violation(fmt::format("{} deleted workload slots, {} on the free list", s_.workloads.size() - live,
                                   s_.free_workloads.size()));
    for (uint32_t i = 0; i < s_.shapes.size(); ++i)
      if (s_.shapes[i].refs != shape_refs[i])
        return Violation(fmt::format("pod-set shape {} counts {} references, {} workloads use it", i,
                                     s_.shapes[i].refs, shape_refs[i]));
    return absl::OkStatus();
  }

  // ---- 2. States ------------------------------------------------------------------------------

  absl::Status CheckStates() {
    for (uint32_t i = 0; i < s_.workloads.size(); ++i) {
      const WorkloadId id(i);
      const WorkloadRecord& w = s_.workloads[i];
      if (w.deleted) continue;
      const bool holds = w.state == WorkloadState::kAdmitted || w.state == WorkloadState::kEvicting;
      if (holds != (w.admission != nullptr))
        return Violation(fmt::format("{} is {} but {} an admission", Wl(id), WorkloadStateName(w.state),
                                     w.admission ? "holds" : "has no"));
      if (w.admission && w.admission->evicted != (w.state == WorkloadState::kEvicting))
        return Violation(fmt::format("{} is {} but its admission is {}marked evicted", Wl(id),
                                     WorkloadStateName(w.state), w.admission->evicted ? "" : "not "));
      if (w.state != WorkloadState::kPending && (w.place != QueuePlace::kNone || w.queued_in.valid()))
        return Violation(fmt::format("{} is {} but also waits in a queue", Wl(id), WorkloadStateName(w.state)));
      if (w.state == WorkloadState::kInactive && w.active)
        return Violation(fmt::format("{} is Inactive but its spec.active is true", Wl(id)));
      // waitForPodsReady (docs/semantics.md §1.7.2): readiness belongs to the admission, and a
      // requeue instant only exists with a requeue count (both are cleared together).
      if (w.admission && w.admission->pods_ready && w.admission->pods_recovering)
        return Violation(fmt::format("{}: its pods are both ready and waiting for recovery", Wl(id)));
      if (w.extras && w.extras->requeue_at && !s_.requeue_backoff_seen)
        return Violation(fmt::format("{} waits for a requeue instant, but the state says none was ever set (a flush "
                                     "would not look for it)",
                                     Wl(id)));
      if (w.extras && (w.extras->requeue_count < 0 || (w.extras->requeue_at && w.extras->requeue_count == 0)))
        return Violation(fmt::format("{}: requeue state count {} with{} a requeue instant", Wl(id),
                                     w.extras->requeue_count, w.extras->requeue_at ? "" : "out"));
      if (w.state == WorkloadState::kInactive && w.extras && w.extras->requeue_count != 0)
        return Violation(fmt::format("{} is Inactive but keeps requeue count {} (deactivation clears it)", Wl(id),
                                     w.extras->requeue_count));
      if (w.state == WorkloadState::kPending) {
        if (!w.active) return Violation(fmt::format("{} is Pending but its spec.active is false", Wl(id)));
        if (w.place == QueuePlace::kInflight)
          return Violation(fmt::format("{} is still marked as popped for a cycle, outside a cycle", Wl(id)));
        if (w.place == QueuePlace::kQueued && w.status_epoch > s_.status_epoch)
          return Violation(fmt::format("{}: its status is marked current at epoch {}, after the latest ({})", Wl(id),
                                       w.status_epoch, s_.status_epoch));
        if (w.place == QueuePlace::kActive || w.place == QueuePlace::kInadmissible)
          return Violation(fmt::format("{} stores a derived queue place (queued workloads store kQueued)", Wl(id)));
        if ((w.place == QueuePlace::kNone) == w.queued_in.valid())
          return Violation(fmt::format("{}: its queue place and its ClusterQueue disagree", Wl(id)));
      }
    }
    return absl::OkStatus();
  }

  // ---- 3. Pending queues ----------------------------------------------------------------------

  template <class Set>
  absl::Status CheckPendingSet(ClusterQueueId cq_id, const Set& set, const char* what,
                               std::vector<uint8_t>& seen) {
    const ClusterQueueState& cq = s_.cq(cq_id);
    const PendingKey* prev = nullptr;
    for (const PendingKey& k : set) {
      if (!k.id.valid() || k.id.value >= s_.workloads.size() || s_.wl(k.id).deleted)
        return Violation(fmt::format("ClusterQueue '{}' {}: workload slot {} does not resolve", cq.name, what, k.id.value));
      const WorkloadRecord& w = s_.wl(k.id);
      const PendingKey now = PendingKeyOf(s_, k.id);
      if (k.priority != now.priority || k.queue_time_us != now.queue_time_us || k.uid != now.uid || k.seq != now.seq)
        return Violation(fmt::format("ClusterQueue '{}' {}: {} is keyed by priority {} and queue time {}us, "
                                     "its record says {} and {}us",
                                     cq.name, what, Wl(k.id), k.priority, k.queue_time_us, now.priority, now.queue_time_us));
      // Which of the two queues holds it is its place (PlaceOf); CheckClasses sees that it is filed
      // under its own class, where PlaceOf looks for it.
      if (w.state != WorkloadState::kPending || w.place != QueuePlace::kQueued || w.queued_in != cq_id)
        return Violation(fmt::format("ClusterQueue '{}' {} holds {}, which is {} and not placed there", cq.name, what,
                                     Wl(k.id), WorkloadStateName(w.state)));
      if (prev != nullptr && !PendingOrder()(*prev, k))
        return Violation(fmt::format("ClusterQueue '{}' {} is not sorted: {} comes after {}", cq.name, what, Wl(k.id),
                                     Wl(prev->id)));
      if (++seen[k.id.value] > 1) return Violation(fmt::format("{} waits in more than one queue", Wl(k.id)));
      prev = &k;
    }
    return absl::OkStatus();
  }

  // A pending queue's grouping (qm/queue/class_queue.h): every member is in its own class, each
  // class's first member is among the heads and nothing else is, each class counts its members'
  // namespaces exactly (a flush moves classes by those counts), and the size adds up.
  absl::Status CheckClasses(const ClusterQueueState& cq, const ClassQueue& queue, const char* what) {
    size_t members = 0;
    for (const auto& [cls, pending] : queue.classes()) {
      const PendingSet& set = pending.members;
      if (set.empty()) return Violation(fmt::format("ClusterQueue '{}' {}: an empty class is kept", cq.name, what));
      PendingClass recount;
      for (const PendingKey& k : set) {
        if (PendingClassOf(s_.wl(k.id)) != cls)
          return Violation(fmt::format("ClusterQueue '{}' {}: {} is filed under another equivalence class "
                                       "than its pod sets and priority give",
                                       cq.name, what, Wl(k.id)));
        recount.Count(s_.wl(k.id).ns, 1);
      }
      auto sorted = [](auto v) {
        std::sort(v.begin(), v.end());
        return v;
      };
      if (pending.stamp.epoch > s_.status_epoch || (pending.stamp.epoch != 0 && pending.stamp.reason == nullptr))
        return Violation(fmt::format("ClusterQueue '{}' {}: the class of {} has a status stamp of epoch {} (the "
                                     "latest is {}){}",
                                     cq.name, what, Wl(set.begin()->id), pending.stamp.epoch, s_.status_epoch,
                                     pending.stamp.reason == nullptr ? " without a reason" : ""));
      if (sorted(recount.namespaces) != sorted(pending.namespaces))
        return Violation(fmt::format("ClusterQueue '{}' {}: the class of {} miscounts its members' namespaces",
                                     cq.name, what, Wl(set.begin()->id)));
      if (!queue.heads().contains(*set.begin()))
        return Violation(fmt::format("ClusterQueue '{}' {}: the first of {}'s class is not among the heads",
                                     cq.name, what, Wl(set.begin()->id)));
      members += set.size();
    }
    if (queue.heads().size() != queue.classes().size() || members != queue.size())
      return Violation(fmt::format("ClusterQueue '{}' {}: {} heads, {} classes, {} members but size {}",
                                   cq.name, what, queue.heads().size(), queue.classes().size(), members,
                                   queue.size()));
    return absl::OkStatus();
  }

  // A queue the next cycle could take a head from must be marked for it (ClusterState::head_candidates),
  // or the cycle would pass it by.
  absl::Status CheckHeadCandidates() {
    const auto& ranks = s_.cq_rank;
    for (uint32_t rank = 0; rank < s_.cqs_by_name.size(); ++rank) {
      const ClusterQueueId id = s_.cqs_by_name[rank];
      if (id.value >= ranks.size() || ranks[id.value] != rank || rank / 64 >= s_.head_candidates.size())
        return Violation(fmt::format("ClusterQueue '{}': its place in the name order ({}) is not recorded", s_.cq(id).name, rank));
      const ClusterQueueState& cq = s_.cq(id);
      const bool marked = (s_.head_candidates[rank / 64] >> (rank % 64)) & 1;
      if (cq.active && !cq.heap.empty() && !marked)
        return Violation(fmt::format("ClusterQueue '{}' has workloads to nominate but the next cycle would not look at it",
                                     cq.name));
    }
    return absl::OkStatus();
  }

  absl::Status CheckPendingQueues() {
    std::vector<uint8_t> seen(s_.workloads.size(), 0);
    for (uint32_t c = 0; c < s_.cqs.size(); ++c) {
      const ClusterQueueId cq_id(c);
      const ClusterQueueState& cq = s_.cq(cq_id);
      QM_RETURN_IF_ERROR(CheckPendingSet(cq_id, cq.heap, "active queue", seen));
      QM_RETURN_IF_ERROR(CheckClasses(cq, cq.heap, "active queue"));
      QM_RETURN_IF_ERROR(CheckClasses(cq, cq.inadmissible, "inadmissible set"));
      QM_RETURN_IF_ERROR(CheckPendingSet(cq_id, cq.inadmissible, "inadmissible set", seen));
      if (cq.sticky_preemptor.valid() &&
          (cq.sticky_preemptor.value >= s_.workloads.size() || s_.wl(cq.sticky_preemptor).deleted))
        return Violation(fmt::format("ClusterQueue '{}': its sticky preemptor slot {} does not resolve", cq.name,
                                     cq.sticky_preemptor.value));
    }
    QM_RETURN_IF_ERROR(CheckHeadCandidates());
    for (uint64_t key : s_.unqueued) {
      const WorkloadId id = UnqueuedId(key);
      if (id.value >= s_.workloads.size() || s_.wl(id).deleted)
        return Violation(fmt::format("unqueued workloads: slot {} does not resolve", id.value));
      const WorkloadRecord& w = s_.wl(id);
      if (w.state != WorkloadState::kPending || w.place != QueuePlace::kNone || UnqueuedKey(w, id) != key)
        return Violation(fmt::format("unqueued workloads hold {}, which is {} or placed elsewhere", Wl(id),
                                     WorkloadStateName(w.state)));
      if (++seen[id.value] > 1) return Violation(fmt::format("{} waits in more than one queue", Wl(id)));
    }
    for (uint32_t i = 0; i < s_.workloads.size(); ++i) {
      const WorkloadRecord& w = s_.workloads[i];
      if (w.deleted || w.state != WorkloadState::kPending || seen[i] == 1) continue;
      return Violation(fmt::format("{} is Pending but waits in no queue (its place says {})", Wl(WorkloadId(i)),
                                   w.place == QueuePlace::kNone ? "unqueued" : "queued"));
    }
    return absl::OkStatus();
  }

  // ---- 4. Candidate sets ----------------------------------------------------------------------

  absl::Status CheckCandidateSet(ClusterQueueId cq_id, const CandidateSet& set, bool evicting,
                                 std::vector<uint8_t>& seen) {
    const ClusterQueueState& cq = s_.cq(cq_id);
    const char* what = evicting ? "evicting set" : "admitted set";
    const CandidateKey* prev = nullptr;
    for (const CandidateKey& k : set) {
      if (!k.id.valid() || k.id.value >= s_.workloads.size() || s_.wl(k.id).deleted)
        return Violation(fmt::format("ClusterQueue '{}' {}: workload slot {} does not resolve", cq.name, what, k.id.value));
      const WorkloadRecord& w = s_.wl(k.id);
      if (!w.admission || w.admission->cluster_queue != cq_id || w.admission->evicted != evicting)
        return Violation(fmt::format("ClusterQueue '{}' {} holds {}, which is {} and does not belong there", cq.name,
                                     what, Wl(k.id), WorkloadStateName(w.state)));
      const CandidateKey now = CandidateKeyOf(s_, k.id);
      if (k.priority != now.priority || k.reserved_us != now.reserved_us || k.uid != now.uid || k.seq != now.seq)
        return Violation(fmt::format("ClusterQueue '{}' {}: {} is keyed by priority {} and reservation {}us, "
                                     "its record says {} and {}us",
                                     cq.name, what, Wl(k.id), k.priority, k.reserved_us, now.priority, now.reserved_us));
      if (prev != nullptr && !CandidateOrder()(*prev, k))
        return Violation(fmt::format("ClusterQueue '{}' {} is not sorted: {} comes after {}", cq.name, what, Wl(k.id),
                                     Wl(prev->id)));
      if (++seen[k.id.value] > 1) return Violation(fmt::format("{} is listed twice as holding quota", Wl(k.id)));
      prev = &k;
    }
    return absl::OkStatus();
  }

  absl::Status CheckCandidateSets() {
    std::vector<uint8_t> seen(s_.workloads.size(), 0);
    for (uint32_t c = 0; c < s_.cqs.size(); ++c) {
      QM_RETURN_IF_ERROR(CheckCandidateSet(ClusterQueueId(c), s_.cqs[c].admitted, false, seen));
      QM_RETURN_IF_ERROR(CheckCandidateSet(ClusterQueueId(c), s_.cqs[c].evicting, true, seen));
    }
    for (uint32_t i = 0; i < s_.workloads.size(); ++i) {
      const WorkloadRecord& w = s_.workloads[i];
      if (!w.deleted && w.admission && seen[i] == 0)
        return Violation(fmt::format("{} holds quota in ClusterQueue '{}' but is missing from its {} set",
                                     Wl(WorkloadId(i)), s_.cq(w.admission->cluster_queue).name,
                                     w.admission->evicted ? "evicting" : "admitted"));
    }
    return absl::OkStatus();
  }

  // ---- 5. ClusterQueue usage ------------------------------------------------------------------

  absl::Status CheckClusterQueueUsage() {
    const uint32_t frs = s_.tree.fr_count();
    held_.assign(s_.cqs.size() * frs, 0);
    evicting_.assign(s_.cqs.size() * frs, 0);
    oldest_.assign(s_.cqs.size() * frs, kNever);
    for (const WorkloadRecord& w : s_.workloads) {
      if (w.deleted || !w.admission) continue;
      const AdmissionRecord& a = *w.admission;
      for (const auto& [fr, v] : AdmissionUsage(s_, w)) {
        const size_t k = a.cluster_queue.value * size_t{frs} + fr.value;
        held_[k] += v;
        if (a.evicted) evicting_[k] = AddAmount(evicting_[k], v);
        if (v > 0 && !a.evicted) oldest_[k] = std::min(oldest_[k], a.admitted_cycle);
      }
    }
    for (uint32_t c = 0; c < s_.cqs.size(); ++c) {
      const ClusterQueueState& cq = s_.cqs[c];
      if (cq.node == kNoNode) continue;
      const QuotaTree::Node& node = s_.tree.node(cq.node);
      for (uint32_t f = 0; f < frs; ++f) {
        const WideAmount held = held_[c * size_t{frs} + f];
        if (node.fr[f].usage_exact != held || node.fr[f].usage != ClampAmount(held))
          return Violation(fmt::format("ClusterQueue '{}' usage of {} is {} but its admitted workloads hold {}",
                                       cq.name, Fr(f), UsageText(node.fr[f]), WideText(held)));
      }
    }
    return absl::OkStatus();
  }

  // ---- 6. Quota tree --------------------------------------------------------------------------

  // Pre-order of the in-use trees, roots in index order and children in their (sorted) order.
  void CollectTrees() {
    order_.clear();
    for (NodeIndex root = 0; root < s_.tree.node_count(); ++root) {
      if (s_.tree.parent(root) != kNoNode || !InUse(root)) continue;
      const size_t start = order_.size();
      order_.push_back(root);
      for (size_t i = start; i < order_.size(); ++i)
        for (NodeIndex c : s_.tree.node(order_[i]).children) order_.push_back(c);
    }
  }

  absl::Status CompareAmount(NodeIndex n, uint32_t f, const char* what, int64_t got, int64_t want) const {
    if (got == want) return absl::OkStatus();
    return Violation(fmt::format("{} {} of {} is {} but a recomputation gives {}", Node(n), what, Fr(f), got, want));
  }

  absl::Status CheckTree() {
    CollectTrees();
    QuotaTree fresh = s_.tree;  // usage of the ClusterQueues was just checked against the workloads
    for (NodeIndex n : order_)
      if (s_.tree.parent(n) == kNoNode) fresh.Recompute(n);
    const auto names_less = [&](ResourceId a, ResourceId b) { return s_.ResourceName(a) < s_.ResourceName(b); };
    for (NodeIndex n : order_) {
      const QuotaTree::Node& got = s_.tree.node(n);
      const QuotaTree::Node& want = fresh.node(n);
      for (uint32_t f = 0; f < got.fr.size(); ++f) {
        const FrQuota &g = got.fr[f], &w = want.fr[f];
        if (!got.is_cluster_queue && (g.usage_exact != w.usage_exact || g.usage != w.usage))
          return Violation(fmt::format("Cohort '{}' usage of {} is {} but its members hold {} above their "
                                       "guaranteed quota",
                                       s_.cohorts[got.owner].name, Fr(f), UsageText(g), UsageText(w)));
        QM_RETURN_IF_ERROR(CompareAmount(n, f, "subtree quota", g.subtree_quota, w.subtree_quota));
        QM_RETURN_IF_ERROR(CompareAmount(n, f, "guaranteed (non-lendable) quota", g.local_quota, w.local_quota));
        QM_RETURN_IF_ERROR(CompareAmount(n, f, "potential quota", g.potential, w.potential));
      }
      for (uint32_t r = 0; r < got.borrowed.size(); ++r) {
        const std::string res = r < s_.catalog.resource_count() ? s_.ResourceName(ResourceId(r)) : std::to_string(r);
        if (got.borrowed[r] != want.borrowed[r])
          return Violation(fmt::format("{} borrowed amount of {} is {} but a recomputation gives {}", Node(n), res,
                                       WideText(got.borrowed[r]), WideText(want.borrowed[r])));
        if (got.potential_sum[r] != want.potential_sum[r])
          return Violation(fmt::format("{} lendable amount of {} is {} but a recomputation gives {}", Node(n), res,
                                       got.potential_sum[r], want.potential_sum[r]));
      }
      if (got.height != want.height)
        return Violation(fmt::format("{} height is {} but a recomputation gives {}", Node(n), got.height, want.height));
      const Share a = s_.tree.DominantShare(n, names_less), b = fresh.DominantShare(n, names_less);
      if (a.borrowed != b.borrowed || a.lendable != b.lendable || a.weight_milli != b.weight_milli ||
          a.dominant != b.dominant)
        return Violation(fmt::format("{} weighted share is {} but a recomputation gives {}", Node(n),
                                     a.WeightedShareCeil(), b.WeightedShareCeil()));
    }
    return absl::OkStatus();
  }

  // ---- 7. Limits ------------------------------------------------------------------------------

  absl::Status CheckLimits() {
    const uint32_t frs = s_.tree.fr_count();
    if (frs == 0) return absl::OkStatus();  // no quota anywhere (e.g. ClusterQueues without resource groups)
    // The oldest admission (by admitted cycle) each node holds per FR, and the usage of the
    // workloads being evicted under it, bottom-up.
    std::vector<uint64_t> oldest(size_t{s_.tree.node_count()} * frs, kNever);
    std::vector<int64_t> evicting(size_t{s_.tree.node_count()} * frs, 0);
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      const QuotaTree::Node& node = s_.tree.node(*it);
      uint64_t* mine = &oldest[*it * size_t{frs}];
      int64_t* stopping = &evicting[*it * size_t{frs}];
      if (node.is_cluster_queue) {
        std::copy_n(&oldest_[node.owner * size_t{frs}], frs, mine);
        std::copy_n(&evicting_[node.owner * size_t{frs}], frs, stopping);
      } else {
        for (NodeIndex c : node.children) {
          for (uint32_t f = 0; f < frs; ++f) {
            mine[f] = std::min(mine[f], oldest[c * size_t{frs} + f]);
            stopping[f] = AddAmount(stopping[f], evicting[c * size_t{frs} + f]);
          }
        }
      }
    }
    for (NodeIndex n : order_) {
      const QuotaTree::Node& node = s_.tree.node(n);
      const bool root = node.parent == kNoNode;
      const uint64_t changed = std::max(
          n < st_.quota_changed_cycle.size() ? st_.quota_changed_cycle[n] : uint64_t{0}, st_.quota_floor_cycle);
      for (uint32_t f = 0; f < frs; ++f) {
        const FrQuota& q = node.fr[f];
        if (!root && q.borrowing_limit == kUnlimited) continue;
        const int64_t limit = root ? q.subtree_quota : AddAmount(q.subtree_quota, q.borrowing_limit);
        // Victims being evicted still hold their quota; what counts is what stays.
        const int64_t staying = SubAmount(q.usage, evicting[n * size_t{frs} + f]);
        if (staying <= limit) continue;
        if (oldest[n * size_t{frs} + f] <= changed) continue;  // admitted before the quota shrank
        if (root)
          return Violation(fmt::format("{} usage of {} is {}, above its quota {}, though no quota changed since "
                                       "those workloads were admitted",
                                       Node(n), Fr(f), staying, q.subtree_quota));
        return Violation(fmt::format("{} usage of {} is {}, above its {} {} + borrowing limit {}, though no quota "
                                     "changed since those workloads were admitted",
                                     Node(n), Fr(f), staying, node.is_cluster_queue ? "nominal quota" : "quota",
                                     q.subtree_quota, q.borrowing_limit));
      }
    }
    return absl::OkStatus();
  }

  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

  const EngineState& st_;
  const ClusterState& s_;
  std::vector<WideAmount> held_;  ///< per (ClusterQueue, FR): Σ of its admissions, exact
  std::vector<int64_t> evicting_; ///< per (ClusterQueue, FR): Σ of its admissions being evicted
  std::vector<uint64_t> oldest_;  ///< per (ClusterQueue, FR): the earliest admitted cycle holding it
  std::vector<NodeIndex> order_;  ///< pre-order of the in-use trees
};

}  // namespace

absl::Status EngineState::CheckInvariants() const { return Checker(*this).Run(); }

EngineState& EngineStateForTesting(Engine& engine) { return *engine.state_; }

}  // namespace internal

absl::Status Engine::CheckInvariants() const {
  QM_RETURN_IF_ERROR(Queryable("CheckInvariants"));
  return state_->CheckInvariants();
}

}  // namespace qm
