// Quartermaster's extensions against preemption thrash (docs/semantics.md, "Extensions beyond
// Kueue"). Under sustained load Kueue's preemption rules can evict the same workloads again and
// again, or loop forever (docs/semantics.md §10). Each policy here bounds one mechanism of that.
// Every one is off by default: an `AntiThrashConfig{}` changes no decision, so an engine without it
// decides exactly as Kueue does.
#ifndef QM_MODEL_ANTI_THRASH_H_
#define QM_MODEL_ANTI_THRASH_H_

#include <string>
#include <vector>

#include "qm/core/time.h"
#include "qm/model/preemption_reason.h"

namespace qm {

/// A minimum runtime before preemption (KEP-1714's "minimum execution time"; Slurm's
/// PreemptExemptTime): a workload that has held its quota for less than `duration` is not a
/// preemption candidate for any of `reasons`. Selectors narrow which workloads a rule protects;
/// an empty list matches everything. A workload matched by several rules is protected for the
/// longest of their durations.
struct MinRuntimeRule {
  Duration duration;
  /// The reasons it protects against; empty = every reason.
  std::vector<PreemptionReason> reasons;
  /// The protected workload's priority class (WorkloadPriorityClass or PriorityClass name).
  std::vector<std::string> priority_classes;
  /// The ClusterQueue the protected workload is admitted in.
  std::vector<std::string> cluster_queues;
};

/// An exponential back-off: the n-th wait is min(max, base × 2^(n−1)). `base` 0 = off; `max` 0 =
/// no growth (every wait is `base`).
struct BackoffConfig {
  Duration base;
  Duration max;
};

/// Back-off before a reclaimed workload borrows again: after its n-th preemption for a cohort
/// reason (InCohortReclamation, InCohortReclaimWhileBorrowing, InCohortFairSharing), a workload
/// is admitted only within its ClusterQueue's nominal quota for the n-th wait from the preemption.
using BorrowBackoffConfig = BackoffConfig;

/// Back-off before a preempted workload is admitted again: after its n-th preemption (any reason),
/// it waits the n-th wait from the preemption before it may be admitted at all. Kueue has such a
/// back-off only for evictions by waitForPodsReady (`requeuingStrategy`); this one applies to
/// preemptions, and bounds how often one workload can be readmitted into room that is taken back.
using RequeueBackoffConfig = BackoffConfig;

/// Back-off before a preemptor preempts again: a workload that had others preempted and was not
/// admitted since waits before it issues new preemptions: after its n-th such round, the n-th wait
/// from that round. Admission resets the count. This bounds preemptions that free room the
/// preemptor then cannot use (its victims are readmitted instead, again and again).
using PreemptionBackoffConfig = BackoffConfig;

/// Reporting preemption cycles as `EventKind::kPreemptionCycle` events: a workload preempted by one
/// it preempted before, or ClusterQueues that preempted each other in a ring within `window`.
struct CycleDetectionConfig {
  bool enabled = false;
  Duration window = Duration::Seconds(3600);
};

/// The anti-thrash policies of an engine (`EngineConfig::anti_thrash`).
struct AntiThrashConfig {
  std::vector<MinRuntimeRule> min_runtime;
  /// Fair-sharing preemption keeps a set of targets only when every InCohortFairSharing target
  /// still passes a configured strategy in the state after the fill-back step (the mechanism of
  /// kubernetes-sigs/kueue#14543); otherwise the preemptor gets no targets.
  bool loop_free_fair_sharing = false;
  BorrowBackoffConfig borrow_backoff;
  RequeueBackoffConfig requeue_backoff;
  PreemptionBackoffConfig preemption_backoff;
  CycleDetectionConfig cycle_detection;

  /// Whether any policy that can change a decision is on.
  bool ChangesDecisions() const {
    return !min_runtime.empty() || loop_free_fair_sharing || borrow_backoff.base.us > 0 ||
           requeue_backoff.base.us > 0 || preemption_backoff.base.us > 0;
  }
};

}  // namespace qm

#endif  // QM_MODEL_ANTI_THRASH_H_
