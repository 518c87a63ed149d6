// A backlog under churn (issue 27): the regime of a busy GPU cluster, and of the simulator when
// demand exceeds capacity. 1,000 ClusterQueues in cohorts of 10 with fair sharing on, each exactly
// full with `kAdmittedPerQueue` workloads; `backlog` more wait, spread evenly over the queues. Every
// iteration the oldest admitted workload of every queue finishes, one new workload arrives in every
// queue, and cycles run until one considers nothing: each queue admits one workload, its oldest
// waiting one (or the new arrival when there is no backlog).
//
// The figure is µs of thread CPU per settled iteration (finishes, submissions and cycles), with
// backlog 0 as the reference: issue 27's target is the 10⁵ backlog within 2× of it. The cost a
// backlog adds is what a finish does to the waiting workloads of its cohort (each frees quota, which
// requeues the parked ones: docs/semantics.md §3.8).
//
// Counters: us/iteration, cycles/iteration, admissions/s (per CPU second of whole iterations).
#include <cstdint>
#include <deque>
#include <string>
#include <utility>

#include "bench_util.h"

namespace qm::bench {
namespace {

constexpr int64_t kQueues = 1000;
constexpr int64_t kAdmittedPerQueue = 10;

void BacklogChurn(benchmark::State& state, bool historical) {
  const int64_t backlog = state.range(0);
  WorldShape shape;
  std::optional<Engine> world = FairSharingWorld(state, kQueues, kAdmittedPerQueue, &shape, historical);
  if (!world) return;
  Engine& engine = *world;
  const Time t0 = Time::FromUnixSeconds(1'700'000'000);
  (void)engine.SetNow(t0);
  // Per queue, admitted workloads oldest first: those an iteration finishes.
  std::vector<std::deque<std::string>> admitted(kQueues);
  for (int64_t i = 0; i < kAdmittedPerQueue * kQueues; ++i) {
    const int64_t q = i % kQueues;
    WorkloadSpec spec = MakeWorkload(shape, q, fmt::format("a-{:07d}", i), 0, t0);
    AdmitOn(spec, 0, t0);
    if (auto id = engine.Submit(spec); !id.ok()) return Fail(state, std::string(id.status().message()));
    admitted[q].push_back(spec.name);
  }
  // The backlog, FIFO per queue: what each queue admits next, in order.
  std::vector<std::deque<std::string>> waiting(kQueues);
  for (int64_t i = 0; i < backlog; ++i) {
    const int64_t q = i % kQueues;
    std::string name = fmt::format("b-{:07d}", i);
    if (auto id = engine.Submit(MakeWorkload(shape, q, name, 0, t0 + Duration::Milliseconds(1))); !id.ok())
      return Fail(state, std::string(id.status().message()));
    waiting[q].push_back(std::move(name));
  }
  // Settle the setup: the backlog is tried once and parked; nothing fits.
  int64_t setup_cycles = 0;
  if (Drain(engine, &setup_cycles) != 0) return Fail(state, "the backlog was admitted into full queues");
  int64_t seq = 0, admissions = 0, cycles = 0, cpu_ns = 0;
  for (auto _ : state) {
    ++seq;
    const int64_t c0 = ThreadCpuNs();
    const Time now = t0 + Duration::Seconds(seq);
    (void)engine.SetNow(now);
    for (int64_t q = 0; q < kQueues; ++q) {
      if (absl::Status st = engine.Finish(QueueName(q), admitted[q].front()); !st.ok())
        return Fail(state, std::string(st.message()));
      admitted[q].pop_front();
    }
    for (int64_t q = 0; q < kQueues; ++q) {
      std::string name = fmt::format("n-{:04d}-{:07d}", q, seq);
      if (auto id = engine.Submit(MakeWorkload(shape, q, name, 0, now)); !id.ok())
        return Fail(state, std::string(id.status().message()));
      waiting[q].push_back(std::move(name));
    }
    int64_t admitted_now = 0;
    for (;;) {
      const CycleResult& r = engine.ScheduleCycle();
      ++cycles;
      admitted_now += r.admitted;
      if (r.decisions.empty()) break;
    }
    cpu_ns += ThreadCpuNs() - c0;
    // Each queue admits its oldest waiting workload, and only that one.
    state.PauseTiming();
    for (int64_t q = 0; q < kQueues; ++q) {
      const WorkloadStatus w = engine.GetWorkload(QueueName(q), waiting[q].front()).value();
      if (w.state != WorkloadState::kAdmitted) return Fail(state, fmt::format("{} not admitted in queue {}", waiting[q].front(), q));
      admitted[q].push_back(std::move(waiting[q].front()));
      waiting[q].pop_front();
    }
    state.ResumeTiming();
    if (admitted_now != kQueues) return Fail(state, fmt::format("admitted {} of {}", admitted_now, kQueues));
    admissions += admitted_now;
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["us/iteration"] = static_cast<double>(cpu_ns) / 1e3 / iterations;
  state.counters["cycles/iteration"] = static_cast<double>(cycles) / iterations;
  state.counters["admissions/s"] = benchmark::Counter(static_cast<double>(admissions), benchmark::Counter::kIsRate);
  state.counters["backlog"] = static_cast<double>(backlog);
  state.SetItemsProcessed(admissions);
}

void BM_BacklogChurn(benchmark::State& state) { BacklogChurn(state, false); }
// The same with the historical fair share on: what bringing every tree node's history to each new
// instant adds (every iteration is one), and what the finer shares cost the tournament.
void BM_BacklogChurn_historical(benchmark::State& state) { BacklogChurn(state, true); }

const bool kRegistered = [] {
  benchmark::RegisterBenchmark("BM_BacklogChurn", BM_BacklogChurn)
      ->ArgName("backlog")
      ->Arg(0)
      ->Arg(10'000)
      ->Arg(100'000)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_BacklogChurn_historical", BM_BacklogChurn_historical)
      ->ArgName("backlog")
      ->Arg(0)
      ->Arg(100'000)
      ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
}  // namespace qm::bench
