// Rendering `Engine::Explain` for people (YAML) and programs (JSON): what `qm explain` prints.
#ifndef QM_IO_EXPLAIN_H_
#define QM_IO_EXPLAIN_H_

#include <string>

#include "qm/adapter/engine.h"
#include "qm/adapter/forecast.h"
#include "qm/adapter/what_if.h"
#include "qm/text/output_format.h"

namespace qm {

/// Renders why a workload is where it is:
/// * pending: its reason and message, every flavor the assigner tried (verdict, reasons, and per
///   resource the requested, available, nominal and potential amounts and the borrow level), the
///   assignment it would get now, and the workloads it would preempt;
/// * admitted: the admission (flavors, counts, usage) and whether it borrows;
/// * preempted: who preempted it, the reason and the message;
/// * once it was preempted or preempted another (`WorkloadStatus::preemptions`): `preemptions`,
///   its counts (in all, per reason, caused), the quota-holding time lost, the latest (at most 8)
///   preemptions and the end of a borrow back-off.
/// With fair sharing: `weightedShares` of its queue and every cohort above it, and, with the
/// historical share on, `shareHistoryHalfLife` (those shares then include the decayed history).
/// With `forecast` (and the `report` it comes from): `forecast`, its sentence (`ForecastSentence`),
/// expected admission and positions (qm/io/forecast_report.h).
/// With `what_if`: `whatIf`, `{admittedAsIs, answers: [text, ...]}` (qm/adapter/what_if.h).
/// Amounts are written as Kubernetes quantities; an unlimited potential as `<unlimited>`.
std::string RenderExplanation(const Engine& engine, const WorkloadExplanation& explanation,
                              OutputFormat format, const WorkloadForecast* forecast = nullptr,
                              const ForecastReport* report = nullptr, const WhatIfReport* what_if = nullptr);

}  // namespace qm

#endif  // QM_IO_EXPLAIN_H_
