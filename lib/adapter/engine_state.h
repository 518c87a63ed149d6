// The Engine's private state and the operations behind its public methods. Not installed.
#ifndef QM_LIB_ADAPTER_ENGINE_STATE_H_
#define QM_LIB_ADAPTER_ENGINE_STATE_H_

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/adapter/engine.h"
#include "qm/solver/scheduler.h"
#include "qm/state/cluster_state.h"

namespace qm::internal {

class EngineState {
 public:
  explicit EngineState(EngineConfig config) : scheduler(s) { s.config = std::move(config); }

  ClusterState s;
  Scheduler scheduler;

  // ---- Events ---------------------------------------------------------------------------------
  /// Events of the call in progress, or of the latest call once it returned.
  std::vector<Event> events;
  /// True when the latest call was a single cycle: its events are the scheduler's result's (no copy).
  bool events_in_cycle = false;
  Engine::EventCallback callback;
  bool in_callback = false;
  /// What `ScheduleCycle` returns when it is refused (its `status` says why).
  CycleResult refused;

  /// Starts a call that may change the engine: FailedPrecondition from inside the callback.
  absl::Status BeginCall(const char* what) {
    if (in_callback)
      return absl::FailedPreconditionError(std::string("Engine::") + what +
                                           " called from the event callback; only const queries may be called there");
    events.clear();
    events_in_cycle = false;
    return absl::OkStatus();
  }
  std::span<const Event> LastEvents() const {
    return events_in_cycle ? std::span<const Event>(scheduler.result().events) : std::span<const Event>(events);
  }
  /// Ends a call: hands its events to the callback (after the call's work is complete).
  void Deliver() {
    const std::span<const Event> out = LastEvents();
    if (!callback || out.empty()) return;
    in_callback = true;
    callback(out);
    in_callback = false;
  }

  // ---- Objects (apply.cc) ---------------------------------------------------------------------
  absl::Status Apply(std::span<const ObjectSpec> objects);
  absl::Status Delete(const ObjectRef& ref);

  // ---- Workloads (workloads.cc) ---------------------------------------------------------------
  /// Validates a workload against the current state (and, for references, the batch being applied).
  absl::Status CheckWorkload(const WorkloadSpec& spec, std::span<const ObjectSpec> batch) const;
  /// Creates or updates a workload already validated by CheckWorkload.
  WorkloadId ApplyWorkload(const WorkloadSpec& spec);
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
  /// A workload that holds no quota becomes inactive (kDeactivated).
  void MarkInactive(WorkloadId id);
  /// A workload just activated and queued again (kActivated).
  void ReportActivated(WorkloadId id);
  /// Appends an event about `id` to the current call's events.
  Event& AddEvent(EventKind kind, WorkloadId id, ClusterQueueId cq) { return s.NewEvent(events, kind, id, cq); }

  // ---- Queries (queries.cc) -------------------------------------------------------------------
  WorkloadStatus Status(WorkloadId id) const;
  Assignment ToApi(WorkloadId id, const AssignmentResult& a) const;
  Assignment AdmissionToApi(WorkloadId id) const;
  ClusterQueueStatus QueueStatus(ClusterQueueId id) const;

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

/// The namespace a spec names ("default" when empty).
inline std::string_view NamespaceOf(const std::string& ns) { return ns.empty() ? std::string_view("default") : ns; }

}  // namespace qm::internal

#endif  // QM_LIB_ADAPTER_ENGINE_STATE_H_
