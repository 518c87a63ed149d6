// The event stream: every call that changes what a host must do reports it, in order, and the
// callback sees the events once the call is complete.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace events_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

// One queue `eng` (4 CPU, preemption of lower priority inside the queue), namespace `a`.
Engine OneQueue() {
  return test::OneQueueEngine(4 * kCpu, ClusterQueue("eng").WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority));
}

// "Kind ns/name" per event, with the reason when there is one.
std::vector<std::string> Describe(const Engine& e, std::span<const Event> events) {
  std::vector<std::string> out;
  for (const Event& ev : events) {
    std::string line = std::string(EventKindName(ev.kind)) + " " + e.WorkloadName(ev.workload);
    if (*ev.reason != '\0') line += std::string(" ") + ev.reason;
    out.push_back(line);
  }
  return out;
}

TEST_CASE("Events: an admission carries its ClusterQueue, flavors and pod counts", "[adapter][events]") {
  Engine e = OneQueue();
  auto id = e.Submit(Workload("a", "job").Queue("q").Request("cpu", kCpu).Count(3));
  REQUIRE(id.ok());
  CHECK(e.LastEvents().empty());  // a submission is nothing to act on
  const CycleResult& r = e.ScheduleCycle();
  REQUIRE(r.events.size() == 1);
  const Event& ev = r.events[0];
  CHECK(ev.kind == EventKind::kAdmitted);
  CHECK(ev.workload == *id);
  CHECK(e.ClusterQueueName(ev.cluster_queue) == "eng");
  REQUIRE(ev.pod_sets.size() == 1);
  CHECK(ev.pod_sets[0].index == 0);
  CHECK(ev.pod_sets[0].count == 3);
  REQUIRE(ev.pod_sets[0].flavors.size() == 1);
  CHECK(e.ResourceName(ev.pod_sets[0].flavors[0].first) == "cpu");
  CHECK(e.FlavorName(ev.pod_sets[0].flavors[0].second) == "default");
  CHECK(e.LastEvents().size() == 1);
}

TEST_CASE("Events: a preemption names the preemptor, Kueue's reason and message; confirming requeues",
          "[adapter][events]") {
  Engine e = OneQueue();
  REQUIRE(e.Submit(Workload("a", "low").Queue("q").Request("cpu", 4 * kCpu)).ok());
  e.ScheduleCycle();
  auto high = e.Submit(Workload("a", "high").Queue("q").Request("cpu", 4 * kCpu).Priority(10));
  REQUIRE(high.ok());
  const CycleResult& r = e.ScheduleCycle();
  REQUIRE(r.events.size() == 1);
  const Event& ev = r.events[0];
  CHECK(ev.kind == EventKind::kPreempted);
  CHECK(e.WorkloadName(ev.workload) == "a/low");
  CHECK(ev.preemptor == *high);
  CHECK(std::string(ev.reason) == "Preempted");
  CHECK(ev.preemption_reason == PreemptionReason::kInClusterQueue);
  CHECK(ev.message.find("Preempted to accommodate a workload") == 0);

  REQUIRE(e.ConfirmEvicted("a", "low").ok());
  CHECK(Describe(e, e.LastEvents()) == std::vector<std::string>{"Requeued a/low Preempted"});
  CHECK(Describe(e, e.ScheduleCycle().events) == std::vector<std::string>{"Admitted a/high"});
}

TEST_CASE("Events: Apply reports the evictions of a HoldAndDrain ClusterQueue and LocalQueue", "[adapter][events]") {
  Engine e = OneQueue();
  REQUIRE(e.Submit(Workload("a", "one").Queue("q").Request("cpu", kCpu)).ok());
  REQUIRE(e.Submit(Workload("a", "two").Queue("q").Request("cpu", kCpu)).ok());
  e.RunUntilStable();
  SECTION("ClusterQueue") {
    REQUIRE(e.Apply(ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}).Stop(StopPolicy::kHoldAndDrain)).ok());
    CHECK(Describe(e, e.LastEvents()) ==
          std::vector<std::string>{"Evicted a/one ClusterQueueStopped", "Evicted a/two ClusterQueueStopped"});
    CHECK(e.LastEvents()[0].message == "The ClusterQueue is stopped");
  }
  SECTION("LocalQueue") {
    LocalQueueSpec lq = std::get<LocalQueueSpec>(test::LocalQueue("a", "q", "eng"));
    lq.stop_policy = StopPolicy::kHoldAndDrain;
    REQUIRE(e.Apply(lq).ok());
    CHECK(Describe(e, e.LastEvents()) ==
          std::vector<std::string>{"Evicted a/one LocalQueueStopped", "Evicted a/two LocalQueueStopped"});
    CHECK(e.LastEvents()[1].message == "The LocalQueue is stopped");
  }
  // Two-phase: the quota is held until the host confirms.
  CHECK(e.GetWorkload("a", "one")->state == WorkloadState::kEvicting);
  CHECK(e.GetClusterQueue("eng")->usage[0].usage == 2 * kCpu);
}

TEST_CASE("Events: deactivating through Apply evicts, and confirming leaves it deactivated", "[adapter][events]") {
  Engine e = OneQueue();
  WorkloadSpec spec = Workload("a", "job").Queue("q").Request("cpu", kCpu).spec();
  REQUIRE(e.Submit(spec).ok());
  e.ScheduleCycle();
  spec.active = false;
  REQUIRE(e.Apply(spec).ok());
  CHECK(Describe(e, e.LastEvents()) == std::vector<std::string>{"Evicted a/job Deactivated"});
  REQUIRE(e.ConfirmEvicted("a", "job").ok());
  CHECK(Describe(e, e.LastEvents()) == std::vector<std::string>{"Deactivated a/job Deactivated"});
  CHECK(e.GetWorkload("a", "job")->state == WorkloadState::kInactive);
  spec.active = true;
  REQUIRE(e.Apply(spec).ok());
  CHECK(Describe(e, e.LastEvents()) == std::vector<std::string>{"Activated a/job Reactivated"});
  CHECK(Describe(e, e.ScheduleCycle().events) == std::vector<std::string>{"Admitted a/job"});
}

TEST_CASE("Events: finishing and deleting", "[adapter][events]") {
  Engine e = OneQueue();
  auto one = e.Submit(Workload("a", "one").Queue("q").Request("cpu", kCpu));
  auto two = e.Submit(Workload("a", "two").Queue("q").Request("cpu", kCpu));
  REQUIRE((one.ok() && two.ok()));
  e.RunUntilStable();
  REQUIRE(e.Finish(*one).ok());
  CHECK(Describe(e, e.LastEvents()) == std::vector<std::string>{"Finished a/one Finished"});
  REQUIRE(e.Delete(ObjectRef{ObjectKind::kWorkload, "a", "two"}).ok());
  REQUIRE(e.LastEvents().size() == 1);
  CHECK(e.LastEvents()[0].kind == EventKind::kDeleted);
  CHECK(e.LastEvents()[0].workload == *two);  // the handle the host knew
  CHECK(e.GetClusterQueue("eng")->usage[0].usage == 0);
}

TEST_CASE("Events: numbered in order across calls", "[adapter][events]") {
  Engine e = OneQueue();
  REQUIRE(e.Submit(Workload("a", "low").Queue("q").Request("cpu", 3 * kCpu)).ok());
  REQUIRE(e.Submit(Workload("a", "small").Queue("q").Request("cpu", kCpu)).ok());
  e.RunUntilStable();
  std::vector<uint64_t> seen;
  for (const Event& ev : e.LastEvents()) seen.push_back(ev.sequence);
  REQUIRE(e.Submit(Workload("a", "high").Queue("q").Request("cpu", 4 * kCpu).Priority(5)).ok());
  e.ScheduleCycle();
  for (const Event& ev : e.LastEvents()) seen.push_back(ev.sequence);
  REQUIRE(seen.size() == 4);  // two admissions, two preemptions
  for (size_t i = 1; i < seen.size(); ++i) CHECK(seen[i] == seen[i - 1] + 1);
}

TEST_CASE("Events: a failed call reports nothing", "[adapter][events]") {
  Engine e = OneQueue();
  REQUIRE(e.Submit(Workload("a", "job").Queue("q").Request("cpu", kCpu)).ok());
  e.ScheduleCycle();
  CHECK_FALSE(e.ConfirmEvicted("a", "job").ok());  // not being evicted
  CHECK(e.LastEvents().empty());
}

TEST_CASE("Event callback: called once per call, after the call completed", "[adapter][events]") {
  Engine e = OneQueue();
  std::vector<std::vector<std::string>> calls;
  std::vector<WorkloadState> state_seen;
  REQUIRE(e.SetEventCallback([&](std::span<const Event> events) {
    calls.push_back(Describe(e, events));
    // The call is complete: the admitted workload is already admitted in the engine's state.
    state_seen.push_back(e.GetWorkload(events.back().workload)->state);
  }).ok());
  REQUIRE(e.Submit(Workload("a", "one").Queue("q").Request("cpu", kCpu)).ok());
  REQUIRE(e.Submit(Workload("a", "two").Queue("q").Request("cpu", kCpu)).ok());
  CHECK(calls.empty());  // submissions produce no events
  CHECK(e.RunUntilStable() == 3);
  REQUIRE(calls.size() == 1);  // all cycles of the call at once
  CHECK(calls[0] == std::vector<std::string>{"Admitted a/one", "Admitted a/two"});
  CHECK(state_seen[0] == WorkloadState::kAdmitted);
  REQUIRE(e.Finish("a", "one").ok());
  CHECK(calls.size() == 2);
}

TEST_CASE("Event callback: calls that change the engine are rejected from inside it", "[adapter][events]") {
  Engine e = OneQueue();
  REQUIRE(e.Submit(Workload("a", "job").Queue("q").Request("cpu", kCpu)).ok());
  absl::Status finish, submit, evict;
  absl::Status cycle;
  int ran_inside = -1;
  bool query_ok = false;
  REQUIRE(e.SetEventCallback([&](std::span<const Event> events) {
    finish = e.Finish(events[0].workload);
    submit = e.Submit(Workload("a", "other").Queue("q").Request("cpu", kCpu)).status();
    evict = e.Evict(events[0].workload, "NodeFailures", "node lost");
    cycle = e.ScheduleCycle().status;
    ran_inside = e.RunUntilStable();
    query_ok = e.GetWorkload(events[0].workload).ok() && e.GetClusterQueue("eng").ok();
  }).ok());
  e.ScheduleCycle();
  CHECK(finish.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(finish.message()).find("called from the event callback") != std::string::npos);
  CHECK(submit.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(evict.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(cycle.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(ran_inside == 0);
  CHECK(query_ok);
  // Nothing the callback tried happened; after it, the engine takes calls again.
  REQUIRE(e.SetEventCallback(nullptr).ok());
  CHECK(e.GetWorkload("a", "job")->state == WorkloadState::kAdmitted);
  CHECK_FALSE(e.FindWorkload("a", "other").valid());
  CHECK(e.Finish("a", "job").ok());
}

}  // namespace
}  // namespace events_test
}  // namespace qm
