// The text forms of a simulation summary (sim_result.h): the tables of table.h, one after another.
#include <span>
#include <string>

#include "fmt/format.h"
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

// A livelocked run opens with its diagnosis, before the tables.
std::string LivelockText(const SimulationResult& result) {
  const std::vector<internal::Table> tables = internal::LivelockTables(result);
  if (tables.empty()) return "";
  return internal::LivelockHeadline(result) + "\n\n" + JoinTables(tables) + "\n";
}

}  // namespace

std::string FormatSimulationText(const SimulationResult& result) {
  return LivelockText(result) + JoinTables(internal::RunTables(result));
}

std::string FormatComparisonText(std::span<const SimulationResult> runs) {
  std::string out;
  for (const SimulationResult& r : runs) {
    if (r.livelock.detected) out += fmt::format("{}: ", r.label.empty() ? std::string("run") : r.label) + LivelockText(r);
  }
  return out + JoinTables(internal::ComparisonTables(runs));
}

}  // namespace qm::sim
