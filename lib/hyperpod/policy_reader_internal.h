// The hook the manifest and scenario readers use for the three HyperPod kinds. Private.
#ifndef QM_LIB_HYPERPOD_POLICY_READER_INTERNAL_H_
#define QM_LIB_HYPERPOD_POLICY_READER_INTERNAL_H_

#include <string_view>

#include "absl/status/status.h"
#include "hyperpod/node.h"
#include "qm/hyperpod/policy.h"

namespace qm::hyperpod::internal {

/// The apiVersion of the three kinds (optional in files).
inline constexpr std::string_view kPolicyApiVersion = "sagemaker.amazonaws.com/v1";

/// `ClusterSchedulerConfig`, `ComputeQuota` or `HyperPodCluster`.
bool IsPolicyKind(std::string_view kind);

/// Reads one object of a policy kind (a YAML map with `kind`) into `set`. Errors read
/// `file:line: Kind/name: Member.Path: message`. A second ClusterSchedulerConfig or HyperPodCluster
/// is an error.
absl::Status ReadPolicyObject(const Node& object, std::string_view file, PolicySet* set);

}  // namespace qm::hyperpod::internal

#endif  // QM_LIB_HYPERPOD_POLICY_READER_INTERNAL_H_
