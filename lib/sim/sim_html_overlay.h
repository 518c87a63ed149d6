// The comparison charts of a multi-run report (sim_html.cc): the runs overlaid, one line per run,
// so that the difference between policies shows on one chart.
#ifndef QM_LIB_SIM_SIM_HTML_OVERLAY_H_
#define QM_LIB_SIM_SIM_HTML_OVERLAY_H_

#include <span>
#include <string>
#include <vector>

#include "qm/sim/sim_result.h"

namespace qm::sim::internal {

/// Charts with one series per run (`names[i]` names run i): the wait-time CDF of each of the
/// busiest teams (up to six), the accelerators held by placed pods over time, and the cumulative
/// preemptions over time. Runs of different lengths are drawn on the longest run's time buckets,
/// each sampled at the bucket's middle (0 past its end; its last total for cumulative counts).
std::string ComparisonOverlayCharts(std::span<const SimulationResult> runs, const std::vector<std::string>& names);

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_SIM_HTML_OVERLAY_H_
