// The text forms of a simulation summary (sim_result.h): the tables of table.h, one after another.
#include <span>
#include <string>

#include "qm/sim/sim_result.h"
#include "sim/table.h"

namespace qm::sim {

namespace {

std::string JoinTables(const std::vector<internal::Table>& tables) {
  std::string out;
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i > 0) out += '\n';
    out += internal::RenderTableText(tables[i]);
  }
  return out;
}

}  // namespace

std::string FormatSimulationText(const SimulationResult& result) {
  return JoinTables(internal::RunTables(result));
}

std::string FormatComparisonText(std::span<const SimulationResult> runs) {
  return JoinTables(internal::ComparisonTables(runs));
}

}  // namespace qm::sim
