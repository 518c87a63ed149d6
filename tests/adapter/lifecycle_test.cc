// Kueue's workload life cycle outside the scheduler (issue 24): what its controllers change on
// workloads between cycles. WorkloadPriorityClass value changes (docs/semantics.md §1.6.1), the
// messages of pending workloads whose queue is stopped (§3.9), reclaimable pods of workloads
// without quota (§1.7.1) and the status the workload controller writes between cycles (§8.1).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace lifecycle_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

ObjectSpec Wpc(std::string name, int32_t value) { return WorkloadPriorityClassSpec{std::move(name), value, ""}; }

// `w` referencing WorkloadPriorityClass `cls` through its priorityClassRef.
WorkloadSpec Classed(const Workload& w, const std::string& cls) {
  WorkloadSpec spec = w.spec();
  spec.priority_class = PriorityClassRef{PriorityClassSource::kWorkloadPriorityClass, cls};
  return spec;
}

int32_t PriorityOf(const Engine& e, const char* name) { return e.GetWorkload("a", name)->priority; }

std::vector<std::string> Admitted(const Engine& e, const CycleResult& r) { return test::Log(e, r).admitted; }
std::vector<std::string> Preempted(const Engine& e, const CycleResult& r) { return test::Log(e, r).preempted; }

TEST_CASE("WorkloadPriorityClass: a value change rewrites the priority of the workloads that reference it",
          "[adapter][lifecycle][priority-class]") {
  Engine e = test::OneQueueEngine(4 * kCpu);
  REQUIRE(e.Apply(std::vector<ObjectSpec>{Wpc("high", 100), Wpc("other", 7)}).ok());

  SECTION("every state is updated, an explicit spec.priority included; other classes are not") {
    // Setup: `run` holds quota, `wait` is pending, `off` is inactive, `done` finished, `mine` names
    // the class but set spec.priority 5 itself, `label` names it through the priority-class label,
    // `else` names another class. Expect: after high=1000 all but `else` read 1000.
    REQUIRE(e.Submit(Classed(Workload("a", "run").Queue("q").Request("cpu", 4 * kCpu), "high")).ok());
    e.ScheduleCycle();
    REQUIRE(e.Submit(Classed(Workload("a", "wait").Queue("q").Request("cpu", kCpu), "high")).ok());
    WorkloadSpec off = Classed(Workload("a", "off").Queue("q").Request("cpu", kCpu), "high");
    off.active = false;
    REQUIRE(e.Submit(off).ok());
    REQUIRE(e.Submit(Classed(Workload("a", "done").Queue("q").Request("cpu", kCpu), "high")).ok());
    REQUIRE(e.Finish("a", "done").ok());
    REQUIRE(e.Submit(Classed(Workload("a", "mine").Queue("q").Request("cpu", kCpu).Priority(5), "high")).ok());
    WorkloadSpec label = Workload("a", "label").Queue("q").Request("cpu", kCpu).spec();
    label.labels = {{"kueue.x-k8s.io/priority-class", "high"}};
    REQUIRE(e.Submit(label).ok());
    REQUIRE(e.Submit(Classed(Workload("a", "else").Queue("q").Request("cpu", kCpu), "other")).ok());
    CHECK(PriorityOf(e, "mine") == 5);
    CHECK(PriorityOf(e, "label") == 100);

    REQUIRE(e.Apply(std::vector<ObjectSpec>{Wpc("high", 1000)}).ok());
    for (const char* name : {"run", "wait", "off", "done", "mine", "label"}) {
      INFO(name);
      CHECK(PriorityOf(e, name) == 1000);
    }
    CHECK(PriorityOf(e, "else") == 7);
    CHECK(e.LastEvents().empty());  // nothing for a host to do
    CHECK(e.CheckInvariants().ok());
  }

  SECTION("an update that keeps the value touches nothing") {
    // Setup: `mine` set spec.priority 5 and names `high`. Expect: re-applying high=100 leaves 5
    // (Kueue reconciles only on creation and value changes).
    REQUIRE(e.Submit(Classed(Workload("a", "mine").Queue("q").Request("cpu", kCpu).Priority(5), "high")).ok());
    REQUIRE(e.Apply(std::vector<ObjectSpec>{Wpc("high", 100)}).ok());
    CHECK(PriorityOf(e, "mine") == 5);
  }

  SECTION("a class deleted and created again with another value resyncs") {
    REQUIRE(e.Submit(Classed(Workload("a", "w").Queue("q").Request("cpu", kCpu), "high")).ok());
    REQUIRE(e.Delete(ObjectRef{ObjectKind::kWorkloadPriorityClass, "", "high"}).ok());
    CHECK(PriorityOf(e, "w") == 100);  // deleting a class changes nobody
    REQUIRE(e.Apply(std::vector<ObjectSpec>{Wpc("high", 3)}).ok());
    CHECK(PriorityOf(e, "w") == 3);
  }
}

TEST_CASE("WorkloadPriorityClass: a raised class lets a pending workload preempt", "[adapter][lifecycle][priority-class]") {
  // Setup: `run` (class batch=100) holds all 4 cpu; `hurry` (class urgent=50) waits and is parked:
  // it may not preempt a higher priority. Expect: urgent=200 puts `hurry` back in the active queue
  // under its new key, and the next cycle preempts `run` for it.
  Engine e = test::OneQueueEngine(4 * kCpu, ClusterQueue("eng").WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority));
  REQUIRE(e.Apply(std::vector<ObjectSpec>{Wpc("batch", 100), Wpc("urgent", 50)}).ok());
  REQUIRE(e.Submit(Classed(Workload("a", "run").Queue("q").Request("cpu", 4 * kCpu), "batch")).ok());
  e.ScheduleCycle();
  REQUIRE(e.Submit(Classed(Workload("a", "hurry").Queue("q").Request("cpu", 4 * kCpu), "urgent")).ok());
  CHECK(Preempted(e, e.ScheduleCycle()).empty());
  CHECK(e.GetWorkload("a", "hurry")->inadmissible);

  REQUIRE(e.Apply(std::vector<ObjectSpec>{Wpc("urgent", 200)}).ok());
  CHECK_FALSE(e.GetWorkload("a", "hurry")->inadmissible);
  CHECK(e.CheckInvariants().ok());
  CHECK(Preempted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/run<-a/hurry"});
}

TEST_CASE("WorkloadPriorityClass: a lowered class makes an admitted workload a candidate", "[adapter][lifecycle][priority-class]") {
  // Setup: `run` (class prod=100) holds all 4 cpu; `dev` (class dev=50) is parked. Expect: prod=10
  // re-keys `run` among the preemption candidates and flushes the parked `dev`, which preempts it.
  Engine e = test::OneQueueEngine(4 * kCpu, ClusterQueue("eng").WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority));
  REQUIRE(e.Apply(std::vector<ObjectSpec>{Wpc("prod", 100), Wpc("dev", 50)}).ok());
  REQUIRE(e.Submit(Classed(Workload("a", "run").Queue("q").Request("cpu", 4 * kCpu), "prod")).ok());
  e.ScheduleCycle();
  REQUIRE(e.Submit(Classed(Workload("a", "dev").Queue("q").Request("cpu", 4 * kCpu), "dev")).ok());
  CHECK(Preempted(e, e.ScheduleCycle()).empty());

  REQUIRE(e.Apply(std::vector<ObjectSpec>{Wpc("prod", 10)}).ok());
  CHECK(e.CheckInvariants().ok());
  CHECK(Preempted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/run<-a/dev"});
}

TEST_CASE("WorkloadPriorityClass: pending order follows the new value, and snapshots keep it",
          "[adapter][lifecycle][priority-class]") {
  // Setup: StrictFIFO queue with 1 cpu held by `x`; `a1` (class low=10, older) and `b1` (class
  // mid=20) wait. Expect: after low=30, `a1` heads the queue and is admitted when `x` finishes, in
  // the engine and in one restored from a snapshot taken after the change.
  Engine e = test::OneQueueEngine(kCpu, ClusterQueue("eng").Strict());
  REQUIRE(e.Apply(std::vector<ObjectSpec>{Wpc("low", 10), Wpc("mid", 20)}).ok());
  REQUIRE(e.Submit(Workload("a", "x").Queue("q").Request("cpu", kCpu)).ok());
  e.ScheduleCycle();
  REQUIRE(e.Submit(Classed(Workload("a", "a1").Queue("q").Request("cpu", kCpu).Created(Time::FromUnixSeconds(1)), "low")).ok());
  REQUIRE(e.Submit(Classed(Workload("a", "b1").Queue("q").Request("cpu", kCpu).Created(Time::FromUnixSeconds(2)), "mid")).ok());
  e.ScheduleCycle();
  REQUIRE(e.Apply(std::vector<ObjectSpec>{Wpc("low", 30)}).ok());
  REQUIRE(e.CheckInvariants().ok());
  absl::StatusOr<std::string> saved = e.Save();
  REQUIRE(saved.ok());
  absl::StatusOr<Engine> restored = Engine::Restore(*saved);
  REQUIRE(restored.ok());
  CHECK(restored->CheckInvariants().ok());
  CHECK(restored->GetWorkload("a", "a1")->priority == 30);
  for (Engine* engine : {&e, &*restored}) {
    REQUIRE(engine->Finish("a", "x").ok());
    CHECK(Admitted(*engine, engine->ScheduleCycle()) == std::vector<std::string>{"a/a1"});
  }
}

TEST_CASE("Stopped queues: pending workloads read 'is inactive', workloads holding quota 'is stopped'",
          "[adapter][lifecycle][stopped]") {
  SECTION("a stopped ClusterQueue") {
    // Setup: `run` holds quota, `wait` is pending; the queue becomes HoldAndDrain. Expect: `wait`
    // says "ClusterQueue eng is inactive" (reason Suspended), as the cycle's refusal does; `run`
    // is evicted with "The ClusterQueue is stopped".
    Engine e = test::OneQueueEngine(kCpu);
    REQUIRE(e.Submit(Workload("a", "run").Queue("q").Request("cpu", kCpu)).ok());
    e.ScheduleCycle();
    REQUIRE(e.Submit(Workload("a", "wait").Queue("q").Request("cpu", kCpu)).ok());
    REQUIRE(e.Apply(std::vector<ObjectSpec>{ClusterQueue("eng").Flavor("default", {Q("cpu", kCpu)}).Stop(StopPolicy::kHoldAndDrain)}).ok());
    const auto wait = e.GetWorkload("a", "wait");
    CHECK(wait->reason == "Suspended");
    CHECK(wait->message == "ClusterQueue eng is inactive");
    const auto run = e.GetWorkload("a", "run");
    CHECK(run->state == WorkloadState::kEvicting);
    CHECK(run->message == "The ClusterQueue is stopped");
    const auto a = e.AssignFlavors("a", "wait");
    REQUIRE(a.ok());
    CHECK(a->refused == "ClusterQueue eng is inactive");
    // A workload submitted while the queue is stopped reads the same.
    REQUIRE(e.Submit(Workload("a", "late").Queue("q").Request("cpu", kCpu)).ok());
    CHECK(e.GetWorkload("a", "late")->message == "ClusterQueue eng is inactive");
  }
  SECTION("a stopped LocalQueue") {
    // Setup: LocalQueue q is stopped with HoldAndDrain. Expect: its pending workload says
    // "LocalQueue q is inactive" (Suspended); the admitted one is evicted with "The LocalQueue is stopped".
    Engine e = test::OneQueueEngine(kCpu);
    REQUIRE(e.Submit(Workload("a", "run").Queue("q").Request("cpu", kCpu)).ok());
    e.ScheduleCycle();
    REQUIRE(e.Submit(Workload("a", "wait").Queue("q").Request("cpu", kCpu)).ok());
    LocalQueueSpec lq = std::get<LocalQueueSpec>(test::LocalQueue("a", "q", "eng"));
    lq.stop_policy = StopPolicy::kHoldAndDrain;
    REQUIRE(e.Apply(std::vector<ObjectSpec>{lq}).ok());
    CHECK(e.GetWorkload("a", "wait")->reason == "Suspended");
    CHECK(e.GetWorkload("a", "wait")->message == "LocalQueue q is inactive");
    CHECK(e.GetWorkload("a", "run")->message == "The LocalQueue is stopped");
  }
}

TEST_CASE("Reclaimable pods: a pending workload requests only the pods still to run", "[adapter][lifecycle][reclaimable]") {
  SECTION("loaded pending with reclaimable pods") {
    // Setup: 3 cpu; `big` (4 pods of 1 cpu) arrives pending with 2 reclaimable pods. Expect: the
    // assigner sees 2 pods, the cycle admits it with count 2, using 2 cpu.
    Engine e = test::OneQueueEngine(3 * kCpu);
    WorkloadSpec big = Workload("a", "big").Queue("q").Request("cpu", kCpu).Count(4).spec();
    big.reclaimable_pods = {{"main", 2}};
    REQUIRE(e.Submit(big).ok());
    const auto a = e.AssignFlavors("a", "big");
    REQUIRE(a.ok());
    CHECK(a->representative_mode == AssignmentMode::kFit);
    REQUIRE(a->pod_sets.size() == 1);
    CHECK(a->pod_sets[0].count == 2);
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/big"});
    CHECK(e.GetWorkload("a", "big")->admission->pod_sets[0].count == 2);
    CHECK(e.GetClusterQueue("eng")->usage[0].usage == 2 * kCpu);
    CHECK(e.CheckInvariants().ok());
  }
  SECTION("reported by the host while pending") {
    // Setup: 3 cpu, 2 held; `half` (2 pods of 2 cpu) is parked. Expect: 1 reclaimable pod brings it
    // back to the active queue (a new equivalence class) asking for 2 cpu; 2 pods need no more
    // than the count; a pending workload may lower its count again; a finished one refuses.
    Engine e = test::OneQueueEngine(3 * kCpu);
    REQUIRE(e.Submit(Workload("a", "run").Queue("q").Request("cpu", 2 * kCpu)).ok());
    e.ScheduleCycle();
    REQUIRE(e.Submit(Workload("a", "half").Queue("q").Request("cpu", 2 * kCpu).Count(2)).ok());
    e.ScheduleCycle();
    REQUIRE(e.GetWorkload("a", "half")->inadmissible);
    REQUIRE(e.SetReclaimablePods("a", "half", "main", 1).ok());
    CHECK_FALSE(e.GetWorkload("a", "half")->inadmissible);
    CHECK(e.CheckInvariants().ok());
    CHECK(e.AssignFlavors("a", "half")->pod_sets[0].count == 1);
    CHECK(e.SetReclaimablePods("a", "half", "main", 3).code() == absl::StatusCode::kInvalidArgument);
    REQUIRE(e.SetReclaimablePods("a", "half", "main", 0).ok());  // no reservation: may decrease
    CHECK(e.AssignFlavors("a", "half")->pod_sets[0].count == 2);
    REQUIRE(e.SetReclaimablePods("a", "half", "main", 1).ok());
    REQUIRE(e.Finish("a", "run").ok());
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/half"});
    CHECK(e.GetClusterQueue("eng")->usage[0].usage == 2 * kCpu);
    REQUIRE(e.Finish("a", "half").ok());
    CHECK(e.SetReclaimablePods("a", "half", "main", 2).code() == absl::StatusCode::kFailedPrecondition);
  }
  SECTION("an evicted workload comes back smaller, and keeps min(admitted, count - reclaimable) pods") {
    // Setup: 4 cpu; `job` (3 pods of 1 cpu) admitted, 1 reclaimable, evicted and released.
    // Expect: re-admitted with count 2 using 2 cpu (not 1); with 2 reclaimable it uses 1 cpu.
    Engine e = test::OneQueueEngine(4 * kCpu);
    REQUIRE(e.Submit(Workload("a", "job").Queue("q").Request("cpu", kCpu).Count(3)).ok());
    e.ScheduleCycle();
    REQUIRE(e.SetReclaimablePods("a", "job", "main", 1).ok());
    REQUIRE(e.Evict("a", "job", "NodeFailures", "").ok());
    REQUIRE(e.ConfirmEvicted("a", "job").ok());
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/job"});
    CHECK(e.GetWorkload("a", "job")->admission->pod_sets[0].count == 2);
    CHECK(e.GetClusterQueue("eng")->usage[0].usage == 2 * kCpu);
    CHECK(e.SetReclaimablePods("a", "job", "main", 0).code() == absl::StatusCode::kInvalidArgument);  // decrease
    REQUIRE(e.SetReclaimablePods("a", "job", "main", 2).ok());
    CHECK(e.GetClusterQueue("eng")->usage[0].usage == kCpu);
    CHECK(e.CheckInvariants().ok());
    absl::StatusOr<std::string> saved = e.Save();
    REQUIRE(saved.ok());
    absl::StatusOr<Engine> restored = Engine::Restore(*saved);
    REQUIRE(restored.ok());
    CHECK(restored->GetClusterQueue("eng")->usage[0].usage == kCpu);
    CHECK(restored->CheckInvariants().ok());
  }
}

TEST_CASE("Controller status: what the workload controller writes on pending workloads between cycles",
          "[adapter][lifecycle][controller-status]") {
  SECTION("namespace not selected, at submission") {
    // Setup: the queue selects nothing (no namespaceSelector). Expect: Misconfigured with Kueue's
    // admissibility text before any cycle.
    Engine e = test::OneQueueEngine(kCpu, ClusterQueue("eng").NoNamespaceSelector());
    REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
    const auto w = e.GetWorkload("a", "w");
    CHECK(w->reason == "Misconfigured");
    CHECK(w->message == "workload namespace doesn't match ClusterQueue selector");
  }
  SECTION("a fresh workload carries no condition; a resolved blockage reads PendingEvaluation") {
    // Setup: LocalQueue q stopped, then resumed. Expect: Suspended "LocalQueue q is inactive", then
    // PendingEvaluation; a workload submitted to a running queue stays reason Pending, no message.
    Engine e = test::OneQueueEngine(kCpu);
    LocalQueueSpec lq = std::get<LocalQueueSpec>(test::LocalQueue("a", "q", "eng"));
    lq.stop_policy = StopPolicy::kHold;
    REQUIRE(e.Apply(lq).ok());
    REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
    CHECK(e.GetWorkload("a", "w")->message == "LocalQueue q is inactive");
    lq.stop_policy = StopPolicy::kNone;
    REQUIRE(e.Apply(lq).ok());
    CHECK(e.GetWorkload("a", "w")->reason == "PendingEvaluation");
    CHECK(e.GetWorkload("a", "w")->message == "Workload is pending evaluation in the scheduling queue");
    REQUIRE(e.Submit(Workload("a", "fresh").Queue("q").Request("cpu", kCpu)).ok());
    CHECK(e.GetWorkload("a", "fresh")->reason == "Pending");
    CHECK(e.GetWorkload("a", "fresh")->message.empty());
  }
  SECTION("released after a host eviction: PendingEvaluation with the eviction's message") {
    Engine e = test::OneQueueEngine(kCpu);
    REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
    e.ScheduleCycle();
    REQUIRE(e.Evict("a", "w", "NodeFailures", "node n-1 failed").ok());
    REQUIRE(e.ConfirmEvicted("a", "w").ok());
    CHECK(e.GetWorkload("a", "w")->reason == "PendingEvaluation");
    CHECK(e.GetWorkload("a", "w")->message == "node n-1 failed");
    CHECK(e.LastEvents()[0].reason == std::string("NodeFailures"));  // the event keeps why
  }
  SECTION("reactivated: Deactivated becomes PendingEvaluation") {
    Engine e = test::OneQueueEngine(kCpu);
    REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
    REQUIRE(e.Deactivate("a", "w").ok());
    CHECK(e.GetWorkload("a", "w")->reason == "Deactivated");
    CHECK(e.GetWorkload("a", "w")->message == "The workload is deactivated");
    REQUIRE(e.Activate("a", "w").ok());
    CHECK(e.GetWorkload("a", "w")->reason == "PendingEvaluation");
    CHECK(e.GetWorkload("a", "w")->message == "Workload is pending evaluation in the scheduling queue");
  }
}

}  // namespace
}  // namespace lifecycle_test
}  // namespace qm
