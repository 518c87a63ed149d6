// The read-only queries are const, leave no trace, and answer what the next cycle decides.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace queries_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

// Everything a host can observe, as text: queue orders, usage, every workload's status.
std::string Observe(const Engine& e) {
  std::string out;
  for (const std::string& name : e.ClusterQueues()) {
    const auto q = e.GetClusterQueue(name);
    out += name + " share=" + std::to_string(q->weighted_share) + "\n";
    for (const FlavorResourceUsage& u : q->usage)
      out += "  " + u.flavor + "/" + u.resource + " " + std::to_string(u.usage) + "\n";
    for (WorkloadHandle id : q->pending) out += "  pending " + e.WorkloadName(id) + "\n";
    for (WorkloadHandle id : q->inadmissible) out += "  parked " + e.WorkloadName(id) + "\n";
  }
  for (WorkloadHandle id : e.Workloads()) {
    const WorkloadStatus st = e.GetWorkload(id).value();
    out += e.WorkloadName(id) + " " + WorkloadStateName(st.state) + " " + st.reason + " " + st.message + "\n";
  }
  return out;
}

// Two flavors (`spot` first, `on-demand`), one queue that may preempt lower priorities.
Engine TwoFlavors() {
  Engine e;
  std::vector<ObjectSpec> objects = {
      test::Namespace("a"), test::Flavor("spot"), test::Flavor("on-demand"),
      ClusterQueue("eng")
          .Flavor("spot", {Q("cpu", 2 * kCpu)})
          .Flavor("on-demand", {Q("cpu", 4 * kCpu)})
          .WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority),
      test::LocalQueue("a", "q", "eng")};
  REQUIRE(e.Apply(objects).ok());
  return e;
}

std::string FlavorOf(const Assignment& a) { return a.pod_sets.at(0).resources.at(0).flavor; }

TEST_CASE("Queries: AssignFlavors answers what the next cycle admits, and leaves no trace", "[adapter][queries]") {
  Engine e = TwoFlavors();
  REQUIRE(e.Submit(Workload("a", "first").Queue("q").Request("cpu", 2 * kCpu)).ok());
  e.ScheduleCycle();  // spot is full now
  auto next = e.Submit(Workload("a", "next").Queue("q").Request("cpu", 2 * kCpu));
  REQUIRE(next.ok());
  const Engine& view = e;  // the queries are callable on a const engine
  const std::string before = Observe(view);
  const Assignment answer = view.AssignFlavors(*next).value();
  CHECK(answer.representative_mode == AssignmentMode::kFit);
  CHECK(FlavorOf(answer) == "on-demand");
  CHECK_FALSE(answer.attempts.empty());
  const WorkloadExplanation why = view.Explain("a", "next").value();
  CHECK(Observe(view) == before);
  const CycleResult& r = e.ScheduleCycle();
  REQUIRE(r.events.size() == 1);
  CHECK(e.FlavorName(r.events[0].pod_sets[0].flavors[0].second) == FlavorOf(answer));
  CHECK(FlavorOf(*why.assignment) == FlavorOf(answer));
}

TEST_CASE("Queries: Explain and PreemptionTargets name the victims the next cycle preempts", "[adapter][queries]") {
  Engine e = TwoFlavors();
  for (const char* name : {"low-1", "low-2", "low-3"})
    REQUIRE(e.Submit(Workload("a", name).Queue("q").Request("cpu", 2 * kCpu).Priority(1)).ok());
  e.RunUntilStable();  // spot: low-1; on-demand: low-2, low-3
  auto high = e.Submit(Workload("a", "high").Queue("q").Request("cpu", 2 * kCpu).Priority(9));
  REQUIRE(high.ok());
  const std::string before = Observe(e);
  const WorkloadExplanation why = e.Explain(*high).value();
  std::vector<std::string> predicted;
  for (const Preemption& p : why.would_preempt) predicted.push_back(e.WorkloadName(p.victim));
  REQUIRE_FALSE(predicted.empty());
  const std::vector<RequestedFlavor> want = {{"main", "cpu", FlavorOf(*why.assignment), AssignmentMode::kPreempt}};
  std::vector<std::string> targets;
  const absl::StatusOr<std::vector<Preemption>> found = e.PreemptionTargets(*high, "", want);
  REQUIRE(found.ok());
  for (const Preemption& p : *found) targets.push_back(e.WorkloadName(p.victim));
  CHECK(targets == predicted);
  CHECK(Observe(e) == before);
  std::vector<std::string> preempted;
  for (const Event& ev : e.ScheduleCycle().events)
    if (ev.kind == EventKind::kPreempted) preempted.push_back(e.WorkloadName(ev.workload));
  CHECK(preempted == predicted);
}

TEST_CASE("Queries: the answer resumes the flavor scan where the last cycle left it", "[adapter][queries]") {
  // Setup: spot is held by a same-priority workload (no preemption possible there) and on-demand
  // by a lower one. With the default fungibility (try the next flavor before preempting), the
  // cycle that finds spot full records its scan progress; the next answer must resume from it as
  // the next cycle does, not restart from spot.
  Engine e = TwoFlavors();
  REQUIRE(e.Submit(Workload("a", "spot-holder").Queue("q").Request("cpu", 2 * kCpu).Priority(5)).ok());
  e.ScheduleCycle();
  REQUIRE(e.Submit(Workload("a", "od-holder").Queue("q").Request("cpu", 4 * kCpu).Priority(1)).ok());
  e.ScheduleCycle();
  REQUIRE(e.Submit(Workload("a", "job").Queue("q").Request("cpu", 2 * kCpu).Priority(5)).ok());
  for (int cycle = 0; cycle < 4 && e.GetWorkload("a", "job")->state == WorkloadState::kPending; ++cycle) {
    const Assignment answer = e.AssignFlavors("a", "job").value();
    const WorkloadExplanation why = e.Explain("a", "job").value();
    const CycleResult& r = e.ScheduleCycle();
    std::string admitted_flavor;
    std::vector<std::string> preempted;
    for (const Event& ev : r.events) {
      if (ev.kind == EventKind::kAdmitted) admitted_flavor = e.FlavorName(ev.pod_sets[0].flavors[0].second);
      if (ev.kind == EventKind::kPreempted) preempted.push_back(e.WorkloadName(ev.workload));
    }
    std::vector<std::string> predicted;
    for (const Preemption& p : why.would_preempt) predicted.push_back(e.WorkloadName(p.victim));
    INFO("cycle " << cycle);
    CHECK(preempted == predicted);
    if (!admitted_flavor.empty()) CHECK(admitted_flavor == FlavorOf(answer));
    e.ConfirmAllEvicted();
  }
  CHECK(e.GetWorkload("a", "job")->state == WorkloadState::kAdmitted);
}

TEST_CASE("Queries: partial admission counts are what the cycle admits", "[adapter][queries]") {
  Engine e = TwoFlavors();
  REQUIRE(e.Submit(Workload("a", "filler").Queue("q").Request("cpu", 2 * kCpu).Priority(9)).ok());
  REQUIRE(e.Submit(Workload("a", "filler-2").Queue("q").Request("cpu", 3 * kCpu).Priority(9)).ok());
  e.RunUntilStable();  // 1 CPU left on on-demand
  REQUIRE(e.Submit(Workload("a", "elastic").Queue("q").Request("cpu", 500).Count(4).MinCount(1)).ok());
  const Assignment answer = e.AssignFlavors("a", "elastic").value();
  const CycleResult& r = e.ScheduleCycle();
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].pod_sets[0].count == 2);
  CHECK(answer.pod_sets[0].count == 2);
}

}  // namespace
}  // namespace queries_test
}  // namespace qm
