// HyperPod policies → Kueue objects (translate.h), checked against docs/hyperpod.md: the S0
// ClusterQueue of docs/hyperpod.md §2.3 field by field (§10 vector 1), every row of the §4.3 worked-examples table,
// the docs/hyperpod.md §4.1 defaults (§10 vector 4), the §5 lending/borrowing limits, MIG, Trainium, priority
// classes, activation state, idle resource sharing and the docs/hyperpod.md §7 warnings; then the objects are applied
// to a real Engine (docs/hyperpod.md §10 vector 3, the C1 walkthrough).
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "qm/adapter/engine.h"
#include "qm/hyperpod/policy.h"
#include "qm/hyperpod/policy_reader.h"
#include "qm/hyperpod/translate.h"
#include "hyperpod/seed_documents.h"

namespace qm::hyperpod {
namespace translate_test {
namespace {

using test::kCompleteDescribe;
using test::kS0Describe;

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kCpu = 1000;  // one vCPU in millicores

// ---- Builders ------------------------------------------------------------------------------------

Decimal Dec(int64_t unscaled, int32_t scale = 0) { return Decimal{.unscaled = unscaled, .scale = scale}; }

QuotaResource Count(std::string type, int64_t count) {
  QuotaResource r;
  r.instance_type = std::move(type);
  r.count = count;
  return r;
}

QuotaResource Accelerators(std::string type, int64_t accelerators) {
  QuotaResource r;
  r.instance_type = std::move(type);
  r.accelerators = accelerators;
  return r;
}

ResourceSharing Sharing(SharingStrategy strategy, std::optional<int64_t> borrow_limit = std::nullopt) {
  ResourceSharing s;
  s.strategy = strategy;
  s.borrow_limit = borrow_limit;
  return s;
}

ComputeQuotaPolicy Quota(std::string team, std::vector<QuotaResource> resources,
                         std::optional<ResourceSharing> sharing = std::nullopt) {
  ComputeQuotaPolicy q;
  q.name = team + "-quota";
  q.team = std::move(team);
  q.resources = std::move(resources);
  q.sharing = std::move(sharing);
  q.source = q.team + ".yaml:1";
  return q;
}

ClusterInventory Inventory(std::vector<std::pair<std::string, int64_t>> instances) {
  ClusterInventory c;
  c.name = "cluster";
  c.instances = std::move(instances);
  c.source = "cluster.yaml:1";
  return c;
}

// ---- Lookups -------------------------------------------------------------------------------------

Translation MustTranslate(const PolicySet& policies, const TranslateOptions& options = {}) {
  absl::StatusOr<Translation> t = Translate(policies, options);
  INFO(t.status().message());
  REQUIRE(t.ok());
  return *std::move(t);
}

PolicySet MustRead(std::string_view text, std::string_view file) {
  absl::StatusOr<PolicyDocument> d = ReadPolicyString(text, file);
  INFO(d.status().message());
  REQUIRE(d.ok());
  return std::move(d->policies);
}

template <class T>
const T* Find(const Translation& t, std::string_view name) {
  for (const ObjectSpec& o : t.objects) {
    if (const T* spec = std::get_if<T>(&o); spec != nullptr && spec->name == name) return spec;
  }
  return nullptr;
}

template <class T>
std::vector<std::string> NamesOf(const Translation& t) {
  std::vector<std::string> out;
  for (const ObjectSpec& o : t.objects) {
    if (const T* spec = std::get_if<T>(&o)) out.push_back(spec->name);
  }
  return out;
}

// "Kind/name" of every object, in order.
std::vector<std::string> Outline(const Translation& t) {
  std::vector<std::string> out;
  for (const ObjectSpec& o : t.objects) {
    std::visit(
        [&out](const auto& spec) {
          using T = std::decay_t<decltype(spec)>;
          std::string kind = std::is_same_v<T, NamespaceSpec>               ? "Namespace"
                             : std::is_same_v<T, ResourceFlavorSpec>        ? "ResourceFlavor"
                             : std::is_same_v<T, WorkloadPriorityClassSpec> ? "WorkloadPriorityClass"
                             : std::is_same_v<T, ClusterQueueSpec>          ? "ClusterQueue"
                             : std::is_same_v<T, LocalQueueSpec>            ? "LocalQueue"
                                                                            : "Other";
          out.push_back(kind + "/" + spec.name);
        },
        o);
  }
  return out;
}

// One expected `resources[]` entry of a ClusterQueue flavor.
struct Want {
  std::string name;
  int64_t nominal;
  std::optional<int64_t> borrowing;
  std::optional<int64_t> lending;
};

void CheckFlavor(const FlavorQuotasSpec& got, std::string_view flavor, const std::vector<Want>& want) {
  INFO("flavor " << flavor);
  CHECK(got.name == flavor);
  REQUIRE(got.resources.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("resource " << want[i].name);
    CHECK(got.resources[i].name == want[i].name);
    CHECK(got.resources[i].nominal_quota == want[i].nominal);
    CHECK(got.resources[i].borrowing_limit == want[i].borrowing);
    CHECK(got.resources[i].lending_limit == want[i].lending);
  }
}

// The five covered resources in HyperPod's order (docs/hyperpod.md §2.3).
const std::vector<std::string> kCovered = {"nvidia.com/gpu", "aws.amazon.com/neurondevice", "cpu", "memory",
                                           "vpc.amazonaws.com/efa"};

// Expected effective amounts of one entry.
struct Amounts {
  int64_t gpu = 0;
  int64_t neuron = 0;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int64_t efa = 0;
};

void CheckAmounts(const FlavorAmounts& got, const Amounts& want) {
  CHECK(got.gpu == want.gpu);
  CHECK(got.neuron == want.neuron);
  CHECK(got.cpu_milli == want.cpu_milli);
  CHECK(got.memory_bytes == want.memory_bytes);
  CHECK(got.efa == want.efa);
}

// "source | message" of each warning, in order.
std::vector<std::string> Messages(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) out.push_back(f.source + " | " + f.message);
  return out;
}


// ---- docs/hyperpod.md §10 vector 1: the S0 ClusterQueue --------------------------------------------------------------

TEST_CASE("Translate: S0 describe output gives exactly the ClusterQueue of section 2.3", "[hyperpod][translate]") {
  // Setup: the docs/hyperpod.md §3 input, read from the S0 describe output. Expect: §2.3 field by field.
  const Translation t = MustTranslate(MustRead(kS0Describe, "s0.json"));
  CHECK(Outline(t) == std::vector<std::string>{"Namespace/hyperpod-ns-onlygputeam", "ResourceFlavor/ml.g6.12xlarge",
                                               "ClusterQueue/hyperpod-ns-onlygputeam-clusterqueue",
                                               "LocalQueue/hyperpod-ns-onlygputeam-localqueue"});
  CHECK(t.sources == std::vector<std::string>(4, "s0.json:1"));
  CHECK(t.priority_classes.empty());
  CHECK(t.fair_sharing.enabled);  // no ClusterSchedulerConfig: FairShare defaults to Enabled

  const ClusterQueueSpec* cq = Find<ClusterQueueSpec>(t, "hyperpod-ns-onlygputeam-clusterqueue");
  REQUIRE(cq != nullptr);
  CHECK(cq->labels == Labels{{"sagemaker.amazonaws.com/quota-allocation-id", "onlygputeam"},
                             {"sagemaker.amazonaws.com/sagemaker-managed-queue", "true"}});
  CHECK(cq->cohort == "shared-pool");
  CHECK(cq->fair_sharing_weight_milli == 10000);  // fairSharing.weight: 10
  CHECK(cq->flavor_fungibility.when_can_borrow == FungibilityPolicy::kTryNextFlavor);
  CHECK(cq->flavor_fungibility.when_can_preempt == FungibilityPolicy::kTryNextFlavor);
  CHECK_FALSE(cq->flavor_fungibility.preference.has_value());
  REQUIRE(cq->namespace_selector.has_value());
  CHECK(cq->namespace_selector->match_labels == Labels{{"kubernetes.io/metadata.name", "hyperpod-ns-onlygputeam"}});
  CHECK(cq->namespace_selector->match_expressions.empty());
  CHECK(cq->preemption.borrow_within_cohort.policy == BorrowWithinCohortPolicy::kLowerPriority);
  CHECK_FALSE(cq->preemption.borrow_within_cohort.max_priority_threshold.has_value());
  CHECK(cq->preemption.reclaim_within_cohort == ReclaimWithinCohortPolicy::kAny);
  CHECK(cq->preemption.within_cluster_queue == WithinClusterQueuePolicy::kLowerPriority);
  CHECK(cq->queueing_strategy == QueueingStrategy::kBestEffortFIFO);
  CHECK(cq->stop_policy == StopPolicy::kNone);
  REQUIRE(cq->resource_groups.size() == 1);
  CHECK(cq->resource_groups[0].covered_resources == kCovered);
  REQUIRE(cq->resource_groups[0].flavors.size() == 1);
  CheckFlavor(cq->resource_groups[0].flavors[0], "ml.g6.12xlarge",
              {{"nvidia.com/gpu", 2, 1, std::nullopt},
               {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
               {"cpu", 48 * kCpu, 24 * kCpu, std::nullopt},
               {"memory", 192 * kGi, 96 * kGi, std::nullopt},
               {"vpc.amazonaws.com/efa", 1, 0, std::nullopt}});

  // docs/hyperpod.md §2.1 Namespace: the two queue labels, activate-quota, and the name label the selector matches.
  const NamespaceSpec* ns = Find<NamespaceSpec>(t, "hyperpod-ns-onlygputeam");
  REQUIRE(ns != nullptr);
  CHECK(ns->labels == Labels{{"kubernetes.io/metadata.name", "hyperpod-ns-onlygputeam"},
                             {"sagemaker.amazonaws.com/activate-quota", "Enabled"},
                             {"sagemaker.amazonaws.com/quota-allocation-id", "onlygputeam"},
                             {"sagemaker.amazonaws.com/sagemaker-managed-queue", "true"}});

  // docs/hyperpod.md §2.2 ResourceFlavor: named by the instance type, selecting nodes of that type.
  const ResourceFlavorSpec* rf = Find<ResourceFlavorSpec>(t, "ml.g6.12xlarge");
  REQUIRE(rf != nullptr);
  CHECK(rf->node_labels == Labels{{"node.kubernetes.io/instance-type", "ml.g6.12xlarge"}});
  CHECK(rf->node_taints.empty());
  CHECK(rf->tolerations.empty());

  // docs/hyperpod.md §2.4 LocalQueue.
  const LocalQueueSpec* lq = Find<LocalQueueSpec>(t, "hyperpod-ns-onlygputeam-localqueue");
  REQUIRE(lq != nullptr);
  CHECK(lq->namespace_ == "hyperpod-ns-onlygputeam");
  CHECK(lq->cluster_queue == "hyperpod-ns-onlygputeam-clusterqueue");
  CHECK(lq->stop_policy == StopPolicy::kNone);
  CHECK(lq->labels == Labels{{"sagemaker.amazonaws.com/quota-allocation-id", "onlygputeam"},
                             {"sagemaker.amazonaws.com/sagemaker-managed-queue", "true"}});
}

TEST_CASE("Translate: object names of section 2", "[hyperpod][translate]") {
  CHECK(TeamNamespace("team-a") == "hyperpod-ns-team-a");
  CHECK(TeamClusterQueue("team-a") == "hyperpod-ns-team-a-clusterqueue");
  CHECK(TeamLocalQueue("team-a") == "hyperpod-ns-team-a-localqueue");
  CHECK(PriorityClassName("training") == "training-priority");
  CHECK(IdleClusterQueue(1) == "hyperpod-ns-idle-resource-sharing-cq-1");
  CHECK(IdleClusterQueue(12) == "hyperpod-ns-idle-resource-sharing-cq-12");
}

// ---- docs/hyperpod.md §4.1 defaults and §4.3 worked examples ---------------------------------------------------------

TEST_CASE("EffectiveAmounts: the two documented default examples (section 10 vector 4)", "[hyperpod][translate]") {
  SECTION("2 of 8 GPUs of one ml.p5.48xlarge") {
    // Expect: 48 vCPU, 512 GiB (S0); EFA ⌈0.25⌉·32 = 32 by the whole-instance rule.
    CheckAmounts(EffectiveAmounts(Accelerators("ml.p5.48xlarge", 2)),
                 {.gpu = 2, .neuron = 0, .cpu_milli = 48 * kCpu, .memory_bytes = 512 * kGi, .efa = 32});
  }
  SECTION("2 GPUs over two ml.g5.2xlarge") {
    // Expect: 16 vCPU, 64 GiB (S0); g5.2xlarge has no EFA.
    CheckAmounts(EffectiveAmounts(Accelerators("ml.g5.2xlarge", 2)),
                 {.gpu = 2, .neuron = 0, .cpu_milli = 16 * kCpu, .memory_bytes = 64 * kGi, .efa = 0});
  }
  SECTION("the proportional EFA option") {
    // Expect: ⌈0.25·32⌉ = 8 instead of 32.
    TranslateOptions proportional;
    proportional.efa = EfaRule::kProportional;
    CHECK(EffectiveAmounts(Accelerators("ml.p5.48xlarge", 2), proportional).efa == 8);
    // S0 still gives 1 (⌈1·1⌉).
    QuotaResource s0 = Accelerators("ml.g6.12xlarge", 2);
    s0.vcpu = Dec(480, 1);
    CHECK(EffectiveAmounts(s0, proportional).efa == 1);
  }
}

TEST_CASE("EffectiveAmounts: each way of filling the gaps (section 4.2 rule 2)", "[hyperpod][translate]") {
  // ml.g6.12xlarge: A=4, V=48, M=192 GiB, E=1.
  SECTION("Accelerators and VCpu: memory follows the vCPU (S0)") {
    QuotaResource r = Accelerators("ml.g6.12xlarge", 2);
    r.vcpu = Dec(480, 1);  // 48.0
    CheckAmounts(EffectiveAmounts(r), {.gpu = 2, .cpu_milli = 48 * kCpu, .memory_bytes = 192 * kGi, .efa = 1});
  }
  SECTION("Accelerators and MemoryInGiB: vCPU follows the memory") {
    QuotaResource r = Accelerators("ml.g6.12xlarge", 1);
    r.memory_gib = Dec(96);
    CheckAmounts(EffectiveAmounts(r), {.gpu = 1, .cpu_milli = 24 * kCpu, .memory_bytes = 96 * kGi, .efa = 1});
  }
  SECTION("VCpu only: memory by the vCPU share, no accelerators") {
    QuotaResource r;
    r.instance_type = "ml.g6.12xlarge";
    r.vcpu = Dec(12);
    CheckAmounts(EffectiveAmounts(r), {.gpu = 0, .cpu_milli = 12 * kCpu, .memory_bytes = 48 * kGi, .efa = 1});
  }
  SECTION("MemoryInGiB only: vCPU by the memory share") {
    QuotaResource r;
    r.instance_type = "ml.g6.12xlarge";
    r.memory_gib = Dec(100);
    // 100/192 × 48 = 25 vCPU exactly.
    CheckAmounts(EffectiveAmounts(r), {.gpu = 0, .cpu_milli = 25 * kCpu, .memory_bytes = 100 * kGi, .efa = 1});
  }
  SECTION("all given: used as given") {
    QuotaResource r = Accelerators("ml.g6.12xlarge", 4);
    r.vcpu = Dec(10);
    r.memory_gib = Dec(20);
    CheckAmounts(EffectiveAmounts(r), {.gpu = 4, .cpu_milli = 10 * kCpu, .memory_bytes = 20 * kGi, .efa = 1});
  }
  SECTION("fractional vCPU and memory: millicores and MiB") {
    QuotaResource r;
    r.instance_type = "ml.c5.2xlarge";  // V=8, M=16
    r.vcpu = Dec(25, 1);                 // 2.5 → memory 5 GiB
    CheckAmounts(EffectiveAmounts(r), {.cpu_milli = 2500, .memory_bytes = 5 * kGi});
    QuotaResource m;
    m.instance_type = "ml.c5.2xlarge";
    m.memory_gib = Dec(15, 1);  // 1.5 GiB → 0.75 vCPU
    CheckAmounts(EffectiveAmounts(m), {.cpu_milli = 750, .memory_bytes = 1536 * kMi});
  }
  SECTION("memory below a MiB is rounded down to MiB, cpu to millicores") {
    QuotaResource r;
    r.instance_type = "ml.c5.2xlarge";
    r.vcpu = Dec(1, 3);  // 0.001 vCPU → 2 MiB memory (0.001 × 2048 MiB = 2.048 MiB)
    CheckAmounts(EffectiveAmounts(r), {.cpu_milli = 1, .memory_bytes = 2 * kMi});
    QuotaResource tiny;
    tiny.instance_type = "ml.c5.2xlarge";
    tiny.vcpu = Dec(1, 6);  // 0.000001 vCPU: below a millicore
    CheckAmounts(EffectiveAmounts(tiny), {.cpu_milli = 0, .memory_bytes = 0});
  }
  SECTION("Count on a fractional-memory type: whole GiB is not possible, so MiB") {
    // ml.c5n.large: 2 vCPU, 5.25 GiB.
    CheckAmounts(EffectiveAmounts(Count("ml.c5n.large", 1)), {.cpu_milli = 2 * kCpu, .memory_bytes = 5376 * kMi});
    CheckAmounts(EffectiveAmounts(Count("ml.c5n.large", 4)), {.cpu_milli = 8 * kCpu, .memory_bytes = 21 * kGi});
  }
  SECTION("Count 0 and Accelerators 0") {
    CheckAmounts(EffectiveAmounts(Count("ml.g5.8xlarge", 0)), {});
    CheckAmounts(EffectiveAmounts(Accelerators("ml.g5.8xlarge", 0)), {});
  }
}

TEST_CASE("Translate: every row of the section 4.3 worked-examples table", "[hyperpod][translate]") {
  SECTION("S0 blog: 2 GPUs of ml.p5.48xlarge") {
    CheckAmounts(EffectiveAmounts(Accelerators("ml.p5.48xlarge", 2)),
                 {.gpu = 2, .cpu_milli = 48 * kCpu, .memory_bytes = 512 * kGi, .efa = 32});
  }
  SECTION("S0 blog: 2 GPUs, ml.g5.2xlarge") {
    CheckAmounts(EffectiveAmounts(Accelerators("ml.g5.2xlarge", 2)),
                 {.gpu = 2, .cpu_milli = 16 * kCpu, .memory_bytes = 64 * kGi, .efa = 0});
  }
  SECTION("S0 describe: g6.12xlarge, a=2, v=48") {
    QuotaResource r = Accelerators("ml.g6.12xlarge", 2);
    r.vcpu = Dec(48);
    CheckAmounts(EffectiveAmounts(r), {.gpu = 2, .cpu_milli = 48 * kCpu, .memory_bytes = 192 * kGi, .efa = 1});
  }
  SECTION("S0 CLI example 1: g6.12xlarge a=2, BorrowLimit 10") {
    // Expect: gpu 2/0, cpu 24/2400m, memory 96Gi/9830Mi, efa 1/0.
    PolicySet p;
    p.quotas.push_back(Quota("onlygputeam2", {Accelerators("ml.g6.12xlarge", 2)},
                             Sharing(SharingStrategy::kLendAndBorrow, 10)));
    const Translation t = MustTranslate(p);
    const ClusterQueueSpec* cq = Find<ClusterQueueSpec>(t, "hyperpod-ns-onlygputeam2-clusterqueue");
    REQUIRE(cq != nullptr);
    REQUIRE(cq->resource_groups.size() == 1);
    REQUIRE(cq->resource_groups[0].flavors.size() == 1);
    CheckFlavor(cq->resource_groups[0].flavors[0], "ml.g6.12xlarge",
                {{"nvidia.com/gpu", 2, 0, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 24 * kCpu, 2400, std::nullopt},
                 {"memory", 96 * kGi, 9830 * kMi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 1, 0, std::nullopt}});
  }
  SECTION("S0 CLI example 2 (mixed): g6 a=2; p5 Count=3; c5.2xlarge VCpu=2; BorrowLimit 10") {
    QuotaResource c5;
    c5.instance_type = "ml.c5.2xlarge";
    c5.vcpu = Dec(2);
    PolicySet p;
    p.quotas.push_back(Quota("mixed",
                             {Accelerators("ml.g6.12xlarge", 2), Count("ml.p5.48xlarge", 3), c5},
                             Sharing(SharingStrategy::kLendAndBorrow, 10)));
    const Translation t = MustTranslate(p);
    const ClusterQueueSpec* cq = Find<ClusterQueueSpec>(t, "hyperpod-ns-mixed-clusterqueue");
    REQUIRE(cq != nullptr);
    REQUIRE(cq->resource_groups.size() == 1);
    const ResourceGroupSpec& g = cq->resource_groups[0];
    CHECK(g.covered_resources == kCovered);
    REQUIRE(g.flavors.size() == 3);  // in request order
    CheckFlavor(g.flavors[0], "ml.g6.12xlarge",
                {{"nvidia.com/gpu", 2, 0, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 24 * kCpu, 2400, std::nullopt},
                 {"memory", 96 * kGi, 9830 * kMi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 1, 0, std::nullopt}});
    // p5: gpu 24/2, cpu 576/57600m, memory 6144Gi/629145Mi (614.4 GiB), efa 96/9.
    CheckFlavor(g.flavors[1], "ml.p5.48xlarge",
                {{"nvidia.com/gpu", 24, 2, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 576 * kCpu, 57600, std::nullopt},
                 {"memory", 6144 * kGi, 629145 * kMi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 96, 9, std::nullopt}});
    // c5: cpu 2/200m, memory 4Gi/409Mi (0.4 GiB), gpu 0, efa 0.
    CheckFlavor(g.flavors[2], "ml.c5.2xlarge",
                {{"nvidia.com/gpu", 0, 0, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 2 * kCpu, 200, std::nullopt},
                 {"memory", 4 * kGi, 409 * kMi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 0, 0, std::nullopt}});
    // One ResourceFlavor per instance type, sorted by name.
    CHECK(NamesOf<ResourceFlavorSpec>(t) ==
          std::vector<std::string>{"ml.c5.2xlarge", "ml.g6.12xlarge", "ml.p5.48xlarge"});
  }
  SECTION("S1/E1: ml.g5.8xlarge Count=2, BorrowLimit 50") {
    // Expect: gpu 2/1, cpu 64/32, memory 256Gi/128Gi, efa 2/1.
    const FlavorAmounts nominal = EffectiveAmounts(Count("ml.g5.8xlarge", 2));
    CheckAmounts(nominal, {.gpu = 2, .cpu_milli = 64 * kCpu, .memory_bytes = 256 * kGi, .efa = 2});
    CheckAmounts(ScaleAmounts(nominal, 50), {.gpu = 1, .cpu_milli = 32 * kCpu, .memory_bytes = 128 * kGi, .efa = 1});
  }
  SECTION("S4 option 1: g5.8xlarge Count=1 / Count=2, BorrowLimit 100") {
    // Expect: team A gpu 1/1; team B gpu 2/2.
    PolicySet p;
    p.quotas.push_back(Quota("team-a", {Count("ml.g5.8xlarge", 1)}, Sharing(SharingStrategy::kLendAndBorrow, 100)));
    p.quotas.push_back(Quota("team-b", {Count("ml.g5.8xlarge", 2)}, Sharing(SharingStrategy::kLendAndBorrow, 100)));
    const Translation t = MustTranslate(p);
    const ClusterQueueSpec* a = Find<ClusterQueueSpec>(t, "hyperpod-ns-team-a-clusterqueue");
    const ClusterQueueSpec* b = Find<ClusterQueueSpec>(t, "hyperpod-ns-team-b-clusterqueue");
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    CheckFlavor(a->resource_groups.at(0).flavors.at(0), "ml.g5.8xlarge",
                {{"nvidia.com/gpu", 1, 1, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 32 * kCpu, 32 * kCpu, std::nullopt},
                 {"memory", 128 * kGi, 128 * kGi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 1, 1, std::nullopt}});
    CheckFlavor(b->resource_groups.at(0).flavors.at(0), "ml.g5.8xlarge",
                {{"nvidia.com/gpu", 2, 2, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 64 * kCpu, 64 * kCpu, std::nullopt},
                 {"memory", 256 * kGi, 256 * kGi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 2, 2, std::nullopt}});
  }
  SECTION("S4 option 2: g5.12xlarge a=2 / Count=2, BorrowLimit 100") {
    // Expect: team A gpu 2/2, cpu 24/24, memory 96Gi/96Gi, efa 1/1; team B gpu 8/8, cpu 96/96,
    // memory 384Gi/384Gi, efa 2/2.
    PolicySet p;
    p.quotas.push_back(
        Quota("team-a", {Accelerators("ml.g5.12xlarge", 2)}, Sharing(SharingStrategy::kLendAndBorrow, 100)));
    p.quotas.push_back(Quota("team-b", {Count("ml.g5.12xlarge", 2)}, Sharing(SharingStrategy::kLendAndBorrow, 100)));
    const Translation t = MustTranslate(p);
    CheckFlavor(Find<ClusterQueueSpec>(t, "hyperpod-ns-team-a-clusterqueue")->resource_groups.at(0).flavors.at(0),
                "ml.g5.12xlarge",
                {{"nvidia.com/gpu", 2, 2, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 24 * kCpu, 24 * kCpu, std::nullopt},
                 {"memory", 96 * kGi, 96 * kGi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 1, 1, std::nullopt}});
    CheckFlavor(Find<ClusterQueueSpec>(t, "hyperpod-ns-team-b-clusterqueue")->resource_groups.at(0).flavors.at(0),
                "ml.g5.12xlarge",
                {{"nvidia.com/gpu", 8, 8, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 96 * kCpu, 96 * kCpu, std::nullopt},
                 {"memory", 384 * kGi, 384 * kGi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 2, 2, std::nullopt}});
  }
  SECTION("C1 walkthrough: g5.12xlarge Count=1, BorrowLimit 100") {
    // Expect: gpu 4/4, cpu 48/48, memory 192Gi/192Gi.
    const FlavorAmounts nominal = EffectiveAmounts(Count("ml.g5.12xlarge", 1));
    CheckAmounts(nominal, {.gpu = 4, .cpu_milli = 48 * kCpu, .memory_bytes = 192 * kGi, .efa = 1});
    CheckAmounts(ScaleAmounts(nominal, 100), {.gpu = 4, .cpu_milli = 48 * kCpu, .memory_bytes = 192 * kGi, .efa = 1});
  }
  SECTION("R1: 4 x m5.xlarge, BorrowLimit defaulted to 50") {
    // Expect: cpu 16/8, memory 64Gi/32Gi. No ResourceSharingConfig at all: LendAndBorrow, 50 %.
    PolicySet p;
    p.quotas.push_back(Quota("r1", {Count("ml.m5.xlarge", 4)}));
    const Translation t = MustTranslate(p);
    CheckFlavor(Find<ClusterQueueSpec>(t, "hyperpod-ns-r1-clusterqueue")->resource_groups.at(0).flavors.at(0),
                "ml.m5.xlarge",
                {{"nvidia.com/gpu", 0, 0, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 16 * kCpu, 8 * kCpu, std::nullopt},
                 {"memory", 64 * kGi, 32 * kGi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 0, 0, std::nullopt}});
    // The same with an explicit ResourceSharingConfig that omits BorrowLimit.
    PolicySet q;
    q.quotas.push_back(Quota("r1", {Count("ml.m5.xlarge", 4)}, Sharing(SharingStrategy::kLendAndBorrow)));
    const Translation u = MustTranslate(q);
    CHECK(Find<ClusterQueueSpec>(u, "hyperpod-ns-r1-clusterqueue")
              ->resource_groups.at(0)
              .flavors.at(0)
              .resources.at(2)
              .borrowing_limit == 8 * kCpu);
  }
}

TEST_CASE("ScaleAmounts: floor_q per resource (section 5)", "[hyperpod][translate]") {
  FlavorAmounts a;
  a.instance_type = "ml.p5.48xlarge";
  a.gpu = 3;
  a.neuron = 5;
  a.cpu_milli = 1001;
  a.memory_bytes = 3 * kGi;
  a.efa = 1;
  a.mig = {{"nvidia.com/mig-1g.10gb", 3}};
  SECTION("50 %: counts down, cpu to millicores, memory exact when whole GiB") {
    const FlavorAmounts s = ScaleAmounts(a, 50);
    CHECK(s.instance_type == "ml.p5.48xlarge");
    CheckAmounts(s, {.gpu = 1, .neuron = 2, .cpu_milli = 500, .memory_bytes = 1536 * kMi, .efa = 0});
    CHECK(s.mig == std::vector<std::pair<std::string, int64_t>>{{"nvidia.com/mig-1g.10gb", 1}});
  }
  SECTION("0 % and 10000 %") {
    CheckAmounts(ScaleAmounts(a, 0), {});
    CheckAmounts(ScaleAmounts(a, 10000),
                 {.gpu = 300, .neuron = 500, .cpu_milli = 100100, .memory_bytes = 300 * kGi, .efa = 100});
  }
  SECTION("memory that is not whole GiB nor whole MiB after scaling is rounded down to MiB") {
    FlavorAmounts m;
    m.memory_bytes = 1 * kGi;
    CHECK(ScaleAmounts(m, 33).memory_bytes == 337 * kMi);  // 337.92 MiB
  }
}

// ---- docs/hyperpod.md §5 lending and borrowing --------------------------------------------------------------------

TEST_CASE("Translate: Lend and DontLend limits (section 5)", "[hyperpod][translate]") {
  PolicySet p;
  p.quotas.push_back(Quota("lender", {Count("ml.g5.8xlarge", 2)}, Sharing(SharingStrategy::kLend, 80)));
  p.quotas.push_back(Quota("keeper", {Count("ml.g5.8xlarge", 2)}, Sharing(SharingStrategy::kDontLend)));
  p.quotas.push_back(Quota("sharer", {Count("ml.g5.8xlarge", 2)}, Sharing(SharingStrategy::kLendAndBorrow, 200)));
  const Translation t = MustTranslate(p);
  // Teams sorted by name: keeper, lender, sharer.
  CHECK(NamesOf<ClusterQueueSpec>(t) == std::vector<std::string>{"hyperpod-ns-keeper-clusterqueue",
                                                                  "hyperpod-ns-lender-clusterqueue",
                                                                  "hyperpod-ns-sharer-clusterqueue"});
  SECTION("Lend: borrowingLimit 0, lendingLimit unset, BorrowLimit ignored") {
    CheckFlavor(Find<ClusterQueueSpec>(t, "hyperpod-ns-lender-clusterqueue")->resource_groups.at(0).flavors.at(0),
                "ml.g5.8xlarge",
                {{"nvidia.com/gpu", 2, 0, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 64 * kCpu, 0, std::nullopt},
                 {"memory", 256 * kGi, 0, std::nullopt},
                 {"vpc.amazonaws.com/efa", 2, 0, std::nullopt}});
  }
  SECTION("DontLend: borrowingLimit 0 and lendingLimit 0 on every resource; still in the cohort") {
    const ClusterQueueSpec* cq = Find<ClusterQueueSpec>(t, "hyperpod-ns-keeper-clusterqueue");
    CHECK(cq->cohort == "shared-pool");
    CheckFlavor(cq->resource_groups.at(0).flavors.at(0), "ml.g5.8xlarge",
                {{"nvidia.com/gpu", 2, 0, 0},
                 {"aws.amazon.com/neurondevice", 0, 0, 0},
                 {"cpu", 64 * kCpu, 0, 0},
                 {"memory", 256 * kGi, 0, 0},
                 {"vpc.amazonaws.com/efa", 2, 0, 0}});
  }
  SECTION("LendAndBorrow 200 %: twice the nominal") {
    CheckFlavor(Find<ClusterQueueSpec>(t, "hyperpod-ns-sharer-clusterqueue")->resource_groups.at(0).flavors.at(0),
                "ml.g5.8xlarge",
                {{"nvidia.com/gpu", 2, 4, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 64 * kCpu, 128 * kCpu, std::nullopt},
                 {"memory", 256 * kGi, 512 * kGi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 2, 4, std::nullopt}});
  }
}

TEST_CASE("Translate: AbsoluteBorrowLimits replace the percentage for their flavor only", "[hyperpod][translate]") {
  // Setup: g5.8xlarge Count=2 and g5.12xlarge Count=1, BorrowLimit 50, and an absolute limit of 3
  // accelerators on g5.8xlarge. Expect: g5.8xlarge borrows the docs/hyperpod.md §4-derived 3 GPU / 96 vCPU /
  // 384 GiB / 3 EFA; g5.12xlarge keeps 50 %.
  ResourceSharing sharing = Sharing(SharingStrategy::kLendAndBorrow, 50);
  sharing.absolute_borrow_limits.push_back(Accelerators("ml.g5.8xlarge", 3));
  PolicySet p;
  p.quotas.push_back(Quota("team-a", {Count("ml.g5.8xlarge", 2), Count("ml.g5.12xlarge", 1)}, sharing));
  const Translation t = MustTranslate(p);
  const ClusterQueueSpec* cq = Find<ClusterQueueSpec>(t, "hyperpod-ns-team-a-clusterqueue");
  REQUIRE(cq != nullptr);
  const ResourceGroupSpec& g = cq->resource_groups.at(0);
  REQUIRE(g.flavors.size() == 2);
  CheckFlavor(g.flavors[0], "ml.g5.8xlarge",
              {{"nvidia.com/gpu", 2, 3, std::nullopt},
               {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
               {"cpu", 64 * kCpu, 96 * kCpu, std::nullopt},
               {"memory", 256 * kGi, 384 * kGi, std::nullopt},
               {"vpc.amazonaws.com/efa", 2, 3, std::nullopt}});
  CheckFlavor(g.flavors[1], "ml.g5.12xlarge",
              {{"nvidia.com/gpu", 4, 2, std::nullopt},
               {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
               {"cpu", 48 * kCpu, 24 * kCpu, std::nullopt},
               {"memory", 192 * kGi, 96 * kGi, std::nullopt},
               {"vpc.amazonaws.com/efa", 1, 0, std::nullopt}});
}

// ---- Neuron and MIG --------------------------------------------------------------------------------

TEST_CASE("Translate: Trainium accelerators are aws.amazon.com/neurondevice (section 4.2 rule 4)", "[hyperpod][translate]") {
  // ml.trn1.32xlarge: 16 Neuron devices, 128 vCPU, 512 GiB, 8 EFA.
  CheckAmounts(EffectiveAmounts(Accelerators("ml.trn1.32xlarge", 4)),
               {.gpu = 0, .neuron = 4, .cpu_milli = 32 * kCpu, .memory_bytes = 128 * kGi, .efa = 8});
  CheckAmounts(EffectiveAmounts(Count("ml.trn1.32xlarge", 2)),
               {.gpu = 0, .neuron = 32, .cpu_milli = 256 * kCpu, .memory_bytes = 1024 * kGi, .efa = 16});
  PolicySet p;
  p.quotas.push_back(Quota("neuron", {Count("ml.trn1.32xlarge", 1)}));
  const Translation t = MustTranslate(p);
  CheckFlavor(Find<ClusterQueueSpec>(t, "hyperpod-ns-neuron-clusterqueue")->resource_groups.at(0).flavors.at(0),
              "ml.trn1.32xlarge",
              {{"nvidia.com/gpu", 0, 0, std::nullopt},
               {"aws.amazon.com/neurondevice", 16, 8, std::nullopt},
               {"cpu", 128 * kCpu, 64 * kCpu, std::nullopt},
               {"memory", 512 * kGi, 256 * kGi, std::nullopt},
               {"vpc.amazonaws.com/efa", 8, 4, std::nullopt}});
}

TEST_CASE("Translate: MIG partitions (section 4.2 rule 5)", "[hyperpod][translate]") {
  // Setup: 2 × mig-3g.40gb on ml.p5.48xlarge (A=8, V=192, M=2048, E=32).
  // Expect: r = 2·3/(8·7) = 3/28; vCPU ⌊r·192⌋ = 20; memory ⌊r·2048⌋ = 219 GiB; no whole GPUs;
  // nvidia.com/mig-3g.40gb = 2; EFA ⌈max(r, 20/192, 219/2048)⌉·32 = 32.
  QuotaResource r;
  r.instance_type = "ml.p5.48xlarge";
  r.partition = AcceleratorPartition{.type = "mig-3g.40gb", .count = 2};
  const FlavorAmounts a = EffectiveAmounts(r);
  CheckAmounts(a, {.gpu = 0, .neuron = 0, .cpu_milli = 20 * kCpu, .memory_bytes = 219 * kGi, .efa = 32});
  CHECK(a.mig == std::vector<std::pair<std::string, int64_t>>{{"nvidia.com/mig-3g.40gb", 2}});
  CHECK(a.Resources() == std::vector<std::pair<std::string, int64_t>>{{"nvidia.com/gpu", 0},
                                                                      {"aws.amazon.com/neurondevice", 0},
                                                                      {"cpu", 20 * kCpu},
                                                                      {"memory", 219 * kGi},
                                                                      {"vpc.amazonaws.com/efa", 32},
                                                                      {"nvidia.com/mig-3g.40gb", 2}});

  SECTION("the MIG resource is covered after the five, and zero for flavors without it") {
    PolicySet p;
    p.quotas.push_back(Quota("mig", {Count("ml.g5.8xlarge", 1), r}));
    const Translation t = MustTranslate(p);
    const ClusterQueueSpec* cq = Find<ClusterQueueSpec>(t, "hyperpod-ns-mig-clusterqueue");
    REQUIRE(cq != nullptr);
    const ResourceGroupSpec& g = cq->resource_groups.at(0);
    CHECK(g.covered_resources == std::vector<std::string>{"nvidia.com/gpu", "aws.amazon.com/neurondevice", "cpu",
                                                          "memory", "vpc.amazonaws.com/efa", "nvidia.com/mig-3g.40gb"});
    REQUIRE(g.flavors.size() == 2);
    CheckFlavor(g.flavors[0], "ml.g5.8xlarge",
                {{"nvidia.com/gpu", 1, 0, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 32 * kCpu, 16 * kCpu, std::nullopt},
                 {"memory", 128 * kGi, 64 * kGi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 1, 0, std::nullopt},
                 {"nvidia.com/mig-3g.40gb", 0, 0, std::nullopt}});
    // Borrowing 50 %: mig 1, cpu 10, memory 109.5 GiB = 112128 MiB, efa 16.
    CheckFlavor(g.flavors[1], "ml.p5.48xlarge",
                {{"nvidia.com/gpu", 0, 0, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 20 * kCpu, 10 * kCpu, std::nullopt},
                 {"memory", 219 * kGi, 112128 * kMi, std::nullopt},
                 {"vpc.amazonaws.com/efa", 32, 16, std::nullopt},
                 {"nvidia.com/mig-3g.40gb", 2, 1, std::nullopt}});
  }
}


TEST_CASE("Translate: the complete DescribeComputeQuota example (Count, granular, MIG, absolute limit)", "[hyperpod][translate]") {
  const Translation t = MustTranslate(MustRead(kCompleteDescribe, "team-a.json"));
  const ClusterQueueSpec* cq = Find<ClusterQueueSpec>(t, "hyperpod-ns-team-a-clusterqueue");
  REQUIRE(cq != nullptr);
  CHECK(cq->fair_sharing_weight_milli == 50000);
  const ResourceGroupSpec& g = cq->resource_groups.at(0);
  CHECK(g.covered_resources == std::vector<std::string>{"nvidia.com/gpu", "aws.amazon.com/neurondevice", "cpu",
                                                        "memory", "vpc.amazonaws.com/efa", "nvidia.com/mig-1g.18gb"});
  REQUIRE(g.flavors.size() == 3);
  // p5 Count 2; borrowing from the absolute limit of 4 accelerators (96 vCPU, 1 TiB, ⌈0.5⌉·32 EFA).
  CheckFlavor(g.flavors[0], "ml.p5.48xlarge",
              {{"nvidia.com/gpu", 16, 4, std::nullopt},
               {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
               {"cpu", 384 * kCpu, 96 * kCpu, std::nullopt},
               {"memory", 4096 * kGi, 1024 * kGi, std::nullopt},
               {"vpc.amazonaws.com/efa", 64, 32, std::nullopt},
               {"nvidia.com/mig-1g.18gb", 0, 0, std::nullopt}});
  // g6 all given; 100 %.
  CheckFlavor(g.flavors[1], "ml.g6.12xlarge",
              {{"nvidia.com/gpu", 2, 2, std::nullopt},
               {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
               {"cpu", 24 * kCpu, 24 * kCpu, std::nullopt},
               {"memory", 96 * kGi, 96 * kGi, std::nullopt},
               {"vpc.amazonaws.com/efa", 1, 1, std::nullopt},
               {"nvidia.com/mig-1g.18gb", 0, 0, std::nullopt}});
  // p5en (A=8, V=192, M=2048, E=16): r = 4·1/56; ⌊192/14⌋ = 13 vCPU, ⌊2048/14⌋ = 146 GiB, EFA 16.
  CheckFlavor(g.flavors[2], "ml.p5en.48xlarge",
              {{"nvidia.com/gpu", 0, 0, std::nullopt},
               {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
               {"cpu", 13 * kCpu, 13 * kCpu, std::nullopt},
               {"memory", 146 * kGi, 146 * kGi, std::nullopt},
               {"vpc.amazonaws.com/efa", 16, 16, std::nullopt},
               {"nvidia.com/mig-1g.18gb", 4, 4, std::nullopt}});
}

// ---- Cluster policy, activation, idle sharing ------------------------------------------------------

TEST_CASE("Translate: priority classes and FairShare (sections 2.5, 2.8)", "[hyperpod][translate]") {
  SchedulerConfigPolicy sc;
  sc.name = "policy";
  sc.source = "policy.yaml:1";
  sc.priority_classes = {{"inference", 90}, {"experimentation", 80}, {"fine-tuning", 50}, {"training", 70}};
  sc.fair_share = false;
  PolicySet p;
  p.scheduler = sc;
  p.quotas.push_back(Quota("team-a", {Count("ml.g5.8xlarge", 2)}));
  const Translation t = MustTranslate(p);
  CHECK_FALSE(t.fair_sharing.enabled);
  CHECK(t.priority_classes == std::vector<std::string>{"inference-priority", "experimentation-priority",
                                                        "fine-tuning-priority", "training-priority"});
  // Classes in policy order, after the flavors and before the queues; value = Weight.
  CHECK(Outline(t) == std::vector<std::string>{"Namespace/hyperpod-ns-team-a", "ResourceFlavor/ml.g5.8xlarge",
                                               "WorkloadPriorityClass/inference-priority",
                                               "WorkloadPriorityClass/experimentation-priority",
                                               "WorkloadPriorityClass/fine-tuning-priority",
                                               "WorkloadPriorityClass/training-priority",
                                               "ClusterQueue/hyperpod-ns-team-a-clusterqueue",
                                               "LocalQueue/hyperpod-ns-team-a-localqueue"});
  CHECK(Find<WorkloadPriorityClassSpec>(t, "inference-priority")->value == 90);
  CHECK(Find<WorkloadPriorityClassSpec>(t, "experimentation-priority")->value == 80);
  CHECK(Find<WorkloadPriorityClassSpec>(t, "fine-tuning-priority")->value == 50);
  CHECK(Find<WorkloadPriorityClassSpec>(t, "training-priority")->value == 70);
  CHECK(t.sources[2] == "policy.yaml:1");

  SECTION("FairShare Enabled turns Kueue fair sharing on with the default strategies") {
    p.scheduler->fair_share = true;
    const Translation on = MustTranslate(p);
    CHECK(on.fair_sharing.enabled);
    CHECK(on.fair_sharing.preemption_strategies ==
          std::vector<FairSharingStrategy>{FairSharingStrategy::kLessThanOrEqualToFinalShare,
                                           FairSharingStrategy::kLessThanInitialShare});
  }
  SECTION("no priority classes (FCFS): no WorkloadPriorityClass") {
    p.scheduler->priority_classes.clear();
    CHECK(NamesOf<WorkloadPriorityClassSpec>(MustTranslate(p)).empty());
  }
}

TEST_CASE("Translate: PreemptTeamTasks and FairShareWeight", "[hyperpod][translate]") {
  PolicySet p;
  ComputeQuotaPolicy never = Quota("never", {Count("ml.g5.8xlarge", 1)});
  never.preempt_team_tasks = PreemptTeamTasks::kNever;
  never.fair_share_weight = 100;
  p.quotas.push_back(never);
  p.quotas.push_back(Quota("plain", {Count("ml.g5.8xlarge", 1)}));  // weight defaulted
  const Translation t = MustTranslate(p);
  const ClusterQueueSpec* n = Find<ClusterQueueSpec>(t, "hyperpod-ns-never-clusterqueue");
  CHECK(n->preemption.within_cluster_queue == WithinClusterQueuePolicy::kNever);
  CHECK(n->preemption.reclaim_within_cohort == ReclaimWithinCohortPolicy::kAny);
  CHECK(n->preemption.borrow_within_cohort.policy == BorrowWithinCohortPolicy::kLowerPriority);
  CHECK(n->fair_sharing_weight_milli == 100000);
  // FairShareWeight defaults to 0 (not Kueue's 1).
  CHECK(Find<ClusterQueueSpec>(t, "hyperpod-ns-plain-clusterqueue")->fair_sharing_weight_milli == 0);
}

TEST_CASE("Translate: ActivationState Disabled holds the queue and relabels the namespace", "[hyperpod][translate]") {
  PolicySet p;
  ComputeQuotaPolicy off = Quota("off", {Count("ml.g5.8xlarge", 1)});
  off.enabled = false;
  p.quotas.push_back(off);
  p.quotas.push_back(Quota("on", {Count("ml.g5.8xlarge", 1)}));
  const Translation t = MustTranslate(p);
  CHECK(Find<ClusterQueueSpec>(t, "hyperpod-ns-off-clusterqueue")->stop_policy == StopPolicy::kHold);
  CHECK(Find<ClusterQueueSpec>(t, "hyperpod-ns-on-clusterqueue")->stop_policy == StopPolicy::kNone);
  CHECK(*FindLabel(Find<NamespaceSpec>(t, "hyperpod-ns-off")->labels, "sagemaker.amazonaws.com/activate-quota") ==
        "Disabled");
  CHECK(*FindLabel(Find<NamespaceSpec>(t, "hyperpod-ns-on")->labels, "sagemaker.amazonaws.com/activate-quota") ==
        "Enabled");
  // The LocalQueue is untouched: submissions queue, the ClusterQueue admits nothing new.
  CHECK(Find<LocalQueueSpec>(t, "hyperpod-ns-off-localqueue")->stop_policy == StopPolicy::kNone);
}

TEST_CASE("Translate: idle resource sharing publishes unallocated capacity (section 2.7)", "[hyperpod][translate]") {
  // Setup: 4 × g5.8xlarge and 1 × p5.48xlarge (and a type listed with 0 nodes); teams a and b take
  // 1 g5.8xlarge each. Expect: cq-1 for g5.8xlarge with the other 2 instances; cq-2 for the whole p5.
  SchedulerConfigPolicy sc;
  sc.name = "policy";
  sc.idle_resource_sharing = true;
  sc.source = "policy.yaml:1";
  PolicySet p;
  p.scheduler = sc;
  p.cluster = Inventory({{"ml.c5.2xlarge", 0}, {"ml.g5.8xlarge", 4}, {"ml.p5.48xlarge", 1}});
  p.quotas.push_back(Quota("team-a", {Count("ml.g5.8xlarge", 1)}));
  p.quotas.push_back(Quota("team-b", {Count("ml.g5.8xlarge", 1)}));
  const Translation t = MustTranslate(p);
  CHECK(Outline(t) == std::vector<std::string>{
                          "Namespace/hyperpod-ns-team-a", "Namespace/hyperpod-ns-team-b",
                          "ResourceFlavor/ml.g5.8xlarge", "ResourceFlavor/ml.p5.48xlarge",
                          "ClusterQueue/hyperpod-ns-team-a-clusterqueue", "ClusterQueue/hyperpod-ns-team-b-clusterqueue",
                          "ClusterQueue/hyperpod-ns-idle-resource-sharing-cq-1",
                          "ClusterQueue/hyperpod-ns-idle-resource-sharing-cq-2",
                          "LocalQueue/hyperpod-ns-team-a-localqueue", "LocalQueue/hyperpod-ns-team-b-localqueue"});
  const ClusterQueueSpec* idle1 = Find<ClusterQueueSpec>(t, "hyperpod-ns-idle-resource-sharing-cq-1");
  REQUIRE(idle1 != nullptr);
  CHECK(idle1->cohort == "shared-pool");
  CHECK_FALSE(idle1->namespace_selector.has_value());  // absent: matches no namespace
  CHECK(idle1->labels == Labels{{"sagemaker.amazonaws.com/sagemaker-managed-queue", "true"}});
  REQUIRE(idle1->resource_groups.size() == 1);
  CHECK(idle1->resource_groups[0].covered_resources == kCovered);
  REQUIRE(idle1->resource_groups[0].flavors.size() == 1);
  CheckFlavor(idle1->resource_groups[0].flavors[0], "ml.g5.8xlarge",
              {{"nvidia.com/gpu", 2, 0, std::nullopt},
               {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
               {"cpu", 64 * kCpu, 0, std::nullopt},
               {"memory", 256 * kGi, 0, std::nullopt},
               {"vpc.amazonaws.com/efa", 2, 0, std::nullopt}});
  const ClusterQueueSpec* idle2 = Find<ClusterQueueSpec>(t, "hyperpod-ns-idle-resource-sharing-cq-2");
  REQUIRE(idle2 != nullptr);
  CheckFlavor(idle2->resource_groups.at(0).flavors.at(0), "ml.p5.48xlarge",
              {{"nvidia.com/gpu", 8, 0, std::nullopt},
               {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
               {"cpu", 192 * kCpu, 0, std::nullopt},
               {"memory", 2048 * kGi, 0, std::nullopt},
               {"vpc.amazonaws.com/efa", 32, 0, std::nullopt}});
  // No LocalQueue points at an idle queue.
  for (const ObjectSpec& o : t.objects) {
    if (const LocalQueueSpec* lq = std::get_if<LocalQueueSpec>(&o)) {
      CHECK_FALSE(lq->cluster_queue.starts_with("hyperpod-ns-idle-"));
    }
  }
  CHECK(t.sources[6] == "cluster.yaml:1");

  SECTION("quotas above capacity leave nothing (max(0, ...)), and such a flavor gets no queue") {
    p.quotas.push_back(Quota("team-c", {Count("ml.g5.8xlarge", 3)}));
    const Translation over = MustTranslate(p);
    // g5.8xlarge is over-allocated (5 > 4): only the p5 queue remains, numbered 1.
    const ClusterQueueSpec* only = Find<ClusterQueueSpec>(over, "hyperpod-ns-idle-resource-sharing-cq-1");
    REQUIRE(only != nullptr);
    CHECK(only->resource_groups.at(0).flavors.at(0).name == "ml.p5.48xlarge");
    CHECK(Find<ClusterQueueSpec>(over, "hyperpod-ns-idle-resource-sharing-cq-2") == nullptr);
  }
  SECTION("partial use of one resource: per-resource max(0, capacity − Σ nominal)") {
    // team-c takes 1 GPU and all 64 vCPU of one more g5.8xlarge worth: gpu left 1, cpu left 0.
    ComputeQuotaPolicy c = Quota("team-c", {Accelerators("ml.g5.8xlarge", 1)});
    c.resources[0].vcpu = Dec(96);
    p.quotas.push_back(c);
    const Translation part = MustTranslate(p);
    // Σ: gpu 3, cpu 32+32+96 = 160 > 128, memory 128+128+384 = 640 > 512 GiB, efa 1+1+3 = 5 > 4.
    CheckFlavor(Find<ClusterQueueSpec>(part, "hyperpod-ns-idle-resource-sharing-cq-1")
                    ->resource_groups.at(0)
                    .flavors.at(0),
                "ml.g5.8xlarge",
                {{"nvidia.com/gpu", 1, 0, std::nullopt},
                 {"aws.amazon.com/neurondevice", 0, 0, std::nullopt},
                 {"cpu", 0, 0, std::nullopt},
                 {"memory", 0, 0, std::nullopt},
                 {"vpc.amazonaws.com/efa", 0, 0, std::nullopt}});
  }
  SECTION("IdleResourceSharing Disabled: no idle queues, no inventory-only flavors") {
    p.scheduler->idle_resource_sharing = false;
    const Translation off = MustTranslate(p);
    CHECK(NamesOf<ClusterQueueSpec>(off) ==
          std::vector<std::string>{"hyperpod-ns-team-a-clusterqueue", "hyperpod-ns-team-b-clusterqueue"});
    CHECK(NamesOf<ResourceFlavorSpec>(off) == std::vector<std::string>{"ml.g5.8xlarge"});
  }
  SECTION("no inventory: no idle queues") {
    p.cluster.reset();
    CHECK(NamesOf<ClusterQueueSpec>(MustTranslate(p)).size() == 2);
  }
}

TEST_CASE("Translate: an empty policy set and a quota without resources", "[hyperpod][translate]") {
  const Translation empty = MustTranslate(PolicySet{});
  CHECK(empty.objects.empty());
  CHECK(empty.fair_sharing.enabled);
  PolicySet p;
  p.quotas.push_back(Quota("bare", {}));
  const Translation t = MustTranslate(p);
  const ClusterQueueSpec* cq = Find<ClusterQueueSpec>(t, "hyperpod-ns-bare-clusterqueue");
  REQUIRE(cq != nullptr);
  CHECK(cq->resource_groups.empty());
}

TEST_CASE("Translate: Validate runs first", "[hyperpod][translate]") {
  PolicySet p;
  p.quotas.push_back(Quota("team-a", {Count("ml.g5.8xlarge", 1)}));
  ComputeQuotaPolicy again = Quota("team-a", {Count("ml.g5.8xlarge", 1)});
  again.name = "second";
  again.source = "second.yaml:3";
  p.quotas.push_back(again);
  const absl::StatusOr<Translation> t = Translate(p);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == absl::StatusCode::kAlreadyExists);
  CHECK(std::string(t.status().message()) ==
        "second.yaml:3: ComputeQuota/second: ComputeQuotaTarget.TeamName: team 'team-a' already has an "
        "allocation, ComputeQuota/team-a-quota at team-a.yaml:1 (ConflictException)");
}

TEST_CASE("Validate: instance types of a policy set built in code", "[hyperpod][translate]") {
  // Setup: policies made without the reader, which would have rejected these. Expect: Validate (and
  // so Translate) refuses them instead of translating an unknown type to zero quota.
  auto error_of = [](const PolicySet& p) {
    const absl::Status st = Validate(p);
    if (st.ok()) return std::string("<ok>");
    CHECK(st.code() == absl::StatusCode::kInvalidArgument);
    CHECK_FALSE(Translate(p).ok());
    return std::string(st.message());
  };
  PolicySet p;
  p.quotas.push_back(Quota("team-a", {Count("ml.g5.8xlarge", 1), Count("ml.g5.9xlarge", 1)}));
  CHECK(error_of(p) ==
        "team-a.yaml:1: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[1].InstanceType: "
        "\"ml.g5.9xlarge\" is not a HyperPod instance type (ClusterInstanceType)");
  p.quotas[0].resources[1] = Count("ml.inf2.xlarge", 1);
  CHECK(error_of(p) ==
        "team-a.yaml:1: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[1].InstanceType: "
        "\"ml.inf2.xlarge\" is not a HyperPod instance type (ClusterInstanceType)");
  p.quotas[0].resources[1] = Accelerators("ml.g5.8xlarge", 1);
  CHECK(error_of(p) ==
        "team-a.yaml:1: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[1].InstanceType: "
        "ml.g5.8xlarge is already listed in ComputeQuotaConfig.ComputeQuotaResources[0]");
  p.quotas[0].resources.pop_back();
  p.quotas[0].sharing = Sharing(SharingStrategy::kLendAndBorrow);
  p.quotas[0].sharing->absolute_borrow_limits.push_back(Accelerators("ml.x", 1));
  CHECK(error_of(p) ==
        "team-a.yaml:1: ComputeQuota/team-a-quota: "
        "ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits[0].InstanceType: \"ml.x\" is not a "
        "HyperPod instance type (ClusterInstanceType)");
  p.quotas[0].sharing->absolute_borrow_limits[0].instance_type = "ml.g5.8xlarge";
  CHECK(error_of(p) == "<ok>");
}

TEST_CASE("Translate: the largest allowed amounts do not overflow", "[hyperpod][translate]") {
  // Setup: three teams of 10,000,000 ml.p5.48xlarge each with BorrowLimit 10000: 2.2e19 bytes of
  // memory per team is above int64. Expect: no wrap-around; every amount stays non-negative and
  // nominal ≤ borrowing ≤ the saturated maximum; Lint's sums do not wrap either.
  PolicySet p;
  for (const char* team : {"a", "b", "c"}) {
    p.quotas.push_back(
        Quota(team, {Count("ml.p5.48xlarge", 10'000'000)}, Sharing(SharingStrategy::kLendAndBorrow, 10000)));
  }
  p.cluster = Inventory({{"ml.p5.48xlarge", 1}});
  const Translation t = MustTranslate(p);
  for (const std::string& name : NamesOf<ClusterQueueSpec>(t)) {
    const ClusterQueueSpec* cq = Find<ClusterQueueSpec>(t, name);
    for (const ResourceQuotaSpec& r : cq->resource_groups.at(0).flavors.at(0).resources) {
      INFO(name << " " << r.name);
      CHECK(r.nominal_quota >= 0);
      REQUIRE(r.borrowing_limit.has_value());
      CHECK(*r.borrowing_limit >= r.nominal_quota);
    }
  }
  const ClusterQueueSpec* a = Find<ClusterQueueSpec>(t, "hyperpod-ns-a-clusterqueue");
  CHECK(a->resource_groups[0].flavors[0].resources[0].nominal_quota == 80'000'000);         // GPUs
  CHECK(a->resource_groups[0].flavors[0].resources[0].borrowing_limit == 8'000'000'000);    // 100×
  CHECK(a->resource_groups[0].flavors[0].resources[2].nominal_quota == 1'920'000'000'000);  // milli-CPU
  // Lint's per-type sums saturate at the same ceiling as each amount (2^62 − 1) instead of wrapping
  // to a negative total, which hid the memory warning.
  CHECK(Messages(Lint(p)) ==
        std::vector<std::string>{
            "cluster.yaml:1 | ml.p5.48xlarge nvidia.com/gpu: the teams' quotas add up to 240000000, above the 8 of "
            "the cluster's 1 node (HyperPodCluster/cluster)",
            "cluster.yaml:1 | ml.p5.48xlarge cpu: the teams' quotas add up to 5760000000, above the 192 of the "
            "cluster's 1 node (HyperPodCluster/cluster)",
            "cluster.yaml:1 | ml.p5.48xlarge memory: the teams' quotas add up to 4611686018427387903, above the "
            "2048Gi of the cluster's 1 node (HyperPodCluster/cluster)",
            "cluster.yaml:1 | ml.p5.48xlarge vpc.amazonaws.com/efa: the teams' quotas add up to 960000000, above "
            "the 32 of the cluster's 1 node (HyperPodCluster/cluster)",
            " | no ClusterSchedulerConfig: the API defaults apply (first-come first-serve task prioritization, "
            "FairShare=Enabled)"});
}

// ---- docs/hyperpod.md §7 warnings -------------------------------------------------------------------------------

TEST_CASE("Lint: S4 option 2 asks for more than the cluster has", "[hyperpod][lint]") {
  // Setup: 2 × ml.g5.12xlarge (8 GPU, 96 vCPU, 384 GiB, 2 EFA); team A 2 GPUs, team B Count=2.
  // Expect: a warning per resource above capacity, naming both sums.
  SchedulerConfigPolicy sc;
  sc.name = "policy";
  sc.source = "policy.yaml:1";
  PolicySet p;
  p.scheduler = sc;
  p.cluster = Inventory({{"ml.g5.12xlarge", 2}});
  p.quotas.push_back(
      Quota("team-a", {Accelerators("ml.g5.12xlarge", 2)}, Sharing(SharingStrategy::kLendAndBorrow, 100)));
  p.quotas.push_back(Quota("team-b", {Count("ml.g5.12xlarge", 2)}, Sharing(SharingStrategy::kLendAndBorrow, 100)));
  CHECK(Messages(Lint(p)) ==
        std::vector<std::string>{
            "cluster.yaml:1 | ml.g5.12xlarge nvidia.com/gpu: the teams' quotas add up to 10, above the 8 of "
            "the cluster's 2 nodes (HyperPodCluster/cluster)",
            "cluster.yaml:1 | ml.g5.12xlarge cpu: the teams' quotas add up to 120, above the 96 of the "
            "cluster's 2 nodes (HyperPodCluster/cluster)",
            "cluster.yaml:1 | ml.g5.12xlarge memory: the teams' quotas add up to 480Gi, above the 384Gi of "
            "the cluster's 2 nodes (HyperPodCluster/cluster)",
            "cluster.yaml:1 | ml.g5.12xlarge vpc.amazonaws.com/efa: the teams' quotas add up to 3, above the "
            "2 of the cluster's 2 nodes (HyperPodCluster/cluster)"});

  SECTION("S1: 2 + 2 g5.8xlarge on 4 nodes is exactly at capacity: no warning") {
    PolicySet s1;
    s1.scheduler = sc;
    s1.cluster = Inventory({{"ml.g5.8xlarge", 4}});
    s1.quotas.push_back(Quota("team-a", {Count("ml.g5.8xlarge", 2)}));
    s1.quotas.push_back(Quota("team-b", {Count("ml.g5.8xlarge", 2)}));
    CHECK(Lint(s1).empty());
  }
  SECTION("one node: singular, and millicores in the message") {
    PolicySet one;
    one.scheduler = sc;
    one.cluster = Inventory({{"ml.c5.2xlarge", 1}});
    QuotaResource r;
    r.instance_type = "ml.c5.2xlarge";
    r.vcpu = Dec(45, 1);  // 4.5 vCPU, 9 GiB
    one.quotas.push_back(Quota("team-a", {r}));
    one.quotas.push_back(Quota("team-b", {r}));
    CHECK(Messages(Lint(one)) ==
          std::vector<std::string>{"cluster.yaml:1 | ml.c5.2xlarge cpu: the teams' quotas add up to 9, above the 8 "
                                   "of the cluster's 1 node (HyperPodCluster/cluster)",
                                   "cluster.yaml:1 | ml.c5.2xlarge memory: the teams' quotas add up to 18Gi, above "
                                   "the 16Gi of the cluster's 1 node (HyperPodCluster/cluster)"});
    one.quotas[1].resources[0].vcpu = Dec(41, 1);  // 4.5 + 4.1 = 8.6 vCPU; 9 + 8.2 GiB
    CHECK(Messages(Lint(one)) ==
          std::vector<std::string>{"cluster.yaml:1 | ml.c5.2xlarge cpu: the teams' quotas add up to 8600m, above "
                                   "the 8 of the cluster's 1 node (HyperPodCluster/cluster)",
                                   "cluster.yaml:1 | ml.c5.2xlarge memory: the teams' quotas add up to 17612Mi, "
                                   "above the 16Gi of the cluster's 1 node (HyperPodCluster/cluster)"});
  }
}

TEST_CASE("Lint: each section 7 warning, with its exact message", "[hyperpod][lint]") {
  SchedulerConfigPolicy sc;
  sc.name = "policy";
  sc.source = "policy.yaml:1";
  PolicySet p;
  p.scheduler = sc;
  p.cluster = Inventory({{"ml.c5.2xlarge", 0}, {"ml.g5.8xlarge", 4}});
  p.quotas.push_back(Quota("team-a", {Count("ml.g5.8xlarge", 1)}));
  p.quotas.push_back(Quota("team-b", {Count("ml.g5.8xlarge", 1)}));
  REQUIRE(Lint(p).empty());

  SECTION("an instance type without nodes (future capacity), also one listed with 0 nodes") {
    p.quotas[0].resources.push_back(Count("ml.p5.48xlarge", 1));
    p.quotas[1].resources.push_back(Count("ml.c5.2xlarge", 1));
    CHECK(Messages(Lint(p)) ==
          std::vector<std::string>{"team-a.yaml:1 | ComputeQuota/team-a-quota: ml.p5.48xlarge has no nodes in "
                                   "HyperPodCluster/cluster; the quota is planned capacity until nodes join",
                                   "team-b.yaml:1 | ComputeQuota/team-b-quota: ml.c5.2xlarge has no nodes in "
                                   "HyperPodCluster/cluster; the quota is planned capacity until nodes join"});
  }
  SECTION("a single allocation") {
    p.quotas.pop_back();
    CHECK(Messages(Lint(p)) ==
          std::vector<std::string>{"team-a.yaml:1 | ComputeQuota/team-a-quota is the only allocation: no "
                                   "borrowing or cross-team preemption can happen"});
  }
  SECTION("BorrowLimit and AbsoluteBorrowLimits with Lend or DontLend") {
    p.quotas[0].sharing = Sharing(SharingStrategy::kLend, 30);
    p.quotas[1].sharing = Sharing(SharingStrategy::kDontLend, 30);
    p.quotas[1].sharing->absolute_borrow_limits.push_back(Accelerators("ml.g5.8xlarge", 1));
    CHECK(Messages(Lint(p)) ==
          std::vector<std::string>{
              "team-a.yaml:1 | ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit "
              "is ignored with Strategy Lend",
              "team-b.yaml:1 | ComputeQuota/team-b-quota: ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit "
              "is ignored with Strategy DontLend",
              "team-b.yaml:1 | ComputeQuota/team-b-quota: "
              "ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits is ignored with Strategy DontLend"});
    // Without BorrowLimit: nothing to report.
    p.quotas[0].sharing->borrow_limit.reset();
    p.quotas[1].sharing = Sharing(SharingStrategy::kDontLend);
    CHECK(Lint(p).empty());
  }
  SECTION("FairShareWeight while FairShare=Disabled") {
    p.scheduler->fair_share = false;
    p.quotas[1].fair_share_weight = 10;
    CHECK(Messages(Lint(p)) ==
          std::vector<std::string>{"team-b.yaml:1 | ComputeQuota/team-b-quota: ComputeQuotaTarget.FairShareWeight "
                                   "is ignored while FairShare=Disabled"});
    p.scheduler->fair_share = true;
    CHECK(Lint(p).empty());
  }
  SECTION("a type without an EFA figure") {
    p.quotas[0].resources.push_back(Count("ml.p6e-gb200.36xlarge", 1));
    p.cluster->instances.emplace_back("ml.p6e-gb200.36xlarge", 1);
    CHECK(Messages(Lint(p)) ==
          std::vector<std::string>{"team-a.yaml:1 | ComputeQuota/team-a-quota: the catalogue has no EFA figure "
                                   "for ml.p6e-gb200.36xlarge; its EFA quota is 0"});
  }
  SECTION("VCpu and MemoryInGiB finer than the quota's units are rounded down, and said so") {
    p.cluster = Inventory({{"ml.c5.2xlarge", 0}, {"ml.g5.12xlarge", 4}, {"ml.g5.8xlarge", 4}});
    QuotaResource r;
    r.instance_type = "ml.g5.12xlarge";
    r.vcpu = Decimal{12345, 4};       // 1.2345 vCPU → 1234m
    r.memory_gib = Decimal{10001, 4};  // 1.0001 GiB → 1Gi (1024.1 MiB)
    p.quotas[0].resources.push_back(r);
    QuotaResource exact;
    exact.instance_type = "ml.g5.12xlarge";
    exact.vcpu = Decimal{1500, 3};  // 1.5 vCPU and 0.5 GiB are whole millicores and MiB
    exact.memory_gib = Decimal{5, 1};
    p.quotas[1].resources.push_back(exact);
    CHECK(Messages(Lint(p)) ==
          std::vector<std::string>{
              "team-a.yaml:1 | ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[1].VCpu: 1.2345 "
              "is finer than a millicore; the quota uses 1234m",
              "team-a.yaml:1 | ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[1].MemoryInGiB: "
              "1.0001 is finer than a MiB; the quota uses 1Gi"});
    CHECK(Validate(p).ok());
  }
  SECTION("idle resource sharing without an inventory") {
    p.scheduler->idle_resource_sharing = true;
    p.cluster.reset();
    CHECK(Messages(Lint(p)) ==
          std::vector<std::string>{" | no HyperPodCluster inventory: quotas are not checked against capacity",
                                   "policy.yaml:1 | IdleResourceSharing=Enabled but no HyperPodCluster "
                                   "inventory: no idle-resource-sharing ClusterQueues are generated"});
  }
  SECTION("no cluster policy") {
    p.scheduler.reset();
    CHECK(Messages(Lint(p)) ==
          std::vector<std::string>{" | no ClusterSchedulerConfig: the API defaults apply (first-come first-serve "
                                   "task prioritization, FairShare=Enabled)"});
  }
  SECTION("several at once, in the documented order") {
    p.scheduler.reset();
    p.cluster = Inventory({{"ml.g5.8xlarge", 1}});
    p.quotas.pop_back();
    p.quotas[0].resources[0].count = 2;
    p.quotas[0].resources.push_back(Count("ml.g6.12xlarge", 1));
    p.quotas[0].sharing = Sharing(SharingStrategy::kLend, 10);
    CHECK(Messages(Lint(p)) ==
          std::vector<std::string>{
              "cluster.yaml:1 | ml.g5.8xlarge nvidia.com/gpu: the teams' quotas add up to 2, above the 1 of the "
              "cluster's 1 node (HyperPodCluster/cluster)",
              "cluster.yaml:1 | ml.g5.8xlarge cpu: the teams' quotas add up to 64, above the 32 of the cluster's "
              "1 node (HyperPodCluster/cluster)",
              "cluster.yaml:1 | ml.g5.8xlarge memory: the teams' quotas add up to 256Gi, above the 128Gi of the "
              "cluster's 1 node (HyperPodCluster/cluster)",
              "cluster.yaml:1 | ml.g5.8xlarge vpc.amazonaws.com/efa: the teams' quotas add up to 2, above the 1 "
              "of the cluster's 1 node (HyperPodCluster/cluster)",
              "team-a.yaml:1 | ComputeQuota/team-a-quota: ml.g6.12xlarge has no nodes in HyperPodCluster/cluster; "
              "the quota is planned capacity until nodes join",
              "team-a.yaml:1 | ComputeQuota/team-a-quota is the only allocation: no borrowing or cross-team "
              "preemption can happen",
              "team-a.yaml:1 | ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit "
              "is ignored with Strategy Lend",
              " | no ClusterSchedulerConfig: the API defaults apply (first-come first-serve task prioritization, "
              "FairShare=Enabled)"});
  }
}

// ---- Into a real Engine ----------------------------------------------------------------------------

Engine EngineFor(const Translation& t) {
  EngineConfig config;
  config.fair_sharing = t.fair_sharing;
  Engine engine = Engine::Create(config).value();
  const absl::Status st = engine.Apply(t.objects);
  INFO(st.message());
  REQUIRE(st.ok());
  return engine;
}

// (flavor, resource, nominal) of every entry of a ClusterQueue's status.
std::vector<std::string> Nominals(const Engine& engine, std::string_view cq) {
  absl::StatusOr<ClusterQueueStatus> st = engine.GetClusterQueue(cq);
  INFO(st.status().message());
  REQUIRE(st.ok());
  std::vector<std::string> out;
  for (const FlavorResourceUsage& u : st->usage) {
    out.push_back(u.flavor + " " + u.resource + " " + std::to_string(u.nominal));
  }
  return out;
}

TEST_CASE("Translate: the Engine accepts the S0 objects and reports their quotas", "[hyperpod][translate][engine]") {
  const Translation t = MustTranslate(MustRead(kS0Describe, "s0.json"));
  const Engine engine = EngineFor(t);
  CHECK(engine.ClusterQueues() == std::vector<std::string>{"hyperpod-ns-onlygputeam-clusterqueue"});
  const absl::StatusOr<ClusterQueueStatus> cq = engine.GetClusterQueue("hyperpod-ns-onlygputeam-clusterqueue");
  REQUIRE(cq.ok());
  CHECK(cq->cohort == "shared-pool");
  CHECK(cq->active);
  CHECK(Nominals(engine, "hyperpod-ns-onlygputeam-clusterqueue") ==
        std::vector<std::string>{"ml.g6.12xlarge nvidia.com/gpu 2", "ml.g6.12xlarge aws.amazon.com/neurondevice 0",
                                 "ml.g6.12xlarge cpu 48000", "ml.g6.12xlarge memory 206158430208",
                                 "ml.g6.12xlarge vpc.amazonaws.com/efa 1"});
}

TEST_CASE("Translate: the Engine accepts every kind of object the translation makes", "[hyperpod][translate][engine]") {
  // Setup: priority classes, MIG, DontLend, a disabled allocation, idle sharing.
  SchedulerConfigPolicy sc;
  sc.name = "policy";
  sc.priority_classes = {{"training", 70}, {"inference", 90}};
  sc.idle_resource_sharing = true;
  PolicySet p = MustRead(kCompleteDescribe, "team-a.json");
  p.scheduler = sc;
  p.cluster = Inventory({{"ml.g6.12xlarge", 2}, {"ml.p5.48xlarge", 4}});
  ComputeQuotaPolicy b = Quota("team-b", {Count("ml.p5.48xlarge", 1)}, Sharing(SharingStrategy::kDontLend));
  b.enabled = false;
  p.quotas.push_back(b);
  const Translation t = MustTranslate(p);
  const Engine engine = EngineFor(t);
  CHECK(engine.ClusterQueues() ==
        std::vector<std::string>{"hyperpod-ns-idle-resource-sharing-cq-1", "hyperpod-ns-idle-resource-sharing-cq-2",
                                 "hyperpod-ns-team-a-clusterqueue", "hyperpod-ns-team-b-clusterqueue"});
  const absl::StatusOr<ClusterQueueStatus> held = engine.GetClusterQueue("hyperpod-ns-team-b-clusterqueue");
  REQUIRE(held.ok());
  CHECK_FALSE(held->active);
  // Idle p5: 4 nodes − 2 (team-a) − 1 (team-b) = 1 node.
  CHECK(Nominals(engine, "hyperpod-ns-idle-resource-sharing-cq-2") ==
        std::vector<std::string>{"ml.p5.48xlarge nvidia.com/gpu 8", "ml.p5.48xlarge aws.amazon.com/neurondevice 0",
                                 "ml.p5.48xlarge cpu 192000", "ml.p5.48xlarge memory 2199023255552",
                                 "ml.p5.48xlarge vpc.amazonaws.com/efa 32"});
  // Idle g6: 2 nodes (8 GPU, 96 vCPU, 384 GiB, 2 EFA) − team-a's 2 GPU / 24 vCPU / 96 GiB / 1 EFA.
  CHECK(Nominals(engine, "hyperpod-ns-idle-resource-sharing-cq-1") ==
        std::vector<std::string>{"ml.g6.12xlarge nvidia.com/gpu 6", "ml.g6.12xlarge aws.amazon.com/neurondevice 0",
                                 "ml.g6.12xlarge cpu 72000", "ml.g6.12xlarge memory 309237645312",
                                 "ml.g6.12xlarge vpc.amazonaws.com/efa 1"});
}

WorkloadSpec Job(std::string team, std::string name, int32_t pods, Time created) {
  WorkloadSpec w;
  w.namespace_ = TeamNamespace(team);
  w.name = std::move(name);
  w.queue_name = TeamLocalQueue(team);
  w.creation_time = created;
  PodSetSpec ps;
  ps.name = "worker";
  ps.count = pods;
  // HyperPod CLI defaults for a 4-GPU ml.g5.12xlarge pod: 44 cpu, 164Gi (docs/hyperpod.md §10 vector 3).
  ps.requests = {{"cpu", 44 * kCpu}, {"memory", 164 * kGi}, {"nvidia.com/gpu", 4}};
  w.pod_sets.push_back(ps);
  return w;
}

TEST_CASE("Translate: C1 walkthrough through the Engine (section 10 vector 3)", "[hyperpod][translate][engine]") {
  // Setup: 2 × g5.12xlarge; teams a and b Count=1, LendAndBorrow 100, weight 0; team-a runs a
  // 2-node × 4-GPU job. Expect: admitted; team-a total/borrowed gpu 8/4, cpu 88/40,
  // memory 328Gi/136Gi, efa 0/0, neurondevice 0/0. Then team-b's 1-node job reclaims: team-a's job
  // is evicted.
  PolicySet p;
  for (const char* team : {"team-a", "team-b"}) {
    ComputeQuotaPolicy q = Quota(team, {Count("ml.g5.12xlarge", 1)}, Sharing(SharingStrategy::kLendAndBorrow, 100));
    q.fair_share_weight = 0;
    p.quotas.push_back(q);
  }
  Engine engine = EngineFor(MustTranslate(p));
  REQUIRE(engine.Submit(Job("team-a", "a-job", 2, Time::FromUnixSeconds(1))).ok());
  engine.ScheduleCycle();
  absl::StatusOr<WorkloadStatus> a = engine.GetWorkload("hyperpod-ns-team-a", "a-job");
  REQUIRE(a.ok());
  CHECK(a->state == WorkloadState::kAdmitted);
  absl::StatusOr<ClusterQueueStatus> cq = engine.GetClusterQueue("hyperpod-ns-team-a-clusterqueue");
  REQUIRE(cq.ok());
  std::vector<std::string> usage;
  for (const FlavorResourceUsage& u : cq->usage) {
    usage.push_back(u.flavor + " " + u.resource + " " + std::to_string(u.usage) + "/" + std::to_string(u.borrowed));
  }
  CHECK(usage == std::vector<std::string>{
                     "ml.g5.12xlarge nvidia.com/gpu 8/4", "ml.g5.12xlarge aws.amazon.com/neurondevice 0/0",
                     "ml.g5.12xlarge cpu 88000/40000",
                     "ml.g5.12xlarge memory " + std::to_string(328 * kGi) + "/" + std::to_string(136 * kGi),
                     "ml.g5.12xlarge vpc.amazonaws.com/efa 0/0"});

  REQUIRE(engine.Submit(Job("team-b", "b-job", 1, Time::FromUnixSeconds(2))).ok());
  engine.ScheduleCycle();
  a = engine.GetWorkload("hyperpod-ns-team-a", "a-job");
  REQUIRE(a.ok());
  CHECK(a->state == WorkloadState::kEvicting);
}

}  // namespace
}  // namespace translate_test
}  // namespace qm::hyperpod
