// `qm forecast` output and the forecast sentence of `qm explain`.
#include "qm/io/forecast_report.h"

#include <string>

#include "fmt/format.h"
#include "io/report_docs.h"
#include "qm/text/time_text.h"
#include "text/doc.h"

namespace qm {
namespace {

using internal::Doc;

Doc TimeOrNull(const std::optional<Time>& t) { return t ? Doc::Str(FormatRfc3339(*t)) : Doc(); }

const char* BlockerKindName(ForecastBlocker::Kind k) {
  return k == ForecastBlocker::Kind::kFinishes ? "finishes" : "preempted";
}

// "a/x finishes", "a/x and a/y finish", "a/x, a/y and 3 more finish".
std::string NameList(const std::vector<std::string>& names, const char* one, const char* many) {
  std::string out;
  const size_t shown = names.size() > 3 ? 2 : names.size();
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) out += i + 1 == shown && shown == names.size() ? " and " : ", ";
    out += names[i];
  }
  if (shown < names.size()) out += fmt::format(" and {} more", names.size() - shown);
  return out + " " + (names.size() == 1 ? one : many);
}

}  // namespace

std::string ApproximateDuration(Duration d) {
  const int64_t minutes = d.us / 60'000'000;
  if (minutes < 1) return "less than a minute";
  if (minutes < 60) return fmt::format("{}m", minutes);
  const int64_t hours = minutes / 60;
  if (hours < 48) return minutes % 60 == 0 ? fmt::format("{}h", hours) : fmt::format("{}h{}m", hours, minutes % 60);
  return hours % 24 == 0 ? fmt::format("{}d", hours / 24) : fmt::format("{}d{}h", hours / 24, hours % 24);
}

std::string ForecastSentence(const WorkloadForecast& f, const ForecastReport& report) {
  if (!f.admission) {
    std::string out = fmt::format("not expected to start within {} (the forecast's horizon)",
                                  ApproximateDuration(report.horizon_end - report.now));
    if (report.runs > 1 && f.admitted_fraction > 0)
      out += fmt::format("; starts within it in {:.0f}% of the runs", f.admitted_fraction * 100);
    return out;
  }
  std::vector<std::string> finishes, preempts;
  for (const ForecastBlocker& b : f.waits_for)
    (b.kind == ForecastBlocker::Kind::kFinishes ? finishes : preempts).push_back(b.name);
  std::string out = *f.admission <= report.now
                        ? std::string("expected to be admitted by the next cycle")
                        : fmt::format("expected to start in about {}", ApproximateDuration(*f.admission - report.now));
  if (!finishes.empty()) out += ", after " + NameList(finishes, "finishes", "finish");
  if (!preempts.empty()) out += (finishes.empty() ? ", " : " and ") + std::string("by preempting ") + NameList(preempts, "", "");
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (report.runs > 1) {
    auto bound = [&](const std::optional<Time>& t) {
      return t ? (*t <= report.now ? std::string("now") : ApproximateDuration(*t - report.now)) : std::string("beyond the horizon");
    };
    out += fmt::format("; p10 {}, p90 {}", bound(f.p10), bound(f.p90));
  }
  return out;
}

std::string RenderForecast(const ForecastReport& report, OutputFormat format) {
  Doc d = Doc::Map();
  d.Set("now", Doc::Str(FormatRfc3339(report.now)));
  d.Set("horizonEnd", Doc::Str(FormatRfc3339(report.horizon_end)));
  d.Set("runs", Doc::Int(report.runs));
  d.Set("cycles", Doc::Int(report.cycles));
  d.Set("truncated", Doc::Bool(report.truncated));
  Doc rows = Doc::List();
  for (const WorkloadForecast& f : report.workloads) {
    Doc w = Doc::Map();
    w.Set("workload", Doc::Str(f.namespace_ + "/" + f.name));
    w.Set("clusterQueue", Doc::Str(f.cluster_queue));
    w.Set("positionInClusterQueue", Doc::Int(f.position_in_cluster_queue));
    w.Set("positionInCohort", Doc::Int(f.position_in_cohort));
    w.Set("admission", TimeOrNull(f.admission));
    w.Set("startsIn", f.admission ? Doc::Str(FormatGoDuration(*f.admission - report.now)) : Doc());
    w.Set("p10", TimeOrNull(f.p10));
    w.Set("p50", TimeOrNull(f.p50));
    w.Set("p90", TimeOrNull(f.p90));
    w.Set("admittedPercent", Doc::Int(static_cast<int64_t>(f.admitted_fraction * 100 + 0.5)));
    Doc waits = Doc::List();
    for (const ForecastBlocker& b : f.waits_for) {
      Doc one = Doc::Map();
      one.Set("workload", Doc::Str(b.name));
      one.Set("kind", Doc::Str(BlockerKindName(b.kind)));
      one.Set("at", Doc::Str(FormatRfc3339(b.at)));
      waits.Add(std::move(one.Flow()));
    }
    w.Set("waitsFor", std::move(waits));
    w.Set("summary", Doc::Str(ForecastSentence(f, report)));
    rows.Add(std::move(w));
  }
  d.Set("workloads", std::move(rows));
  return internal::Emit(d, format);
}

}  // namespace qm
