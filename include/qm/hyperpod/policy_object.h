// The three HyperPod policy kinds inside a Kueue object list: the hook qm's manifest and scenario
// readers (lib/io) use to hand those objects to the policy reader. Not API (namespace `internal`):
// applications read policies with policy_reader.h.
#ifndef QM_HYPERPOD_POLICY_OBJECT_H_
#define QM_HYPERPOD_POLICY_OBJECT_H_

#include <string_view>

#include "absl/status/status.h"
#include "qm/hyperpod/policy.h"

namespace qm::internal {
struct Node;  // a parsed YAML/JSON value with its input lines; private to the library
}  // namespace qm::internal

namespace qm::hyperpod::internal {

/// The apiVersion of the three kinds (optional in files).
inline constexpr std::string_view kPolicyApiVersion = "sagemaker.amazonaws.com/v1";

/// `ClusterSchedulerConfig`, `ComputeQuota` or `HyperPodCluster`.
bool IsPolicyKind(std::string_view kind);

/// Reads one object of a policy kind (a YAML map with `kind`) into `set`. Errors read
/// `file:line: Kind/name: Member.Path: message`. A second ClusterSchedulerConfig or HyperPodCluster
/// is an error.
absl::Status ReadPolicyObject(const qm::internal::Node& object, std::string_view file,
                              PolicySet* set);

}  // namespace qm::hyperpod::internal

#endif  // QM_HYPERPOD_POLICY_OBJECT_H_
