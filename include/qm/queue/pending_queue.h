// Pending queues (docs/semantics.md §3): where a pending workload waits, in which order, and which events
// park it or bring it back.
//
// Each ClusterQueue owns an active queue (`heap`, ordered by `PendingOrder`), an inadmissible set
// (parked until something changes) and, during a cycle, the popped head. Pending workloads whose
// LocalQueue or ClusterQueue is missing or stopped wait in `ClusterState::unqueued`.
//
// A queued workload's record says only that it is queued (`QueuePlace::kQueued`) and where;
// whether it is active or parked is which of the two queues holds its class (`PlaceOf`). So moving
// a class between them writes no member's record.
//
// Costs: Enqueue / Remove / PopHead O(log n) for n pending in the queue; a flush moves every parked
// class of a cohort tree back as a whole set, O(classes × (log C + namespaces)), and reads members
// only in the rare classes that must split (a namespace that no longer matches, a pods-ready
// requeue back-off); bulk parking of an equivalence class takes the class's members out of the
// active queue at once and stamps their status on the set (qm/queue/class_queue.h), O(log C), plus
// the smaller side of a merge with a class already parked.
#ifndef QM_QUEUE_PENDING_QUEUE_H_
#define QM_QUEUE_PENDING_QUEUE_H_

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "fmt/format.h"
#include "qm/state/accounting.h"
#include "qm/state/cluster_state.h"
#include "qm/state/stable_hash.h"

namespace qm {

/// Kueue condition reasons written on pending workloads (docs/semantics.md §8).
namespace reason {
inline constexpr const char* kPending = "Pending";
inline constexpr const char* kInadmissible = "Inadmissible";
inline constexpr const char* kSuspended = "Suspended";
inline constexpr const char* kMisconfigured = "Misconfigured";
inline constexpr const char* kNoMatchingFlavor = "NoMatchingFlavor";
inline constexpr const char* kExceedsMaxQuota = "ExceedsMaxQuota";
inline constexpr const char* kWaitingForQuota = "WaitingForQuota";
inline constexpr const char* kWaitingForPreemptedWorkloads = "WaitingForPreemptedWorkloads";
inline constexpr const char* kPendingEvaluation = "PendingEvaluation";
inline constexpr const char* kQuotaReserved = "QuotaReserved";
inline constexpr const char* kPreempted = "Preempted";
inline constexpr const char* kFinished = "Finished";
inline constexpr const char* kDeactivated = "Deactivated";
}  // namespace reason

/// The message of a workload parked because an equivalent one failed (docs/semantics.md §3.7).
inline constexpr const char* kBypassedMessage =
    "Bypassed scheduling evaluation because an equivalent workload recently failed";

/// The equivalence key of a workload (Kueue's scheduling hash, docs/semantics.md §3.7): same pod sets, same priority.
/// Kueue's hash covers the counts after reclaimable pods, so a workload reporting some is only
/// equivalent to workloads of the same shape with the same counts left (docs/semantics.md §1.7.1).
inline uint64_t EquivalenceKey(const ClusterState& s, const WorkloadRecord& w) {
  uint64_t hash = s.shapes[w.shape].hash;
  if (HasReclaimablePods(w)) {
    hash = StableMix(hash, uint64_t{0x7265636c61696dULL});  // "reclaim": never a plain shape's key
    for (const PodSetShape& ps : s.shapes[w.shape].pod_sets)
      hash = StableMix(hash, static_cast<uint64_t>(CountAfterReclaim(w, ps)));
  }
  return EquivalenceKeyOf(hash, w.priority);  // stable: it is stored (blocked, scans)
}

/// The equivalence class of a pending workload inside its ClusterQueue's active queue. A workload
/// reporting reclaimable pods is a class of its own (keyed by its unique `seq`, top bit set): it
/// is parked and flushed alone, never with workloads of its shape that request more.
inline PendingClassKey PendingClassOf(const WorkloadRecord& w) {
  if (HasReclaimablePods(w)) return (uint64_t{1} << 63) | w.seq;
  return PendingClassOf(w.shape, w.priority);
}

inline PendingKey PendingKeyOf(const ClusterState& s, WorkloadId id) {
  const WorkloadRecord& w = s.wl(id);
  return PendingKey{w.priority, id, w.queue_time.us, &w.uid, w.seq};
}

inline uint64_t UnqueuedKey(const WorkloadRecord& w, WorkloadId id) { return (w.seq << 32) | id.value; }
inline WorkloadId UnqueuedId(uint64_t key) { return WorkloadId(static_cast<uint32_t>(key & 0xffffffffu)); }

/// Walks a set of pending keys a few records ahead of a loop over the same set, asking the CPU to
/// fetch each record before the loop reads it: a flush that must split a class visits every member's
/// record, scattered over the store, and one cache miss each, taken one at a time, is most of its
/// cost.
class RecordPrefetcher {
 public:
  static constexpr int kDistance = 12;
  RecordPrefetcher(const ClusterState& s, const PendingSet& keys) : s_(s), it_(keys.begin()), end_(keys.end()) {
    for (int i = 0; i < kDistance; ++i) Next();
  }
  /// Fetches the next record ahead (its first line and the ones of the fields such a flush touches:
  /// namespace, extras, and the status a member that stays takes from its class's stamp).
  void Next() {
    if (it_ == end_) return;
    const WorkloadRecord& w = s_.wl(it_->id);  // an address: nothing is read yet
    __builtin_prefetch(&w, 1);
    __builtin_prefetch(&w.extras, 1);
    __builtin_prefetch(&w.message, 1);
    ++it_;
  }

 private:
  const ClusterState& s_;
  PendingSet::const_iterator it_, end_;
};

/// Where a workload waits: kActive or kInadmissible for a queued one, from the queue that holds its
/// class (O(1) + O(log m)); the stored place otherwise.
inline QueuePlace PlaceOf(const ClusterState& s, WorkloadId id) {
  const WorkloadRecord& w = s.wl(id);
  if (w.place != QueuePlace::kQueued) return w.place;
  return s.cq(w.queued_in).heap.contains(PendingKeyOf(s, id), PendingClassOf(w)) ? QueuePlace::kActive
                                                                                 : QueuePlace::kInadmissible;
}

// ---- Status stamps (qm/queue/class_queue.h, `StatusStamp`) -------------------------------------
//
// A bulk park stamps the parked class instead of writing each member's reason and message. A
// queued workload's own `reason` and `message` hold while its `status_epoch` is at least its
// class's stamp's epoch. Every way into a queue one by one sets the record's epoch to the current
// one (its own status is current); every way out one by one, and the smaller side of a merge,
// takes on the stamp that covered it (`TakeStamp`). Readers use `ReasonOf` / `MessageOf`;
// writers to a workload that may be queued call `OwnStatus` first.

/// Whether `stamp` overrides the status on `w`'s record: it was made after that status was current.
inline bool Covers(const StatusStamp& stamp, const WorkloadRecord& w) { return stamp.epoch > w.status_epoch; }

/// The stamp that covers a queued workload's status, or nullptr.
inline const StatusStamp* CoveringStamp(const ClusterState& s, WorkloadId id) {
  const WorkloadRecord& w = s.wl(id);
  if (w.place != QueuePlace::kQueued || s.status_epoch <= w.status_epoch) return nullptr;  // no later stamp exists
  const ClusterQueueState& cq = s.cq(w.queued_in);
  const PendingKey key = PendingKeyOf(s, id);
  const PendingClassKey cls = PendingClassOf(w);
  const PendingClass* in = cq.heap.Find(key, cls);
  if (in == nullptr) in = cq.inadmissible.Find(key, cls);
  return in != nullptr && Covers(in->stamp, w) ? &in->stamp : nullptr;
}

/// A workload's condition reason, as its class's stamp may give it.
inline const char* ReasonOf(const ClusterState& s, WorkloadId id) {
  const StatusStamp* stamp = CoveringStamp(s, id);
  return stamp != nullptr ? stamp->reason : s.wl(id).reason;
}

/// A workload's status message, as its class's stamp may give it.
inline std::string_view MessageOf(const ClusterState& s, WorkloadId id) {
  return CoveringStamp(s, id) != nullptr ? std::string_view(kBypassedMessage) : std::string_view(s.wl(id).message);
}

/// Writes into `w` the status `stamp` gave it when the stamp covers it, and marks its own status
/// current as of `epoch`.
inline void TakeStamp(WorkloadRecord& w, const StatusStamp& stamp, uint32_t epoch) {
  if (Covers(stamp, w)) {
    w.reason = stamp.reason;
    w.message = CompactString::Static(kBypassedMessage);
  }
  w.status_epoch = epoch;
}

/// Makes a workload's own `reason` and `message` its status (taking on a stamp that covers it),
/// so they may be read and written directly. O(1) + O(log m) for a queued one.
inline WorkloadRecord& OwnStatus(ClusterState& s, WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  const StatusStamp* stamp = CoveringStamp(s, id);
  TakeStamp(w, stamp != nullptr ? *stamp : StatusStamp(), s.status_epoch);
  return w;
}

/// The `adopt` of `ClassQueue::InsertSet`: the smaller side of a merge takes on its stamp.
inline auto AdoptStamp(ClusterState& s) {
  return [&s](const PendingKey& k, const StatusStamp& stamp) { TakeStamp(s.wl(k.id), stamp, s.status_epoch); };
}

/// Adds a queued workload to `queue` one by one: its own status is current from now on.
inline void InsertPending(ClusterState& s, ClassQueue& queue, WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  w.status_epoch = s.status_epoch;
  queue.insert(PendingKeyOf(s, id), PendingClassOf(w), w.ns);
}

/// Before the epoch counter would wrap (after 2³² − 1 bulk parks): every stamp is written into the
/// records it covers, and every epoch starts again from 0. O(queued workloads), once in billions.
inline void RestartStatusEpochs(ClusterState& s) {
  for (ClusterQueueState& cq : s.cqs)
    for (ClassQueue* queue : {&cq.heap, &cq.inadmissible})
      queue->ClearStamps([&](const PendingKey& k, const StatusStamp& stamp) { TakeStamp(s.wl(k.id), stamp, 0); });
  s.status_epoch = 0;
}

/// Takes a pending workload out of wherever it waits.
inline void RemoveFromQueues(ClusterState& s, WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  switch (w.place) {
    case QueuePlace::kNone:
      s.unqueued.erase(UnqueuedKey(w, id));
      break;
    case QueuePlace::kQueued: {
      ClusterQueueState& cq = s.cq(w.queued_in);
      const PendingKey key = PendingKeyOf(s, id);
      const PendingClassKey cls = PendingClassOf(w);
      StatusStamp stamp;
      if (!cq.heap.erase(key, cls, w.ns, &stamp)) cq.inadmissible.erase(key, cls, w.ns, &stamp);
      TakeStamp(w, stamp, s.status_epoch);
      break;
    }
    case QueuePlace::kActive:
    case QueuePlace::kInadmissible:
    case QueuePlace::kInflight:
      break;
  }
  if (w.place != QueuePlace::kNone && w.queued_in.valid()) {
    ClusterQueueState& cq = s.cq(w.queued_in);
    if (cq.sticky_preemptor == id) cq.sticky_preemptor = WorkloadId();
  }
  w.place = QueuePlace::kNone;
  w.queued_in = ClusterQueueId();
}

inline ClusterQueueId ResolveQueue(const ClusterState& s, const WorkloadRecord& w, std::string* why,
                                   const char** reason_out);

/// The ClusterQueue a pending workload belongs to, or an invalid id with the reason it has none
/// (the workload controller's messages, docs/semantics.md §8).
inline ClusterQueueId ResolveQueue(const ClusterState& s, const WorkloadRecord& w, std::string* why) {
  return ResolveQueue(s, w, why, nullptr);
}

/// As above; `reason` receives the docs/semantics.md §8 condition reason: Suspended for a stopped LocalQueue,
/// Misconfigured for a missing LocalQueue or ClusterQueue.
inline ClusterQueueId ResolveQueue(const ClusterState& s, const WorkloadRecord& w, std::string* why,
                                   const char** reason_out) {
  const std::string& lq_name = s.queue_names.Name(w.queue_name);
  const LocalQueueId lq = s.FindLocalQueue(w.ns, lq_name);
  if (!lq.valid() || !s.local_queues[lq.value].exists) {
    if (why) *why = fmt::format("LocalQueue {} doesn't exist", lq_name);
    if (reason_out) *reason_out = reason::kMisconfigured;
    return ClusterQueueId();
  }
  const LocalQueueState& l = s.local_queues[lq.value];
  if (l.spec.stop_policy != StopPolicy::kNone) {
    // A pending workload reads "is inactive"; "is stopped" is only for one holding quota (§3.9).
    if (why) *why = fmt::format("LocalQueue {} is inactive", lq_name);
    if (reason_out) *reason_out = reason::kSuspended;
    return ClusterQueueId();
  }
  const ClusterQueueId cq = s.cq_names.Find(l.spec.cluster_queue);
  if (!cq.valid() || !s.cq(cq).exists) {
    if (why) *why = fmt::format("ClusterQueue {} doesn't exist", l.spec.cluster_queue);
    if (reason_out) *reason_out = reason::kMisconfigured;
    return ClusterQueueId();
  }
  return cq;
}

/// Puts a pending workload where it belongs (docs/semantics.md §3.4): its ClusterQueue's active queue, the
/// inadmissible set (BestEffortFIFO and its equivalence class is blocked), or `unqueued`.
inline void Enqueue(ClusterState& s, WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  RemoveFromQueues(s, id);
  std::string why;
  const char* why_reason = reason::kInadmissible;
  const ClusterQueueId cq_id = ResolveQueue(s, w, &why, &why_reason);
  if (!cq_id.valid()) {
    w.place = QueuePlace::kNone;
    s.unqueued.insert(UnqueuedKey(w, id));
    w.reason = why_reason;
    w.message = std::move(why);
    return;
  }
  ClusterQueueState& cq = s.cq(cq_id);
  w.queued_in = cq_id;
  w.place = QueuePlace::kQueued;
  // Kueue's requeue back-off after a pods-ready timeout (docs/semantics.md §1.7.2): parked alone
  // until it ends, whatever the queueing strategy; flushes leave it there.
  if (InRequeueBackoff(w, s.Now())) {
    InsertPending(s, cq.inadmissible, id);
    return;
  }
  if (cq.spec.queueing_strategy == QueueingStrategy::kBestEffortFIFO &&
      s.config.features.scheduling_equivalence_hashing && !cq.blocked.empty() &&
      cq.blocked.contains(EquivalenceKey(s, w))) {
    InsertPending(s, cq.inadmissible, id);
    w.message = CompactString::Static(kBypassedMessage);
    return;
  }
  InsertPending(s, cq.heap, id);
  s.MayHaveHead(cq_id);
}

/// Parks a pending workload of `cq` in its inadmissible set.
inline void Park(ClusterState& s, WorkloadId id, ClusterQueueId cq_id) {
  WorkloadRecord& w = s.wl(id);
  RemoveFromQueues(s, id);
  w.queued_in = cq_id;
  w.place = QueuePlace::kQueued;
  InsertPending(s, s.cq(cq_id).inadmissible, id);
}

/// Whether the workload's namespace exists and matches the ClusterQueue's selector.
inline bool NamespaceMatches(const ClusterState& s, const ClusterQueueState& cq, NamespaceId ns) {
  if (!ns.valid() || !s.namespaces[ns.value].exists) return false;
  if (!cq.spec.namespace_selector.has_value()) return false;
  return Matches(*cq.spec.namespace_selector, s.namespaces[ns.value].labels);
}

/// Moves every parked workload of a ClusterQueue whose namespace matches back to its active queue
/// and forgets the blocked equivalence classes (docs/semantics.md §3.8). A class whose namespaces
/// all match goes back whole and no member's record is read; one whose namespaces all fail stays
/// whole. Only a class that splits, or any class once a requeue back-off was ever set, is walked
/// member by member.
inline void FlushClusterQueue(ClusterState& s, ClusterQueueId cq_id) {
  ClusterQueueState& cq = s.cq(cq_id);
  // clear() rewrites every control byte of a once-grown table even when it is empty, and a flush
  // reaches every ClusterQueue of a cohort: skip it when there is nothing to clear.
  if (!cq.blocked.empty()) cq.blocked.clear();
  if (cq.inadmissible.empty()) return;
  // Whether a namespace matches is asked once per namespace and flush (a label selector match
  // costs more than the rest of the loop); namespaces and selectors change between flushes.
  absl::InlinedVector<std::pair<NamespaceId, bool>, 4> ns_cache;
  const auto matches = [&](NamespaceId ns) {
    for (const auto& [id, ok] : ns_cache)
      if (id == ns) return ok;
    const bool ok = NamespaceMatches(s, cq, ns);
    ns_cache.emplace_back(ns, ok);
    return ok;
  };
  // The result does not depend on the order classes are handed over in.
  std::vector<PendingKey> stay;
  ClassQueue::ClassMap& taken = s.flush_scratch;  // empty between flushes
  cq.inadmissible.TakeAllInto(taken);
  for (auto& [cls, parked] : taken) {
    bool all = true, none = true;
    for (const auto& [ns, n] : parked.namespaces) {
      const bool ok = matches(ns);
      all = all && ok;
      none = none && !ok;
    }
    if (none) {
      cq.inadmissible.InsertSet(cls, std::move(parked), AdoptStamp(s));
      continue;
    }
    if (all && !s.requeue_backoff_seen) {
      cq.heap.InsertSet(cls, std::move(parked), AdoptStamp(s));
      continue;
    }
    // Members whose namespace no longer matches, or that wait out their requeue back-off
    // (docs/semantics.md §1.7.2), stay parked.
    stay.clear();
    RecordPrefetcher ahead(s, parked.members);  // a parked member's record is rarely in cache
    for (const PendingKey& k : parked.members) {
      ahead.Next();
      const WorkloadRecord& w = s.wl(k.id);
      if (!matches(w.ns) || InRequeueBackoff(w, s.Now())) stay.push_back(k);
    }
    for (const PendingKey& k : stay) {
      parked.members.erase(k);
      parked.Uncount(s.wl(k.id).ns);
      TakeStamp(s.wl(k.id), parked.stamp, s.status_epoch);  // it leaves the stamped set
    }
    cq.heap.InsertSet(cls, std::move(parked), AdoptStamp(s));
    for (const PendingKey& k : stay) InsertPending(s, cq.inadmissible, k.id);
  }
  taken.clear();  // moved-from classes; a small table keeps its room
  if (!cq.heap.empty()) s.MayHaveHead(cq_id);
}

/// A flush request for `cq` (docs/semantics.md §3.8): applies to every ClusterQueue of its cohort tree.
inline void RequestFlush(ClusterState& s, ClusterQueueId cq_id) {
  const ClusterQueueState& cq = s.cq(cq_id);
  if (!cq.exists) return;
  if (!cq.cohort.valid()) {
    FlushClusterQueue(s, cq_id);
    return;
  }
  const NodeIndex root = s.tree.Root(cq.node);
  std::vector<NodeIndex> stack{root};
  while (!stack.empty()) {
    const NodeIndex n = stack.back();
    stack.pop_back();
    const auto& node = s.tree.node(n);
    if (node.is_cluster_queue) {
      FlushClusterQueue(s, ClusterQueueId(node.owner));
    } else {
      for (NodeIndex c : node.children) stack.push_back(c);
    }
  }
}

/// Re-examines workloads waiting outside any ClusterQueue (after queues were created or resumed).
inline void RetryUnqueued(ClusterState& s) {
  if (s.unqueued.empty()) return;
  std::vector<WorkloadId> ids;
  for (uint64_t k : s.unqueued) ids.push_back(UnqueuedId(k));
  for (WorkloadId id : ids) {
    std::string why;
    const char* why_reason = reason::kInadmissible;
    if (ResolveQueue(s, s.wl(id), &why, &why_reason).valid()) {
      Enqueue(s, id);
    } else {
      s.wl(id).reason = why_reason;
      s.wl(id).message = std::move(why);
    }
  }
}

/// Pops the head of a ClusterQueue's active queue (the sticky preemptor first, docs/semantics.md §3.2), marking it
/// inflight. Returns an invalid id when the queue is empty.
inline WorkloadId PopHead(ClusterState& s, ClusterQueueId cq_id) {
  ClusterQueueState& cq = s.cq(cq_id);
  WorkloadId id;
  if (cq.sticky_preemptor.valid() && s.wl(cq.sticky_preemptor).queued_in == cq_id &&
      PlaceOf(s, cq.sticky_preemptor) == QueuePlace::kActive) {
    id = cq.sticky_preemptor;
  } else {
    if (cq.heap.empty()) return WorkloadId();
    id = cq.heap.front().id;
  }
  WorkloadRecord& w = s.wl(id);
  StatusStamp stamp;
  cq.heap.erase(PendingKeyOf(s, id), PendingClassOf(w), w.ns, &stamp);
  TakeStamp(w, stamp, s.status_epoch);
  w.place = QueuePlace::kInflight;
  return id;
}

}  // namespace qm

#endif  // QM_QUEUE_PENDING_QUEUE_H_
