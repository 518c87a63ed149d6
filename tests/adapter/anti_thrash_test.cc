// The engine's preemption history, the preemption-cycle detector and the anti-thrash timers
// (qm/model/anti_thrash.h, qm/solver/anti_thrash.h). The policies' decisions are pinned by the
// scenarios in tests/scenarios/qm/thrash/; these tests cover what scenarios cannot see: counters in
// the queries, events, timers, and configuration errors.
#include <catch2/catch.hpp>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace anti_thrash_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;
constexpr Time kStart = Time::FromUnixSeconds(1'700'000'000);

// Cohort `pool`: a and b, 4 cpu nominal each, classical preemption that reclaims anything
// (reclaimWithinCohort Any), namespace `ns` with LocalQueues qa and qb.
Engine TwoQueues(AntiThrashConfig anti_thrash = {}) {
  EngineConfig config;
  config.anti_thrash = std::move(anti_thrash);
  config.check_invariants = true;
  absl::StatusOr<Engine> created = Engine::Create(std::move(config));
  REQUIRE(created.ok());
  Engine e = *std::move(created);
  REQUIRE(e.SetNow(kStart).ok());
  std::vector<ObjectSpec> objects = {test::Namespace("ns"), test::Flavor("default")};
  for (const char* name : {"a", "b"}) {
    objects.push_back(ClusterQueue(name).Cohort("pool").ReclaimWithinCohort(ReclaimWithinCohortPolicy::kAny)
                          .WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority)
                          .Flavor("default", {Q("cpu", 4 * kCpu)}));
    objects.push_back(test::LocalQueue("ns", std::string("q") + name, name));
  }
  REQUIRE(e.Apply(objects).ok());
  return e;
}

WorkloadHandle Submit(Engine& e, const char* name, const char* queue, int64_t cpu, int32_t priority) {
  absl::StatusOr<WorkloadHandle> h = e.Submit(Workload("ns", name).Queue(queue).Request("cpu", cpu * kCpu).Priority(priority));
  REQUIRE(h.ok());
  return *h;
}

std::vector<const Event*> OfKind(std::span<const Event> events, EventKind kind) {
  std::vector<const Event*> out;
  for (const Event& ev : events)
    if (ev.kind == kind) out.push_back(&ev);
  return out;
}

// The ping-pong of two workloads across two queues (each reclaims from the other while it borrows):
//   B (4, prio 0) and Fb (2, prio 5) run in b, which borrows 2;
//   A (4) arrives in a, within nominal: it reclaims B;
//   Fa (2, prio 5) fills a's borrowable room; Fb finishes;
//   B, back within b's nominal, reclaims from a: A (the lowest priority) is preempted by B.
// Returns the events of the cycles in which B preempted A.
struct PingPong {
  WorkloadHandle a, b;
  std::vector<Event> first;   // A preempts B
  std::vector<Event> second;  // B preempts A
};
PingPong RunPingPong(Engine& e) {
  PingPong p;
  p.b = Submit(e, "B", "qb", 4, 0);
  const WorkloadHandle fb = Submit(e, "Fb", "qb", 2, 5);
  e.RunUntilStable();
  REQUIRE(e.SetNow(kStart + Duration::Seconds(60)).ok());
  p.a = Submit(e, "A", "qa", 4, 0);
  e.RunUntilStable();
  p.first.assign(e.LastEvents().begin(), e.LastEvents().end());
  REQUIRE(e.ConfirmEvicted(p.b).ok());
  e.RunUntilStable();
  REQUIRE(e.GetWorkload(p.a)->state == WorkloadState::kAdmitted);
  REQUIRE(e.SetNow(kStart + Duration::Seconds(600)).ok());
  Submit(e, "Fa", "qa", 2, 5);
  e.RunUntilStable();
  REQUIRE(e.SetNow(kStart + Duration::Seconds(900)).ok());
  REQUIRE(e.Finish(fb).ok());
  e.RunUntilStable();
  p.second.assign(e.LastEvents().begin(), e.LastEvents().end());
  return p;
}

TEST_CASE("Anti-thrash: the preemption history counts who preempted a workload, why, and what it lost",
          "[adapter][thrash]") {
  Engine e = TwoQueues();
  PingPong p = RunPingPong(e);
  const auto preempted_b = OfKind(p.first, EventKind::kPreempted);
  REQUIRE(preempted_b.size() == 1);
  CHECK(preempted_b[0]->workload == p.b);
  const auto preempted_a = OfKind(p.second, EventKind::kPreempted);
  REQUIRE(preempted_a.size() == 1);
  CHECK(preempted_a[0]->workload == p.a);
  CHECK(preempted_a[0]->preemptor == p.b);

  const WorkloadStatus a = *e.GetWorkload(p.a);
  CHECK(a.preemptions.preempted == 1);
  CHECK(a.preemptions.by_reason[static_cast<int>(PreemptionReason::kInCohortReclamation)] == 1);
  CHECK(a.preemptions.caused == 1);  // it had B preempted
  // A was admitted at +60 s and preempted at +900 s.
  CHECK(a.preemptions.held_lost == Duration::Seconds(840));
  REQUIRE(a.preemptions.recent.size() == 1);
  CHECK(a.preemptions.recent[0].preemptor == "ns/B");
  CHECK(a.preemptions.recent[0].preemptor_cluster_queue == "b");
  CHECK(a.preemptions.recent[0].time == kStart + Duration::Seconds(900));
  CHECK_FALSE(a.preemptions.borrow_allowed_at.has_value());

  const WorkloadStatus b = *e.GetWorkload(p.b);
  CHECK(b.preemptions.preempted == 1);
  CHECK(b.preemptions.caused == 1);
  CHECK(b.preemptions.held_lost == Duration::Seconds(60));
  REQUIRE(b.preemptions.recent.size() == 1);
  CHECK(b.preemptions.recent[0].preemptor == "ns/A");

  const WorkloadStatus fa = *e.GetWorkload("ns", "Fa");
  CHECK(fa.preemptions.preempted == 0);
  CHECK(fa.preemptions.caused == 0);
  CHECK(fa.preemptions.recent.empty());
}

TEST_CASE("Anti-thrash: the cycle detector is off by default and reports nothing", "[adapter][thrash]") {
  Engine e = TwoQueues();
  PingPong p = RunPingPong(e);
  CHECK(OfKind(p.first, EventKind::kPreemptionCycle).empty());
  CHECK(OfKind(p.second, EventKind::kPreemptionCycle).empty());
}

TEST_CASE("Anti-thrash: a workload preempted by one it preempted, and two queues preempting each other, are "
          "reported after the preemption",
          "[adapter][thrash]") {
  AntiThrashConfig cfg;
  cfg.cycle_detection.enabled = true;
  cfg.cycle_detection.window = Duration::Seconds(3600);
  Engine e = TwoQueues(cfg);
  PingPong p = RunPingPong(e);
  CHECK(OfKind(p.first, EventKind::kPreemptionCycle).empty());  // a → b alone is no cycle
  const auto cycles = OfKind(p.second, EventKind::kPreemptionCycle);
  REQUIRE(cycles.size() == 2);
  // Each cycle event comes right after the kPreempted event it is about.
  const Event& workload_cycle = *cycles[0];
  CHECK(std::string(workload_cycle.reason) == "WorkloadPreemptionCycle");
  CHECK(workload_cycle.workload == p.a);
  CHECK(workload_cycle.preemptor == p.b);
  CHECK(workload_cycle.preemption_reason == PreemptionReason::kInCohortReclamation);
  CHECK(workload_cycle.message ==
        "ns/B preempted ns/A (InCohortReclamation), which had preempted it 840s earlier (InCohortReclamation); "
        "ns/A has been preempted 1 time(s), ns/B 1");
  const Event& ring = *cycles[1];
  CHECK(std::string(ring.reason) == "ClusterQueuePreemptionCycle");
  REQUIRE(ring.cycle_queues.size() == 2);
  CHECK(e.ClusterQueueName(ring.cycle_queues[0]) == "a");
  CHECK(e.ClusterQueueName(ring.cycle_queues[1]) == "b");
  CHECK(ring.message == "ClusterQueues preempted each other in a ring within 3600s: a -> b -> a");
  // Every event is numbered in order.
  for (size_t i = 1; i < p.second.size(); ++i) CHECK(p.second[i].sequence == p.second[i - 1].sequence + 1);
}

TEST_CASE("Anti-thrash: a queue ring older than the window is no cycle", "[adapter][thrash]") {
  AntiThrashConfig cfg;
  cfg.cycle_detection.enabled = true;
  cfg.cycle_detection.window = Duration::Seconds(600);  // a → b at +60 s is 840 s old at +900 s
  Engine e = TwoQueues(cfg);
  PingPong p = RunPingPong(e);
  const auto cycles = OfKind(p.second, EventKind::kPreemptionCycle);
  REQUIRE(cycles.size() == 1);  // the workload cycle has no window
  CHECK(std::string(cycles[0]->reason) == "WorkloadPreemptionCycle");
}

TEST_CASE("Anti-thrash: NextTimedChange names the end of a minimum runtime, and the cycle after it lets the "
          "parked preemptor in",
          "[adapter][thrash]") {
  Engine plain = test::OneQueueEngine(4 * kCpu, ClusterQueue("eng").WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority));
  REQUIRE(plain.Submit(Workload("a", "low").Queue("q").Request("cpu", 4 * kCpu)).ok());
  plain.RunUntilStable();
  CHECK_FALSE(plain.NextTimedChange().has_value());  // no policy, no timer

  EngineConfig config;
  config.anti_thrash.min_runtime.push_back(MinRuntimeRule{Duration::Seconds(1800), {PreemptionReason::kInClusterQueue}, {}, {}});
  absl::StatusOr<Engine> created = Engine::Create(config);
  REQUIRE(created.ok());
  Engine e = *std::move(created);
  REQUIRE(e.SetNow(kStart).ok());
  const std::vector<ObjectSpec> objects = {
      test::Namespace("a"), test::Flavor("default"),
      ClusterQueue("eng").WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority).Flavor("default", {Q("cpu", 4 * kCpu)}),
      test::LocalQueue("a", "q", "eng")};
  REQUIRE(e.Apply(objects).ok());
  auto low = e.Submit(Workload("a", "low").Queue("q").Request("cpu", 4 * kCpu));
  REQUIRE(low.ok());
  e.RunUntilStable();
  REQUIRE(e.NextTimedChange().has_value());
  CHECK(*e.NextTimedChange() == kStart + Duration::Seconds(1800));

  REQUIRE(e.SetNow(kStart + Duration::Seconds(600)).ok());
  auto high = e.Submit(Workload("a", "high").Queue("q").Request("cpu", 4 * kCpu).Priority(10));
  REQUIRE(high.ok());
  e.RunUntilStable();
  CHECK(OfKind(e.LastEvents(), EventKind::kPreempted).empty());
  CHECK(e.GetWorkload(*high)->inadmissible);

  REQUIRE(e.SetNow(*e.NextTimedChange()).ok());
  e.RunUntilStable();
  const auto preempted = OfKind(e.LastEvents(), EventKind::kPreempted);
  REQUIRE(preempted.size() == 1);
  CHECK(preempted[0]->workload == *low);
  CHECK_FALSE(e.NextTimedChange().has_value());  // the timer was used
}

TEST_CASE("Anti-thrash: invalid configurations are refused with the field named", "[adapter][thrash]") {
  auto error = [](AntiThrashConfig cfg) {
    EngineConfig config;
    config.anti_thrash = std::move(cfg);
    absl::StatusOr<Engine> e = Engine::Create(std::move(config));
    REQUIRE_FALSE(e.ok());
    CHECK(e.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(e.status().message());
  };
  AntiThrashConfig zero;
  zero.min_runtime.push_back(MinRuntimeRule{});
  CHECK(error(zero) == "antiThrash.minRuntime[0].duration: must be more than 0");
  AntiThrashConfig empty_class;
  empty_class.min_runtime.push_back(MinRuntimeRule{Duration::Seconds(60), {}, {""}, {}});
  CHECK(error(empty_class) == "antiThrash.minRuntime[0].priorityClasses[0]: must not be empty");
  AntiThrashConfig negative;
  negative.requeue_backoff.base = Duration::Seconds(-1);
  CHECK(error(negative) == "antiThrash.requeueBackoff.base: must be >= 0");
  AntiThrashConfig small_max;
  small_max.preemption_backoff = {Duration::Seconds(600), Duration::Seconds(60)};
  CHECK(error(small_max) == "antiThrash.preemptionBackoff.max: must be >= base (or 0 for a constant back-off)");
  AntiThrashConfig window;
  window.cycle_detection.window = Duration{};
  CHECK(error(window) == "antiThrash.cycleDetection.window: must be more than 0");
  AntiThrashConfig huge;  // would overflow when added to an instant
  huge.borrow_backoff.max = Duration{std::numeric_limits<int64_t>::max()};
  CHECK(error(huge) == "antiThrash.borrowBackoff.max: must be at most 100 years");
}

}  // namespace
}  // namespace anti_thrash_test
}  // namespace qm
