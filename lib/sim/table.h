// The summary tables of a simulation, built once and rendered as text (sim_text.cc) and as HTML
// (sim_html.cc), so both forms always show the same rows in the same order.
#ifndef QM_LIB_SIM_TABLE_H_
#define QM_LIB_SIM_TABLE_H_

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "qm/sim/sim_result.h"

namespace qm::sim::internal {

/// A titled table whose first `text_columns` columns hold names (left-aligned) and whose other
/// columns hold formatted numbers (right-aligned). Every row has exactly `header.size()` cells.
struct Table {
  std::string id;     ///< short identifier, unique within one run (an HTML anchor)
  std::string title;  ///< one line, ends without a period
  std::vector<std::string> header;
  size_t text_columns = 1;
  std::vector<std::vector<std::string>> rows;
  std::string note;  ///< printed under the table when not empty (e.g. "none")
};

/// The tables of one run: overview, jobs by group, censored waits, resource-hours, utilization,
/// fairness, preemptions (docs/simulate-output.md §Text).
std::vector<Table> RunTables(const SimulationResult& result);

/// One sentence on a livelocked run (when it stalled, for how long, when it was stopped), or "" when
/// the run was not stopped as a livelock.
std::string LivelockHeadline(const SimulationResult& result);

/// A livelocked run's diagnosis: its preemptions of the last window by preemptor → victim
/// ClusterQueue, and its most-preempted workloads; empty when the run was not a livelock.
std::vector<Table> LivelockTables(const SimulationResult& result);

/// The side-by-side tables of several runs: the row keys in the text columns, then one column per
/// run. A row is present when any run has it; runs without it show "-". Rows keep the order in
/// which they first appear (run by run), so equal inputs give equal tables.
std::vector<Table> ComparisonTables(std::span<const SimulationResult> runs);

/// `table` as aligned text: title, header, a rule, rows and the note; columns two spaces apart,
/// widths in UTF-8 code points; trailing blanks trimmed.
std::string RenderTableText(const Table& table);

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_TABLE_H_
