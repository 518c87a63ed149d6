// SVG charts for the simulation report (svg_chart.h).
#include "sim/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "fmt/format.h"
#include "sim/sim_format.h"

namespace qm::sim::internal {

namespace {

// Layout in px. The plot sits left of the legend; every chart has the same width so a page of
// them lines up.
constexpr double kWidth = 900;
constexpr double kPlotLeft = 72;
constexpr double kPlotRight = 690;
constexpr double kPlotTop = 14;
constexpr double kMinHeight = 300;
constexpr double kAxisSpace = 46;  // below the plot: tick labels and the axis title
constexpr double kLegendLeft = 706;
constexpr double kLegendRow = 17;
constexpr size_t kLegendChars = 24;

// Ten colours that stay distinct for most colour-blind readers (the Tableau 10 palette).
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#17becf"};

std::string Px(double v) { return Fixed(v, 1); }

// `name` in lines of at most `max_chars` code points, broken after a `-`, `/`, `.`, `_` or space
// where one falls in the second half of a line, else cut: names are never shortened, since
// "hyperpod-ns-training-cl…" hides which team is which.
std::vector<std::string> Wrap(std::string_view name, size_t max_chars = kLegendChars) {
  std::vector<std::string> lines;
  while (!name.empty()) {
    size_t points = 0, cut = name.size(), last_break = std::string_view::npos;
    for (size_t i = 0; i < name.size(); ++i) {
      if ((static_cast<unsigned char>(name[i]) & 0xC0) == 0x80) continue;
      if (points == max_chars) {
        cut = i;
        break;
      }
      ++points;
      if (points > max_chars / 2 && std::string_view("-/._ ").find(name[i]) != std::string_view::npos) last_break = i + 1;
    }
    if (cut < name.size() && last_break != std::string_view::npos) cut = last_break;
    lines.emplace_back(name.substr(0, cut));
    name.remove_prefix(cut);
  }
  if (lines.empty()) lines.emplace_back();
  return lines;
}

// The lines a legend of these names takes.
size_t LegendLines(const std::vector<std::pair<std::string, std::string>>& entries) {
  size_t lines = 0;
  for (const auto& [name, color] : entries) lines += Wrap(name).size();
  return lines;
}

// Tick marks of a logarithmic time axis: seconds and their labels.
constexpr std::pair<double, const char*> kLogTicks[] = {
    {1, "\u22641s"}, {10, "10s"}, {60, "1min"}, {600, "10min"}, {3600, "1h"}, {36000, "10h"},
    {86400, "1d"}, {864000, "10d"}, {8640000, "100d"}, {86400000, "1000d"}};

// Evenly spaced "nice" tick values (1, 2 or 5 × 10^k apart) covering [0, max]; the axis then runs
// to the last tick. `decimals` is what the step needs to print exactly.
struct Ticks {
  std::vector<double> values;
  int decimals = 0;
  double top = 1;
};

Ticks NiceTicks(double max, int target = 5) {
  Ticks t;
  if (!(max > 0) || !std::isfinite(max)) max = 1;
  const double raw = max / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  t.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  const int count = static_cast<int>(std::ceil(max / step - 1e-9));
  for (int i = 0; i <= count; ++i) t.values.push_back(step * i);
  t.top = step * count;
  return t;
}

// The unit that shows a span of `seconds` with small numbers.
struct TimeUnit {
  const char* name;
  double seconds;
};
TimeUnit UnitFor(double seconds) {
  if (seconds >= 2 * 86400.0) return {"d", 86400.0};
  if (seconds >= 2 * 3600.0) return {"h", 3600.0};
  if (seconds >= 2 * 60.0) return {"min", 60.0};
  return {"s", 1.0};
}

// Maps data to the plot area and writes the frame: axes, ticks, labels and legend.
class Canvas {
 public:
  // x values are in seconds, their ticks in `x_unit`s; y values as they are.
  // `legend_lines` sizes the height; `plot_left` leaves room for long row labels (timelines).
  Canvas(double x_max, TimeUnit x_unit, double y_max, size_t legend_lines, double plot_left = kPlotLeft)
      : x_unit_(x_unit), x_ticks_(NiceTicks(x_max / x_unit.seconds)), y_ticks_(NiceTicks(y_max)),
        plot_left_(plot_left) {
    height_ = std::max(kMinHeight, kPlotTop + kLegendRow * static_cast<double>(legend_lines) + 24);
    bottom_ = height_ - kAxisSpace;
  }
  // A logarithmic time axis from 1 s (shorter times sit on its left edge) to the first tick at or
  // above `x_max` seconds.
  static Canvas LogTime(double x_max, double y_max, size_t legend_lines) {
    Canvas c(1, TimeUnit{"log scale", 1}, y_max, legend_lines);
    c.log_top_ = 10;
    for (const auto& [seconds, label] : kLogTicks) {
      c.log_top_ = seconds;
      if (seconds >= x_max) break;
    }
    c.log_top_ = std::max(c.log_top_, 10.0);
    return c;
  }

  double X(double v) const {
    if (log_top_ > 0) {
      const double x = plot_left_ + std::log10(std::max(v, 1.0)) / std::log10(log_top_) * (kPlotRight - plot_left_);
      return std::clamp(x, plot_left_, kPlotRight);
    }
    const double x = plot_left_ + v / x_unit_.seconds / x_ticks_.top * (kPlotRight - plot_left_);
    return std::clamp(x, plot_left_, kPlotRight);
  }
  double left() const { return plot_left_; }
  double Y(double v) const {
    const double y = bottom_ - v / y_ticks_.top * (bottom_ - kPlotTop);
    return std::clamp(y, kPlotTop, bottom_);
  }
  double bottom() const { return bottom_; }
  double height() const { return height_; }

  std::string Open(const std::string& id, const std::string& title) const {
    return fmt::format(
        "<figure class=\"chart\" id=\"{0}\"><figcaption>{1}</figcaption>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {2} {3}\" width=\"{2}\" "
        "height=\"{3}\" role=\"img\" aria-label=\"{1}\">\n"
        "<rect class=\"plot-bg\" x=\"{4}\" y=\"{5}\" width=\"{6}\" height=\"{7}\" fill=\"#ffffff\" "
        "stroke=\"#cccccc\"/>\n",
        HtmlEscape(id), HtmlEscape(title), Px(kWidth), Px(height_), Px(plot_left_), Px(kPlotTop),
        Px(kPlotRight - plot_left_), Px(bottom_ - kPlotTop));
  }

  // Gridlines, ticks, tick labels and axis titles; "(unit)" is appended to `x_title`.
  std::string Axes(std::string_view x_title, std::string_view y_title, bool y_ticks = true) const {
    std::string out = "<g class=\"axes\" font-size=\"11\" fill=\"#333333\">\n";
    for (const auto& [seconds, label] : kLogTicks) {
      if (log_top_ <= 0 || seconds > log_top_) break;
      const double x = X(seconds);
      out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#eeeeee\"/>"
                         "<line x1=\"{0}\" y1=\"{2}\" x2=\"{0}\" y2=\"{3}\" stroke=\"#333333\"/>"
                         "<text x=\"{0}\" y=\"{4}\" text-anchor=\"middle\">{5}</text>\n",
                         Px(x), Px(kPlotTop), Px(bottom_), Px(bottom_ + 5), Px(bottom_ + 17), label);
    }
    for (double v : log_top_ > 0 ? std::vector<double>{} : x_ticks_.values) {
      const double x = X(v * x_unit_.seconds);
      out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#eeeeee\"/>"
                         "<line x1=\"{0}\" y1=\"{2}\" x2=\"{0}\" y2=\"{3}\" stroke=\"#333333\"/>"
                         "<text x=\"{0}\" y=\"{4}\" text-anchor=\"middle\">{5}</text>\n",
                         Px(x), Px(kPlotTop), Px(bottom_), Px(bottom_ + 5), Px(bottom_ + 17),
                         Fixed(v, x_ticks_.decimals));
    }
    if (y_ticks) {
      for (double v : y_ticks_.values) {
        const double y = Y(v);
        out += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#eeeeee\"/>"
                           "<line x1=\"{3}\" y1=\"{2}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333333\"/>"
                           "<text x=\"{4}\" y=\"{5}\" text-anchor=\"end\">{6}</text>\n",
                           Px(plot_left_), Px(kPlotRight), Px(y), Px(plot_left_ - 5),
                           Px(plot_left_ - 8), Px(y + 4), Fixed(v, y_ticks_.decimals));
      }
    }
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#333333\"/>"
        "<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333333\"/>\n"
        "<text x=\"{4}\" y=\"{5}\" text-anchor=\"middle\">{6} ({7})</text>\n",
        Px(plot_left_), Px(kPlotRight), Px(bottom_), Px(kPlotTop), Px((plot_left_ + kPlotRight) / 2),
        Px(bottom_ + 36), HtmlEscape(x_title), x_unit_.name);
    if (!y_title.empty()) {
      out += fmt::format("<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" "
                         "transform=\"rotate(-90 14 {0})\">{1}</text>\n",
                         Px((kPlotTop + bottom_) / 2), HtmlEscape(y_title));
    }
    out += "</g>\n";
    return out;
  }

  // One swatch and name per entry, full name in a tooltip.
  static std::string Legend(const std::vector<std::pair<std::string, std::string>>& entries,
                            bool dashed_last = false) {
    std::string out = "<g class=\"legend\" font-size=\"12\" fill=\"#222222\">\n";
    size_t line = 0;  // long names take several lines
    for (size_t i = 0; i < entries.size(); ++i) {
      const double y = kPlotTop + kLegendRow * static_cast<double>(line);
      const auto& [name, color] = entries[i];
      const std::vector<std::string> lines = Wrap(name);
      line += lines.size();
      if (dashed_last && i + 1 == entries.size()) {
        out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" "
                           "stroke-width=\"2\" stroke-dasharray=\"4 3\"/>",
                           Px(kLegendLeft), Px(y + 6), Px(kLegendLeft + 12), color);
      } else {
        out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>",
                           Px(kLegendLeft), Px(y), color);
      }
      out += fmt::format("<text x=\"{}\" y=\"{}\"><title>{}</title>", Px(kLegendLeft + 18), Px(y + 10),
                         HtmlEscape(name));
      for (size_t k = 0; k < lines.size(); ++k)
        out += fmt::format("<tspan x=\"{}\" dy=\"{}\">{}</tspan>", Px(kLegendLeft + 18), k == 0 ? "0" : Px(kLegendRow),
                           HtmlEscape(lines[k]));
      out += "</text>\n";
    }
    out += "</g>\n";
    return out;
  }

  static std::string Close() { return "</svg></figure>\n"; }

 private:
  TimeUnit x_unit_;
  Ticks x_ticks_;
  Ticks y_ticks_;
  double plot_left_ = kPlotLeft;
  double log_top_ = 0;  // > 0: a logarithmic time axis from 1 s to this many seconds
  double height_ = kMinHeight;
  double bottom_ = kMinHeight - kAxisSpace;
};

double ValueAt(const std::vector<double>& v, size_t i) {
  return i < v.size() && std::isfinite(v[i]) ? v[i] : 0.0;
}

// A step line through `top` from the left edge of bucket 0 to the right edge of the last one.
std::string StepPath(const Canvas& c, const std::vector<double>& edges, const std::vector<double>& top) {
  std::string d = fmt::format("M{},{}", Px(c.X(edges[0])), Px(c.Y(top[0])));
  std::string last_y = Px(c.Y(top[0]));
  for (size_t b = 0; b < top.size(); ++b) {
    const std::string y = Px(c.Y(top[b]));
    if (y != last_y) d += "V" + y;
    last_y = y;
    d += "H" + Px(c.X(edges[b + 1]));
  }
  return d;
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

const char* PaletteColor(size_t i) { return kPalette[i % std::size(kPalette)]; }

std::string RenderStepChart(const StepChart& chart) {
  const size_t buckets = chart.start_s.size();
  if (buckets == 0) return {};
  // Edges relative to the first bucket, so the axis starts at 0.
  std::vector<double> edges;
  for (size_t b = 0; b < buckets; ++b) edges.push_back(chart.start_s[b] - chart.start_s[0]);
  edges.push_back(edges.back() + chart.bucket_seconds);

  std::vector<std::vector<double>> lower, upper;
  std::vector<double> running(buckets, 0.0);
  double y_max = chart.y_at_least;
  for (const ChartSeries& s : chart.series) {
    lower.push_back(chart.stacked ? running : std::vector<double>(buckets, 0.0));
    std::vector<double> top(buckets);
    for (size_t b = 0; b < buckets; ++b) {
      top[b] = lower.back()[b] + std::max(0.0, ValueAt(s.values, b));
      y_max = std::max(y_max, top[b]);
    }
    if (chart.stacked) running = top;
    upper.push_back(std::move(top));
  }
  const bool has_reference = !chart.reference.values.empty();
  for (size_t b = 0; has_reference && b < buckets; ++b) {
    y_max = std::max(y_max, ValueAt(chart.reference.values, b));
  }

  std::vector<std::pair<std::string, std::string>> legend;
  for (const ChartSeries& s : chart.series) legend.emplace_back(s.name, s.color);
  if (has_reference) legend.emplace_back(chart.reference.name, chart.reference.color);

  const Canvas c(edges.back(), UnitFor(edges.back()), y_max, LegendLines(legend));
  std::string out = c.Open(chart.id, chart.title);
  out += c.Axes("time since the first submission", chart.y_label);
  out += "<g class=\"marks\">\n";
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    std::string d = StepPath(c, edges, upper[i]);
    if (chart.stacked) {
      // Back along the lower edge, right to left, to close the area.
      d += "V" + Px(c.Y(lower[i][buckets - 1]));
      for (size_t b = buckets; b-- > 0;) {
        if (b + 1 < buckets && lower[i][b] != lower[i][b + 1]) d += "V" + Px(c.Y(lower[i][b]));
        d += "H" + Px(c.X(edges[b]));
      }
      d += "Z";
      out += fmt::format("<path d=\"{}\" fill=\"{}\" stroke=\"none\"><title>{}</title></path>\n",
                         d, s.color, HtmlEscape(s.name));
    } else {
      out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\">"
                         "<title>{}</title></path>\n",
                         d, s.color, HtmlEscape(s.name));
    }
  }
  if (has_reference) {
    std::vector<double> ref(buckets);
    for (size_t b = 0; b < buckets; ++b) ref[b] = ValueAt(chart.reference.values, b);
    out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
                       "stroke-dasharray=\"6 4\"><title>{}</title></path>\n",
                       StepPath(c, edges, ref), chart.reference.color,
                       HtmlEscape(chart.reference.name));
  }
  out += "</g>\n";
  out += Canvas::Legend(legend, has_reference);
  out += Canvas::Close();
  return out;
}

std::string RenderCdfChart(const CdfChart& chart) {
  double x_max = 0;
  for (const ChartSeries& s : chart.series) {
    for (double v : s.values) {
      if (std::isfinite(v)) x_max = std::max(x_max, v);
    }
  }
  std::vector<std::pair<std::string, std::string>> legend;
  for (const ChartSeries& s : chart.series) legend.emplace_back(s.name, s.color);
  const Canvas c = chart.log_x ? Canvas::LogTime(x_max, 100, LegendLines(legend))
                               : Canvas(x_max, UnitFor(x_max), 100, LegendLines(legend));
  std::string out = c.Open(chart.id, chart.title);
  out += c.Axes(chart.x_label, "jobs waiting at most this long (%)");
  out += "<g class=\"marks\">\n";
  for (const ChartSeries& s : chart.series) {
    if (s.values.empty()) continue;
    const size_t last = s.values.size() - 1;
    std::string d = fmt::format("M{},{}", Px(c.X(ValueAt(s.values, 0))), Px(c.Y(0)));
    for (size_t k = 0; k <= last; ++k) {
      const double percent = last == 0 ? 100.0 : 100.0 * static_cast<double>(k) / static_cast<double>(last);
      d += fmt::format("H{}V{}", Px(c.X(ValueAt(s.values, k))), Px(c.Y(percent)));
    }
    d += "H" + Px(kPlotRight);
    out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\">"
                       "<title>{}</title></path>\n",
                       d, s.color, HtmlEscape(s.name));
  }
  out += "</g>\n";
  out += Canvas::Legend(legend);
  out += Canvas::Close();
  return out;
}

std::string RenderTimelineChart(const TimelineChart& chart) {
  std::vector<std::pair<std::string, std::string>> legend;
  for (size_t i = 0; i < chart.kinds.size(); ++i) legend.emplace_back(chart.kinds[i], PaletteColor(i));
  // The y axis holds one band per row; the canvas's y scale runs over [0, rows].
  const double rows = static_cast<double>(std::max<size_t>(chart.rows.size(), 1));
  // Row labels are written in full: the plot starts right of the longest (about 6.5 px a
  // character at 11 px), up to a third of the width; longer ones wrap within their band.
  size_t longest = 0;
  for (const std::string& row : chart.rows) longest = std::max(longest, row.size());
  const double left = std::clamp(12 + 6.5 * static_cast<double>(longest), kPlotLeft, 300.0);
  const size_t row_chars = static_cast<size_t>((left - 12) / 6.5);
  const Canvas c(chart.end_s, UnitFor(chart.end_s), rows, std::max(LegendLines(legend), chart.rows.size()), left);
  std::string out = c.Open(chart.id, chart.title);
  out += c.Axes("time since the first submission", "", /*y_ticks=*/false);
  const double band = (c.bottom() - kPlotTop) / rows;
  out += "<g class=\"rows\" font-size=\"11\" fill=\"#333333\">\n";
  for (size_t r = 0; r < chart.rows.size(); ++r) {
    const std::vector<std::string> lines = Wrap(chart.rows[r], row_chars);
    const double y = kPlotTop + band * (static_cast<double>(r) + 0.5) - 6.5 * static_cast<double>(lines.size() - 1);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\"><title>{}</title>", Px(left - 4), Px(y + 4),
                       HtmlEscape(chart.rows[r]));
    for (size_t k = 0; k < lines.size(); ++k)
      out += fmt::format("<tspan x=\"{}\" dy=\"{}\">{}</tspan>", Px(left - 4), k == 0 ? "0" : "13",
                         HtmlEscape(lines[k]));
    out += "</text>\n";
  }
  out += "</g>\n<g class=\"marks\">\n";
  // Same pixel, row and kind: drawn once (10,000 records would otherwise weigh ~0.6 MB).
  std::set<std::tuple<std::string, size_t, size_t>> drawn;
  for (const TimelineChart::Mark& m : chart.marks) {
    if (m.row >= chart.rows.size()) continue;
    const std::string x = Px(std::round(c.X(m.time_s)));
    if (!drawn.emplace(x, m.row, m.kind).second) continue;
    const double y = kPlotTop + band * static_cast<double>(m.row) + band * 0.2;
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"3\" height=\"{}\" fill=\"{}\"/>\n", x,
                       Px(y), Px(band * 0.6), PaletteColor(m.kind));
  }
  out += "</g>\n";
  out += Canvas::Legend(legend);
  out += Canvas::Close();
  return out;
}

}  // namespace qm::sim::internal
