// SVG charts for the simulation report (sim_html.cc): step charts over time buckets (stacked areas
// or lines), CDF step charts and a timeline of marks.
//
// Each chart is a `<figure class="chart">` holding a caption and one inline `<svg>` with axes,
// ticks, tick labels, axis titles and a legend (long names wrap onto more lines; none is cut).
// Coordinates are rounded to 0.1 px so a 120-bucket
// chart stays a few tens of KB; every name is HTML-escaped. Colours come from a fixed palette by
// position, so equal inputs give equal bytes.
#ifndef QM_LIB_SIM_SVG_CHART_H_
#define QM_LIB_SIM_SVG_CHART_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace qm::sim::internal {

/// `text` with `& < > " '` replaced by entities: safe in element content and quoted attributes.
std::string HtmlEscape(std::string_view text);

/// The i-th colour of the chart palette (cycles after ten); `kOtherColor` is for "other".
const char* PaletteColor(size_t i);
inline constexpr const char* kOtherColor = "#9e9e9e";

/// One named series; `color` is a CSS colour such as "#1f77b4".
struct ChartSeries {
  std::string name;
  std::string color;
  std::vector<double> values;
};

/// Values per time bucket (`values[b]` holds over [start_s[b], start_s[b] + bucket_seconds)),
/// drawn as steps: stacked filled areas or separate lines.
struct StepChart {
  std::string id;  ///< the figure's HTML id
  std::string title;
  std::string y_label;
  std::vector<double> start_s;
  double bucket_seconds = 0;
  std::vector<ChartSeries> series;
  bool stacked = false;
  /// A dashed line drawn over the series (e.g. capacity); not drawn when `values` is empty.
  ChartSeries reference;
  double y_at_least = 0;  ///< the y axis reaches at least this (1 for ratios)
};
std::string RenderStepChart(const StepChart& chart);

/// Cumulative distributions: each series holds the values at the 0th, 1st, ..., 100th percentile
/// (seconds); the x axis is time, the y axis the share of jobs waiting at most that long.
struct CdfChart {
  std::string id;
  std::string title;
  std::string x_label;  ///< "wait" → "wait (min)", or "wait (log scale)" with `log_x`
  std::vector<ChartSeries> series;
  /// A logarithmic time axis (ticks 1 s, 10 s, 1 min, ..., 1000 d; shorter times on its left
  /// edge): waits spread over seconds to weeks, and on a linear month every curve hugs 0.
  bool log_x = false;
};
std::string RenderCdfChart(const CdfChart& chart);

/// Marks on a time axis, one row per category (e.g. the victim's ClusterQueue), coloured by kind
/// (e.g. the preemption reason). Marks that fall on the same pixel, row and kind are drawn once.
struct TimelineChart {
  struct Mark {
    double time_s = 0;
    size_t row = 0;
    size_t kind = 0;
  };
  std::string id;
  std::string title;
  std::vector<std::string> rows;
  std::vector<std::string> kinds;  ///< legend; kind i has `PaletteColor(i)`
  std::vector<Mark> marks;
  double end_s = 0;  ///< the time axis spans [0, end_s]
};
std::string RenderTimelineChart(const TimelineChart& chart);

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_SVG_CHART_H_
