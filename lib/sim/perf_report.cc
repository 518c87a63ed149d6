// Text and JSON renderings of a performance replay summary (perf_replay.h).
#include <string>

#include "fmt/format.h"
#include "qm/sim/perf_replay.h"
#include "text/doc.h"

namespace qm::sim {
using qm::internal::JsonString;

namespace {

// Fixed-point numbers keep the output free of exponents and locale effects.
std::string Num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

}  // namespace

std::string FormatPerfSummaryText(const PerfSummary& s) {
  std::string out;
  out += fmt::format("workloads          {}\n", s.workloads);
  out += fmt::format("cluster queues     {} in {} cohorts\n", s.cluster_queues, s.cohorts);
  out += fmt::format("virtual wall time  {} ms ({:.1f} s)\n", s.virtual_wall_ms,
                     static_cast<double>(s.virtual_wall_ms) / 1e3);
  out += fmt::format("admissions         {} ({} preemptions)\n", s.admissions, s.preemptions);
  out += fmt::format("cycles             {} busy, {} idle, at {} instants\n", s.cycles, s.idle_cycles, s.instants);
  out += fmt::format("avg CQ usage       {:.1f}%\n", s.avg_cq_usage_percent);
  for (const PerfQueueClassSummary& c : s.queue_classes) {
    out += fmt::format("  class {:<10}  {:.1f}% of {} queues' nominal quota\n", c.name, c.avg_usage_percent,
                       c.queues);
  }
  out += "avg time to admission (ms)\n";
  for (const PerfWorkloadClassSummary& c : s.workload_classes) {
    out += fmt::format("  {:<16} {:>12.1f}   ({} workloads, {} evictions, avg time to finish {:.1f} ms)\n", c.name,
                       c.avg_time_to_admission_ms, c.count, c.evictions, c.avg_time_to_finish_ms);
  }
  out += "measured on this host\n";
  out += fmt::format("  real time        {:.1f} ms (setup {:.1f} ms, inside ScheduleCycle {:.1f} ms)\n", s.real_ms,
                     s.setup_ms, s.schedule_ms);
  out += fmt::format("  engine / driver  {:.1f} ms inside Engine calls, {:.1f} ms outside (setup: {:.1f} ms in Apply)\n",
                     s.engine_ms, s.outside_engine_ms, s.setup_engine_ms);
  out += fmt::format("  cpu time         {:.1f} ms\n", s.cpu_ms);
  out += fmt::format("  admissions/s     {:.0f} per cpu second ({:.0f} per second inside ScheduleCycle)\n",
                     s.admissions_per_cpu_second, s.admissions_per_schedule_second);
  out += fmt::format("  cycle time       p50 {:.1f} us, p99 {:.1f} us, max {:.1f} us\n", s.cycle_p50_us,
                     s.cycle_p99_us, s.cycle_max_us);
  out += fmt::format("  peak RSS         {:.1f} MiB\n", static_cast<double>(s.peak_rss_bytes) / (1024.0 * 1024.0));
  return out;
}

std::string FormatPerfSummaryJson(const PerfSummary& s) {
  std::string out = "{";
  out += fmt::format("\"workloads\":{},\"cluster_queues\":{},\"cohorts\":{}", s.workloads, s.cluster_queues, s.cohorts);
  out += fmt::format(",\"virtual_wall_ms\":{},\"real_ms\":{},\"setup_ms\":{},\"cpu_ms\":{},\"schedule_ms\":{}",
                     s.virtual_wall_ms, Num(s.real_ms, 3), Num(s.setup_ms, 3), Num(s.cpu_ms, 3),
                     Num(s.schedule_ms, 3));
  out += fmt::format(",\"engine_ms\":{},\"outside_engine_ms\":{},\"setup_engine_ms\":{}", Num(s.engine_ms, 3),
                     Num(s.outside_engine_ms, 3), Num(s.setup_engine_ms, 3));
  out += fmt::format(",\"admissions\":{},\"preemptions\":{},\"cycles\":{},\"idle_cycles\":{},\"instants\":{}",
                     s.admissions, s.preemptions, s.cycles, s.idle_cycles, s.instants);
  out += fmt::format(",\"avg_cq_usage_percent\":{}", Num(s.avg_cq_usage_percent, 3));
  out += ",\"cq_usage_percent_by_class\":{";
  for (size_t i = 0; i < s.queue_classes.size(); ++i) {
    out += fmt::format("{}{}:{}", i ? "," : "", JsonString(s.queue_classes[i].name),
                       Num(s.queue_classes[i].avg_usage_percent, 3));
  }
  out += "},\"avg_time_to_admission_ms\":{";
  for (size_t i = 0; i < s.workload_classes.size(); ++i) {
    out += fmt::format("{}{}:{}", i ? "," : "", JsonString(s.workload_classes[i].name),
                       Num(s.workload_classes[i].avg_time_to_admission_ms, 3));
  }
  out += "},\"workload_classes\":{";
  for (size_t i = 0; i < s.workload_classes.size(); ++i) {
    const PerfWorkloadClassSummary& c = s.workload_classes[i];
    out += fmt::format("{}{}:{{\"count\":{},\"admitted\":{},\"evictions\":{},\"avg_time_to_admission_ms\":{},"
                       "\"avg_time_to_finish_ms\":{}}}",
                       i ? "," : "", JsonString(c.name), c.count, c.admitted, c.evictions,
                       Num(c.avg_time_to_admission_ms, 3), Num(c.avg_time_to_finish_ms, 3));
  }
  out += "}";
  out += fmt::format(",\"admissions_per_cpu_second\":{},\"admissions_per_schedule_second\":{}",
                     Num(s.admissions_per_cpu_second, 1), Num(s.admissions_per_schedule_second, 1));
  out += fmt::format(",\"cycle_p50_us\":{},\"cycle_p99_us\":{},\"cycle_max_us\":{},\"peak_rss_bytes\":{}",
                     Num(s.cycle_p50_us, 3), Num(s.cycle_p99_us, 3), Num(s.cycle_max_us, 3), s.peak_rss_bytes);
  out += "}\n";
  return out;
}

}  // namespace qm::sim
