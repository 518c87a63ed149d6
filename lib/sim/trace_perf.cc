// Kueue performance generator configurations as traces (trace.h `TraceFromPerfConfig`).
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/sim/perf_config.h"
#include "qm/sim/trace.h"
#include "sim/trace_builder.h"
#include "text/yaml_load.h"

namespace qm::sim {
namespace {

// A perf configuration is YAML whose keys a CSV trace cannot contain: some line, past its
// indentation and list dash, starts with `queuesSets:` or `workloadsSets:` (comments aside).
bool LooksLikePerfConfig(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t' || line.front() == '-')) line.remove_prefix(1);
    if (line.starts_with("queuesSets:") || line.starts_with("workloadsSets:")) return true;
  }
  return false;
}

// `PerfConfig::WorkloadCount`, saturating instead of overflowing: counts come from the file.
int64_t SaturatingWorkloadCount(const PerfConfig& config) {
  constexpr int64_t kMax = INT64_MAX;
  auto mul = [](int64_t a, int64_t b) {
    int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? kMax : r;
  };
  int64_t n = 0;
  for (const PerfCohortSet& c : config.cohorts)
    for (const PerfQueuesSet& q : c.queues_sets)
      for (const PerfWorkloadsSet& w : q.workloads_sets) {
        const int64_t add = mul(mul(mul(c.count, q.count), w.count), static_cast<int64_t>(w.workloads.size()));
        if (__builtin_add_overflow(n, add, &n)) n = kMax;
      }
  return n;
}

}  // namespace

Trace TraceFromPerfConfig(const PerfConfig& config) {
  // The same walk as perf_replay.cc's Build(): cohorts, their queue sets, each queue, its
  // workload sets, rounds, templates; rows number the workloads in that (generation) order.
  Trace trace;
  trace.source = "perf configuration";
  internal::TraceBuilder builder(&trace);
  const StringId main_name = trace.Intern("main");
  const StringId cpu = trace.Intern("cpu");
  int64_t row = 0;
  for (const PerfCohortSet& cset : config.cohorts) {
    for (int64_t c = 0; c < cset.count; ++c) {
      const std::string cohort = fmt::format("{}-{}", cset.class_name, c);
      for (size_t qs = 0; qs < cset.queues_sets.size(); ++qs) {
        const PerfQueuesSet& qset = cset.queues_sets[qs];
        for (int64_t q = 0; q < qset.count; ++q) {
          // Each ClusterQueue has its own namespace and LocalQueue, all three of the same name.
          const StringId queue = trace.Intern(fmt::format("{}-{}-{}-{}", qset.class_name, qs, q, cohort));
          for (size_t s = 0; s < qset.workloads_sets.size(); ++s) {
            const PerfWorkloadsSet& wset = qset.workloads_sets[s];
            const int64_t n = static_cast<int64_t>(wset.workloads.size());
            for (int64_t round = 0; round < wset.count; ++round) {
              for (int64_t i = 0; i < n; ++i) {
                const PerfWorkloadTemplate& t = wset.workloads[static_cast<size_t>(i)];
                TraceJob job;
                job.row = ++row;
                job.submit = Duration::Milliseconds(wset.initial_delay_ms + (round * n + i + 1) * wset.creation_interval_ms);
                // A trace job runs for at least a millisecond (the replay finishes a 0 ms
                // workload at its admission instant; here it holds its quota for 1 ms).
                job.duration = Duration::Milliseconds(std::max<int64_t>(t.runtime_ms, 1));
                job.namespace_ = queue;
                job.queue = queue;
                job.priority = t.priority;
                const TraceRequest request{cpu, t.request_milli_cpu};
                TracePodSet ps;
                ps.name = main_name;
                ps.count = t.pod_count;
                ps.first_request = builder.AddRequests({&request, 1});
                ps.request_count = 1;
                job.first_pod_set = builder.AddPodSets({&ps, 1});
                job.pod_set_count = 1;
                const std::string name = fmt::format("{}-{}-{}-{}", t.class_name, s, round, i);
                job.name_offset = static_cast<uint32_t>(trace.names.size());
                job.name_size = static_cast<uint32_t>(name.size());
                trace.names += name;
                trace.jobs.push_back(job);
              }
            }
          }
        }
      }
    }
  }
  trace.Finish();
  return trace;
}

absl::StatusOr<Trace> ReadTraceOrPerfConfigFile(const std::string& path, const TraceReadOptions& options) {
  absl::StatusOr<std::string> text = qm::internal::ReadTextFile(path);
  if (!text.ok()) return text.status();
  if (!LooksLikePerfConfig(*text)) return ReadTraceString(*text, path, options);
  absl::StatusOr<PerfConfig> config = ParsePerfConfig(*text, path);
  if (!config.ok()) return config.status();
  // Checked before converting: a few lines of YAML can ask for billions of workloads.
  const int64_t workloads = SaturatingWorkloadCount(*config);
  if (workloads > kMaxTraceJobs)
    return absl::InvalidArgumentError(
        fmt::format("{}: the configuration creates {} workloads, a trace holds at most {}", path, workloads, kMaxTraceJobs));
  Trace trace = TraceFromPerfConfig(*config);
  trace.source = path;
  return trace;
}

}  // namespace qm::sim
