// Reading HyperPod policies in every shape an administrator has them (docs/hyperpod.md §9):
//
// * JSON of the AWS API: `DescribeComputeQuota` output, `ListComputeQuotas` output,
//   `CreateComputeQuota` request bodies, `DescribeClusterSchedulerConfig` output and
//   `CreateClusterSchedulerConfig` request bodies (timestamps as ISO-8601 strings or epoch numbers);
// * YAML objects of our three kinds (`apiVersion: sagemaker.amazonaws.com/v1`, optional):
//   `ClusterSchedulerConfig` (`schedulerConfig:` or `cli:`), `ComputeQuota`
//   (`computeQuotaConfig:`/`computeQuotaTarget:`/`activationState:` or `cli:`) and `HyperPodCluster`
//   (`instances:`), alone, as a multi-document stream or a list, or in a scenario file's `objects:`;
// * the AWS CLI shorthand (`ParseSchedulerConfigShorthand`, `ParseComputeQuotaShorthand`).
//
// Every error names where and which member, with the API's member names, e.g.
//   team-a.yaml:9: ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit: 20000 is outside 0–10000
//
//   QM_ASSIGN_OR_RETURN(qm::hyperpod::PolicyDocument d, qm::hyperpod::ReadPolicyFile("quota.json"));
#ifndef QM_HYPERPOD_POLICY_READER_H_
#define QM_HYPERPOD_POLICY_READER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/hyperpod/policy.h"

namespace qm::hyperpod {

/// What one file held.
struct PolicyDocument {
  PolicySet policies;
  /// Objects of other kinds that were not read (Kueue objects, Jobs), one line each, e.g.
  /// `cluster.yaml:12: skipped Workload/hyperpod-ns-team-a/job (not a HyperPod policy)`.
  std::vector<std::string> notes;
};

/// Reads a policy file (JSON or YAML; see above). NotFound when it cannot be read.
absl::StatusOr<PolicyDocument> ReadPolicyFile(const std::string& path);
/// Reads policy text; `source_name` is used in errors and sources.
absl::StatusOr<PolicyDocument> ReadPolicyString(std::string_view text, std::string_view source_name);

/// Adds `more` to `into` (a second ClusterSchedulerConfig or HyperPodCluster is an error naming
/// both sources). Duplicate teams are left for `Validate` (translate.h).
absl::Status MergePolicies(PolicySet& into, PolicySet more);

/// `--scheduler-config` shorthand, e.g.
/// `PriorityClasses=[{Name=inference,Weight=90},{Name=training,Weight=70}],FairShare=Enabled`.
/// Errors read `ClusterSchedulerConfig: SchedulerConfig.<member>: ...`.
absl::StatusOr<SchedulerConfigPolicy> ParseSchedulerConfigShorthand(std::string_view text);

/// `--compute-quota-config` and `--compute-quota-target` shorthand (and `--activation-state`,
/// empty = Enabled), e.g. `ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count=2}],
/// ResourceSharingConfig={Strategy=LendAndBorrow,BorrowLimit=50},PreemptTeamTasks=LowerPriority`
/// and `TeamName=team-a,FairShareWeight=0`. The allocation's name is `name` (the API's `Name`
/// pattern is checked unless it is empty). Errors name the object and the member path, and for text
/// that is not shorthand the character, e.g. `ComputeQuota/team-a-quota: ComputeQuotaConfig: not AWS
/// CLI shorthand: expected '=' after "Count" at character 57`.
absl::StatusOr<ComputeQuotaPolicy> ParseComputeQuotaShorthand(std::string_view name,
                                                              std::string_view config,
                                                              std::string_view target,
                                                              std::string_view activation_state = {});

}  // namespace qm::hyperpod

#endif  // QM_HYPERPOD_POLICY_READER_H_
