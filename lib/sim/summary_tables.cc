// The tables of one run (table.h `RunTables`): what `qm simulate` prints and the report shows.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "qm/sim/sim_result.h"
#include "sim/sim_format.h"
#include "sim/table.h"

namespace qm::sim::internal {

namespace {

// How many windows the "Jain's index over time" table folds the buckets into: enough to show a
// trend, few enough to read.
constexpr size_t kJainWindows = 12;

std::string Count(int64_t v) { return fmt::format("{}", v); }
std::string Seconds(double v) { return Fixed(v, 1); }
std::string Hours(double v) { return Fixed(v, 2); }
std::string Ratio(double v) { return Fixed(v, 3); }
std::string Percent(double v) { return Fixed(v * 100.0, 1); }
std::string ClassName(const GroupSummary& g) { return g.priority_class.empty() ? "(all)" : g.priority_class; }
std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }
std::string Preemptor(const std::string& queue) { return queue.empty() ? "(eviction)" : queue; }

Table Overview(const SimulationResult& r) {
  Table t{.id = "overview", .title = fmt::format("Run {}", OrDash(r.label)),
          .header = {"measure", "value"}, .text_columns = 1, .rows = {}, .note = {}};
  t.rows = {
      {"jobs submitted", Count(r.jobs)},
      {"admissions (readmissions included)", Count(r.admissions)},
      {"jobs admitted (at least once)", Count(r.admitted)},
      {"jobs started (placed on nodes at least once)", Count(r.started)},
      {"jobs completed", Count(r.completed)},
      {"jobs never admitted", Count(r.never_admitted)},
      {"  of which can never be (too large)", Count(r.never_admittable)},
      {"preemptions", Count(r.preemptions)},
      {"preemptions per completed job", Ratio(r.preemptions_per_completed_job)},
      {"node-failure evictions", Count(r.fault_evictions)},
      {"node failures", Count(r.node_failures)},
      {"scheduling cycles", Count(r.cycles)},
      {"virtual instants", Count(r.instants)},
      {"makespan (s)", Seconds(r.makespan_s)},
      {"admitted but unplaced (job-hours)", Hours(r.unplaced_hours)},
      {"Jain's index (time average)", Ratio(r.avg_jain)},
      {"GPU-hours completed (requests x duration)", Hours(r.gpu_hours_completed)},
      {"GPU-hours lost (goodput lost)", Hours(r.gpu_hours_lost)},
      {"GPU-hours lost per GPU-hour completed", Ratio(r.gpu_hours_lost_per_completed)},
      {"checkpoints kept by preempted jobs", Count(r.checkpoints_kept)},
      {"stall window (h)", Hours(r.stall_window_s / 3600.0)},
      {"livelock (run stopped: no progress)", r.livelock.detected ? "yes" : "no"},
  };
  // Only when --round-fractional up changed something, so other runs keep their bytes.
  if (r.rounded_jobs > 0)
    t.rows.insert(t.rows.begin() + 1, {"  of which with fractional GPUs rounded up", Count(r.rounded_jobs)});
  // Likewise the metrics window, when one is set.
  if (r.window_start_s > 0 || r.window_end_s > 0)
    t.rows.insert(t.rows.begin(), {"metrics window (h)", r.window_end_s > 0 ? fmt::format("{}..{}", Hours(r.window_start_s / 3600.0), Hours(r.window_end_s / 3600.0))
                                                                          : fmt::format("{}..end", Hours(r.window_start_s / 3600.0))});
  // Likewise jobs admitted by quota that no node can take (the load-time warnings name them).
  if (r.fit_no_node > 0) {
    const auto after = std::find_if(t.rows.begin(), t.rows.end(), [](const auto& row) {
      return row[0] == "  of which can never be (too large)";
    });
    t.rows.insert(after + 1, {"jobs that fit no node (never run)", Count(r.fit_no_node)});
  }
  return t;
}

Table Jobs(const SimulationResult& r) {
  Table t{.id = "jobs",
          .title = "Jobs by ClusterQueue and priority class (times in s)",
          .header = {"cluster queue", "team", "class", "jobs", "admitted", "started", "completed",
                     "pending", "preempted", "evicted", "wait (admitted) p50", "p90", "p99", "max",
                     "done p50", "p90", "p99", "max", "unplaced h"},
          .text_columns = 3, .rows = {},
          .note = "completed <= started <= admitted: a job admitted but never placed on nodes has not run; "
                  "waits here are over admitted jobs (next table: all jobs)"};
  for (const GroupSummary& g : r.groups) {
    t.rows.push_back({g.cluster_queue, OrDash(g.team), ClassName(g), Count(g.jobs),
                      Count(g.admitted), Count(g.started), Count(g.completed), Count(g.never_admitted),
                      Count(g.preemptions), Count(g.evictions), Seconds(g.wait.p50),
                      Seconds(g.wait.p90), Seconds(g.wait.p99), Seconds(g.wait.max),
                      Seconds(g.completion.p50), Seconds(g.completion.p90),
                      Seconds(g.completion.p99), Seconds(g.completion.max),
                      Hours(g.unplaced_hours)});
  }
  if (t.rows.empty()) t.note = "no jobs";
  return t;
}

Table CensoredWaits(const SimulationResult& r) {
  Table t{.id = "waits-all",
          .title = "Wait (all, censored at end): submission to first admission, or to the end of the run for "
                   "jobs never admitted (s)",
          .header = {"cluster queue", "team", "class", "jobs waited", "never admitted", "wait (all) p50",
                     "p90", "p99", "max", "mean"},
          .text_columns = 3, .rows = {}, .note = {}};
  for (const GroupSummary& g : r.groups) {
    t.rows.push_back({g.cluster_queue, OrDash(g.team), ClassName(g), Count(g.wait_all.count),
                      Count(g.wait_all.count - g.wait.count), Seconds(g.wait_all.p50),
                      Seconds(g.wait_all.p90), Seconds(g.wait_all.p99), Seconds(g.wait_all.max),
                      Seconds(g.wait_all.mean)});
  }
  if (t.rows.empty()) t.note = "no jobs";
  return t;
}

std::vector<std::string> HoursCells(const ResourceHours& h) {
  return {Hours(h.used), Hours(h.borrowed), Hours(h.lent), Hours(h.goodput_lost)};
}

Table ResourceHoursTable(const SimulationResult& r) {
  Table t{.id = "resource-hours",
          .title = "Resource-hours by ClusterQueue and priority class",
          .header = {"cluster queue", "class", "resource", "used", "borrowed", "lent",
                     "goodput lost"},
          .text_columns = 3, .rows = {}, .note = {}};
  for (const ResourceHours& h : r.totals) {
    std::vector<std::string> row = {"(all queues)", "(all)",
                                    ResourceWithUnit(h.resource, DisplayUnit(h.resource))};
    for (std::string& cell : HoursCells(h)) row.push_back(std::move(cell));
    t.rows.push_back(std::move(row));
  }
  for (const GroupSummary& g : r.groups) {
    for (const ResourceHours& h : g.resources) {
      std::vector<std::string> row = {g.cluster_queue, ClassName(g),
                                      ResourceWithUnit(h.resource, DisplayUnit(h.resource))};
      for (std::string& cell : HoursCells(h)) row.push_back(std::move(cell));
      t.rows.push_back(std::move(row));
    }
  }
  if (t.rows.empty()) t.note = "no resources used";
  return t;
}

Table Utilization(const SimulationResult& r) {
  Table t{.id = "utilization",
          .title = "Cluster utilization (time averages over the run)",
          .header = {"flavor", "resource", "capacity", "nominal", "avg used", "avg admitted",
                     "utilization %"},
          .text_columns = 2, .rows = {}, .note = {}};
  for (const FlavorUtilization& u : r.utilization) {
    t.rows.push_back({u.flavor, ResourceWithUnit(u.resource, DisplayUnit(u.resource)),
                      Hours(u.capacity), Hours(u.nominal), Hours(u.avg_used),
                      Hours(u.avg_admitted), Percent(u.utilization)});
  }
  if (t.rows.empty()) t.note = "no flavors";
  return t;
}

// A bucket has demand when some queue has pending jobs or placed pods in it (the buckets
// `avg_jain` averages over).
std::vector<bool> BucketsWithDemand(const TimeSeries& s) {
  std::vector<bool> demand(s.start_s.size(), false);
  for (const auto& queue : s.pending) {
    for (size_t b = 0; b < queue.size() && b < demand.size(); ++b) demand[b] = demand[b] || queue[b] > 0;
  }
  for (const auto& resource : s.used) {
    for (const auto& queue : resource) {
      for (size_t b = 0; b < queue.size() && b < demand.size(); ++b) demand[b] = demand[b] || queue[b] > 0;
    }
  }
  return demand;
}

Table Shares(const SimulationResult& r) {
  const TimeSeries& s = r.series;
  Table t{.id = "shares",
          .title = "Weighted share by ClusterQueue (over the time buckets)",
          .header = {"cluster queue", "mean share", "max share", "preemptions of its jobs"},
          .text_columns = 1, .rows = {}, .note = {}};
  for (size_t q = 0; q < s.queues.size(); ++q) {
    double sum = 0, max = 0;
    size_t n = 0;
    if (q < s.share.size()) {
      for (double v : s.share[q]) {
        sum += v;
        max = std::max(max, v);
        ++n;
      }
    }
    int64_t preempted = 0;
    if (q < s.preemptions.size()) {
      for (int64_t v : s.preemptions[q]) preempted += v;
    }
    t.rows.push_back({s.queues[q], Ratio(n ? sum / static_cast<double>(n) : 0.0), Ratio(max),
                      Count(preempted)});
  }
  if (t.rows.empty()) t.note = "no time series";
  return t;
}

Table JainOverTime(const SimulationResult& r) {
  const TimeSeries& s = r.series;
  Table t{.id = "jain",
          .title = "Jain's index over time (mean over buckets with demand)",
          .header = {"from (s)", "to (s)", "Jain's index"},
          .text_columns = 0, .rows = {}, .note = {}};
  const size_t buckets = std::min(s.start_s.size(), s.jain.size());
  const std::vector<bool> demand = BucketsWithDemand(s);
  const size_t windows = std::min(buckets, kJainWindows);
  for (size_t w = 0; w < windows; ++w) {
    const size_t begin = w * buckets / windows, end = (w + 1) * buckets / windows;
    double sum = 0;
    size_t n = 0;
    for (size_t b = begin; b < end; ++b) {
      if (!demand[b]) continue;
      sum += s.jain[b];
      ++n;
    }
    t.rows.push_back({Seconds(s.start_s[begin]), Seconds(s.start_s[end - 1] + s.bucket_seconds),
                      n ? Ratio(sum / static_cast<double>(n)) : "-"});
  }
  if (t.rows.empty()) t.note = "no time series";
  return t;
}

// From the run's complete counters (the log is capped; the counts are not).
Table Preemptions(const SimulationResult& r) {
  Table t{.id = "preemptions",
          .title = "Preemptions and evictions by victim ClusterQueue and reason",
          .header = {"cluster queue", "reason", "by", "count"},
          .text_columns = 3, .rows = {}, .note = {}};
  std::map<std::tuple<std::string, std::string, std::string>, int64_t> counts;
  for (const PreemptionCount& c : r.preemption_counts) {
    counts[{c.cluster_queue, c.reason, Preemptor(c.preemptor_queue)}] += c.count;
  }
  for (const auto& [key, n] : counts) {
    t.rows.push_back({std::get<0>(key), OrDash(std::get<1>(key)), std::get<2>(key), Count(n)});
  }
  if (t.rows.empty()) t.note = "no preemptions";
  return t;
}

}  // namespace

std::string LivelockHeadline(const SimulationResult& r) {
  const Livelock& l = r.livelock;
  if (!l.detected) return "";
  if (l.at_one_instant) {
    return fmt::format(
        "LIVELOCK at t={} s ({} h): preempted pods stop at once (eviction delay 0) and evictions kept causing "
        "new preemptions at this instant; the run was stopped there. Last progress at t={} s ({} h).",
        Seconds(l.stopped_s), Hours(l.stopped_s / 3600.0), Seconds(l.stalled_since_s),
        Hours(l.stalled_since_s / 3600.0));
  }
  return fmt::format(
      "LIVELOCK: no progress since t={} s ({} h): for {} h no job completed, kept a checkpoint or ran "
      "uninterrupted, while {} preemptions and evictions went on; the run was stopped at t={} s ({} h).",
      Seconds(l.stalled_since_s), Hours(l.stalled_since_s / 3600.0), Hours(l.window_s / 3600.0), l.preemptions,
      Seconds(l.stopped_s), Hours(l.stopped_s / 3600.0));
}

std::vector<Table> LivelockTables(const SimulationResult& r) {
  const Livelock& l = r.livelock;
  if (!l.detected) return {};
  const std::string window = fmt::format("the last {} h", Hours(l.window_s / 3600.0));
  Table pairs{.id = "livelock-pairs",
              .title = fmt::format("Livelock: preemptions in {} by preemptor -> victim ClusterQueue", window),
              .header = {"preemptor queue", "victim queue", "preemptions"},
              .text_columns = 2, .rows = {}, .note = {}};
  for (const Livelock::QueuePair& p : l.pairs) {
    pairs.rows.push_back({Preemptor(p.preemptor_queue), p.cluster_queue, Count(p.count)});
  }
  if (pairs.rows.empty()) pairs.note = "no preemptions";
  Table workloads{.id = "livelock-workloads",
                  .title = fmt::format("Livelock: most-preempted workloads in {}", window),
                  .header = {"workload", "cluster queue", "preemptions"},
                  .text_columns = 2, .rows = {}, .note = {}};
  for (const Livelock::Workload& w : l.workloads) {
    workloads.rows.push_back({w.workload, w.cluster_queue, Count(w.count)});
  }
  if (l.workloads_left_out > 0) {
    workloads.note = fmt::format("{} more workloads were preempted in the window", l.workloads_left_out);
  }
  return {std::move(pairs), std::move(workloads)};
}

// How far `Engine::Forecast` was from what happened (SimulationOptions::forecast_every).
Table ForecastAccuracyTable(const ForecastAccuracy& a) {
  Table t;
  t.id = "forecast";
  t.title = fmt::format("Forecast accuracy: every pending job forecast every {}h with exact run times and no new "
                        "arrivals, against its actual next admission",
                        Fixed(a.every_s / 3600, 1));
  t.header = {"jobs", "compared", "median |error| h", "p90 |error| h", "median wait h", "median |error|/wait",
              "within 10%"};
  for (const std::vector<ForecastErrorRow>* rows : {&a.by_team, &a.by_load, &a.by_arrivals}) {
    for (const ForecastErrorRow& r : *rows)
      t.rows.push_back({r.name, std::to_string(r.compared), Fixed(r.median_abs_error_s / 3600, 2),
                        Fixed(r.p90_abs_error_s / 3600, 2), Fixed(r.median_wait_s / 3600, 2),
                        Fixed(r.median_relative_error, 3), Fixed(r.within_10_percent * 100, 1) + "%"});
  }
  const ForecastErrorRow& r = a.all;
  t.rows.push_back({"all", std::to_string(r.compared), Fixed(r.median_abs_error_s / 3600, 2),
                    Fixed(r.p90_abs_error_s / 3600, 2), Fixed(r.median_wait_s / 3600, 2),
                    Fixed(r.median_relative_error, 3), Fixed(r.within_10_percent * 100, 1) + "%"});
  t.note = fmt::format("{} samples, {} forecasts: {} compared, {} forecast but never admitted, {} not forecast within "
                       "90 days but admitted",
                       a.samples, a.forecasts, a.compared, a.missed, a.unexpected);
  return t;
}

std::vector<Table> RunTables(const SimulationResult& result) {
  std::vector<Table> tables;
  tables.push_back(Overview(result));
  tables.push_back(Jobs(result));
  tables.push_back(CensoredWaits(result));
  tables.push_back(ResourceHoursTable(result));
  tables.push_back(Utilization(result));
  tables.push_back(Shares(result));
  tables.push_back(JainOverTime(result));
  tables.push_back(Preemptions(result));
  if (result.forecast_accuracy) tables.push_back(ForecastAccuracyTable(*result.forecast_accuracy));
  return tables;
}

}  // namespace qm::sim::internal
