// Kueue's own performance configurations (bench/configs/kueue-*.yaml) replayed in virtual time
// through the driver of `qm perf` (qm/sim/perf_replay.h). One iteration is one whole replay.
//
// Counters: admissions/cpu_s, cycle_p50_us, cycle_p99_us (measured), and the deterministic figures
// Kueue's checker reports: virtual_wall_ms and avg_cq_usage_% (compare with Kueue's published runs in
// docs/benchmarks.md).
#include <string>

#include "bench_util.h"
#include "qm/sim/perf_config.h"
#include "qm/sim/perf_replay.h"

#ifndef QM_BENCH_CONFIGS_DIR
#error "QM_BENCH_CONFIGS_DIR must name bench/configs"
#endif

namespace qm::bench {
namespace {

void BM_KueueConfig(benchmark::State& state, const char* file) {
  absl::StatusOr<sim::PerfConfig> config = sim::LoadPerfConfigFile(std::string(QM_BENCH_CONFIGS_DIR) + "/" + file);
  if (!config.ok()) return Fail(state, std::string(config.status().message()));
  sim::PerfSummary last;
  for (auto _ : state) {
    absl::StatusOr<sim::PerfSummary> s = sim::ReplayPerf(*config);
    if (!s.ok()) return Fail(state, std::string(s.status().message()));
    last = *std::move(s);
  }
  int64_t admitted = 0;
  for (const auto& c : last.workload_classes) admitted += c.admitted;
  if (admitted != last.workloads) return Fail(state, fmt::format("admitted {} of {} workloads", admitted, last.workloads));
  state.counters["workloads"] = static_cast<double>(last.workloads);
  state.counters["admissions/cpu_s"] = last.admissions_per_cpu_second;
  state.counters["cycle_p50_us"] = last.cycle_p50_us;
  state.counters["cycle_p99_us"] = last.cycle_p99_us;
  state.counters["virtual_wall_ms"] = static_cast<double>(last.virtual_wall_ms);
  state.counters["avg_cq_usage_%"] = last.avg_cq_usage_percent;
  state.SetItemsProcessed(state.iterations() * last.admissions);
}
BENCHMARK_CAPTURE(BM_KueueConfig, baseline, "kueue-baseline.yaml")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_KueueConfig, large_scale, "kueue-large-scale.yaml")->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace qm::bench
