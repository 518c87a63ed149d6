// ClusterQueue and Cohort specs (docs/semantics.md §1.3, §1.4) with Kueue's defaults.
#ifndef QM_MODEL_CLUSTER_QUEUE_H_
#define QM_MODEL_CLUSTER_QUEUE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qm/model/resource_group.h"
#include "qm/model/selectors.h"

namespace qm {

enum class QueueingStrategy { kBestEffortFIFO, kStrictFIFO };

/// `flavorFungibility` values. v1beta1's legacy `Borrow` / `Preempt` are read as `kMayStopSearch`.
enum class FungibilityPolicy { kMayStopSearch, kTryNextFlavor };
enum class FungibilityPreference { kBorrowingOverPreemption, kPreemptionOverBorrowing };

struct FlavorFungibility {
  FungibilityPolicy when_can_borrow = FungibilityPolicy::kMayStopSearch;
  FungibilityPolicy when_can_preempt = FungibilityPolicy::kTryNextFlavor;
  /// Only valid when both policies are `kTryNextFlavor`; unset behaves as BorrowingOverPreemption.
  std::optional<FungibilityPreference> preference;
};

enum class WithinClusterQueuePolicy { kNever, kLowerPriority, kLowerOrNewerEqualPriority };
enum class ReclaimWithinCohortPolicy { kNever, kLowerPriority, kAny };
enum class BorrowWithinCohortPolicy { kNever, kLowerPriority };

struct BorrowWithinCohort {
  BorrowWithinCohortPolicy policy = BorrowWithinCohortPolicy::kNever;
  std::optional<int32_t> max_priority_threshold;
};

/// `spec.preemption`; absent means every policy `Never`.
struct PreemptionPolicy {
  WithinClusterQueuePolicy within_cluster_queue = WithinClusterQueuePolicy::kNever;
  ReclaimWithinCohortPolicy reclaim_within_cohort = ReclaimWithinCohortPolicy::kNever;
  BorrowWithinCohort borrow_within_cohort;
};

enum class StopPolicy { kNone, kHold, kHoldAndDrain };

/// A fair-sharing weight in thousandths ("1" = 1000, "0.5" = 500). Default 1.
inline constexpr int64_t kDefaultWeightMilli = 1000;

/// `kueue.x-k8s.io ClusterQueue`.
struct ClusterQueueSpec {
  std::string name;
  /// Parent cohort (`cohortName` in v1beta2, `cohort` in v1beta1); empty = standalone.
  std::string cohort;
  /// Absent matches no namespace; an empty selector matches every namespace.
  std::optional<LabelSelector> namespace_selector;
  QueueingStrategy queueing_strategy = QueueingStrategy::kBestEffortFIFO;
  std::vector<ResourceGroupSpec> resource_groups;
  FlavorFungibility flavor_fungibility;
  PreemptionPolicy preemption;
  int64_t fair_sharing_weight_milli = kDefaultWeightMilli;
  StopPolicy stop_policy = StopPolicy::kNone;
  Labels labels;  ///< metadata.labels (kept for output; not used by the scheduler)
};

/// `kueue.x-k8s.io Cohort`: an inner node of the quota tree with optional extra quota.
struct CohortSpec {
  std::string name;
  /// Parent cohort (`parentName`; v1alpha1 `parent`); empty = root.
  std::string parent;
  std::vector<ResourceGroupSpec> resource_groups;
  int64_t fair_sharing_weight_milli = kDefaultWeightMilli;
};

}  // namespace qm

#endif  // QM_MODEL_CLUSTER_QUEUE_H_
