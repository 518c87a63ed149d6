// Engine configuration: the parts of Kueue's Configuration and feature gates that change decisions.
#ifndef QM_MODEL_CONFIG_H_
#define QM_MODEL_CONFIG_H_

#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "qm/core/time.h"

namespace qm {

struct WorkloadSpec;

/// Decides whether a principal may create or update a workload (`EngineConfig::submission_gate`).
/// `principal` is who submits (an IAM ARN, a user or group name, ...); empty when the program that
/// owns the Engine submits on its own account, which a gate treats as a cluster administrator.
/// A non-OK status refuses the submission and is returned to the caller unchanged.
using SubmissionGate =
    std::function<absl::Status(std::string_view principal, const WorkloadSpec& workload)>;

/// Fair-sharing preemption strategies (semantics §6.5).
enum class FairSharingStrategy { kLessThanOrEqualToFinalShare, kLessThanInitialShare };

/// Kueue `Configuration.fairSharing`.
struct FairSharingConfig {
  bool enabled = false;
  /// Applied in this order; Kueue's default is both.
  std::vector<FairSharingStrategy> preemption_strategies = {
      FairSharingStrategy::kLessThanOrEqualToFinalShare, FairSharingStrategy::kLessThanInitialShare};
};

/// Kueue feature gates that change scheduling decisions, with Kueue's defaults at the commit the
/// semantics document cites (§0).
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

  /// Sets a gate by its Kueue name; unknown names are an error.
  absl::Status Set(std::string_view kueue_name, bool value);
};

inline absl::Status FeatureGates::Set(std::string_view kueue_name, bool value) {
  struct Entry {
    std::string_view name;
    bool FeatureGates::*field;
  };
  static constexpr Entry kEntries[] = {
      {"PartialAdmission", &FeatureGates::partial_admission},
      {"FlavorFungibility", &FeatureGates::flavor_fungibility},
      {"PrioritySortingWithinCohort", &FeatureGates::priority_sorting_within_cohort},
      {"FairSharingPreemptWithinNominal", &FeatureGates::fair_sharing_preempt_within_nominal},
      {"FairSharingPrioritizeNonBorrowing", &FeatureGates::fair_sharing_prioritize_non_borrowing},
      {"FlavorFungibilityPreserveScanProgress",
       &FeatureGates::flavor_fungibility_preserve_scan_progress},
      {"RecomputeAssignmentUponPreemptionTargetsOverlap",
       &FeatureGates::recompute_assignment_upon_preemption_targets_overlap},
      {"SchedulingEquivalenceHashing", &FeatureGates::scheduling_equivalence_hashing},
      {"PrioritizePreemptorWorkloads", &FeatureGates::prioritize_preemptor_workloads},
  };
  for (const auto& e : kEntries) {
    if (e.name == kueue_name) {
      this->*e.field = value;
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError("unknown feature gate '" + std::string(kueue_name) + "'");
}

/// How status messages about quota and preemption are worded. Only the text changes: every
/// decision is the same in both styles.
enum class MessageStyle {
  /// Kueue at the commit the semantics document cites (§9): "insufficient quota for <r> in flavor
  /// <f>, previously considered podsets requests (…) + current podset request (…) > maximum
  /// capacity (…)", "insufficient unused quota for <r> in flavor <f>, <n> more needed", and
  /// preemption messages with JobUID and queue paths.
  kCurrent,
  /// The wording of Kueue releases from before hierarchical cohorts, which SageMaker HyperPod task
  /// governance shows (hyperpod-mapping.md §6): "borrowing limit for <r> in flavor <f> exceeded"
  /// when the ClusterQueue's usage plus the request passes nominal + borrowingLimit,
  /// "insufficient unused quota in cohort for <r> in flavor <f>, <n> more needed" inside a cohort,
  /// "insufficient quota for <r> in flavor <f> in ClusterQueue" for a standalone queue that can
  /// never fit it, and "Preempted to accommodate a workload (UID: <uid>) due to <why>".
  kLegacy,
};

/// Everything an Engine is built with.
struct EngineConfig {
  FairSharingConfig fair_sharing;
  FeatureGates features;
  MessageStyle message_style = MessageStyle::kCurrent;
  /// Checked for every workload `Engine::Submit`/`SubmitAs` and `Engine::Apply`/`ApplyAs` receive,
  /// before anything changes; unset admits every submission. HyperPod's admission policy and
  /// access rule are one (qm/hyperpod/governance.h `MakeSubmissionGate`).
  SubmissionGate submission_gate;
  /// The clock stamped on submissions, reservations and evictions. Unset: the engine keeps a
  /// manual clock that starts at the Unix epoch and moves only with `Engine::SetNow`.
  std::function<Time()> clock;
};

}  // namespace qm

#endif  // QM_MODEL_CONFIG_H_
