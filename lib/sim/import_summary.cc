// What `qm trace import` prints on stderr (trace_import.h `FormatTraceImportSummary`).
#include <iterator>
#include <string>
#include <string_view>

#include "fmt/format.h"
#include "qm/sim/trace_import.h"

namespace qm::sim {
namespace {

// The rows the format counts as jobs, in its own words.
std::string_view RowNoun(TraceFormat format) {
  switch (format) {
    case TraceFormat::kOpenb: return "pod rows";
    case TraceFormat::kPai2020: return "job rows";
    case TraceFormat::kPhilly: return "jobs";
    case TraceFormat::kHelios: return "job rows";
  }
  return "rows";
}

}  // namespace

std::string FormatTraceImportSummary(TraceFormat format, const TraceImportSummary& s) {
  std::string out;
  auto o = std::back_inserter(out);
  auto line = [&](int64_t n, std::string_view what) {
    if (n != 0) fmt::format_to(o, "  {}: {}\n", what, n);
  };
  fmt::format_to(o, "{}: read {} {}", TraceFormatName(format), s.rows, RowNoun(format));
  if (format == TraceFormat::kPai2020) fmt::format_to(o, ", {} task rows", s.task_rows);
  if (s.node_rows > 0) fmt::format_to(o, ", {} node rows", s.node_rows);
  out += "\n";
  fmt::format_to(o, "jobs written: {}\n", s.jobs);
  line(s.running_kept, "still running at the trace's end, run time cut there");
  line(s.zero_run, "ran 0 s, written as 1 s");
  if (s.fractional_gpu != 0) {
    fmt::format_to(o, "  ask for a fraction of a GPU: {} (read the trace with --round-fractional up)\n",
                   s.fractional_gpu);
  }
  line(s.constrained, "with a GPU-model constraint (node_affinity)");
  fmt::format_to(o, "rows skipped: {}\n", s.rows - s.jobs);
  line(s.never_scheduled, "never scheduled");
  line(s.cancelled_pending, "cancelled while pending");
  line(s.running_skipped, "still running at the trace's end (--running skip)");
  line(s.end_before_start, "end before start");
  line(s.no_run_times, "no attempt with a start time");
  line(s.no_submit, "no submit time");
  line(s.no_owner, "no owner");
  line(s.no_pods, "no pods");
  line(s.too_many_pod_sets, "more than 18 pod sets");
  line(s.cpu_only, "no GPU (--gpu-only)");
  if (s.orphan_tasks != 0) fmt::format_to(o, "task rows of jobs not in the job table (ignored): {}\n", s.orphan_tasks);
  if (s.ignored_attempts != 0) {
    fmt::format_to(o, "attempts without a start, without an end before the last, or ending before they start (ignored): {}\n",
                   s.ignored_attempts);
  }
  if (s.node_rows > 0) fmt::format_to(o, "nodes: {}\n", s.nodes);
  if (!s.origin.empty()) fmt::format_to(o, "time 0: {}; trace end: {}\n", s.origin, s.trace_end);
  return out;
}

}  // namespace qm::sim
