// `qm simulate`: a trace-driven cluster simulator on the engine's real decision path
// (docs/simulate.md).
//
// A cluster (Kueue objects or HyperPod policies, plus nodes) receives the jobs of a trace in
// virtual time. The simulator is a host of `qm::Engine` like any other: it submits workloads,
// runs cycles until settled, reads the event stream, places admitted pods on nodes, confirms
// evictions, evicts the workloads of failed nodes (`Engine::Evict`, reason NodeFailures) and
// finishes jobs when their run time has passed. It uses nothing but the Engine's public API.
//
//   QM_ASSIGN_OR_RETURN(qm::sim::SimulationInput cluster, qm::sim::LoadCluster("policy.yaml"));
//   QM_ASSIGN_OR_RETURN(qm::sim::Trace trace, qm::sim::ReadTraceFile("jobs.csv"));
//   QM_ASSIGN_OR_RETURN(qm::sim::SimulationResult r, qm::sim::Simulate(cluster, trace));
//   std::cout << qm::sim::FormatSimulationText(r);
//
// Order at one instant (documented in docs/simulate.md §Model): finishes, stops of preempted pods
// whose grace period ended, node repairs, node failures (their evictions), submissions, each in
// (time, insertion) order; then cycles run until settled, evictions whose pods stop at once are
// confirmed and cycles run again; then admitted-but-unplaced workloads are placed, oldest admission
// first; then the no-progress detector looks back over the stall window (docs/simulate.md §No
// progress) and stops the run as a livelock when nothing progressed while jobs kept being preempted.
// A run therefore always ends.
//
// Cost: O(jobs × (cycle cost per admission + placement)) with placement O(nodes of the flavor)
// per pod set, and O(1) amortised per event for the detector (O(log running) per attempt of a
// job that checkpoints within a window); memory O(jobs) for per-job records
// (about 130 B each) plus the engine's, and the preemptions of the last stall window.
#ifndef QM_SIM_SIMULATOR_H_
#define QM_SIM_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "qm/adapter/engine.h"
#include "qm/core/time.h"
#include "qm/model/node.h"
#include "qm/sim/sim_result.h"
#include "qm/sim/trace.h"

namespace qm::sim {

/// A cluster to simulate: the engine's configuration, its queueing objects and its nodes.
struct SimulationInput {
  std::string label;  ///< names the run (the file name for `LoadCluster`)
  EngineConfig config;
  std::vector<ObjectSpec> objects;  ///< applied in one `Engine::Apply` at t = 0
  /// Nodes; empty = no inventory: every admitted workload starts at once (quota-only simulation).
  std::vector<NodeSpec> nodes;
};

/// Reads a cluster file: Kueue objects and/or HyperPod policies (qm/io/manifest.h), plus the node
/// inventory as Kubernetes `Node` objects or a `HyperPodCluster` (`NodesFromInventory`). Errors
/// name the file and line.
absl::StatusOr<SimulationInput> LoadCluster(const std::string& path);
/// One cluster from several files, read one by one and combined: objects and nodes in file order
/// (a later object of the same kind and name updates the earlier one when applied), at most one
/// node inventory and one Kueue `Configuration`; fair sharing must agree where two files set it. For
/// a policy plus an overlay: `{"lend-and-borrow.yaml", "requeue-backoff.yaml"}`. The label joins
/// the file names with '+'.
absl::StatusOr<SimulationInput> LoadCluster(std::span<const std::string> paths);
/// The same from text; `source_name` is used in errors and as the label.
absl::StatusOr<SimulationInput> LoadClusterString(std::string_view yaml, std::string_view source_name);

/// Node failures: a list, and/or seeded random failures.
struct FaultPlan {
  struct Failure {
    std::string node;
    Duration at;      ///< from the trace start
    Duration repair;  ///< down for this long; 0 = never repaired
  };
  std::vector<Failure> failures;
  /// Random failures: every node fails after an exponential time with this mean (0 = none), and is
  /// repaired after `repair_time`, again and again, from `seed`.
  Duration mtbf;
  Duration repair_time = Duration::Seconds(3600);
  uint64_t seed = 1;
};

/// Reads a fault file (YAML, docs/simulate.md §Faults):
///   failures: [{node: p5-3, at: 2h, repair: 30m}, ...]
///   random: {mtbf: 720h, repair: 1h, seed: 7}
absl::StatusOr<FaultPlan> ReadFaultFile(const std::string& path);
absl::StatusOr<FaultPlan> ReadFaultString(std::string_view yaml, std::string_view source_name);

struct SimulationProgress {
  double simulated_s = 0;
  int64_t jobs_done = 0;
  int64_t jobs = 0;
};

struct SimulationOptions {
  int buckets = 120;  ///< time-series resolution
  /// Stop at this time after the trace start (0 = when every job has finished or can never run).
  Duration horizon;
  /// How long a preempted job's running pods take to stop (Kubernetes' default termination grace
  /// period is 30 s). They keep their nodes and quota until then and the preemptor waits. 0 stops
  /// them at once; a preemption loop at one instant then stops the run as a livelock
  /// (`Livelock::at_one_instant`).
  Duration eviction_delay = Duration::Seconds(30);
  /// The no-progress window (docs/simulate.md §No progress): the run is stopped as a livelock at
  /// the first instant t at which, over (t − window, t], no job completed, saved a checkpoint or
  /// ran `window` uninterrupted, while jobs were preempted or evicted. Always on; must be > 0.
  Duration stall_window = Duration::Seconds(24 * 3600);
  /// A preempted or evicted job keeps its work up to its last checkpoint, taken every this much
  /// run time of an attempt (0 = no checkpoints: it loses everything). A trace's
  /// `checkpoint_interval` column overrides it per job.
  Duration checkpoint_interval;
  /// Pod start-up time (scheduling, image pull, init) by ResourceFlavor name: once a job's pods are
  /// placed they become ready after the longest start-up of the flavors they use, and only then does
  /// the job's run time start. Flavors not listed take `pod_startup_default`. With the cluster's
  /// `waitForPodsReady` (docs/semantics.md §1.7.2) the simulator reports readiness to the engine
  /// (`Engine::SetPodsReady`) at that instant, so a job whose pods are not ready in time, or are not
  /// placed at all, is evicted with reason PodsReadyTimeout (docs/simulate.md §Pod start-up).
  std::vector<std::pair<std::string, Duration>> pod_startup;
  Duration pod_startup_default;
  /// The metrics window (docs/simulate.md §Metrics window): figures integrated over time
  /// (utilization, resource-hours, Jain's index, unplaced hours) cover only [window_start,
  /// window_end), and job figures (counts, waits, completion times, preemptions) only the jobs
  /// submitted in it. The run itself, its time series and its event counters are unchanged.
  /// window_end 0 = the end of the run. The default covers the whole run.
  Duration window_start;
  Duration window_end;
  /// Keep one `JobOutcome` per trace job in `SimulationResult::jobs` (`qm simulate --jobs-out`).
  bool record_jobs = false;
  /// Records kept in `SimulationResult::preemption_log` (the counters are complete regardless).
  size_t preemption_log_limit = 10'000;
  /// A safety net against a policy that never settles: the cycles one `RunUntilStable` may run.
  int64_t max_cycles_per_instant = 1'000'000;
  /// Measure `Engine::Forecast` (docs/forecast.md §Accuracy): every this much virtual time, forecast
  /// every pending job with its exact remaining run time and no new arrivals, and compare with when
  /// it is actually admitted next (`SimulationResult::forecast_accuracy`). 0 = off. Decisions are
  /// unchanged: a forecast never touches the engine.
  Duration forecast_every;
  /// Called about every `progress_every` jobs done (not at all when empty).
  std::function<void(const SimulationProgress&)> progress;
  int64_t progress_every = 10'000;
};

/// Simulates `trace` on `cluster`. Errors (nothing simulated): the engine rejects an object; a job
/// names a namespace, team, queue or priority class that does not exist (`jobs.csv:14: queue:
/// LocalQueue "x" not found in namespace "team-a"`); a fault names an unknown node; a stall window
/// ≤ 0 or a negative checkpoint interval. A livelock is not an error: the result has
/// `livelock.detected` set and every figure up to the instant the run was stopped.
absl::StatusOr<SimulationResult> Simulate(const SimulationInput& cluster, const Trace& trace,
                                          const FaultPlan& faults = {},
                                          const SimulationOptions& options = {});

}  // namespace qm::sim

#endif  // QM_SIM_SIMULATOR_H_
