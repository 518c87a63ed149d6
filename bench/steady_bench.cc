// Steady state: A workloads hold quota across 1,000 ClusterQueues (cohorts of 10) that are exactly
// full but for one unit each. Every iteration the oldest workload of every queue finishes, one new
// workload arrives in every queue, and cycles run until stable (one busy cycle admitting 1,000, one
// idle cycle). The cycle's cost must not grow with A.
//
// Counters: us/cycle (thread CPU time inside ScheduleCycle per busy cycle), admissions/s (per CPU second
// of the whole iteration: finishes, submissions and cycles).
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "bench_util.h"

namespace qm::bench {
namespace {

constexpr int64_t kQueues = 1000;

void BM_SteadyState(benchmark::State& state) {
  const int64_t admitted = state.range(0);
  WorldShape shape;
  shape.queues = kQueues;
  shape.cohort_size = 10;
  shape.flavors = 1;
  shape.resources = 3;
  const int64_t per_queue = admitted / kQueues;
  shape.nominal_units = per_queue + 1;
  shape.borrowing_limit_units = 0;
  Engine engine;
  if (absl::Status st = BuildWorld(engine, shape); !st.ok()) return Fail(state, std::string(st.message()));
  const Time t0 = Time::FromUnixSeconds(1'700'000'000);
  std::deque<std::pair<int64_t, std::string>> running;  // (queue, name), oldest first
  for (int64_t i = 0; i < per_queue * kQueues; ++i) {
    const int64_t q = i % kQueues;
    WorkloadSpec spec = MakeWorkload(shape, q, fmt::format("a-{:07d}", i), 0, t0);
    AdmitOn(spec, 0, t0);
    if (auto id = engine.Submit(spec); !id.ok()) return Fail(state, std::string(id.status().message()));
    running.emplace_back(q, spec.name);
  }
  int64_t seq = 0, admissions = 0, cycles = 0;
  int64_t cycle_ns = 0;
  for (auto _ : state) {
    ++seq;
    const Time now = t0 + Duration::Milliseconds(seq);
    (void)engine.SetNow(now);
    for (int64_t k = 0; k < kQueues && !running.empty(); ++k) {
      const auto& [q, name] = running.front();
      if (absl::Status st = engine.Finish(QueueName(q), name); !st.ok()) return Fail(state, std::string(st.message()));
      running.pop_front();
    }
    for (int64_t q = 0; q < kQueues; ++q) {
      std::string name = fmt::format("n-{:04d}-{:07d}", q, seq);
      if (auto id = engine.Submit(MakeWorkload(shape, q, name, 0, now)); !id.ok())
        return Fail(state, std::string(id.status().message()));
      running.emplace_back(q, std::move(name));
    }
    for (;;) {
      const int64_t c0 = ThreadCpuNs();
      const CycleResult& r = engine.ScheduleCycle();
      const int64_t c1 = ThreadCpuNs();
      if (r.decisions.empty()) break;
      cycle_ns += c1 - c0;
      ++cycles;
      admissions += r.admitted;
    }
  }
  if (admissions != state.iterations() * kQueues)
    return Fail(state, fmt::format("admitted {} of {} arrivals", admissions, state.iterations() * kQueues));
  state.counters["admissions/s"] = benchmark::Counter(static_cast<double>(admissions), benchmark::Counter::kIsRate);
  state.counters["us/cycle"] = cycles > 0 ? static_cast<double>(cycle_ns) / 1e3 / static_cast<double>(cycles) : 0.0;
  state.counters["admitted"] = static_cast<double>(per_queue * kQueues);
  state.SetItemsProcessed(admissions);
  state.SetComplexityN(admitted);
}
const bool kRegistered = [] {
  auto* b = benchmark::RegisterBenchmark("BM_SteadyState", BM_SteadyState);
  b->ArgName("admitted")->Arg(1000)->Arg(10'000)->Arg(100'000)->Arg(1'000'000);
  // 10⁷ admitted: on demand only (QM_BENCH_10M=1), about 6 GiB (docs/benchmarks.md).
  if (HugeSizesRequested()) b->Arg(10'000'000);
  b->Unit(benchmark::kMicrosecond)->Complexity(benchmark::o1);
  return true;
}();

}  // namespace
}  // namespace qm::bench
