// Drain: N pending workloads over C ClusterQueues (cohorts of 10), admitted by running cycles until
// none is left. Every workload fits, so each cycle admits one head per queue and the run takes
// ⌈N/C⌉ busy cycles (`_refill`: with refill mode, one busy cycle). Shapes: one flavor × three resources (cpu, memory, pods), and eight flavors ×
// four resources where each flavor holds an eighth of the quota (no borrowing), so heads scan past
// full flavors.
//
// Counters: admissions/s (per CPU second of the timed region), us/cycle, cycles, and
// heap_B/pending (malloc'd bytes the engine holds per pending workload, measured while setting up)
// and rss_B/pending (resident-set growth per pending workload, meaningful on the first, largest run
// of a process only: freed memory is reused), and faults/admission (minor page faults of the timed
// drain per admission: memory touched for the first time, issue 27). `_reserved`: the engine
// reserves room for the pending workloads first (`Engine::Reserve`), during the untimed setup.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "bench_util.h"
#include "qm/sim/perf_replay.h"

namespace qm::bench {
namespace {

void RunDrain(benchmark::State& state, int flavors, int resources, int64_t queues, bool refill,
              bool reserve = false) {
  const int64_t pending = state.range(0);
  WorldShape shape;
  shape.queues = queues;
  shape.cohort_size = 10;
  shape.flavors = flavors;
  shape.resources = resources;
  const int64_t per_queue = (pending + queues - 1) / queues;
  shape.nominal_units = (per_queue + flavors - 1) / flavors;
  if (flavors > 1) shape.borrowing_limit_units = 0;
  int64_t admitted_total = 0, cycles_total = 0;
  double cpu_total = 0, heap_per_pending = 0, rss_per_pending = 0;
  int64_t faults_total = 0;
  for (auto _ : state) {
    state.PauseTiming();
    EngineConfig config;
    config.refill.enabled = refill;
    auto engine = std::make_unique<Engine>(*Engine::Create(config));
    if (reserve) {
      if (absl::Status st = engine->Reserve(pending); !st.ok()) {
        Fail(state, std::string(st.message()));
        break;
      }
    }
    if (absl::Status st = BuildWorld(*engine, shape); !st.ok()) {
      Fail(state, std::string(st.message()));
      break;
    }
    const int64_t heap0 = HeapInUseBytes();
    const int64_t rss0 = sim::CurrentRssBytes();
    bool ok = true;
    for (int64_t i = 0; i < pending && ok; ++i) {
      const int64_t q = i % queues;
      // Four priorities and increasing creation times: the queues' heaps see real orderings.
      auto id = engine->Submit(MakeWorkload(shape, q, fmt::format("w-{:07d}", i), static_cast<int32_t>(i % 4),
                                            Time::FromUnixSeconds(1'700'000'000) + Duration::Milliseconds(i)));
      if (!id.ok()) {
        Fail(state, std::string(id.status().message()));
        ok = false;
      }
    }
    if (!ok) break;
    heap_per_pending = static_cast<double>(HeapInUseBytes() - heap0) / static_cast<double>(pending);
    rss_per_pending = static_cast<double>(sim::CurrentRssBytes() - rss0) / static_cast<double>(pending);
    const int64_t cpu0 = ThreadCpuNs();
    const int64_t faults0 = ThreadMinorFaults();
    state.ResumeTiming();
    int64_t cycles = 0;
    const int64_t admitted = Drain(*engine, &cycles);
    state.PauseTiming();
    cpu_total += static_cast<double>(ThreadCpuNs() - cpu0) / 1e9;
    faults_total += ThreadMinorFaults() - faults0;
    admitted_total += admitted;
    cycles_total += cycles;
    if (admitted != pending) {
      Fail(state, fmt::format("admitted {} of {} pending workloads", admitted, pending));
      break;
    }
    engine.reset();
    state.ResumeTiming();
  }
  state.counters["admissions/s"] = benchmark::Counter(static_cast<double>(admitted_total), benchmark::Counter::kIsRate);
  state.counters["admissions/cpu_s"] = cpu_total > 0 ? static_cast<double>(admitted_total) / cpu_total : 0.0;
  state.counters["us/cycle"] = cycles_total > 0 ? cpu_total * 1e6 / static_cast<double>(cycles_total) : 0.0;
  state.counters["cycles"] = benchmark::Counter(static_cast<double>(cycles_total), benchmark::Counter::kAvgIterations);
  state.counters["heap_B/pending"] = heap_per_pending;
  state.counters["rss_B/pending"] = rss_per_pending;
  state.counters["faults/admission"] =
      admitted_total > 0 ? static_cast<double>(faults_total) / static_cast<double>(admitted_total) : 0.0;
  state.SetItemsProcessed(admitted_total);
  state.SetComplexityN(pending);
}

// Families per queue count so that ->Complexity() fits the pending count alone.
void RegisterDrain(const char* shape_name, int flavors, int resources, bool refill = false) {
  for (int64_t queues : {1, 10, 100, 1000, 10000}) {
    auto* b = benchmark::RegisterBenchmark(
        fmt::format("BM_Drain_{}{}/queues:{}", shape_name, refill ? "_refill" : "", queues).c_str(),
        [=](benchmark::State& st) { RunDrain(st, flavors, resources, queues, refill); });
    for (int64_t pending : {1000, 10'000, 100'000, 1'000'000})
      if (pending >= queues) b->Arg(pending);
    // 10⁷ pending: on demand only (QM_BENCH_10M=1), about 6 GiB and a minute (docs/benchmarks.md).
    if (queues == 1000 && HugeSizesRequested()) b->Arg(10'000'000);
    b->ArgName("pending")->Unit(benchmark::kMillisecond)->Complexity();
  }
}

const bool kRegistered = [] {
  RegisterDrain("1x3", 1, 3);
  RegisterDrain("8x4", 8, 4);
  // Refill mode (docs/semantics.md §11.7): every queue drains in one busy cycle.
  RegisterDrain("1x3", 1, 3, /*refill=*/true);
  // Engine::Reserve(pending) before the workloads arrive (issue 27): the admission records and
  // workload records are taken and touched during setup, not during the timed drain.
  auto* reserved = benchmark::RegisterBenchmark("BM_Drain_1x3_reserved/queues:1000", [](benchmark::State& st) {
    RunDrain(st, 1, 3, 1000, /*refill=*/false, /*reserve=*/true);
  });
  reserved->Arg(10'000)->Arg(1'000'000)->ArgName("pending")->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
}  // namespace qm::bench
