// RenderKueueObjects and RenderKueueConfiguration: HyperPod's objects written in
// `kueue.x-k8s.io/v1beta1` exactly as docs/hyperpod.md §2.1–§2.4 show them, read back by
// `ReadManifestString` to the same specs; the v1beta1 option of `WriteManifest` for the other
// kinds; and the Kueue Configuration fragment of docs/hyperpod.md §2.8.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "qm/hyperpod/policy_reader.h"
#include "qm/hyperpod/render.h"
#include "qm/hyperpod/translate.h"
#include "qm/io/manifest.h"
#include "qm/text/manifest_writer.h"

namespace qm::hyperpod {
namespace render_test {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

// The allocation whose ClusterQueue seed S0 shows (docs/hyperpod.md §3): the
// `describe-compute-quota` output as a ComputeQuota object.
constexpr std::string_view kSeedQuota = R"(kind: ComputeQuota
metadata: {name: only-gpu-quota}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g6.12xlarge, Accelerators: 2, VCpu: 48.0}]
  ResourceSharingConfig: {Strategy: LendAndBorrow, BorrowLimit: 50}
  PreemptTeamTasks: LowerPriority
computeQuotaTarget: {TeamName: onlygputeam, FairShareWeight: 10}
)";

// What HyperPod creates for `kSeedQuota`: docs/hyperpod.md §2.1 (plus the name label Kubernetes sets anyway), §2.2,
// docs/hyperpod.md §2.3 field by field, §2.4, then the §2.8 Configuration as a comment.
constexpr std::string_view kSeedRendered = R"(apiVersion: v1
kind: Namespace
metadata:
  name: hyperpod-ns-onlygputeam
  labels:
    kubernetes.io/metadata.name: hyperpod-ns-onlygputeam
    sagemaker.amazonaws.com/activate-quota: Enabled
    sagemaker.amazonaws.com/quota-allocation-id: onlygputeam
    sagemaker.amazonaws.com/sagemaker-managed-queue: "true"
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: ml.g6.12xlarge
spec:
  nodeLabels:
    node.kubernetes.io/instance-type: ml.g6.12xlarge
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: hyperpod-ns-onlygputeam-clusterqueue
  labels:
    sagemaker.amazonaws.com/quota-allocation-id: onlygputeam
    sagemaker.amazonaws.com/sagemaker-managed-queue: "true"
spec:
  cohort: shared-pool
  fairSharing:
    weight: "10"
  flavorFungibility:
    whenCanBorrow: TryNextFlavor
    whenCanPreempt: TryNextFlavor
  namespaceSelector:
    matchLabels:
      kubernetes.io/metadata.name: hyperpod-ns-onlygputeam
  preemption:
    borrowWithinCohort:
      policy: LowerPriority
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
  queueingStrategy: BestEffortFIFO
  resourceGroups:
  - coveredResources: [nvidia.com/gpu, aws.amazon.com/neurondevice, cpu, memory, vpc.amazonaws.com/efa]
    flavors:
    - name: ml.g6.12xlarge
      resources:
      - {name: nvidia.com/gpu, nominalQuota: "2", borrowingLimit: "1"}
      - {name: aws.amazon.com/neurondevice, nominalQuota: "0", borrowingLimit: "0"}
      - {name: cpu, nominalQuota: "48", borrowingLimit: "24"}
      - {name: memory, nominalQuota: 192Gi, borrowingLimit: 96Gi}
      - {name: vpc.amazonaws.com/efa, nominalQuota: "1", borrowingLimit: "0"}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  name: hyperpod-ns-onlygputeam-localqueue
  namespace: hyperpod-ns-onlygputeam
  labels:
    sagemaker.amazonaws.com/quota-allocation-id: onlygputeam
    sagemaker.amazonaws.com/sagemaker-managed-queue: "true"
spec:
  clusterQueue: hyperpod-ns-onlygputeam-clusterqueue
  stopPolicy: None

# Kueue Configuration for this cluster policy. It is not a Kubernetes object, so kubectl
# apply skips it: HyperPod keeps Kueue's Configuration in ConfigMap
# kueue-system/kueue-manager-config (key controller_manager_config.yaml).
# Merge these members into it, then restart the Kueue controller manager.
#
# fairSharing:
#   enable: true
#   preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
)";

Translation TranslateText(std::string_view text) {
  absl::StatusOr<PolicyDocument> doc = ReadPolicyString(text, "policies.yaml");
  INFO(doc.status().message());
  REQUIRE(doc.ok());
  absl::StatusOr<Translation> t = Translate(doc->policies);
  INFO(t.status().message());
  REQUIRE(t.ok());
  return *std::move(t);
}

Manifest ReadBack(std::string_view text) {
  absl::StatusOr<Manifest> m = ReadManifestString(text, "rendered.yaml");
  INFO(m.status().message());
  REQUIRE(m.ok());
  return *std::move(m);
}

std::vector<ObjectSpec> SpecsOf(const Manifest& m) {
  std::vector<ObjectSpec> out;
  for (const ManifestObject& o : m.objects) out.push_back(o.spec);
  return out;
}

// Every line of `text`, to check that one line is present exactly.
std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool HasLine(std::string_view text, std::string_view line) {
  for (const std::string& l : Lines(text)) {
    if (l == line) return true;
  }
  return false;
}

const ResourceQuotaSpec& Quota(const ClusterQueueSpec& cq, std::string_view resource) {
  REQUIRE(cq.resource_groups.size() == 1);
  REQUIRE(cq.resource_groups[0].flavors.size() == 1);
  for (const ResourceQuotaSpec& r : cq.resource_groups[0].flavors[0].resources) {
    if (r.name == resource) return r;
  }
  FAIL("no quota for " << resource);
  return cq.resource_groups[0].flavors[0].resources[0];
}

template <class T>
const T& Get(const std::vector<ObjectSpec>& specs, size_t i) {
  REQUIRE(i < specs.size());
  const T* spec = std::get_if<T>(&specs[i]);
  REQUIRE(spec != nullptr);
  return *spec;
}

TEST_CASE("RenderKueueObjects: the seed quota renders as HyperPod's v1beta1 objects",
          "[hyperpod][render]") {
  const Translation t = TranslateText(kSeedQuota);
  const std::string text = RenderKueueObjects(t);

  SECTION("the whole output is docs/hyperpod.md §2.1-§2.4 and the §2.8 comment") {
    // Setup: the S0 allocation. Expect: byte for byte the objects HyperPod created.
    CHECK(text == kSeedRendered);
  }
  SECTION("the lines that differ from v1beta2 and the derived quantities") {
    // Setup: as above. Expect: v1beta1 apiVersion and `cohort`, memory derived from the given vCPU
    // (192Gi, not the 96Gi of the GPU ratio) and half of it borrowable.
    CHECK(HasLine(text, "apiVersion: kueue.x-k8s.io/v1beta1"));
    CHECK_FALSE(HasLine(text, "apiVersion: kueue.x-k8s.io/v1beta2"));
    CHECK(HasLine(text, "  cohort: shared-pool"));
    CHECK(text.find("cohortName") == std::string::npos);
    CHECK(HasLine(text, "      - {name: memory, nominalQuota: 192Gi, borrowingLimit: 96Gi}"));
    CHECK(HasLine(text, "      - {name: cpu, nominalQuota: \"48\", borrowingLimit: \"24\"}"));
    CHECK(HasLine(text, "  stopPolicy: None"));
  }
  SECTION("ReadManifestString reads the output back to the same specs") {
    // Setup: the rendered text. Expect: the same objects, in order; written again (v1beta2) they
    // give the same text; and the ClusterQueue's numbers in base units.
    const std::vector<ObjectSpec> back = SpecsOf(ReadBack(text));
    REQUIRE(back.size() == t.objects.size());
    CHECK(WriteManifest(back) == WriteManifest(t.objects));
    const auto& cq = Get<ClusterQueueSpec>(back, 2);
    CHECK(cq.name == "hyperpod-ns-onlygputeam-clusterqueue");
    CHECK(cq.cohort == "shared-pool");
    CHECK(cq.fair_sharing_weight_milli == 10000);
    CHECK(cq.flavor_fungibility.when_can_borrow == FungibilityPolicy::kTryNextFlavor);
    CHECK(cq.flavor_fungibility.when_can_preempt == FungibilityPolicy::kTryNextFlavor);
    CHECK(cq.preemption.within_cluster_queue == WithinClusterQueuePolicy::kLowerPriority);
    CHECK(cq.preemption.reclaim_within_cohort == ReclaimWithinCohortPolicy::kAny);
    CHECK(cq.preemption.borrow_within_cohort.policy == BorrowWithinCohortPolicy::kLowerPriority);
    CHECK(cq.stop_policy == StopPolicy::kNone);
    CHECK(cq.resource_groups[0].covered_resources ==
          std::vector<std::string>{"nvidia.com/gpu", "aws.amazon.com/neurondevice", "cpu", "memory",
                                   "vpc.amazonaws.com/efa"});
    CHECK(Quota(cq, "nvidia.com/gpu").nominal_quota == 2);
    CHECK(Quota(cq, "nvidia.com/gpu").borrowing_limit == 1);
    CHECK(Quota(cq, "aws.amazon.com/neurondevice").nominal_quota == 0);
    CHECK(Quota(cq, "cpu").nominal_quota == 48000);  // milli-CPU
    CHECK(Quota(cq, "cpu").borrowing_limit == 24000);
    CHECK(Quota(cq, "memory").nominal_quota == 192 * kGiB);
    CHECK(Quota(cq, "memory").borrowing_limit == 96 * kGiB);
    CHECK(Quota(cq, "vpc.amazonaws.com/efa").nominal_quota == 1);
    CHECK(Quota(cq, "vpc.amazonaws.com/efa").borrowing_limit == 0);
    CHECK_FALSE(Quota(cq, "cpu").lending_limit.has_value());
    const auto& lq = Get<LocalQueueSpec>(back, 3);
    CHECK(lq.namespace_ == "hyperpod-ns-onlygputeam");
    CHECK(lq.cluster_queue == "hyperpod-ns-onlygputeam-clusterqueue");
  }
  SECTION("JSON is one v1 List that reads back to the same specs") {
    // Setup: the same translation as JSON. Expect: a List holding every object, no comment.
    const std::string json = RenderKueueObjects(t, {.format = OutputFormat::kJson});
    CHECK(json.rfind("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n", 0) == 0);
    CHECK(json.find('#') == std::string::npos);
    CHECK(json.find("\"cohort\": \"shared-pool\"") != std::string::npos);
    const std::vector<ObjectSpec> back = SpecsOf(ReadBack(json));
    REQUIRE(back.size() == t.objects.size());
    CHECK(WriteManifest(back) == WriteManifest(t.objects));
  }
  SECTION("the comment block can be left out") {
    const std::string bare = RenderKueueObjects(t, {.kueue_config_comment = false});
    CHECK(bare.find('#') == std::string::npos);
    CHECK(bare == WriteManifest(t.objects, {.api_version = KueueApiVersion::kV1beta1,
                                            .explicit_defaults = true}));
  }
}

TEST_CASE("RenderKueueObjects: sharing strategies, activation and priority classes",
          "[hyperpod][render]") {
  SECTION("DontLend sets a zero lendingLimit on every resource") {
    // Setup: one whole ml.g5.8xlarge, DontLend. Expect: borrowing and lending limits 0 (docs/hyperpod.md §5).
    const Translation t = TranslateText(R"(kind: ComputeQuota
metadata: {name: closed}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g5.8xlarge, Count: 1}]
  ResourceSharingConfig: {Strategy: DontLend}
computeQuotaTarget: {TeamName: closed}
)");
    const std::string text = RenderKueueObjects(t);
    CHECK(HasLine(text,
                  "      - {name: nvidia.com/gpu, nominalQuota: \"1\", borrowingLimit: \"0\", "
                  "lendingLimit: \"0\"}"));
    CHECK(HasLine(text,
                  "      - {name: memory, nominalQuota: 128Gi, borrowingLimit: \"0\", "
                  "lendingLimit: \"0\"}"));
    CHECK(HasLine(text, "    weight: \"0\""));  // FairShareWeight defaults to 0, written anyway
    const std::vector<ObjectSpec> back = SpecsOf(ReadBack(text));
    CHECK(WriteManifest(back) == WriteManifest(t.objects));
  }
  SECTION("a disabled allocation holds its ClusterQueue and relabels its namespace") {
    // Setup: ActivationState Disabled. Expect: `stopPolicy: Hold` on the ClusterQueue (docs/hyperpod.md §2.3 library
    // rule) and `activate-quota: Disabled` on the namespace.
    const Translation t = TranslateText(R"(kind: ComputeQuota
metadata: {name: paused}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g5.8xlarge, Count: 1}]
  ResourceSharingConfig: {Strategy: LendAndBorrow}
computeQuotaTarget: {TeamName: paused, FairShareWeight: 1}
activationState: Disabled
)");
    const std::string text = RenderKueueObjects(t);
    CHECK(HasLine(text, "  stopPolicy: Hold"));
    CHECK(HasLine(text, "    sagemaker.amazonaws.com/activate-quota: Disabled"));
    CHECK(HasLine(text, "    weight: \"1\""));  // Kueue's default weight, still written
    const std::vector<ObjectSpec> back = SpecsOf(ReadBack(text));
    CHECK(Get<ClusterQueueSpec>(back, 2).stop_policy == StopPolicy::kHold);
  }
  SECTION("priority classes become WorkloadPriorityClasses with a top-level value") {
    // Setup: task ranking with two classes. Expect: `<name>-priority`, `value` = Weight (docs/hyperpod.md §2.5).
    const Translation t = TranslateText(R"(kind: ClusterSchedulerConfig
metadata: {name: ranking}
schedulerConfig:
  PriorityClasses: [{Name: inference, Weight: 90}, {Name: training, Weight: 70}]
---
kind: ComputeQuota
metadata: {name: a}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g5.8xlarge, Count: 1}]
computeQuotaTarget: {TeamName: a}
)");
    const std::string text = RenderKueueObjects(t);
    CHECK(text.find("apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata:\n"
                    "  name: inference-priority\nvalue: 90\n") != std::string::npos);
    CHECK(text.find("  name: training-priority\nvalue: 70\n") != std::string::npos);
    const std::vector<ObjectSpec> back = SpecsOf(ReadBack(text));
    CHECK(Get<WorkloadPriorityClassSpec>(back, 2).value == 90);
    CHECK(Get<WorkloadPriorityClassSpec>(back, 3).value == 70);
  }
}

TEST_CASE("RenderKueueConfiguration: the fairSharing fragment of docs/hyperpod.md §2.8", "[hyperpod][render]") {
  SECTION("FairShare Enabled: fair sharing on with Kueue's default strategies") {
    const Translation t = TranslateText(R"(kind: ClusterSchedulerConfig
metadata: {name: fair}
schedulerConfig: {FairShare: Enabled}
)");
    REQUIRE(t.fair_sharing.enabled);
    CHECK(RenderKueueConfiguration(t.fair_sharing) ==
          "fairSharing:\n"
          "  enable: true\n"
          "  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]\n");
    CHECK(RenderKueueConfiguration(t.fair_sharing, OutputFormat::kJson) ==
          "{\n"
          "  \"fairSharing\": {\n"
          "    \"enable\": true,\n"
          "    \"preemptionStrategies\": [\n"
          "      \"LessThanOrEqualToFinalShare\",\n"
          "      \"LessThanInitialShare\"\n"
          "    ]\n"
          "  }\n"
          "}\n");
  }
  SECTION("FairShare Disabled: fair sharing off, no strategies") {
    const Translation t = TranslateText(R"(kind: ClusterSchedulerConfig
metadata: {name: fifo}
schedulerConfig: {FairShare: Disabled}
---
kind: ComputeQuota
metadata: {name: a}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g5.8xlarge, Count: 1}]
computeQuotaTarget: {TeamName: a}
)");
    REQUIRE_FALSE(t.fair_sharing.enabled);
    CHECK(RenderKueueConfiguration(t.fair_sharing) == "fairSharing:\n  enable: false\n");
    const std::string text = RenderKueueObjects(t);
    CHECK(HasLine(text, "#   enable: false"));
    CHECK(text.find("preemptionStrategies") == std::string::npos);
  }
  SECTION("strategies are written in the configured order") {
    const FairSharingConfig config{
        .enabled = true, .preemption_strategies = {FairSharingStrategy::kLessThanInitialShare}, .historical = {}};
    CHECK(RenderKueueConfiguration(config) ==
          "fairSharing:\n  enable: true\n  preemptionStrategies: [LessThanInitialShare]\n");
  }
}

TEST_CASE("WriteManifest: the v1beta1 option for the other kinds; v1beta2 stays the default",
          "[hyperpod][render][io]") {
  CohortSpec cohort{.name = "research", .parent = "org", .resource_groups = {},
                    .fair_sharing_weight_milli = kDefaultWeightMilli};
  ClusterQueueSpec cq;
  cq.name = "team-a";
  cq.cohort = "research";
  cq.namespace_selector = LabelSelector{};
  cq.flavor_fungibility.preference = FungibilityPreference::kPreemptionOverBorrowing;
  WorkloadPriorityClassSpec pc;
  pc.name = "high";
  pc.value = 1000;
  WorkloadSpec wl;
  wl.namespace_ = "team-a";
  wl.name = "job";
  wl.queue_name = "jobs";
  wl.priority_class = {.source = PriorityClassSource::kWorkloadPriorityClass, .name = "high"};
  wl.pod_sets.push_back(PodSetSpec{});
  wl.pod_sets.back().requests = {{"cpu", 2000}};
  const std::vector<ObjectSpec> objects = {cohort, cq, pc, wl};

  SECTION("v1beta1 uses its own field names and enum values") {
    // Setup: a child Cohort, a ClusterQueue with default fungibility and a preference, a Workload
    // with a WorkloadPriorityClass. Expect: `parent`, `cohort`, `Borrow`, no `preference` (v1beta1
    // has none), `priorityClassSource`/`priorityClassName`.
    const std::string text = WriteManifest(objects, {.api_version = KueueApiVersion::kV1beta1});
    CHECK(HasLine(text, "  parent: org"));
    CHECK(HasLine(text, "  cohort: research"));
    CHECK(HasLine(text, "    whenCanBorrow: Borrow"));
    CHECK(HasLine(text, "    whenCanPreempt: TryNextFlavor"));
    CHECK(text.find("preference") == std::string::npos);
    CHECK(HasLine(text, "  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass"));
    CHECK(HasLine(text, "  priorityClassName: high"));
    CHECK(text.find("v1beta2") == std::string::npos);
    const std::vector<ObjectSpec> back = SpecsOf(ReadBack(text));
    REQUIRE(back.size() == objects.size());
    CHECK(Get<CohortSpec>(back, 0).parent == "org");
    CHECK(Get<ClusterQueueSpec>(back, 1).cohort == "research");
    CHECK(Get<ClusterQueueSpec>(back, 1).flavor_fungibility.when_can_borrow ==
          FungibilityPolicy::kMayStopSearch);
    CHECK(Get<WorkloadSpec>(back, 3).priority_class.name == "high");
    CHECK(Get<WorkloadSpec>(back, 3).priority_class.source ==
          PriorityClassSource::kWorkloadPriorityClass);
  }
  SECTION("the default is unchanged v1beta2") {
    // Expect: `parentName`, `cohortName`, `MayStopSearch` in flow style, `priorityClassRef`.
    const std::string text = WriteManifest(objects);
    CHECK(HasLine(text, "apiVersion: kueue.x-k8s.io/v1beta2"));
    CHECK(HasLine(text, "  parentName: org"));
    CHECK(HasLine(text, "  cohortName: research"));
    CHECK(HasLine(text,
                  "  flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: "
                  "TryNextFlavor, preference: PreemptionOverBorrowing}"));
    CHECK(text.find("priorityClassRef") != std::string::npos);
    CHECK(text.find("v1beta1") == std::string::npos);
  }
}

}  // namespace
}  // namespace render_test
}  // namespace qm::hyperpod
