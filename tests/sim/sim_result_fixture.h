// Hand-built `SimulationResult`s for the output tests (sim_output_test.cc) and the report
// rendered for the headless-browser test (render_fixture_report.cc). Every value comes from a
// formula over indexes, so each fixture is the same on every run.
#ifndef QM_TESTS_SIM_SIM_RESULT_FIXTURE_H_
#define QM_TESTS_SIM_SIM_RESULT_FIXTURE_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "qm/sim/sim_result.h"

namespace qm::sim::test {

/// One queue, one class, one resource, two buckets, one preemption: small enough for golden text.
inline SimulationResult TinyResult() {
  SimulationResult r;
  r.label = "tiny";
  r.jobs = 2;
  r.admissions = 3;
  r.admitted = 2;
  r.started = 2;
  r.completed = 1;
  r.never_admitted = 0;
  r.preemptions = 1;
  r.cycles = 4;
  r.instants = 3;
  r.makespan_s = 120;
  r.unplaced_hours = 0.5;
  r.avg_jain = 1;
  r.preemptions_per_completed_job = 1;
  r.stall_window_s = 86400;
  r.totals = {{.resource = "cpu", .used = 1.5, .borrowed = 0.25, .lent = 0, .goodput_lost = 0.125}};
  GroupSummary total{.cluster_queue = "team-a-cq", .team = "a", .priority_class = "",
                     .jobs = 2, .admitted = 2, .started = 2, .completed = 1, .never_admitted = 0,
                     .preemptions = 1, .evictions = 0,
                     .wait = {.count = 2, .mean = 15, .p50 = 10, .p90 = 20, .p99 = 20, .max = 20},
                     .wait_all = {.count = 2, .mean = 15, .p50 = 10, .p90 = 20, .p99 = 20, .max = 20},
                     .completion = {.count = 1, .mean = 90, .p50 = 90, .p90 = 90, .p99 = 90, .max = 90},
                     .unplaced_hours = 0.5, .resources = r.totals, .wait_quantiles = {},
                     .wait_all_quantiles = {}};
  for (int k = 0; k <= 100; ++k) total.wait_quantiles.push_back(k < 50 ? 10.0 : 20.0);
  total.wait_all_quantiles = total.wait_quantiles;  // every job was admitted
  GroupSummary high = total;
  high.priority_class = "high";
  r.groups = {total, high};
  r.utilization = {{.flavor = "default", .resource = "cpu", .capacity = 4, .nominal = 4,
                    .avg_used = 1.5, .avg_admitted = 2, .utilization = 0.375}};
  r.series.bucket_seconds = 60;
  r.series.start_s = {0, 60};
  r.series.queues = {"team-a-cq"};
  r.series.resources = {"cpu"};
  r.series.used = {{{1, 2}}};
  r.series.capacity = {{4, 4}};
  r.series.pending = {{1, 0}};
  r.series.share = {{0.5, 0.25}};
  r.series.jain = {1, 1};
  r.series.preemptions = {{1, 0}};
  r.series.pair_preemptions = {{.preemptor_queue = "team-a-cq", .cluster_queue = "team-a-cq", .counts = {1, 0}}};
  r.preemption_log = {{.time_s = 30, .workload = "team-a/job-1", .cluster_queue = "team-a-cq",
                       .preemptor_queue = "team-a-cq", .reason = "InClusterQueue"}};
  r.preemption_counts = {{.cluster_queue = "team-a-cq", .reason = "InClusterQueue", .preemptor_queue = "team-a-cq",
                          .count = 1}};
  r.preemptions_by_reason = {{.cluster_queue = "team-a-cq", .reason = "InClusterQueue", .count = 1}};
  return r;
}

/// Knobs of `GeneratedResult`.
struct GeneratedShape {
  std::string label = "generated";
  int queues = 4;
  int buckets = 48;
  double bucket_seconds = 300;
  int preemptions = 40;  ///< records in the preemption log (0: none)
  int variant = 0;       ///< shifts every pattern, so compared runs differ
  bool livelock = false;  ///< stopped as a livelock, with a diagnosis naming its queues
};

/// Several queues (teams "team-00", ...) with classes "high" and "low", three resources and
/// `buckets` of smoothly varying usage, pending jobs, shares and preemptions.
inline SimulationResult GeneratedResult(const GeneratedShape& shape) {
  SimulationResult r;
  r.label = shape.label;
  const int v = shape.variant;
  const std::vector<std::string> resources = {"cpu", "memory", "nvidia.com/gpu"};
  const std::vector<std::string> classes = {"high", "low"};
  TimeSeries& s = r.series;
  s.bucket_seconds = shape.bucket_seconds;
  for (int b = 0; b < shape.buckets; ++b) s.start_s.push_back(b * shape.bucket_seconds);
  s.resources = resources;
  for (int q = 0; q < shape.queues; ++q) s.queues.push_back(fmt::format("team-{:02}-cq", q));
  // A triangle wave per (queue, bucket): integer arithmetic, no libm.
  auto wave = [&](int q, int b, int period) {
    const int phase = (b + 3 * q + 5 * v) % (2 * period);
    return static_cast<double>(phase < period ? phase : 2 * period - phase) / period;
  };
  s.used.assign(resources.size(), {});
  s.capacity.assign(resources.size(), {});
  for (size_t res = 0; res < resources.size(); ++res) {
    const double scale = res == 0 ? 64 : res == 1 ? 512 : 8;
    for (int q = 0; q < shape.queues; ++q) {
      std::vector<double> row;
      for (int b = 0; b < shape.buckets; ++b) {
        row.push_back(scale / shape.queues * (0.3 + 0.7 * wave(q, b, 12 + q % 5)));
      }
      s.used[res].push_back(row);
    }
    for (int b = 0; b < shape.buckets; ++b) s.capacity[res].push_back(b % 20 == 7 ? scale * 0.875 : scale);
  }
  for (int q = 0; q < shape.queues; ++q) {
    std::vector<double> pending, share;
    std::vector<int64_t> preempted;
    for (int b = 0; b < shape.buckets; ++b) {
      pending.push_back(static_cast<double>((q + 2) * 3) * wave(q, b, 9));
      share.push_back(0.2 + 0.9 * wave(q + 1, b, 16));
      preempted.push_back(0);
    }
    s.pending.push_back(pending);
    s.share.push_back(share);
    s.preemptions.push_back(preempted);
  }
  for (int b = 0; b < shape.buckets; ++b) s.jain.push_back(0.55 + 0.4 * wave(0, b, 20));

  const std::vector<std::string> reasons = {"InClusterQueue", "InCohortReclamation",
                                            "InCohortFairSharing", "NodeFailures"};
  for (int i = 0; i < shape.preemptions; ++i) {
    const int q = (i * 7 + v) % shape.queues;
    const std::string& reason = reasons[static_cast<size_t>(i % 4)];
    const double t = (static_cast<double>(i) + 0.5) * shape.buckets * shape.bucket_seconds / shape.preemptions;
    r.preemption_log.push_back({.time_s = t, .workload = fmt::format("team-{:02}/job-{}", q, i),
                                .cluster_queue = s.queues[static_cast<size_t>(q)],
                                .preemptor_queue = reason == "NodeFailures" ? "" : s.queues[static_cast<size_t>((q + 1) % shape.queues)],
                                .reason = reason});
    const auto bucket = static_cast<size_t>(t / shape.bucket_seconds);
    ++s.preemptions[static_cast<size_t>(q)][bucket];
  }
  // The complete counters and the pair series, from the log (here it holds every preemption).
  std::map<std::tuple<std::string, std::string, std::string>, int64_t> counts;
  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> pairs;
  for (const PreemptionRecord& p : r.preemption_log) {
    ++counts[{p.cluster_queue, p.reason, p.preemptor_queue}];
    if (p.preemptor_queue.empty()) continue;
    std::vector<int64_t>& row = pairs[{p.preemptor_queue, p.cluster_queue}];
    row.resize(static_cast<size_t>(shape.buckets), 0);
    ++row[static_cast<size_t>(p.time_s / shape.bucket_seconds)];
  }
  for (const auto& [key, n] : counts) {
    const auto& [queue, reason, by] = key;
    r.preemption_counts.push_back({.cluster_queue = queue, .reason = reason, .preemptor_queue = by, .count = n});
    if (!r.preemptions_by_reason.empty() && r.preemptions_by_reason.back().cluster_queue == queue &&
        r.preemptions_by_reason.back().reason == reason) {
      r.preemptions_by_reason.back().count += n;
    } else {
      r.preemptions_by_reason.push_back({.cluster_queue = queue, .reason = reason, .count = n});
    }
  }
  for (auto& [key, row] : pairs) {
    s.pair_preemptions.push_back({.preemptor_queue = key.first, .cluster_queue = key.second, .counts = std::move(row)});
  }

  for (int q = 0; q < shape.queues; ++q) {
    GroupSummary total;
    total.cluster_queue = s.queues[static_cast<size_t>(q)];
    total.team = fmt::format("team-{:02}", q);
    std::vector<GroupSummary> rows;
    for (size_t c = 0; c < classes.size(); ++c) {
      GroupSummary g = total;
      g.priority_class = classes[c];
      g.jobs = 20 + 3 * q + 5 * static_cast<int>(c) + v;
      g.admitted = g.jobs - q % 3;
      g.started = g.admitted - (q + static_cast<int>(c)) % 2;
      g.completed = g.started - 1;
      g.never_admitted = g.jobs - g.admitted;
      const double base = 30.0 * (q + 1) * static_cast<double>(c + 1) + 10 * v;
      g.wait = {.count = g.admitted, .mean = base * 1.2, .p50 = base, .p90 = base * 3,
                .p99 = base * 5, .max = base * 6};
      g.wait_all = {.count = g.jobs, .mean = base * 1.5, .p50 = base, .p90 = base * 4,
                    .p99 = base * 9, .max = base * 20};
      g.completion = {.count = g.completed, .mean = base + 3600, .p50 = base + 3000,
                      .p90 = base + 5000, .p99 = base + 7000, .max = base + 8000};
      for (int k = 0; k <= 100; ++k) {
        g.wait_quantiles.push_back(k <= 50   ? base * k / 50.0
                                   : k <= 90 ? base + 2 * base * (k - 50) / 40.0
                                             : base * 3 + 3 * base * (k - 90) / 10.0);
        // Censored waits: the same up to p90, then the never-admitted stretch the tail.
        g.wait_all_quantiles.push_back(k <= 90 ? g.wait_quantiles.back() : base * 4 + 16 * base * (k - 90) / 10.0);
      }
      g.unplaced_hours = 0.1 * q;
      for (size_t res = 0; res < resources.size(); ++res) {
        g.resources.push_back({.resource = resources[res], .used = 10.0 * (q + 1) * static_cast<double>(res + 1) + v,
                               .borrowed = q % 2 ? 2.5 * static_cast<double>(res + 1) : 0, .lent = q % 2 ? 0 : 1.25,
                               .goodput_lost = 0.5 * static_cast<double>(c)});
      }
      rows.push_back(g);
    }
    for (const GroupSummary& g : rows) {
      total.jobs += g.jobs;
      total.admitted += g.admitted;
      total.started += g.started;
      total.completed += g.completed;
      total.never_admitted += g.never_admitted;
      total.unplaced_hours += g.unplaced_hours;
    }
    for (int64_t n : s.preemptions[static_cast<size_t>(q)]) total.preemptions += n;
    rows[0].preemptions = total.preemptions;
    total.wait = rows[1].wait;
    total.wait_all = rows[1].wait_all;
    total.completion = rows[1].completion;
    total.wait_quantiles = rows[1].wait_quantiles;
    total.wait_all_quantiles = rows[1].wait_all_quantiles;
    total.resources = rows[0].resources;
    r.groups.push_back(total);
    for (const GroupSummary& g : rows) r.groups.push_back(g);
    r.jobs += total.jobs;
    r.admitted += total.admitted;
    r.started += total.started;
    r.completed += total.completed;
    r.never_admitted += total.never_admitted;
    r.admissions += total.admitted;
  }
  r.preemptions = shape.preemptions;
  r.admissions += r.preemptions;
  r.cycles = 10 * r.jobs;
  r.instants = shape.buckets * 3;
  r.makespan_s = shape.buckets * shape.bucket_seconds;
  r.unplaced_hours = 0.25 * shape.queues;
  r.avg_jain = 0.75;
  r.stall_window_s = 86400;
  r.gpu_hours_completed = 40.0 * shape.queues;
  r.gpu_hours_lost = 1.5;
  r.gpu_hours_lost_per_completed = r.gpu_hours_lost / r.gpu_hours_completed;
  r.preemptions_per_completed_job = r.completed > 0 ? static_cast<double>(r.preemptions) / static_cast<double>(r.completed) : 0;
  if (shape.livelock) {
    Livelock& l = r.livelock;
    r.stall_window_s = 3600;
    l.detected = true;
    l.window_s = r.stall_window_s;
    l.stopped_s = r.makespan_s;
    l.stalled_since_s = r.makespan_s - l.window_s;
    for (size_t i = 0; i < s.pair_preemptions.size() && i < 4; ++i) {
      const TimeSeries::PairSeries& p = s.pair_preemptions[i];
      l.pairs.push_back({.preemptor_queue = p.preemptor_queue, .cluster_queue = p.cluster_queue, .count = 40 - 7 * static_cast<int64_t>(i)});
      l.preemptions += l.pairs.back().count;
    }
    for (int k = 0; k < 12 && k < shape.preemptions; ++k) {
      const PreemptionRecord& p = r.preemption_log[static_cast<size_t>(k)];
      l.workloads.push_back({.workload = p.workload, .cluster_queue = p.cluster_queue, .count = 30 - k});
    }
    if (l.workloads.size() > 10) {
      l.workloads_left_out = static_cast<int64_t>(l.workloads.size() - 10);
      l.workloads.resize(10);
    }
  }
  for (size_t res = 0; res < resources.size(); ++res) {
    r.totals.push_back({.resource = resources[res], .used = 100.0 * static_cast<double>(res + 1), .borrowed = 5,
                        .lent = 5, .goodput_lost = 1.5});
    r.utilization.push_back({.flavor = "p5", .resource = resources[res], .capacity = 64,
                             .nominal = 64, .avg_used = 40, .avg_admitted = 44,
                             .utilization = 0.625 - 0.05 * v});
  }
  return r;
}

/// A run in which no job was submitted.
inline SimulationResult EmptyResult() {
  SimulationResult r;
  r.label = "empty";
  return r;
}

/// `TinyResult` with names that would break HTML, JSON or text if not escaped.
inline SimulationResult HostileResult() {
  SimulationResult r = TinyResult();
  r.label = "<script>alert(\"x\")</script>";
  const std::string queue = "q&\"a'<b>\x01\xc3\xa9";
  r.groups[0].cluster_queue = queue;
  r.groups[1].cluster_queue = queue;
  r.groups[1].priority_class = "</td><script>";
  r.series.queues = {queue};
  r.preemption_log[0].cluster_queue = queue;
  r.preemption_log[0].reason = "<img src=x onerror=alert(1)>";
  r.preemption_counts[0].cluster_queue = queue;
  r.preemption_counts[0].reason = r.preemption_log[0].reason;
  r.series.pair_preemptions[0].cluster_queue = queue;
  r.livelock = {.detected = true, .at_one_instant = false, .stopped_s = 120, .stalled_since_s = 0, .window_s = 86400,
                .preemptions = 1, .pairs = {{.preemptor_queue = queue, .cluster_queue = queue, .count = 1}},
                .workloads = {{.workload = "</p><script>x</script>", .cluster_queue = queue, .count = 1}},
                .workloads_left_out = 0};
  r.utilization[0].flavor = "fl\\avor\n\"x\"";
  return r;
}

}  // namespace qm::sim::test

#endif  // QM_TESTS_SIM_SIM_RESULT_FIXTURE_H_
