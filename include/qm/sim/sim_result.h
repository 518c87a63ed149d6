// What one simulation measured (docs/simulate.md §Metrics), and its text, JSON and HTML forms.
//
// Everything here is virtual-time and deterministic: the same inputs give the same result and the
// same bytes from every formatter. Amounts are in display units (`DisplayAmount`): CPU in cores,
// memory-like resources in GiB, every other resource as counted; "resource-hours" are such an
// amount held for an hour.
#ifndef QM_SIM_SIM_RESULT_H_
#define QM_SIM_SIM_RESULT_H_

#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qm::sim {

/// `amount` (base units, CPU in millicores) in display units: cores, GiB, or as counted.
double DisplayAmount(std::string_view resource, int64_t amount);
/// "cores", "GiB" or "" (counted).
const char* DisplayUnit(std::string_view resource);
/// An accelerator device of the instance catalogue, counted in "GPU-hours": `nvidia.com/gpu` and
/// `aws.amazon.com/neurondevice` (MIG slices such as `nvidia.com/mig-1g.10gb` are parts of a GPU,
/// not devices, and are left out).
bool IsAcceleratorResource(std::string_view resource);

/// A sample's figures in seconds; all 0 when `count == 0`. Percentiles are nearest-rank.
struct Percentiles {
  int64_t count = 0;
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
};

/// Resource-hours of one resource.
struct ResourceHours {
  std::string resource;
  double used = 0;          ///< running (placed) pods' requests × run time
  double borrowed = 0;      ///< quota held above the ClusterQueue's nominal × time
  double lent = 0;          ///< the queue's unused nominal quota that other queues held × time
  double goodput_lost = 0;  ///< requests × run time thrown away by preemptions and evictions
};

/// One summary row: the jobs of one ClusterQueue and one priority class; `priority_class` empty is
/// the row of the whole queue (every class).
struct GroupSummary {
  std::string cluster_queue;
  std::string team;            ///< HyperPod team (from `hyperpod-ns-T-clusterqueue`), else ""
  std::string priority_class;  ///< "" on the queue's total row; "(none)" for jobs without one
  int64_t jobs = 0;            ///< submitted
  int64_t admitted = 0;        ///< admitted at least once
  int64_t started = 0;         ///< placed on nodes at least once (completed ≤ started ≤ admitted)
  int64_t completed = 0;
  int64_t never_admitted = 0;  ///< still pending when the run ended
  int64_t preemptions = 0;     ///< times one of its jobs was preempted
  int64_t evictions = 0;       ///< times one of its jobs was evicted by a node failure
  Percentiles wait;            ///< submission → first admission (admitted jobs)
  /// Submission → first admission, and for jobs submitted but never admitted submission → the end
  /// of the run (censored); jobs whose submit time lies past the end are not counted.
  Percentiles wait_all;
  Percentiles completion;      ///< submission → finish (completed jobs)
  double unplaced_hours = 0;   ///< Σ time admitted but not placed on nodes (job-hours)
  std::vector<ResourceHours> resources;  ///< sorted by resource
  /// Wait time at the 0th, 1st, …, 100th percentile (101 values, s) for CDF charts; empty when
  /// no job of the group was admitted.
  std::vector<double> wait_quantiles;
  /// The same over `wait_all`'s jobs (never-admitted censored at the end of the run): what the
  /// report's wait CDF draws, so that starved jobs are not left out. Empty when `wait_all` is.
  std::vector<double> wait_all_quantiles;
};

/// Utilization of one (flavor, resource) over the run.
struct FlavorUtilization {
  std::string flavor;
  std::string resource;
  double capacity = 0;      ///< Σ allocatable of the flavor's nodes (0 without nodes)
  double nominal = 0;       ///< Σ nominal quota of every ClusterQueue in the flavor
  double avg_used = 0;      ///< time-average amount held by placed pods
  double avg_admitted = 0;  ///< time-average quota held by admitted workloads
  /// avg_used / capacity; without nodes avg_admitted / nominal. 0 when the divisor is 0.
  double utilization = 0;
};

/// Series over `start_s.size()` equal buckets from the first submission to the end of the run.
/// Indexing: [series][bucket]; `queues` names the series of the per-queue vectors.
struct TimeSeries {
  double bucket_seconds = 0;
  std::vector<double> start_s;           ///< bucket start, s from the trace start
  std::vector<std::string> queues;       ///< ClusterQueues, sorted by name
  std::vector<std::string> resources;    ///< resources of `used`, sorted by name
  /// used[resource][queue][bucket]: time-average amount held by the queue's placed pods.
  std::vector<std::vector<std::vector<double>>> used;
  /// capacity[resource]: Σ allocatable of the nodes that were up, time-averaged per bucket
  /// (capacity[resource][bucket]); Σ nominal quota without nodes.
  std::vector<std::vector<double>> capacity;
  std::vector<std::vector<double>> pending;      ///< [queue][bucket] time-average pending jobs
  std::vector<std::vector<double>> share;        ///< [queue][bucket] time-average weighted share
  std::vector<double> jain;                      ///< [bucket] Jain's index over queues with demand
  std::vector<std::vector<int64_t>> preemptions;  ///< [queue][bucket] preemptions of its jobs
  /// Preemptions per bucket for each (preemptor's ClusterQueue, victim's ClusterQueue) pair that
  /// preempted at least once, sorted by (preemptor, victim); evictions are not preemptions.
  struct PairSeries {
    std::string preemptor_queue;  ///< "" when the preemptor is not a job of the trace
    std::string cluster_queue;    ///< the victims'
    std::vector<int64_t> counts;  ///< [bucket]
  };
  std::vector<PairSeries> pair_preemptions;
};

/// One preemption or eviction, for the timeline.
struct PreemptionRecord {
  double time_s = 0;
  std::string workload;         ///< "namespace/name" of the victim
  std::string cluster_queue;    ///< the victim's
  std::string preemptor_queue;  ///< "" for an eviction
  std::string reason;           ///< Kueue's reason (InClusterQueue, InCohortReclamation, ...)
};

/// Preemptions and evictions of one (victim's ClusterQueue, reason, preemptor's ClusterQueue),
/// counted over the whole run (not from the capped log).
struct PreemptionCount {
  std::string cluster_queue;    ///< the victims'
  std::string reason;           ///< Kueue's reason, or the eviction's (`NodeFailures`)
  std::string preemptor_queue;  ///< "" for an eviction (or a preemptor outside the trace)
  int64_t count = 0;
};

/// Preemptions and evictions of one victim ClusterQueue for one reason, over the whole run.
struct ReasonCount {
  std::string cluster_queue;
  std::string reason;
  int64_t count = 0;
};

/// Why a run was stopped as a preemption livelock (docs/simulate.md §No progress).
struct Livelock {
  /// One (preemptor's ClusterQueue → victim's ClusterQueue) pair and its preemptions in the window;
  /// evictions count under preemptor "" (`(eviction)` in the tables).
  struct QueuePair {
    std::string preemptor_queue;
    std::string cluster_queue;
    int64_t count = 0;
  };
  /// One workload preempted or evicted in the window.
  struct Workload {
    std::string workload;       ///< "namespace/name"
    std::string cluster_queue;  ///< its ClusterQueue
    int64_t count = 0;          ///< preemptions and evictions in the window
  };
  bool detected = false;
  /// True when preemptions repeated at one instant (`eviction_delay` 0) instead of over the window.
  bool at_one_instant = false;
  double stopped_s = 0;        ///< when the run was stopped
  double stalled_since_s = 0;  ///< the last progress instant (0: none since the trace start)
  double window_s = 0;         ///< the stall window the run was checked with
  int64_t preemptions = 0;     ///< preemptions and evictions in (stopped − window, stopped]
  std::vector<QueuePair> pairs;          ///< most preemptions first, ties by names
  std::vector<Workload> workloads;       ///< most preempted first, ties by name; at most 10
  int64_t workloads_left_out = 0;        ///< preempted in the window, past the first 10
};

/// Everything one run measured.
/// What happened to one trace job (`SimulationOptions::record_jobs`, `qm simulate --jobs-out`).
/// Times are from the trace start, in µs; -1 when it did not happen.
struct JobOutcome {
  std::string namespace_;
  std::string name;
  std::string cluster_queue;
  std::string priority_class;  ///< empty when none
  int64_t submit_us = 0;
  int64_t first_admitted_us = -1;
  int64_t first_started_us = -1;  ///< first placed on nodes (its pods start then)
  int64_t end_us = -1;            ///< completed
  /// The flavors of its latest admission, `resource=flavor` joined by `;` (sorted by resource).
  std::string flavors;
  /// The nodes of its latest placement, joined by `;` in placement order (each once).
  std::string nodes;
  int32_t preemptions = 0;
  int32_t evictions = 0;  ///< node failures, pods-ready timeouts and other host evictions
  /// Run time thrown away by its preemptions and evictions (what checkpoints did not keep).
  int64_t work_lost_us = 0;
  /// At the end of the run: Completed, Running, Admitted (waiting for nodes), FitsNoNode (admitted,
  /// but a pod fits no node), Evicting, Pending, or NotSubmitted (the horizon came first).
  std::string state;
};

/// Forecast error over a set of (sample, job) pairs (`ForecastAccuracy`).
struct ForecastErrorRow {
  std::string name;  ///< the team (or ClusterQueue), or the load band
  int64_t compared = 0;
  double median_abs_error_s = 0;
  double p90_abs_error_s = 0;
  double median_wait_s = 0;          ///< of the actual waits from the sample
  double median_relative_error = 0;  ///< |forecast − actual| / actual wait from the sample
  double within_10_percent = 0;      ///< share with a relative error ≤ 0.1
};

/// How well `Engine::Forecast` predicted this run (`SimulationOptions::forecast_every`,
/// docs/forecast.md §Accuracy). At each sample instant every pending job is forecast with its exact
/// remaining run time and no new arrivals, and compared with its actual next admission.
struct ForecastAccuracy {
  double every_s = 0;
  int64_t samples = 0;
  int64_t forecasts = 0;   ///< (sample, pending job) pairs
  int64_t compared = 0;    ///< forecast to be admitted, and admitted
  int64_t missed = 0;      ///< forecast to be admitted, never admitted in the run
  int64_t unexpected = 0;  ///< forecast not to be admitted within the horizon, but admitted
  ForecastErrorRow all;
  std::vector<ForecastErrorRow> by_team;  ///< by team, then ClusterQueue name
  std::vector<ForecastErrorRow> by_load;  ///< by pending jobs at the sample, in three bands of equal size
  /// Split by whether a job submitted after the sample, into the same cohort tree, was admitted
  /// first ("overtaken by a later arrival": what a forecast without arrivals cannot see).
  std::vector<ForecastErrorRow> by_arrivals;
};

struct SimulationResult {
  std::string label;  ///< names the run in comparisons (the cluster file's name)
  int64_t jobs = 0;
  int64_t admissions = 0;  ///< readmissions included
  int64_t admitted = 0;    ///< jobs admitted at least once
  int64_t started = 0;     ///< jobs placed on nodes at least once (completed ≤ started ≤ admitted)
  int64_t completed = 0;
  int64_t never_admitted = 0;
  /// Of `never_admitted`: jobs the engine found can never be admitted as the cluster stands
  /// (pending reason ExceedsMaxQuota or NoMatchingFlavor: larger than their queue's nominal quota
  /// plus borrowing limit, or no flavor fits them), as opposed to jobs still waiting for room.
  int64_t never_admittable = 0;
  /// Jobs whose fractional extended resources the trace reader rounded up
  /// (`TraceReadOptions::round_fractional_up`); 0 otherwise.
  int64_t rounded_jobs = 0;
  /// Jobs with a pod that fits no single node of its ClusterQueue's flavors (matching its node
  /// constraints): Kueue admits them by quota, but they never run. Counted before the run.
  int64_t fit_no_node = 0;
  /// Load-time warnings, one per job shape that fits no node ("jobs.csv:14: job-14 and 3 more jobs
  /// of its shape: ..."), in trace order.
  std::vector<std::string> warnings;
  /// The metrics window in seconds (`SimulationOptions::window_start/end`); end 0 = end of run.
  double window_start_s = 0;
  double window_end_s = 0;
  /// Per trace job, in trace order (by submit time, then row); empty unless `record_jobs`.
  std::vector<JobOutcome> jobs_out;
  int64_t preemptions = 0;
  int64_t fault_evictions = 0;
  int64_t node_failures = 0;
  int64_t cycles = 0;
  int64_t instants = 0;     ///< distinct virtual instants processed
  double makespan_s = 0;    ///< trace start → last finish
  double unplaced_hours = 0;
  double avg_jain = 0;      ///< time-average of `series.jain` over buckets with demand
  /// preemptions / completed; +∞ when preemptions but no completion, 0 when neither.
  double preemptions_per_completed_job = 0;
  /// GPU-hours (accelerator devices, `IsAcceleratorResource`): requests × duration of the completed
  /// jobs, and goodput lost; their ratio (+∞ when lost but nothing completed, 0 when neither).
  double gpu_hours_completed = 0;
  double gpu_hours_lost = 0;
  double gpu_hours_lost_per_completed = 0;
  /// Checkpoints preempted or evicted jobs kept (work they did not run again).
  int64_t checkpoints_kept = 0;
  double stall_window_s = 0;  ///< the no-progress window the run was checked with
  Livelock livelock;
  std::vector<ResourceHours> totals;             ///< over every queue, sorted by resource
  std::vector<GroupSummary> groups;              ///< by queue, its total row first, then classes
  std::vector<FlavorUtilization> utilization;    ///< sorted by (flavor, resource)
  TimeSeries series;
  std::vector<PreemptionRecord> preemption_log;  ///< in time order, at most the log's limit (10,000)
  int64_t preemption_log_dropped = 0;            ///< records past the limit
  /// Every preemption and eviction, counted: by (victim queue, reason, preemptor queue), and by
  /// (victim queue, reason); sorted by those names.
  std::vector<PreemptionCount> preemption_counts;
  std::vector<ReasonCount> preemptions_by_reason;
  /// With `SimulationOptions::forecast_every` only.
  std::optional<ForecastAccuracy> forecast_accuracy;
};

/// The summary as text tables (what `qm simulate` prints).
std::string FormatSimulationText(const SimulationResult& result);
/// One JSON object (keys in docs/simulate.md), ending with a newline.
std::string FormatSimulationJson(const SimulationResult& result);
/// The per-job CSV of `qm simulate --jobs-out` (docs/simulate-output.md §Per-job CSV): a header,
/// then one row per job of every run, the run's label first.
std::string FormatJobsCsv(std::span<const SimulationResult> runs);
/// Several runs of one trace side by side (`qm simulate --compare`): one table per measure with a
/// column per run.
std::string FormatComparisonText(std::span<const SimulationResult> runs);
/// `{"runs": [...]}` with one object per run as `FormatSimulationJson`.
std::string FormatComparisonJson(std::span<const SimulationResult> runs);
/// One self-contained HTML page (inline CSS and SVG, no scripts from elsewhere, no network) with
/// the charts and tables of docs/simulate.md §Report, for one run or a comparison.
std::string RenderHtmlReport(std::span<const SimulationResult> runs);

}  // namespace qm::sim

#endif  // QM_SIM_SIM_RESULT_H_
