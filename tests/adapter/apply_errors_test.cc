// Cross-object validation through qm::Engine::Apply: what is an error (the batch is rejected and
// nothing changes) and what Kueue accepts but leaves inactive (docs/semantics.md §1.3, §1.4, §3.9).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace apply_errors_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

// Everything the queries show, as text, so two states can be compared.
std::string Snapshot(const Engine& e) {
  std::string out;
  for (const std::string& name : e.ClusterQueues()) {
    const absl::StatusOr<ClusterQueueStatus> q = e.GetClusterQueue(name);
    REQUIRE(q.ok());
    out += "ClusterQueue " + name + " cohort=" + q->cohort + " active=" + (q->active ? "true" : "false") + " (" +
           q->active_message + ")\n";
    for (const FlavorResourceUsage& u : q->usage)
      out += "  " + u.flavor + "/" + u.resource + " nominal=" + std::to_string(u.nominal) +
             " usage=" + std::to_string(u.usage) + " borrowed=" + std::to_string(u.borrowed) + "\n";
    for (WorkloadHandle id : q->pending) out += "  pending " + e.WorkloadName(id) + "\n";
    for (WorkloadHandle id : q->inadmissible) out += "  inadmissible " + e.WorkloadName(id) + "\n";
    for (WorkloadHandle id : q->admitted) out += "  admitted " + e.WorkloadName(id) + "\n";
  }
  for (const std::string& name : e.Cohorts()) {
    const absl::StatusOr<CohortStatus> c = e.GetCohort(name);
    REQUIRE(c.ok());
    out += "Cohort " + name + " parent=" + c->parent + (c->implicit ? " implicit" : "") + "\n";
  }
  for (WorkloadHandle id : e.Workloads()) {
    const WorkloadStatus w = e.GetWorkload(id).value();
    out += "Workload " + e.WorkloadName(id) + " " + WorkloadStateName(w.state) + " cq=" + w.cluster_queue +
           " priority=" + std::to_string(w.priority) + " reason=" + w.reason + " message=" + w.message + "\n";
  }
  return out;
}

std::string ErrorOf(Engine& e, const std::vector<ObjectSpec>& batch) {
  const absl::Status st = e.Apply(batch);
  return st.ok() ? "<ok>" : std::string(st.message());
}

// Cohort `pool` with team-a (4 CPU) and team-b (4 CPU), LocalQueues a/q and b/q, one admitted and
// one pending workload: a state with something in every query.
Engine Base() {
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{
                      test::Namespace("a"), test::Namespace("b"), test::Flavor("default"),
                      ClusterQueue("team-a").Cohort("pool").Flavor("default", {Q("cpu", 4 * kCpu)}),
                      ClusterQueue("team-b").Cohort("pool").Flavor("default", {Q("cpu", 4 * kCpu)}),
                      test::LocalQueue("a", "q", "team-a"), test::LocalQueue("b", "q", "team-b")})
              .ok());
  REQUIRE(e.Submit(Workload("a", "running").Queue("q").Request("cpu", 3 * kCpu)).ok());
  e.ScheduleCycle();
  REQUIRE(e.Submit(Workload("a", "waiting").Queue("q").Request("cpu", 20 * kCpu)).ok());
  e.ScheduleCycle();
  return e;
}

TEST_CASE("Apply: a resource in two resource groups is rejected", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  // Setup: group 0 covers cpu (flavor default), group 1 covers cpu and memory (flavor big).
  CHECK(ErrorOf(e, {ClusterQueue("bad").Flavor("default", {Q("cpu", 1)}).Flavor("big", {Q("cpu", 1), Q("memory", 1)})}) ==
        "ClusterQueue 'bad': spec.resourceGroups[1].coveredResources[0]: resource 'cpu' is covered by more than one "
        "resource group");
  CHECK(Snapshot(e) == before);
}

TEST_CASE("Apply: a flavor twice in one ClusterQueue is rejected", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  CHECK(ErrorOf(e, {ClusterQueue("bad").Flavor("default", {Q("cpu", 1)}).Flavor("default", {Q("cpu", 2)})}) ==
        "ClusterQueue 'bad': spec.resourceGroups[0].flavors[1].name: flavor 'default' appears more than once");
  // Also across groups.
  CHECK(ErrorOf(e, {ClusterQueue("bad").Flavor("default", {Q("cpu", 1)}).Flavor("default", {Q("memory", 2)})}) ==
        "ClusterQueue 'bad': spec.resourceGroups[1].flavors[0].name: flavor 'default' appears more than once");
  CHECK(Snapshot(e) == before);
}

TEST_CASE("Apply: a flavor's resources must follow coveredResources, in order", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  ClusterQueueSpec cq = ClusterQueue("bad").Flavor("default", {Q("cpu", 1), Q("memory", 1)}).spec();
  std::swap(cq.resource_groups[0].flavors[0].resources[0], cq.resource_groups[0].flavors[0].resources[1]);
  CHECK(ErrorOf(e, {cq}) ==
        "ClusterQueue 'bad': spec.resourceGroups[0].flavors[0].resources[0].name: must be 'cpu' (the covered "
        "resources, in order), got 'memory'");
  cq.resource_groups[0].flavors[0].resources.pop_back();
  CHECK(ErrorOf(e, {cq}) ==
        "ClusterQueue 'bad': spec.resourceGroups[0].flavors[0].resources: must list the 2 covered resources, got 1");
  CHECK(Snapshot(e) == before);
}

TEST_CASE("Apply: the flavor list order is the preference order and the reporting order", "[adapter][apply]") {
  Engine e;
  // Setup: flavors declared spot, then on-demand (names out of alphabetical order).
  REQUIRE(e.Apply(std::vector<ObjectSpec>{
                      test::Namespace("a"), test::Flavor("on-demand"), test::Flavor("spot"),
                      ClusterQueue("eng").Flavor("spot", {Q("cpu", 2 * kCpu)}).Flavor("on-demand", {Q("cpu", 2 * kCpu)}),
                      test::LocalQueue("a", "q", "eng")})
              .ok());
  const auto q = e.GetClusterQueue("eng");
  REQUIRE(q.ok());
  REQUIRE(q->usage.size() == 2);
  CHECK(q->usage[0].flavor == "spot");
  CHECK(q->usage[1].flavor == "on-demand");
  // Expect: the first workload takes spot, the second (spot full) on-demand.
  REQUIRE(e.Submit(Workload("a", "one").Queue("q").Request("cpu", 2 * kCpu)).ok());
  REQUIRE(e.Submit(Workload("a", "two").Queue("q").Request("cpu", 2 * kCpu)).ok());
  e.RunUntilStable();
  const auto one = e.GetWorkload("a", "one");
  const auto two = e.GetWorkload("a", "two");
  REQUIRE(one.ok());
  REQUIRE(two.ok());
  REQUIRE(one->admission.has_value());
  REQUIRE(two->admission.has_value());
  CHECK(one->admission->pod_sets.at(0).resources.at(0).flavor == "spot");
  CHECK(two->admission->pod_sets.at(0).resources.at(0).flavor == "on-demand");
}

TEST_CASE("Apply: negative quotas are rejected", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  CHECK(ErrorOf(e, {ClusterQueue("bad").Flavor("default", {Q("cpu", -1)})}) ==
        "ClusterQueue 'bad': spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: must be >= 0");
  CHECK(ErrorOf(e, {ClusterQueue("bad").Cohort("pool").Flavor("default", {Q("cpu", 1).Borrow(-1)})}) ==
        "ClusterQueue 'bad': spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: must be >= 0");
  CHECK(ErrorOf(e, {ClusterQueue("bad").Cohort("pool").Flavor("default", {Q("cpu", 1).Lend(-1)})}) ==
        "ClusterQueue 'bad': spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: must be >= 0");
  CohortSpec cohort;
  cohort.name = "pool";
  cohort.resource_groups.push_back(ResourceGroupSpec{{"cpu"}, {FlavorQuotasSpec{"default", {ResourceQuotaSpec{"cpu", -5, {}, {}}}}}});
  CHECK(ErrorOf(e, {cohort}) == "Cohort 'pool': spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: must be >= 0");
  // An update of an existing queue to a negative quota is rejected just the same.
  CHECK(ErrorOf(e, {ClusterQueue("team-a").Cohort("pool").Flavor("default", {Q("cpu", -4 * kCpu)})}) ==
        "ClusterQueue 'team-a': spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: must be >= 0");
  CHECK(Snapshot(e) == before);
}

TEST_CASE("Apply: a Cohort that is its own parent is rejected", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  CHECK(ErrorOf(e, {test::Cohort("pool", "pool")}) == "Cohort 'pool': spec.parentName: a Cohort cannot be its own parent");
  CHECK(Snapshot(e) == before);
}

TEST_CASE("Apply: a two-cohort cycle in one batch is rejected", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  CHECK(ErrorOf(e, {test::Cohort("pool", "org"), test::Cohort("org", "pool")}) ==
        "Cohort 'pool': spec.parentName: 'org' would create a cycle in the cohort tree (pool -> org -> pool)");
  CHECK(Snapshot(e) == before);
}

TEST_CASE("Apply: a three-cohort cycle closed by a later apply is rejected", "[adapter][apply]") {
  Engine e = Base();
  // Setup: pool → org → root exist. Expect: root → pool is refused; the tree stays as it was.
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Cohort("pool", "org"), test::Cohort("org", "root")}).ok());
  const std::string before = Snapshot(e);
  CHECK(ErrorOf(e, {test::Cohort("root", "pool")}) ==
        "Cohort 'root': spec.parentName: 'pool' would create a cycle in the cohort tree (root -> pool -> org -> root)");
  CHECK(Snapshot(e) == before);
  CHECK(e.GetCohort("root")->parent.empty());
  CHECK(e.GetCohort("root")->implicit);
  // Re-parenting that breaks the chain first, in the same batch, is fine.
  CHECK(ErrorOf(e, {test::Cohort("pool"), test::Cohort("root", "pool")}) == "<ok>");
  CHECK(e.GetCohort("root")->parent == "pool");
  CHECK(e.GetCohort("pool")->parent.empty());
}

TEST_CASE("Apply: a cohort tree deeper than the engine supports is rejected", "[adapter][apply]") {
  Engine e;
  std::vector<ObjectSpec> chain;
  for (int i = 0; i < 70; ++i) chain.push_back(test::Cohort("c" + std::to_string(i), "c" + std::to_string(i + 1)));
  const std::string error = ErrorOf(e, chain);
  CHECK_THAT(error, Catch::Matches("Cohort 'c0': spec\\.parentName: the cohort tree is deeper than [0-9]+ levels"));
  CHECK(e.Cohorts().empty());
}

TEST_CASE("Apply: the same object twice in one batch is rejected", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  CHECK(ErrorOf(e, {test::Flavor("spot"), test::Flavor("spot")}) == "ResourceFlavor/spot: appears more than once in one apply");
  CHECK(ErrorOf(e, {test::LocalQueue("a", "x", "team-a"), test::LocalQueue("a", "x", "team-a")}) ==
        "LocalQueue/a/x: appears more than once in one apply");
  CHECK(Snapshot(e) == before);
}

TEST_CASE("Apply: a LocalQueue's clusterQueue is immutable", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  const absl::Status st = e.Apply(test::LocalQueue("a", "q", "team-b"));
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(st.message()) == "LocalQueue 'a/q': spec.clusterQueue: is immutable (was 'team-a')");
  CHECK(Snapshot(e) == before);
  // Re-applying the same spec is fine.
  CHECK(e.Apply(test::LocalQueue("a", "q", "team-a")).ok());
  CHECK(Snapshot(e) == before);
}

TEST_CASE("Apply: a ClusterQueue naming a missing flavor is accepted but inactive", "[adapter][apply]") {
  // Kueue: a CQ is active only if every referenced flavor exists (docs/semantics.md §1.3); its workloads wait (§3.9).
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{
                      test::Namespace("a"), test::Flavor("on-demand"),
                      ClusterQueue("eng").Flavor("on-demand", {Q("cpu", 4 * kCpu)}).Flavor("spot", {Q("cpu", 4 * kCpu)}),
                      test::LocalQueue("a", "q", "eng")})
              .ok());
  auto q = e.GetClusterQueue("eng");
  REQUIRE(q.ok());
  CHECK_FALSE(q->active);
  CHECK(q->active_message == "Can't admit new workloads: references missing ResourceFlavor(s): spot.");
  // A workload that fits on-demand is not admitted while the queue is inactive.
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
  CHECK(test::Log(e, e.ScheduleCycle()).admitted.empty());
  auto w = e.GetWorkload("a", "w");
  REQUIRE(w.ok());
  CHECK(w->state == WorkloadState::kPending);
  CHECK(w->cluster_queue == "eng");
  CHECK(w->reason == "Suspended");
  CHECK(w->message == "ClusterQueue eng is inactive");
  // Creating the flavor activates the queue; the workload is admitted in the next cycle.
  REQUIRE(e.Apply(test::Flavor("spot")).ok());
  q = e.GetClusterQueue("eng");
  CHECK(q->active);
  CHECK(q->active_message == "Can admit new workloads");
  CHECK(test::Log(e, e.ScheduleCycle()).admitted == std::vector<std::string>{"a/w"});
  // Deleting a flavor in use deactivates it again.
  REQUIRE(e.Delete(ObjectRef{ObjectKind::kResourceFlavor, "", "spot"}).ok());
  CHECK_FALSE(e.GetClusterQueue("eng")->active);
}

TEST_CASE("Apply: a LocalQueue naming a missing ClusterQueue is accepted; its workloads wait", "[adapter][apply]") {
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Namespace("a"), test::Flavor("default"),
                                          test::LocalQueue("a", "q", "later")})
              .ok());
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
  CHECK(e.ScheduleCycle().empty());
  auto w = e.GetWorkload("a", "w");
  REQUIRE(w.ok());
  CHECK(w->state == WorkloadState::kPending);
  CHECK(w->cluster_queue.empty());
  CHECK(w->message == "ClusterQueue later doesn't exist");
  // Creating the ClusterQueue picks the workload up.
  REQUIRE(e.Apply(ClusterQueue("later").Flavor("default", {Q("cpu", kCpu)})).ok());
  CHECK(test::Log(e, e.ScheduleCycle()).admitted == std::vector<std::string>{"a/w"});
}

TEST_CASE("Apply: a cohort or parent without a Cohort object is implicit", "[adapter][apply]") {
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Flavor("default"),
                                          ClusterQueue("eng").Cohort("pool").Flavor("default", {Q("cpu", kCpu)}),
                                          test::Cohort("org", "company")})
              .ok());
  CHECK(e.Cohorts() == std::vector<std::string>{"company", "org", "pool"});
  CHECK(e.GetCohort("pool")->implicit);
  CHECK(e.GetCohort("company")->implicit);
  CHECK_FALSE(e.GetCohort("org")->implicit);
  CHECK(e.GetCohort("org")->parent == "company");
  CHECK(e.GetClusterQueue("eng")->active);
}

TEST_CASE("Apply: a workload loaded as admitted must name an existing ClusterQueue", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  const absl::Status st = e.Apply(Workload("a", "old").Queue("q").Request("cpu", kCpu).AdmittedIn("nowhere", "default"));
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == absl::StatusCode::kNotFound);
  CHECK(std::string(st.message()) == "Workload 'a/old': status.admission.clusterQueue: ClusterQueue 'nowhere' not found");
  CHECK(Snapshot(e) == before);
  // The ClusterQueue may come in the same batch.
  CHECK(ErrorOf(e, {ClusterQueue("nowhere").Flavor("default", {Q("cpu", kCpu)}),
                    Workload("a", "old").Queue("q").Request("cpu", kCpu).AdmittedIn("nowhere", "default")}) == "<ok>");
}

TEST_CASE("Apply: a workload naming a missing priority class is rejected", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  WorkloadSpec w = Workload("a", "classy").Queue("q").Request("cpu", kCpu).spec();
  w.priority_class = PriorityClassRef{PriorityClassSource::kWorkloadPriorityClass, "high"};
  const absl::Status st = e.Apply(w);
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(st.message()), Catch::StartsWith("Workload 'a/classy': ") &&
                                            Catch::EndsWith("WorkloadPriorityClass 'high' not found"));
  CHECK(Snapshot(e) == before);
  // With the class in the same batch the workload is accepted and gets its value.
  WorkloadPriorityClassSpec high;
  high.name = "high";
  high.value = 100;
  CHECK(ErrorOf(e, {high, w}) == "<ok>");
  CHECK(e.GetWorkload("a", "classy")->priority == 100);
}

TEST_CASE("Apply: a failed batch changes nothing, even after valid objects", "[adapter][apply]") {
  Engine e = Base();
  const std::string before = Snapshot(e);
  // Setup: a batch of valid changes (new flavor, namespace, queue, quota update, new workload)
  // followed by one invalid object. Expect: the error, and every query answers as before.
  const std::vector<ObjectSpec> batch = {
      test::Flavor("spot"),
      test::Namespace("c", {{"team", "c"}}),
      ClusterQueue("team-c").Cohort("pool").Flavor("spot", {Q("cpu", 8 * kCpu)}),
      ClusterQueue("team-a").Cohort("pool").Flavor("default", {Q("cpu", 40 * kCpu)}),
      test::LocalQueue("c", "q", "team-c"),
      test::Cohort("pool", "org"),
      Workload("a", "new").Queue("q").Request("cpu", kCpu),
      ClusterQueue("broken").Flavor("spot", {Q("cpu", -1)}),
  };
  CHECK(ErrorOf(e, batch) ==
        "ClusterQueue 'broken': spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: must be >= 0");
  CHECK(Snapshot(e) == before);
  CHECK(e.ClusterQueues() == std::vector<std::string>{"team-a", "team-b"});
  CHECK_FALSE(e.FindWorkload("a", "new").valid());
  // The engine still works: the next cycle decides as it would have.
  e.ScheduleCycle();
  CHECK(e.GetWorkload("a", "waiting")->state == WorkloadState::kPending);
  CHECK(e.GetWorkload("a", "running")->state == WorkloadState::kAdmitted);
  // Without the broken object the same batch applies.
  std::vector<ObjectSpec> good(batch.begin(), batch.end() - 1);
  CHECK(ErrorOf(e, good) == "<ok>");
  CHECK(e.ClusterQueues() == std::vector<std::string>{"team-a", "team-b", "team-c"});
  CHECK(e.GetCohort("pool")->parent == "org");
}

}  // namespace
}  // namespace apply_errors_test
}  // namespace qm
