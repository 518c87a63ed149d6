// The engine-side state of the anti-thrash policies and the preemption-cycle detector
// (qm/model/anti_thrash.h, qm/solver/anti_thrash.h). Empty unless a policy is configured.
#ifndef QM_STATE_THRASH_STATE_H_
#define QM_STATE_THRASH_STATE_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "qm/core/ids.h"
#include "qm/core/time.h"

namespace qm {

struct ThrashState {
  /// Instants at which a minimum runtime or a borrow back-off ends: (time µs, packed
  /// `WorkloadHandle`). When one passes, the cohort tree of that workload's ClusterQueue is flushed
  /// (docs/semantics.md §3.8), so parked workloads look again. Saved by snapshots as they are: the
  /// set is not a function of the rest of the state (docs/snapshot-format.md, section THRS).
  absl::btree_set<std::pair<int64_t, uint64_t>> timers;

  /// Cross-queue preemptions, for the cycle detector: per preemptor ClusterQueue (by id), the
  /// victim ClusterQueues it preempted in, with the latest such preemption.
  struct Edge {
    ClusterQueueId to;
    Time at;
  };
  std::vector<std::vector<Edge>> edges;
  /// Queue rings already reported (ClusterQueue ids in ring order, starting at the smallest id),
  /// with when: a ring is reported again only after the detection window has passed.
  absl::btree_map<std::vector<uint32_t>, Time> reported_rings;
};

}  // namespace qm

#endif  // QM_STATE_THRASH_STATE_H_
