// `Engine::Forecast`: when will each pending workload be admitted? (docs/forecast.md; an extension
// beyond Kueue, docs/semantics.md §11.6.)
//
// The forecast makes a private copy of the engine (what `Restore` would make of `Save()`'s bytes,
// copied member by member: internal::CopyEngine; writing no status texts) and runs it forward in virtual
// time as a host would: running workloads finish when the host's estimate of their runtime says so,
// evicted ones stop at once, admitted ones start at once (and report PodsReady at once), optional
// new arrivals come at a rate per LocalQueue, and cycles run until settled at every instant where
// something changes. It answers from the decisions that copy makes, so every Kueue rule (quota,
// borrowing, lending limits, fair sharing, preemption, the anti-thrash extensions, pods-ready
// timers) is in it. The live engine is never touched: `Forecast` is a const query.
//
// Uncertainty: a runtime estimate is a list of samples (one sample = exact). The point forecast
// uses each list's median and arrivals at exactly their mean spacing. When any estimate has more
// than one sample, or arrivals are given, `ForecastOptions::runs` more runs draw runtimes uniformly
// from the lists and arrivals as a Poisson process, from `seed`; p10/p50/p90 are taken over them.
// With exact estimates and no arrivals the forecast is one run and equals what a host that behaves
// as above will see (tests/adapter/forecast_property_test.cc).
//
// The engine decides quota, not placement: a forecast knows nothing of nodes, as the engine does not.
//
// Cost: per run one copy (O(state)) and a virtual-time loop of
// O(instants × cycle cost); an instant is a distinct finish, arrival or timer time. A run stops as
// soon as every asked-for workload is admitted, at `horizon`, or after `max_cycles`.
#ifndef QM_ADAPTER_FORECAST_H_
#define QM_ADAPTER_FORECAST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qm/core/time.h"
#include "qm/model/decisions.h"
#include "qm/model/workload.h"

namespace qm {

/// A runtime as the host knows it: one sample (exact) or several (an empirical distribution, drawn
/// uniformly). Every sample must be > 0.
struct RuntimeEstimate {
  std::vector<Duration> samples;
  static RuntimeEstimate Exact(Duration d) { return RuntimeEstimate{{d}}; }
  bool empty() const { return samples.empty(); }
};

/// One workload's estimate. For a workload holding quota it is the runtime *remaining* from now;
/// for a pending one it is its whole runtime once admitted.
struct WorkloadRuntime {
  WorkloadHandle workload;
  RuntimeEstimate runtime;
};

/// The runtime of the workloads of a ClusterQueue (whole runtime; for a workload holding quota the
/// time it has already held it is subtracted, and only samples longer than that are drawn).
struct QueueRuntime {
  std::string cluster_queue;
  RuntimeEstimate runtime;
};

/// New workloads arriving during the forecast: copies of `workload` (its namespace, LocalQueue,
/// priority and pod sets; `name` is the prefix of the copies' names, `admission` must be unset) at
/// `per_hour` on average.
struct ForecastArrivals {
  WorkloadSpec workload;
  double per_hour = 0;
  RuntimeEstimate runtime;  ///< empty: the ClusterQueue's, else the default
};

struct ForecastOptions {
  /// The workloads to forecast; empty = every pending workload (evicting ones included: they are
  /// taken as stopped now and requeued).
  std::vector<WorkloadHandle> workloads;
  /// Estimates, most specific first: a workload's own, its ClusterQueue's, then `default_runtime`.
  /// A workload that needs one and has none is an error naming it.
  std::vector<WorkloadRuntime> workload_runtimes;
  std::vector<QueueRuntime> queue_runtimes;
  RuntimeEstimate default_runtime;
  std::vector<ForecastArrivals> arrivals;
  /// Random runs for the p10/p50/p90 bounds when something is uncertain (ignored otherwise).
  int runs = 100;
  uint64_t seed = 1;
  /// How far ahead to look; a workload not admitted by then has no admission time.
  Duration horizon = Duration::Seconds(30 * 24 * 3600);
  /// Cycle budget per run (a Kueue-faithful preemption loop never settles); hit = `truncated`.
  int64_t max_cycles = 1000000;
};

/// What a forecast admission waited for.
struct ForecastBlocker {
  enum class Kind : uint8_t {
    kFinishes,   ///< its completion freed the quota (same cohort tree, same instant)
    kPreempted,  ///< the workload's admission preempts it
  };
  WorkloadHandle workload;  ///< invalid for a forecast arrival
  std::string name;         ///< "namespace/name"
  Kind kind = Kind::kFinishes;
  Time at;
};

struct WorkloadForecast {
  WorkloadHandle workload;
  std::string namespace_;
  std::string name;
  std::string cluster_queue;  ///< where it waits; empty when its queue does not exist
  /// 1-based rank in its ClusterQueue's order (Kueue's visibility order: the queue's sort order over
  /// active and parked workloads, the sticky preemptor first); 0 when it is in no queue.
  int64_t position_in_cluster_queue = 0;
  /// 1-based rank among the pending workloads of its cohort tree (its ClusterQueue alone when it has
  /// no cohort) in the point forecast's admission order; the ones it does not admit follow, in queue
  /// order. 0 when it is in no queue.
  int64_t position_in_cohort = 0;
  /// Point forecast of its admission (quota reservation); nullopt: not within the horizon.
  std::optional<Time> admission;
  /// Over the random runs (equal to `admission` when there are none); nullopt: that quantile is
  /// beyond the horizon.
  std::optional<Time> p10, p50, p90;
  /// Share of the runs (the point forecast when there are none) that admit it within the horizon.
  double admitted_fraction = 0;
  /// In the point forecast: what its admission waited for (finishes, then its preemptions).
  std::vector<ForecastBlocker> waits_for;
};

struct ForecastReport {
  Time now;
  Time horizon_end;
  int runs = 1;          ///< 1 + the random runs
  int64_t cycles = 0;    ///< over all runs
  bool truncated = false;  ///< a run hit `max_cycles` before the horizon
  /// The asked-for workloads in their order, else every pending one by namespace then name.
  std::vector<WorkloadForecast> workloads;
};

}  // namespace qm

#endif  // QM_ADAPTER_FORECAST_H_
