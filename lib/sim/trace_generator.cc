// The synthetic trace generator (trace.h `GenerateTrace`, docs/trace-format.md §Generator).
//
// Model, drawn in this order for every job from one xoshiro256** stream:
//   1. Arrival: a non-homogeneous Poisson process by thinning. Candidates arrive at the peak rate
//      λmax = rate·(1 + A); a candidate at time t is kept with probability λ(t)/λmax, where
//      λ(t) = rate·(1 + A·sin(2π·(t − 6h)/24h)) (busiest at noon, quietest at midnight).
//      Times are whole milliseconds.
//   2. Team: by `team_weights` (equal when empty).
//   3. Size: 2^k GPUs, k = 0..⌊log2 max_gpus⌋, P(k) ∝ 2^(−k·α): P(size ≥ s) falls like s^(−α), a
//      Pareto tail over powers of two. A job larger than `gpus_per_pod` is split into pods of
//      `gpus_per_pod` GPUs, each with cpu and memory in proportion.
//   4. Duration: log-normal, median·e^(σ·Z), clamped to [min, max], in whole milliseconds.
//   5. Priority class: by `priority_mix` (no draw when it is empty).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/sim/trace.h"
#include "sim/portable_random.h"
#include "sim/trace_builder.h"
#include "sim/trace_text.h"

namespace qm::sim {
namespace {

using internal::PortableExp;
using internal::PortableLog;
using internal::PortableSinTwoPi;

constexpr int64_t kMsPerHour = 3'600'000;
constexpr int64_t kMsPerDay = 24 * kMsPerHour;
constexpr int32_t kMaxGpus = 65536;
constexpr int32_t kMaxGpusPerPod = 1024;
constexpr int64_t kMaxCpuMilliPerGpu = 1'000'000'000;
constexpr int64_t kMaxMemoryPerGpu = int64_t{1} << 40;

absl::Status OptionError(std::string_view option, std::string_view message) {
  return absl::InvalidArgumentError(fmt::format("trace generator: {}: {}", option, message));
}

bool IsPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Checks weights: finite, ≥ 0, not all zero.
absl::Status CheckWeights(std::string_view option, const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) {
    if (!std::isfinite(w) || w < 0) return OptionError(option, fmt::format("{} is not a weight >= 0", w));
    total += w;
  }
  if (!(total > 0)) return OptionError(option, "the weights add up to 0");
  return absl::OkStatus();
}

absl::Status Validate(const TraceGeneratorOptions& o) {
  if (o.jobs < 0 || o.jobs > kMaxTraceJobs)
    return OptionError("jobs", fmt::format("{} is outside 0..{}", o.jobs, kMaxTraceJobs));
  if (o.teams.empty()) return OptionError("teams", "at least one team is needed");
  absl::flat_hash_set<std::string> seen;
  for (const std::string& team : o.teams) {
    if (std::string p = internal::NameProblem(team, internal::kMaxTeamSize); !p.empty())
      return OptionError("teams", fmt::format("{} {}", internal::QuoteValue(team), p));
    if (!seen.insert(team).second) return OptionError("teams", fmt::format("{} appears twice", internal::QuoteValue(team)));
  }
  if (!o.team_weights.empty()) {
    if (o.team_weights.size() != o.teams.size())
      return OptionError("team_weights", fmt::format("{} weights for {} teams", o.team_weights.size(), o.teams.size()));
    if (absl::Status st = CheckWeights("team_weights", o.team_weights); !st.ok()) return st;
  }
  if (!std::isfinite(o.arrivals_per_hour) || !(o.arrivals_per_hour > 0) || o.arrivals_per_hour > 1e9)
    return OptionError("arrivals_per_hour", fmt::format("{} is outside (0, 1e9]", o.arrivals_per_hour));
  if (!(o.diurnal_amplitude >= 0 && o.diurnal_amplitude <= 1))
    return OptionError("diurnal_amplitude", fmt::format("{} is outside [0, 1]", o.diurnal_amplitude));
  if (o.max_gpus < 1 || o.max_gpus > kMaxGpus)
    return OptionError("max_gpus", fmt::format("{} is outside 1..{}", o.max_gpus, kMaxGpus));
  if (!std::isfinite(o.size_alpha) || !(o.size_alpha > 0) || o.size_alpha > 100)
    return OptionError("size_alpha", fmt::format("{} is outside (0, 100]", o.size_alpha));
  if (!IsPowerOfTwo(o.gpus_per_pod) || o.gpus_per_pod > kMaxGpusPerPod)
    return OptionError("gpus_per_pod", fmt::format("{} is not a power of two in 1..{}", o.gpus_per_pod, kMaxGpusPerPod));
  if (o.cpu_milli_per_gpu < 0 || o.cpu_milli_per_gpu > kMaxCpuMilliPerGpu)
    return OptionError("cpu_milli_per_gpu", fmt::format("{} is outside 0..{}", o.cpu_milli_per_gpu, kMaxCpuMilliPerGpu));
  if (o.memory_bytes_per_gpu < 0 || o.memory_bytes_per_gpu > kMaxMemoryPerGpu)
    return OptionError("memory_bytes_per_gpu", fmt::format("{} is outside 0..{}", o.memory_bytes_per_gpu, kMaxMemoryPerGpu));
  if (std::string p = internal::ResourceNameProblem(o.gpu_resource); !p.empty())
    return OptionError("gpu_resource", fmt::format("{} {}", internal::QuoteValue(o.gpu_resource), p));
  if (o.gpu_resource == "cpu" || o.gpu_resource == "memory")
    return OptionError("gpu_resource", fmt::format("\"{}\" is not a GPU resource", o.gpu_resource));
  const int64_t ms = 1000;  // durations are whole milliseconds
  for (const auto& [name, d] : {std::pair<const char*, Duration>{"median_duration", o.median_duration},
                                {"min_duration", o.min_duration},
                                {"max_duration", o.max_duration}}) {
    if (d.us <= 0 || d > kMaxTraceTime || d.us % ms != 0)
      return OptionError(name, fmt::format("{}s must be a whole number of milliseconds in (0, 100 years]",
                                           FormatTraceTime(d)));
  }
  if (o.min_duration > o.max_duration)
    return OptionError("min_duration", fmt::format("{}s is above max_duration {}s", FormatTraceTime(o.min_duration),
                                                   FormatTraceTime(o.max_duration)));
  if (!std::isfinite(o.duration_sigma) || o.duration_sigma < 0 || o.duration_sigma > 10)
    return OptionError("duration_sigma", fmt::format("{} is outside [0, 10]", o.duration_sigma));
  if (!o.priority_mix.empty()) {
    seen.clear();
    std::vector<double> weights;
    for (const auto& [name, p] : o.priority_mix) {
      if (std::string problem = internal::NameProblem(name, internal::kMaxNameSize); !problem.empty())
        return OptionError("priority_mix", fmt::format("{} {}", internal::QuoteValue(name), problem));
      if (!seen.insert(name).second)
        return OptionError("priority_mix", fmt::format("{} appears twice", internal::QuoteValue(name)));
      weights.push_back(p);
    }
    if (absl::Status st = CheckWeights("priority_mix", weights); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// Cumulative weights of a categorical choice.
std::vector<double> Cumulative(const std::vector<double>& weights) {
  std::vector<double> cdf;
  double total = 0;
  for (double w : weights) cdf.push_back(total += w);
  return cdf;
}

// Index i with probability weights[i]/total: the first cumulative weight above u·total.
size_t Choose(internal::Random& random, const std::vector<double>& cdf) {
  const double u = random.Uniform() * cdf.back();
  for (size_t i = 0; i < cdf.size(); ++i)
    if (u < cdf[i]) return i;
  return cdf.size() - 1;  // u·total rounded up to total: the last one with a non-zero weight
}

}  // namespace

absl::StatusOr<Trace> GenerateTrace(const TraceGeneratorOptions& options) {
  if (absl::Status st = Validate(options); !st.ok()) return st;
  const TraceGeneratorOptions& o = options;
  Trace trace;
  trace.source = fmt::format("generated (seed {})", o.seed);
  internal::TraceBuilder builder(&trace);
  internal::Random random(o.seed);

  std::vector<StringId> teams;
  for (const std::string& t : o.teams) teams.push_back(trace.Intern(t));
  const std::vector<double> team_cdf =
      Cumulative(o.team_weights.empty() ? std::vector<double>(o.teams.size(), 1.0) : o.team_weights);
  std::vector<StringId> classes;
  std::vector<double> class_weights;
  for (const auto& [name, p] : o.priority_mix) {
    classes.push_back(trace.Intern(name));
    class_weights.push_back(p);
  }
  const std::vector<double> class_cdf = Cumulative(class_weights);

  // Sizes 2^k, k = 0..K, P(k) ∝ 2^(−kα) = e^(−kα·ln 2).
  int max_k = 0;
  while ((int64_t{2} << max_k) <= o.max_gpus) ++max_k;
  std::vector<double> size_weights;
  for (int k = 0; k <= max_k; ++k) size_weights.push_back(PortableExp(-static_cast<double>(k) * o.size_alpha * 0.6931471805599453094));
  const std::vector<double> size_cdf = Cumulative(size_weights);

  // One pod set shape per size, interned once: pods of min(size, gpus_per_pod) GPUs.
  const StringId main_name = trace.Intern("main");
  const StringId gpu = trace.Intern(o.gpu_resource);
  const StringId cpu = trace.Intern("cpu");
  const StringId memory = trace.Intern("memory");
  std::vector<uint32_t> shape_first(static_cast<size_t>(max_k) + 1);
  for (int k = 0; k <= max_k; ++k) {
    const int64_t size = int64_t{1} << k;
    const int64_t per_pod = std::min<int64_t>(size, o.gpus_per_pod);
    std::vector<std::pair<std::string_view, TraceRequest>> named;
    named.push_back({o.gpu_resource, {gpu, per_pod}});
    if (o.cpu_milli_per_gpu > 0) named.push_back({"cpu", {cpu, per_pod * o.cpu_milli_per_gpu}});
    if (o.memory_bytes_per_gpu > 0) named.push_back({"memory", {memory, per_pod * o.memory_bytes_per_gpu}});
    std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<TraceRequest> requests;
    for (const auto& [name, r] : named) requests.push_back(r);
    TracePodSet ps;
    ps.name = main_name;
    ps.count = static_cast<int32_t>(size / per_pod);
    ps.first_request = builder.AddRequests(requests);
    ps.request_count = static_cast<uint32_t>(requests.size());
    shape_first[static_cast<size_t>(k)] = builder.AddPodSets({&ps, 1});
  }

  const double peak_per_hour = o.arrivals_per_hour * (1.0 + o.diurnal_amplitude);
  const double median_ms = static_cast<double>(o.median_duration.us / 1000);
  const double min_ms = static_cast<double>(o.min_duration.us / 1000);
  const double max_ms = static_cast<double>(o.max_duration.us / 1000);
  const int64_t max_time_ms = kMaxTraceTime.us / 1000;
  trace.jobs.reserve(static_cast<size_t>(o.jobs));
  int64_t now_ms = 0;
  for (int64_t row = 1; row <= o.jobs; ++row) {
    // 1. Arrival, by thinning.
    while (true) {
      const double gap_ms = -PortableLog(random.UniformPositive()) / peak_per_hour * static_cast<double>(kMsPerHour);
      if (gap_ms > static_cast<double>(max_time_ms - now_ms))
        return absl::InvalidArgumentError(fmt::format(
            "trace generator: arrivals_per_hour: {} jobs at {} per hour run past the 100-year limit", o.jobs,
            o.arrivals_per_hour));
      now_ms += static_cast<int64_t>(std::floor(gap_ms + 0.5));
      const int64_t since_6h = ((now_ms - 6 * kMsPerHour) % kMsPerDay + kMsPerDay) % kMsPerDay;
      const double rate = 1.0 + o.diurnal_amplitude * PortableSinTwoPi(static_cast<double>(since_6h) / static_cast<double>(kMsPerDay));
      if (random.Uniform() * (1.0 + o.diurnal_amplitude) < rate) break;
    }
    TraceJob job;
    job.row = row;
    job.submit = Duration::Milliseconds(now_ms);
    // 2. Team.
    job.team = teams[Choose(random, team_cdf)];
    // 3. Size.
    job.first_pod_set = shape_first[Choose(random, size_cdf)];
    job.pod_set_count = 1;
    // 4. Duration.
    double d = median_ms * PortableExp(o.duration_sigma * random.Normal());
    d = d < min_ms ? min_ms : d > max_ms ? max_ms : d;
    job.duration = Duration::Milliseconds(static_cast<int64_t>(std::floor(d + 0.5)));
    // 5. Priority class.
    if (!classes.empty()) job.priority_class = classes[Choose(random, class_cdf)];
    trace.jobs.push_back(job);
  }
  trace.Finish();  // already in order: arrivals only move forward
  return trace;
}

}  // namespace qm::sim
