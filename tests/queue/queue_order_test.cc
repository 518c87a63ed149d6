// Queueing through qm::Engine (docs/semantics.md §3): heap order, StrictFIFO vs BestEffortFIFO, what brings
// parked workloads back, and why a workload waits outside any queue (docs/semantics.md §3.9, messages of §8).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace queue_order_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

Time At(int64_t seconds) { return Time::FromUnixSeconds(1'700'000'000 + seconds); }

std::vector<std::string> Names(const Engine& e, const std::vector<WorkloadHandle>& ids) {
  std::vector<std::string> out;
  for (WorkloadHandle id : ids) out.push_back(e.WorkloadName(id));
  return out;
}

// The active queue only, in consideration order (`pending` lists the parked ones after it).
std::vector<std::string> Pending(const Engine& e, const std::string& cq) {
  const auto q = e.GetClusterQueue(cq);
  REQUIRE(q.ok());
  std::vector<WorkloadHandle> active;
  for (WorkloadHandle id : q->pending)
    if (std::find(q->inadmissible.begin(), q->inadmissible.end(), id) == q->inadmissible.end()) active.push_back(id);
  return Names(e, active);
}

std::vector<std::string> Inadmissible(const Engine& e, const std::string& cq) {
  const auto q = e.GetClusterQueue(cq);
  REQUIRE(q.ok());
  return Names(e, q->inadmissible);
}

WorkloadStatus Status(const Engine& e, const std::string& ns, const std::string& name) {
  const auto w = e.GetWorkload(ns, name);
  REQUIRE(w.ok());
  return *w;
}

std::vector<std::string> Admitted(const Engine& e, const CycleResult& r) { return test::Log(e, r).admitted; }

// One ClusterQueue `eng` (the given spec) over flavor `default`, namespace `a`, LocalQueue a/q.
Engine OneQueue(ClusterQueue cq) {
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Namespace("a"), test::Flavor("default"), cq,
                                          test::LocalQueue("a", "q", "eng")})
              .ok());
  return e;
}

TEST_CASE("Queue order: priority, then creation time, then UID, then submission order", "[queue][order]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 100 * kCpu)}));
  // Setup: submitted in an order unrelated to the expected one.
  REQUIRE(e.Submit(Workload("a", "same-time-second").Queue("q").Request("cpu", kCpu).Created(At(40))).ok());
  REQUIRE(e.Submit(Workload("a", "uid-z").Queue("q").Request("cpu", kCpu).Created(At(30)).Uid("zzz")).ok());
  REQUIRE(e.Submit(Workload("a", "late-high").Queue("q").Request("cpu", kCpu).Priority(5).Created(At(50))).ok());
  REQUIRE(e.Submit(Workload("a", "mid").Queue("q").Request("cpu", kCpu).Created(At(20))).ok());
  REQUIRE(e.Submit(Workload("a", "uid-a").Queue("q").Request("cpu", kCpu).Created(At(30)).Uid("aaa")).ok());
  REQUIRE(e.Submit(Workload("a", "early").Queue("q").Request("cpu", kCpu).Created(At(10))).ok());
  REQUIRE(e.Submit(Workload("a", "low").Queue("q").Request("cpu", kCpu).Priority(-1).Created(At(0))).ok());
  REQUIRE(e.Submit(Workload("a", "same-time-third").Queue("q").Request("cpu", kCpu).Created(At(40))).ok());
  const std::vector<std::string> expected = {"a/late-high", "a/early",           "a/mid",           "a/uid-a",
                                             "a/uid-z",     "a/same-time-second", "a/same-time-third", "a/low"};
  CHECK(Pending(e, "eng") == expected);
  // Expect: one head per cycle, admitted in exactly that order.
  std::vector<std::string> order;
  for (int i = 0; i < 10; ++i)
    for (const std::string& w : Admitted(e, e.ScheduleCycle())) order.push_back(w);
  CHECK(order == expected);
}

TEST_CASE("Queue order: a priority change of a pending workload reorders it", "[queue][order]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 100 * kCpu)}));
  REQUIRE(e.Submit(Workload("a", "first").Queue("q").Request("cpu", kCpu).Created(At(1))).ok());
  REQUIRE(e.Submit(Workload("a", "second").Queue("q").Request("cpu", kCpu).Created(At(2))).ok());
  CHECK(Pending(e, "eng") == std::vector<std::string>{"a/first", "a/second"});
  REQUIRE(e.Apply(Workload("a", "second").Queue("q").Request("cpu", kCpu).Created(At(2)).Priority(3)).ok());
  CHECK(Pending(e, "eng") == std::vector<std::string>{"a/second", "a/first"});
}

// 4 CPU; `running` holds 3; `big` (2 CPU, older) and `small` (1 CPU, newer) wait.
Engine Blocked(ClusterQueue cq) {
  Engine e = OneQueue(cq.Flavor("default", {Q("cpu", 4 * kCpu)}));
  REQUIRE(e.Submit(Workload("a", "running").Queue("q").Request("cpu", 3 * kCpu).Created(At(0))).ok());
  REQUIRE(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/running"});
  REQUIRE(e.Submit(Workload("a", "big").Queue("q").Request("cpu", 2 * kCpu).Created(At(1))).ok());
  REQUIRE(e.Submit(Workload("a", "small").Queue("q").Request("cpu", 1 * kCpu).Created(At(2))).ok());
  return e;
}

TEST_CASE("StrictFIFO: an unadmittable head blocks the workloads behind it", "[queue][strict]") {
  Engine e = Blocked(ClusterQueue("eng").Strict());
  // Expect: `big` stays the head, back in the active queue every cycle; `small` (which would fit)
  // is never considered.
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(Admitted(e, e.ScheduleCycle()).empty());
    CHECK(Pending(e, "eng") == std::vector<std::string>{"a/big", "a/small"});
    CHECK(Inadmissible(e, "eng").empty());
    CHECK_FALSE(Status(e, "a", "big").inadmissible);
  }
  // Once `running` finishes, the head and then the next are admitted.
  REQUIRE(e.Finish("a", "running").ok());
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/big"});
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/small"});
}

TEST_CASE("BestEffortFIFO: an unadmittable head is parked and the next workload is admitted", "[queue][besteffort]") {
  Engine e = Blocked(ClusterQueue("eng"));
  CHECK(Admitted(e, e.ScheduleCycle()).empty());
  CHECK(Inadmissible(e, "eng") == std::vector<std::string>{"a/big"});
  CHECK(Status(e, "a", "big").inadmissible);
  CHECK(Status(e, "a", "big").state == WorkloadState::kPending);
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/small"});
  // Nothing changed for `big`: further cycles leave it parked.
  CHECK(e.ScheduleCycle().empty());
  CHECK(Inadmissible(e, "eng") == std::vector<std::string>{"a/big"});
}

TEST_CASE("BestEffortFIFO: what moves parked workloads back (docs/semantics.md §3.8)", "[queue][besteffort]") {
  // Two ClusterQueues of cohort `pool` (team-b has no spare quota to lend: it uses all of it), and
  // a standalone queue `other`.
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{
                      test::Namespace("a"), test::Namespace("b"), test::Namespace("o"), test::Flavor("default"),
                      ClusterQueue("eng").Cohort("pool").Flavor("default", {Q("cpu", 4 * kCpu)}),
                      ClusterQueue("team-b").Cohort("pool").Flavor("default", {Q("cpu", 2 * kCpu)}),
                      ClusterQueue("other").Flavor("default", {Q("cpu", 2 * kCpu)}),
                      test::LocalQueue("a", "q", "eng"), test::LocalQueue("b", "q", "team-b"),
                      test::LocalQueue("o", "q", "other")})
              .ok());
  REQUIRE(e.Submit(Workload("b", "b-job").Queue("q").Request("cpu", 2 * kCpu).Created(At(0))).ok());
  REQUIRE(e.Submit(Workload("a", "running").Queue("q").Request("cpu", 3 * kCpu).Created(At(0))).ok());
  REQUIRE(e.Submit(Workload("o", "o-job").Queue("q").Request("cpu", 1 * kCpu).Created(At(0))).ok());
  e.ScheduleCycle();
  REQUIRE(Status(e, "a", "running").state == WorkloadState::kAdmitted);
  REQUIRE(Status(e, "b", "b-job").state == WorkloadState::kAdmitted);
  REQUIRE(Status(e, "o", "o-job").state == WorkloadState::kAdmitted);
  // `big` needs 2 CPU; eng has 1 left and the cohort nothing. It is parked.
  REQUIRE(e.Submit(Workload("a", "big").Queue("q").Request("cpu", 2 * kCpu).Created(At(1))).ok());
  e.ScheduleCycle();
  REQUIRE(Inadmissible(e, "eng") == std::vector<std::string>{"a/big"});

  SECTION("not: a new workload in the same queue") {
    REQUIRE(e.Submit(Workload("a", "tiny").Queue("q").Request("cpu", 1 * kCpu).Created(At(5))).ok());
    CHECK(Inadmissible(e, "eng") == std::vector<std::string>{"a/big"});
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/tiny"});
    CHECK(Inadmissible(e, "eng") == std::vector<std::string>{"a/big"});
  }
  SECTION("not: a workload finishing in a queue outside the cohort") {
    REQUIRE(e.Finish("o", "o-job").ok());
    CHECK(Inadmissible(e, "eng") == std::vector<std::string>{"a/big"});
    CHECK(e.ScheduleCycle().empty());
  }
  SECTION("a workload of the same queue finishes") {
    REQUIRE(e.Finish("a", "running").ok());
    CHECK(Inadmissible(e, "eng").empty());
    CHECK(Pending(e, "eng") == std::vector<std::string>{"a/big"});
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/big"});
  }
  SECTION("a workload of the same queue is deleted") {
    REQUIRE(e.Delete(ObjectRef{ObjectKind::kWorkload, "a", "running"}).ok());
    CHECK(Pending(e, "eng") == std::vector<std::string>{"a/big"});
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/big"});
  }
  SECTION("a workload finishes in another queue of the same cohort tree") {
    REQUIRE(e.Finish("b", "b-job").ok());
    CHECK(Pending(e, "eng") == std::vector<std::string>{"a/big"});
    // 1 CPU of eng's own + 1 borrowed from team-b's now idle quota.
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/big"});
  }
  SECTION("the ClusterQueue's spec changes") {
    REQUIRE(e.Apply(ClusterQueue("eng").Cohort("pool").Flavor("default", {Q("cpu", 5 * kCpu)})).ok());
    CHECK(Pending(e, "eng") == std::vector<std::string>{"a/big"});
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/big"});
  }
  SECTION("a Cohort of the tree is created or updated") {
    CohortSpec pool;
    pool.name = "pool";
    pool.resource_groups.push_back(
        ResourceGroupSpec{{"cpu"}, {FlavorQuotasSpec{"default", {ResourceQuotaSpec{"cpu", 1 * kCpu, {}, {}}}}}});
    REQUIRE(e.Apply(pool).ok());
    CHECK(Pending(e, "eng") == std::vector<std::string>{"a/big"});
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/big"});
  }
}

TEST_CASE("Multi-cycle: admit, finish, the next one is admitted", "[queue][cycles]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 2 * kCpu)}));
  for (int i = 1; i <= 3; ++i)
    REQUIRE(e.Submit(Workload("a", "job-" + std::to_string(i)).Queue("q").Request("cpu", 2 * kCpu).Created(At(i))).ok());
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/job-1"});
  // job-2 is parked, and job-3 with it: same shape and priority (equivalence parking, docs/semantics.md §3.7).
  CHECK(Admitted(e, e.ScheduleCycle()).empty());
  CHECK(Inadmissible(e, "eng") == std::vector<std::string>{"a/job-2", "a/job-3"});
  CHECK(Pending(e, "eng").empty());
  CHECK(Status(e, "a", "job-3").message ==
        "Bypassed scheduling evaluation because an equivalent workload recently failed");
  CHECK(Names(e, e.GetClusterQueue("eng")->pending) == std::vector<std::string>{"a/job-2", "a/job-3"});
  CHECK(e.ScheduleCycle().empty());
  REQUIRE(e.Finish("a", "job-1").ok());
  CHECK(Status(e, "a", "job-1").state == WorkloadState::kFinished);
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/job-2"});
  e.RunUntilStable();
  CHECK(Status(e, "a", "job-3").state == WorkloadState::kPending);
  REQUIRE(e.Finish("a", "job-2").ok());
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/job-3"});
  const auto q = e.GetClusterQueue("eng");
  REQUIRE(q.ok());
  CHECK(Names(e, q->admitted) == std::vector<std::string>{"a/job-3"});
  CHECK(q->usage.at(0).usage == 2 * kCpu);
  CHECK(q->pending.empty());
  CHECK(q->inadmissible.empty());
  // A finished workload cannot finish twice.
  CHECK_FALSE(e.Finish("a", "job-1").ok());
}

TEST_CASE("A stopped ClusterQueue admits nothing; its workloads say why", "[queue][stopped]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}).Stop(StopPolicy::kHold));
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu).Created(At(1))).ok());
  const auto q = e.GetClusterQueue("eng");
  REQUIRE(q.ok());
  CHECK_FALSE(q->active);
  CHECK(q->active_message == "Can't admit new workloads: is stopped.");
  CHECK(e.ScheduleCycle().empty());
  const WorkloadStatus w = Status(e, "a", "w");
  CHECK(w.state == WorkloadState::kPending);
  CHECK(w.cluster_queue == "eng");
  CHECK(w.reason == "Suspended");
  CHECK(w.message == "ClusterQueue eng is inactive");  // "is stopped" only for workloads holding quota
  // Restarting it admits the workload.
  REQUIRE(e.Apply(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)})).ok());
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
}

TEST_CASE("HoldAndDrain on a ClusterQueue evicts its admitted workloads", "[queue][stopped]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}));
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu).Created(At(1))).ok());
  REQUIRE(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
  REQUIRE(e.Apply(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}).Stop(StopPolicy::kHoldAndDrain)).ok());
  CHECK(Status(e, "a", "w").state == WorkloadState::kEvicting);
  REQUIRE(e.ConfirmEvicted("a", "w").ok());
  const WorkloadStatus w = Status(e, "a", "w");
  CHECK(w.state == WorkloadState::kPending);
  CHECK(w.message == "ClusterQueue eng is inactive");  // pending again: no longer "is stopped"
  CHECK(e.ScheduleCycle().empty());
  CHECK(Status(e, "a", "w").state == WorkloadState::kPending);
}

TEST_CASE("A stopped LocalQueue: its workloads leave the ClusterQueue", "[queue][stopped]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}));
  LocalQueueSpec stopped = std::get<LocalQueueSpec>(test::LocalQueue("a", "q", "eng"));
  stopped.stop_policy = StopPolicy::kHold;
  REQUIRE(e.Apply(stopped).ok());
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu).Created(At(1))).ok());
  CHECK(e.ScheduleCycle().empty());
  const WorkloadStatus w = Status(e, "a", "w");
  CHECK(w.state == WorkloadState::kPending);
  CHECK(w.message == "LocalQueue q is inactive");
  CHECK(Pending(e, "eng").empty());
  // Resuming it brings the workload back.
  stopped.stop_policy = StopPolicy::kNone;
  REQUIRE(e.Apply(stopped).ok());
  CHECK(Pending(e, "eng") == std::vector<std::string>{"a/w"});
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
}

// docs/semantics.md §8: "CQ inactive / stopped; LQ stopped" → `Suspended`.
TEST_CASE("A stopped LocalQueue: reason Suspended (docs/semantics.md §8)", "[queue][stopped]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}));
  LocalQueueSpec stopped = std::get<LocalQueueSpec>(test::LocalQueue("a", "q", "eng"));
  stopped.stop_policy = StopPolicy::kHold;
  REQUIRE(e.Apply(stopped).ok());
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu).Created(At(1))).ok());
  CHECK(Status(e, "a", "w").reason == "Suspended");
}

TEST_CASE("HoldAndDrain on a LocalQueue evicts its admitted workloads", "[queue][stopped]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}));
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu).Created(At(1))).ok());
  REQUIRE(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
  LocalQueueSpec drained = std::get<LocalQueueSpec>(test::LocalQueue("a", "q", "eng"));
  drained.stop_policy = StopPolicy::kHoldAndDrain;
  REQUIRE(e.Apply(drained).ok());
  CHECK(Status(e, "a", "w").state == WorkloadState::kEvicting);
}

TEST_CASE("namespaceSelector mismatch: pending, parked, Misconfigured", "[queue][selector]") {
  for (bool strict : {false, true}) {
    CAPTURE(strict);
    ClusterQueue cq("eng");
    ClusterQueueSpec spec = cq.Flavor("default", {Q("cpu", 4 * kCpu)}).spec();
    spec.namespace_selector = LabelSelector{{{"team", "eng"}}, {}};
    if (strict) spec.queueing_strategy = QueueingStrategy::kStrictFIFO;
    Engine e;
    REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Namespace("a"), test::Flavor("default"), spec,
                                            test::LocalQueue("a", "q", "eng")})
                .ok());
    REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu).Created(At(1))).ok());
    CHECK(e.ScheduleCycle().decisions.size() == 1);  // considered, not admitted
    WorkloadStatus w = Status(e, "a", "w");
    CHECK(w.state == WorkloadState::kPending);
    CHECK(w.reason == "Misconfigured");
    CHECK(w.message == "workload namespace doesn't match ClusterQueue selector");
    // Parked in both strategies (docs/semantics.md §3.6: StrictFIFO requeues all but NamespaceMismatch to the heap).
    CHECK(w.inadmissible);
    CHECK(Inadmissible(e, "eng") == std::vector<std::string>{"a/w"});
    CHECK(e.ScheduleCycle().empty());
    // Labelling the namespace so it matches brings the workload back.
    REQUIRE(e.Apply(test::Namespace("a", {{"team", "eng"}})).ok());
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
  }
}

TEST_CASE("A flush moves parked classes whole, and splits one whose namespaces no longer all match",
          "[queue][selector][besteffort]") {
  // One class (same shape, same priority) parked from two namespaces; namespace b then stops
  // matching the selector. The flush must send a's members back and keep b's parked, and the
  // class parked from b alone must stay whole (qm/queue/pending_queue.h, FlushClusterQueue).
  ClusterQueue cq("eng");
  ClusterQueueSpec spec = cq.Flavor("default", {Q("cpu", 4 * kCpu)}).spec();
  spec.namespace_selector = LabelSelector{{{"team", "eng"}}, {}};
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Namespace("a", {{"team", "eng"}}), test::Namespace("b", {{"team", "eng"}}),
                                          test::Flavor("default"), spec, test::LocalQueue("a", "q", "eng"),
                                          test::LocalQueue("b", "q", "eng")})
              .ok());
  REQUIRE(e.Submit(Workload("a", "running").Queue("q").Request("cpu", 4 * kCpu).Created(At(0))).ok());
  REQUIRE(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/running"});
  REQUIRE(e.Submit(Workload("a", "x1").Queue("q").Request("cpu", kCpu).Created(At(1))).ok());
  REQUIRE(e.Submit(Workload("b", "y1").Queue("q").Request("cpu", kCpu).Created(At(2))).ok());
  REQUIRE(e.Submit(Workload("a", "x2").Queue("q").Request("cpu", kCpu).Created(At(3))).ok());
  REQUIRE(e.Submit(Workload("b", "big").Queue("q").Request("cpu", 3 * kCpu).Created(At(4))).ok());
  // Two cycles: the 1-CPU class fails at its head and is parked whole, then `big` alone.
  e.ScheduleCycle();
  e.ScheduleCycle();
  REQUIRE(Inadmissible(e, "eng") == std::vector<std::string>{"a/x1", "b/y1", "a/x2", "b/big"});
  CHECK(Status(e, "b", "y1").message == "Bypassed scheduling evaluation because an equivalent workload recently failed");
  CHECK(Status(e, "b", "y1").inadmissible);
  // Namespace b stops matching; then quota is released, which flushes the queue.
  REQUIRE(e.Apply(test::Namespace("b", {{"team", "other"}})).ok());
  REQUIRE(e.Finish("a", "running").ok());
  CHECK(Pending(e, "eng") == std::vector<std::string>{"a/x1", "a/x2"});
  CHECK(Inadmissible(e, "eng") == std::vector<std::string>{"b/y1", "b/big"});
  CHECK_FALSE(Status(e, "a", "x2").inadmissible);
  CHECK(Status(e, "b", "y1").inadmissible);
  CHECK(Status(e, "b", "big").inadmissible);
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/x1"});
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/x2"});
  CHECK(e.ScheduleCycle().empty());
  // Matching again, the next flush brings b's members back too, in queue order.
  REQUIRE(e.Apply(test::Namespace("b", {{"team", "eng"}})).ok());
  REQUIRE(e.Finish("a", "x1").ok());
  CHECK(Inadmissible(e, "eng").empty());
  CHECK(Pending(e, "eng") == std::vector<std::string>{"b/y1", "b/big"});
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"b/y1"});
}

TEST_CASE("A ClusterQueue without namespaceSelector matches no namespace", "[queue][selector]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}).NoNamespaceSelector());
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu).Created(At(1))).ok());
  e.RunUntilStable();
  const WorkloadStatus w = Status(e, "a", "w");
  CHECK(w.state == WorkloadState::kPending);
  CHECK(w.message == "workload namespace doesn't match ClusterQueue selector");
}

TEST_CASE("A missing LocalQueue: the workload waits outside any ClusterQueue", "[queue][missing]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}));
  REQUIRE(e.Submit(Workload("a", "w").Queue("nope").Request("cpu", kCpu).Created(At(1))).ok());
  CHECK(e.ScheduleCycle().empty());
  const WorkloadStatus w = Status(e, "a", "w");
  CHECK(w.state == WorkloadState::kPending);
  CHECK(w.cluster_queue.empty());
  CHECK(w.message == "LocalQueue nope doesn't exist");
  CHECK(Pending(e, "eng").empty());
  // Creating the LocalQueue picks it up.
  REQUIRE(e.Apply(test::LocalQueue("a", "nope", "eng")).ok());
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
}

TEST_CASE("A missing ClusterQueue: the workload waits outside any ClusterQueue", "[queue][missing]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}));
  REQUIRE(e.Apply(test::LocalQueue("a", "orphan", "gone")).ok());
  REQUIRE(e.Submit(Workload("a", "w").Queue("orphan").Request("cpu", kCpu).Created(At(1))).ok());
  CHECK(e.ScheduleCycle().empty());
  const WorkloadStatus w = Status(e, "a", "w");
  CHECK(w.state == WorkloadState::kPending);
  CHECK(w.cluster_queue.empty());
  CHECK(w.message == "ClusterQueue gone doesn't exist");
  // Deleting a ClusterQueue sends its pending workloads there too.
  REQUIRE(e.Submit(Workload("a", "v").Queue("q").Request("cpu", 100 * kCpu).Created(At(2))).ok());
  REQUIRE(e.Delete(ObjectRef{ObjectKind::kClusterQueue, "", "eng"}).ok());
  CHECK(Status(e, "a", "v").message == "ClusterQueue eng doesn't exist");
  CHECK(Status(e, "a", "v").cluster_queue.empty());
}

// docs/semantics.md §8: "CQ not found / validation or selector failure; LQ or CQ missing" → `Misconfigured`.
TEST_CASE("A missing LocalQueue or ClusterQueue: reason Misconfigured (docs/semantics.md §8)", "[queue][missing]") {
  Engine e = OneQueue(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}));
  REQUIRE(e.Apply(test::LocalQueue("a", "orphan", "gone")).ok());
  REQUIRE(e.Submit(Workload("a", "no-lq").Queue("nope").Request("cpu", kCpu).Created(At(1))).ok());
  REQUIRE(e.Submit(Workload("a", "no-cq").Queue("orphan").Request("cpu", kCpu).Created(At(1))).ok());
  CHECK(Status(e, "a", "no-lq").reason == "Misconfigured");
  CHECK(Status(e, "a", "no-cq").reason == "Misconfigured");
}

}  // namespace
}  // namespace queue_order_test
}  // namespace qm
