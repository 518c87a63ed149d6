// Replays a Kueue performance generator configuration (perf_config.h) through a `qm::Engine` in
// virtual time, and summarises it the way Kueue's performance checker does.
//
// The replay, as Kueue's runner drives its cluster:
//   1. At t = 0 the ResourceFlavor, cohorts, ClusterQueues, namespaces and LocalQueues exist.
//   2. Workloads are created at their creation times (PerfWorkloadsSet).
//   3. An admitted workload runs for its `runtimeMs`, then finishes and releases its quota.
//   4. A preempted workload stops at once (the runner confirms evictions immediately), goes back to
//      its queue, and runs its full runtime again when readmitted.
//   5. At every instant where something happened, events are applied in this order: finishes, then
//      creations (each in the order they were scheduled), then scheduling cycles run at that same
//      instant until a cycle considers no workload.
// The run ends when the last workload finishes. Nothing here depends on the host's clock except the
// measured `real_*` and `cycle_*` figures: same configuration, same decisions and virtual figures.
//
// Summary figures, as kubernetes-sigs/kueue test/performance/scheduler/runner/recorder computes them:
//   - average usage of a ClusterQueue class: Σ(cpu usage × time) / (Σ nominal quota × run time);
//     usage counts every workload holding quota (borrowed quota included);
//   - average time to admission of a workload class: Σ(last admission − creation) / count, in ms
//     (a readmitted workload counts its last admission, as Kueue's recorder does).
#ifndef QM_SIM_PERF_REPLAY_H_
#define QM_SIM_PERF_REPLAY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "qm/model/config.h"
#include "qm/sim/perf_config.h"

namespace qm::sim {

struct PerfReplayOptions {
  /// The engine's configuration (fair sharing, feature gates); its `clock` must be unset.
  EngineConfig engine;
  /// A safety net: a replay that needs more cycles at one instant stops with an Internal error.
  int64_t max_cycles_per_instant = 10'000'000;
};

/// Per workload class (`className` of the templates).
struct PerfWorkloadClassSummary {
  std::string name;
  int64_t count = 0;
  int64_t admitted = 0;  ///< workloads of the class admitted at least once
  int64_t evictions = 0;
  int64_t total_time_to_admission_ms = 0;
  int64_t total_time_to_finish_ms = 0;
  double avg_time_to_admission_ms = 0;
  double avg_time_to_finish_ms = 0;
};

/// Per ClusterQueue class (`className` of the queue sets).
struct PerfQueueClassSummary {
  std::string name;
  int64_t queues = 0;
  int64_t nominal_milli_cpu = 0;  ///< Σ nominal quota of the class
  /// Σ usage × time (millicores × ms) over the run.
  int64_t used_milli_cpu_ms = 0;
  double avg_usage_percent = 0;
};

/// What one replay measured.
struct PerfSummary {
  int64_t workloads = 0;
  int64_t cluster_queues = 0;
  int64_t cohorts = 0;
  // ---- Virtual (deterministic) ----
  int64_t virtual_wall_ms = 0;  ///< last finish − start
  int64_t admissions = 0;       ///< admission decisions (readmissions included)
  int64_t preemptions = 0;
  int64_t cycles = 0;           ///< cycles that considered at least one workload
  int64_t idle_cycles = 0;      ///< cycles that considered none (one per busy instant)
  int64_t instants = 0;         ///< distinct virtual instants with events
  double avg_cq_usage_percent = 0;  ///< over every ClusterQueue
  std::vector<PerfQueueClassSummary> queue_classes;     ///< sorted by name
  std::vector<PerfWorkloadClassSummary> workload_classes;  ///< sorted by name
  // ---- Measured on this host (vary run to run) ----
  double setup_ms = 0;      ///< building the engine's objects (expanding the configuration included)
  double setup_engine_ms = 0;  ///< of setup_ms, inside `Engine::Apply`
  double real_ms = 0;       ///< wall time of the replay (setup excluded)
  double cpu_ms = 0;        ///< process CPU time of the replay
  double schedule_ms = 0;   ///< wall time inside `ScheduleCycle` only
  double engine_ms = 0;     ///< wall time inside any Engine call of the replay (ScheduleCycle included)
  double outside_engine_ms = 0;  ///< real_ms − engine_ms: the driver's own work (event queue, specs, clocks)
  double admissions_per_cpu_second = 0;       ///< admissions / cpu time of the replay
  double admissions_per_schedule_second = 0;  ///< admissions / time inside ScheduleCycle
  double cycle_p50_us = 0;  ///< over cycles that considered at least one workload
  double cycle_p99_us = 0;
  double cycle_max_us = 0;
  int64_t peak_rss_bytes = 0;  ///< the process's peak resident set (VmHWM), 0 when unknown
};

/// Replays `config`; errors when the engine rejects an object or the replay cannot finish.
absl::StatusOr<PerfSummary> ReplayPerf(const PerfConfig& config, const PerfReplayOptions& options = {});

/// Human-readable summary (the layout of `qm perf`).
std::string FormatPerfSummaryText(const PerfSummary& summary);
/// One JSON object (keys listed in docs/benchmarks.md), ending with a newline.
std::string FormatPerfSummaryJson(const PerfSummary& summary);

/// The process's peak resident set in bytes (Linux VmHWM, else getrusage), 0 when unknown.
int64_t PeakRssBytes();
/// The process's current resident set in bytes (Linux VmRSS), 0 when unknown.
int64_t CurrentRssBytes();

}  // namespace qm::sim

#endif  // QM_SIM_PERF_REPLAY_H_
