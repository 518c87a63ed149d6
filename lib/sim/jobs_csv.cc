// The per-job CSV of `qm simulate --jobs-out` (docs/simulate-output.md §Per-job CSV).
#include <string>

#include "fmt/format.h"
#include "qm/sim/sim_result.h"
#include "qm/sim/trace.h"
#include "sim/csv_value.h"

namespace qm::sim {
namespace {

using internal::AppendCsvValue;

// Seconds from the trace start in the trace's own time syntax; empty for "did not happen".
std::string TimeCell(int64_t us) { return us < 0 ? std::string() : FormatTraceTime(Duration{us}); }

}  // namespace

std::string FormatJobsCsv(std::span<const SimulationResult> runs) {
  std::string out =
      "run,namespace,name,cluster_queue,priority_class,submit_s,first_admitted_s,started_s,end_s,wait_s,flavors,nodes,"
      "preemptions,evictions,work_lost_s,state\n";
  for (const SimulationResult& run : runs) {
    for (const JobOutcome& j : run.jobs_out) {
      AppendCsvValue(out, run.label);
      for (std::string_view v : {std::string_view(j.namespace_), std::string_view(j.name),
                                 std::string_view(j.cluster_queue), std::string_view(j.priority_class)}) {
        out.push_back(',');
        AppendCsvValue(out, v);
      }
      fmt::format_to(std::back_inserter(out), ",{},{},{},{},{},", TimeCell(j.submit_us), TimeCell(j.first_admitted_us),
                     TimeCell(j.first_started_us), TimeCell(j.end_us),
                     TimeCell(j.first_admitted_us < 0 ? -1 : j.first_admitted_us - j.submit_us));
      AppendCsvValue(out, j.flavors);
      out.push_back(',');
      AppendCsvValue(out, j.nodes);
      fmt::format_to(std::back_inserter(out), ",{},{},{},{}\n", j.preemptions, j.evictions, TimeCell(j.work_lost_us),
                     j.state);
    }
  }
  return out;
}

}  // namespace qm::sim
