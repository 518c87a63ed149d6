// Engine configuration: the parts of Kueue's Configuration and feature gates that change decisions.
#ifndef QM_MODEL_CONFIG_H_
#define QM_MODEL_CONFIG_H_

#include <array>
#include <bitset>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/core/time.h"
#include "qm/model/anti_thrash.h"

namespace qm {

struct WorkloadSpec;

/// Decides whether a principal may create or update a workload (`EngineConfig::submission_gate`).
/// `principal` is who submits (an IAM ARN, a user or group name, ...); empty when the program that
/// owns the Engine submits on its own account, which a gate treats as a cluster administrator.
/// A non-OK status refuses the submission and is returned to the caller unchanged.
using SubmissionGate =
    std::function<absl::Status(std::string_view principal, const WorkloadSpec& workload)>;

/// Fair-sharing preemption strategies (docs/semantics.md §6.5).
enum class FairSharingStrategy { kLessThanOrEqualToFinalShare, kLessThanInitialShare };

/// Quartermaster's historical fair share (docs/semantics.md §11.8; not Kueue, off by default;
/// kubernetes-sigs/kueue#9734): a node's share counts what it borrows now plus the average of what
/// it borrowed in the past, decayed with `half_life` (qm/state/usage_history.h), so a queue that
/// has used the cohort heavily yields to one that has been idle. Needs fair sharing on.
struct HistoricalShareConfig {
  bool enabled = false;
  /// One day: a week-old burst still counts 1/128, yesterday's half.
  Duration half_life = Duration::Seconds(24 * 3600);
};

/// Kueue `Configuration.fairSharing`.
struct FairSharingConfig {
  bool enabled = false;
  /// Applied in this order; Kueue's default is both.
  std::vector<FairSharingStrategy> preemption_strategies = {
      FairSharingStrategy::kLessThanOrEqualToFinalShare, FairSharingStrategy::kLessThanInitialShare};
  /// Ours: `fairSharing.historicalShare`.
  HistoricalShareConfig historical;
};

/// Kueue's feature gates (pkg/features/kube_features.go, docs/semantics.md §0). The gates whose
/// behaviour the engine implements are fields, with Kueue's defaults at the commit the semantics
/// document cites; every other gate Kueue defines is known by name (`FeatureGateTable`) and accepted
/// only with a value whose behaviour the engine has.
struct FeatureGates {
  bool partial_admission = true;
  bool flavor_fungibility = true;
  bool priority_sorting_within_cohort = true;
  bool fair_sharing_preempt_within_nominal = true;
  bool fair_sharing_prioritize_non_borrowing = true;
  bool flavor_fungibility_preserve_scan_progress = true;
  bool recompute_assignment_upon_preemption_targets_overlap = true;
  bool scheduling_equivalence_hashing = true;
  bool prioritize_preemptor_workloads = false;
  bool fair_sharing_reevaluate_preemption_candidates = false;
  /// Off: the host's reports of finished pods (`Engine::SetReclaimablePods`) are refused, as Kueue's
  /// job reconciler stops writing status.reclaimablePods (docs/semantics.md §1.7.1).
  bool reclaimable_pods = true;
  /// On: a pending workload gets QuotaReserved=False (PendingEvaluation, or the bypass reason of a
  /// blocked equivalence class) at its first reconciliation (docs/semantics.md §8.1).
  bool unadmitted_workloads_explicit_status = false;
  /// On: `EngineConfig::wait_for_pods_ready` is ignored (docs/semantics.md §1.7.2).
  bool disable_wait_for_pods_ready = false;

  /// Sets a gate by its Kueue name. InvalidArgument for a name Kueue does not define, for a value
  /// whose behaviour the engine does not implement ("feature gate PriorityBoost=true is not
  /// supported: ..."), and for a gate Kueue locks to its default.
  absl::Status Set(std::string_view kueue_name, bool value);
  /// The value of any gate Kueue defines (its default unless set); false for unknown names.
  bool Enabled(std::string_view kueue_name) const;
  /// The value of the gate at `index` of FeatureGateTable() (no name lookup: Save walks them all).
  bool EnabledAt(size_t index) const;
  /// Kueue's dependencies between gates: an enabled gate whose dependency is disabled is an error
  /// worded "<gate>: enabled, but it depends on features that are disabled: [<dep>, ...]".
  absl::Status Validate() const;

 private:
  // Values of the gates that are not fields, by their index in FeatureGateTable(); `other_set_`
  // marks the ones set explicitly (the others have their default).
  std::bitset<128> other_set_;
  std::bitset<128> other_value_;
};

/// How the engine stands to one Kueue feature gate.
enum class GateSupport {
  /// A FeatureGates field: both values are implemented.
  kImplemented,
  /// Both values are accepted: the gate changes nothing the engine decides for the inputs it
  /// takes (TAS, MultiKueue, DRA, integrations, metrics, API-client details, ...).
  kNoEffect,
  /// Only `supported_value` is accepted: the other value asks for a behaviour the engine lacks.
  kOnlyValue,
  /// Kueue itself locks the gate to its default (GA), so any other value fails in Kueue too.
  kLocked,
};

struct FeatureGateInfo {
  std::string_view name;
  /// Kueue's default (the versioned spec at v0.20.0-devel).
  bool kueue_default;
  GateSupport support;
  /// kImplemented: the field; otherwise null.
  bool FeatureGates::*field;
  /// kOnlyValue: the value whose behaviour the engine has.
  bool supported_value;
  /// Why the gate is classified so (shown in errors for kOnlyValue).
  std::string_view note;
};

/// Every gate in kubernetes-sigs/kueue pkg/features/kube_features.go (v0.20.0-devel), in the order
/// of that file's defaultVersionedFeatureGates.
inline std::span<const FeatureGateInfo> FeatureGateTable() {
  using G = FeatureGates;
  constexpr GateSupport kImpl = GateSupport::kImplemented, kNone = GateSupport::kNoEffect,
                        kOnly = GateSupport::kOnlyValue, kLock = GateSupport::kLocked;
  static constexpr std::string_view kTas = "Topology Aware Scheduling only (out of scope)";
  static constexpr std::string_view kMk = "MultiKueue only (out of scope)";
  static constexpr std::string_view kDra = "DRA devices only; workloads here request no ResourceClaims";
  static constexpr std::string_view kElastic = "elastic workload slices only (out of scope)";
  static constexpr std::string_view kJobs = "job integrations, webhooks or the API client only";
  static constexpr std::string_view kMetrics = "metrics or visibility only";
  static constexpr FeatureGateInfo kTable[] = {
      {"PartialAdmission", true, kImpl, &G::partial_admission, true, "docs/semantics.md §7"},
      {"ElasticJobsViaWorkloadSlicesWithPartialReplicaScaleUp", false, kNone, nullptr, false, kElastic},
      {"FlavorFungibility", true, kImpl, &G::flavor_fungibility, true, "docs/semantics.md §4.3.6"},
      {"VisibilityOnDemand", true, kNone, nullptr, false, kMetrics},
      {"DisableWaitForPodsReady", false, kImpl, &G::disable_wait_for_pods_ready, false,
       "docs/semantics.md §1.7.2"},
      {"PrioritySortingWithinCohort", true, kImpl, &G::priority_sorting_within_cohort, true,
       "docs/semantics.md §4.5, §6.4"},
      {"FairSharingPreemptWithinNominal", true, kImpl, &G::fair_sharing_preempt_within_nominal, true,
       "docs/semantics.md §6.5"},
      {"FairSharingPrioritizeNonBorrowing", true, kImpl, &G::fair_sharing_prioritize_non_borrowing,
       true, "docs/semantics.md §6.4"},
      {"MultiKueue", true, kNone, nullptr, false, kMk},
      {"MultiKueueBatchJobClearingTTLSecondsAfterFinishedOnWorkerCluster", true, kNone, nullptr, false,
       kMk},
      {"TopologyAwareScheduling", true, kNone, nullptr, false, kTas},
      {"LocalQueueMetrics", true, kNone, nullptr, false, kMetrics},
      {"TASProfileMixed", true, kNone, nullptr, false, kTas},
      {"AdmissionFairSharing", true, kNone, nullptr, false,
       "inert without Configuration.admissionFairSharing, which EngineConfig does not have "
       "(docs/semantics.md §6.6)"},
      {"TASFailedNodeReplacement", true, kNone, nullptr, false, kTas},
      {"ElasticJobsViaWorkloadSlices", true, kNone, nullptr, false, kElastic},
      {"ElasticJobsViaWorkloadSlicesWithTAS", false, kNone, nullptr, false, kElastic},
      {"TASFailedNodeReplacementFailFast", true, kNone, nullptr, false, kTas},
      {"TASReplaceNodeOnPodTermination", true, kNone, nullptr, false, kTas},
      {"SkipReassignmentForPodOwnedWorkloads", true, kNone, nullptr, false, kTas},
      {"TASReplaceNodeDueToNotReadyOverFixedTime", false, kNone, nullptr, false, kTas},
      {"ManagedJobsNamespaceSelectorAlwaysRespected", true, kLock, nullptr, true, "GA, locked to true"},
      {"TASBalancedPlacement", false, kNone, nullptr, false, kTas},
      {"TASAssignmentsEncodingByHostnamePrefix", true, kNone, nullptr, false, kTas},
      {"KueueDRAIntegration", true, kNone, nullptr, false, kDra},
      {"KueueDRAIntegrationExtendedResource", true, kNone, nullptr, false,
       "DRA extended resources need DeviceClass objects, which the engine does not take"},
      {"ReservedResourceNameValidation", true, kNone, nullptr, false,
       "validates resource transformations, which EngineConfig does not have"},
      {"KueueDRARejectWorkloadsWhenDRADisabled", true, kNone, nullptr, false, kDra},
      {"KueueDRAIntegrationPartitionableDevices", true, kNone, nullptr, false, kDra},
      {"KueueDRAIntegrationConsumableCapacity", false, kNone, nullptr, false, kDra},
      {"QuotaCheckStrategy", true, kNone, nullptr, false,
       "only acts on a ClusterQueue's quotaCheckStrategy, which the engine does not take"},
      {"MultiKueueAdaptersForCustomJobs", true, kNone, nullptr, false, kMk},
      {"WorkloadRequestUseMergePatch", false, kNone, nullptr, false, kJobs},
      {"MultiKueueKubeConfigPathValidation", true, kNone, nullptr, false, kMk},
      {"ReclaimablePods", true, kImpl, &G::reclaimable_pods, true, "docs/semantics.md §1.7.1"},
      {"MultiKueueClusterProfile", false, kNone, nullptr, false, kMk},
      {"FailureRecoveryPolicy", false, kNone, nullptr, false, kJobs},
      {"TLSOptions", true, kLock, nullptr, true, "GA, locked to true"},
      {"RemoveFinalizersWithStrictPatch", true, kNone, nullptr, false, kJobs},
      {"TASReplaceNodeOnNodeTaints", true, kNone, nullptr, false, kTas},
      {"AssignQueueLabelsForPods", true, kNone, nullptr, false, kJobs},
      {"TASMultiLayerTopology", true, kNone, nullptr, false, kTas},
      {"SchedulingEquivalenceHashing", true, kImpl, &G::scheduling_equivalence_hashing, true,
       "docs/semantics.md §3.7"},
      // Added after ff69552e (kueue#14784, 2026-08-24, Beta and on there): at our commit the
      // equivalence hash includes pod-set names (docs/semantics.md §3.7), which is this gate off.
      {"SchedulingEquivalenceHashingIgnorePodSetName", false, kOnly, nullptr, false,
       "the equivalence hash includes pod-set names (docs/semantics.md §3.7)"},
      {"CustomMetricLabels", false, kNone, nullptr, false, kMetrics},
      {"SparkApplicationIntegration", false, kNone, nullptr, false, kJobs},
      {"MultiKueueOrchestratedPreemption", false, kNone, nullptr, false, kMk},
      {"PriorityBoost", false, kOnly, nullptr, false,
       "the priority-boost annotation is not implemented (docs/semantics.md §1.6)"},
      {"AdmissionGatedBy", true, kNone, nullptr, false,
       "workloads here carry no annotations, so none is ever gated"},
      {"ShortWorkloadNames", false, kNone, nullptr, false, kJobs},
      {"FastQuotaReleaseInPodIntegration", false, kNone, nullptr, false, kJobs},
      {"RejectUpdatesToCQWithInvalidOnFlavors", true, kNone, nullptr, false,
       "admission-check validation only"},
      {"FinishOrphanedWorkloads", true, kNone, nullptr, false, kJobs},
      {"MultiKueueIncrementalDispatcherConfig", true, kNone, nullptr, false, kMk},
      {"MultiKueueIncrementalDispatcherRespectConfigOrder", true, kNone, nullptr, false, kMk},
      {"ConcurrentAdmission", false, kOnly, nullptr, false,
       "concurrent admission across flavors is not implemented (out of scope)"},
      {"MetricForWorkloadCreationLatency", true, kNone, nullptr, false, kMetrics},
      {"TASRespectNodeAffinityPreferred", false, kNone, nullptr, false, kTas},
      {"MultiKueueManagerQuotaAutomation", false, kNone, nullptr, false, kMk},
      {"WorkloadIdentifierAnnotations", true, kNone, nullptr, false, kJobs},
      {"WorkloadPriorityClassDefaulting", true, kNone, nullptr, false,
       "defaults the priority class of jobs when their Workload is created; Workloads are input here"},
      {"MetricsForCohorts", true, kNone, nullptr, false, kMetrics},
      {"CleanupProvisioningRequestsOnEviction", true, kNone, nullptr, false,
       "admission checks only (out of scope)"},
      {"TASHandleOverlappingFlavors", true, kNone, nullptr, false, kTas},
      {"UnadmittedWorkloadsObservability", true, kOnly, nullptr, true,
       "pending reasons are always the granular ones (docs/semantics.md §8)"},
      {"TASRecomputeAssignmentWithinSchedulingCycle", true, kNone, nullptr, false, kTas},
      {"UnadmittedWorkloadsExplicitStatus", false, kImpl, &G::unadmitted_workloads_explicit_status, false,
       "docs/semantics.md §8.1"},
      {"DeferRayServiceFinalizationForRedisCleanup", true, kNone, nullptr, false, kJobs},
      {"TASCacheNodeMatchResults", true, kNone, nullptr, false, kTas},
      {"TASCachingRemainingResources", true, kNone, nullptr, false, kTas},
      {"TASCacheTopologyTree", true, kNone, nullptr, false, kTas},
      {"SchedulerLibraryIntegration", false, kOnly, nullptr, false,
       "the kube-scheduler library integration is not implemented"},
      {"VectorizedResourceRequests", true, kNone, nullptr, false, kTas},
      {"WorkloadValidateResourcesAreNonNegative", true, kNone, nullptr, false,
       "webhook check of malformed input; negative requests count as 0 here (docs/semantics.md §1.1)"},
      {"TASValidateWorkloadSliceSize", true, kNone, nullptr, false, kTas},
      {"WorkloadValidationForPodSetMetadata", true, kNone, nullptr, false,
       "webhook check of pod-template labels and annotations, which the engine does not use"},
      {"PrioritizePreemptorWorkloads", false, kImpl, &G::prioritize_preemptor_workloads, false,
       "docs/semantics.md §0"},
      {"LWSImmutableGroupSize", true, kNone, nullptr, false, kJobs},
      {"FlavorFungibilityPreserveScanProgress", true, kImpl,
       &G::flavor_fungibility_preserve_scan_progress, true, "docs/semantics.md §4.3.8"},
      {"SkipAncestorCheckForDeletedWorkloads", true, kNone, nullptr, false, kJobs},
      {"MultiKueueRemoteSpecSync", true, kNone, nullptr, false, kMk},
      {"RecomputeAssignmentUponPreemptionTargetsOverlap", true, kImpl,
       &G::recompute_assignment_upon_preemption_targets_overlap, true, "docs/semantics.md §4.7"},
      {"PodIntegrationValidateGroupOwner", true, kNone, nullptr, false, kJobs},
      {"ValidateRayAndSparkJobUpdates", true, kNone, nullptr, false, kJobs},
      {"FairSharingReevaluatePreemptionCandidates", false, kImpl,
       &G::fair_sharing_reevaluate_preemption_candidates, false,
       "second first-strategy pass of fair preemption (docs/semantics.md §6.5)"},
      {"DynamicQuotaOrchestration", false, kOnly, nullptr, false,
       "effective quota from dynamic quota orchestration is not implemented"},
  };
  static_assert(std::size(kTable) <= 128, "FeatureGates keeps the other gates in 128-bit sets");
  return kTable;
}

/// Kueue's defaultFeatureGateDependencies: each gate, when enabled, needs these enabled too.
struct FeatureGateDependency {
  std::string_view gate;
  std::array<std::string_view, 2> needs;  // "" = none
};
inline std::span<const FeatureGateDependency> FeatureGateDependencies() {
  static constexpr FeatureGateDependency kDeps[] = {
      {"TASFailedNodeReplacement", {"TopologyAwareScheduling", ""}},
      {"TASFailedNodeReplacementFailFast", {"TopologyAwareScheduling", "TASFailedNodeReplacement"}},
      {"TASReplaceNodeOnPodTermination", {"TopologyAwareScheduling", "TASFailedNodeReplacement"}},
      {"TASReplaceNodeDueToNotReadyOverFixedTime",
       {"TopologyAwareScheduling", "TASFailedNodeReplacement"}},
      {"TASBalancedPlacement", {"TopologyAwareScheduling", ""}},
      {"TASReplaceNodeOnNodeTaints", {"TopologyAwareScheduling", ""}},
      {"TASMultiLayerTopology", {"TopologyAwareScheduling", ""}},
      {"TASRespectNodeAffinityPreferred", {"TopologyAwareScheduling", ""}},
      {"UnadmittedWorkloadsExplicitStatus", {"UnadmittedWorkloadsObservability", ""}},
      {"TASHandleOverlappingFlavors", {"TopologyAwareScheduling", ""}},
      {"TASProfileMixed", {"TopologyAwareScheduling", ""}},
      {"TASRecomputeAssignmentWithinSchedulingCycle", {"TopologyAwareScheduling", ""}},
      {"ElasticJobsViaWorkloadSlicesWithTAS",
       {"ElasticJobsViaWorkloadSlices", "TopologyAwareScheduling"}},
      {"KueueDRAIntegrationExtendedResource", {"KueueDRAIntegration", ""}},
      {"KueueDRAIntegrationPartitionableDevices", {"KueueDRAIntegration", ""}},
      {"KueueDRAIntegrationConsumableCapacity", {"KueueDRAIntegration", ""}},
      {"FlavorFungibilityPreserveScanProgress", {"FlavorFungibility", ""}},
      {"SchedulingEquivalenceHashingIgnorePodSetName", {"SchedulingEquivalenceHashing", ""}},
  };
  return kDeps;
}

inline const FeatureGateInfo* FindFeatureGate(std::string_view kueue_name, size_t* index = nullptr) {
  const std::span<const FeatureGateInfo> table = FeatureGateTable();
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == kueue_name) {
      if (index != nullptr) *index = i;
      return &table[i];
    }
  }
  return nullptr;
}

inline absl::Status FeatureGates::Set(std::string_view kueue_name, bool value) {
  size_t i = 0;
  const FeatureGateInfo* g = FindFeatureGate(kueue_name, &i);
  if (g == nullptr) {
    return absl::InvalidArgumentError("unknown feature gate '" + std::string(kueue_name) + "'");
  }
  const std::string_view v = value ? "true" : "false";
  switch (g->support) {
    case GateSupport::kImplemented:
      this->*g->field = value;
      return absl::OkStatus();
    case GateSupport::kNoEffect:
      break;
    case GateSupport::kOnlyValue:
      if (value != g->supported_value) {
        return absl::InvalidArgumentError(fmt::format("feature gate {}={} is not supported: {}", g->name, v, g->note));
      }
      break;
    case GateSupport::kLocked:
      if (value != g->kueue_default) {
        return absl::InvalidArgumentError(fmt::format("cannot set feature gate {} to {}, feature is locked to {}", g->name, v, g->kueue_default));
      }
      break;
  }
  other_set_.set(i);
  other_value_.set(i, value);
  return absl::OkStatus();
}

inline bool FeatureGates::Enabled(std::string_view kueue_name) const {
  size_t i = 0;
  return FindFeatureGate(kueue_name, &i) != nullptr && EnabledAt(i);
}

inline bool FeatureGates::EnabledAt(size_t index) const {
  const FeatureGateInfo& g = FeatureGateTable()[index];
  if (g.field != nullptr) return this->*g.field;
  return other_set_.test(index) ? other_value_.test(index) : g.kueue_default;
}

inline absl::Status FeatureGates::Validate() const {
  for (const FeatureGateDependency& d : FeatureGateDependencies()) {
    if (!Enabled(d.gate)) continue;
    std::string disabled;
    for (std::string_view need : d.needs) {
      if (need.empty() || Enabled(need)) continue;
      if (!disabled.empty()) disabled += ", ";
      disabled += need;
    }
    if (!disabled.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: enabled, but it depends on features that are disabled: [{}]", d.gate, disabled));
    }
  }
  return absl::OkStatus();
}

/// Which timestamp orders a workload requeued after a pods-ready timeout (Kueue
/// `waitForPodsReady.requeuingStrategy.timestamp`).
enum class RequeuingTimestamp {
  /// The transition time of its `Evicted` condition (Kueue's default).
  kEviction,
  /// Its `metadata.creationTimestamp`.
  kCreation,
};

/// Kueue `Configuration.waitForPodsReady` (docs/semantics.md §1.7.2). The host reports pod readiness
/// (`Engine::SetPodsReady`); a workload holding quota whose pods are not ready `timeout` after its
/// admission is evicted with reason PodsReadyTimeout and requeued after an exponential back-off.
struct WaitForPodsReadyConfig {
  /// Off by default here. Kueue's v1beta2 configuration enables it by default (timeout 30m), but
  /// the engine learns of pod readiness only from the host, so a host opts in.
  bool enabled = false;
  /// From the admission to PodsReady=True; Kueue's default 30m. Must be more than 0.
  Duration timeout = Duration::Seconds(30 * 60);
  /// From PodsReady turning false after it was true (a pod failed and is being replaced); nullopt
  /// means `timeout` (Kueue's default), 0 disables the check.
  std::optional<Duration> recovery_timeout;
  /// Kueue's blockAdmission. Only false is accepted: the engine does not block admission on the
  /// readiness of other workloads (docs/semantics.md §1.7.2).
  bool block_admission = false;
  /// `requeuingStrategy.timestamp`. Read even with `enabled` false, as Kueue orders a host's
  /// PodsReadyTimeout evictions by it whether or not its own timer runs.
  RequeuingTimestamp requeuing_timestamp = RequeuingTimestamp::kEviction;
  /// `requeuingStrategy.backoffLimitCount`: after this many timeouts the next one deactivates the
  /// workload. nullopt: requeued for ever.
  std::optional<int32_t> backoff_limit_count;
  /// `requeuingStrategy.backoffBaseSeconds` (default 60) and `backoffMaxSeconds` (default 3600; 0
  /// means no cap, as in Kueue). The n-th requeue waits min(base × 2^(n−1), max) seconds, and the
  /// first one `base` whatever `max` is.
  int32_t backoff_base_seconds = 60;
  int32_t backoff_max_seconds = 3600;
};

/// How status messages about quota and preemption are worded. Only the text changes: every
/// decision is the same in both styles.
enum class MessageStyle {
  /// Kueue's wording at the commit we follow (docs/semantics.md §8): "insufficient quota for <r> in flavor
  /// <f>, previously considered podsets requests (…) + current podset request (…) > maximum
  /// capacity (…)", "insufficient unused quota for <r> in flavor <f>, <n> more needed", and
  /// preemption messages with JobUID and queue paths.
  kCurrent,
  /// The wording of Kueue releases from before hierarchical cohorts, which SageMaker HyperPod task
  /// governance shows (docs/hyperpod.md §6): "borrowing limit for <r> in flavor <f> exceeded"
  /// when the ClusterQueue's usage plus the request passes nominal + borrowingLimit,
  /// "insufficient unused quota in cohort for <r> in flavor <f>, <n> more needed" inside a cohort,
  /// "insufficient quota for <r> in flavor <f> in ClusterQueue" for a standalone queue that can
  /// never fit it, and "Preempted to accommodate a workload (UID: <uid>) due to <why>".
  kLegacy,
};

/// Quartermaster's refill mode (docs/semantics.md §11.7; not Kueue, off by default): after a cycle's
/// heads are processed, a ClusterQueue whose head was admitted tries its next heads in the same
/// cycle, while each fits within the queue's own quota without preemption and without borrowing.
/// Kueue admits at most one workload per ClusterQueue per cycle (kubernetes-sigs/kueue#14477).
struct RefillConfig {
  bool enabled = false;
};

/// Everything an Engine is built with.
struct EngineConfig {
  FairSharingConfig fair_sharing;
  FeatureGates features;
  MessageStyle message_style = MessageStyle::kCurrent;
  /// Quartermaster's policies against preemption thrash (qm/model/anti_thrash.h); all off by
  /// default, which decides exactly as Kueue does.
  AntiThrashConfig anti_thrash;
  /// Kueue's waitForPodsReady; off by default (docs/semantics.md §1.7.2).
  WaitForPodsReadyConfig wait_for_pods_ready;
  /// Ours: more than one admission per ClusterQueue per cycle; off by default.
  RefillConfig refill;
  /// Checked for every workload `Engine::Submit`/`SubmitAs` and `Engine::Apply`/`ApplyAs` receive,
  /// before anything changes; unset admits every submission. HyperPod's admission policy and
  /// access rule are one (qm/hyperpod/governance.h `MakeSubmissionGate`).
  SubmissionGate submission_gate;
  /// The clock stamped on submissions, reservations and evictions. Unset: the engine keeps a
  /// manual clock that starts at the Unix epoch and moves only with `Engine::SetNow`.
  std::function<Time()> clock;
  /// Self-check: after every cycle (`ScheduleCycle`, each cycle of `RunUntilStable`), run
  /// `Engine::CheckInvariants`. A violation becomes the cycle's `CycleResult::status` and stops
  /// `RunUntilStable`. O(state) per cycle: for tests and debugging. Like `clock`, a setting of the
  /// host: not saved in snapshots (`Engine::Restore` takes it from `host`).
  bool check_invariants = false;
};

}  // namespace qm

#endif  // QM_MODEL_CONFIG_H_
