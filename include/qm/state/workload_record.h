// The engine's compact record of one workload, and the shared pod-set shapes it points to.
//
// A pending workload costs one record plus one queue entry, so the record is kept small: identical
// pod-set specs (the common case in a trace or a benchmark: thousands of copies of one job) are
// stored once as a shared, reference-counted `WorkloadShape`; rarely used fields (labels, conditions
// given at submission) live in an optional side block; strings are 16-byte `CompactString`s; an
// admission exists only while the workload holds quota.
#ifndef QM_STATE_WORKLOAD_RECORD_H_
#define QM_STATE_WORKLOAD_RECORD_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "boost/container/small_vector.hpp"
#include "qm/core/compact_string.h"
#include "qm/core/ids.h"
#include "qm/model/decisions.h"
#include "qm/core/time.h"
#include "qm/model/selectors.h"
#include "qm/model/workload.h"
#include "qm/state/block_pool.h"
#include "qm/state/preemption_history.h"
#include "qm/state/quota_tree.h"

namespace qm {

/// Per-pod requests as (resource, amount), sorted by resource id.
using ResourceList = boost::container::small_vector<std::pair<ResourceId, int64_t>, 4>;
/// Usage per (flavor, resource) slot, sorted by slot id.
using FrUsage = boost::container::small_vector<std::pair<FrId, int64_t>, 4>;

/// One pod set as the solver sees it.
struct PodSetShape {
  std::string name;
  int32_t count = 1;
  int32_t min_count = 0;  ///< 0 = no partial admission for this pod set
  ResourceList per_pod;   ///< requests of one pod
  Labels node_selector;
  std::optional<std::vector<NodeSelectorTerm>> required_node_affinity;
  std::vector<Toleration> tolerations;
};

/// The pod sets of a workload, shared by every workload with the same ones.
struct WorkloadShape {
  std::vector<PodSetShape> pod_sets;
  uint64_t hash = 0;
  uint32_t refs = 0;
};
using ShapeId = uint32_t;


/// What a workload holds while it has quota.
///
/// 128 bytes for the common admission (one pod set, up to four resources), laid out without
/// padding. Nothing in it is derivable: what the admission adds to the quota tree is derived from
/// its pod sets, their FRs and the shape (`AdmissionUsage`), a pod set's usage likewise
/// (`PodSetUsage`), so a 10⁶-admission engine touches half the fresh memory it used to
/// (docs/benchmarks.md, issue 27).
struct AdmissionRecord {
  struct PodSet {
    int32_t count = 0;
    /// Pods that finished and gave their quota back (Kueue's status.reclaimablePods).
    int32_t reclaimable = 0;
    /// One FR per resource that got a flavor; the FR names both (Catalog::FrResource,
    /// Catalog::FrFlavor). In the order the flavor assignment chose them; loaded admissions sorted
    /// by resource.
    boost::container::small_vector<FrId, 4> frs;
  };
  ClusterQueueId cluster_queue;
  int32_t borrow_level = 0;
  // Eviction in progress (two-phase): the quota is still held, since `evicted_at`.
  bool evicted = false;
  // Kueue's PodsReady condition for this admission, as the host reports it (Engine::SetPodsReady;
  // docs/semantics.md §1.7.2). A new admission starts not ready (reason WaitForStart).
  bool pods_ready = false;
  /// The pods were ready and are not any more (PodsReady=False, reason WaitForRecovery), since
  /// `pods_not_ready_since`.
  bool pods_recovering = false;
  boost::container::small_vector<PodSet, 1> pod_sets;
  /// Per pod set, resource → its total usage (what status.admission.resourceUsage shows), kept
  /// only when some pod set's differs from what its shape and count give (`PodSetUsage`): an
  /// admission loaded with an explicit resourceUsage, or a queue charging `pods` for a shape that
  /// requests some per pod. Null for the ordinary admission.
  std::unique_ptr<std::vector<ResourceList>> explicit_usage;
  Time reserved_at;
  uint64_t admitted_cycle = 0;  ///< 0 = loaded with the admission / admitted by the host
  Time evicted_at;
  Time pods_not_ready_since;
};

/// An admission record in its engine's pool.
using AdmissionPtr = std::unique_ptr<AdmissionRecord, internal::PoolDelete<AdmissionRecord>>;

/// Rarely set submission fields, kept out of line.
struct WorkloadExtras {
  std::string job_uid;
  Labels labels;
  PriorityClassRef priority_class;
  std::vector<ConditionSpec> conditions;
  std::vector<std::pair<std::string, int32_t>> reclaimable_pods;
  /// Kueue's `Preempted` condition message of the latest preemption (kept after the status
  /// message moves on, for `Engine::Explain`).
  std::string preemption_message;
  /// Set once the workload was preempted or had another one preempted.
  std::unique_ptr<PreemptionHistory> preemptions;
  /// Kueue's status.requeueState after pods-ready timeouts (docs/semantics.md §1.7.2): how many
  /// times it was requeued, and until when it waits before it may enter its queue again.
  int32_t requeue_count = 0;
  std::optional<Time> requeue_at;
};

/// Where the flavor scan of a workload stopped (docs/semantics.md §4.3.8).
struct ScanProgress {
  /// Per pod set, per resource that got a flavor: index of the last flavor examined, or −1 when the
  /// scan reached the end.
  std::vector<boost::container::small_vector<std::pair<ResourceId, int>, 4>> last_tried;
  uint64_t generation = 0;  ///< the ClusterQueue's allocatable generation when recorded
  uint64_t cycle = 0;
  uint64_t equivalence = 0;

  bool has_pending_flavors() const {
    for (const auto& ps : last_tried)
      for (const auto& [r, idx] : ps)
        if (idx != -1) return true;
    return false;
  }
  int NextFlavor(size_t pod_set, ResourceId r) const {
    if (pod_set >= last_tried.size()) return 0;
    for (const auto& [res, idx] : last_tried[pod_set])
      if (res == r) return idx + 1;
    return 0;
  }
};

/// Where a pending workload sits.
///
/// A record stores kNone, kInflight or kQueued. kActive and kInadmissible are what `PlaceOf`
/// (qm/queue/pending_queue.h) derives for a queued workload from which of its ClusterQueue's two
/// queues holds its class: parking or flushing a class then moves one set and writes no member's
/// record. Snapshots and queries only ever see the derived places.
enum class QueuePlace : uint8_t {
  kNone,          ///< not in any ClusterQueue (no LocalQueue / ClusterQueue, LQ stopped, ...)
  kActive,        ///< in the ClusterQueue's active queue
  kInadmissible,  ///< parked in the inadmissible set
  kInflight,      ///< popped for the current cycle
  kQueued,        ///< stored only: in the active queue or the inadmissible set of `queued_in`
};

/// The requeue reasons of docs/semantics.md §3.6.
enum class RequeueReason : uint8_t {
  kGeneric,
  kNamespaceMismatch,
  kNoFit,
  kPreemptionNoCandidates,
  kPendingPreemption,
  kFailedAfterNomination,
  /// Held back by an anti-thrash back-off (borrow or preemption, qm/solver/anti_thrash.h): parked
  /// alone, never with its equivalence class, until the back-off's timer flushes it.
  kBackoff,
};

/// One workload.
///
/// 144 bytes, hot to cold: what queue ordering and the cycle read comes first; the three strings
/// (16 bytes each, inline up to 15 characters: compact_string.h) come last.
struct WorkloadRecord {
  // Identity.
  NamespaceId ns;
  /// Bumped each time the slot is freed, so a `WorkloadHandle` of a deleted workload never names
  /// the workload that reuses its slot.
  uint32_t generation = 0;
  QueueNameId queue_name;  ///< spec.queueName (LocalQueue name in `ns`), see ClusterState::queue_names
  ShapeId shape = 0;
  // Scheduling attributes.
  int32_t priority = 0;
  WorkloadState state = WorkloadState::kPending;
  QueuePlace place = QueuePlace::kNone;
  bool active = true;
  bool deleted = false;
  ClusterQueueId queued_in;  ///< CQ whose queue holds it (when place != kNone)
  WorkloadId preempted_by;  ///< with `preemption_reason` below: the latest preemption
  Time creation_time;
  Time queue_time;  ///< queue-order timestamp (docs/semantics.md §3.3)
  uint64_t seq = 0;  ///< submission order; the final tie-break everywhere
  /// Kueue condition reason of the latest status: a `reason::` constant or a string interned by
  /// `ClusterState::InternReason` (never owned here).
  const char* reason = "";
  AdmissionPtr admission;  ///< from ClusterState::NewAdmission (the engine's pool)
  std::unique_ptr<ScanProgress> scan;
  std::unique_ptr<WorkloadExtras> extras;
  std::optional<PreemptionReason> preemption_reason;  ///< see `preempted_by`
  /// While queued: the status epoch (ClusterState::status_epoch) at which `reason` and `message`
  /// were last known current. A bulk park's stamp on the workload's class with a later epoch
  /// overrides them (qm/queue/class_queue.h, `StatusStamp`). Fits in padding; derived, not saved.
  uint32_t status_epoch = 0;
  CompactString name;
  /// metadata.uid, empty when not given. Queue keys point at it (records never move).
  CompactString uid;
  /// Latest status message. Empty with reason QuotaReserved: the admission message is formatted
  /// when asked for (`AdmittedMessage`), so an admission stores no text. For a queued workload,
  /// `reason` and `message` may be overridden by its class's stamp: read them with `ReasonOf` and
  /// `MessageOf`, and call `OwnStatus` before writing them (qm/queue/pending_queue.h).
  CompactString message;
};

/// Whether a pending workload still waits out its pods-ready requeue back-off at `now`, so it stays
/// parked and no flush moves it (Kueue's `backoffWaitingTimeExpired` is false; docs/semantics.md
/// §1.7.2).
inline bool InRequeueBackoff(const WorkloadRecord& w, Time now) {
  return w.extras && w.extras->requeue_at && *w.extras->requeue_at > now;
}

/// Whether the workload reports reclaimable pods (Kueue's status.reclaimablePods) with a count
/// above 0. Rare: the record keeps them out of line.
inline bool HasReclaimablePods(const WorkloadRecord& w) {
  if (!w.extras) return false;
  return std::any_of(w.extras->reclaimable_pods.begin(), w.extras->reclaimable_pods.end(),
                     [](const auto& p) { return p.second > 0; });
}

/// The count of pod set `ps` after its reclaimable pods, as Kueue's workload.Info requests it
/// (`podSetsCountsAfterReclaim`, docs/semantics.md §1.7): the spec count less the reported
/// reclaimable pods, never below 0.
inline int32_t CountAfterReclaim(const WorkloadRecord& w, const PodSetShape& ps) {
  if (!w.extras) return ps.count;
  for (const auto& [name, n] : w.extras->reclaimable_pods)
    if (name == ps.name) return ps.count - std::clamp(n, int32_t{0}, ps.count);
  return ps.count;
}

}  // namespace qm

#endif  // QM_STATE_WORKLOAD_RECORD_H_
