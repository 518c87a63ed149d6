// `Engine::WhatIf`: the smallest change that would admit a pending workload now, in plain words, each
// one checked on a restored copy (docs/forecast.md §What-if; an extension beyond Kueue,
// docs/semantics.md §11.6).
//
// Three kinds of change are searched:
//   * quota: "admitted if 2 more nvidia.com/gpu were free in flavor p5 in ClusterQueue team-b": for
//     each flavor the assigner tried, the shortfall of each resource (requested − available), given
//     to the workload's ClusterQueue as more nominal quota;
//   * borrowing limit: "admitted if ClusterQueue team-b could borrow at least 2 for nvidia.com/gpu in
//     flavor p5 (borrowingLimit)": where the queue's borrowing limit is what stops it, the limit
//     it would need (its usage plus the request, less nominal);
//   * priority: "admitted if its priority were at least 71 (preempts team-a/eval-2)": the lowest
//     priority, one above a priority held in its cohort tree, at which it is admitted after the
//     preemptions it then issues.
// An answer is kept only when the change, applied to a copy of the engine restored from `Save()`,
// gets the workload admitted by the cycles that run at the current instant (evicted pods stop at
// once). The live engine is never touched.
//
// Cost: one `Save`, then per candidate one `Restore` (O(state)) and the cycles of one instant; at
// most one candidate per flavor tried and 32 priorities.
#ifndef QM_ADAPTER_WHAT_IF_H_
#define QM_ADAPTER_WHAT_IF_H_

#include <cstdint>
#include <string>
#include <vector>

namespace qm {

struct WhatIfAnswer {
  enum class Kind : uint8_t { kQuota, kBorrowingLimit, kPriority };
  Kind kind = Kind::kQuota;
  /// The answer in words.
  std::string text;
  /// kQuota: more nominal quota for the workload's ClusterQueue, per (flavor, resource);
  /// kBorrowingLimit: the borrowing limit it would need, per (flavor, resource).
  struct Quota {
    std::string flavor;
    std::string resource;
    int64_t amount = 0;  ///< in the resource's base unit
  };
  std::string cluster_queue;
  std::vector<Quota> quota;
  /// kPriority: the priority, and the workloads it would then preempt ("namespace/name").
  int32_t priority = 0;
  std::vector<std::string> preempts;
};

struct WhatIfReport {
  /// Already admissible as things stand: the next cycles admit it; no answer is needed.
  bool admitted_as_is = false;
  /// Checked answers, at most one of each kind: quota (the smallest total of the flavors tried),
  /// borrowing limit, then priority.
  std::vector<WhatIfAnswer> answers;
};

}  // namespace qm

#endif  // QM_ADAPTER_WHAT_IF_H_
