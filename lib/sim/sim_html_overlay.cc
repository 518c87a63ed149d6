// Runs overlaid on one chart each: see sim_html_overlay.h.
#include "sim/sim_html_overlay.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "sim/svg_chart.h"

namespace qm::sim::internal {
namespace {

constexpr size_t kOverlayTeams = 6;

// A run's per-bucket values sampled on another run's buckets, at their middles (both counted from
// their first bucket). Past the run's end: 0, or its last value when `hold_last`.
std::vector<double> Resample(const TimeSeries& from, const std::vector<double>& values, const TimeSeries& grid,
                             bool hold_last) {
  std::vector<double> out(grid.start_s.size(), 0.0);
  if (grid.start_s.empty() || values.empty() || from.bucket_seconds <= 0) return out;
  for (size_t b = 0; b < out.size(); ++b) {
    const double t = grid.start_s[b] - grid.start_s.front() + grid.bucket_seconds / 2;
    const size_t i = static_cast<size_t>(std::floor(t / from.bucket_seconds));
    if (i < values.size()) {
      out[b] = values[i];
    } else if (hold_last) {
      out[b] = values.back();
    }
  }
  return out;
}

// Accelerators held by placed pods, per bucket (all accelerator resources and queues summed).
std::vector<double> AcceleratorsHeld(const SimulationResult& r) {
  const TimeSeries& s = r.series;
  std::vector<double> sum(s.start_s.size(), 0.0);
  for (size_t res = 0; res < s.resources.size() && res < s.used.size(); ++res) {
    if (!IsAcceleratorResource(s.resources[res])) continue;
    for (const std::vector<double>& queue : s.used[res])
      for (size_t b = 0; b < sum.size() && b < queue.size(); ++b) sum[b] += queue[b];
  }
  return sum;
}

// Preemptions so far, at the end of each bucket.
std::vector<double> CumulativePreemptions(const SimulationResult& r) {
  const TimeSeries& s = r.series;
  std::vector<double> sum(s.start_s.size(), 0.0);
  for (const std::vector<int64_t>& queue : s.preemptions)
    for (size_t b = 0; b < sum.size() && b < queue.size(); ++b) sum[b] += static_cast<double>(queue[b]);
  for (size_t b = 1; b < sum.size(); ++b) sum[b] += sum[b - 1];
  return sum;
}

// The team of a group total row (its HyperPod team, else its ClusterQueue).
std::string TeamOf(const GroupSummary& g) { return g.team.empty() ? g.cluster_queue : g.team; }

}  // namespace

std::string ComparisonOverlayCharts(std::span<const SimulationResult> runs, const std::vector<std::string>& names) {
  std::string out;
  // The teams with the most jobs over all runs (ties: by name), one CDF each.
  std::map<std::string, int64_t> jobs_of_team;
  for (const SimulationResult& r : runs)
    for (const GroupSummary& g : r.groups)
      if (g.priority_class.empty()) jobs_of_team[TeamOf(g)] += g.jobs;
  std::vector<std::pair<int64_t, std::string>> teams;
  for (const auto& [team, jobs] : jobs_of_team)
    if (jobs > 0) teams.emplace_back(-jobs, team);
  std::sort(teams.begin(), teams.end());
  const size_t left_out = teams.size() > kOverlayTeams ? teams.size() - kOverlayTeams : 0;
  teams.resize(std::min(teams.size(), kOverlayTeams));
  for (size_t t = 0; t < teams.size(); ++t) {
    const std::string& team = teams[t].second;
    CdfChart chart{.id = fmt::format("overlay-wait-cdf-{}", t + 1),
                   .title = fmt::format("Wait-time CDF of team {}, runs overlaid (all its jobs, never admitted "
                                        "censored at the end of the run){}",
                                        team, t == 0 && left_out ? fmt::format("; {} smaller teams not shown", left_out)
                                                                 : std::string()),
                   .x_label = "wait from submission to first admission (or to the end of the run)",
                   .series = {},
                   .log_x = true};
    for (size_t i = 0; i < runs.size(); ++i) {
      // A team may span several queues: its busiest queue's total row stands for it.
      const GroupSummary* best = nullptr;
      for (const GroupSummary& g : runs[i].groups)
        if (g.priority_class.empty() && TeamOf(g) == team && !g.wait_all_quantiles.empty() &&
            (best == nullptr || g.jobs > best->jobs))
          best = &g;
      if (best != nullptr) chart.series.push_back({names[i], PaletteColor(i), best->wait_all_quantiles});
    }
    if (!chart.series.empty()) out += RenderCdfChart(chart);
  }
  // Time charts on the longest run's buckets.
  const SimulationResult* longest = nullptr;
  for (const SimulationResult& r : runs) {
    if (r.series.start_s.empty()) continue;
    const double end = r.series.start_s.back() + r.series.bucket_seconds - r.series.start_s.front();
    if (longest == nullptr ||
        end > longest->series.start_s.back() + longest->series.bucket_seconds - longest->series.start_s.front())
      longest = &r;
  }
  if (longest == nullptr) return out;
  StepChart held{.id = "overlay-accelerators", .title = "Accelerators held by placed pods, runs overlaid",
                 .y_label = "accelerators (GPUs, Neuron devices)", .start_s = longest->series.start_s,
                 .bucket_seconds = longest->series.bucket_seconds, .series = {}, .stacked = false,
                 .reference = {}, .y_at_least = 1};
  StepChart preempted{.id = "overlay-preemptions", .title = "Preemptions so far, runs overlaid",
                      .y_label = "preemptions (cumulative)", .start_s = longest->series.start_s,
                      .bucket_seconds = longest->series.bucket_seconds, .series = {}, .stacked = false,
                      .reference = {}, .y_at_least = 1};
  for (size_t i = 0; i < runs.size(); ++i) {
    held.series.push_back({names[i], PaletteColor(i),
                           Resample(runs[i].series, AcceleratorsHeld(runs[i]), longest->series, false)});
    preempted.series.push_back({names[i], PaletteColor(i),
                                Resample(runs[i].series, CumulativePreemptions(runs[i]), longest->series, true)});
  }
  out += RenderStepChart(held);
  out += RenderStepChart(preempted);
  return out;
}

}  // namespace qm::sim::internal
