// The flavor assigner's result in solver terms (ids, not names); qm/model/decisions.h has the
// API-facing form.
#ifndef QM_SOLVER_ASSIGNMENT_H_
#define QM_SOLVER_ASSIGNMENT_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "boost/container/small_vector.hpp"
#include "qm/core/ids.h"
#include "qm/model/decisions.h"
#include "qm/state/workload_record.h"

namespace qm {

/// The flavor assigner's internal ranking (docs/semantics.md §4.3.6), worst to best.
enum class Granular : uint8_t { kNoFit, kNoCandidates, kPreempt, kReclaim, kFit };

inline AssignmentMode ApiMode(Granular g) {
  switch (g) {
    case Granular::kNoFit: return AssignmentMode::kNoFit;
    case Granular::kFit: return AssignmentMode::kFit;
    default: return AssignmentMode::kPreempt;
  }
}
inline const char* GranularName(Granular g) {
  switch (g) {
    case Granular::kNoFit: return "NoFit";
    case Granular::kNoCandidates: return "NoCandidates";
    case Granular::kPreempt: return "Preempt";
    case Granular::kReclaim: return "Reclaim";
    case Granular::kFit: return "Fit";
  }
  return "NoFit";
}

/// NoFit condition reasons by severity (docs/semantics.md §4.3.9); kNone = not a NoFit.
enum class NoFitReason : uint8_t { kNone, kTopologyPlacementFailed, kWaitingForQuota, kExceedsMaxQuota, kNoMatchingFlavor };
inline const char* NoFitReasonName(NoFitReason r) {
  switch (r) {
    case NoFitReason::kNoMatchingFlavor: return "NoMatchingFlavor";
    case NoFitReason::kExceedsMaxQuota: return "ExceedsMaxQuota";
    case NoFitReason::kWaitingForQuota: return "WaitingForQuota";
    case NoFitReason::kTopologyPlacementFailed: return "TopologyPlacementFailed";
    case NoFitReason::kNone: return "";
  }
  return "";
}

/// A pod set's status reasons: one per resource that does not fit, so a few; kept inline so a
/// failed nomination does not allocate for the list.
using ReasonList = boost::container::small_vector<std::string, 4>;

/// One resource of one pod set that got a flavor.
struct ChosenFlavor {
  ResourceId resource;
  FlavorId flavor;
  AssignmentMode mode = AssignmentMode::kFit;
  int borrow = 0;
  int tried_index = -1;  ///< last flavor index examined, −1 when the scan reached the end
  FrId fr;               ///< the (flavor, resource) slot, so that readers need no lookup
};

/// One pod set's assignment.
struct PodSetResult {
  uint32_t index = 0;  ///< position in the workload's pod sets
  int32_t count = 0;
  ResourceList requests;  ///< totals for `count` pods (plus `pods` when the queue covers it)
  boost::container::small_vector<ChosenFlavor, 4> flavors;  ///< sorted by resource id
  ReasonList reasons;  ///< status reasons; empty = fits
  NoFitReason status_nofit = NoFitReason::kNone;
  /// NoFit reasons of the flavors examined that ended NoFit, with the group they belong to.
  boost::container::small_vector<std::pair<int, NoFitReason>, 4> nofit_attempts;
  bool any_attempt = false;

  AssignmentMode Mode() const {
    if (reasons.empty()) return AssignmentMode::kFit;
    if (flavors.empty()) return AssignmentMode::kNoFit;
    AssignmentMode m = AssignmentMode::kFit;
    for (const auto& f : flavors) m = std::min(m, f.mode);
    return m;
  }
  const ChosenFlavor* Find(ResourceId r) const {
    for (const auto& f : flavors)
      if (f.resource == r) return &f;
    return nullptr;
  }
};

/// A workload's assignment in one ClusterQueue.
struct AssignmentResult {
  /// Inline for the common single-pod-set workload: computing an assignment allocates nothing.
  boost::container::small_vector<PodSetResult, 1> pod_sets;
  int borrow = 0;
  FrUsage usage;  ///< accumulated total per FR over every chosen flavor
  NoFitReason nofit_reason = NoFitReason::kNone;
  std::vector<FlavorAttempt> attempts;  ///< filled only when asked (explain)

  AssignmentMode RepresentativeMode() const {
    if (pod_sets.empty()) return AssignmentMode::kNoFit;
    AssignmentMode m = AssignmentMode::kFit;
    for (const auto& ps : pod_sets) m = std::min(m, ps.Mode());
    return m;
  }
  /// Kueue's assignment message (docs/semantics.md §8).
  template <class PodSetName>
  std::string Message(PodSetName pod_set_name) const {
    std::string out;
    for (const auto& ps : pod_sets) {
      if (ps.reasons.empty()) continue;
      // Sorted by text through pointers: the reasons themselves are not copied.
      boost::container::small_vector<const std::string*, 4> sorted;
      for (const std::string& r : ps.reasons) sorted.push_back(&r);
      std::sort(sorted.begin(), sorted.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
      if (!out.empty()) out += "; ";
      out += "couldn't assign flavors to pod set ";
      out += pod_set_name(ps.index);
      out += ": ";
      for (size_t i = 0; i < sorted.size(); ++i) {
        if (i) out += ", ";
        out += *sorted[i];
      }
    }
    return out;
  }
};

}  // namespace qm

#endif  // QM_SOLVER_ASSIGNMENT_H_
