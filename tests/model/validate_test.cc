// Field-level validation (qm/model/validate.h): one test per rule, each checking the exact message,
// which names the object and the field (docs/semantics.md §1.8, Kueue's webhooks).
#include "qm/model/validate.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace qm {
namespace validate_test {
namespace {

template <class Spec>
std::string ErrorOf(const Spec& spec) {
  const absl::Status st = Validate(spec);
  if (st.ok()) return "<ok>";
  CHECK(st.code() == absl::StatusCode::kInvalidArgument);
  return std::string(st.message());
}

ResourceQuotaSpec Quota(std::string name, int64_t nominal) {
  ResourceQuotaSpec q;
  q.name = std::move(name);
  q.nominal_quota = nominal;
  return q;
}

// A valid ClusterQueue `eng` in cohort `pool`: one group {cpu, memory}, flavors on-demand and spot.
ClusterQueueSpec ValidQueue() {
  ClusterQueueSpec cq;
  cq.name = "eng";
  cq.cohort = "pool";
  cq.namespace_selector = LabelSelector{};
  ResourceGroupSpec g;
  g.covered_resources = {"cpu", "memory"};
  g.flavors.push_back(FlavorQuotasSpec{"on-demand", {Quota("cpu", 4000), Quota("memory", 1 << 30)}});
  g.flavors.push_back(FlavorQuotasSpec{"spot", {Quota("cpu", 8000), Quota("memory", 1 << 30)}});
  cq.resource_groups.push_back(std::move(g));
  return cq;
}

CohortSpec ValidCohort() {
  CohortSpec c;
  c.name = "pool";
  c.parent = "root";
  ResourceGroupSpec g;
  g.covered_resources = {"cpu"};
  g.flavors.push_back(FlavorQuotasSpec{"on-demand", {Quota("cpu", 4000)}});
  c.resource_groups.push_back(std::move(g));
  return c;
}

WorkloadSpec ValidWorkload() {
  WorkloadSpec w;
  w.namespace_ = "team-a";
  w.name = "job";
  w.queue_name = "main";
  PodSetSpec ps;
  ps.count = 2;
  ps.requests = {{"cpu", 1000}, {"memory", 1 << 20}};
  w.pod_sets.push_back(ps);
  return w;
}

TEST_CASE("Validate: the valid fixtures pass", "[model][validate]") {
  CHECK(ErrorOf(ValidQueue()) == "<ok>");
  CHECK(ErrorOf(ValidCohort()) == "<ok>");
  CHECK(ErrorOf(ValidWorkload()) == "<ok>");
  CHECK(ErrorOf(ResourceFlavorSpec{"on-demand", {{"instance", "m5"}}, {}, {}}) == "<ok>");
  CHECK(ErrorOf(LocalQueueSpec{"team-a", "main", "eng", StopPolicy::kNone, {}}) == "<ok>");
  CHECK(ErrorOf(NamespaceSpec{"team-a", {{"team", "a"}}}) == "<ok>");
}

// ---- Names -------------------------------------------------------------------------------------

TEST_CASE("Validate: metadata.name must not be empty", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.name = "";
  CHECK(ErrorOf(cq) == "ClusterQueue '': metadata.name: must not be empty");
  CHECK(ErrorOf(NamespaceSpec{"", {}}) == "Namespace '': metadata.name: must not be empty");
  CHECK(ErrorOf(ResourceFlavorSpec{}) == "ResourceFlavor '': metadata.name: must not be empty");
  CHECK(ErrorOf(WorkloadPriorityClassSpec{}) == "WorkloadPriorityClass '': metadata.name: must not be empty");
  CHECK(ErrorOf(PriorityClassSpec{}) == "PriorityClass '': metadata.name: must not be empty");
  CohortSpec c = ValidCohort();
  c.name = "";
  CHECK(ErrorOf(c) == "Cohort '': metadata.name: must not be empty");
  WorkloadSpec w = ValidWorkload();
  w.name = "";
  CHECK(ErrorOf(w) == "Workload 'team-a/': metadata.name: must not be empty");
  CHECK(ErrorOf(LocalQueueSpec{"", "", "eng", StopPolicy::kNone, {}}) ==
        "LocalQueue 'default/': metadata.name: must not be empty");
}

TEST_CASE("Validate: a name is at most 253 characters", "[model][validate]") {
  const std::string ok(253, 'a');
  const std::string long_name(254, 'a');
  CHECK(ErrorOf(NamespaceSpec{ok, {}}) == "<ok>");
  CHECK(ErrorOf(NamespaceSpec{long_name, {}}) ==
        "Namespace '" + long_name + "': metadata.name: must be at most 253 characters");
}

TEST_CASE("Validate: a name must not contain '/'", "[model][validate]") {
  CHECK(ErrorOf(ResourceFlavorSpec{"a/b", {}, {}, {}}) == "ResourceFlavor 'a/b': metadata.name: 'a/b' must not contain '/'");
}

TEST_CASE("Validate: a ClusterQueue's cohortName is a valid name", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.cohort = "x/y";
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.cohortName: 'x/y' must not contain '/'");
}

TEST_CASE("Validate: a LocalQueue names its ClusterQueue", "[model][validate]") {
  CHECK(ErrorOf(LocalQueueSpec{"team-a", "main", "", StopPolicy::kNone, {}}) ==
        "LocalQueue 'team-a/main': spec.clusterQueue: must not be empty");
  CHECK(ErrorOf(LocalQueueSpec{"team-a", "main", "a/b", StopPolicy::kNone, {}}) ==
        "LocalQueue 'team-a/main': spec.clusterQueue: 'a/b' must not contain '/'");
}

// ---- Labels ------------------------------------------------------------------------------------

TEST_CASE("Validate: a label key must not be empty", "[model][validate]") {
  CHECK(ErrorOf(NamespaceSpec{"team-a", {{"team", "a"}, {"", "x"}}}) ==
        "Namespace 'team-a': metadata.labels[1]: label key must not be empty");
  CHECK(ErrorOf(ResourceFlavorSpec{"spot", {{"", "x"}}, {}, {}}) ==
        "ResourceFlavor 'spot': spec.nodeLabels[0]: label key must not be empty");
}

TEST_CASE("Validate: a label key appears once", "[model][validate]") {
  CHECK(ErrorOf(NamespaceSpec{"team-a", {{"team", "a"}, {"team", "b"}}}) ==
        "Namespace 'team-a': metadata.labels: label 'team' appears twice");
  ClusterQueueSpec cq = ValidQueue();
  cq.labels = {{"k", "1"}, {"k", "2"}};
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': metadata.labels: label 'k' appears twice");
  WorkloadSpec w = ValidWorkload();
  w.labels = {{"k", "1"}, {"k", "2"}};
  CHECK(ErrorOf(w) == "Workload 'team-a/job': metadata.labels: label 'k' appears twice");
}

// ---- Resource groups ---------------------------------------------------------------------------

TEST_CASE("Validate: at most 16 resource groups", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups.clear();
  for (int i = 0; i < 17; ++i) {
    const std::string r = "r" + std::to_string(i);
    cq.resource_groups.push_back(ResourceGroupSpec{{r}, {FlavorQuotasSpec{"f" + std::to_string(i), {Quota(r, 1)}}}});
  }
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups: must have at most 16 items");
  cq.resource_groups.pop_back();
  CHECK(ErrorOf(cq) == "<ok>");
}

TEST_CASE("Validate: a resource group covers at least one resource", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups[0].covered_resources.clear();
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups[0].coveredResources: must have at least 1 item");
}

TEST_CASE("Validate: a resource group covers at most 64 resources", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  ResourceGroupSpec g;
  FlavorQuotasSpec f{"big", {}};
  for (int i = 0; i < 65; ++i) {
    g.covered_resources.push_back("r" + std::to_string(i));
    f.resources.push_back(Quota("r" + std::to_string(i), 1));
  }
  g.flavors.push_back(f);
  cq.resource_groups.push_back(g);
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups[1].coveredResources: must have at most 64 items");
}

TEST_CASE("Validate: a resource group has at least one flavor", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups[0].flavors.clear();
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups[0].flavors: must have at least 1 item");
}

TEST_CASE("Validate: a resource group has at most 64 flavors", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  ResourceGroupSpec g{{"gpu"}, {}};
  for (int i = 0; i < 65; ++i) g.flavors.push_back(FlavorQuotasSpec{"g" + std::to_string(i), {Quota("gpu", 1)}});
  cq.resource_groups.push_back(g);
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups[1].flavors: must have at most 64 items");
  cq.resource_groups[1].flavors.pop_back();
  CHECK(ErrorOf(cq) == "<ok>");
}

TEST_CASE("Validate: a covered resource name must not be empty", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups[0].covered_resources[1] = "";
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups[0].coveredResources[1]: must not be empty");
}

TEST_CASE("Validate: a resource is covered by one resource group only", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups.push_back(ResourceGroupSpec{{"gpu", "cpu"}, {FlavorQuotasSpec{"a100", {Quota("gpu", 8), Quota("cpu", 1000)}}}});
  CHECK(ErrorOf(cq) ==
        "ClusterQueue 'eng': spec.resourceGroups[1].coveredResources[1]: resource 'cpu' is covered by more than "
        "one resource group");
  // Within one group too.
  ClusterQueueSpec twice = ValidQueue();
  twice.resource_groups[0].covered_resources = {"cpu", "cpu"};
  CHECK(ErrorOf(twice) ==
        "ClusterQueue 'eng': spec.resourceGroups[0].coveredResources[1]: resource 'cpu' is covered by more than "
        "one resource group");
}

TEST_CASE("Validate: a flavor entry has a name", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups[0].flavors[1].name = "";
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups[0].flavors[1].name: must not be empty");
}

TEST_CASE("Validate: a flavor appears once across all resource groups", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups[0].flavors[1].name = "on-demand";
  CHECK(ErrorOf(cq) ==
        "ClusterQueue 'eng': spec.resourceGroups[0].flavors[1].name: flavor 'on-demand' appears more than once");
  ClusterQueueSpec across = ValidQueue();
  across.resource_groups.push_back(ResourceGroupSpec{{"gpu"}, {FlavorQuotasSpec{"spot", {Quota("gpu", 8)}}}});
  CHECK(ErrorOf(across) ==
        "ClusterQueue 'eng': spec.resourceGroups[1].flavors[0].name: flavor 'spot' appears more than once");
}

TEST_CASE("Validate: a flavor lists exactly the covered resources", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups[0].flavors[1].resources.pop_back();
  CHECK(ErrorOf(cq) ==
        "ClusterQueue 'eng': spec.resourceGroups[0].flavors[1].resources: must list the 2 covered resources, got 1");
}

TEST_CASE("Validate: a flavor lists the covered resources in order", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  std::swap(cq.resource_groups[0].flavors[0].resources[0], cq.resource_groups[0].flavors[0].resources[1]);
  CHECK(ErrorOf(cq) ==
        "ClusterQueue 'eng': spec.resourceGroups[0].flavors[0].resources[0].name: must be 'cpu' (the covered "
        "resources, in order), got 'memory'");
}

TEST_CASE("Validate: nominalQuota >= 0", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups[0].flavors[1].resources[0].nominal_quota = -1;
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups[0].flavors[1].resources[0].nominalQuota: must be >= 0");
  CohortSpec c = ValidCohort();
  c.resource_groups[0].flavors[0].resources[0].nominal_quota = -5;
  CHECK(ErrorOf(c) == "Cohort 'pool': spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: must be >= 0");
  cq.resource_groups[0].flavors[1].resources[0].nominal_quota = 0;
  CHECK(ErrorOf(cq) == "<ok>");
}

TEST_CASE("Validate: borrowingLimit >= 0", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups[0].flavors[0].resources[1].borrowing_limit = -1;
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups[0].flavors[0].resources[1].borrowingLimit: must be >= 0");
  cq.resource_groups[0].flavors[0].resources[1].borrowing_limit = 0;
  CHECK(ErrorOf(cq) == "<ok>");
}

TEST_CASE("Validate: borrowingLimit only with a cohort (ClusterQueue) or parent (Cohort)", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.cohort = "";
  cq.resource_groups[0].flavors[0].resources[0].borrowing_limit = 1000;
  CHECK(ErrorOf(cq) ==
        "ClusterQueue 'eng': spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: must be unset when the "
        "ClusterQueue has no cohort");
  CohortSpec c = ValidCohort();
  c.parent = "";
  c.resource_groups[0].flavors[0].resources[0].borrowing_limit = 1000;
  CHECK(ErrorOf(c) ==
        "Cohort 'pool': spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: must be unset when the "
        "Cohort has no parent");
}

TEST_CASE("Validate: lendingLimit >= 0", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups[0].flavors[0].resources[0].lending_limit = -1;
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: must be >= 0");
  CohortSpec c = ValidCohort();
  c.resource_groups[0].flavors[0].resources[0].lending_limit = -1;
  CHECK(ErrorOf(c) == "Cohort 'pool': spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: must be >= 0");
}

TEST_CASE("Validate: a ClusterQueue's lendingLimit needs a cohort", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.cohort = "";
  cq.resource_groups[0].flavors[0].resources[0].lending_limit = 1000;
  CHECK(ErrorOf(cq) ==
        "ClusterQueue 'eng': spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: must be unset when the "
        "ClusterQueue has no cohort");
  // A root Cohort may set a lendingLimit (it limits nothing, but Kueue's webhook allows it).
  CohortSpec c = ValidCohort();
  c.parent = "";
  c.resource_groups[0].flavors[0].resources[0].lending_limit = 1000;
  CHECK(ErrorOf(c) == "<ok>");
}

TEST_CASE("Validate: a ClusterQueue's lendingLimit <= nominalQuota (not so for a Cohort)", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups[0].flavors[0].resources[0].lending_limit = 4001;
  CHECK(ErrorOf(cq) ==
        "ClusterQueue 'eng': spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: must be less than or "
        "equal to the nominalQuota");
  cq.resource_groups[0].flavors[0].resources[0].lending_limit = 4000;
  CHECK(ErrorOf(cq) == "<ok>");
  CohortSpec c = ValidCohort();
  c.resource_groups[0].flavors[0].resources[0].lending_limit = 9000;
  CHECK(ErrorOf(c) == "<ok>");
}

TEST_CASE("Validate: at most 256 flavors per ClusterQueue", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups.clear();
  for (int g = 0; g < 5; ++g) {  // 5 groups × 52 flavors = 260
    const std::string r = "r" + std::to_string(g);
    ResourceGroupSpec group{{r}, {}};
    for (int f = 0; f < 52; ++f)
      group.flavors.push_back(FlavorQuotasSpec{"f" + std::to_string(g) + "-" + std::to_string(f), {Quota(r, 1)}});
    cq.resource_groups.push_back(group);
  }
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups: must have at most 256 flavors");
}

TEST_CASE("Validate: at most 256 covered resources per ClusterQueue", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.resource_groups.clear();
  for (int g = 0; g < 5; ++g) {  // 5 groups × 52 resources = 260
    ResourceGroupSpec group;
    FlavorQuotasSpec f{"f" + std::to_string(g), {}};
    for (int r = 0; r < 52; ++r) {
      const std::string name = "r" + std::to_string(g) + "-" + std::to_string(r);
      group.covered_resources.push_back(name);
      f.resources.push_back(Quota(name, 1));
    }
    group.flavors.push_back(f);
    cq.resource_groups.push_back(group);
  }
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.resourceGroups: must cover at most 256 resources");
}

// ---- ClusterQueue policies ---------------------------------------------------------------------

TEST_CASE("Validate: flavorFungibility.preference needs both policies TryNextFlavor", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.flavor_fungibility.preference = FungibilityPreference::kPreemptionOverBorrowing;
  // Defaults: whenCanBorrow MayStopSearch, whenCanPreempt TryNextFlavor.
  CHECK(ErrorOf(cq) ==
        "ClusterQueue 'eng': spec.flavorFungibility.preference: may only be set when whenCanBorrow and "
        "whenCanPreempt are both TryNextFlavor");
  cq.flavor_fungibility.when_can_borrow = FungibilityPolicy::kTryNextFlavor;
  CHECK(ErrorOf(cq) == "<ok>");
  cq.flavor_fungibility.when_can_preempt = FungibilityPolicy::kMayStopSearch;
  CHECK(ErrorOf(cq) != "<ok>");
}

TEST_CASE("Validate: borrowWithinCohort needs reclaimWithinCohort other than Never", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.preemption.borrow_within_cohort.policy = BorrowWithinCohortPolicy::kLowerPriority;
  CHECK(ErrorOf(cq) ==
        "ClusterQueue 'eng': spec.preemption.borrowWithinCohort.policy: must be Never when reclaimWithinCohort is "
        "Never");
  cq.preemption.reclaim_within_cohort = ReclaimWithinCohortPolicy::kLowerPriority;
  CHECK(ErrorOf(cq) == "<ok>");
}

TEST_CASE("Validate: fairSharing.weight >= 0", "[model][validate]") {
  ClusterQueueSpec cq = ValidQueue();
  cq.fair_sharing_weight_milli = -1;
  CHECK(ErrorOf(cq) == "ClusterQueue 'eng': spec.fairSharing.weight: must be >= 0");
  cq.fair_sharing_weight_milli = 0;  // zero is allowed
  CHECK(ErrorOf(cq) == "<ok>");
  CohortSpec c = ValidCohort();
  c.fair_sharing_weight_milli = -1000;
  CHECK(ErrorOf(c) == "Cohort 'pool': spec.fairSharing.weight: must be >= 0");
}

// ---- Cohort ------------------------------------------------------------------------------------

TEST_CASE("Validate: a Cohort's parentName is a valid name", "[model][validate]") {
  CohortSpec c = ValidCohort();
  c.parent = "a/b";
  CHECK(ErrorOf(c) == "Cohort 'pool': spec.parentName: 'a/b' must not contain '/'");
}

TEST_CASE("Validate: a Cohort cannot be its own parent", "[model][validate]") {
  CohortSpec c = ValidCohort();
  c.parent = "pool";
  CHECK(ErrorOf(c) == "Cohort 'pool': spec.parentName: a Cohort cannot be its own parent");
}

TEST_CASE("Validate: a Cohort's resource groups follow the ClusterQueue rules", "[model][validate]") {
  CohortSpec c = ValidCohort();
  c.resource_groups.push_back(ResourceGroupSpec{{"cpu"}, {FlavorQuotasSpec{"spot", {Quota("cpu", 1)}}}});
  CHECK(ErrorOf(c) ==
        "Cohort 'pool': spec.resourceGroups[1].coveredResources[0]: resource 'cpu' is covered by more than one "
        "resource group");
}

// ---- ResourceFlavor ----------------------------------------------------------------------------

TEST_CASE("Validate: a ResourceFlavor has at most 8 node labels, taints and tolerations", "[model][validate]") {
  ResourceFlavorSpec f{"spot", {}, {}, {}};
  for (int i = 0; i < 9; ++i) f.node_labels.emplace_back("k" + std::to_string(i), "v");
  CHECK(ErrorOf(f) == "ResourceFlavor 'spot': spec.nodeLabels: must have at most 8 items");
  f.node_labels.pop_back();
  CHECK(ErrorOf(f) == "<ok>");
  for (int i = 0; i < 9; ++i) f.node_taints.push_back(Taint{"t" + std::to_string(i), "", TaintEffect::kNoSchedule});
  CHECK(ErrorOf(f) == "ResourceFlavor 'spot': spec.nodeTaints: must have at most 8 items");
  f.node_taints.pop_back();
  for (int i = 0; i < 9; ++i) f.tolerations.push_back(Toleration{"t", Toleration::Operator::kExists, "", std::nullopt});
  CHECK(ErrorOf(f) == "ResourceFlavor 'spot': spec.tolerations: must have at most 8 items");
}

TEST_CASE("Validate: a taint has a key", "[model][validate]") {
  ResourceFlavorSpec f{"spot", {}, {Taint{"ok", "", TaintEffect::kNoSchedule}, Taint{"", "v", TaintEffect::kNoExecute}}, {}};
  CHECK(ErrorOf(f) == "ResourceFlavor 'spot': spec.nodeTaints[1].key: must not be empty");
}

// ---- Workload ----------------------------------------------------------------------------------

TEST_CASE("Validate: a Workload has 1 to 18 pod sets", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.pod_sets.clear();
  CHECK(ErrorOf(w) == "Workload 'team-a/job': spec.podSets: must have at least 1 item");
  for (int i = 0; i < 19; ++i) {
    PodSetSpec ps;
    ps.name = "ps" + std::to_string(i);
    w.pod_sets.push_back(ps);
  }
  CHECK(ErrorOf(w) == "Workload 'team-a/job': spec.podSets: must have at most 18 items");
  w.pod_sets.pop_back();
  CHECK(ErrorOf(w) == "<ok>");
}

TEST_CASE("Validate: the namespace of a Workload defaults to 'default' in messages", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.namespace_ = "";
  w.pod_sets.clear();
  CHECK(ErrorOf(w) == "Workload 'default/job': spec.podSets: must have at least 1 item");
}

TEST_CASE("Validate: a pod set has a name", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.pod_sets[0].name = "";
  CHECK(ErrorOf(w) == "Workload 'team-a/job': spec.podSets[0].name: must not be empty");
}

TEST_CASE("Validate: pod set names are unique", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.pod_sets.push_back(w.pod_sets[0]);
  CHECK(ErrorOf(w) == "Workload 'team-a/job': spec.podSets[1].name: pod set 'main' appears twice");
}

TEST_CASE("Validate: a pod set count >= 0", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.pod_sets[0].count = -1;
  CHECK(ErrorOf(w) == "Workload 'team-a/job': spec.podSets[0].count: must be >= 0");
  w.pod_sets[0].count = 0;
  CHECK(ErrorOf(w) == "<ok>");
}

TEST_CASE("Validate: 1 <= minCount <= count", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.pod_sets[0].min_count = 0;
  CHECK(ErrorOf(w) == "Workload 'team-a/job': spec.podSets[0].minCount: must be >= 1");
  w.pod_sets[0].min_count = 3;
  CHECK(ErrorOf(w) == "Workload 'team-a/job': spec.podSets[0].minCount: must be <= count");
  w.pod_sets[0].min_count = 2;
  CHECK(ErrorOf(w) == "<ok>");
  // Several pod sets with minCount are accepted (what Kueue's scheduler handles; see validate.h).
  PodSetSpec second = w.pod_sets[0];
  second.name = "workers";
  w.pod_sets.push_back(second);
  CHECK(ErrorOf(w) == "<ok>");
}

TEST_CASE("Validate: a request names its resource", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.pod_sets[0].requests.emplace_back("", 1);
  CHECK(ErrorOf(w) == "Workload 'team-a/job': spec.podSets[0].requests[2]: resource name must not be empty");
}

TEST_CASE("Validate: a resource is requested once per pod set", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.pod_sets[0].requests.emplace_back("cpu", 1);
  CHECK(ErrorOf(w) == "Workload 'team-a/job': spec.podSets[0].requests: resource 'cpu' appears twice");
}

TEST_CASE("Validate: an admission names its ClusterQueue", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.admission = AdmissionSpec{};
  CHECK(ErrorOf(w) == "Workload 'team-a/job': status.admission.clusterQueue: must not be empty");
}

TEST_CASE("Validate: an admission's pod set assignments name pod sets of the workload", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.admission = AdmissionSpec{"eng", {PodSetAssignmentSpec{"workers", {{"cpu", "on-demand"}}, {}, std::nullopt}}};
  CHECK(ErrorOf(w) == "Workload 'team-a/job': status.admission.podSetAssignments[0].name: no pod set named 'workers'");
}

TEST_CASE("Validate: an admitted count is between 0 and the pod set count", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.admission = AdmissionSpec{"eng", {PodSetAssignmentSpec{"main", {{"cpu", "on-demand"}}, {}, 3}}};
  CHECK(ErrorOf(w) ==
        "Workload 'team-a/job': status.admission.podSetAssignments[0].count: must be between 0 and the pod set count 2");
  w.admission->pod_set_assignments[0].count = -1;
  CHECK(ErrorOf(w) != "<ok>");
  w.admission->pod_set_assignments[0].count = 2;
  CHECK(ErrorOf(w) == "<ok>");
}

TEST_CASE("Validate: recorded resource usage >= 0", "[model][validate]") {
  WorkloadSpec w = ValidWorkload();
  w.admission = AdmissionSpec{"eng", {PodSetAssignmentSpec{"main", {{"cpu", "on-demand"}}, {{"cpu", -1}}, std::nullopt}}};
  CHECK(ErrorOf(w) == "Workload 'team-a/job': status.admission.podSetAssignments[0].resourceUsage.cpu: must be >= 0");
}

}  // namespace
}  // namespace validate_test
}  // namespace qm
