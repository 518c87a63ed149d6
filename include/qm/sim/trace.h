// Workload traces for the simulator (docs/trace-format.md): one job per CSV row, read and written
// here, generated synthetically by `GenerateTrace`, or converted from a Kueue performance generator
// configuration (perf_config.h).
//
//   QM_ASSIGN_OR_RETURN(qm::sim::Trace trace, qm::sim::ReadTraceFile("jobs.csv"));
//   for (const qm::sim::TraceJob& job : trace.jobs) {            // sorted by (submit, row)
//     std::string_view ns = trace.str(job.namespace_);
//     for (const qm::sim::TracePodSet& ps : trace.PodSetsOf(job)) { ... }
//   }
//
// A CSV trace has a header naming its columns (any order; unknown columns are an error):
//   submit        required  when the job is submitted, from the trace start: `90`, `1.5s`, `2h30m`
//   namespace     one of    the job's namespace
//   team                    a HyperPod team: namespace `hyperpod-ns-<team>`
//   queue         optional  the LocalQueue (empty: the namespace's only LocalQueue, or HyperPod's)
//   priority_class optional a WorkloadPriorityClass name
//   priority      optional  the Workload's spec.priority (an integer; overrides the class's value)
//   pod_sets      required  `8x{nvidia.com/gpu=1;cpu=4;memory=32Gi}`, several joined by `+`, each
//                           optionally named: `launcher:1x{cpu=1}+worker:8x{nvidia.com/gpu=1}`
//   min_count     optional  partial admission, one entry per pod set joined by `+` (empty: none)
//   duration      required  run time once started, same syntax as `submit` (> 0)
//   name          optional  the Workload's name (empty: `job-<row>`); unique per namespace
//   checkpoint_interval optional  run time between the job's checkpoints (empty: the simulator's
//                           default; 0: none), same syntax as `submit`
//   pod_startup   optional  the job's pod start-up time, same syntax as `submit`
//   node_selector, node_affinity, tolerations   optional  node constraints of every pod set of the
//                           job (docs/trace-format.md §Node constraints)
// Errors name the file, line and column: `jobs.csv:14: duration: "-3s" must be positive`.
#ifndef QM_SIM_TRACE_H_
#define QM_SIM_TRACE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "qm/core/time.h"
#include "qm/model/selectors.h"
#include "qm/sim/perf_config.h"

namespace qm::sim {

/// A trace is stored compactly (10⁶ jobs must fit in well under 100 MB): strings that repeat
/// (namespaces, teams, queues, classes, pod-set and resource names) are interned once in
/// `Trace::strings` (id 0 is ""), pod sets and requests live in flat arrays, and job names in one
/// character blob.
using StringId = uint32_t;

/// One per-pod request of a pod set.
struct TraceRequest {
  StringId resource = 0;
  int64_t amount = 0;  ///< base units (CPU in millicores)
};

/// One pod set of a job: `count` identical pods with the requests
/// `requests[first_request, first_request + request_count)`, sorted by resource name. Jobs and pod
/// sets with identical contents share one range of `Trace::pod_sets` / `Trace::requests` (that
/// keeps a 10⁶-job trace near 80 bytes per job); treat the arrays as read-only.
struct TracePodSet {
  StringId name = 0;       ///< "main" for an unnamed single pod set, else `ps<i>` (i from 0) when unnamed
  int32_t count = 1;
  int32_t min_count = 0;   ///< 0: no partial admission
  uint32_t first_request = 0;
  uint32_t request_count = 0;
};

/// Node constraints a job puts on every pod of every pod set (Kubernetes' nodeSelector, required
/// node affinity and tolerations): the engine's flavor assignment and the simulator's placement
/// honour them.
struct TraceNodeConstraints {
  Labels node_selector;                     ///< sorted by key
  std::vector<NodeSelectorTerm> node_affinity;  ///< ORed terms; empty: none
  std::vector<Toleration> tolerations;
};

/// One job of a trace.
struct TraceJob {
  Duration submit;          ///< from the trace start (≥ 0)
  Duration duration;        ///< > 0
  StringId namespace_ = 0;  ///< set when the trace names namespaces
  StringId team = 0;        ///< set when the trace names HyperPod teams
  StringId queue = 0;       ///< 0: resolved by the simulator
  StringId priority_class = 0;
  std::optional<int32_t> priority;  ///< the Workload's spec.priority when the trace sets one
  uint32_t first_pod_set = 0;
  uint32_t pod_set_count = 0;
  uint32_t name_offset = 0;  ///< into `Trace::names`; size 0: named `job-<row>`
  uint32_t name_size = 0;
  int64_t row = 0;           ///< 1-based data row in the file (generation order when generated)
  int64_t line = 0;          ///< the CSV line it came from (0 when generated)
};

class Trace {
 public:
  std::string source;  ///< file name, for errors ("jobs.csv")
  std::vector<TraceJob> jobs;  ///< sorted by (submit, row) once `Finish()` ran
  std::vector<TracePodSet> pod_sets;
  std::vector<TraceRequest> requests;
  std::vector<std::string> strings;  ///< interned; strings[0] == ""
  std::string names;                 ///< explicit job names, concatenated
  /// The `checkpoint_interval` column, indexed by `row − 1`: negative = not given (the simulator's
  /// default applies), 0 = the job saves no checkpoints, else the run time between checkpoints.
  /// Empty when no row gives one (no memory for traces without the column).
  std::vector<Duration> checkpoint_intervals;
  /// The `pod_startup` column, indexed by `row − 1`: negative = not given (the simulator's per-flavor
  /// start-up applies), else the job's pod start-up time. Empty when no row gives one.
  std::vector<Duration> pod_startups;
  /// The node-constraint columns: distinct constraint sets (index 0: none), and per job, indexed
  /// by `row − 1`, its set. Both empty when no row gives a constraint.
  std::vector<TraceNodeConstraints> node_constraints;
  std::vector<uint32_t> job_node_constraints;
  /// Jobs with a fractional amount of an extended resource (`nvidia.com/gpu=0.5`) that the reader
  /// rounded up, as `TraceReadOptions::round_fractional_up` allows.
  int64_t rounded_jobs = 0;

  Trace();
  /// The id of `s`, adding it when new.
  StringId Intern(std::string_view s);
  std::string_view str(StringId id) const { return strings[id]; }
  /// The job's name: its explicit name, else `job-<row>`.
  std::string JobName(const TraceJob& job) const;
  std::span<const TracePodSet> PodSetsOf(const TraceJob& job) const {
    return {pod_sets.data() + job.first_pod_set, job.pod_set_count};
  }
  std::span<const TraceRequest> RequestsOf(const TracePodSet& ps) const {
    return {requests.data() + ps.first_request, ps.request_count};
  }
  /// The job's checkpoint interval, or `fallback` when the trace does not give one.
  Duration CheckpointIntervalOf(const TraceJob& job, Duration fallback) const {
    const size_t i = static_cast<size_t>(job.row - 1);
    if (i >= checkpoint_intervals.size() || checkpoint_intervals[i].us < 0) return fallback;
    return checkpoint_intervals[i];
  }
  /// The job's pod start-up time, or nullopt when the trace does not give one.
  std::optional<Duration> PodStartupOf(const TraceJob& job) const {
    const size_t i = static_cast<size_t>(job.row - 1);
    if (i >= pod_startups.size() || pod_startups[i].us < 0) return std::nullopt;
    return pod_startups[i];
  }
  /// The job's node constraints, or nullptr when it has none.
  const TraceNodeConstraints* NodeConstraintsOf(const TraceJob& job) const {
    const size_t i = static_cast<size_t>(job.row - 1);
    if (i >= job_node_constraints.size() || job_node_constraints[i] == 0) return nullptr;
    return &node_constraints[job_node_constraints[i]];
  }
  /// Sorts `jobs` by (submit, row) (stable for equal keys).
  void Finish();

 private:
  absl::flat_hash_map<std::string, StringId> index_;
};

/// Limits that keep huge values from hanging a run or overflowing the compact arrays.
inline constexpr Duration kMaxTraceTime = Duration::Seconds(int64_t{36500} * 86400);  ///< 100 years
inline constexpr int32_t kMaxTracePodCount = 1'000'000;  ///< pods per pod set
inline constexpr size_t kMaxTracePodSets = 18;           ///< pod sets per job (Kueue's MaxItems)
inline constexpr size_t kMaxTraceRequests = 64;          ///< resources per pod set
inline constexpr int64_t kMaxTraceJobs = 100'000'000;    ///< jobs per trace
inline constexpr size_t kMaxTraceValueSize = 4096;       ///< bytes per CSV value

/// Parses a trace time: a plain number of seconds (`90`, `1.5`), or numbers with units from
/// largest to smallest, each at most once: `d`, `h`, `m`, `s`, `ms` (`1h30m`, `2.5h`, `250ms`).
/// Exact to the microsecond (no floating point); a finer amount, a negative value or one above
/// `kMaxTraceTime` is an InvalidArgument error whose message starts with the quoted text.
absl::StatusOr<Duration> ParseTraceTime(std::string_view text);
/// A duration as the simulator's options and fault files take it: the trace's time syntax above
/// (`90`, `2.5h`, `1d12h`) or a Go duration (`720h`, `1h30m`, `500ms`), whichever reads the text
/// (the two agree wherever both do). A Go duration may be negative: callers check the sign. The
/// error is `ParseTraceTime`'s.
absl::StatusOr<Duration> ParseDurationText(std::string_view text);
/// The canonical text of a time ≥ 0: seconds with the fraction only as long as needed (`90`,
/// `1.5`, `0.000001`); `ParseTraceTime` reads it back exactly.
std::string FormatTraceTime(Duration d);

/// How a CSV trace is read.
struct TraceReadOptions {
  /// Kubernetes takes only whole quantities of extended resources (`nvidia.com/gpu`), so a
  /// fractional one is an error; with this set it is rounded up instead and the job counted in
  /// `Trace::rounded_jobs` (`--round-fractional up`).
  bool round_fractional_up = false;
};

/// Reads a CSV trace. InvalidArgument with `file:line: column: message` on bad content, NotFound
/// when the file cannot be read. Limits: the `kMaxTrace*` constants above.
absl::StatusOr<Trace> ReadTraceFile(const std::string& path, const TraceReadOptions& options = {});
absl::StatusOr<Trace> ReadTraceString(std::string_view csv, std::string_view source_name,
                                      const TraceReadOptions& options = {});
/// Reads a trace file, or a Kueue performance generator configuration (detected by content: a YAML
/// document with `workloadsSets`/`queuesSets`) converted by `TraceFromPerfConfig`.
absl::StatusOr<Trace> ReadTraceOrPerfConfigFile(const std::string& path, const TraceReadOptions& options = {});

/// The CSV text of `trace` (every column, header first); `ReadTraceString` reads it back equal.
std::string WriteTrace(const Trace& trace);

/// The workloads a Kueue performance generator configuration creates, as a trace (namespaces and
/// queue names as perf_replay.h creates them; one pod set `main` of one pod; the template's
/// requests and runtime).
Trace TraceFromPerfConfig(const PerfConfig& config);

/// Knobs of the synthetic trace generator (`qm trace generate`).
struct TraceGeneratorOptions {
  uint64_t seed = 1;
  int64_t jobs = 1000;
  std::vector<std::string> teams = {"team-a", "team-b"};  ///< written as the `team` column
  /// Team weights of the arrival mix (empty: equal).
  std::vector<double> team_weights;
  double arrivals_per_hour = 60;  ///< mean, before the diurnal factor
  /// Diurnal pattern: the rate is multiplied by 1 + amplitude·sin(2π·(t − 6h)/24h) (0 = flat).
  double diurnal_amplitude = 0.5;
  /// Job size in GPUs per job: a bounded power law (Pareto tail) over powers of two 1…max_gpus.
  int32_t max_gpus = 64;
  double size_alpha = 1.5;
  int32_t gpus_per_pod = 8;       ///< jobs larger than this are split into pods of this size
  int64_t cpu_milli_per_gpu = 4000;
  int64_t memory_bytes_per_gpu = 32LL << 30;
  std::string gpu_resource = "nvidia.com/gpu";
  /// Duration: log-normal with this median and sigma, clamped to [min, max].
  Duration median_duration = Duration::Seconds(1800);
  double duration_sigma = 1.5;
  Duration min_duration = Duration::Seconds(60);
  Duration max_duration = Duration::Seconds(7 * 24 * 3600);
  /// Priority class names and their probabilities (empty: no priority class).
  std::vector<std::pair<std::string, double>> priority_mix;
};

/// A synthetic trace; the same options give the same trace, byte for byte, on every platform (the
/// generator uses its own PRNG and distributions, not <random>'s implementation-defined ones).
absl::StatusOr<Trace> GenerateTrace(const TraceGeneratorOptions& options);

}  // namespace qm::sim

#endif  // QM_SIM_TRACE_H_
