// The Engine's private state and the operations behind its public methods. Not installed.
#ifndef QM_LIB_ADAPTER_ENGINE_STATE_H_
#define QM_LIB_ADAPTER_ENGINE_STATE_H_

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "adapter/host_calls.h"
#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "qm/model/namespace_name.h"
#include "qm/model/validate.h"
#include "qm/solver/scheduler.h"
#include "qm/state/cluster_state.h"

namespace qm::internal {

/// The namespace a spec names ("default" when empty).
inline std::string_view NamespaceOf(const std::string& ns) { return NamespaceOrDefault(ns); }

class EngineState {
 public:
  // Out of line (engine.cc): constructing or destroying the Scheduler emits its vtable and with it
  // the whole preemption search, which only engine.cc should compile (docs/benchmarks.md, "Compile
  // time").
  explicit EngineState(EngineConfig config);
  ~EngineState();
  EngineState(const EngineState&) = delete;
  EngineState& operator=(const EngineState&) = delete;

  ClusterState s;
  Scheduler scheduler;

  // ---- Events ---------------------------------------------------------------------------------
  /// Events of the call in progress, or of the latest call once it returned.
  std::vector<Event> events;
  /// True when the latest call was a single cycle: its events are the scheduler's result's (no copy).
  bool events_in_cycle = false;
  Engine::EventCallback callback;
  /// What `ScheduleCycle` returns when it is refused (its `status` says why).
  CycleResult refused;
  /// Empty while the engine is usable. Once an exception left a call half done (a host function
  /// threw after the call changed something, or the engine ran out of memory mid-change), what it
  /// was: every later call fails with `PoisonedStatus()` instead of working on a broken state.
  std::string poisoned;

  /// Refuses the engine for good after an exception in `what`; the first cause is kept.
  void Poison(const char* what, const std::string& exception) {
    if (poisoned.empty()) poisoned = fmt::format("Engine::{}: {}", what, exception);
  }
  absl::Status PoisonedStatus() const {
    return absl::FailedPreconditionError(fmt::format(
        "the engine is unusable: {} (host functions must not throw; docs/engine.md, \"Exceptions and "
        "re-entrancy\"); restore a snapshot into a new engine",
        poisoned));
  }
  /// Why no call may run now (poisoned, or a host function is running), or OK.
  absl::Status CheckUsable(const char* what) const {
    if (!poisoned.empty()) return PoisonedStatus();
    if (s.host_running != nullptr)
      return absl::FailedPreconditionError(fmt::format(
          "Engine::{} called from the {}; only const queries may be called there", what, s.host_running));
    return absl::OkStatus();
  }

  /// Starts a call that may change the engine: FailedPrecondition when poisoned or from inside a
  /// host function (the event callback, the submission gate, the clock).
  absl::Status BeginCall(const char* what) {
    if (absl::Status st = CheckUsable(what); !st.ok()) return st;
    events.clear();
    events_in_cycle = false;
    return absl::OkStatus();
  }
  std::span<const Event> LastEvents() const {
    return events_in_cycle ? std::span<const Event>(scheduler.result().events) : std::span<const Event>(events);
  }
  /// Ends a call: hands its events to the callback (after the call's work is complete). The call's
  /// work stands; a callback that throws leaves the host unsure which events it handled, so the
  /// engine is poisoned (the status says so).
  absl::Status Deliver(const char* what) {
    const std::span<const Event> out = LastEvents();
    if (!callback || out.empty()) return absl::OkStatus();
    try {
      HostScope scope(s.host_running, "event callback");
      callback(out);
    } catch (...) {
      Poison(what, "the event callback threw " + DescribeCurrentException());
      return PoisonedStatus();
    }
    return absl::OkStatus();
  }
  /// Runs the submission gate on `spec`. It runs before the call changes anything, so a gate that
  /// throws only fails the call.
  absl::Status RunGate(std::string_view principal, const WorkloadSpec& spec) {
    try {
      HostScope scope(s.host_running, "submission gate");
      return s.config.submission_gate(principal, spec);
    } catch (...) {
      return absl::FailedPreconditionError(
          fmt::format("{}: the submission gate threw {}; nothing changed",
                      ObjectLabel("Workload", NamespaceOf(spec.namespace_), spec.name), DescribeCurrentException()));
    }
  }

  // ---- Objects (apply.cc) ---------------------------------------------------------------------
  absl::Status Apply(std::span<const ObjectSpec> objects);
  absl::Status Delete(const ObjectRef& ref);

  // ---- Workloads (workloads.cc) ---------------------------------------------------------------
  /// Validates a workload against the current state (and, for references, the batch being applied).
  absl::Status CheckWorkload(const WorkloadSpec& spec, std::span<const ObjectSpec> batch) const;
  /// Creates or updates a workload already validated by CheckWorkload.
  /// `first_change`: nothing changed yet in this call, so a clock that throws before the workload
  /// is touched rolls the call back (`RolledBack`) instead of poisoning the engine.
  WorkloadId ApplyWorkload(const WorkloadSpec& spec, bool first_change);
  /// A new workload's timestamps: created, quota reserved, evicted (the clock where the spec has none).
  struct StampTimes {
    Time creation;
    Time reserved;
    std::optional<Time> evicted;
  };
  StampTimes ReadStampTimes(const WorkloadSpec& spec) const;
  absl::Status Finish(WorkloadId id);
  absl::Status ConfirmEvicted(WorkloadId id);
  int ConfirmAllEvicted();
  void DeleteWorkload(WorkloadId id);
  /// Evicts an admitted workload for a reason other than preemption (stopped queues, deactivation,
  /// the host's own); emits kEvicted. `reason` must outlive the engine (a constant or interned).
  void EvictForReason(WorkloadId id, const char* reason, std::string message);
  absl::Status Evict(WorkloadId id, std::string_view reason, std::string_view message);
  absl::Status SetActive(WorkloadId id, bool active);
  absl::Status SetReclaimablePods(WorkloadId id, std::string_view pod_set, int32_t count);
  /// Kueue's PodsReady condition of a workload holding quota, as its job reconciler writes it.
  absl::Status SetPodsReady(WorkloadId id, bool ready);
  /// A workload that holds no quota becomes inactive (kDeactivated).
  void MarkInactive(WorkloadId id);
  /// The status Kueue's workload controller writes on a pending workload when it reconciles it
  /// (created, updated, requeued, activated, its queue created or resumed): its ClusterQueue is
  /// inactive, its namespace is missing or not selected, or a resolved blockage becomes
  /// PendingEvaluation; the scheduler's own reasons are kept (docs/semantics.md §8.1).
  void ReconcilePendingStatus(WorkloadId id);
  /// The NoFit reason of the blocked equivalence class a workload was parked in on arrival (taken
  /// from a parked member of the class), or null when no member holds one.
  const char* BlockedClassReason(WorkloadId id) const;
  /// A workload just activated and queued again (kActivated).
  void ReportActivated(WorkloadId id);
  /// Appends an event about `id` to the current call's events.
  Event& AddEvent(EventKind kind, WorkloadId id, ClusterQueueId cq) { return s.NewEvent(events, kind, id, cq); }

  // ---- Queries (queries.cc) -------------------------------------------------------------------
  WorkloadStatus Status(WorkloadId id) const;
  Assignment ToApi(WorkloadId id, const AssignmentResult& a) const;
  Assignment AdmissionToApi(WorkloadId id) const;
  ClusterQueueStatus QueueStatus(ClusterQueueId id) const;
  LocalQueueStatus LocalQueueStatusOf(LocalQueueId id) const;  // local_queue_status.cc

  // ---- Self-check (invariants.cc) ------------------------------------------------------------
  /// `Engine::CheckInvariants`: recomputes everything from the workloads and compares.
  absl::Status CheckInvariants() const;
  /// Per quota-tree node: the value of `s.cycle` when the quotas or the shape of its tree last
  /// changed (set by `Settle`). A queue may sit above its limits only because of workloads admitted
  /// up to then (docs/semantics.md §2: quota updates never evict). Not saved: `Restore` sets
  /// `quota_floor_cycle` instead, excusing every admission made before the snapshot.
  std::vector<uint64_t> quota_changed_cycle;
  uint64_t quota_floor_cycle = 0;

  // ---- Helpers --------------------------------------------------------------------------------
  NamespaceId InternNamespace(std::string_view name);
  ClusterQueueId InternClusterQueue(std::string_view name);
  CohortId InternCohort(std::string_view name);
  FlavorId InternFlavor(std::string_view name);
  FrId InternFr(FlavorId f, ResourceId r);
  /// The priority a new workload gets (docs/semantics.md §1.6).
  int32_t ResolvePriority(const WorkloadSpec& spec) const;
  /// Records a WorkloadPriorityClass; when it is new or its value changed, every workload that
  /// references it takes the new value (Kueue's WorkloadPriorityClass controller, docs/semantics.md §1.6.1).
  void ApplyWorkloadPriorityClass(const WorkloadPriorityClassSpec& spec);
  /// Changes a workload's priority in place, re-keying whatever orders it: the preemption-candidate
  /// set of a workload holding quota (and a flush of its cohort tree), the pending queue of a
  /// pending one (which goes back to the active queue, as any spec change does).
  void SetWorkloadPriority(WorkloadId id, int32_t priority);
  /// Recomputes the quota trees marked dirty, the active state of queues, then performs the flush
  /// requests and retries unqueued workloads.
  void Settle();
  /// Remembers the tree `node` belongs to now, so Settle recomputes it (call before and after
  /// re-linking a node so both the old and the new tree are covered).
  void MarkTreeDirty(NodeIndex node) { dirty_nodes_.push_back(s.tree.Root(node)); }
  void RequestFlushLater(ClusterQueueId cq) { flush_requests_.insert(cq.value); }
  void UpdateActive(ClusterQueueId id);
  ShapeId InternShape(WorkloadShape shape);
  void ReleaseShape(ShapeId id);

 private:
  absl::Status ValidateBatch(std::span<const ObjectSpec> objects) const;
  void ApplyNamespace(const NamespaceSpec& spec);
  void ApplyFlavor(const ResourceFlavorSpec& spec);
  void ApplyCohort(const CohortSpec& spec);
  void ApplyClusterQueue(const ClusterQueueSpec& spec);
  void ApplyLocalQueue(const LocalQueueSpec& spec);
  void SetCohortParent(CohortId id, std::string_view parent);
  void SetClusterQueueCohort(ClusterQueueId id, std::string_view cohort);
  void ReleaseCohortRef(CohortId id);
  void SetNodeQuotas(NodeIndex node, const std::vector<ResourceGroupSpec>& groups);
  /// Lists `id` in `cqs_by_name` when it exists and drops it when it was deleted.
  void UpdateSortedQueues(ClusterQueueId id);
  void RequeueLocalQueueWorkloads(LocalQueueId lq);
  void DrainLocalQueue(LocalQueueId lq);

  std::vector<NodeIndex> dirty_nodes_;    // nodes whose tree must be recomputed
  absl::btree_set<uint32_t> flush_requests_;  // ClusterQueueIds to flush
  absl::btree_set<uint32_t> active_dirty_;    // ClusterQueueIds whose active state may change
  bool retry_unqueued_ = false;
};

}  // namespace qm::internal

#endif  // QM_LIB_ADAPTER_ENGINE_STATE_H_
