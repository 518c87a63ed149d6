// The side-by-side tables of several runs (table.h `ComparisonTables`).
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "qm/sim/sim_result.h"
#include "sim/sim_format.h"
#include "sim/table.h"

namespace qm::sim::internal {

namespace {

std::string Count(int64_t v) { return fmt::format("{}", v); }
std::string ClassName(const GroupSummary& g) { return g.priority_class.empty() ? "(all)" : g.priority_class; }

// Collects rows keyed by their text cells, one value column per run. Rows keep the order in which
// they first appear; the map is for lookup only.
class SideBySide {
 public:
  SideBySide(Table table, size_t runs) : table_(std::move(table)), runs_(runs) {}

  void Set(size_t run, std::vector<std::string> key, std::string value) {
    auto [it, inserted] = index_.try_emplace(key, table_.rows.size());
    if (inserted) {
      std::vector<std::string> row = std::move(key);
      row.resize(row.size() + runs_, "-");
      table_.rows.push_back(std::move(row));
    }
    table_.rows[it->second][table_.text_columns + run] = std::move(value);
  }

  Table Take(std::string_view empty_note) {
    if (table_.rows.empty()) table_.note = std::string(empty_note);
    return std::move(table_);
  }

 private:
  Table table_;
  size_t runs_;
  std::map<std::vector<std::string>, size_t> index_;
};

Table Header(std::string id, std::string title, std::vector<std::string> keys,
             std::span<const SimulationResult> runs) {
  Table t{.id = std::move(id), .title = std::move(title), .header = std::move(keys),
          .text_columns = 0, .rows = {}, .note = {}};
  t.text_columns = t.header.size();
  for (size_t i = 0; i < runs.size(); ++i) {
    t.header.push_back(runs[i].label.empty() ? fmt::format("run {}", i + 1) : runs[i].label);
  }
  return t;
}

// A resource no run used, borrowed or requested (a HyperPod instance type's EFA devices, say)
// would only add rows of zeros.
bool UsedInSomeRun(std::span<const SimulationResult> runs, const std::string& resource) {
  for (const SimulationResult& r : runs) {
    for (const ResourceHours& h : r.totals) {
      if (h.resource == resource && (h.used > 0 || h.borrowed > 0 || h.goodput_lost > 0)) return true;
    }
  }
  return false;
}

Table RunMeasures(std::span<const SimulationResult> runs) {
  SideBySide t(Header("compare-runs", "Runs side by side", {"measure"}, runs), runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    const SimulationResult& r = runs[i];
    t.Set(i, {"jobs submitted"}, Count(r.jobs));
    t.Set(i, {"admissions"}, Count(r.admissions));
    t.Set(i, {"jobs admitted (at least once)"}, Count(r.admitted));
    t.Set(i, {"jobs started (placed at least once)"}, Count(r.started));
    t.Set(i, {"jobs completed"}, Count(r.completed));
    t.Set(i, {"jobs never admitted"}, Count(r.never_admitted));
    t.Set(i, {"  of which can never be (too large)"}, Count(r.never_admittable));
    t.Set(i, {"preemptions"}, Count(r.preemptions));
    t.Set(i, {"preemptions per completed job"}, Fixed(r.preemptions_per_completed_job, 3));
    t.Set(i, {"node-failure evictions"}, Count(r.fault_evictions));
    t.Set(i, {"makespan (s)"}, Fixed(r.makespan_s, 1));
    t.Set(i, {"admitted but unplaced (job-hours)"}, Fixed(r.unplaced_hours, 2));
    t.Set(i, {"Jain's index (time average)"}, Fixed(r.avg_jain, 3));
    t.Set(i, {"GPU-hours lost per GPU-hour completed"}, Fixed(r.gpu_hours_lost_per_completed, 3));
    t.Set(i, {"livelock (stopped at, h)"},
          r.livelock.detected ? fmt::format("yes, {}", Fixed(r.livelock.stopped_s / 3600.0, 2)) : "no");
    for (const ResourceHours& h : r.totals) {
      if (!UsedInSomeRun(runs, h.resource)) continue;
      const std::string res = ResourceWithUnit(h.resource, DisplayUnit(h.resource));
      t.Set(i, {res + " hours used"}, Fixed(h.used, 2));
      t.Set(i, {res + " hours borrowed"}, Fixed(h.borrowed, 2));
      t.Set(i, {res + " goodput lost"}, Fixed(h.goodput_lost, 2));
    }
  }
  return t.Take("no runs");
}

// One table per measure of the queue/class groups, rows (queue, class), a column per run.
template <class Value>
Table GroupMeasure(std::span<const SimulationResult> runs, std::string id, std::string title,
                   Value value) {
  SideBySide t(Header(std::move(id), std::move(title), {"cluster queue", "class"}, runs), runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const GroupSummary& g : runs[i].groups) t.Set(i, {g.cluster_queue, ClassName(g)}, value(g));
  }
  return t.Take("no jobs");
}

Table UtilizationMeasures(std::span<const SimulationResult> runs) {
  SideBySide t(Header("compare-utilization", "Cluster utilization % (time average)",
                      {"flavor", "resource"}, runs),
               runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const FlavorUtilization& u : runs[i].utilization) {
      if (!UsedInSomeRun(runs, u.resource)) continue;
      t.Set(i, {u.flavor, ResourceWithUnit(u.resource, DisplayUnit(u.resource))},
            Fixed(u.utilization * 100.0, 1));
    }
  }
  return t.Take("no flavors");
}

}  // namespace

std::vector<Table> ComparisonTables(std::span<const SimulationResult> runs) {
  std::vector<Table> tables;
  tables.push_back(RunMeasures(runs));
  tables.push_back(GroupMeasure(runs, "compare-admitted", "Jobs admitted / submitted",
                                [](const GroupSummary& g) { return fmt::format("{}/{}", g.admitted, g.jobs); }));
  tables.push_back(GroupMeasure(runs, "compare-started", "Jobs started (placed at least once) / admitted",
                                [](const GroupSummary& g) { return fmt::format("{}/{}", g.started, g.admitted); }));
  tables.push_back(GroupMeasure(runs, "compare-wait-p50", "Wait time p50, admitted jobs (s)",
                                [](const GroupSummary& g) { return Fixed(g.wait.p50, 1); }));
  tables.push_back(GroupMeasure(runs, "compare-wait-p90", "Wait time p90, admitted jobs (s)",
                                [](const GroupSummary& g) { return Fixed(g.wait.p90, 1); }));
  tables.push_back(GroupMeasure(runs, "compare-wait-p99", "Wait time p99, admitted jobs (s)",
                                [](const GroupSummary& g) { return Fixed(g.wait.p99, 1); }));
  tables.push_back(GroupMeasure(runs, "compare-wait-all-p99",
                                "Wait time p99, all jobs (never admitted: censored at the end of the run) (s)",
                                [](const GroupSummary& g) { return Fixed(g.wait_all.p99, 1); }));
  tables.push_back(GroupMeasure(runs, "compare-completion-p50", "Time to completion p50 (s)",
                                [](const GroupSummary& g) { return Fixed(g.completion.p50, 1); }));
  tables.push_back(GroupMeasure(runs, "compare-preempted", "Preemptions of its jobs",
                                [](const GroupSummary& g) { return Count(g.preemptions); }));
  tables.push_back(UtilizationMeasures(runs));
  return tables;
}

}  // namespace qm::sim::internal
