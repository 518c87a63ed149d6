// Rendering `Engine::Forecast` (qm/adapter/forecast.h) and `Engine::WhatIf` (qm/adapter/what_if.h):
// what `qm forecast` prints, and what `qm explain` adds for a pending workload.
#ifndef QM_IO_FORECAST_REPORT_H_
#define QM_IO_FORECAST_REPORT_H_

#include <string>

#include "qm/adapter/forecast.h"
#include "qm/adapter/what_if.h"
#include "qm/text/output_format.h"

namespace qm {

/// The report as YAML or JSON: the instant, horizon, runs and cycles, then per workload its queue,
/// positions, expected admission (RFC 3339, null beyond the horizon) and the wait until then, the
/// p10/p50/p90 bounds, the share of runs that admit it (percent), what it waits for, and `summary`
/// (`ForecastSentence`).
std::string RenderForecast(const ForecastReport& report, OutputFormat format);

/// One sentence for people, e.g. "expected to start in about 2h10m, after team-b/train-7 finishes;
/// p10 1h30m, p90 5h" or "not expected to start within 30d (the forecast's horizon)".
std::string ForecastSentence(const WorkloadForecast& forecast, const ForecastReport& report);

/// `Engine::WhatIf`'s report as YAML or JSON: `{admittedAsIs, answers: [{kind, text, ...}]}` (the
/// `whatIf` block of `qm explain --what-if`).
std::string RenderWhatIf(const WhatIfReport& report, OutputFormat format);

/// A wait in words: "less than a minute", "25m", "2h10m", "3d4h".
std::string ApproximateDuration(Duration d);

}  // namespace qm

#endif  // QM_IO_FORECAST_REPORT_H_
