// `qm simulate CLUSTER --trace TRACE`: a trace-driven cluster simulation (docs/simulate.md).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_split.h"
#include "args.h"
#include "command.h"
#include "fmt/format.h"
#include "qm/sim/sim_result.h"
#include "qm/sim/simulator.h"
#include "qm/sim/trace.h"

namespace qm::cli {
namespace {

constexpr OptionSpec kSimulateOptions[] = {{"trace", true},         {"faults", true},         {"output", true},
                                   {"report", true},        {"compare", false},       {"buckets", true},
                                   {"horizon", true},       {"eviction-delay", true}, {"stall-window", true},
                                   {"checkpoint-interval", true}, {"pod-startup", true}, {"quiet", false},
                                   {"round-fractional", true}, {"jobs-out", true}, {"window", true},
                                   {"warmup", true},        {"forecast-every", true}};

// Exit status of a run stopped as a livelock (any run, with --compare); its output is complete.
constexpr int kLivelockStatus = 3;

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A progress line on a terminal's stderr, redrawn at most five times a second, only once the run
// has taken more than a second.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled), start_(Clock::now()) {}
  void Update(const std::string& label, const sim::SimulationProgress& p) {
    if (!enabled_) return;
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0 || now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double days = p.simulated_s / 86400.0;
    std::fprintf(stderr, "\r%s: simulated %.1f days, %lld/%lld jobs done, %.0f jobs/s   ", label.c_str(), days,
                 static_cast<long long>(p.jobs_done), static_cast<long long>(p.jobs),
                 static_cast<double>(p.jobs_done) / elapsed);
    drawn_ = true;
  }
  void Done() {
    if (drawn_) std::fprintf(stderr, "\r\033[K");
    drawn_ = false;
    start_ = Clock::now();
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_{};
};

// Reads `--name` as a duration (the trace's time syntax or a Go duration; sim::ParseDurationText)
// into `out`. False when the option is given but is not a duration of at least `min_us` µs.
bool DurationOption(const Args& args, std::string_view name, int64_t min_us, Duration* out) {
  const std::optional<std::string> text = args.Value(name);
  if (!text) return true;
  absl::StatusOr<Duration> d = sim::ParseDurationText(*text);
  if (!d.ok() || d->us < min_us) return false;
  *out = *d;
  return true;
}

// Reads `--window START..END` (END may be empty: the end of the run) and `--warmup START`, its
// short form, into `options`. False on a malformed or empty window.
bool WindowOption(const Args& args, sim::SimulationOptions* options) {
  const std::optional<std::string> window = args.Value("window"), warmup = args.Value("warmup");
  if (window && warmup) return false;
  if (warmup) {
    absl::StatusOr<Duration> d = sim::ParseDurationText(*warmup);
    if (!d.ok() || d->us < 0) return false;
    options->window_start = *d;
    return true;
  }
  if (!window) return true;
  const size_t dots = window->find("..");
  if (dots == std::string::npos) return false;
  absl::StatusOr<Duration> start = sim::ParseDurationText(window->substr(0, dots));
  if (!start.ok() || start->us < 0) return false;
  options->window_start = *start;
  const std::string end_text = window->substr(dots + 2);
  if (end_text.empty()) return true;
  absl::StatusOr<Duration> end = sim::ParseDurationText(end_text);
  if (!end.ok() || end->us <= start->us) return false;
  options->window_end = *end;
  return true;
}

// Reads `--pod-startup` ("90s" for every flavor, "a100=5m,cpu=30s" per flavor, or both) into
// `options`. False on a malformed entry or a negative duration.
bool PodStartupOption(const Args& args, sim::SimulationOptions* options) {
  const std::optional<std::string> text = args.Value("pod-startup");
  if (!text) return true;
  size_t begin = 0;
  while (begin <= text->size()) {
    size_t end = text->find(',', begin);
    if (end == std::string::npos) end = text->size();
    const std::string entry = text->substr(begin, end - begin);
    const size_t eq = entry.find('=');
    absl::StatusOr<Duration> d = sim::ParseDurationText(eq == std::string::npos ? entry : entry.substr(eq + 1));
    if (!d.ok() || d->us < 0 || eq == 0) return false;
    if (eq == std::string::npos) {
      options->pod_startup_default = *d;
    } else {
      options->pod_startup.emplace_back(entry.substr(0, eq), *d);
    }
    begin = end + 1;
  }
  return true;
}

int RunSimulate(std::span<const std::string> argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, kSimulateOptions);
  if (!args.ok()) return UsageError(kSimulateCommand, std::string(args.status().message()));
  if (args->help) {
    std::cout << kSimulateCommand.help;
    return 0;
  }
  const bool compare = args->Flag("compare");
  if (args->positional.empty()) return UsageError(kSimulateCommand, "expected a cluster file");
  if (!compare && args->positional.size() != 1) {
    return UsageError(kSimulateCommand, "expected one cluster file (use --compare to simulate several)");
  }
  if (compare && args->positional.size() < 2) return UsageError(kSimulateCommand, "--compare needs two or more cluster files");
  const std::optional<std::string> trace_path = args->Value("trace");
  if (!trace_path) return UsageError(kSimulateCommand, "--trace FILE is required");
  const std::string output = args->Value("output").value_or("text");
  if (output != "text" && output != "json") return UsageError(kSimulateCommand, "--output must be text or json");

  sim::SimulationOptions options;
  const std::optional<std::string> jobs_out = args->Value("jobs-out");
  options.record_jobs = jobs_out.has_value();
  if (auto b = args->Value("buckets")) {
    char* end = nullptr;
    const long v = std::strtol(b->c_str(), &end, 10);
    if (end == b->c_str() || *end != '\0' || v < 1 || v > 10000) {
      return UsageError(kSimulateCommand, "--buckets must be an integer from 1 to 10000");
    }
    options.buckets = static_cast<int>(v);
  }
  if (!DurationOption(*args, "horizon", 1, &options.horizon)) {
    return UsageError(kSimulateCommand, fmt::format("--horizon \"{}\" is not a positive duration (e.g. 720h, 30d, 1d12h)",
                                                    *args->Value("horizon")));
  }
  if (!DurationOption(*args, "eviction-delay", 0, &options.eviction_delay)) {
    return UsageError(kSimulateCommand, fmt::format("--eviction-delay \"{}\" is not a duration >= 0 (e.g. 30s, 0)",
                                                    *args->Value("eviction-delay")));
  }
  if (!DurationOption(*args, "stall-window", 1, &options.stall_window)) {
    return UsageError(kSimulateCommand, fmt::format("--stall-window \"{}\" is not a positive duration (e.g. 24h, 2d)",
                                                    *args->Value("stall-window")));
  }
  if (!DurationOption(*args, "checkpoint-interval", 0, &options.checkpoint_interval)) {
    return UsageError(kSimulateCommand,
                      fmt::format("--checkpoint-interval \"{}\" is not a duration >= 0 (e.g. 1h, 30m; 0 = none)",
                                  *args->Value("checkpoint-interval")));
  }

  if (!DurationOption(*args, "forecast-every", 1, &options.forecast_every)) {
    return UsageError(kSimulateCommand, fmt::format("--forecast-every \"{}\" is not a positive duration (e.g. 6h)",
                                                    *args->Value("forecast-every")));
  }

  if (!WindowOption(*args, &options)) {
    return UsageError(kSimulateCommand, "--window is START..END (END > START, or empty: the end of the run), "
                                        "--warmup is a duration >= 0, and only one of them may be given");
  }
  if (!PodStartupOption(*args, &options)) {
    return UsageError(kSimulateCommand,
                      fmt::format("--pod-startup \"{}\" is not DURATION or FLAVOR=DURATION[,...] with durations >= 0",
                                  *args->Value("pod-startup")));
  }

  sim::TraceReadOptions read;
  if (const auto round = args->Value("round-fractional")) {
    if (*round != "up") return UsageError(kSimulateCommand, "--round-fractional takes only \"up\"");
    read.round_fractional_up = true;
  }
  absl::StatusOr<sim::Trace> trace = sim::ReadTraceOrPerfConfigFile(*trace_path, read);
  if (!trace.ok()) {
    std::cerr << trace.status().message() << "\n";
    return 2;
  }
  sim::FaultPlan faults;
  if (auto f = args->Value("faults")) {
    absl::StatusOr<sim::FaultPlan> plan = sim::ReadFaultFile(*f);
    if (!plan.ok()) {
      std::cerr << plan.status().message() << "\n";
      return 2;
    }
    faults = *std::move(plan);
  }
  // Every cluster is read before anything is simulated, so a bad file fails fast.
  std::vector<sim::SimulationInput> clusters;
  for (const std::string& path : args->positional) {
    const std::vector<std::string> files = absl::StrSplit(path, '+');
    absl::StatusOr<sim::SimulationInput> cluster = sim::LoadCluster(files);
    if (!cluster.ok()) {
      std::cerr << cluster.status().message() << "\n";
      return 2;
    }
    clusters.push_back(*std::move(cluster));
  }
  // Labels name the runs in comparisons: file names, or paths where two file names are equal.
  for (size_t i = 0; i < clusters.size(); ++i) {
    for (size_t j = 0; j < clusters.size(); ++j) {
      if (i != j && BaseName(args->positional[i]) == BaseName(args->positional[j])) clusters[i].label = args->positional[i];
    }
  }

  ProgressLine progress(!args->Flag("quiet") && isatty(STDERR_FILENO) == 1);
  std::vector<sim::SimulationResult> runs;
  for (sim::SimulationInput& cluster : clusters) {
    const std::string label = cluster.label;
    options.progress_every = 1000;
    options.progress = [&](const sim::SimulationProgress& p) { progress.Update(label, p); };
    absl::StatusOr<sim::SimulationResult> result = sim::Simulate(cluster, *trace, faults, options);
    progress.Done();
    if (!result.ok()) {
      std::cerr << result.status().message() << "\n";
      return result.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
    }
    for (const std::string& warning : result->warnings) std::cerr << "qm simulate: " << label << ": warning: " << warning << "\n";
    if (result->livelock.detected) {
      std::cerr << fmt::format("qm simulate: {}: livelock: no progress since t={:.1f} h; stopped at t={:.1f} h "
                               "(exit status 3; the diagnosis is in the output)\n",
                               label, result->livelock.stalled_since_s / 3600.0, result->livelock.stopped_s / 3600.0);
    }
    runs.push_back(*std::move(result));
  }

  if (auto report = args->Value("report")) {
    std::ofstream out(*report, std::ios::binary);
    out << sim::RenderHtmlReport(runs);
    out.close();
    if (!out) {
      std::cerr << "qm simulate: cannot write " << *report << "\n";
      return 2;
    }
  }
  if (jobs_out) {
    std::ofstream out(*jobs_out, std::ios::binary);
    out << sim::FormatJobsCsv(runs);
    out.close();
    if (!out) {
      std::cerr << "qm simulate: cannot write " << *jobs_out << "\n";
      return 2;
    }
  }
  if (compare) {
    std::cout << (output == "json" ? sim::FormatComparisonJson(runs) : sim::FormatComparisonText(runs));
  } else {
    std::cout << (output == "json" ? sim::FormatSimulationJson(runs[0]) : sim::FormatSimulationText(runs[0]));
  }
  for (const sim::SimulationResult& r : runs) {
    if (r.livelock.detected) return kLivelockStatus;
  }
  return 0;
}

}  // namespace

const Command kSimulateCommand = {
    "simulate",
    "Simulate a cluster and its policies over a workload trace",
    R"(Usage: qm simulate CLUSTER --trace TRACE [--faults FILE] [--output text|json]
                   [--report FILE.html] [--buckets N] [--horizon DURATION]
                   [--eviction-delay DURATION] [--stall-window DURATION]
                   [--checkpoint-interval DURATION] [--pod-startup SPEC]
                   [--round-fractional up] [--jobs-out FILE.csv]
                   [--window START..END | --warmup DURATION] [--quiet]
       qm simulate --compare CLUSTER_A CLUSTER_B ... --trace TRACE [options]

Runs the jobs of TRACE on the cluster in virtual time, through the same engine a
host embeds: jobs are submitted at their submit times, admitted by Kueue's rules
(quotas, cohorts, borrowing and lending, fair sharing, priorities, preemption),
placed on nodes gang-wise, run for their duration, and finish. Preempted or
evicted jobs lose their progress since their last checkpoint (all of it without
checkpoints) and run the rest when readmitted. Same inputs, same output, byte
for byte.

The run always ends: when every job has finished or can never run, at
--horizon, or as a livelock when for one stall window no job completed, kept a
checkpoint or ran the whole window uninterrupted while jobs were still being
preempted (a preemption loop). A livelocked run is stopped at that instant with
a diagnosis (the preemptor -> victim ClusterQueues and the most-preempted
workloads) and keeps every figure up to there.

CLUSTER is a YAML file with Kueue objects (ResourceFlavor, ClusterQueue, Cohort,
LocalQueue, WorkloadPriorityClass, ...) or SageMaker HyperPod policies
(ClusterSchedulerConfig, ComputeQuota), plus its nodes: Kubernetes Node objects
or a HyperPodCluster inventory. Without nodes, admitted jobs start at once. A
Kueue Configuration document (config.kueue.x-k8s.io) may set fairSharing,
featureGates, waitForPodsReady and the antiThrash policies (docs/semantics.md). CLUSTER may be
several files joined with '+' (policy.yaml+anti-thrash.yaml), combined as one.
TRACE is a CSV trace (docs/trace-format.md; `qm trace generate` writes one) or a
Kueue performance generator configuration.

Prints, per ClusterQueue and priority class: jobs, admissions, wait and
completion time percentiles, preemptions, node-failure evictions, resource-hours
used, borrowed, lent and lost to preemption; utilization per flavor and
resource; fairness (Jain's index). Keys and definitions: docs/simulate.md.

Options:
  --trace FILE        the workload trace (required)
  --faults FILE       node failures: a list and/or random failures (docs/simulate.md)
  --output text|json  summary format (default text)
  --report FILE       also write a self-contained HTML report with charts
  --compare           simulate the same trace on every CLUSTER given; one table
                      side by side (and one report)
  --buckets N         time-series resolution of the report (default 120)
  --horizon DURATION  stop at this simulated time (e.g. 720h, 30d); default: when
                      every job has finished or can never run
  --eviction-delay D  how long preempted jobs take to stop; they keep their nodes
                      and quota meanwhile and the preemptor waits (default 30s;
                      0 stops them at once)
  --stall-window D    the no-progress window of the livelock detector (default
                      24h; always on, only its length changes)
  --checkpoint-interval D
                      preempted or evicted jobs keep their work up to their last
                      checkpoint, taken every D of run time (default: none); a
                      trace's checkpoint_interval column overrides it per job
  --pod-startup SPEC  pod start-up time: DURATION for every flavor and/or
                      FLAVOR=DURATION entries, comma-separated (default 0). A
                      placed job's pods are ready after the longest start-up of
                      its flavors; its run time starts then. With waitForPodsReady
                      the engine is told when pods are ready, so a slow start or
                      a job that cannot be placed times out (PodsReadyTimeout)
  --jobs-out FILE.csv  write one row per job (per run with --compare): submit, first
                      admission, start, end, wait, flavors, nodes, preemptions,
                      evictions, work lost and final state (docs/simulate-output.md)
  --window START..END figures over this part of the run only: utilization, resource-
                      hours, Jain's index and unplaced hours over [START, END); job
                      counts, waits, completion times and preemptions of the jobs
                      submitted in it. END empty (30d..) = the end of the run. The run,
                      its time series and the event counters are unchanged.
  --warmup DURATION   the same as --window DURATION..
  --forecast-every D  measure the forecast (docs/forecast.md): every D of virtual
                      time, forecast every pending job with its exact remaining run
                      time and no new arrivals, and compare with when it is actually
                      admitted; adds a "Forecast accuracy" table (decisions unchanged)
  --round-fractional up
                      round fractional extended resources (nvidia.com/gpu=0.5)
                      in TRACE up to whole units; without it they are an error,
                      as Kubernetes rejects them. The summary counts such jobs.
  --quiet             no progress line (it is shown only on a terminal anyway)

Durations: seconds (90), numbers with units d, h, m, s, ms (1d12h, 2.5h, 30m),
or Go durations (1h30m, 500ms).

Exit status: 0 simulated, 1 the simulation failed, 2 bad input or arguments,
3 simulated, but a run was stopped as a livelock (the output is complete).
)",
    RunSimulate,
};

}  // namespace qm::cli
