// SageMaker HyperPod task-governance policies as the AWS API defines them (docs/hyperpod.md §1):
// the cluster policy (`ClusterSchedulerConfig` / `SchedulerConfig`), one compute allocation per team
// (`ComputeQuota`), and, ours, the cluster's node inventory (`HyperPodCluster`). Members keep the
// API's names and keep what was *declared*: defaults and derived values are computed by
// `translate.h`, never written back here (docs/hyperpod.md §4.2 rule 8).
#ifndef QM_HYPERPOD_POLICY_H_
#define QM_HYPERPOD_POLICY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace qm::hyperpod {

/// A non-negative decimal as written (`48.0`, `5.25`): `unscaled / 10^scale`, scale ≤ 6. The API
/// types `VCpu` and `MemoryInGiB` as floats; keeping the decimal keeps every derivation exact.
struct Decimal {
  int64_t unscaled = 0;
  int32_t scale = 0;
  friend bool operator==(const Decimal&, const Decimal&) = default;
};

/// `PriorityClass`: a task-ranking class.
struct PriorityClassPolicy {
  std::string name;    ///< `training`; the WorkloadPriorityClass is `training-priority`
  int32_t weight = 0;  ///< 0–100, higher ranks first
};

/// `ClusterSchedulerConfig` (its `SchedulerConfig`): the cluster policy; at most one per cluster.
struct SchedulerConfigPolicy {
  std::string name;         ///< the policy's `Name`
  std::string cluster_arn;  ///< `ClusterArn` (required by the Create request only)
  std::vector<PriorityClassPolicy> priority_classes;  ///< empty = FCFS task prioritization
  bool fair_share = true;             ///< `FairShare` (default Enabled)
  bool idle_resource_sharing = false;  ///< `IdleResourceSharing` (default Disabled)
  std::string source;                  ///< "file:line" of the object, for messages
};

/// `ComputeQuotaResourceConfig.AcceleratorPartition`: MIG slices.
struct AcceleratorPartition {
  std::string type;  ///< MIG profile, `mig-1g.10gb`
  int64_t count = 0;
};

/// `ComputeQuotaResourceConfig`: quota for one instance type (also an `AbsoluteBorrowLimits` entry).
struct QuotaResource {
  std::string instance_type;
  std::optional<int64_t> count;         ///< whole instances
  std::optional<int64_t> accelerators;  ///< GPUs, or Neuron devices on Trainium
  std::optional<Decimal> vcpu;
  std::optional<Decimal> memory_gib;
  std::optional<AcceleratorPartition> partition;
};

enum class SharingStrategy { kLend, kDontLend, kLendAndBorrow };
enum class PreemptTeamTasks { kNever, kLowerPriority };

/// `ResourceSharingConfig`.
struct ResourceSharing {
  SharingStrategy strategy = SharingStrategy::kLendAndBorrow;
  std::optional<int64_t> borrow_limit;  ///< percent of the team's own allocation; default 50
  std::vector<QuotaResource> absolute_borrow_limits;
};

/// `ComputeQuota`: one team's allocation (`CreateComputeQuota` request members).
struct ComputeQuotaPolicy {
  std::string name;  ///< the allocation's `Name` (not the team)
  std::string description;
  std::string cluster_arn;
  std::vector<QuotaResource> resources;  ///< `ComputeQuotaConfig.ComputeQuotaResources`
  std::optional<ResourceSharing> sharing;  ///< absent: LendAndBorrow, BorrowLimit 50
  PreemptTeamTasks preempt_team_tasks = PreemptTeamTasks::kLowerPriority;
  std::string team;  ///< `ComputeQuotaTarget.TeamName`
  std::optional<int32_t> fair_share_weight;  ///< 0–100, default 0
  bool enabled = true;  ///< `ActivationState`
  std::string source;   ///< "file:line"
};

/// `HyperPodCluster` (ours): how many nodes of each instance type the cluster has. Used for the
/// capacity warnings of `Lint` and for idle (unallocated) resource sharing.
struct ClusterInventory {
  std::string name;
  std::vector<std::pair<std::string, int64_t>> instances;  ///< instance type → nodes, sorted
  std::string source;
};

/// Everything read for one cluster.
struct PolicySet {
  std::optional<SchedulerConfigPolicy> scheduler;
  std::vector<ComputeQuotaPolicy> quotas;  ///< in the order read
  std::optional<ClusterInventory> cluster;

  bool empty() const { return !scheduler.has_value() && quotas.empty() && !cluster.has_value(); }
};

}  // namespace qm::hyperpod

#endif  // QM_HYPERPOD_POLICY_H_
