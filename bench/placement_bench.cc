// Gang placement on 1,000 nodes (qm/sim/placement.h): the cost of one `TryPlace`, in the loop the
// simulator runs (place admitted workloads, release finished ones).
//
// 1,000 nodes of 8 GPUs and 96 CPUs on two flavors (500 each, plus a zone flavor covering half of
// each, so some pod sets need two flavors). `live` workloads are kept placed: every iteration
// tries a new gang (1–64 pods of 1 GPU + 4 CPUs, or 1–8 pods of 8 GPUs; random from a fixed seed)
// and, once `live` are placed, releases the oldest. With live = 300 the cluster is about half
// full; with live = 1,000 it is full and most attempts are rejected (the quick-reject path) or
// scan a fragmented cluster.
//
// Counters: s/TryPlace (CPU time per attempt, including the release that follows a success once
// `live` are placed), placed/attempt.
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "qm/sim/placement.h"

namespace qm::bench {
namespace {

constexpr int kNodes = 1000;

std::vector<NodeSpec> BenchNodes() {
  std::vector<NodeSpec> nodes;
  for (int i = 0; i < kNodes; ++i) {
    NodeSpec n;
    n.name = fmt::format("node-{:04d}", i);
    n.labels = {{"gpu", i % 2 == 0 ? "a100" : "h100"}, {"zone", i % 4 < 2 ? "a" : "b"}};
    n.allocatable = {{"cpu", 96'000}, {"nvidia.com/gpu", 8}};
    nodes.push_back(std::move(n));
  }
  return nodes;
}

std::vector<ResourceFlavorSpec> BenchFlavors() {
  std::vector<ResourceFlavorSpec> flavors(3);
  flavors[0].name = "a100";
  flavors[0].node_labels = {{"gpu", "a100"}};
  flavors[1].name = "h100";
  flavors[1].node_labels = {{"gpu", "h100"}};
  flavors[2].name = "zone-a";
  flavors[2].node_labels = {{"zone", "a"}};
  return flavors;
}

void BM_Placement_TryPlace(benchmark::State& state) {
  const auto live = static_cast<size_t>(state.range(0));
  absl::StatusOr<sim::NodePool> created = sim::NodePool::Create(BenchNodes(), BenchFlavors());
  if (!created.ok()) {
    Fail(state, std::string(created.status().message()));
    return;
  }
  sim::NodePool pool = std::move(*created);
  const int32_t gpu = pool.ResourceIndex("nvidia.com/gpu");
  const int32_t cpu = pool.ResourceIndex("cpu");
  const int32_t zone_a = pool.FlavorIndex("zone-a");

  // 4,096 gangs drawn once from a fixed seed, cycled through.
  std::mt19937 rng(42);
  std::vector<sim::PodSetDemand> gangs(4096);
  for (sim::PodSetDemand& d : gangs) {
    const bool whole_nodes = rng() % 4 == 0;
    d.count = whole_nodes ? static_cast<int32_t>(1 + rng() % 8) : static_cast<int32_t>(1 + rng() % 64);
    d.min_count = d.count;
    d.flavors = {static_cast<int32_t>(rng() % 2)};
    if (rng() % 8 == 0) d.flavors.push_back(zone_a);
    d.requests = whole_nodes ? std::vector<std::pair<int32_t, int64_t>>{{gpu, 8}, {cpu, 90'000}}
                             : std::vector<std::pair<int32_t, int64_t>>{{gpu, 1}, {cpu, 4'000}};
  }

  std::deque<sim::Placement> placed;
  std::vector<sim::Placement> spare;  // released placements, reused so their buffers are kept
  size_t next = 0;
  int64_t attempts = 0;
  int64_t successes = 0;
  for (auto _ : state) {
    if (spare.empty()) spare.emplace_back();
    sim::Placement& out = spare.back();
    const bool ok = pool.TryPlace({&gangs[next], 1}, &out);
    next = (next + 1) % gangs.size();
    ++attempts;
    if (ok) {
      ++successes;
      placed.push_back(std::move(out));
      spare.pop_back();
      if (placed.size() > live) {
        pool.Release(placed.front());
        spare.push_back(std::move(placed.front()));
        placed.pop_front();
      }
    }
  }
  // Correctness: with everything released, every node is whole again.
  for (const sim::Placement& p : placed) pool.Release(p);
  for (int32_t n = 0; n < pool.node_count(); ++n) {
    if (pool.Free(n, gpu) != 8 || pool.Free(n, cpu) != 96'000) {
      Fail(state, fmt::format("node {} not whole after releasing everything", pool.node(n).name));
      return;
    }
  }
  state.SetItemsProcessed(attempts);
  state.counters["placed/attempt"] =
      benchmark::Counter(static_cast<double>(successes) / static_cast<double>(std::max<int64_t>(attempts, 1)));
  state.counters["s/TryPlace"] = benchmark::Counter(
      static_cast<double>(attempts), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Placement_TryPlace)->Arg(300)->Arg(1000)->ArgName("live");

}  // namespace
}  // namespace qm::bench
