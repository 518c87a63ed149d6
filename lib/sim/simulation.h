// One run of the trace-driven simulator (simulator.h; model and metrics in docs/simulate.md).
// Private to lib/sim.
//
// `Simulation` is an Engine host: it submits the trace's jobs, runs cycles until settled, reads
// the event stream, places admitted pods on nodes, confirms evictions (at once, or after the
// preempted pods' grace period), evicts the workloads of failed nodes, and finishes jobs after
// their run time. Its state lives in this one class; its member functions are defined one concern
// to a file, so that a change to one concern recompiles one small unit:
//
//   simulator.cc                 `Simulate`, the clock and the order of events at one instant
//   simulation_setup.cc          the cluster's objects as dense indices and quota triples
//   simulation_jobs.cc           trace rows checked against the cluster, then submitted
//   simulation_quota.cc          the quota an admitted job holds, until it is requeued or done
//   simulation_pods.cc           pods placed on nodes, started, stopped and finished
//   simulation_interruptions.cc  preemptions and evictions: work kept and lost, their counts
//   simulation_faults.cc         node failures and repairs
//   simulation_livelock.cc       the no-progress detector and the livelock diagnosis
//   simulation_metrics.cc        integrals between instants, the time-series layout, capacity
//   simulation_result.cc         the `SimulationResult`, assembled once at the end
#ifndef QM_LIB_SIM_SIMULATION_H_
#define QM_LIB_SIM_SIMULATION_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/adapter/engine.h"
#include "qm/sim/event_queue.h"
#include "qm/sim/placement.h"
#include "qm/sim/simulator.h"
#include "sim/portable_random.h"
#include "sim/ring.h"
#include "sim/time_buckets.h"

namespace qm::sim::internal {

// Virtual time 0 of a run: any fixed instant works; this one keeps timestamps readable.
constexpr Time kEpoch = Time::FromUnixSeconds(1'700'000'000);
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr int64_t kNever = std::numeric_limits<int64_t>::min() / 2;  // before any instant

enum class Phase : uint8_t { kPending, kAdmitted, kRunning, kEvicting, kDone };

struct Job {
  WorkloadHandle handle;
  uint32_t group = 0;
  uint32_t queue = 0;
  uint32_t holding = kNone;  // slot in `holdings_` while the job holds quota
  uint32_t generation = 0;   // a finish event of an earlier run is stale
  // Neighbours in the list of running jobs (phase kRunning), oldest start first.
  uint32_t run_prev = kNone;
  uint32_t run_next = kNone;
  Phase phase = Phase::kPending;
  bool submitted = false;
  bool started = false;  // placed on nodes at least once
  bool counted = true;   // submitted in the metrics window: its figures count
  int64_t first_admitted_us = -1;
  int64_t saved_us = 0;  // run time kept by checkpoints of earlier attempts (< duration)
  int64_t interrupted_us = kNever;  // its last preemption or eviction
};

// What a job holds while admitted: quota, and, once placed, pods on nodes.
struct Holding {
  std::vector<std::pair<uint32_t, int64_t>> quota;  // (triple, amount)
  std::vector<PodSetDemand> demand;
  // Per pod set: (sim resource, flavor index in the result's flavor list, per-pod amount).
  std::vector<std::vector<std::pair<uint32_t, int64_t>>> pod_amounts;  // (fr index, per-pod amount)
  Placement placement;
  bool placed = false;
  int64_t admitted_us = 0;
  int64_t start_us = 0;
  int64_t startup_us = 0;  // pod start-up of this attempt: its run time starts at start_us + startup_us
  int64_t saved_us = 0;  // run time of this attempt kept by its checkpoints (set when it ends)
  uint64_t failed_epoch = std::numeric_limits<uint64_t>::max();  // capacity epoch of the last miss
};

// One (ClusterQueue, flavor, resource) with a nominal quota.
struct Triple {
  uint32_t queue = 0;
  uint32_t fr = 0;    // (flavor, resource) index
  uint32_t pool = 0;  // (root cohort, flavor, resource) index
  uint32_t resource = 0;
  int64_t nominal = 0;
  int64_t held = 0;
};

struct Pool {
  int64_t borrowed = 0;  // Σ max(0, held − nominal) over its triples
  int64_t idle = 0;      // Σ max(0, nominal − held)
};

struct QueueInfo {
  std::string name;
  std::string team;
  uint32_t root = 0;  // its cohort tree (queues of one tree share it)
  double weight = 1;
  int64_t pending = 0;
  std::vector<int64_t> held;    // [resource] Σ over flavors
  std::vector<int64_t> placed;  // [resource]
  std::vector<double> borrowed_us;  // [resource] ∫ borrowed dt
  std::vector<double> lent_us;      // [resource] ∫ lent dt
};

struct GroupAcc {
  uint32_t queue = 0;
  std::string priority_class;
  int64_t jobs = 0;
  int64_t admitted = 0;
  int64_t started = 0;
  int64_t completed = 0;
  int64_t preemptions = 0;
  int64_t evictions = 0;
  int64_t unplaced_us = 0;
  std::vector<int64_t> waits_us;
  std::vector<int64_t> waits_all_us;  // filled at the end: admitted jobs' waits and censored ones
  std::vector<int64_t> completions_us;
  std::vector<double> used_us;      // [resource] ∫ placed amount dt
  std::vector<double> goodput_lost_us;  // [resource]
};

struct NodeEvent {
  int32_t node = 0;
  bool fail = true;
  bool random = false;
};

struct FinishEvent {
  uint32_t job = 0;
  uint32_t generation = 0;
};

// A running job's first checkpoint (the detector's heap; stale once the attempt ended).
struct FirstSave {
  int64_t at_us = 0;
  uint32_t job = 0;
  uint32_t generation = 0;
};

// A preemption or eviction, kept for the window the detector looks back over.
struct Interruption {
  int64_t at_us = 0;
  uint32_t job = 0;
  uint32_t by = kNone;  // the preemptor's queue; kNone for an eviction
};

// Resolved (namespace, LocalQueue) of a trace row.
struct Target {
  std::string namespace_;
  std::string local_queue;
  uint32_t queue = 0;
};

// One simulation of `trace` on `cluster`: `Run` once, then discard. Holds references to its
// inputs, which must outlive it.
class Simulation {
 public:
  Simulation(const SimulationInput& cluster, const Trace& trace, const FaultPlan& faults,
             const SimulationOptions& options)
      : cluster_(cluster), trace_(trace), faults_(faults), options_(options) {}

  absl::StatusOr<SimulationResult> Run();

 private:
  // ---- simulator.cc: the clock and the order of events at one instant ---------------------------
  absl::Status Loop();
  absl::Status Settle();
  uint32_t JobOf(WorkloadHandle h) const;
  absl::Status HandleEvents(std::span<const Event> events);
  bool HasPending() const;

  // ---- simulation_setup.cc: the cluster's objects as indices ------------------------------------
  absl::Status Setup();
  uint32_t ResourceIndex(std::string_view name);
  void CollectObjects();
  static uint64_t TripleKey(uint32_t queue, uint32_t flavor, uint32_t resource) {
    return (static_cast<uint64_t>(queue) << 40) | (static_cast<uint64_t>(flavor) << 20) | resource;
  }
  uint32_t FrIndex(uint32_t flavor, uint32_t resource);

  // ---- simulation_jobs.cc: the trace's jobs, checked, then submitted ----------------------------
  absl::Status RowError(const TraceJob& job, std::string_view column, std::string_view message) const;
  absl::Status ResolveJobs();
  absl::StatusOr<Target> Resolve(const TraceJob& tj) const;
  absl::Status ResolveClass(const TraceJob& tj);
  absl::Status SubmitJob(uint32_t index);

  // ---- simulation_fit.cc: jobs whose pods fit no node -----------------------------------------
  void CheckNodeFit();
  std::string NoNodeFits(const TraceJob& tj, uint32_t queue, const std::vector<std::vector<int32_t>>& node_flavors) const;

  // ---- simulation_quota.cc: what an admitted job holds ------------------------------------------
  void Admitted(uint32_t j, const Event& e);
  uint32_t FlavorOfResource(const AdmittedPodSet& aps, uint32_t res);
  uint32_t ResourceOfEngine(ResourceId id);
  uint32_t FlavorOfEngine(FlavorId id);
  void ChangeHeld(uint32_t triple, int64_t delta);
  uint32_t NewHolding();
  void ReleaseQuota(uint32_t j);
  void Requeued(uint32_t j, bool pending);

  // ---- simulation_pods.cc: pods on nodes, from placement to finish ------------------------------
  void PlaceWaiting();
  void Start(uint32_t j);
  template <class F>
  void ForEachPlacedAmount(const Holding& h, F&& fn) const;  // used in simulation_pods.cc only
  void StopPods(uint32_t j, bool lost);
  absl::Status FinishJob(const FinishEvent& f);

  // ---- simulation_interruptions.cc: preemptions and evictions -----------------------------------
  void Stopped(uint32_t j, const Event& e);
  absl::Status ConfirmStopped(const FinishEvent& f);
  absl::Status StopAndConfirm(uint32_t j);
  int64_t CheckpointIntervalUs(uint32_t j) const;
  void EndAttempt(uint32_t j);
  void CountInterruption(uint32_t j, uint32_t by, const char* reason);
  uint32_t ReasonId(const char* reason);

  // ---- simulation_faults.cc: node failures and repairs ------------------------------------------
  absl::Status PlanFaults();
  int32_t FindNode(std::string_view name) const;
  void ScheduleRandomFailure(int32_t node, int64_t from_us);
  absl::Status FailNode(const NodeEvent& e);
  absl::Status RepairNode(int32_t node);

  // ---- simulation_livelock.cc: the no-progress detector -----------------------------------------
  bool StalledAt(int64_t t);
  void PopFirstSave();
  void LinkRunning(uint32_t j);
  void UnlinkRunning(uint32_t j);
  void WatchFirstCheckpoint(uint32_t j, int64_t remaining);
  std::string WorkloadName(uint32_t j) const;
  void DeclareLivelock(bool at_one_instant);

  // ---- simulation_forecast.cc: forecast accuracy (SimulationOptions::forecast_every) -------------
  absl::Status SampleForecast();
  void FillForecastAccuracy(SimulationResult& r) const;
  bool OvertakenByLaterArrival(uint32_t job, int64_t at_us, int64_t admitted_us) const;

  // ---- simulation_metrics.cc: figures integrated over time --------------------------------------
  void BuildSeries();
  void ChangeNodeCapacity(int32_t node, int sign);
  void Advance(int64_t t);

  // The part of [from, to) inside the metrics window, in µs (to − from without a window).
  int64_t InWindow(int64_t from, int64_t to) const {
    const int64_t end = options_.window_end.us > 0 ? options_.window_end.us : std::numeric_limits<int64_t>::max();
    return std::max<int64_t>(0, std::min(to, end) - std::max(from, options_.window_start.us));
  }

  // ---- simulation_result.cc: the result ---------------------------------------------------------
  double Factor(uint32_t res) const;
  SimulationResult Result();
  void FillPreemptionCounts(SimulationResult& r) const;
  void FillSeries(SimulationResult& r, const std::vector<uint32_t>& queue_order);

  // A queue's name for the preemption log, the counters and the livelock diagnosis; "" for kNone
  // (an eviction has no preemptor).
  std::string QueueName(uint32_t q) const { return q == kNone ? std::string() : queues_[q].name; }

  const SimulationInput& cluster_;
  const Trace& trace_;
  const FaultPlan& faults_;
  const SimulationOptions& options_;

  Engine engine_;
  std::optional<NodePool> pool_;
  std::vector<ResourceFlavorSpec> flavor_specs_;

  // Names and indices.
  std::vector<std::string> resources_;
  absl::flat_hash_map<std::string, uint32_t> resource_index_;
  size_t quota_resources_ = 0;  // resources [0, quota_resources_) appear in some quota
  std::vector<std::string> flavors_;
  absl::flat_hash_map<std::string, uint32_t> flavor_index_;
  std::vector<QueueInfo> queues_;
  absl::flat_hash_map<std::string, uint32_t> queue_index_;
  absl::flat_hash_map<std::string, std::string> local_queues_;  // "ns/name" → ClusterQueue
  absl::flat_hash_map<std::string, std::vector<std::string>> queues_of_namespace_;
  absl::flat_hash_map<std::string, bool> workload_classes_;
  absl::flat_hash_map<std::string, bool> pod_classes_;
  std::vector<PriorityClassRef> class_ref_;    // [trace string id]
  std::vector<uint32_t> resource_of_string_;   // [trace string id] → resource
  std::vector<uint32_t> engine_resource_;      // [engine ResourceId] → resource
  std::vector<uint32_t> engine_flavor_;        // [engine FlavorId] → flavor

  // Quota accounting.
  std::vector<Triple> triples_;
  absl::flat_hash_map<uint64_t, uint32_t> triple_index_;
  std::vector<Pool> pools_;
  std::vector<std::pair<uint32_t, uint32_t>> frs_;  // (flavor, resource)
  absl::flat_hash_map<uint64_t, uint32_t> fr_index_;
  std::vector<int64_t> fr_nominal_;
  std::vector<double> fr_admitted_us_;
  std::vector<double> fr_used_us_;
  std::vector<int64_t> fr_capacity_;
  std::vector<double> fr_capacity_us_;
  std::vector<int64_t> capacity_;       // [resource] Σ allocatable of up nodes
  std::vector<int64_t> total_nominal_;  // [resource]

  // Jobs.
  std::vector<Job> jobs_;
  std::vector<Target> targets_;
  std::vector<uint32_t> job_target_;
  std::vector<GroupAcc> groups_;
  std::vector<uint32_t> job_of_slot_;  // [engine workload slot] → job
  std::vector<Holding> holdings_;
  std::vector<uint32_t> free_holdings_;
  std::vector<uint32_t> waiting_;      // admitted, not placed, in admission order
  std::vector<uint32_t> to_confirm_;
  std::vector<std::vector<uint32_t>> jobs_on_node_;
  std::vector<bool> node_up_;
  std::vector<bool> accelerator_;  // [resource] counted in GPU-hours
  uint64_t capacity_epoch_ = 0;
  int64_t nodes_down_ = 0;
  WorkloadSpec spec_;  // reused for every submission
  int64_t fit_no_node_ = 0;             // jobs with a pod set whose pod fits no node (never run)
  std::vector<bool> fits_no_node_;      // [job], filled with nodes only
  std::vector<JobOutcome> outcomes_;    // [job] with `record_jobs`, else empty
  std::vector<std::string> warnings_;   // load-time warnings, one per job shape

  // Time.
  int64_t now_ = 0;
  size_t next_submit_ = 0;
  EventQueue<FinishEvent> finishes_;
  EventQueue<FinishEvent> confirms_;  // preempted jobs whose pods stop at the end of their grace period
  EventQueue<FinishEvent> readies_;   // placed jobs whose pods finish starting (pod start-up)
  std::vector<int64_t> startup_of_flavor_;  // pod start-up (µs) by flavor index
  bool report_ready_ = false;  // waitForPodsReady: tell the engine when pods are ready
  EventQueue<NodeEvent> node_events_;
  std::vector<SplitMix64> rngs_;

  // Figures.
  std::optional<internal::TimeBuckets> buckets_;
  int s_used_ = 0, s_capacity_ = 0, s_pending_ = 0, s_share_ = 0, s_preempt_ = 0, s_jain_ = 0;
  double demand_us_ = 0;
  double jain_us_ = 0;
  int64_t admissions_ = 0;
  int64_t completed_ = 0;
  int64_t preemptions_ = 0;
  int64_t fault_evictions_ = 0;
  int64_t node_failures_ = 0;
  int64_t cycles_ = 0;
  int64_t instants_ = 0;
  int64_t last_finish_us_ = 0;
  int64_t started_ = 0;
  int64_t completed_counted_ = 0;  // completions of jobs submitted in the metrics window
  int64_t checkpoints_kept_ = 0;
  double completed_gpu_us_ = 0;
  std::vector<PreemptionRecord> preemption_log_;
  int64_t preemption_log_dropped_ = 0;
  // Complete counters: (victim queue, reason, preemptor queue or kNone) → preemptions; for lookup
  // only, sorted by name when the result is built.
  absl::flat_hash_map<std::tuple<uint32_t, uint32_t, uint32_t>, int64_t> preemption_counts_;
  std::vector<std::string> reasons_;  // reason ids, in first-seen order
  // (preemptor queue, victim queue) → its series in `buckets_`; `pairs_` in creation order.
  absl::flat_hash_map<std::pair<uint32_t, uint32_t>, int> pair_series_;
  std::vector<std::pair<uint32_t, uint32_t>> pairs_;

  // The no-progress detector (StalledAt).
  int64_t window_us_ = 0;
  int64_t progress_us_ = 0;  // the last progress instant (the trace start counts as one)
  // The latest first-of-two interruptions of one job (condition 4 holds while it is in the window).
  int64_t repeated_since_us_ = kNever;
  uint32_t running_head_ = kNone;  // running jobs, oldest start first
  uint32_t running_tail_ = kNone;
  std::vector<FirstSave> first_saves_;  // heap; entries of ended attempts are dropped lazily
  Ring<Interruption> recent_;           // preemptions and evictions of the last window
  bool instant_loop_ = false;

  // Forecast accuracy (simulation_forecast.cc).
  struct ForecastSample {
    uint32_t job = 0;
    int64_t at_us = 0;
    int64_t predicted_us = -1;  // -1: not within the forecast's horizon
    int64_t load = 0;           // pending jobs at the sample
  };
  int64_t next_forecast_us_ = 0;
  int64_t forecast_samples_ = 0;
  std::vector<ForecastSample> forecasts_;
  std::vector<std::pair<uint32_t, int64_t>> admission_log_;  // (job, time) of every admission
  Livelock livelock_;
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_SIMULATION_H_
