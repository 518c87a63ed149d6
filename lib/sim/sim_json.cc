// The JSON forms of a simulation summary (sim_result.h; keys in docs/simulate-output.md §JSON).
//
// Written by hand rather than through a document tree: keys come out in the fixed order below,
// numbers through `JsonNumber` (nine significant digits, never locale-dependent), strings through
// `JsonString` (quotes, backslashes and control characters escaped; other bytes, UTF-8 included,
// passed through). One object per line of nesting would make 120-bucket series unreadable, so the
// output is compact: one line, then a newline.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fmt/format.h"
#include "qm/sim/sim_result.h"
#include "sim/sim_format.h"
#include "text/doc.h"

namespace qm::sim {

namespace {
using ::qm::internal::JsonString;
using ::qm::sim::internal::JsonNumber;

// Appends `"key":` after a comma unless the object was just opened.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) { out_ += '{'; }
  ~ObjectWriter() { out_ += '}'; }
  ObjectWriter(const ObjectWriter&) = delete;
  ObjectWriter& operator=(const ObjectWriter&) = delete;

  std::string& Key(std::string_view key) {
    if (!first_) out_ += ',';
    first_ = false;
    out_ += JsonString(key);
    out_ += ':';
    return out_;
  }
  void Int(std::string_view key, int64_t v) { Key(key) += fmt::format("{}", v); }
  void Num(std::string_view key, double v) { Key(key) += JsonNumber(v); }
  void Str(std::string_view key, std::string_view v) { Key(key) += JsonString(v); }
  void Bool(std::string_view key, bool v) { Key(key) += v ? "true" : "false"; }

 private:
  std::string& out_;
  bool first_ = true;
};

template <class T, class Fn>
void Array(std::string& out, const std::vector<T>& items, Fn write_item) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    write_item(out, items[i]);
  }
  out += ']';
}

void Number(std::string& out, double v) { out += JsonNumber(v); }
void Integer(std::string& out, int64_t v) { out += fmt::format("{}", v); }
void String(std::string& out, const std::string& v) { out += JsonString(v); }

void WriteHours(std::string& out, const ResourceHours& h) {
  ObjectWriter o(out);
  o.Str("resource", h.resource);
  o.Str("unit", DisplayUnit(h.resource));
  o.Num("used", h.used);
  o.Num("borrowed", h.borrowed);
  o.Num("lent", h.lent);
  o.Num("goodput_lost", h.goodput_lost);
}

void WritePercentiles(std::string& out, const Percentiles& p) {
  ObjectWriter o(out);
  o.Int("count", p.count);
  o.Num("mean_s", p.mean);
  o.Num("p50_s", p.p50);
  o.Num("p90_s", p.p90);
  o.Num("p99_s", p.p99);
  o.Num("max_s", p.max);
}

void WriteGroup(std::string& out, const GroupSummary& g) {
  ObjectWriter o(out);
  o.Str("cluster_queue", g.cluster_queue);
  o.Str("team", g.team);
  o.Str("priority_class", g.priority_class);
  o.Int("jobs", g.jobs);
  o.Int("admitted", g.admitted);
  o.Int("started", g.started);
  o.Int("completed", g.completed);
  o.Int("never_admitted", g.never_admitted);
  o.Int("preemptions", g.preemptions);
  o.Int("evictions", g.evictions);
  WritePercentiles(o.Key("wait"), g.wait);
  WritePercentiles(o.Key("wait_all"), g.wait_all);
  WritePercentiles(o.Key("completion"), g.completion);
  o.Num("unplaced_hours", g.unplaced_hours);
  Array(o.Key("resource_hours"), g.resources, WriteHours);
  Array(o.Key("wait_quantiles_s"), g.wait_quantiles, Number);
  Array(o.Key("wait_all_quantiles_s"), g.wait_all_quantiles, Number);
}

void WriteUtilization(std::string& out, const FlavorUtilization& u) {
  ObjectWriter o(out);
  o.Str("flavor", u.flavor);
  o.Str("resource", u.resource);
  o.Str("unit", DisplayUnit(u.resource));
  o.Num("capacity", u.capacity);
  o.Num("nominal", u.nominal);
  o.Num("avg_used", u.avg_used);
  o.Num("avg_admitted", u.avg_admitted);
  o.Num("utilization", u.utilization);
}

// `{"<name>": [...], ...}` over parallel name and row vectors; a missing row is written as [].
template <class Row, class Fn>
void Keyed(std::string& out, const std::vector<std::string>& names, const std::vector<Row>& rows,
           Fn write_row) {
  ObjectWriter o(out);
  for (size_t i = 0; i < names.size(); ++i) {
    if (i < rows.size()) {
      write_row(o.Key(names[i]), rows[i]);
    } else {
      o.Key(names[i]) += "[]";
    }
  }
}

void WriteSeries(std::string& out, const TimeSeries& s) {
  auto numbers = [](std::string& o, const std::vector<double>& row) { Array(o, row, Number); };
  auto integers = [](std::string& o, const std::vector<int64_t>& row) { Array(o, row, Integer); };
  ObjectWriter o(out);
  o.Num("bucket_seconds", s.bucket_seconds);
  Array(o.Key("start_s"), s.start_s, Number);
  Array(o.Key("queues"), s.queues, String);
  Array(o.Key("resources"), s.resources, String);
  Keyed(o.Key("used"), s.resources, s.used,
        [&](std::string& u, const std::vector<std::vector<double>>& per_queue) {
          Keyed(u, s.queues, per_queue, numbers);
        });
  Keyed(o.Key("capacity"), s.resources, s.capacity, numbers);
  Keyed(o.Key("pending"), s.queues, s.pending, numbers);
  Keyed(o.Key("share"), s.queues, s.share, numbers);
  Array(o.Key("jain"), s.jain, Number);
  Keyed(o.Key("preemptions"), s.queues, s.preemptions, integers);
  Array(o.Key("pair_preemptions"), s.pair_preemptions, [&](std::string& out_pair, const TimeSeries::PairSeries& p) {
    ObjectWriter w(out_pair);
    w.Str("preemptor_queue", p.preemptor_queue);
    w.Str("cluster_queue", p.cluster_queue);
    integers(w.Key("counts"), p.counts);
  });
}

void WriteLivelock(std::string& out, const Livelock& l) {
  ObjectWriter o(out);
  o.Bool("detected", l.detected);
  o.Bool("at_one_instant", l.at_one_instant);
  o.Num("stopped_s", l.stopped_s);
  o.Num("stalled_since_s", l.stalled_since_s);
  o.Num("window_s", l.window_s);
  o.Int("preemptions", l.preemptions);
  Array(o.Key("pairs"), l.pairs, [](std::string& item, const Livelock::QueuePair& p) {
    ObjectWriter w(item);
    w.Str("preemptor_queue", p.preemptor_queue);
    w.Str("cluster_queue", p.cluster_queue);
    w.Int("count", p.count);
  });
  Array(o.Key("workloads"), l.workloads, [](std::string& item, const Livelock::Workload& wl) {
    ObjectWriter w(item);
    w.Str("workload", wl.workload);
    w.Str("cluster_queue", wl.cluster_queue);
    w.Int("count", wl.count);
  });
  o.Int("workloads_left_out", l.workloads_left_out);
}

void WritePreemptionCount(std::string& out, const PreemptionCount& c) {
  ObjectWriter o(out);
  o.Str("cluster_queue", c.cluster_queue);
  o.Str("reason", c.reason);
  o.Str("preemptor_queue", c.preemptor_queue);
  o.Int("count", c.count);
}

void WriteReasonCount(std::string& out, const ReasonCount& c) {
  ObjectWriter o(out);
  o.Str("cluster_queue", c.cluster_queue);
  o.Str("reason", c.reason);
  o.Int("count", c.count);
}

void WritePreemption(std::string& out, const PreemptionRecord& p) {
  ObjectWriter o(out);
  o.Num("time_s", p.time_s);
  o.Str("workload", p.workload);
  o.Str("cluster_queue", p.cluster_queue);
  o.Str("preemptor_queue", p.preemptor_queue);
  o.Str("reason", p.reason);
}

void WriteForecastRow(std::string& out, const ForecastErrorRow& r) {
  ObjectWriter o(out);
  o.Str("name", r.name);
  o.Int("compared", r.compared);
  o.Num("median_abs_error_s", r.median_abs_error_s);
  o.Num("p90_abs_error_s", r.p90_abs_error_s);
  o.Num("median_wait_s", r.median_wait_s);
  o.Num("median_relative_error", r.median_relative_error);
  o.Num("within_10_percent", r.within_10_percent);
}

void WriteForecastAccuracy(std::string& out, const ForecastAccuracy& a) {
  ObjectWriter o(out);
  o.Num("every_s", a.every_s);
  o.Int("samples", a.samples);
  o.Int("forecasts", a.forecasts);
  o.Int("compared", a.compared);
  o.Int("missed", a.missed);
  o.Int("unexpected", a.unexpected);
  WriteForecastRow(o.Key("all"), a.all);
  Array(o.Key("by_team"), a.by_team, WriteForecastRow);
  Array(o.Key("by_load"), a.by_load, WriteForecastRow);
  Array(o.Key("by_arrivals"), a.by_arrivals, WriteForecastRow);
}

void WriteRun(std::string& out, const SimulationResult& r) {
  ObjectWriter o(out);
  o.Str("label", r.label);
  o.Int("jobs", r.jobs);
  o.Int("admissions", r.admissions);
  o.Int("admitted", r.admitted);
  o.Int("started", r.started);
  o.Int("completed", r.completed);
  o.Int("never_admitted", r.never_admitted);
  o.Int("never_admittable", r.never_admittable);
  if (r.rounded_jobs > 0) o.Int("rounded_jobs", r.rounded_jobs);  // only then: other runs keep their bytes
  if (r.fit_no_node > 0) o.Int("fit_no_node", r.fit_no_node);      // likewise
  if (!r.warnings.empty()) Array(o.Key("warnings"), r.warnings, String);
  if (r.window_start_s > 0 || r.window_end_s > 0) {  // likewise
    o.Num("window_start_s", r.window_start_s);
    o.Num("window_end_s", r.window_end_s);
  }
  o.Int("preemptions", r.preemptions);
  o.Int("fault_evictions", r.fault_evictions);
  o.Int("node_failures", r.node_failures);
  o.Int("cycles", r.cycles);
  o.Int("instants", r.instants);
  o.Num("makespan_s", r.makespan_s);
  o.Num("unplaced_hours", r.unplaced_hours);
  o.Num("avg_jain", r.avg_jain);
  o.Num("preemptions_per_completed_job", r.preemptions_per_completed_job);
  o.Num("gpu_hours_completed", r.gpu_hours_completed);
  o.Num("gpu_hours_lost", r.gpu_hours_lost);
  o.Num("gpu_hours_lost_per_completed", r.gpu_hours_lost_per_completed);
  o.Int("checkpoints_kept", r.checkpoints_kept);
  o.Num("stall_window_s", r.stall_window_s);
  WriteLivelock(o.Key("livelock"), r.livelock);
  Array(o.Key("resource_hours"), r.totals, WriteHours);
  Array(o.Key("groups"), r.groups, WriteGroup);
  Array(o.Key("utilization"), r.utilization, WriteUtilization);
  WriteSeries(o.Key("series"), r.series);
  Array(o.Key("preemption_log"), r.preemption_log, WritePreemption);
  o.Int("preemption_log_dropped", r.preemption_log_dropped);
  Array(o.Key("preemption_counts"), r.preemption_counts, WritePreemptionCount);
  Array(o.Key("preemptions_by_reason"), r.preemptions_by_reason, WriteReasonCount);
  if (r.forecast_accuracy) WriteForecastAccuracy(o.Key("forecast_accuracy"), *r.forecast_accuracy);  // only then
}

}  // namespace

std::string FormatSimulationJson(const SimulationResult& result) {
  std::string out;
  WriteRun(out, result);
  out += '\n';
  return out;
}

std::string FormatComparisonJson(std::span<const SimulationResult> runs) {
  std::string out;
  {
    ObjectWriter o(out);
    std::string& list = o.Key("runs");
    list += '[';
    for (size_t i = 0; i < runs.size(); ++i) {
      if (i > 0) list += ',';
      WriteRun(list, runs[i]);
    }
    list += ']';
  }
  out += '\n';
  return out;
}

}  // namespace qm::sim
