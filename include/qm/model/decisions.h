// What the solver decides and the Engine reports: flavor assignments, preemptions, decisions of a
// cycle, workload and queue status.
#ifndef QM_MODEL_DECISIONS_H_
#define QM_MODEL_DECISIONS_H_

#include <array>
#include <cstdint>
#include <utility>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "boost/container/small_vector.hpp"
#include "qm/core/ids.h"
#include "qm/core/time.h"
#include "qm/model/preemption_reason.h"
#include "qm/model/workload.h"

namespace qm {

/// Kueue's API-level flavor-assignment mode, worst to best (`FlavorAssignmentMode`).
enum class AssignmentMode { kNoFit, kPreempt, kFit };
const char* AssignmentModeName(AssignmentMode m);


/// The flavor chosen (or not) for one requested resource of one pod set.
struct ResourceAssignment {
  std::string resource;
  std::string flavor;  ///< empty when no flavor was kept (mode kNoFit)
  AssignmentMode mode = AssignmentMode::kNoFit;
  /// 0 = within nominal; otherwise the height of the lowest cohort subtree that absorbs it (docs/semantics.md §2).
  int borrow_level = 0;
};

/// One pod set's assignment.
struct PodSetAssignment {
  std::string name;
  int32_t count = 0;
  std::vector<ResourceAssignment> resources;  ///< sorted by resource name
  ResourceAmounts usage;                      ///< total per resource that got a flavor
};

/// One flavor the assigner examined for one pod set and resource group, with the numbers behind its
/// verdict (what `qm explain` prints).
struct FlavorAttempt {
  struct ResourceCheck {
    std::string resource;
    int64_t requested = 0;  ///< earlier pod sets of the workload + this pod set, on this flavor
    int64_t available = 0;  ///< what the queue can still take now (possibly borrowing)
    int64_t nominal = 0;
    int64_t potential = 0;  ///< the most it could ever get (kUnlimited = no limit)
    int borrow_level = 0;
  };
  std::string pod_set;
  std::string flavor;
  /// "Fit", "Preempt", "Reclaim", "NoCandidates" or "NoFit".
  std::string verdict;
  /// The reasons recorded for this flavor (empty when it fits).
  std::vector<std::string> reasons;
  std::vector<ResourceCheck> checks;
  bool chosen = false;
};

/// A workload's flavor assignment: what `AssignFlavors` computes and what an admission records.
struct Assignment {
  std::vector<PodSetAssignment> pod_sets;  ///< in spec order
  AssignmentMode representative_mode = AssignmentMode::kNoFit;
  /// Max borrow level over the chosen flavors; > 0 means the workload borrows from its cohort.
  int borrow_level = 0;
  /// The assignment message (empty when every pod set fits).
  std::string message;
  /// Every flavor examined, in order; filled only by `Engine::AssignFlavors` and `Engine::Explain`.
  std::vector<FlavorAttempt> attempts;
  /// Queries only: non-empty when the next cycle would not try this workload's flavors at all, with
  /// the message the cycle would set (its ClusterQueue is inactive, its namespace does not exist, or
  /// the ClusterQueue's namespace selector rejects it). The fields above are then what the flavor
  /// assigner alone finds, as Kueue's flavorassigner (which checks none of these), and the next
  /// cycle admits nothing for this workload.
  std::string refused;

  bool borrowing() const { return borrow_level > 0; }
};

/// Where a workload stands.
enum class WorkloadState : uint8_t {
  kPending,    ///< waiting for quota (or for its queue to exist / resume)
  kAdmitted,   ///< holds quota
  kEvicting,   ///< preempted or evicted, still holding quota until the host confirms it stopped
  kFinished,   ///< completed; holds nothing
  kInactive,   ///< spec.active = false; never queued
};
const char* WorkloadStateName(WorkloadState s);

/// A preemption the engine decided: `victim` must stop so `preemptor` can be admitted.
struct Preemption {
  WorkloadHandle victim;
  WorkloadHandle preemptor;
  PreemptionReason reason = PreemptionReason::kInClusterQueue;
  std::string message;  ///< Kueue's `Preempted` condition message
};

/// One verdict of a scheduling cycle on one head (or preemption victim): the cycle's own log, for
/// diagnostics and tests. What a host must act on is the `Event` stream.
struct Decision {
  enum class Kind { kAdmitted, kPreempted, kPending };
  Kind kind = Kind::kPending;
  WorkloadHandle workload;
  ClusterQueueId cluster_queue;
  /// kPreempted: who preempted it and why.
  WorkloadHandle preemptor;
  PreemptionReason preemption_reason = PreemptionReason::kInClusterQueue;
};

/// Kueue's reasons for the `Evicted` condition (and the `Requeued=False` that follows it).
namespace eviction_reason {
inline constexpr const char* kPreempted = "Preempted";
inline constexpr const char* kPodsReadyTimeout = "PodsReadyTimeout";
inline constexpr const char* kAdmissionCheck = "AdmissionCheck";
inline constexpr const char* kClusterQueueStopped = "ClusterQueueStopped";
inline constexpr const char* kLocalQueueStopped = "LocalQueueStopped";
inline constexpr const char* kDeactivated = "Deactivated";  // "InactiveWorkload" before Kueue 0.10
}  // namespace eviction_reason

/// What happened to a workload that its host must act on. Events come from every call that can
/// cause one, in the order they happened, numbered by `sequence` (strictly increasing over the
/// engine's life, snapshots included).
enum class EventKind : uint8_t {
  /// Quota reserved: start the pods on `pod_sets`' flavors.
  kAdmitted,
  /// Eviction issued to make room for `preemptor` (Kueue reason "Preempted"): stop the pods, then
  /// call `Engine::ConfirmEvicted`. The workload keeps its quota until then.
  kPreempted,
  /// Eviction issued for another reason (`reason`: ClusterQueueStopped, LocalQueueStopped,
  /// Deactivated, or what the host gave `Engine::Evict`): stop the pods, then confirm.
  kEvicted,
  /// An evicted workload stopped and is pending in its queue again.
  kRequeued,
  /// The workload finished; its quota is released.
  kFinished,
  /// The workload is inactive (spec.active false): it holds no quota and is not scheduled.
  kDeactivated,
  /// An inactive workload was activated and is pending again (Kueue reason "Reactivated").
  kActivated,
  /// The workload was deleted; any quota it held is released at once. Its handle is now stale.
  kDeleted,
  /// Quartermaster's preemption-cycle detector (`AntiThrashConfig::cycle_detection`, off by
  /// default): the preemption of `workload` by `preemptor` just reported closed a cycle. `reason`
  /// is "WorkloadPreemptionCycle" (the preemptor had been preempted by this workload before) or
  /// "ClusterQueuePreemptionCycle" (`cycle_queues` preempted each other in a ring within the
  /// window). Nothing to act on for the preemption itself; a host may change policy, alert, or stop.
  kPreemptionCycle,
};
const char* EventKindName(EventKind k);

/// One pod set of an admission: how many pods, and the flavor of each resource.
struct AdmittedPodSet {
  uint32_t index = 0;  ///< position in the workload's spec.podSets
  int32_t count = 0;   ///< may be below the spec's count under partial admission
  /// (resource, flavor), sorted by resource id; names via `Engine::ResourceName/FlavorName`.
  boost::container::small_vector<std::pair<ResourceId, FlavorId>, 4> flavors;
};

struct Event {
  uint64_t sequence = 0;
  EventKind kind = EventKind::kAdmitted;
  WorkloadHandle workload;
  /// The ClusterQueue that admitted it, evicts it, or (requeued/activated) queues it; invalid when
  /// it has none.
  ClusterQueueId cluster_queue;
  Time time;
  /// kAdmitted: the assignment. No allocation for up to one pod set of four resources.
  boost::container::small_vector<AdmittedPodSet, 1> pod_sets;
  /// kPreempted / kEvicted / kRequeued / kDeactivated / kActivated: Kueue's condition reason
  /// (`eviction_reason::`, "Reactivated", or the host's own). Never null.
  const char* reason = "";
  /// kPreempted: why, and who preempted it.
  PreemptionReason preemption_reason = PreemptionReason::kInClusterQueue;
  WorkloadHandle preemptor;
  /// Kueue's condition message (empty for kAdmitted: see `Engine::GetWorkload`).
  std::string message;
  /// kPreemptionCycle: the ClusterQueues of the cycle, in preemption order (each preempted in the
  /// next, the last in the first).
  std::vector<ClusterQueueId> cycle_queues;
};

/// Everything one `ScheduleCycle()` decided, in the order it was decided.
struct CycleResult {
  uint64_t cycle = 0;  ///< 1 for the first cycle
  std::vector<Decision> decisions;
  /// What the host must act on: the admissions and preemptions of this cycle, in order.
  std::vector<Event> events;
  int64_t admitted = 0;
  int64_t preempted = 0;
  int64_t pending = 0;  ///< heads that were considered and not admitted
  /// Workloads this cycle moved to the inadmissible set (heads, and their equivalence class).
  int64_t parked = 0;
  /// Set when the call was refused (e.g. made from inside the event callback): nothing ran.
  absl::Status status;
  bool empty() const { return decisions.empty(); }
  /// Nothing changed: no admission, no eviction, nothing parked. `RunUntilStable` stops here.
  bool settled() const { return admitted == 0 && preempted == 0 && parked == 0; }
};

/// What preemption did to a workload and what it did to others (`WorkloadStatus::preemptions`).
struct PreemptionSummary {
  struct Record {
    Time time;
    std::string preemptor;                ///< "namespace/name"
    std::string preemptor_cluster_queue;  ///< empty when it no longer exists
    PreemptionReason reason = PreemptionReason::kInClusterQueue;
  };
  /// Times the workload was preempted, in all and per reason (indexed by `PreemptionReason`).
  int64_t preempted = 0;
  std::array<int64_t, kPreemptionReasons> by_reason{};
  /// Times it had another workload preempted (one per victim).
  int64_t caused = 0;
  /// Σ over its preemptions of how long it had held its quota when preempted.
  Duration held_lost;
  /// The latest preemptions (at most 8), oldest first.
  std::vector<Record> recent;
  /// With the anti-thrash borrow back-off: it is admitted only within nominal quota until then.
  std::optional<Time> borrow_allowed_at;
};

/// A read-only view of one workload.
struct WorkloadStatus {
  WorkloadHandle id;
  std::string namespace_;
  std::string name;
  WorkloadState state = WorkloadState::kPending;
  int32_t priority = 0;
  Time creation_time;
  /// The ClusterQueue that holds its quota (admitted/evicting) or whose queue it waits in (pending);
  /// empty when its LocalQueue or ClusterQueue does not exist.
  std::string cluster_queue;
  /// Set while the workload holds quota.
  std::optional<Assignment> admission;
  std::optional<Time> quota_reserved_time;
  /// Pending only: parked until something changes (Kueue's inadmissible set).
  bool inadmissible = false;
  /// Kueue condition reason of the latest status (e.g. "Pending", "NoFit"... see docs/semantics.md §8), and message.
  std::string reason;
  std::string message;
  /// Set once the workload has been preempted.
  std::optional<PreemptionReason> preemption_reason;
  /// Every preemption of and by this workload so far (zero counts when none).
  PreemptionSummary preemptions;
  /// Holding quota: Kueue's PodsReady condition as the host last reported it (`Engine::SetPodsReady`).
  bool pods_ready = false;
  /// Kueue's status.requeueState after pods-ready timeouts (docs/semantics.md §1.7.2): the number of
  /// requeues, and while the back-off lasts the instant it ends.
  int32_t requeue_count = 0;
  std::optional<Time> requeue_at;
};

/// Usage of one (flavor, resource) in a ClusterQueue.
struct FlavorResourceUsage {
  std::string flavor;
  std::string resource;
  int64_t nominal = 0;
  int64_t usage = 0;
  /// The part of `usage` above nominal (taken from the cohort).
  int64_t borrowed = 0;
};

/// A read-only view of one ClusterQueue.
struct ClusterQueueStatus {
  std::string name;
  std::string cohort;
  bool active = true;
  /// Kueue's Active condition message, e.g. "Can't admit new workloads: is stopped."
  std::string active_message;
  /// Every (flavor, resource) the queue declares, in declaration order.
  std::vector<FlavorResourceUsage> usage;
  /// Pending workloads: the active queue in consideration order, then the parked ones.
  std::vector<WorkloadHandle> pending;
  std::vector<WorkloadHandle> inadmissible;
  std::vector<WorkloadHandle> admitted;  ///< holding quota, including evicting ones; by name
  /// Kueue `status.fairSharing.weightedShare` (ceil of the weighted dominant resource share;
  /// INT64_MAX for a zero-weight borrower).
  int64_t weighted_share = 0;
};

/// One flavor's totals in a LocalQueue status (Kueue `LocalQueueFlavorUsage`): every resource the
/// ClusterQueue's resource group covers for that flavor, sorted by resource name.
struct LocalQueueFlavorTotals {
  std::string flavor;
  std::vector<std::pair<std::string, int64_t>> resources;  ///< resource → amount in base units
};

/// A read-only view of one LocalQueue: Kueue's `LocalQueueStatus` as its LocalQueue controller
/// would have settled it (docs/semantics.md §1.5.1).
struct LocalQueueStatus {
  std::string namespace_;
  std::string name;
  std::string cluster_queue;  ///< spec.clusterQueue
  /// The `Active` condition: status, reason (`Ready`, `Stopped`, `ClusterQueueIsInactive`,
  /// `ClusterQueueDoesNotExist`) and message.
  bool active = false;
  std::string reason;
  std::string message;
  /// Pending workloads that name this LocalQueue (0 while it is stopped, as Kueue reports).
  int32_t pending_workloads = 0;
  /// Workloads of this LocalQueue holding quota in its ClusterQueue, evicting ones included.
  int32_t reserving_workloads = 0;
  /// The admitted subset of `reserving_workloads`. The engine models no admission checks, so the
  /// two are equal, as are the two flavor lists below.
  int32_t admitted_workloads = 0;
  /// Per flavor of the ClusterQueue (resource-group then flavor order), the quota those workloads
  /// hold; empty when the ClusterQueue does not exist.
  std::vector<LocalQueueFlavorTotals> flavors_reservation;
  std::vector<LocalQueueFlavorTotals> flavors_usage;
};

/// A read-only view of one Cohort (explicit or implicit).
struct CohortStatus {
  std::string name;
  std::string parent;
  bool implicit = false;  ///< only named by queues/cohorts, no Cohort object
  int64_t weighted_share = 0;
};

/// One entry of a requested assignment for `Engine::PreemptionTargets`.
struct RequestedFlavor {
  std::string pod_set;
  std::string resource;
  std::string flavor;
  AssignmentMode mode = AssignmentMode::kPreempt;  ///< kPreempt or kFit
};

inline const char* AssignmentModeName(AssignmentMode m) {
  switch (m) {
    case AssignmentMode::kNoFit: return "NoFit";
    case AssignmentMode::kPreempt: return "Preempt";
    case AssignmentMode::kFit: return "Fit";
  }
  return "NoFit";
}

inline const char* EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kAdmitted: return "Admitted";
    case EventKind::kPreempted: return "Preempted";
    case EventKind::kEvicted: return "Evicted";
    case EventKind::kRequeued: return "Requeued";
    case EventKind::kFinished: return "Finished";
    case EventKind::kDeactivated: return "Deactivated";
    case EventKind::kActivated: return "Activated";
    case EventKind::kDeleted: return "Deleted";
    case EventKind::kPreemptionCycle: return "PreemptionCycle";
  }
  return "Unknown";
}

inline const char* WorkloadStateName(WorkloadState s) {
  switch (s) {
    case WorkloadState::kPending: return "Pending";
    case WorkloadState::kAdmitted: return "Admitted";
    case WorkloadState::kEvicting: return "Evicting";
    case WorkloadState::kFinished: return "Finished";
    case WorkloadState::kInactive: return "Inactive";
  }
  return "Pending";
}

}  // namespace qm

#endif  // QM_MODEL_DECISIONS_H_
