// Engine configuration: the parts of Kueue's Configuration and feature gates that change decisions.
#ifndef QM_MODEL_CONFIG_H_
#define QM_MODEL_CONFIG_H_

#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "qm/core/time.h"

namespace qm {

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

/// Everything an Engine is built with.
struct EngineConfig {
  FairSharingConfig fair_sharing;
  FeatureGates features;
  /// The clock stamped on submissions, reservations and evictions. Unset: the engine keeps a
  /// manual clock that starts at the Unix epoch and moves only with `Engine::SetNow`.
  std::function<Time()> clock;
};

}  // namespace qm

#endif  // QM_MODEL_CONFIG_H_
