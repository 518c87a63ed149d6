// `qm trace generate|stats|import`: synthetic workload traces for `qm simulate`, what a trace holds
// (docs/trace-format.md), and traces imported from public GPU-cluster traces (docs/trace-import.md).
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "args.h"
#include "command.h"
#include "fmt/format.h"
#include "qm/core/quantity.h"
#include "qm/text/time_text.h"
#include "qm/sim/trace.h"
#include "qm/sim/trace_import.h"

namespace qm::cli {
namespace {

__extension__ typedef __int128 Int128;  // GCC/Clang extension

constexpr OptionSpec kGenerateOptions[] = {
    {"seed", true},         {"jobs", true},           {"teams", true},           {"team-weights", true},
    {"arrivals-per-hour", true}, {"diurnal", true},   {"max-gpus", true},        {"size-alpha", true},
    {"gpus-per-pod", true}, {"median-duration", true}, {"min-duration", true},   {"max-duration", true},
    {"duration-sigma", true}, {"priority-mix", true}, {"output", true}};
constexpr OptionSpec kStatsOptions[] = {{"output", true}, {"round-fractional", true}};
constexpr OptionSpec kImportOptions[] = {{"format", true},       {"output", true},       {"nodes-out", true},
                                         {"gpu-resource", true}, {"model-label", true},  {"owner-column", true},
                                         {"owner", true},        {"running", true},      {"gpu-only", false}};

bool ParseInt(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool ParseDouble(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

// Applies the command line to `o`; returns the usage error, or "".
std::string GeneratorOptions(const Args& args, sim::TraceGeneratorOptions* o) {
  auto integer = [&](const char* name, auto* out, int64_t lo, int64_t hi) -> std::string {
    const std::optional<std::string> v = args.Value(name);
    if (!v) return "";
    int64_t n = 0;
    if (!ParseInt(*v, &n) || n < lo || n > hi) return fmt::format("--{}: '{}' is not an integer in {}..{}", name, *v, lo, hi);
    *out = static_cast<std::remove_pointer_t<decltype(out)>>(n);
    return "";
  };
  auto real = [&](const char* name, double* out) -> std::string {
    const std::optional<std::string> v = args.Value(name);
    if (v && !ParseDouble(*v, out)) return fmt::format("--{}: '{}' is not a number", name, *v);
    return "";
  };
  auto duration = [&](const char* name, Duration* out) -> std::string {
    const std::optional<std::string> v = args.Value(name);
    if (!v) return "";
    absl::StatusOr<Duration> d = sim::ParseTraceTime(*v);
    if (!d.ok()) return fmt::format("--{}: {}", name, std::string(d.status().message()));
    *out = *d;
    return "";
  };
  std::string e;
  if (const std::optional<std::string> v = args.Value("seed")) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long seed = std::strtoull(v->c_str(), &end, 10);
    if (v->empty() || (*v)[0] == '-' || errno != 0 || *end != '\0') return fmt::format("--seed: '{}' is not an integer >= 0", *v);
    o->seed = seed;
  }
  if (!(e = integer("jobs", &o->jobs, 0, sim::kMaxTraceJobs)).empty()) return e;
  if (const std::optional<std::string> v = args.Value("teams"))
    o->teams = absl::StrSplit(*v, ',');
  if (const std::optional<std::string> v = args.Value("team-weights")) {
    o->team_weights.clear();
    for (const std::string& w : std::vector<std::string>(absl::StrSplit(*v, ','))) {
      double x = 0;
      if (!ParseDouble(w, &x)) return fmt::format("--team-weights: '{}' is not a number", w);
      o->team_weights.push_back(x);
    }
  }
  if (!(e = real("arrivals-per-hour", &o->arrivals_per_hour)).empty()) return e;
  if (!(e = real("diurnal", &o->diurnal_amplitude)).empty()) return e;
  if (!(e = integer("max-gpus", &o->max_gpus, 1, INT32_MAX)).empty()) return e;
  if (!(e = real("size-alpha", &o->size_alpha)).empty()) return e;
  if (!(e = integer("gpus-per-pod", &o->gpus_per_pod, 1, INT32_MAX)).empty()) return e;
  if (!(e = duration("median-duration", &o->median_duration)).empty()) return e;
  if (!(e = duration("min-duration", &o->min_duration)).empty()) return e;
  if (!(e = duration("max-duration", &o->max_duration)).empty()) return e;
  if (!(e = real("duration-sigma", &o->duration_sigma)).empty()) return e;
  if (const std::optional<std::string> v = args.Value("priority-mix")) {
    o->priority_mix.clear();
    for (const std::string& entry : std::vector<std::string>(absl::StrSplit(*v, ','))) {
      const size_t eq = entry.find('=');
      double p = 0;
      if (eq == std::string::npos || !ParseDouble(entry.substr(eq + 1), &p))
        return fmt::format("--priority-mix: '{}' is not CLASS=WEIGHT", entry);
      o->priority_mix.emplace_back(entry.substr(0, eq), p);
    }
  }
  return "";
}

// Writes `text` to `path`, or to stdout when `path` is empty or "-".
bool WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return static_cast<bool>(std::cout.flush());
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

int Generate(std::span<const std::string> argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, kGenerateOptions);
  if (!args.ok()) return UsageError(kTraceCommand, std::string(args.status().message()));
  if (args->help) {
    std::cout << kTraceCommand.help;
    return 0;
  }
  if (!args->positional.empty()) return UsageError(kTraceCommand, "generate takes no file argument (use --output)");
  sim::TraceGeneratorOptions options;
  if (std::string e = GeneratorOptions(*args, &options); !e.empty()) return UsageError(kTraceCommand, e);
  absl::StatusOr<sim::Trace> trace = sim::GenerateTrace(options);
  if (!trace.ok()) return UsageError(kTraceCommand, std::string(trace.status().message()));
  const std::string path = args->Value("output").value_or("");
  if (!WriteOutput(path, sim::WriteTrace(*trace))) {
    std::cerr << "qm trace: cannot write '" << path << "'\n";
    return 2;
  }
  return 0;
}


// `value` base-unit·µs as hours of the resource's display unit, with one decimal.
std::string ResourceHours(std::string_view resource, Int128 amount_us) {
  // cpu: millicores → cores; memory-like: bytes → GiB; others: counts.
  Int128 per_unit = 1;
  std::string unit = "";
  if (UnitForResource(resource) == Unit::kMilli) {
    per_unit = 1000;
    unit = "core-hours";
  } else if (resource == "memory" || resource == "ephemeral-storage") {
    per_unit = Int128{1} << 30;
    unit = "GiB-hours";
  } else {
    unit = "hours";
  }
  const Int128 tenths = (amount_us * 10 / per_unit + 3'600'000'000 / 2) / 3'600'000'000;
  const int64_t whole = static_cast<int64_t>(tenths / 10), frac = static_cast<int64_t>(tenths % 10);
  return fmt::format("{}.{} {}", whole, frac, unit);
}

std::string FormatCounts(const std::map<std::string, int64_t>& counts) {
  std::string out;
  for (const auto& [name, n] : counts) out += fmt::format("  {}: {}\n", name.empty() ? "\"\"" : name, n);
  return out.empty() ? "  {}\n" : out;
}

int Stats(std::span<const std::string> argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, kStatsOptions);
  if (!args.ok()) return UsageError(kTraceCommand, std::string(args.status().message()));
  if (args->help) {
    std::cout << kTraceCommand.help;
    return 0;
  }
  if (args->positional.size() != 1) return UsageError(kTraceCommand, "stats takes one trace file");
  sim::TraceReadOptions read;
  if (const auto round = args->Value("round-fractional")) {
    if (*round != "up") return UsageError(kTraceCommand, "--round-fractional takes only \"up\"");
    read.round_fractional_up = true;
  }
  absl::StatusOr<sim::Trace> trace = sim::ReadTraceOrPerfConfigFile(args->positional[0], read);
  if (!trace.ok()) {
    std::cerr << "qm trace: " << trace.status().message() << "\n";
    return 2;
  }
  const sim::Trace& t = *trace;
  // Ordered maps: the output is sorted by name, never in hash order.
  std::map<std::string, int64_t> by_owner, by_queue, by_class;
  std::map<std::string, Int128> usage;
  int64_t pods = 0;
  std::vector<int64_t> durations;
  durations.reserve(t.jobs.size());
  for (const sim::TraceJob& job : t.jobs) {
    const std::string owner = job.team != 0 ? fmt::format("team {}", t.str(job.team))
                                            : fmt::format("namespace {}", t.str(job.namespace_));
    ++by_owner[owner];
    ++by_queue[job.queue == 0 ? std::string("(default)") : std::string(t.str(job.queue))];
    ++by_class[job.priority_class == 0 ? std::string("(none)") : std::string(t.str(job.priority_class))];
    durations.push_back(job.duration.us);
    for (const sim::TracePodSet& ps : t.PodSetsOf(job)) {
      pods += ps.count;
      for (const sim::TraceRequest& r : t.RequestsOf(ps))
        usage[std::string(t.str(r.resource))] += Int128{r.amount} * ps.count * job.duration.us;
    }
  }
  std::string out = fmt::format("file: {}\njobs: {}\npods: {}\n", t.source, t.jobs.size(), pods);
  if (read.round_fractional_up) out += fmt::format("jobs with fractional extended resources rounded up: {}\n", t.rounded_jobs);
  if (!t.jobs.empty()) {
    std::sort(durations.begin(), durations.end());
    out += fmt::format("submit: {{first: {}, last: {}}}\n", FormatGoDuration(t.jobs.front().submit),
                       FormatGoDuration(t.jobs.back().submit));
    out += fmt::format("duration: {{min: {}, median: {}, max: {}}}\n", FormatGoDuration(Duration{durations.front()}),
                       FormatGoDuration(Duration{durations[durations.size() / 2]}),
                       FormatGoDuration(Duration{durations.back()}));
  }
  out += "jobs by owner:\n" + FormatCounts(by_owner);
  out += "jobs by queue:\n" + FormatCounts(by_queue);
  out += "jobs by priority class:\n" + FormatCounts(by_class);
  out += "requested (pods × request × duration):\n";
  for (const auto& [resource, amount_us] : usage) out += fmt::format("  {}: {}\n", resource, ResourceHours(resource, amount_us));
  if (usage.empty()) out += "  {}\n";
  std::cout << out;
  return 0;
}

// Applies the command line to `o`; returns the usage error, or "".
std::string ImportOptions(const Args& args, sim::TraceImportOptions* o) {
  if (const auto v = args.Value("gpu-resource")) o->gpu_resource = *v;
  if (const auto v = args.Value("model-label")) o->model_label = *v;
  if (const auto v = args.Value("owner")) o->owner = *v;
  if (const auto v = args.Value("owner-column")) {
    if (*v != "team" && *v != "namespace") return fmt::format("--owner-column: '{}' is not team or namespace", *v);
    o->owner_as_namespace = *v == "namespace";
  }
  if (const auto v = args.Value("running")) {
    if (*v != "keep" && *v != "skip") return fmt::format("--running: '{}' is not keep or skip", *v);
    o->keep_running = *v == "keep";
  }
  o->gpu_only = args.Flag("gpu-only");
  return "";
}

int Import(std::span<const std::string> argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, kImportOptions);
  if (!args.ok()) return UsageError(kTraceCommand, std::string(args.status().message()));
  if (args->help) {
    std::cout << kTraceCommand.help;
    return 0;
  }
  const std::optional<std::string> format_name = args->Value("format");
  if (!format_name) return UsageError(kTraceCommand, "import needs --format (openb, pai2020, philly or helios)");
  const std::optional<sim::TraceFormat> format = sim::ParseTraceFormat(*format_name);
  if (!format) {
    return UsageError(kTraceCommand, fmt::format("--format: unknown format '{}' (openb, pai2020, philly or helios)", *format_name));
  }
  if (args->positional.empty()) return UsageError(kTraceCommand, "import takes the trace's files");
  sim::TraceImportOptions options;
  if (std::string e = ImportOptions(*args, &options); !e.empty()) return UsageError(kTraceCommand, e);
  absl::StatusOr<sim::ImportedTrace> imported = sim::ImportTraceFiles(*format, args->positional, options);
  if (!imported.ok()) {
    std::cerr << "qm trace: " << imported.status().message() << "\n";
    return 2;
  }
  const std::optional<std::string> nodes_path = args->Value("nodes-out");
  if (nodes_path && imported->nodes_yaml.empty()) {
    std::cerr << "qm trace: --nodes-out: no node list among the inputs\n";
    return 2;
  }
  // Everything is in memory before anything is written: a bad row leaves no partial file.
  const std::string path = args->Value("output").value_or("");
  if (!WriteOutput(path, imported->trace_csv)) {
    std::cerr << "qm trace: cannot write '" << path << "'\n";
    return 2;
  }
  if (nodes_path && !WriteOutput(*nodes_path, imported->nodes_yaml)) {
    std::cerr << "qm trace: cannot write '" << *nodes_path << "'\n";
    return 2;
  }
  std::cerr << sim::FormatTraceImportSummary(*format, imported->summary);
  if (!nodes_path && !imported->nodes_yaml.empty()) std::cerr << "(give --nodes-out FILE to write the nodes)\n";
  return 0;
}

int RunTrace(std::span<const std::string> argv) {
  if (argv.empty()) return UsageError(kTraceCommand, "expected an action: generate, stats or import");
  const std::string& action = argv[0];
  const std::span<const std::string> rest = argv.subspan(1);
  if (action == "generate") return Generate(rest);
  if (action == "stats") return Stats(rest);
  if (action == "import") return Import(rest);
  if (action == "-h" || action == "--help") {
    std::cout << kTraceCommand.help;
    return 0;
  }
  return UsageError(kTraceCommand, fmt::format("unknown action '{}' (generate, stats or import)", action));
}

}  // namespace

const Command kTraceCommand = {
    "trace",
    "Generate a synthetic workload trace, summarise one, or import a public one",
    R"(Usage: qm trace generate [options] [--output FILE]
       qm trace stats FILE [--round-fractional up]
       qm trace import --format FORMAT FILE... [options] [--output FILE] [--nodes-out FILE]

Workload traces are what `qm simulate` replays: one job per CSV row, with its submit
time, namespace or HyperPod team, queue, priority, pod sets and run time
(docs/trace-format.md).

generate  writes a synthetic trace (CSV) to stdout or FILE. The same options give the
          same bytes on every machine. Jobs arrive as a Poisson process whose rate
          follows the time of day; sizes are powers of two GPUs with a heavy
          (Pareto) tail; run times are log-normal.
stats     checks a trace, or a Kueue performance generator configuration (detected by
          content, converted as `qm perf` creates its workloads), and prints its jobs,
          pods, time span, jobs per owner, queue and priority class, and the resource-
          hours requested. Errors name the file, line and column. A fractional
          extended resource (nvidia.com/gpu=0.5) is an error, as in Kubernetes;
          --round-fractional up rounds it up and counts the jobs rounded.
import    converts a public GPU-cluster trace to a trace (CSV) on stdout or --output,
          and its machines, when it lists them, to Kubernetes Node objects
          (--nodes-out). Rows that never ran, were cancelled while pending or still
          ran at the trace's end are handled by fixed rules and counted; the counts
          go to stderr. Time 0 is the earliest submit time in the input. A malformed
          value is an error naming the file, line and column, and nothing is
          written (docs/trace-import.md).

Options of generate (defaults in brackets):
  --seed N                 random seed [1]
  --jobs N                 number of jobs [1000]
  --teams a,b,c            HyperPod teams, written in the team column [team-a,team-b]
  --team-weights 3,1,1     relative arrival weight of each team [equal]
  --arrivals-per-hour X    mean arrival rate over a day [60]
  --diurnal A              day/night amplitude in [0, 1]: the rate is multiplied by
                           1 + A·sin(2π(t − 6h)/24h), highest at noon [0.5]
  --max-gpus N             largest job, in GPUs (sizes are powers of two) [64]
  --size-alpha A           tail index: P(size ≥ s) falls like s^-A [1.5]
  --gpus-per-pod N         GPUs per pod, a power of two; larger jobs have more pods [8]
  --median-duration T      median run time, e.g. 30m [30m]
  --duration-sigma S       log-normal sigma of run times [1.5]
  --min-duration T         shortest run time [1m]
  --max-duration T         longest run time [7d]
  --priority-mix c=w,...   WorkloadPriorityClass names and their weights, e.g.
                           high=0.2,low=0.8 [no class]
  --output FILE            write to FILE instead of stdout

Options of import:
  --format F               openb      Alibaba cluster-trace-gpu-v2023: pod list CSV, and
                                      node list CSV (sn, cpu_milli, ...)
                           pai2020    Alibaba cluster-trace-gpu-v2020: pai_job_table.csv
                                      and pai_task_table.csv; pai_machine_spec.csv (nodes)
                                      and pai_group_tag_table.csv (GPU-model constraints)
                           philly     Microsoft Philly: cluster_job_log (JSON), and
                                      cluster_machine_list (nodes)
                           helios     SenseTime Helios: a cluster's cluster_log.csv
  --gpu-resource R         the GPU resource name [nvidia.com/gpu]
  --model-label KEY        the node label holding the GPU model, used on nodes and in
                           the node_affinity of jobs that ask for models
                           [nvidia.com/gpu.product]
  --owner-column C         write owners (PAI: user; Philly, Helios: virtual cluster) as
                           HyperPod teams (team) or namespaces (namespace) [team]
  --owner NAME             put every job under this team or namespace [the trace's;
                           openb, which has none: default]
  --running keep|skip      jobs still running at the trace's end: keep them with their
                           run time cut at the trace's end, or skip them [keep]
  --gpu-only               skip jobs that ask for no GPU
  --output FILE            the trace [stdout]
  --nodes-out FILE         the Node objects (formats with a machine list)

Times are seconds (90, 1.5) or numbers with units d, h, m, s, ms (1h30m, 2.5h).

Exit status: 0 done, 2 bad arguments, or a trace that cannot be read (the message
names the file, line and column).
)",
    RunTrace,
};

}  // namespace qm::cli
