// From HyperPod policies to the Kueue objects HyperPod creates (docs/hyperpod.md §2–§6), the
// Kueue Configuration's fair sharing, and the section-7 warnings. Rules the mapping marks
// [INFERRED] follow its "library rule"; docs/hyperpod.md lists them.
//
//   QM_ASSIGN_OR_RETURN(qm::hyperpod::Translation t, qm::hyperpod::Translate(policies));
//   qm::EngineConfig config{.fair_sharing = t.fair_sharing};
//   qm::Engine engine(config);
//   QM_RETURN_IF_ERROR(engine.Apply(t.objects));
#ifndef QM_HYPERPOD_TRANSLATE_H_
#define QM_HYPERPOD_TRANSLATE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/adapter/engine.h"
#include "qm/hyperpod/policy.h"

namespace qm::hyperpod {

// ---- Names (docs/hyperpod.md §2) --------------------------------------------------------------------------------

inline constexpr std::string_view kCohort = "shared-pool";
inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";
inline constexpr std::string_view kNeuronResource = "aws.amazon.com/neurondevice";
inline constexpr std::string_view kEfaResource = "vpc.amazonaws.com/efa";
inline constexpr std::string_view kQuotaAllocationLabel = "sagemaker.amazonaws.com/quota-allocation-id";
inline constexpr std::string_view kManagedQueueLabel = "sagemaker.amazonaws.com/sagemaker-managed-queue";
inline constexpr std::string_view kActivateQuotaLabel = "sagemaker.amazonaws.com/activate-quota";
inline constexpr std::string_view kNamespaceNameLabel = "kubernetes.io/metadata.name";
inline constexpr std::string_view kInstanceTypeLabel = "node.kubernetes.io/instance-type";

/// `hyperpod-ns-<team>`.
std::string TeamNamespace(std::string_view team);
/// `hyperpod-ns-<team>-clusterqueue`.
std::string TeamClusterQueue(std::string_view team);
/// `hyperpod-ns-<team>-localqueue`.
std::string TeamLocalQueue(std::string_view team);
/// `<name>-priority`.
std::string PriorityClassName(std::string_view priority_class);
/// `hyperpod-ns-idle-resource-sharing-cq-<n>`, n from 1.
std::string IdleClusterQueue(int n);

// ---- Quota amounts (docs/hyperpod.md §4, §5) ----------------------------------------------------------------------

/// How a quota entry's EFA interfaces are derived (docs/hyperpod.md §4.2 rule 3; both are [INFERRED]).
enum class EfaRule {
  kWholeInstance,  ///< ⌈r⌉·E: every instance the allocation touches brings all its EFA (default)
  kProportional,   ///< ⌈r·E⌉
};

struct TranslateOptions {
  EfaRule efa = EfaRule::kWholeInstance;
};

/// Amounts of one flavor in base units (GPUs, Neuron devices and EFA as counts, milli-CPU, bytes).
struct FlavorAmounts {
  std::string instance_type;
  int64_t gpu = 0;
  int64_t neuron = 0;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int64_t efa = 0;
  /// `nvidia.com/mig-<profile>` → slices (at most one entry per quota entry).
  std::vector<std::pair<std::string, int64_t>> mig;

  /// (resource, amount) in the ClusterQueue's covered-resource order, MIG resources last.
  std::vector<std::pair<std::string, int64_t>> Resources() const;
};

/// The effective amounts of one `ComputeQuotaResources` (or `AbsoluteBorrowLimits`) entry: `Count`
/// expansion, or the documented defaults for the members not given, with cpu rounded down to
/// millicores and memory to whole GiB when integral, else down to MiB (docs/hyperpod.md §4.2). The entry must have
/// passed the reader's validation (a catalogued type).
FlavorAmounts EffectiveAmounts(const QuotaResource& entry, const TranslateOptions& options = {});

/// `amounts × percent / 100` per resource: counts rounded down, cpu down to millicores, memory to
/// GiB when integral else down to MiB (docs/hyperpod.md §5 `floor_q`).
FlavorAmounts ScaleAmounts(const FlavorAmounts& amounts, int64_t percent);

// ---- Translation ---------------------------------------------------------------------------------

/// The Kueue side of a policy set.
struct Translation {
  /// In apply order: Namespaces, ResourceFlavors, WorkloadPriorityClasses, ClusterQueues (teams
  /// by name, then the idle-resource-sharing queues), LocalQueues.
  std::vector<ObjectSpec> objects;
  /// `sources[i]` is the "file:line" of the policy `objects[i]` came from.
  std::vector<std::string> sources;
  /// Kueue `Configuration.fairSharing` (docs/hyperpod.md §2.8).
  FairSharingConfig fair_sharing;
  /// The defined WorkloadPriorityClass names (`<name>-priority`), in policy order.
  std::vector<std::string> priority_classes;
};

/// Cross-object rules (docs/hyperpod.md §7): one allocation per team, allocation names unique; and, for policy sets
/// built in code rather than read, every instance type catalogued, allowed in quotas and listed once
/// per quota (InvalidArgument naming the member path).
absl::Status Validate(const PolicySet& policies);

/// Validates and translates. Without a ClusterSchedulerConfig the API defaults apply (no priority
/// classes, FairShare=Enabled, IdleResourceSharing=Disabled).
absl::StatusOr<Translation> Translate(const PolicySet& policies, const TranslateOptions& options = {});

// ---- Warnings (docs/hyperpod.md §7) -------------------------------------------------------------------------------

/// One warning: where it comes from and what it says.
struct Finding {
  std::string source;  ///< "file:line" of the policy, or "" for the whole set
  std::string message;
};

/// The section-7 warnings of a valid policy set, in a fixed order: capacity (quota above the
/// `HyperPodCluster` inventory per instance type and resource), instance types without nodes, a
/// single allocation, ignored settings, defaults assumed.
std::vector<Finding> Lint(const PolicySet& policies, const TranslateOptions& options = {});

}  // namespace qm::hyperpod

#endif  // QM_HYPERPOD_TRANSLATE_H_
