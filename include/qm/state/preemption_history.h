// What preemption did to one workload and what it did to others: counts per reason, the latest
// preemptors, the quota-holding time thrown away, and the anti-thrash borrow back-off. Kept for
// every workload that was preempted or preempted another, out of line (`WorkloadExtras`), so a
// workload that never meets preemption pays one null pointer.
#ifndef QM_STATE_PREEMPTION_HISTORY_H_
#define QM_STATE_PREEMPTION_HISTORY_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "qm/core/ids.h"
#include "qm/core/time.h"
#include "qm/model/preemption_reason.h"

namespace qm {

struct PreemptionHistory {
  /// How many of the latest preemptions `recent` keeps.
  static constexpr size_t kRecent = 8;

  struct Entry {
    Time at;
    WorkloadHandle preemptor;    ///< may have been deleted since
    std::string preemptor_name;  ///< "namespace/name", kept for when it has
    ClusterQueueId preemptor_cq;
    PreemptionReason reason = PreemptionReason::kInClusterQueue;
  };

  /// Times this workload was preempted, in all and per reason.
  uint32_t preempted = 0;
  std::array<uint32_t, kPreemptionReasons> by_reason{};
  /// Times this workload, as a preemptor, had another workload preempted.
  uint32_t caused = 0;
  /// Σ over its preemptions of the time it had held its quota when preempted (reservation →
  /// preemption): the admitted time that preemption threw away.
  Duration held_lost;
  /// The latest preemptions, oldest first (at most kRecent).
  std::vector<Entry> recent;
  /// Anti-thrash borrow back-off: the workload may borrow again from this instant (0 = never
  /// reclaimed).
  Time borrow_allowed_at;
  /// Anti-thrash requeue back-off: the workload may be admitted again from this instant.
  Time admit_allowed_at;
  /// Rounds of preemptions it issued (cycles in which it had at least one workload newly
  /// preempted) since it was last admitted.
  uint32_t rounds_unadmitted = 0;
  /// Anti-thrash preemption back-off: it may issue new preemptions again from this instant.
  Time preempt_allowed_at;

  /// Preemptions for a cohort reason (reclamation, reclamation while borrowing, fair sharing).
  uint32_t cohort_preemptions() const {
    return by_reason[static_cast<int>(PreemptionReason::kInCohortReclamation)] +
           by_reason[static_cast<int>(PreemptionReason::kInCohortReclaimWhileBorrowing)] +
           by_reason[static_cast<int>(PreemptionReason::kInCohortFairSharing)];
  }
  /// Whether `preemptor` is among the recent preemptors.
  bool PreemptedBy(WorkloadHandle preemptor) const {
    for (const Entry& e : recent)
      if (e.preemptor == preemptor) return true;
    return false;
  }
  void Add(Entry e) {
    if (recent.size() == kRecent) recent.erase(recent.begin());
    recent.push_back(std::move(e));
  }
};

}  // namespace qm

#endif  // QM_STATE_PREEMPTION_HISTORY_H_
