// Why a workload was preempted: Kueue's reasons for the `Preempted` condition.
#ifndef QM_MODEL_PREEMPTION_REASON_H_
#define QM_MODEL_PREEMPTION_REASON_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace qm {

/// Why a workload was preempted (the reason of its `Preempted` condition).
enum class PreemptionReason : uint8_t {
  kInClusterQueue,
  kInCohortReclamation,
  kInCohortFairSharing,
  kInCohortReclaimWhileBorrowing,
};
/// How many `PreemptionReason` values there are (they number 0 … kPreemptionReasons − 1).
inline constexpr int kPreemptionReasons = 4;

/// Kueue's name of the reason ("InCohortReclamation").
inline const char* PreemptionReasonName(PreemptionReason r) {
  switch (r) {
    case PreemptionReason::kInClusterQueue: return "InClusterQueue";
    case PreemptionReason::kInCohortReclamation: return "InCohortReclamation";
    case PreemptionReason::kInCohortFairSharing: return "InCohortFairSharing";
    case PreemptionReason::kInCohortReclaimWhileBorrowing: return "InCohortReclaimWhileBorrowing";
  }
  return "InClusterQueue";
}

/// The inverse of `PreemptionReasonName`; nullopt for any other text.
inline std::optional<PreemptionReason> ParsePreemptionReason(std::string_view name) {
  for (int i = 0; i < kPreemptionReasons; ++i) {
    const auto r = static_cast<PreemptionReason>(i);
    if (name == PreemptionReasonName(r)) return r;
  }
  return std::nullopt;
}

}  // namespace qm

#endif  // QM_MODEL_PREEMPTION_REASON_H_
