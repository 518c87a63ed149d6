// The cost of `Engine::Forecast` (issue 28's target: under 100 ms for 10⁴ pending workloads on a
// cluster of 1,000 queues). 1,000 ClusterQueues in cohorts of 10 with fair sharing on, each full
// with 10 running workloads whose quota reservations are spread over the last two hours; `pending`
// more wait, spread evenly. Every workload runs 2 h (its ClusterQueue's estimate, exact), so the
// running ones end at distinct instants over the next two hours and the waiting ones follow as
// they free quota: one run of O(instants × cycle) on a restored copy.
//
// Counters: ms/forecast (thread CPU), instants are not exposed by the API, so cycles/forecast, and
// the workloads forecast. A forecast that leaves a waiting workload unadmitted fails the run.
#include <cstdint>
#include <string>

#include "bench_util.h"
#include "qm/adapter/forecast.h"

namespace qm::bench {
namespace {

constexpr int64_t kQueues = 1000;
constexpr int64_t kRunningPerQueue = 10;

void BM_Forecast(benchmark::State& state) {
  const int64_t pending = state.range(0);
  WorldShape shape;
  std::optional<Engine> world = FairSharingWorld(state, kQueues, kRunningPerQueue, &shape);
  if (!world) return;
  Engine& engine = *world;
  const Time t0 = Time::FromUnixSeconds(1'700'000'000);
  (void)engine.SetNow(t0);
  for (int64_t i = 0; i < kRunningPerQueue * kQueues; ++i) {
    const int64_t q = i % kQueues;
    const Time reserved = t0 - Duration::Seconds(1 + (i * 7919) % 7200);  // spread over two hours
    WorkloadSpec spec = MakeWorkload(shape, q, fmt::format("r-{:07d}", i), 0, reserved);
    AdmitOn(spec, 0, reserved);
    if (auto id = engine.Submit(spec); !id.ok()) return Fail(state, std::string(id.status().message()));
  }
  for (int64_t i = 0; i < pending; ++i) {
    if (auto id = engine.Submit(MakeWorkload(shape, i % kQueues, fmt::format("p-{:07d}", i), 0, t0)); !id.ok())
      return Fail(state, std::string(id.status().message()));
  }
  int64_t setup_cycles = 0;
  if (Drain(engine, &setup_cycles) != 0) return Fail(state, "a waiting workload was admitted into a full queue");
  ForecastOptions options;
  options.default_runtime = RuntimeEstimate::Exact(Duration::Seconds(2 * 3600));
  int64_t cycles = 0, cpu_ns = 0, forecasts = 0;
  for (auto _ : state) {
    const int64_t c0 = ThreadCpuNs();
    absl::StatusOr<ForecastReport> report = engine.Forecast(options);
    cpu_ns += ThreadCpuNs() - c0;
    if (!report.ok()) return Fail(state, std::string(report.status().message()));
    if (static_cast<int64_t>(report->workloads.size()) != pending) return Fail(state, "not every waiting workload was forecast");
    for (const WorkloadForecast& f : report->workloads)
      if (!f.admission) return Fail(state, fmt::format("{} is never admitted", f.name));
    cycles += report->cycles;
    forecasts += pending;
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["ms/forecast"] = static_cast<double>(cpu_ns) / 1e6 / iterations;
  state.counters["cycles/forecast"] = static_cast<double>(cycles) / iterations;
  state.counters["pending"] = static_cast<double>(pending);
  state.SetItemsProcessed(forecasts);
}

const bool kRegistered = [] {
  benchmark::RegisterBenchmark("BM_Forecast", BM_Forecast)
      ->ArgName("pending")
      ->Arg(1'000)
      ->Arg(10'000)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
}  // namespace qm::bench
