// Gang placement on nodes (qm/sim/placement.h, docs/simulate.md §Placement): hand-computed cases.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "qm/hyperpod/instance_catalog.h"
#include "qm/hyperpod/translate.h"
#include "qm/sim/placement.h"

namespace qm::sim {
namespace placement_test {
namespace {

using Amounts = std::vector<std::pair<std::string, int64_t>>;

NodeSpec MakeNode(std::string name, Labels labels, Amounts allocatable) {
  NodeSpec n;
  n.name = std::move(name);
  n.labels = std::move(labels);
  std::sort(n.labels.begin(), n.labels.end());
  n.allocatable = std::move(allocatable);
  std::sort(n.allocatable.begin(), n.allocatable.end());
  return n;
}

ResourceFlavorSpec MakeFlavor(std::string name, Labels labels) {
  ResourceFlavorSpec f;
  f.name = std::move(name);
  f.node_labels = std::move(labels);
  return f;
}

NodePool MustCreate(std::vector<NodeSpec> nodes, const std::vector<ResourceFlavorSpec>& flavors) {
  absl::StatusOr<NodePool> pool = NodePool::Create(std::move(nodes), flavors);
  if (!pool.ok()) FAIL(pool.status().message());
  return std::move(*pool);
}

// A pod set asking `gpu` GPUs and `cpu` millicores per pod on one flavor.
PodSetDemand Demand(const NodePool& pool, std::string_view flavor, int32_t count, int32_t min_count,
                    int64_t gpu, int64_t cpu = 0) {
  PodSetDemand d;
  d.count = count;
  d.min_count = min_count;
  d.flavors = {pool.FlavorIndex(flavor)};
  if (gpu > 0) d.requests.emplace_back(pool.ResourceIndex("nvidia.com/gpu"), gpu);
  if (cpu > 0) d.requests.emplace_back(pool.ResourceIndex("cpu"), cpu);
  return d;
}

// (node name, pod set, pods) per slot, for readable comparisons.
std::vector<std::tuple<std::string, int32_t, int32_t>> Slots(const NodePool& pool,
                                                             const Placement& p) {
  std::vector<std::tuple<std::string, int32_t, int32_t>> out;
  for (const Placement::Slot& s : p.slots) out.emplace_back(pool.node(s.node).name, s.pod_set, s.pods);
  return out;
}

// Every node's free amount of every resource.
std::vector<int64_t> FreeTable(const NodePool& pool) {
  std::vector<int64_t> out;
  for (int32_t n = 0; n < pool.node_count(); ++n) {
    for (int32_t r = 0; r < static_cast<int32_t>(pool.resources().size()); ++r) {
      out.push_back(pool.Free(n, r));
    }
  }
  return out;
}

// Two A100 nodes with 4 GPUs and 8 CPUs each.
NodePool TwoGpuNodes() {
  return MustCreate({MakeNode("gpu-0", {{"gpu", "a100"}}, {{"nvidia.com/gpu", 4}, {"cpu", 8000}}),
                     MakeNode("gpu-1", {{"gpu", "a100"}}, {{"nvidia.com/gpu", 4}, {"cpu", 8000}})},
                    {MakeFlavor("a100", {{"gpu", "a100"}})});
}

TEST_CASE("NodePool: the pods' node selector and affinity narrow the flavor's nodes", "[sim][placement]") {
  // Three nodes of one flavor in two zones; gpu-1 is the only one labelled rack=r1.
  NodePool pool = MustCreate(
      {MakeNode("gpu-0", {{"gpu", "a100"}, {"zone", "a"}}, {{"nvidia.com/gpu", 4}}),
       MakeNode("gpu-1", {{"gpu", "a100"}, {"zone", "b"}, {"rack", "r1"}}, {{"nvidia.com/gpu", 4}}),
       MakeNode("gpu-2", {{"gpu", "a100"}, {"zone", "b"}}, {{"nvidia.com/gpu", 4}})},
      {MakeFlavor("a100", {{"gpu", "a100"}})});
  const Labels zone_b = {{"zone", "b"}};
  const std::vector<NodeSelectorTerm> not_r1 = {
      {{{"rack", NodeSelectorRequirement::Operator::kDoesNotExist, {}}}}};
  Placement where;
  SECTION("a selector skips the nodes without its labels") {
    PodSetDemand d = Demand(pool, "a100", 2, 2, 4);
    d.node_selector = &zone_b;
    REQUIRE(pool.TryPlace({&d, 1}, &where));
    CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"gpu-1", 0, 1}, {"gpu-2", 0, 1}});
  }
  SECTION("selector and affinity together leave one node; a gang of two then does not fit") {
    PodSetDemand d = Demand(pool, "a100", 2, 2, 4);
    d.node_selector = &zone_b;
    d.node_affinity = &not_r1;
    CHECK_FALSE(pool.TryPlace({&d, 1}, &where));
    d.count = d.min_count = 1;
    REQUIRE(pool.TryPlace({&d, 1}, &where));
    CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"gpu-2", 0, 1}});
  }
  SECTION("without requests the pod set goes to the first accepted node") {
    PodSetDemand d = Demand(pool, "a100", 3, 3, 0);
    d.node_affinity = &not_r1;
    d.node_selector = &zone_b;
    REQUIRE(pool.TryPlace({&d, 1}, &where));
    CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"gpu-2", 0, 3}});
  }
}

TEST_CASE("NodePool: a gang that exactly fills the nodes is placed first fit", "[sim][placement]") {
  // Setup: 2 nodes × 4 GPUs; 8 pods of 1 GPU + 1 CPU. Expect: 4 on gpu-0, then 4 on gpu-1; no GPU
  // left, 4 CPUs left on each; a ninth pod does not fit.
  NodePool pool = TwoGpuNodes();
  const int32_t gpu = pool.ResourceIndex("nvidia.com/gpu");
  const int32_t cpu = pool.ResourceIndex("cpu");
  const PodSetDemand d = Demand(pool, "a100", 8, 8, 1, 1000);
  Placement where;
  REQUIRE(pool.TryPlace({&d, 1}, &where));
  CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{
                                  {"gpu-0", 0, 4}, {"gpu-1", 0, 4}});
  CHECK(where.placed == std::vector<int32_t>{8});
  CHECK(pool.Free(0, gpu) == 0);
  CHECK(pool.Free(1, gpu) == 0);
  CHECK(pool.Free(0, cpu) == 4000);
  CHECK(pool.Free(1, cpu) == 4000);

  const PodSetDemand one = Demand(pool, "a100", 1, 1, 1);
  Placement more;
  CHECK_FALSE(pool.TryPlace({&one, 1}, &more));
  CHECK(more.slots.empty());

  pool.Release(where);
  CHECK(pool.Free(0, gpu) == 4);
  CHECK(pool.Free(1, cpu) == 8000);
}

TEST_CASE("NodePool: capacity in total but on no single node places nothing", "[sim][placement]") {
  // Setup: 2 nodes × 4 GPUs; two 3-GPU pods take one per node, leaving 1 + 1 GPUs. Expect: a 2-GPU
  // pod does not fit (2 GPUs free in total, no node has 2), and free amounts are unchanged.
  NodePool pool = TwoGpuNodes();
  const PodSetDemand big = Demand(pool, "a100", 2, 2, 3);
  Placement first;
  REQUIRE(pool.TryPlace({&big, 1}, &first));
  CHECK(Slots(pool, first) == std::vector<std::tuple<std::string, int32_t, int32_t>>{
                                  {"gpu-0", 0, 1}, {"gpu-1", 0, 1}});
  const std::vector<int64_t> before = FreeTable(pool);
  const PodSetDemand two = Demand(pool, "a100", 1, 1, 2);
  Placement where;
  CHECK_FALSE(pool.TryPlace({&two, 1}, &where));
  CHECK(where.slots.empty());
  CHECK(FreeTable(pool) == before);
  // Two 1-GPU pods do fit, one per node.
  const PodSetDemand ones = Demand(pool, "a100", 2, 2, 1);
  REQUIRE(pool.TryPlace({&ones, 1}, &where));
  CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{
                                  {"gpu-0", 0, 1}, {"gpu-1", 0, 1}});
}

TEST_CASE("NodePool: a gang is placed whole or not at all", "[sim][placement]") {
  // Setup: 2 nodes × 4 GPUs, 1 GPU already used on gpu-0. A workload of a 4-pod launcher set (1 CPU
  // each) and a 5-pod worker set (1 GPU + 0.5 CPU each) is placed; a second one's launchers would
  // fit, its workers not (2 GPUs left). Expect: the failed attempt leaves every free amount
  // exactly as before it.
  NodePool pool = TwoGpuNodes();
  const PodSetDemand used = Demand(pool, "a100", 1, 1, 1);
  Placement taken;
  REQUIRE(pool.TryPlace({&used, 1}, &taken));
  const std::vector<PodSetDemand> workload = {Demand(pool, "a100", 4, 4, 0, 1000),
                                              Demand(pool, "a100", 5, 5, 1, 500)};
  Placement first;
  REQUIRE(pool.TryPlace(workload, &first));
  CHECK(Slots(pool, first) == std::vector<std::tuple<std::string, int32_t, int32_t>>{
                                  {"gpu-0", 0, 4}, {"gpu-0", 1, 3}, {"gpu-1", 1, 2}});
  CHECK(first.placed == std::vector<int32_t>{4, 5});

  const std::vector<int64_t> before = FreeTable(pool);
  Placement second;
  CHECK_FALSE(pool.TryPlace(workload, &second));
  CHECK(second.slots.empty());
  CHECK(second.placed.empty());
  CHECK(FreeTable(pool) == before);

  // Rollback after a partial pass, past the quick reject: free are gpu-0 0 GPUs / 2.5 CPUs and
  // gpu-1 2 GPUs / 7 CPUs. The launcher (1 CPU) goes to gpu-0; 2 workers of 1 GPU + 4 CPUs pass
  // the totals (2 GPUs, 8.5 CPUs) but only one fits on gpu-1. Expect: the launcher is taken back.
  const std::vector<PodSetDemand> tight = {Demand(pool, "a100", 1, 1, 0, 1000),
                                           Demand(pool, "a100", 2, 2, 1, 4000)};
  CHECK_FALSE(pool.TryPlace(tight, &second));
  CHECK(FreeTable(pool) == before);

  pool.Release(first);
  pool.Release(taken);
  CHECK(pool.Free(0, pool.ResourceIndex("nvidia.com/gpu")) == 4);
  CHECK(pool.Free(0, pool.ResourceIndex("cpu")) == 8000);
}

TEST_CASE("NodePool: a pod set with minCount takes as many pods as fit", "[sim][placement]") {
  // Setup: 3 nodes × 2 GPUs; 10 pods of 1 GPU. Expect: with minCount 4, 6 pods placed (2 per
  // node); with minCount 7, nothing.
  NodePool pool = MustCreate({MakeNode("n-0", {}, {{"nvidia.com/gpu", 2}}),
                              MakeNode("n-1", {}, {{"nvidia.com/gpu", 2}}),
                              MakeNode("n-2", {}, {{"nvidia.com/gpu", 2}})},
                             {MakeFlavor("default", {})});
  SECTION("minCount reachable") {
    const PodSetDemand d = Demand(pool, "default", 10, 4, 1);
    Placement where;
    REQUIRE(pool.TryPlace({&d, 1}, &where));
    CHECK(where.placed == std::vector<int32_t>{6});
    CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{
                                    {"n-0", 0, 2}, {"n-1", 0, 2}, {"n-2", 0, 2}});
  }
  SECTION("minCount above what fits") {
    const PodSetDemand d = Demand(pool, "default", 10, 7, 1);
    Placement where;
    CHECK_FALSE(pool.TryPlace({&d, 1}, &where));
    CHECK(pool.Free(0, 0) == 2);
  }
  SECTION("minCount reachable, but only by the scan: 5 GPUs free in total, 2 per node at most") {
    // Setup: 1 GPU used on n-0. A pod set of 3 pods of 2 GPUs, minCount 2: total 5 ≥ 4, and n-1,
    // n-2 take one pod each. Expect: 2 placed.
    const PodSetDemand used = Demand(pool, "default", 1, 1, 1);
    Placement taken;
    REQUIRE(pool.TryPlace({&used, 1}, &taken));
    const PodSetDemand d = Demand(pool, "default", 3, 2, 2);
    Placement where;
    REQUIRE(pool.TryPlace({&d, 1}, &where));
    CHECK(where.placed == std::vector<int32_t>{2});
    CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{
                                    {"n-1", 0, 1}, {"n-2", 0, 1}});
  }
}

TEST_CASE("NodePool: a pod set with several flavors lands on nodes that match all", "[sim][placement]") {
  // Setup: flavors `a100` (gpu=a100) and `zone-a` (zone=a); n-0 has both labels, n-1 only the GPU,
  // n-2 only the zone. Expect: a pod set on {a100, zone-a} goes to n-0 only; on {zone-a, a100,
  // zone-a} (duplicates, any order) the same; NodesOfFlavor lists the single-flavor matches.
  NodePool pool = MustCreate(
      {MakeNode("n-0", {{"gpu", "a100"}, {"zone", "a"}}, {{"nvidia.com/gpu", 2}, {"cpu", 4000}}),
       MakeNode("n-1", {{"gpu", "a100"}, {"zone", "b"}}, {{"nvidia.com/gpu", 8}, {"cpu", 4000}}),
       MakeNode("n-2", {{"zone", "a"}}, {{"cpu", 4000}})},
      {MakeFlavor("a100", {{"gpu", "a100"}}), MakeFlavor("zone-a", {{"zone", "a"}})});
  const int32_t a100 = pool.FlavorIndex("a100");
  const int32_t zone_a = pool.FlavorIndex("zone-a");
  CHECK(std::vector<int32_t>(pool.NodesOfFlavor(a100).begin(), pool.NodesOfFlavor(a100).end()) ==
        std::vector<int32_t>{0, 1});
  CHECK(std::vector<int32_t>(pool.NodesOfFlavor(zone_a).begin(),
                             pool.NodesOfFlavor(zone_a).end()) == std::vector<int32_t>{0, 2});

  PodSetDemand d = Demand(pool, "a100", 3, 3, 1);
  d.flavors = {a100, zone_a};
  Placement where;
  CHECK_FALSE(pool.TryPlace({&d, 1}, &where));  // n-0 has 2 GPUs; n-1 is in zone b
  d.count = 2;
  d.min_count = 2;
  d.flavors = {zone_a, a100, zone_a};
  REQUIRE(pool.TryPlace({&d, 1}, &where));
  CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"n-0", 0, 2}});
  // The cached set's totals follow the take: nothing left on n-0, so a third pod is rejected.
  Placement again;
  d.count = 1;
  d.min_count = 1;
  CHECK_FALSE(pool.TryPlace({&d, 1}, &again));
  pool.Release(where);
  REQUIRE(pool.TryPlace({&d, 1}, &again));
  CHECK(Slots(pool, again) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"n-0", 0, 1}});

  // An unknown flavor places nothing; a resource no node has does not limit.
  d.flavors = {-1};
  CHECK_FALSE(pool.TryPlace({&d, 1}, &where));
  d.flavors = {zone_a};
  d.requests = {{pool.ResourceIndex("example.com/fpga"), 5}, {pool.ResourceIndex("cpu"), 4000}};
  REQUIRE(pool.ResourceIndex("example.com/fpga") == -1);
  REQUIRE(pool.TryPlace({&d, 1}, &where));  // n-0 still has its 4 CPUs (its pods took GPUs only)
  CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"n-0", 0, 1}});
}

TEST_CASE("NodePool: taints keep a node out of flavors that do not tolerate them", "[sim][placement]") {
  const Taint gpu_taint{.key = "nvidia.com/gpu", .value = "present", .effect = TaintEffect::kNoSchedule};
  NodeSpec tainted = MakeNode("gpu-0", {{"pool", "gpu"}}, {{"nvidia.com/gpu", 8}});
  tainted.taints = {gpu_taint};
  NodeSpec plain = MakeNode("cpu-0", {{"pool", "cpu"}}, {{"cpu", 16000}});

  SECTION("a flavor without the toleration matches no tainted node: an error naming the node") {
    // Expect: the error names the node, its labels, the flavor whose labels match and the taint.
    const absl::StatusOr<NodePool> pool =
        NodePool::Create({tainted, plain}, std::vector{MakeFlavor("gpu", {{"pool", "gpu"}}),
                                                       MakeFlavor("cpu", {{"pool", "cpu"}})});
    REQUIRE_FALSE(pool.ok());
    CHECK(pool.status().message() ==
          "Node/gpu-0: no ResourceFlavor matches its labels {pool=gpu} and tolerates its taints "
          "(ResourceFlavor 'gpu' matches the labels but not the taint "
          "nvidia.com/gpu=present:NoSchedule)");
  }
  SECTION("a flavor toleration, or the flavor's own nodeTaints, tolerate the taint") {
    ResourceFlavorSpec by_toleration = MakeFlavor("gpu", {{"pool", "gpu"}});
    by_toleration.tolerations = {
        {.key = "nvidia.com/gpu", .op = Toleration::Operator::kExists, .value = "", .effect = {}}};
    ResourceFlavorSpec by_taint = MakeFlavor("gpu", {{"pool", "gpu"}});
    by_taint.node_taints = {gpu_taint};
    for (const ResourceFlavorSpec& f : {by_toleration, by_taint}) {
      NodePool pool = MustCreate({tainted, plain}, {f, MakeFlavor("cpu", {{"pool", "cpu"}})});
      CHECK(pool.NodesOfFlavor(pool.FlavorIndex("gpu")).size() == 1);
      const PodSetDemand d = Demand(pool, "gpu", 8, 8, 1);
      Placement where;
      REQUIRE(pool.TryPlace({&d, 1}, &where));
      CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"gpu-0", 0, 8}});
    }
  }
  SECTION("PreferNoSchedule keeps no pod off; a flavor without labels matches every node") {
    // Setup: the taint is PreferNoSchedule; flavor `any` has no labels. Expect: `any` matches both
    // nodes; `gpu` (no toleration) matches gpu-0.
    tainted.taints[0].effect = TaintEffect::kPreferNoSchedule;
    NodePool pool = MustCreate({tainted, plain}, {MakeFlavor("gpu", {{"pool", "gpu"}}),
                                                  MakeFlavor("any", {})});
    CHECK(pool.NodesOfFlavor(pool.FlavorIndex("gpu")).size() == 1);
    CHECK(pool.NodesOfFlavor(pool.FlavorIndex("any")).size() == 2);
  }
}

TEST_CASE("NodePool: down and unschedulable nodes receive no pods", "[sim][placement]") {
  NodeSpec cordoned = MakeNode("gpu-2", {{"gpu", "a100"}}, {{"nvidia.com/gpu", 4}});
  cordoned.unschedulable = true;
  NodePool pool = MustCreate(
      {MakeNode("gpu-0", {{"gpu", "a100"}}, {{"nvidia.com/gpu", 4}}),
       MakeNode("gpu-1", {{"gpu", "a100"}}, {{"nvidia.com/gpu", 4}}), cordoned},
      {MakeFlavor("a100", {{"gpu", "a100"}})});
  const int32_t gpu = pool.ResourceIndex("nvidia.com/gpu");
  CHECK(pool.NodesOfFlavor(0).size() == 3);  // the cordoned node matches, but is no candidate
  const PodSetDemand four = Demand(pool, "a100", 4, 4, 1);
  Placement where;

  SECTION("a down node is skipped, and its capacity is not counted") {
    // Setup: gpu-0 down. Expect: 4 pods on gpu-1; then 1 more pod is rejected (gpu-0 down, gpu-2
    // cordoned), although gpu-0 and gpu-2 have 8 GPUs free.
    pool.SetUp(0, false);
    CHECK_FALSE(pool.IsUp(0));
    REQUIRE(pool.TryPlace({&four, 1}, &where));
    CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"gpu-1", 0, 4}});
    const PodSetDemand one = Demand(pool, "a100", 1, 1, 1);
    Placement more;
    CHECK_FALSE(pool.TryPlace({&one, 1}, &more));
    pool.SetUp(0, true);
    REQUIRE(pool.TryPlace({&one, 1}, &more));
    CHECK(Slots(pool, more) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"gpu-0", 0, 1}});
  }
  SECTION("release while down, then repair: the capacity is whole again") {
    // Setup: 8 pods fill gpu-0 and gpu-1; gpu-0 fails; the simulator evicts and releases. Expect:
    // gpu-0's free amount is back to 4 but nothing is placed there until it is up; after the
    // repair, a 4-pod gang fits on it exactly.
    const PodSetDemand eight = Demand(pool, "a100", 8, 8, 1);
    REQUIRE(pool.TryPlace({&eight, 1}, &where));
    pool.SetUp(0, false);
    pool.Release(where);
    CHECK(pool.Free(0, gpu) == 4);
    CHECK(pool.Free(1, gpu) == 4);
    Placement more;
    REQUIRE(pool.TryPlace({&four, 1}, &more));
    CHECK(Slots(pool, more) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"gpu-1", 0, 4}});
    CHECK_FALSE(pool.TryPlace({&four, 1}, &where));
    pool.SetUp(0, true);
    REQUIRE(pool.TryPlace({&four, 1}, &where));
    CHECK(Slots(pool, where) == std::vector<std::tuple<std::string, int32_t, int32_t>>{{"gpu-0", 0, 4}});
  }
  SECTION("repair before release: the pods still hold their capacity") {
    // Setup: 4 pods on gpu-0; it fails and comes back before the release. Expect: gpu-0 still has
    // 0 free; after the release, 4 again.
    REQUIRE(pool.TryPlace({&four, 1}, &where));
    pool.SetUp(0, false);
    pool.SetUp(0, true);
    CHECK(pool.Free(0, gpu) == 0);
    pool.Release(where);
    CHECK(pool.Free(0, gpu) == 4);
    const PodSetDemand eight = Demand(pool, "a100", 8, 8, 1);
    Placement all;
    CHECK(pool.TryPlace({&eight, 1}, &all));
  }
}

TEST_CASE("NodePool: node order is by name, whatever the input order", "[sim][placement]") {
  // Setup: the same 4 nodes in two orders. Expect: index order n-1, n-10, n-2, n-3 (by name, not
  // number) in both, and identical slots.
  auto node = [](std::string name) { return MakeNode(std::move(name), {}, {{"nvidia.com/gpu", 2}}); };
  NodePool a = MustCreate({node("n-3"), node("n-10"), node("n-1"), node("n-2")},
                          {MakeFlavor("default", {})});
  NodePool b = MustCreate({node("n-2"), node("n-1"), node("n-3"), node("n-10")},
                          {MakeFlavor("default", {})});
  for (NodePool* pool : {&a, &b}) {
    CHECK(pool->node(0).name == "n-1");
    CHECK(pool->node(1).name == "n-10");
    CHECK(pool->node(2).name == "n-2");
    CHECK(pool->node(3).name == "n-3");
  }
  const PodSetDemand d = Demand(a, "default", 5, 5, 1);
  Placement pa, pb;
  REQUIRE(a.TryPlace({&d, 1}, &pa));
  REQUIRE(b.TryPlace({&d, 1}, &pb));
  CHECK(Slots(a, pa) == std::vector<std::tuple<std::string, int32_t, int32_t>>{
                            {"n-1", 0, 2}, {"n-10", 0, 2}, {"n-2", 0, 1}});
  CHECK(Slots(a, pa) == Slots(b, pb));
}

TEST_CASE("NodePool::Create: bad nodes are errors naming the node", "[sim][placement]") {
  const std::vector<ResourceFlavorSpec> flavors = {MakeFlavor("a100", {{"gpu", "a100"}})};
  SECTION("duplicate names, with where each was read") {
    NodeSpec a = MakeNode("n-0", {{"gpu", "a100"}}, {});
    a.source = "cluster.yaml:3";
    NodeSpec b = a;
    b.source = "cluster.yaml:12";
    const auto pool = NodePool::Create({a, b}, flavors);
    REQUIRE_FALSE(pool.ok());
    CHECK(pool.status().message() ==
          "cluster.yaml:12: Node/n-0: duplicate node (first defined at cluster.yaml:3)");
  }
  SECTION("negative amounts") {
    const auto pool =
        NodePool::Create({MakeNode("n-0", {{"gpu", "a100"}}, {{"cpu", -1000}})}, flavors);
    REQUIRE_FALSE(pool.ok());
    CHECK(pool.status().message() == "Node/n-0: allocatable 'cpu' is -1000 (must not be negative)");
  }
  SECTION("a node no flavor matches") {
    NodeSpec n = MakeNode("n-7", {{"gpu", "h100"}, {"zone", "a"}}, {{"nvidia.com/gpu", 8}});
    n.source = "nodes.yaml:40";
    const auto pool = NodePool::Create({n}, flavors);
    REQUIRE_FALSE(pool.ok());
    CHECK(pool.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(pool.status().message() ==
          "nodes.yaml:40: Node/n-7: no ResourceFlavor matches its labels {gpu=h100, zone=a}");
  }
}

TEST_CASE("NodesFromInventory: HyperPod nodes carry the catalogue's figures", "[sim][placement][hyperpod]") {
  SECTION("ml.g5.8xlarge and ml.p5.48xlarge, by hand") {
    // ml.g5.8xlarge: 1 A10G, 32 vCPU, 128 GiB, 1 EFA. ml.p5.48xlarge: 8 H100, 192 vCPU, 2 TiB,
    // 32 EFA. 12 p5 nodes: two-digit indices.
    const std::vector<std::pair<std::string, int64_t>> inventory = {{"ml.g5.8xlarge", 2},
                                                                     {"ml.p5.48xlarge", 12}};
    const auto nodes = NodesFromInventory(inventory);
    REQUIRE(nodes.ok());
    REQUIRE(nodes->size() == 14);
    CHECK((*nodes)[0].name == "ml.g5.8xlarge-0");
    CHECK((*nodes)[1].name == "ml.g5.8xlarge-1");
    CHECK((*nodes)[2].name == "ml.p5.48xlarge-00");
    CHECK((*nodes)[13].name == "ml.p5.48xlarge-11");
    CHECK((*nodes)[0].labels == Labels{{"node.kubernetes.io/instance-type", "ml.g5.8xlarge"}});
    CHECK((*nodes)[0].allocatable == Amounts{{"cpu", 32'000},
                                             {"memory", int64_t{128} << 30},
                                             {"nvidia.com/gpu", 1},
                                             {"vpc.amazonaws.com/efa", 1}});
    CHECK((*nodes)[13].allocatable == Amounts{{"cpu", 192'000},
                                              {"memory", int64_t{2048} << 30},
                                              {"nvidia.com/gpu", 8},
                                              {"vpc.amazonaws.com/efa", 32}});
    // HyperPod's flavors (named after the type, labelled with it) match them; p5's name order
    // equals index order.
    NodePool pool = MustCreate(
        *nodes, {MakeFlavor("ml.g5.8xlarge", {{"node.kubernetes.io/instance-type", "ml.g5.8xlarge"}}),
                 MakeFlavor("ml.p5.48xlarge", {{"node.kubernetes.io/instance-type", "ml.p5.48xlarge"}})});
    CHECK(pool.NodesOfFlavor(pool.FlavorIndex("ml.p5.48xlarge")).size() == 12);
    CHECK(pool.node(13).name == "ml.p5.48xlarge-11");
  }
  SECTION("Trainium counts Neuron devices") {
    const std::vector<std::pair<std::string, int64_t>> inventory = {{"ml.trn1.32xlarge", 1}};
    const auto nodes = NodesFromInventory(inventory);
    REQUIRE(nodes.ok());
    CHECK((*nodes)[0].allocatable == Amounts{{"aws.amazon.com/neurondevice", 16},
                                             {"cpu", 128'000},
                                             {"memory", int64_t{512} << 30},
                                             {"vpc.amazonaws.com/efa", 8}});
  }
  SECTION("every catalogued type: one node = a Count: 1 quota, so quota = inventory is exactly full") {
    for (const hyperpod::InstanceType& t : hyperpod::InstanceTypes()) {
      const std::vector<std::pair<std::string, int64_t>> inventory = {{std::string(t.name), 1}};
      const auto nodes = NodesFromInventory(inventory);
      REQUIRE(nodes.ok());
      hyperpod::QuotaResource one;
      one.instance_type = std::string(t.name);
      one.count = 1;
      Amounts expected;
      for (const auto& [resource, amount] : hyperpod::EffectiveAmounts(one).Resources()) {
        if (amount > 0) expected.emplace_back(resource, amount);
      }
      std::sort(expected.begin(), expected.end());
      INFO(t.name);
      CHECK((*nodes)[0].allocatable == expected);
    }
  }
  SECTION("an unknown instance type") {
    const std::vector<std::pair<std::string, int64_t>> inventory = {{"ml.x9.huge", 1}};
    const auto nodes = NodesFromInventory(inventory);
    REQUIRE_FALSE(nodes.ok());
    CHECK(nodes.status().message() ==
          "HyperPodCluster: unknown instance type 'ml.x9.huge' (not in the instance catalogue)");
  }
}

}  // namespace
}  // namespace placement_test
}  // namespace qm::sim
