// The HTML report of one or several simulation runs (sim_result.h `RenderHtmlReport`;
// docs/simulate-output.md §Report).
//
// One self-contained page: inline CSS, inline SVG (svg_chart.h), no script, no fonts or images
// from anywhere. Nothing time- or machine-dependent is written (no generation date), so equal
// results give equal bytes.
#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "qm/sim/sim_result.h"
#include "sim/sim_format.h"
#include "sim/sim_html_overlay.h"
#include "sim/svg_chart.h"
#include "sim/table.h"

namespace qm::sim {

namespace {
using internal::ChartSeries;
using internal::HtmlEscape;
using internal::PaletteColor;
using internal::Table;

// Charts show this many series by name; the rest are summed into "other" (or left out where a sum
// means nothing), so a legend of 100 queues stays readable.
constexpr size_t kTopSeries = 10;
// The timeline shows this many victim queues and reasons by name, the rest as "other".
constexpr size_t kTopRows = 15;
constexpr size_t kTopKinds = 8;

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; color: #222; margin: 24px auto; max-width: 1100px; padding: 0 16px; }
h1 { font-size: 26px; } h2 { font-size: 21px; border-bottom: 2px solid #4e79a7; padding-bottom: 4px;
margin-top: 40px; } h3 { font-size: 16px; margin: 22px 0 6px; }
nav ul { columns: 2; } .empty { color: #555; font-style: italic; }
table { border-collapse: collapse; font-size: 12px; margin: 4px 0 8px; }
th, td { border: 1px solid #ddd; padding: 2px 6px; white-space: nowrap; }
th { background: #f0f3f7; text-align: left; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
.scroll { overflow-x: auto; max-width: 100%; }
figure.chart { margin: 12px 0 20px; } figcaption { font-weight: bold; margin-bottom: 4px; }
.note { color: #555; font-size: 12px; margin: 0 0 8px; }
.livelock { border: 3px solid #c62828; background: #fdecea; padding: 4px 16px 12px; margin: 16px 0; }
.livelock h3 { color: #b71c1c; font-size: 18px; } .livelock td { background: #fff; }
)css";

std::string RunName(const SimulationResult& r, size_t i) {
  return r.label.empty() ? fmt::format("run {}", i + 1) : r.label;
}

std::string TableHtml(const Table& t, std::string_view id_prefix) {
  std::string out = fmt::format("<h3 id=\"{}{}\">{}</h3>\n", id_prefix, HtmlEscape(t.id),
                                HtmlEscape(t.title));
  if (!t.rows.empty()) {
    out += "<div class=\"scroll\"><table>\n<thead><tr>";
    for (const std::string& h : t.header) out += "<th>" + HtmlEscape(h) + "</th>";
    out += "</tr></thead>\n<tbody>\n";
    for (const auto& row : t.rows) {
      out += "<tr>";
      for (size_t i = 0; i < row.size(); ++i) {
        out += i < t.text_columns ? "<td>" : "<td class=\"n\">";
        out += HtmlEscape(row[i]) + "</td>";
      }
      out += "</tr>\n";
    }
    out += "</tbody></table></div>\n";
  }
  if (!t.note.empty()) out += "<p class=\"note\">" + HtmlEscape(t.note) + "</p>\n";
  return out;
}

std::string Empty(std::string_view id, std::string_view title, std::string_view message) {
  return fmt::format("<h3 id=\"{}\">{}</h3>\n<p class=\"empty\">{}</p>\n", HtmlEscape(id),
                     HtmlEscape(title), HtmlEscape(message));
}

// Keeps the `kTopSeries` series with the largest sums (ties: by name) in that order and, when
// `other` is true, adds the rest up as "other". Colours follow the rank, or `colors` (by name)
// when given, so that a team keeps its colour from chart to chart.
std::vector<ChartSeries> TopSeries(std::vector<ChartSeries> all, size_t buckets, bool other,
                                   const std::map<std::string, size_t>& colors = {}) {
  std::vector<std::pair<double, size_t>> rank;
  for (size_t i = 0; i < all.size(); ++i) {
    double sum = 0;
    for (double v : all[i].values) sum += v;
    rank.emplace_back(sum, i);
  }
  std::sort(rank.begin(), rank.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return all[a.second].name < all[b.second].name;
  });
  std::vector<ChartSeries> kept;
  ChartSeries rest{.name = "", .color = internal::kOtherColor, .values = std::vector<double>(buckets, 0.0)};
  size_t rest_count = 0;
  for (size_t r = 0; r < rank.size(); ++r) {
    ChartSeries& s = all[rank[r].second];
    if (r < kTopSeries) {
      const auto c = colors.find(s.name);
      s.color = PaletteColor(c != colors.end() ? c->second : r);
      kept.push_back(std::move(s));
      continue;
    }
    ++rest_count;
    for (size_t b = 0; b < buckets && b < s.values.size(); ++b) rest.values[b] += s.values[b];
  }
  if (other && rest_count > 0) {
    rest.name = fmt::format("other ({})", rest_count);
    kept.push_back(std::move(rest));
  }
  return kept;
}

// The team a queue's jobs belong to: its HyperPod team, else the queue itself.
std::map<std::string, std::string> TeamOfQueue(const SimulationResult& r) {
  std::map<std::string, std::string> team;
  for (const GroupSummary& g : r.groups) {
    if (g.priority_class.empty() && !g.team.empty()) team[g.cluster_queue] = g.team;
  }
  return team;
}

// Per-queue rows of `rows` summed per team, in team-name order.
std::vector<ChartSeries> ByTeam(const SimulationResult& r, const std::vector<std::vector<double>>& rows) {
  const TimeSeries& s = r.series;
  const size_t buckets = s.start_s.size();
  const std::map<std::string, std::string> team_of = TeamOfQueue(r);
  std::map<std::string, std::vector<double>> sums;
  for (size_t q = 0; q < s.queues.size(); ++q) {
    const auto it = team_of.find(s.queues[q]);
    std::vector<double>& sum = sums[it == team_of.end() ? s.queues[q] : it->second];
    sum.resize(buckets, 0.0);
    for (size_t b = 0; q < rows.size() && b < buckets && b < rows[q].size(); ++b) sum[b] += rows[q][b];
  }
  std::vector<ChartSeries> series;
  for (auto& [name, values] : sums) series.push_back({name, "", std::move(values)});
  return series;
}

// A colour per team (or team-less queue), in name order: the same in every chart of a run.
std::map<std::string, size_t> TeamColors(const SimulationResult& r) {
  const std::map<std::string, std::string> team_of = TeamOfQueue(r);
  std::map<std::string, size_t> colors;
  for (const std::string& q : r.series.queues) {
    const auto it = team_of.find(q);
    colors.emplace(it == team_of.end() ? q : it->second, 0);
  }
  size_t i = 0;
  for (auto& [name, color] : colors) color = i++;
  return colors;
}

bool AnyPositive(const std::vector<std::vector<double>>& rows) {
  for (const auto& row : rows) {
    for (double v : row) {
      if (v > 0) return true;
    }
  }
  return false;
}

std::string UtilizationCharts(const SimulationResult& r, const std::string& id) {
  const TimeSeries& s = r.series;
  const std::map<std::string, size_t> colors = TeamColors(r);
  std::string out;
  for (size_t res = 0; res < s.resources.size(); ++res) {
    const std::string& name = s.resources[res];
    // A resource of the nodes that no job asked for (a p5's EFA devices, say) gets no chart.
    if (res >= s.used.size() || !AnyPositive(s.used[res])) continue;
    internal::StepChart chart{
        .id = fmt::format("{}-used-{}", id, res),
        .title = fmt::format("{} held by placed pods, stacked by team", name),
        .y_label = internal::ResourceWithUnit(name, DisplayUnit(name)),
        .start_s = s.start_s, .bucket_seconds = s.bucket_seconds,
        .series = TopSeries(ByTeam(r, s.used[res]), s.start_s.size(), /*other=*/true, colors),
        .stacked = true,
        .reference = {.name = "capacity", .color = "#222222",
                      .values = res < s.capacity.size() ? s.capacity[res] : std::vector<double>{}},
        .y_at_least = 0};
    out += internal::RenderStepChart(chart);
  }
  if (out.empty()) out += Empty(id + "-used", "Utilization over time", "No resources were used.");
  return out;
}

std::string PendingChart(const SimulationResult& r, const std::string& id) {
  internal::StepChart chart{
      .id = id + "-pending", .title = "Pending jobs per team (time average per bucket)",
      .y_label = "pending jobs", .start_s = r.series.start_s,
      .bucket_seconds = r.series.bucket_seconds,
      .series = TopSeries(ByTeam(r, r.series.pending), r.series.start_s.size(), /*other=*/true, TeamColors(r)),
      .stacked = false, .reference = {}, .y_at_least = 1};
  return internal::RenderStepChart(chart);
}

std::string FairnessCharts(const SimulationResult& r, const std::string& id) {
  const TimeSeries& s = r.series;
  std::vector<ChartSeries> shares;
  for (size_t q = 0; q < s.queues.size(); ++q) {
    shares.push_back({s.queues[q], "", q < s.share.size() ? s.share[q] : std::vector<double>{}});
  }
  // A sum of shares means nothing: queues past the top ones are left out, and the caption says so.
  const size_t left_out = shares.size() > kTopSeries ? shares.size() - kTopSeries : 0;
  internal::StepChart share_chart{
      .id = id + "-share",
      .title = left_out ? fmt::format("Weighted share per ClusterQueue (top {}; {} not shown)",
                                      kTopSeries, left_out)
                        : std::string("Weighted share per ClusterQueue"),
      .y_label = "weighted share", .start_s = s.start_s, .bucket_seconds = s.bucket_seconds,
      .series = TopSeries(std::move(shares), s.start_s.size(), /*other=*/false),
      .stacked = false, .reference = {}, .y_at_least = 1};
  internal::StepChart jain_chart{
      .id = id + "-jain", .title = "Jain's index over queues with demand (1 = equal shares)",
      .y_label = "Jain's index", .start_s = s.start_s, .bucket_seconds = s.bucket_seconds,
      .series = {{"Jain's index", PaletteColor(0), s.jain}},
      .stacked = false, .reference = {}, .y_at_least = 1};
  return internal::RenderStepChart(share_chart) + internal::RenderStepChart(jain_chart);
}

// Over every job, the never-admitted censored at the end of the run (`wait_all`): a CDF over
// admitted jobs only would hide exactly the starved ones.
std::string WaitCdfChart(const SimulationResult& r, const std::string& id) {
  std::vector<const GroupSummary*> groups;
  for (const GroupSummary& g : r.groups) {
    if (!g.priority_class.empty() && !g.wait_all_quantiles.empty()) groups.push_back(&g);
  }
  if (groups.empty()) {
    return Empty(id + "-wait-cdf", "Wait-time CDF per team and priority class",
                 "No job was submitted within the run: there are no wait times to show.");
  }
  // The groups with the most jobs; ties keep the summary's order.
  std::stable_sort(groups.begin(), groups.end(), [](const GroupSummary* a, const GroupSummary* b) {
    return a->wait_all.count > b->wait_all.count;
  });
  const size_t left_out = groups.size() > kTopSeries ? groups.size() - kTopSeries : 0;
  const std::string what = "all jobs, never admitted censored at the end of the run";
  groups.resize(std::min(groups.size(), kTopSeries));
  internal::CdfChart chart{
      .id = id + "-wait-cdf",
      .title = left_out ? fmt::format("Wait-time CDF per team and priority class, {} (the {} largest; {} not "
                                      "shown)", what, kTopSeries, left_out)
                        : fmt::format("Wait-time CDF per team and priority class, {}", what),
      .x_label = "wait from submission to first admission (or to the end of the run)", .series = {},
      .log_x = true};
  for (size_t i = 0; i < groups.size(); ++i) {
    const GroupSummary& g = *groups[i];
    chart.series.push_back({fmt::format("{} / {}", g.team.empty() ? g.cluster_queue : g.team,
                                        g.priority_class),
                            PaletteColor(i), g.wait_all_quantiles});
  }
  return internal::RenderCdfChart(chart);
}

// Names by descending count (ties: by name), the first `keep - 1` kept and the rest as "other"
// when there are more than `keep`. Returns the index of every name in the kept list.
std::map<std::string, size_t> RankNames(const std::map<std::string, int64_t>& counts, size_t keep,
                                        std::vector<std::string>& names) {
  std::vector<std::pair<int64_t, std::string>> order;
  for (const auto& [name, n] : counts) order.emplace_back(-n, name);
  std::sort(order.begin(), order.end());
  const size_t named = order.size() > keep ? keep - 1 : order.size();
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i < named) {
      index[order[i].second] = names.size();
      names.push_back(order[i].second);
    } else {
      index[order[i].second] = named;
    }
  }
  if (named < order.size()) names.push_back(fmt::format("other ({})", order.size() - named));
  return index;
}

std::string PreemptionTimeline(const SimulationResult& r, const std::string& id) {
  if (r.preemption_log.empty()) {
    return Empty(id + "-preemptions", "Preemption timeline",
                 r.preemptions + r.fault_evictions > 0
                     ? "The run counted preemptions, but recorded none in its log."
                     : "No preemptions or evictions in this run.");
  }
  std::map<std::string, int64_t> per_queue, per_reason;
  for (const PreemptionRecord& p : r.preemption_log) {
    ++per_queue[p.cluster_queue];
    ++per_reason[p.reason.empty() ? "(no reason)" : p.reason];
  }
  internal::TimelineChart chart{.id = id + "-preemptions",
                                .title = "Preemption timeline: victims by ClusterQueue, coloured by reason",
                                .rows = {}, .kinds = {}, .marks = {}, .end_s = 0};
  const auto row_of = RankNames(per_queue, kTopRows, chart.rows);
  const auto kind_of = RankNames(per_reason, kTopKinds, chart.kinds);
  const double origin = r.series.start_s.empty() ? 0.0 : r.series.start_s.front();
  double end = r.series.start_s.empty() ? 0.0 : r.series.start_s.back() + r.series.bucket_seconds - origin;
  for (const PreemptionRecord& p : r.preemption_log) {
    end = std::max(end, p.time_s - origin);
    chart.marks.push_back({p.time_s - origin, row_of.at(p.cluster_queue),
                           kind_of.at(p.reason.empty() ? "(no reason)" : p.reason)});
  }
  chart.end_s = end;
  std::string out = internal::RenderTimelineChart(chart);
  if (r.preemption_log_dropped > 0) {
    out += fmt::format("<p class=\"note\">{} later records past the log's limit are not drawn.</p>\n",
                       r.preemption_log_dropped);
  }
  return out;
}

// Preemptions per bucket by (preemptor → victim) ClusterQueue pair, stacked: the top edge is all
// preemptions of the bucket. A pair that keeps a steady band while nothing completes is a loop.
std::string PairChart(const SimulationResult& r, const std::string& id) {
  const TimeSeries& s = r.series;
  if (s.pair_preemptions.empty()) return "";
  // Queues by their team where they have one, as in the other charts: the legend cuts long names,
  // and "hyperpod-ns-training-cl…" would hide which team is which.
  const std::map<std::string, std::string> team_of = TeamOfQueue(r);
  auto name = [&](const std::string& queue) {
    if (queue.empty()) return std::string("(outside the trace)");
    const auto it = team_of.find(queue);
    return it == team_of.end() ? queue : it->second;
  };
  std::vector<ChartSeries> pairs;
  for (const TimeSeries::PairSeries& p : s.pair_preemptions) {
    std::vector<double> values(s.start_s.size(), 0.0);
    for (size_t b = 0; b < values.size() && b < p.counts.size(); ++b) values[b] = static_cast<double>(p.counts[b]);
    pairs.push_back({fmt::format("{} \u2192 {}", name(p.preemptor_queue), name(p.cluster_queue)), "", std::move(values)});
  }
  internal::StepChart chart{
      .id = id + "-pair-preemptions",
      .title = "Preemptions per bucket by preemptor \u2192 victim ClusterQueue or team (stacked)",
      .y_label = "preemptions per bucket", .start_s = s.start_s, .bucket_seconds = s.bucket_seconds,
      .series = TopSeries(std::move(pairs), s.start_s.size(), /*other=*/true),
      .stacked = true, .reference = {}, .y_at_least = 1};
  return internal::RenderStepChart(chart);
}

// The diagnosis of a run stopped as a livelock, at the top of its section.
std::string LivelockBanner(const SimulationResult& r, const std::string& id) {
  if (!r.livelock.detected) return "";
  std::string out = fmt::format(
      "<div class=\"livelock\" id=\"{}-livelock\" role=\"alert\">\n<h3>Livelock: the run was stopped at {} h"
      "</h3>\n<p>{}</p>\n",
      id, internal::Fixed(r.livelock.stopped_s / 3600.0, 2), HtmlEscape(internal::LivelockHeadline(r)));
  out += "<p>Every figure below covers the run up to that instant. The no-progress rule is in "
         "docs/simulate.md (No progress).</p>\n";
  for (const Table& t : internal::LivelockTables(r)) out += TableHtml(t, id + "-");
  out += "</div>\n";
  return out;
}

std::string RunSection(const SimulationResult& r, size_t index) {
  const std::string id = fmt::format("run{}", index + 1);
  std::string out = fmt::format("<section id=\"{}\">\n<h2>Run {}: {}</h2>\n", id, index + 1,
                                HtmlEscape(RunName(r, index)));
  out += LivelockBanner(r, id);
  const std::vector<Table> tables = internal::RunTables(r);
  out += TableHtml(tables.front(), id + "-");
  if (r.series.start_s.empty()) {
    out += Empty(id + "-charts", "Charts over time",
                 r.jobs == 0 ? "No jobs were submitted: there is nothing to chart over time."
                             : "The run has no time series.");
  } else {
    out += UtilizationCharts(r, id);
    out += PendingChart(r, id);
  }
  out += WaitCdfChart(r, id);
  out += PreemptionTimeline(r, id);
  if (!r.series.start_s.empty()) out += PairChart(r, id) + FairnessCharts(r, id);
  for (size_t t = 1; t < tables.size(); ++t) out += TableHtml(tables[t], id + "-");
  out += "</section>\n";
  return out;
}

}  // namespace

std::string RenderHtmlReport(std::span<const SimulationResult> runs) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>qm simulate: {}</title>\n",
                     runs.size() == 1 ? HtmlEscape(RunName(runs[0], 0))
                                      : fmt::format("{} runs compared", runs.size()));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n<h1>qm simulate report</h1>\n", kStyle);
  out += fmt::format("<p>{} run{} of one trace. Times are virtual, from the first submission; amounts "
                     "are in cores, GiB or counts.</p>\n",
                     runs.size(), runs.size() == 1 ? "" : "s");
  out += "<nav><ul>\n";
  if (runs.size() > 1) out += "<li><a href=\"#comparison\">Runs side by side</a></li>\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    out += fmt::format("<li><a href=\"#run{}\">Run {}: {}</a>{}</li>\n", i + 1, i + 1,
                       HtmlEscape(RunName(runs[i], i)),
                       runs[i].livelock.detected ? " <strong>(livelock: stopped)</strong>" : "");
  }
  out += "</ul></nav>\n";
  if (runs.size() > 1) {
    // The first table (whole runs) stays open; the per-queue ones, long with many queues, fold
    // away so the charts stay near the top (a <details> element needs no script).
    const std::vector<Table> tables = internal::ComparisonTables(runs);
    out += "<section id=\"comparison\">\n<h2>Runs side by side</h2>\n";
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!runs[i].livelock.detected) continue;
      out += fmt::format("<div class=\"livelock\"><p><strong>Run {}: {}</strong>: {} <a href=\"#run{}-livelock\">"
                         "Diagnosis</a>.</p></div>\n",
                         i + 1, HtmlEscape(RunName(runs[i], i)), HtmlEscape(internal::LivelockHeadline(runs[i])),
                         i + 1);
    }
    out += TableHtml(tables.front(), "");
    std::vector<std::string> names;
    for (size_t i = 0; i < runs.size(); ++i) names.push_back(RunName(runs[i], i));
    out += internal::ComparisonOverlayCharts(runs, names);
    out += fmt::format("<details><summary>{} more tables by ClusterQueue, priority class and flavor"
                       "</summary>\n", tables.size() - 1);
    for (size_t t = 1; t < tables.size(); ++t) out += TableHtml(tables[t], "");
    out += "</details>\n</section>\n";
  }
  for (size_t i = 0; i < runs.size(); ++i) out += RunSection(runs[i], i);
  if (runs.empty()) out += "<p class=\"empty\">No runs.</p>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace qm::sim
