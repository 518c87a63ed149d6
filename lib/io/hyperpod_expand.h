// Expanding HyperPod policies read from a manifest or scenario into the Kueue objects they stand
// for, "before anything else runs". Private to lib/io: the manifest and scenario readers' glue over
// the public HyperPod API (translate.h, governance.h), kept in the `hyperpod::internal` namespace.
#ifndef QM_LIB_IO_HYPERPOD_EXPAND_H_
#define QM_LIB_IO_HYPERPOD_EXPAND_H_

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "qm/hyperpod/governance.h"
#include "qm/hyperpod/policy.h"
#include "qm/io/manifest.h"
#include "qm/model/config.h"

namespace qm::hyperpod::internal {

struct Expansion {
  /// The generated objects, each with the `source` of the policy it came from.
  std::vector<ManifestObject> objects;
  FairSharingConfig fair_sharing;
  /// HyperPod's Kueue words quota and preemption messages the older way (docs/hyperpod.md §6).
  MessageStyle message_style = MessageStyle::kLegacy;
  Governance governance;
};

/// `Translate` with sources attached.
absl::StatusOr<Expansion> Expand(const PolicySet& policies);

/// `CheckSubmission` for every Workload of `objects`; errors are prefixed with its `source`.
absl::Status CheckWorkloads(const Governance& governance, std::span<const ManifestObject> objects);

/// Adds `more` to `into` as an update: an allocation with the name of an existing one replaces it,
/// and a ClusterSchedulerConfig or HyperPodCluster replaces the current one.
void UpdatePolicies(PolicySet& into, PolicySet more);

}  // namespace qm::hyperpod::internal

#endif  // QM_LIB_IO_HYPERPOD_EXPAND_H_
