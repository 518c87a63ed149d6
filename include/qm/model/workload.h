// Workload spec (docs/semantics.md §1.7): what a host submits, and what a manifest describes.
#ifndef QM_MODEL_WORKLOAD_H_
#define QM_MODEL_WORKLOAD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "qm/core/time.h"
#include "qm/model/priority.h"
#include "qm/model/selectors.h"

namespace qm {

/// Amounts per resource name, in base units (quantity.h). Kept sorted by name with unique names.
using ResourceAmounts = std::vector<std::pair<std::string, int64_t>>;

/// One group of identical pods.
struct PodSetSpec {
  std::string name = "main";
  int32_t count = 1;
  /// Partial admission: the smallest count the workload accepts (≥ 1, ≤ count).
  std::optional<int32_t> min_count;
  /// Requests of one pod: max(init containers, Σ containers) per resource, already computed.
  ResourceAmounts requests;
  Labels node_selector;
  /// `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`.
  std::optional<std::vector<NodeSelectorTerm>> required_node_affinity;
  std::vector<Toleration> tolerations;
};

/// One pod set's admission, as recorded in `status.admission.podSetAssignments[]`.
struct PodSetAssignmentSpec {
  std::string name;
  /// resource → flavor name, sorted by resource.
  std::vector<std::pair<std::string, std::string>> flavors;
  /// resource → total usage of the pod set; a resource missing here uses count × request.
  ResourceAmounts resource_usage;
  /// Admitted pod count; unset = the pod set's count.
  std::optional<int32_t> count;
};

/// `status.admission`: the workload already holds quota in this ClusterQueue.
struct AdmissionSpec {
  std::string cluster_queue;
  std::vector<PodSetAssignmentSpec> pod_set_assignments;
};

/// A `status.conditions[]` entry (only the fields the scheduler reads).
struct ConditionSpec {
  std::string type;  ///< QuotaReserved, Admitted, Evicted, Preempted, Requeued, Finished, ...
  bool status = true;
  std::string reason;
  std::string message;
  std::optional<Time> last_transition_time;
};

/// `kueue.x-k8s.io Workload`.
struct WorkloadSpec {
  std::string namespace_;  ///< "default" when empty
  std::string name;
  std::string uid;      ///< metadata.uid; printed in preemption messages ("UNKNOWN" when empty)
  std::string job_uid;  ///< label kueue.x-k8s.io/job-uid
  Labels labels;
  std::string queue_name;  ///< the LocalQueue in the workload's namespace
  /// spec.priority; when unset the priority class decides, else 0.
  std::optional<int32_t> priority;
  PriorityClassRef priority_class;
  bool active = true;
  /// metadata.creationTimestamp; unset = the engine's clock at submission.
  std::optional<Time> creation_time;
  std::vector<PodSetSpec> pod_sets;
  /// Present for a workload that already holds quota (loaded from a running cluster).
  std::optional<AdmissionSpec> admission;
  std::vector<ConditionSpec> conditions;
  /// status.reclaimablePods: pods of a pod set that finished and give back their share.
  std::vector<std::pair<std::string, int32_t>> reclaimable_pods;
  /// status.requeueState (Kueue's count of pods-ready requeues and the end of the current back-off,
  /// docs/semantics.md §1.7.2): `requeue_count` ≥ 0; `requeue_at` only with a count.
  int32_t requeue_count = 0;
  std::optional<Time> requeue_at;

  /// Returns the condition of that type, or nullptr.
  const ConditionSpec* FindCondition(std::string_view type) const {
    for (const auto& c : conditions)
      if (c.type == type) return &c;
    return nullptr;
  }
};

}  // namespace qm

#endif  // QM_MODEL_WORKLOAD_H_
