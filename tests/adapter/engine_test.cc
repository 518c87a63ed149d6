#include "qm/adapter/engine.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/builders.h"

namespace qm {
namespace engine_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;  // one CPU in millicores

std::vector<std::string> Names(const Engine& e, const std::vector<WorkloadHandle>& ids) {
  std::vector<std::string> out;
  for (WorkloadHandle id : ids) out.push_back(e.WorkloadName(id));
  return out;
}

// Two queues of one cohort, 4 CPU each, one namespace each.
Engine TwoTeams(ClusterQueue a = ClusterQueue("team-a"), ClusterQueue b = ClusterQueue("team-b")) {
  Engine e;
  std::vector<ObjectSpec> objects = {
      test::Namespace("a"), test::Namespace("b"), test::Flavor("default"),
      a.Cohort("pool").Flavor("default", {Q("cpu", 4 * kCpu)}),
      b.Cohort("pool").Flavor("default", {Q("cpu", 4 * kCpu)}),
      test::LocalQueue("a", "q", "team-a"), test::LocalQueue("b", "q", "team-b")};
  REQUIRE(e.Apply(objects).ok());
  return e;
}

TEST_CASE("Engine: admits in priority order, then FIFO, one head per ClusterQueue per cycle", "[adapter][engine]") {
  Engine e = TwoTeams();
  // Setup: three 1-CPU workloads in team-a, created in order, the last with higher priority.
  REQUIRE(e.Submit(Workload("a", "first").Queue("q").Request("cpu", kCpu).Created(Time::FromUnixSeconds(1))).ok());
  REQUIRE(e.Submit(Workload("a", "second").Queue("q").Request("cpu", kCpu).Created(Time::FromUnixSeconds(2))).ok());
  REQUIRE(e.Submit(Workload("a", "urgent").Queue("q").Request("cpu", kCpu).Priority(10).Created(Time::FromUnixSeconds(3))).ok());
  auto q = e.GetClusterQueue("team-a");
  REQUIRE(q.ok());
  CHECK(Names(e, q->pending) == std::vector<std::string>{"a/urgent", "a/first", "a/second"});
  // Expect: one admission per cycle, in queue order.
  CHECK(test::Log(e, e.ScheduleCycle()).admitted == std::vector<std::string>{"a/urgent"});
  CHECK(test::Log(e, e.ScheduleCycle()).admitted == std::vector<std::string>{"a/first"});
  CHECK(test::Log(e, e.ScheduleCycle()).admitted == std::vector<std::string>{"a/second"});
  CHECK(e.ScheduleCycle().empty());
}

TEST_CASE("Engine: borrowing from an idle cohort member, and the limit of what can be borrowed", "[adapter][engine]") {
  Engine e = TwoTeams(ClusterQueue("team-a"), ClusterQueue("team-b"));
  SECTION("team-a borrows team-b's idle quota") {
    // Setup: team-a asks 6 CPU with 4 nominal; team-b idle. Expect: admitted, borrowing.
    REQUIRE(e.Submit(Workload("a", "big").Queue("q").Request("cpu", 6 * kCpu)).ok());
    CHECK(test::Log(e, e.ScheduleCycle()).admitted == std::vector<std::string>{"a/big"});
    auto st = e.GetWorkload("a", "big");
    REQUIRE(st.ok());
    REQUIRE(st->admission.has_value());
    CHECK(st->admission->borrowing());
    auto qa = e.GetClusterQueue("team-a");
    REQUIRE(qa.ok());
    CHECK(qa->usage[0].usage == 6 * kCpu);
    CHECK(qa->usage[0].borrowed == 2 * kCpu);
  }
  SECTION("more than the whole cohort has never fits") {
    REQUIRE(e.Submit(Workload("a", "huge").Queue("q").Request("cpu", 9 * kCpu)).ok());
    const CycleResult& r = e.ScheduleCycle();
    CHECK(r.admitted == 0);
    auto st = e.GetWorkload("a", "huge");
    CHECK(st->message ==
          "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, previously "
          "considered podsets requests (0) + current podset request (9) > maximum capacity (8)");
    CHECK(st->reason == "ExceedsMaxQuota");
    CHECK(st->inadmissible);
  }
}

TEST_CASE("Engine: StrictFIFO blocks behind its head, BestEffortFIFO lets smaller workloads pass",
          "[adapter][engine][queue]") {
  for (bool strict : {true, false}) {
    CAPTURE(strict);
    ClusterQueue a("team-a");
    if (strict) a.Strict();
    Engine e = TwoTeams(a);
    // Setup: team-b uses 3 of its 4 CPU; team-a's head needs 6 (more than a can get now: 4 + 1 idle),
    // the next needs 1.
    REQUIRE(e.Submit(Workload("b", "running").Queue("q").Request("cpu", 3 * kCpu)).ok());
    REQUIRE(e.ScheduleCycle().admitted == 1);
    REQUIRE(e.Submit(Workload("a", "head").Queue("q").Request("cpu", 6 * kCpu).Created(Time::FromUnixSeconds(1))).ok());
    REQUIRE(e.Submit(Workload("a", "small").Queue("q").Request("cpu", kCpu).Created(Time::FromUnixSeconds(2))).ok());
    e.ScheduleCycle();
    const CycleResult& second = e.ScheduleCycle();
    auto q = e.GetClusterQueue("team-a");
    REQUIRE(q.ok());
    if (strict) {
      // Expect: the head goes back to the front; `small` never gets a turn.
      CHECK(second.admitted == 0);
      CHECK(Names(e, q->pending) == std::vector<std::string>{"a/head", "a/small"});
      CHECK(q->inadmissible.empty());
    } else {
      // Expect: the head is parked; `small` is admitted in the next cycle.
      CHECK(test::Log(e, second).admitted == std::vector<std::string>{"a/small"});
      CHECK(Names(e, q->inadmissible) == std::vector<std::string>{"a/head"});
    }
  }
}

TEST_CASE("Engine: a parked workload comes back when quota is released", "[adapter][engine][queue]") {
  Engine e = TwoTeams();
  REQUIRE(e.Submit(Workload("a", "one").Queue("q").Request("cpu", 5 * kCpu)).ok());
  REQUIRE(e.ScheduleCycle().admitted == 1);
  REQUIRE(e.Submit(Workload("a", "two").Queue("q").Request("cpu", 5 * kCpu)).ok());
  REQUIRE(e.ScheduleCycle().admitted == 0);
  CHECK(e.GetWorkload("a", "two")->inadmissible);
  // Finishing `one` flushes the cohort's parked workloads.
  REQUIRE(e.Finish("a", "one").ok());
  CHECK_FALSE(e.GetWorkload("a", "two")->inadmissible);
  CHECK(test::Log(e, e.ScheduleCycle()).admitted == std::vector<std::string>{"a/two"});
}

TEST_CASE("Engine: preemption within a ClusterQueue is two-phase across cycles", "[adapter][engine][preemption]") {
  Engine e = TwoTeams(ClusterQueue("team-a").WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority));
  REQUIRE(e.Submit(Workload("a", "low").Queue("q").Request("cpu", 8 * kCpu).Priority(0)).ok());
  REQUIRE(e.ScheduleCycle().admitted == 1);
  // team-b needs its quota back later; here team-a's own high-priority job preempts `low`.
  REQUIRE(e.Submit(Workload("a", "high").Queue("q").Request("cpu", 4 * kCpu).Priority(5).Uid("uid-high")).ok());
  // Cycle 1: `low` is evicted but keeps its quota; `high` waits.
  test::CycleLog c1 = test::Log(e, e.ScheduleCycle());
  CHECK(c1.preempted == std::vector<std::string>{"a/low<-a/high"});
  CHECK(c1.admitted.empty());
  CHECK(e.GetWorkload("a", "low")->state == WorkloadState::kEvicting);
  CHECK(e.GetWorkload("a", "high")->message ==
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 4 more "
        "needed. Pending the preemption of 1 workload(s)");
  // Cycle 2: nothing new; the preemptor does not evict more while its target is still stopping.
  test::CycleLog c2 = test::Log(e, e.ScheduleCycle());
  CHECK(c2.preempted.empty());
  CHECK(c2.admitted.empty());
  // The host confirms `low` stopped: its quota is released and it waits again.
  REQUIRE(e.ConfirmEvicted("a", "low").ok());
  CHECK(e.GetWorkload("a", "low")->state == WorkloadState::kPending);
  CHECK(test::Log(e, e.ScheduleCycle()).admitted == std::vector<std::string>{"a/high"});
}

TEST_CASE("Engine: bad input is rejected with the object and field, and changes nothing", "[adapter][engine][validation]") {
  Engine e = TwoTeams();
  struct Case {
    const char* what;
    ObjectSpec object;
    const char* message;
  };
  ClusterQueueSpec negative = ClusterQueue("bad").Flavor("default", {Q("cpu", -1)}).spec();
  ClusterQueueSpec two_groups = ClusterQueue("bad").Flavor("default", {Q("cpu", 1)}).spec();
  two_groups.resource_groups.push_back(ResourceGroupSpec{{"cpu"}, {FlavorQuotasSpec{"other", {ResourceQuotaSpec{"cpu", 1, {}, {}}}}}});
  ClusterQueueSpec limit_without_cohort = ClusterQueue("bad").Flavor("default", {Q("cpu", 1).Borrow(1)}).spec();
  ClusterQueueSpec wrong_order = ClusterQueue("bad").Flavor("default", {Q("cpu", 1), Q("memory", 1)}).spec();
  std::swap(wrong_order.resource_groups[0].flavors[0].resources[0], wrong_order.resource_groups[0].flavors[0].resources[1]);
  CohortSpec self_parent;
  self_parent.name = "loop";
  self_parent.parent = "loop";
  WorkloadSpec bad_admission = Workload("a", "w").Request("cpu", kCpu).AdmittedIn("nowhere", "default").spec();
  std::vector<Case> cases = {
      {"negative quota", negative,
       "ClusterQueue 'bad': spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: must be >= 0"},
      {"a resource in two groups", two_groups,
       "ClusterQueue 'bad': spec.resourceGroups[1].coveredResources[0]: resource 'cpu' is covered by more than one "
       "resource group"},
      {"limits without a cohort", limit_without_cohort,
       "ClusterQueue 'bad': spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: must be unset when the "
       "ClusterQueue has no cohort"},
      {"flavor resources out of order", wrong_order,
       "ClusterQueue 'bad': spec.resourceGroups[0].flavors[0].resources[0].name: must be 'cpu' (the covered "
       "resources, in order), got 'memory'"},
      {"a cohort that is its own parent", self_parent, "Cohort 'loop': spec.parentName: a Cohort cannot be its own parent"},
      {"an admission in a missing queue", bad_admission,
       "Workload 'a/w': status.admission.clusterQueue: ClusterQueue 'nowhere' not found"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    absl::Status st = e.Apply(c.object);
    CHECK_FALSE(st.ok());
    CHECK(std::string(st.message()) == c.message);
  }
  CHECK(e.ClusterQueues() == std::vector<std::string>{"team-a", "team-b"});
  CHECK(e.Workloads().empty());
}

TEST_CASE("Engine: cohort cycles are rejected as a whole batch", "[adapter][engine][validation]") {
  Engine e;
  // Setup: x → y → z → x in one apply, with a ClusterQueue before them. Expect: error, nothing applied.
  std::vector<ObjectSpec> batch = {test::Flavor("f"), ClusterQueue("q").Cohort("x").Flavor("f", {Q("cpu", 1)}),
                                   test::Cohort("x", "y"), test::Cohort("y", "z"), test::Cohort("z", "x")};
  absl::Status st = e.Apply(batch);
  REQUIRE_FALSE(st.ok());
  CHECK(std::string(st.message()) ==
        "Cohort 'x': spec.parentName: 'y' would create a cycle in the cohort tree (x -> y -> z -> x)");
  CHECK(e.ClusterQueues().empty());
  CHECK(e.Cohorts().empty());
  // A later apply that closes a cycle through existing cohorts is rejected too.
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Cohort("x", "y"), test::Cohort("y")}).ok());
  st = e.Apply(test::Cohort("y", "x"));
  REQUIRE_FALSE(st.ok());
  CHECK(std::string(st.message()) ==
        "Cohort 'y': spec.parentName: 'x' would create a cycle in the cohort tree (y -> x -> y)");
  CHECK(e.GetCohort("y")->parent.empty());
}

TEST_CASE("Engine: the same calls give the same decisions", "[adapter][engine][determinism]") {
  auto run = [] {
    Engine e = TwoTeams(ClusterQueue("team-a").ReclaimWithinCohort(ReclaimWithinCohortPolicy::kAny),
                        ClusterQueue("team-b").ReclaimWithinCohort(ReclaimWithinCohortPolicy::kAny));
    std::vector<std::string> log;
    for (int i = 0; i < 12; ++i) {
      const std::string ns = i % 3 == 0 ? "b" : "a";
      REQUIRE(e.Submit(Workload(ns, "w" + std::to_string(i)).Queue("q").Request("cpu", (1 + i % 3) * kCpu)
                           .Priority(i % 4).Created(Time::FromUnixSeconds(i / 2)))
                  .ok());
    }
    for (int c = 0; c < 20; ++c) {
      e.ConfirmAllEvicted();
      test::CycleLog l = test::Log(e, e.ScheduleCycle());
      for (auto& s : l.admitted) log.push_back("A " + s);
      for (auto& s : l.preempted) log.push_back("P " + s);
      for (auto& s : l.pending) log.push_back("W " + s);
      if (c % 3 == 2) {
        for (WorkloadHandle id : e.Workloads()) {
          auto st = e.GetWorkload(id).value();
          if (st.state == WorkloadState::kAdmitted) {
            REQUIRE(e.Finish(st.namespace_, st.name).ok());
            break;
          }
        }
      }
    }
    return log;
  };
  const auto first = run();
  CHECK_FALSE(first.empty());
  CHECK(run() == first);
}

}  // namespace
}  // namespace engine_test
}  // namespace qm
