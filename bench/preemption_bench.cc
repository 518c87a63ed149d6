// Preemption search: K admitted candidates in one cohort of 10 ClusterQueues, and one pending
// preemptor that needs 4 cpu. `cq-00000` owns all of the cohort's quota (K cpu) and uses half of it
// with K/2 low-priority workloads (within-queue candidates); the other nine queues borrow the other
// half with K/2 workloads (reclaim candidates). The cohort is full, so the preemptor's queue must
// reclaim. Each iteration asks `Engine::PreemptionTargets`, a query without side effects.
//
// Counters: candidates, targets (victims found per search).
#include <cstdint>
#include <string>
#include <vector>

#include "bench_util.h"

namespace qm::bench {
namespace {

void BM_PreemptionSearch(benchmark::State& state) {
  const int64_t candidates = state.range(0);
  WorldShape shape;
  shape.queues = 10;
  shape.cohort_size = 10;
  shape.flavors = 1;
  shape.resources = 1;
  shape.nominal_units = 0;
  shape.reclaim = ReclaimWithinCohortPolicy::kAny;
  shape.within = WithinClusterQueuePolicy::kLowerPriority;
  Engine engine;
  if (absl::Status st = BuildWorld(engine, shape); !st.ok()) return Fail(state, std::string(st.message()));
  // Give cq-00000 the whole quota.
  {
    ClusterQueueSpec owner;
    owner.name = QueueName(0);
    owner.cohort = "cohort-00000";
    owner.namespace_selector = LabelSelector{};
    owner.preemption.reclaim_within_cohort = shape.reclaim;
    owner.preemption.within_cluster_queue = shape.within;
    owner.resource_groups.push_back(
        ResourceGroupSpec{{"cpu"}, {FlavorQuotasSpec{FlavorName(0), {ResourceQuotaSpec{"cpu", candidates * 1000, {}, {}}}}}});
    if (absl::Status st = engine.Apply(owner); !st.ok()) return Fail(state, std::string(st.message()));
  }
  const Time t0 = Time::FromUnixSeconds(1'700'000'000);
  for (int64_t i = 0; i < candidates; ++i) {
    // Even i: in the owner queue; odd i: spread over the nine borrowers.
    const int64_t q = i % 2 == 0 ? 0 : 1 + (i / 2) % 9;
    WorkloadSpec spec = MakeWorkload(shape, q, fmt::format("c-{:07d}", i), static_cast<int32_t>(i % 10),
                                     t0 + Duration::Milliseconds(i));
    AdmitOn(spec, 0, t0 + Duration::Milliseconds(i));
    if (auto id = engine.Submit(spec); !id.ok()) return Fail(state, std::string(id.status().message()));
  }
  (void)engine.SetNow(t0 + Duration::Seconds(3600));
  if (auto id = engine.Submit(MakeWorkload(shape, 0, "preemptor", 100, t0 + Duration::Seconds(3600), 4)); !id.ok())
    return Fail(state, std::string(id.status().message()));
  const std::vector<RequestedFlavor> request = {{"main", "cpu", FlavorName(0), AssignmentMode::kPreempt}};
  size_t targets = 0;
  for (auto _ : state) {
    auto r = engine.PreemptionTargets(QueueName(0), "preemptor", QueueName(0), request);
    if (!r.ok()) return Fail(state, std::string(r.status().message()));
    targets = r->size();
    benchmark::DoNotOptimize(r);
  }
  if (targets == 0) return Fail(state, "the search found no targets");
  state.counters["candidates"] = static_cast<double>(candidates);
  state.counters["targets"] = static_cast<double>(targets);
  state.SetComplexityN(candidates);
}
BENCHMARK(BM_PreemptionSearch)
    ->ArgName("candidates")
    ->Arg(1000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity();

}  // namespace
}  // namespace qm::bench
