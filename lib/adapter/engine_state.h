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
  explicit EngineState(EngineConfig config) : scheduler(s) {
    s.config = std::move(config);
    scheduler.SetCallback(&callback);
  }

  ClusterState s;
  Scheduler scheduler;
  std::function<void(const Decision&)> callback;

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
  /// Evicts an admitted workload for a reason other than preemption (stopped queues, deactivation).
  void EvictForReason(WorkloadId id, const char* reason, std::string message);

  // ---- Queries (queries.cc) -------------------------------------------------------------------
  WorkloadStatus Status(WorkloadId id) const;
  Assignment ToApi(WorkloadId id, const AssignmentResult& a) const;
  Assignment AdmissionToApi(WorkloadId id) const;
  ClusterQueueStatus QueueStatus(ClusterQueueId id) const;

  // ---- Helpers --------------------------------------------------------------------------------
  NamespaceId InternNamespace(std::string_view name);
  ClusterQueueId InternClusterQueue(std::string_view name);
  CohortId InternCohort(std::string_view name);
  FlavorId InternFlavor(std::string_view name);
  FrId InternFr(FlavorId f, ResourceId r);
  /// The priority a new workload gets (§1.6).
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
  void RebuildSortedQueues();
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
