// Engine::CheckInvariants: it passes on real states, and each class of corruption is reported with
// a message naming the object. The corruption goes through the test-only hook
// `internal::EngineStateForTesting`; the scenario CTests run every scenario with
// `--check-invariants`, and the metamorphic tests check after every call on random clusters.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "adapter/engine_state.h"
#include "qm/adapter/engine.h"
#include "qm/io/scenario.h"
#include "qm/queue/pending_queue.h"
#include "support/builders.h"

namespace qm {
namespace invariants_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

// Setup: cohort `pool` with `team-a` (4 cpu, may borrow 2) and `team-b` (4 cpu). team-a holds
// a/one (3 cpu) and a/two (2 cpu: it borrows 1 cpu), team-b holds b/three (2 cpu); b/big (100 cpu)
// is parked as inadmissible; a/late waits in team-a's active queue (it arrives after the cycles).
Engine World(EngineConfig config = {}) {
  absl::StatusOr<Engine> made = Engine::Create(std::move(config));
  REQUIRE(made.ok());
  Engine e = *std::move(made);
  const std::vector<ObjectSpec> objects = {
      test::Namespace("a"), test::Namespace("b"), test::Flavor("default"), test::Cohort("pool"),
      ClusterQueue("team-a").Cohort("pool").Flavor("default", {Q("cpu", 4 * kCpu).Borrow(2 * kCpu)}),
      ClusterQueue("team-b").Cohort("pool").Flavor("default", {Q("cpu", 4 * kCpu)}),
      test::LocalQueue("a", "q", "team-a"), test::LocalQueue("b", "q", "team-b")};
  REQUIRE(e.Apply(objects).ok());
  REQUIRE(e.SetNow(Time::FromUnixSeconds(1000)).ok());
  REQUIRE(e.Submit(Workload("a", "one").Queue("q").Request("cpu", 3 * kCpu)).ok());
  REQUIRE(e.Submit(Workload("a", "two").Queue("q").Request("cpu", 2 * kCpu)).ok());
  REQUIRE(e.Submit(Workload("b", "three").Queue("q").Request("cpu", 2 * kCpu)).ok());
  REQUIRE(e.Submit(Workload("b", "big").Queue("q").Request("cpu", 100 * kCpu)).ok());
  e.RunUntilStable();
  REQUIRE(e.Submit(Workload("a", "late").Queue("q").Request("cpu", 9 * kCpu)).ok());
  REQUIRE(e.GetWorkload("a", "two")->state == WorkloadState::kAdmitted);
  REQUIRE(e.GetWorkload("b", "big")->inadmissible);
  return e;
}

// The pieces of the world the corruptions touch.
struct Parts {
  ClusterState& s;
  NodeIndex team_a, pool;
  FrId cpu_fr;
  ResourceId cpu;
  explicit Parts(Engine& e)
      : s(internal::EngineStateForTesting(e).s),
        team_a(s.cq(s.cq_names.Find("team-a")).node),
        pool(s.cohorts[s.cohort_names.Find("pool").value].node),
        cpu_fr(s.catalog.FindFr(s.catalog.FindFlavor("default"), s.catalog.FindResource("cpu"))),
        cpu(s.catalog.FindResource("cpu")) {}
  WorkloadRecord& wl(std::string_view ns, std::string_view name) {
    return s.wl(s.FindWorkload(s.namespaces_names.Find(ns), name));
  }
  WorkloadId id(std::string_view ns, std::string_view name) { return s.FindWorkload(s.namespaces_names.Find(ns), name); }
  FrQuota& quota(NodeIndex n) { return s.tree.mutable_node(n).fr[cpu_fr.value]; }
};

// The violation `e` reports; FAILs when there is none.
std::string Violation(const Engine& e) {
  const absl::Status st = e.CheckInvariants();
  if (st.ok()) {
    FAIL_CHECK("CheckInvariants found nothing");
    return "";
  }
  CHECK(st.code() == absl::StatusCode::kInternal);
  return std::string(st.message());
}

}  // namespace

TEST_CASE("CheckInvariants: passes on a consistent state and changes nothing", "[adapter][invariants]") {
  Engine e = World();
  const absl::StatusOr<std::string> before = e.Save();
  REQUIRE(before.ok());
  CHECK(e.CheckInvariants().ok());
  CHECK(*e.Save() == *before);
  SECTION("after preemption, eviction, finishing and deletion") {
    // Setup: a high-priority workload preempts in team-b's favour; then finish, confirm, delete.
    REQUIRE(e.Submit(Workload("b", "urgent").Queue("q").Request("cpu", 4 * kCpu).Priority(100)).ok());
    for (int i = 0; i < 3; ++i) {
      e.ScheduleCycle();
      CHECK(e.CheckInvariants().ok());
      e.ConfirmAllEvicted();
      CHECK(e.CheckInvariants().ok());
    }
    REQUIRE(e.Finish("a", "one").ok());
    CHECK(e.CheckInvariants().ok());
    REQUIRE(e.Delete(ObjectRef{ObjectKind::kWorkload, "b", "big"}).ok());
    CHECK(e.CheckInvariants().ok());
    REQUIRE(e.Deactivate("a", "late").ok());
    CHECK(e.CheckInvariants().ok());
    e.RunUntilStable();
    CHECK(e.CheckInvariants().ok());
  }
}

TEST_CASE("CheckInvariants: a quota that shrank under its usage is not a violation", "[adapter][invariants]") {
  // Setup: team-a uses 5 cpu (nominal 4 + 1 borrowed); its borrowing limit drops to 0 through
  // Apply. Expect: OK (quota updates never evict, docs/semantics.md §2), after Restore too.
  Engine e = World();
  REQUIRE(e.Apply(ClusterQueue("team-a").Cohort("pool").Flavor("default", {Q("cpu", 4 * kCpu).Borrow(0)})).ok());
  CHECK(e.CheckInvariants().ok());
  e.RunUntilStable();
  CHECK(e.CheckInvariants().ok());
  absl::StatusOr<Engine> restored = Engine::Restore(*e.Save());
  REQUIRE(restored.ok());
  CHECK(restored->CheckInvariants().ok());
}

TEST_CASE("CheckInvariants: reports each kind of corruption", "[adapter][invariants]") {
  Engine e = World();
  Parts p(e);
  using Catch::Matchers::Contains;
  using Catch::Matchers::Equals;

  SECTION("ClusterQueue usage differs from its admissions") {
    p.quota(p.team_a).usage += kCpu;
    CHECK_THAT(Violation(e), Equals("ClusterQueue 'team-a' usage of (default, cpu) is 6000 but its admitted "
                                    "workloads hold 5000"));
  }
  SECTION("an admission's count changed behind the tree's back (its usage is derived from it)") {
    p.wl("b", "three").admission->pod_sets[0].count = 0;
    CHECK_THAT(Violation(e), Contains("ClusterQueue 'team-b' usage of (default, cpu) is 2000 but its admitted "
                                      "workloads hold 0"));
  }
  SECTION("an admission with more reclaimable pods than admitted ones") {
    p.wl("b", "three").admission->pod_sets[0].reclaimable = 2;
    CHECK_THAT(Violation(e), Equals("Workload 'b/three': its admission counts 1 pods, 2 reclaimable"));
  }
  SECTION("Cohort usage") {
    p.quota(p.pool).usage -= 1;
    CHECK_THAT(Violation(e), Equals("Cohort 'pool' usage of (default, cpu) is 6999 but its members hold 7000 above "
                                    "their guaranteed quota"));
  }
  SECTION("borrowed amount") {
    p.s.tree.mutable_node(p.team_a).borrowed[p.cpu.value] += 5;
    CHECK_THAT(Violation(e), Equals("ClusterQueue 'team-a' borrowed amount of cpu is 1005 but a recomputation gives 1000"));
  }
  SECTION("lendable amount") {
    p.s.tree.mutable_node(p.pool).potential_sum[p.cpu.value] = 1;
    CHECK_THAT(Violation(e), Contains("Cohort 'pool' lendable amount of cpu is 1 but a recomputation gives 8000"));
  }
  SECTION("derived quotas") {
    p.quota(p.team_a).potential = 1;
    CHECK_THAT(Violation(e), Contains("ClusterQueue 'team-a' potential quota of (default, cpu) is 1"));
  }
  SECTION("a workload's state contradicts its admission") {
    p.wl("a", "one").state = WorkloadState::kFinished;
    CHECK_THAT(Violation(e), Equals("Workload 'a/one' is Finished but holds an admission"));
  }
  SECTION("an evicting workload whose admission is not marked") {
    p.wl("a", "one").state = WorkloadState::kEvicting;
    CHECK_THAT(Violation(e), Contains("Workload 'a/one' is Evicting but its admission is not marked evicted"));
  }
  SECTION("a workload in two queues") {
    p.s.cq(p.s.cq_names.Find("team-a")).heap.insert(PendingKeyOf(p.s, p.id("b", "big")), PendingClassOf(p.wl("b", "big")),
                                                     p.wl("b", "big").ns);
    CHECK_THAT(Violation(e), Contains("ClusterQueue 'team-a' active queue holds Workload 'b/big'"));
  }
  SECTION("an active-queue member filed under the wrong equivalence class") {
    const WorkloadRecord& late = p.wl("a", "late");
    REQUIRE(PlaceOf(p.s, p.id("a", "late")) == QueuePlace::kActive);
    ClassQueue& heap = p.s.cq(late.queued_in).heap;
    const PendingKey key = PendingKeyOf(p.s, p.id("a", "late"));
    REQUIRE(heap.erase(key, PendingClassOf(late), late.ns));
    heap.insert(key, PendingClassOf(late.shape, late.priority + 1), late.ns);
    CHECK_THAT(Violation(e), Contains("is filed under another equivalence class"));
  }
  SECTION("a class that miscounts its members' namespaces (a flush would move it wrongly)") {
    const WorkloadRecord& late = p.wl("a", "late");
    ClassQueue& heap = p.s.cq(late.queued_in).heap;
    const PendingKey key = PendingKeyOf(p.s, p.id("a", "late"));
    REQUIRE(heap.erase(key, PendingClassOf(late), late.ns));
    heap.insert(key, PendingClassOf(late), p.wl("b", "big").ns);
    CHECK_THAT(Violation(e), Contains("ClusterQueue 'team-a' active queue: the class of Workload 'a/late' miscounts"));
  }
  SECTION("a queued workload that stores a derived place") {
    p.wl("a", "late").place = QueuePlace::kActive;
    CHECK_THAT(Violation(e), Contains("Workload 'a/late' stores a derived queue place"));
  }
  SECTION("a requeue instant the flush would not look for") {
    WorkloadRecord& late = p.wl("a", "late");
    late.extras = std::make_unique<WorkloadExtras>();
    late.extras->requeue_count = 1;
    late.extras->requeue_at = p.s.Now() + Duration::Seconds(60);
    REQUIRE_FALSE(p.s.requeue_backoff_seen);
    CHECK_THAT(Violation(e), Contains("Workload 'a/late' waits for a requeue instant, but the state says none"));
  }
  SECTION("a pending workload in no queue") {
    p.s.cq(p.s.cq_names.Find("team-b")).inadmissible.erase(PendingKeyOf(p.s, p.id("b", "big")), PendingClassOf(p.wl("b", "big")),
                                                            p.wl("b", "big").ns);
    CHECK_THAT(Violation(e), Equals("Workload 'b/big' is Pending but waits in no queue (its place says queued)"));
  }
  SECTION("a pending workload marked as popped outside a cycle") {
    p.wl("a", "late").place = QueuePlace::kInflight;
    CHECK_THAT(Violation(e), Contains("Workload 'a/late' is still marked as popped for a cycle"));
  }
  SECTION("a queue key that no longer matches the workload (the order is stale)") {
    p.wl("a", "late").priority = 7;
    CHECK_THAT(Violation(e), Contains("ClusterQueue 'team-a' active queue: Workload 'a/late' is keyed by priority 0"));
  }
  SECTION("a workload holding quota missing from the candidate sets") {
    p.s.cq(p.s.cq_names.Find("team-a")).admitted.erase(CandidateKeyOf(p.s, p.id("a", "one")));
    CHECK_THAT(Violation(e), Equals("Workload 'a/one' holds quota in ClusterQueue 'team-a' but is missing from its "
                                    "admitted set"));
  }
  SECTION("a candidate key with a stale priority") {
    p.wl("a", "one").priority = 3;
    CHECK_THAT(Violation(e), Contains("ClusterQueue 'team-a' admitted set: Workload 'a/one' is keyed by priority 0"));
  }
  SECTION("ids that do not resolve") {
    p.wl("a", "one").admission->cluster_queue = ClusterQueueId(999);
    CHECK_THAT(Violation(e), Contains("Workload 'a/one': admitted to ClusterQueue id 999, which does not exist"));
  }
  SECTION("a shape reference count") {
    ++p.s.shapes[p.wl("a", "one").shape].refs;
    CHECK_THAT(Violation(e), Contains("pod-set shape"));
  }
  SECTION("a queue above nominal + borrowing limit with no quota change to excuse it") {
    // The tree's limit is lowered and its derived values recomputed, but not through Apply.
    const FrQuota& q = p.quota(p.team_a);
    p.s.tree.SetQuota(p.team_a, p.cpu_fr, q.nominal, 0, q.lending_limit);
    p.s.tree.Recompute(p.s.tree.Root(p.team_a));
    CHECK_THAT(Violation(e), Equals("ClusterQueue 'team-a' usage of (default, cpu) is 5000, above its nominal quota "
                                    "4000 + borrowing limit 0, though no quota changed since those workloads were "
                                    "admitted"));
  }
}

TEST_CASE("CheckInvariants: EngineConfig::check_invariants fails the cycle that finds a violation",
          "[adapter][invariants]") {
  EngineConfig config;
  config.check_invariants = true;
  Engine e = World(config);
  CHECK(e.ScheduleCycle().status.ok());
  Parts p(e);
  p.quota(p.team_a).usage += kCpu;
  p.quota(p.team_a).usage_exact += kCpu;
  const CycleResult& r = e.ScheduleCycle();
  CHECK(r.status.code() == absl::StatusCode::kInternal);
  CHECK_THAT(std::string(r.status.message()), Catch::Matchers::Contains("ClusterQueue 'team-a' usage"));
  CHECK(e.RunUntilStable() == 1);  // stops after the first cycle
}

TEST_CASE("CheckInvariants: a scenario run with check_invariants names the step and cycle of a violation",
          "[adapter][invariants][io]") {
  // Setup: ClusterQueue `eng` (4 cpu); step 0 submits a 2-cpu workload; then eng's usage is
  // corrupted and steps 1 (one cycle) and 2 (until stable) run. Expect: each fails with its step.
  const std::string yaml =
      "name: t\n"
      "objects:\n"
      "- {kind: Namespace, metadata: {name: default}}\n"
      "- {kind: ResourceFlavor, metadata: {name: default}}\n"
      "- kind: ClusterQueue\n"
      "  metadata: {name: eng}\n"
      "  spec:\n"
      "    namespaceSelector: {}\n"
      "    resourceGroups:\n"
      "    - {coveredResources: [cpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]}\n"
      "- {kind: LocalQueue, metadata: {name: q}, spec: {clusterQueue: eng}}\n"
      "steps:\n"
      "- apply:\n"
      "  - kind: Workload\n"
      "    metadata: {name: two}\n"
      "    spec: {queueName: q, podSets: [{count: 1, requests: {cpu: 2}}]}\n"
      "- schedule: {}\n"
      "- schedule: {untilStable: true}\n";
  absl::StatusOr<Scenario> scenario = LoadScenarioString(yaml, "s.yaml");
  REQUIRE(scenario.ok());
  absl::StatusOr<Engine> engine = MakeScenarioEngine(*scenario);
  REQUIRE(engine.ok());
  ScenarioRunOptions options;
  options.check_invariants = true;
  StepResult r0, r1, r2;
  REQUIRE(RunScenarioStep(*scenario, 0, *engine, &r0, options).ok());
  ClusterState& s = internal::EngineStateForTesting(*engine).s;
  const FrId fr = s.catalog.FindFr(s.catalog.FindFlavor("default"), s.catalog.FindResource("cpu"));
  // Both the exact sum and its int64 reading (quota_tree.h): the next admission rewrites the reading.
  FrQuota& q = s.tree.mutable_node(s.cq(s.cq_names.Find("eng")).node).fr[fr.value];
  q.usage += 500;
  q.usage_exact += 500;
  const absl::Status one = RunScenarioStep(*scenario, 1, *engine, &r1, options);
  CHECK_THAT(std::string(one.message()),
             Catch::Matchers::Equals("s.yaml:17: steps[1] (schedule): invariant violated after cycle 1 of the step: "
                                     "ClusterQueue 'eng' usage of (default, cpu) is 2500 but its admitted workloads "
                                     "hold 2000"));
  const absl::Status stable = RunScenarioStep(*scenario, 2, *engine, &r2, options);
  CHECK_THAT(std::string(stable.message()),
             Catch::Matchers::StartsWith("s.yaml:18: steps[2] (schedule): invariant violated after cycle 1 of the step"));
  // Without the option the same run does not look.
  StepResult r3;
  CHECK(RunScenarioStep(*scenario, 2, *engine, &r3).ok());
}

}  // namespace invariants_test
}  // namespace qm
