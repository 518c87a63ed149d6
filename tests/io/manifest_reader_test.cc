// ReadManifestString: every error path names file:line, object and field; and the shapes Kueue
// users write (v1beta1 and v1beta2, multi-document streams, kind: List, pod templates) read right.
#include <catch2/catch.hpp>

#include <string>
#include <variant>

#include "qm/core/quantity.h"
#include "qm/io/manifest.h"

namespace qm {
namespace manifest_reader_test {
namespace {

std::string ErrorOf(std::string_view yaml) {
  absl::StatusOr<Manifest> m = ReadManifestString(yaml, "cluster.yaml");
  if (m.ok()) return "<no error>";
  return std::string(m.status().message());
}

Manifest Read(std::string_view yaml) {
  absl::StatusOr<Manifest> m = ReadManifestString(yaml, "cluster.yaml");
  INFO(m.status().message());
  REQUIRE(m.ok());
  return *std::move(m);
}

template <class T>
const T& Get(const Manifest& m, size_t i) {
  REQUIRE(i < m.objects.size());
  const T* spec = std::get_if<T>(&m.objects[i].spec);
  REQUIRE(spec != nullptr);
  return *spec;
}

constexpr std::string_view kClusterQueueHead = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: eng-alpha
spec:
)";

TEST_CASE("ReadManifest: errors name file, line, object and field", "[io][manifest]") {
  SECTION("malformed YAML") {
    // Setup: an unterminated flow sequence. Expect: yaml-cpp's message at its line.
    CHECK(ErrorOf("kind: Namespace\nmetadata: {name: [a, b\n") ==
          "cluster.yaml:3: malformed YAML: end of sequence flow not found");
  }
  SECTION("a field of the wrong type") {
    // Setup: spec is a list. Expect: "expected a map, got a list" at spec's line.
    CHECK(ErrorOf(std::string(kClusterQueueHead) + "  - a\n") ==
          "cluster.yaml:5: ClusterQueue/eng-alpha: spec: expected a map, got a list");
  }
  SECTION("a scalar where a list is expected") {
    CHECK(ErrorOf(std::string(kClusterQueueHead) + "  resourceGroups: cpu\n") ==
          "cluster.yaml:6: ClusterQueue/eng-alpha: spec.resourceGroups: expected a list, got the "
          "string \"cpu\"");
  }
  SECTION("a bad enum value lists the allowed ones") {
    CHECK(ErrorOf(std::string(kClusterQueueHead) + "  queueingStrategy: Fifo\n") ==
          "cluster.yaml:6: ClusterQueue/eng-alpha: spec.queueingStrategy: \"Fifo\" is not one of "
          "BestEffortFIFO, StrictFIFO");
    CHECK(ErrorOf(std::string(kClusterQueueHead) +
                  "  preemption: {withinClusterQueue: Always}\n") ==
          "cluster.yaml:6: ClusterQueue/eng-alpha: spec.preemption.withinClusterQueue: \"Always\" "
          "is not one of Never, LowerPriority, LowerOrNewerEqualPriority");
  }
  SECTION("v1beta1's legacy fungibility values are rejected in v1beta2") {
    CHECK(ErrorOf(std::string(kClusterQueueHead) + "  flavorFungibility: {whenCanBorrow: Borrow}\n") ==
          "cluster.yaml:6: ClusterQueue/eng-alpha: spec.flavorFungibility.whenCanBorrow: "
          "\"Borrow\" is not one of MayStopSearch, TryNextFlavor");
  }
  const std::string quota_head = std::string(kClusterQueueHead) + R"(  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: on-demand
      resources:
      - name: cpu
        nominalQuota: "4"
    - name: spot
      resources:
      - name: cpu
)";
  SECTION("a quota that is not a quantity") {
    // Expect: the brief's example, line 16 is the second flavor's nominalQuota.
    CHECK(ErrorOf(quota_head + "        nominalQuota: 12x\n") ==
          "cluster.yaml:16: ClusterQueue/eng-alpha: "
          "spec.resourceGroups[0].flavors[1].resources[0].nominalQuota: \"12x\" is not a quantity");
  }
  SECTION("a negative quota") {
    CHECK(ErrorOf(quota_head + "        nominalQuota: \"-1\"\n") ==
          "cluster.yaml:16: ClusterQueue/eng-alpha: "
          "spec.resourceGroups[0].flavors[1].resources[0].nominalQuota: \"-1\" must not be "
          "negative");
  }
  SECTION("an overflowing quota is unlimited, as in Kueue (manifest_errors_test.cc)") {
    CHECK(ErrorOf(quota_head + "        nominalQuota: 1e30\n") == "<no error>");
  }
  SECTION("a missing nominal quota") {
    CHECK(ErrorOf(quota_head + "        borrowingLimit: \"1\"\n") ==
          "cluster.yaml:15: ClusterQueue/eng-alpha: "
          "spec.resourceGroups[0].flavors[1].resources[0].nominalQuota: is required");
  }
  SECTION("a negative borrowing limit") {
    CHECK(ErrorOf(quota_head + "        nominalQuota: \"1\"\n        borrowingLimit: -2\n") ==
          "cluster.yaml:17: ClusterQueue/eng-alpha: "
          "spec.resourceGroups[0].flavors[1].resources[0].borrowingLimit: \"-2\" must not be "
          "negative");
  }
  SECTION("a fair-sharing weight below 0.001") {
    CHECK(ErrorOf(std::string(kClusterQueueHead) + "  fairSharing: {weight: \"0.0001\"}\n") ==
          "cluster.yaml:6: ClusterQueue/eng-alpha: spec.fairSharing.weight: \"0.0001\" must be 0 "
          "or at least 0.001");
    CHECK(ErrorOf(std::string(kClusterQueueHead) + "  fairSharing: {weight: \"-1\"}\n") ==
          "cluster.yaml:6: ClusterQueue/eng-alpha: spec.fairSharing.weight: \"-1\" must not be "
          "negative");
  }
  SECTION("a missing metadata.name") {
    CHECK(ErrorOf("kind: ResourceFlavor\nmetadata:\n  labels: {a: b}\n") ==
          "cluster.yaml:2: ResourceFlavor: metadata.name: is required");
    CHECK(ErrorOf("kind: ResourceFlavor\nspec: {}\n") ==
          "cluster.yaml:1: ResourceFlavor: metadata: is required");
  }
  SECTION("a missing LocalQueue spec.clusterQueue") {
    CHECK(ErrorOf("kind: LocalQueue\nmetadata: {name: main, namespace: team-a}\nspec: {}\n") ==
          "cluster.yaml:3: LocalQueue/team-a/main: spec.clusterQueue: is required");
  }
  SECTION("the same object twice") {
    // Expect: the second one is reported, pointing at the first.
    CHECK(ErrorOf("kind: ResourceFlavor\nmetadata: {name: spot}\n---\nkind: Namespace\n"
                  "metadata: {name: spot}\n---\nkind: ResourceFlavor\nmetadata: {name: spot}\n") ==
          "cluster.yaml:7: ResourceFlavor/spot: duplicate object (first defined at cluster.yaml:1)");
  }
  SECTION("a key twice in one map") {
    CHECK(ErrorOf("kind: LocalQueue\nmetadata: {name: main}\nspec:\n  clusterQueue: a\n"
                  "  clusterQueue: b\n") ==
          "cluster.yaml:5: LocalQueue/default/main: spec.clusterQueue: duplicate key");
  }
  SECTION("a known kind in a foreign API version") {
    CHECK(ErrorOf("apiVersion: batch/v1\nkind: Workload\nmetadata: {name: w}\n") ==
          "cluster.yaml:1: Workload: apiVersion: \"batch/v1\" is not an API version of Workload "
          "(expected kueue.x-k8s.io/v1beta2 or kueue.x-k8s.io/v1beta1)");
  }
  SECTION("an unknown kind without apiVersion, or in Kueue's group") {
    CHECK(ErrorOf("kind: ClusterQeue\nmetadata: {name: a}\n") ==
          "cluster.yaml:1: kind: unknown kind \"ClusterQeue\" (qm reads Namespace, ResourceFlavor, "
          "Cohort, ClusterQueue, LocalQueue, WorkloadPriorityClass, PriorityClass, Workload)");
    CHECK_THAT(ErrorOf("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQeue\nmetadata: {name: a}\n"),
               Catch::StartsWith("cluster.yaml:2: kind: unknown kind \"LocalQeue\""));
  }
  SECTION("a missing kind") {
    CHECK(ErrorOf("metadata: {name: a}\n") == "cluster.yaml:1: kind: is required");
  }
  SECTION("a document that is not an object") {
    CHECK(ErrorOf("just text\n") ==
          "cluster.yaml:1: expected an object (a map with kind and metadata), got the string "
          "\"just text\"");
  }
  const std::string workload_head = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: job, namespace: team-a}
spec:
  queueName: main
  podSets:
  - name: main
)";
  SECTION("pod-set requests together with a template") {
    CHECK(ErrorOf(workload_head + "    requests: {cpu: \"1\"}\n    template: {spec: {}}\n") ==
          "cluster.yaml:8: Workload/team-a/job: spec.podSets[0].requests: cannot be used together "
          "with template (write the requests in a container)");
  }
  SECTION("a request that is not a quantity") {
    CHECK(ErrorOf(workload_head + "    template:\n      spec:\n        containers:\n"
                                  "        - resources: {requests: {memory: lots}}\n") ==
          "cluster.yaml:11: Workload/team-a/job: "
          "spec.podSets[0].template.spec.containers[0].resources.requests[memory]: \"lots\" is not "
          "a quantity");
  }
  SECTION("a negative count") {
    CHECK(ErrorOf(workload_head + "    count: -1\n") ==
          "cluster.yaml:8: Workload/team-a/job: spec.podSets[0].count: -1 is out of range [0, "
          "2147483647]");
  }
  SECTION("a non-integer priority") {
    CHECK(ErrorOf(R"(kind: Workload
metadata: {name: job}
spec:
  priority: high
  podSets: [{requests: {cpu: "1"}}]
)") == "cluster.yaml:4: Workload/default/job: spec.priority: \"high\" is not an integer");
  }
  SECTION("a bad boolean") {
    CHECK(ErrorOf(workload_head + "    count: 1\n  active: maybe\n") ==
          "cluster.yaml:9: Workload/team-a/job: spec.active: \"maybe\" is not a boolean (true or "
          "false)");
  }
  SECTION("a bad timestamp") {
    CHECK(ErrorOf("kind: Workload\nmetadata: {name: job, creationTimestamp: yesterday}\n"
                  "spec: {podSets: [{requests: {cpu: \"1\"}}]}\n") ==
          "cluster.yaml:2: Workload/default/job: metadata.creationTimestamp: \"yesterday\" is not "
          "an RFC 3339 timestamp (want YYYY-MM-DDTHH:MM:SSZ)");
  }
  SECTION("a priorityClassRef of an unknown kind") {
    CHECK(ErrorOf(workload_head + "    count: 1\n  priorityClassRef: {group: x.io, kind: Prio, name: p}\n") ==
          "cluster.yaml:9: Workload/team-a/job: spec.priorityClassRef: group \"x.io\" and kind "
          "\"Prio\" name no priority class (expected kueue.x-k8s.io WorkloadPriorityClass or "
          "scheduling.k8s.io PriorityClass)");
  }
  SECTION("a priorityClassName without its source") {
    CHECK(ErrorOf(workload_head + "    count: 1\n  priorityClassName: high\n") ==
          "cluster.yaml:4: Workload/team-a/job: spec.priorityClassSource: is required with "
          "priorityClassName (kueue.x-k8s.io/workloadpriorityclass or "
          "scheduling.k8s.io/priorityclass)");
  }
  SECTION("a condition status that is not True/False/Unknown") {
    CHECK(ErrorOf(workload_head + "    count: 1\nstatus:\n  conditions:\n"
                                  "  - {type: QuotaReserved, status: yes}\n") ==
          "cluster.yaml:11: Workload/team-a/job: status.conditions[0].status: \"yes\" is not one "
          "of True, False, Unknown");
  }
  SECTION("a missing admission clusterQueue") {
    CHECK(ErrorOf(workload_head + "    count: 1\nstatus:\n  admission:\n    podSetAssignments: []\n") ==
          "cluster.yaml:10: Workload/team-a/job: status.admission.clusterQueue: is required");
  }
  SECTION("a node affinity operator that is not Kubernetes'") {
    CHECK(ErrorOf(workload_head + R"(    template:
      spec:
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions:
                - {key: zone, operator: Near, values: [a]}
)") == "cluster.yaml:15: Workload/team-a/job: spec.podSets[0].template.spec.affinity.nodeAffinity."
       "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]."
       "operator: \"Near\" is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt");
  }
  SECTION("an error inside a List item names the item's object") {
    CHECK(ErrorOf("apiVersion: v1\nkind: List\nitems:\n- kind: LocalQueue\n"
                  "  metadata: {name: q}\n  spec: {clusterQueue: [a]}\n") ==
          "cluster.yaml:6: LocalQueue/default/q: spec.clusterQueue: expected a string, got a list");
  }
  SECTION("a file that does not exist") {
    absl::StatusOr<Manifest> m = ReadManifestFile("/nonexistent/cluster.yaml");
    REQUIRE_FALSE(m.ok());
    CHECK(m.status().code() == absl::StatusCode::kNotFound);
    CHECK_THAT(std::string(m.status().message()),
               Catch::StartsWith("cannot read '/nonexistent/cluster.yaml'"));
  }
  SECTION("a failed load returns no objects even when earlier documents were fine") {
    absl::StatusOr<Manifest> m = ReadManifestString(
        "kind: ResourceFlavor\nmetadata: {name: a}\n---\nkind: ResourceFlavor\nmetadata: {}\n",
        "cluster.yaml");
    CHECK_FALSE(m.ok());
  }
}

TEST_CASE("ReadManifest: reads every kind in v1beta2 and v1beta1 shapes", "[io][manifest]") {
  const Manifest m = Read(R"(
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {team: a, dep: eng}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: gpu}
spec:
  nodeLabels: {node-type: gpu}
  nodeTaints: [{key: gpu, value: "true", effect: NoSchedule}]
  tolerations: [{key: spot, operator: Exists, effect: NoExecute}]
---
apiVersion: kueue.x-k8s.io/v1alpha1
kind: Cohort
metadata: {name: child}
spec:
  parent: root
  fairSharing: {weight: "0.5"}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: a}
spec:
  cohort: child
  namespaceSelector:
    matchLabels: {dep: eng}
    matchExpressions: [{key: team, operator: In, values: [a, b]}]
  queueingStrategy: StrictFIFO
  flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}
  preemption:
    withinClusterQueue: LowerOrNewerEqualPriority
    reclaimWithinCohort: Any
    borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: gpu
      resources:
      - {name: cpu, nominalQuota: 10, borrowingLimit: "2500m"}
      - {name: memory, nominalQuota: 64Gi, lendingLimit: 32Gi}
  stopPolicy: Hold
  someFutureField: ignored
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: main, namespace: team-a}
spec: {clusterQueue: a, stopPolicy: HoldAndDrain}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
description: important
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: -5
globalDefault: true
)");
  REQUIRE(m.objects.size() == 7);
  CHECK(m.notes.empty());
  CHECK(m.objects[0].source == "cluster.yaml:2");
  CHECK(m.objects[1].source == "cluster.yaml:6");

  const auto& ns = Get<NamespaceSpec>(m, 0);
  CHECK(ns.name == "team-a");
  CHECK(ns.labels == Labels{{"dep", "eng"}, {"team", "a"}});

  const auto& rf = Get<ResourceFlavorSpec>(m, 1);
  CHECK(rf.node_labels == Labels{{"node-type", "gpu"}});
  REQUIRE(rf.node_taints.size() == 1);
  CHECK(rf.node_taints[0].value == "true");
  REQUIRE(rf.tolerations.size() == 1);
  CHECK(rf.tolerations[0].op == Toleration::Operator::kExists);
  CHECK(rf.tolerations[0].effect == TaintEffect::kNoExecute);

  const auto& cohort = Get<CohortSpec>(m, 2);
  CHECK(cohort.parent == "root");
  CHECK(cohort.fair_sharing_weight_milli == 500);

  const auto& cq = Get<ClusterQueueSpec>(m, 3);
  CHECK(cq.cohort == "child");
  REQUIRE(cq.namespace_selector.has_value());
  CHECK(cq.namespace_selector->match_labels == Labels{{"dep", "eng"}});
  REQUIRE(cq.namespace_selector->match_expressions.size() == 1);
  CHECK(cq.namespace_selector->match_expressions[0].values == std::vector<std::string>{"a", "b"});
  CHECK(cq.queueing_strategy == QueueingStrategy::kStrictFIFO);
  CHECK(cq.flavor_fungibility.when_can_borrow == FungibilityPolicy::kMayStopSearch);
  CHECK(cq.flavor_fungibility.when_can_preempt == FungibilityPolicy::kMayStopSearch);
  CHECK(cq.preemption.within_cluster_queue == WithinClusterQueuePolicy::kLowerOrNewerEqualPriority);
  CHECK(cq.preemption.reclaim_within_cohort == ReclaimWithinCohortPolicy::kAny);
  CHECK(cq.preemption.borrow_within_cohort.policy == BorrowWithinCohortPolicy::kLowerPriority);
  CHECK(cq.preemption.borrow_within_cohort.max_priority_threshold == 100);
  REQUIRE(cq.resource_groups.size() == 1);
  const ResourceGroupSpec& group = cq.resource_groups[0];
  CHECK(group.covered_resources == std::vector<std::string>{"cpu", "memory"});
  REQUIRE(group.flavors.size() == 1);
  REQUIRE(group.flavors[0].resources.size() == 2);
  CHECK(group.flavors[0].resources[0].nominal_quota == 10000);  // milli-CPU
  CHECK(group.flavors[0].resources[0].borrowing_limit == 2500);
  CHECK_FALSE(group.flavors[0].resources[0].lending_limit.has_value());
  CHECK(group.flavors[0].resources[1].nominal_quota == int64_t{64} << 30);
  CHECK(group.flavors[0].resources[1].lending_limit == int64_t{32} << 30);
  CHECK(cq.stop_policy == StopPolicy::kHold);
  CHECK(cq.fair_sharing_weight_milli == kDefaultWeightMilli);

  const auto& lq = Get<LocalQueueSpec>(m, 4);
  CHECK(lq.namespace_ == "team-a");
  CHECK(lq.cluster_queue == "a");
  CHECK(lq.stop_policy == StopPolicy::kHoldAndDrain);

  const auto& wpc = Get<WorkloadPriorityClassSpec>(m, 5);
  CHECK(wpc.value == 1000);
  CHECK(wpc.description == "important");

  const auto& pc = Get<PriorityClassSpec>(m, 6);
  CHECK(pc.value == -5);
  CHECK(pc.global_default);
}

TEST_CASE("ReadManifest: ClusterQueue defaults and absent selectors", "[io][manifest]") {
  const Manifest m = Read(R"(
kind: ClusterQueue
metadata: {name: bare}
---
kind: ClusterQueue
metadata: {name: all}
spec:
  cohortName: c
  namespaceSelector: {}
  flavorFungibility: {whenCanBorrow: "", whenCanPreempt: MayStopSearch, preference: PreemptionOverBorrowing}
  fairSharing: {weight: "0"}
)");
  const auto& bare = Get<ClusterQueueSpec>(m, 0);
  // Setup: no spec at all. Expect: Kueue's defaults, and no namespace selector (matches nothing).
  CHECK_FALSE(bare.namespace_selector.has_value());
  CHECK(bare.queueing_strategy == QueueingStrategy::kBestEffortFIFO);
  CHECK(bare.flavor_fungibility.when_can_borrow == FungibilityPolicy::kMayStopSearch);
  CHECK(bare.flavor_fungibility.when_can_preempt == FungibilityPolicy::kTryNextFlavor);
  CHECK(bare.preemption.within_cluster_queue == WithinClusterQueuePolicy::kNever);
  const auto& all = Get<ClusterQueueSpec>(m, 1);
  REQUIRE(all.namespace_selector.has_value());
  CHECK(all.namespace_selector->match_labels.empty());
  CHECK(all.flavor_fungibility.when_can_borrow == FungibilityPolicy::kMayStopSearch);
  CHECK(all.flavor_fungibility.when_can_preempt == FungibilityPolicy::kMayStopSearch);
  CHECK(all.flavor_fungibility.preference == FungibilityPreference::kPreemptionOverBorrowing);
  CHECK(all.fair_sharing_weight_milli == 0);
}

TEST_CASE("ReadManifest: workloads", "[io][manifest]") {
  SECTION("pod template: containers, init containers, sidecars, limits and overhead") {
    // Setup: containers 1 + 2 cpu, an init container of 4 cpu, a sidecar of 500m started first,
    // limits-only memory, overhead of 100m. Expect: cpu = max(1+2+0.5, 0.5+4) + 0.1 = 4.6;
    // memory = 1Gi (from the limit, no request); nvidia.com/gpu = 1 (init only).
    const Manifest m = Read(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: train
  namespace: team-a
  uid: uid-1
  creationTimestamp: "2024-03-01T10:00:00Z"
  labels: {kueue.x-k8s.io/job-uid: job-1, app: x}
spec:
  queueName: main
  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}
  active: false
  podSets:
  - name: workers
    count: 4
    minCount: 2
    template:
      spec:
        initContainers:
        - name: sidecar
          restartPolicy: Always
          resources: {requests: {cpu: 500m}}
        - name: init
          resources: {requests: {cpu: "4", nvidia.com/gpu: 1}}
        containers:
        - resources: {requests: {cpu: "1"}, limits: {memory: 1Gi}}
        - resources: {requests: {cpu: "2"}}
        overhead: {cpu: 100m}
        nodeSelector: {zone: a}
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions:
                - {key: gpu, operator: Gt, values: ["2"]}
                - {key: spot, operator: DoesNotExist}
        tolerations:
        - {key: gpu, operator: Equal, value: "true", effect: NoSchedule}
)");
    const auto& wl = Get<WorkloadSpec>(m, 0);
    CHECK(wl.namespace_ == "team-a");
    CHECK(wl.uid == "uid-1");
    CHECK(wl.job_uid == "job-1");
    CHECK(wl.labels == Labels{{"app", "x"}, {"kueue.x-k8s.io/job-uid", "job-1"}});
    REQUIRE(wl.creation_time.has_value());
    CHECK(wl.creation_time->us == int64_t{1709287200} * 1000000);
    CHECK(wl.queue_name == "main");
    CHECK(wl.priority_class.source == PriorityClassSource::kWorkloadPriorityClass);
    CHECK(wl.priority_class.name == "high");
    CHECK_FALSE(wl.active);
    REQUIRE(wl.pod_sets.size() == 1);
    const PodSetSpec& ps = wl.pod_sets[0];
    CHECK(ps.name == "workers");
    CHECK(ps.count == 4);
    CHECK(ps.min_count == 2);
    CHECK(ps.requests ==
          ResourceAmounts{{"cpu", 4600}, {"memory", int64_t{1} << 30}, {"nvidia.com/gpu", 1}});
    CHECK(ps.node_selector == Labels{{"zone", "a"}});
    REQUIRE(ps.required_node_affinity.has_value());
    REQUIRE(ps.required_node_affinity->size() == 1);
    const auto& exprs = (*ps.required_node_affinity)[0].match_expressions;
    REQUIRE(exprs.size() == 2);
    CHECK(exprs[0].op == NodeSelectorRequirement::Operator::kGt);
    CHECK(exprs[1].op == NodeSelectorRequirement::Operator::kDoesNotExist);
    REQUIRE(ps.tolerations.size() == 1);
    CHECK(ps.tolerations[0].effect == TaintEffect::kNoSchedule);
  }
  SECTION("shorthand requests, defaults, clamping, v1beta1 priority class") {
    // Setup: no namespace, no pod-set name or count, a request too large for int64 milli-CPU and
    // a negative one. Expect: default/…, "main", count 1, clamped to INT64_MAX, floored to 0.
    const Manifest m = Read(R"(
- kind: Workload
  metadata: {name: big, creationTimestamp: "0001-01-01T00:00:00Z"}
  spec:
    priority: -3
    priorityClassName: low
    priorityClassSource: scheduling.k8s.io/priorityclass
    podSets:
    - requests: {cpu: "9223372036854776", memory: "-1"}
)");
    const auto& wl = Get<WorkloadSpec>(m, 0);
    CHECK(wl.namespace_ == "default");
    CHECK(wl.priority == -3);
    CHECK(wl.priority_class.source == PriorityClassSource::kPriorityClass);
    CHECK(wl.creation_time->us == int64_t{-62135596800} * 1000000);
    REQUIRE(wl.pod_sets.size() == 1);
    CHECK(wl.pod_sets[0].name == "main");
    CHECK(wl.pod_sets[0].count == 1);
    CHECK(wl.pod_sets[0].requests == ResourceAmounts{{"cpu", kUnlimited}, {"memory", 0}});
    CHECK(wl.active);
  }
  SECTION("status: admission, conditions, reclaimable pods") {
    const Manifest m = Read(R"(
kind: Workload
metadata: {name: running, namespace: ns}
spec:
  podSets: [{name: main, count: 2, requests: {cpu: "1"}}]
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      flavors: {cpu: default}
      resourceUsage: {cpu: 2000m}
      count: 2
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: ok, lastTransitionTime: "2024-01-01T00:00:05Z"}
  - {type: Evicted, status: "False"}
  reclaimablePods: [{name: main, count: 1}]
)");
    const auto& wl = Get<WorkloadSpec>(m, 0);
    REQUIRE(wl.admission.has_value());
    CHECK(wl.admission->cluster_queue == "cq");
    REQUIRE(wl.admission->pod_set_assignments.size() == 1);
    const PodSetAssignmentSpec& psa = wl.admission->pod_set_assignments[0];
    CHECK(psa.flavors == std::vector<std::pair<std::string, std::string>>{{"cpu", "default"}});
    CHECK(psa.resource_usage == ResourceAmounts{{"cpu", 2000}});
    CHECK(psa.count == 2);
    REQUIRE(wl.conditions.size() == 2);
    CHECK(wl.conditions[0].status);
    CHECK(wl.conditions[0].reason == "QuotaReserved");
    CHECK(wl.conditions[0].last_transition_time->us == (int64_t{1704067200} + 5) * 1000000);
    CHECK_FALSE(wl.conditions[1].status);
    CHECK(wl.reclaimable_pods == std::vector<std::pair<std::string, int32_t>>{{"main", 1}});
  }
}

TEST_CASE("ReadManifest: streams, Lists and foreign objects", "[io][manifest]") {
  SECTION("kind: List as kubectl writes it, with foreign kinds skipped") {
    const Manifest m = Read(R"(apiVersion: v1
kind: List
items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ResourceFlavor
  metadata: {name: a}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: sample, namespace: team-a}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: AdmissionCheck
  metadata: {name: prov}
metadata: {resourceVersion: ""}
)");
    REQUIRE(m.objects.size() == 1);
    CHECK(m.objects[0].source == "cluster.yaml:4");
    CHECK(m.notes == std::vector<std::string>{
                         "cluster.yaml:7: skipped batch/v1 Job/team-a/sample (qm reads only "
                         "Kueue's queueing objects)",
                         "cluster.yaml:10: skipped kueue.x-k8s.io/v1beta2 AdmissionCheck/prov (qm "
                         "reads only Kueue's queueing objects)"});
  }
  SECTION("empty documents and a trailing separator are fine") {
    const Manifest m = Read("---\n# nothing\n---\nkind: Namespace\nmetadata: {name: a}\n---\n");
    REQUIRE(m.objects.size() == 1);
    CHECK(m.objects[0].source == "cluster.yaml:4");
  }
  SECTION("the same name in different kinds or namespaces is not a duplicate") {
    const Manifest m = Read(R"(
- {kind: LocalQueue, metadata: {name: q, namespace: a}, spec: {clusterQueue: x}}
- {kind: LocalQueue, metadata: {name: q, namespace: b}, spec: {clusterQueue: x}}
- {kind: ClusterQueue, metadata: {name: q}}
)");
    CHECK(m.objects.size() == 3);
  }
}

TEST_CASE("ObjectDisplayName: kind, namespace and name", "[io][manifest]") {
  ClusterQueueSpec cq;
  cq.name = "eng";
  CHECK(ObjectDisplayName(cq) == "ClusterQueue/eng");
  WorkloadSpec wl;
  wl.name = "job";
  CHECK(ObjectDisplayName(wl) == "Workload/default/job");
  wl.namespace_ = "team-a";
  CHECK(ObjectDisplayName(wl) == "Workload/team-a/job");
  CHECK(KindOf(wl) == ObjectKind::kWorkload);
}

}  // namespace
}  // namespace manifest_reader_test
}  // namespace qm
