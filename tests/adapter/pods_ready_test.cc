// Kueue's waitForPodsReady (docs/semantics.md §1.7.2): the pods-ready timeout, the requeue back-off
// and its limit, the requeuing timestamp; and the feature gates of issue 24 that change what the
// controllers write: ReclaimablePods off, UnadmittedWorkloadsExplicitStatus on (§1.7.1, §8.1).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "adapter/engine_state.h"
#include "qm/adapter/engine.h"
#include "qm/model/config_validation.h"
#include "qm/solver/pods_ready.h"
#include "support/builders.h"

namespace qm {
namespace pods_ready_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;
constexpr Time kT0 = Time::FromUnixSeconds(1'700'000'000);

Engine MakeEngine(EngineConfig config, int64_t cpu_milli,
                  QueueingStrategy strategy = QueueingStrategy::kBestEffortFIFO) {
  absl::StatusOr<Engine> e = Engine::Create(std::move(config));
  REQUIRE(e.ok());
  REQUIRE(e->SetNow(kT0).ok());
  ClusterQueue cq("eng");
  if (strategy == QueueingStrategy::kStrictFIFO) cq.Strict();
  const std::vector<ObjectSpec> objects = {test::Namespace("a"), test::Flavor("default"),
                                           cq.Flavor("default", {Q("cpu", cpu_milli)}),
                                           test::LocalQueue("a", "q", "eng")};
  REQUIRE(e->Apply(objects).ok());
  return *std::move(e);
}

EngineConfig PodsReady(Duration timeout) {
  EngineConfig c;
  c.wait_for_pods_ready.enabled = true;
  c.wait_for_pods_ready.timeout = timeout;
  return c;
}

void Advance(Engine& e, Duration d) { REQUIRE(e.SetNow(e.Now() + d).ok()); }

std::vector<std::string> Admitted(const Engine& e, const CycleResult& r) { return test::Log(e, r).admitted; }

const Event* FindEvent(std::span<const Event> events, EventKind kind) {
  for (const Event& ev : events)
    if (ev.kind == kind) return &ev;
  return nullptr;
}

TEST_CASE("waitForPodsReady: a workload not ready within the timeout is evicted with PodsReadyTimeout",
          "[adapter][pods-ready]") {
  Engine e = MakeEngine(PodsReady(Duration::Seconds(300)), 4 * kCpu);
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
  REQUIRE(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
  CHECK(e.NextTimedChange() == kT0 + Duration::Seconds(300));

  SECTION("one microsecond early: nothing") {
    Advance(e, Duration::Seconds(300) - Duration::Microseconds(1));
    e.ScheduleCycle();
    CHECK(e.GetWorkload("a", "w")->state == WorkloadState::kAdmitted);
  }
  SECTION("at the deadline: evicted, requeued after the base back-off, by eviction time") {
    Advance(e, Duration::Seconds(300));
    const CycleResult& r = e.ScheduleCycle();
    const Event* ev = FindEvent(r.events, EventKind::kEvicted);
    REQUIRE(ev != nullptr);
    CHECK(std::string(ev->reason) == "PodsReadyTimeout");
    CHECK(ev->message == "Exceeded the PodsReady timeout a/w");
    const auto st = e.GetWorkload("a", "w");
    CHECK(st->state == WorkloadState::kEvicting);
    CHECK(st->requeue_count == 1);
    CHECK(st->requeue_at == kT0 + Duration::Seconds(300 + 60));  // backoffBaseSeconds 60, no jitter
    // The quota is held until the pods stopped; then it waits out the back-off, parked.
    REQUIRE(e.ConfirmEvicted("a", "w").ok());
    CHECK(e.GetWorkload("a", "w")->inadmissible);
    CHECK(e.GetWorkload("a", "w")->reason == "PendingEvaluation");
    CHECK(e.GetWorkload("a", "w")->message == "Exceeded the PodsReady timeout a/w");
    CHECK(Admitted(e, e.ScheduleCycle()).empty());
    // A flush (another workload finishing) does not bring it back early.
    REQUIRE(e.Submit(Workload("a", "other").Queue("q").Request("cpu", kCpu)).ok());
    REQUIRE(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/other"});
    REQUIRE(e.Finish("a", "other").ok());
    CHECK(e.GetWorkload("a", "w")->inadmissible);
    CHECK(e.NextTimedChange() == kT0 + Duration::Seconds(360));
    Advance(e, Duration::Seconds(60));
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
    CHECK(e.GetWorkload("a", "w")->requeue_count == 1);  // kept: the count only resets on deactivation
    CHECK_FALSE(e.GetWorkload("a", "w")->requeue_at.has_value());
    CHECK(e.CheckInvariants().ok());
  }
  SECTION("pods ready in time: never evicted; a recovery is timed from the moment they stopped") {
    REQUIRE(e.SetPodsReady("a", "w", true).ok());
    CHECK(e.GetWorkload("a", "w")->pods_ready);
    CHECK_FALSE(e.NextTimedChange().has_value());
    Advance(e, Duration::Seconds(3600));
    e.ScheduleCycle();
    CHECK(e.GetWorkload("a", "w")->state == WorkloadState::kAdmitted);
    REQUIRE(e.SetPodsReady("a", "w", false).ok());  // a pod failed: WaitForRecovery
    CHECK(e.NextTimedChange() == kT0 + Duration::Seconds(3600 + 300));  // recoveryTimeout = timeout
    Advance(e, Duration::Seconds(299));
    e.ScheduleCycle();
    CHECK(e.GetWorkload("a", "w")->state == WorkloadState::kAdmitted);
    Advance(e, Duration::Seconds(1));
    e.ScheduleCycle();
    CHECK(e.GetWorkload("a", "w")->state == WorkloadState::kEvicting);
    CHECK(e.GetWorkload("a", "w")->reason == "PodsReadyTimeout");
  }
  SECTION("a pending workload has no pods to report") {
    REQUIRE(e.Submit(Workload("a", "p").Queue("q").Request("cpu", 8 * kCpu)).ok());
    const absl::Status st = e.SetPodsReady("a", "p", true);
    CHECK(st.code() == absl::StatusCode::kFailedPrecondition);
    CHECK(std::string(st.message()).find("Workload 'a/p'") != std::string::npos);
    CHECK(e.SetPodsReady("a", "nope", true).code() == absl::StatusCode::kNotFound);
  }
}

TEST_CASE("waitForPodsReady: recoveryTimeout 0 disables the recovery check", "[adapter][pods-ready]") {
  EngineConfig c = PodsReady(Duration::Seconds(60));
  c.wait_for_pods_ready.recovery_timeout = Duration{};
  Engine e = MakeEngine(c, 4 * kCpu);
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
  e.ScheduleCycle();
  REQUIRE(e.SetPodsReady("a", "w", true).ok());
  REQUIRE(e.SetPodsReady("a", "w", false).ok());
  CHECK_FALSE(e.NextTimedChange().has_value());
  Advance(e, Duration::Seconds(86400));
  e.ScheduleCycle();
  CHECK(e.GetWorkload("a", "w")->state == WorkloadState::kAdmitted);
}

TEST_CASE("waitForPodsReady: exponential back-off, capped, then deactivation past the limit",
          "[adapter][pods-ready]") {
  EngineConfig c = PodsReady(Duration::Seconds(10));
  c.wait_for_pods_ready.backoff_base_seconds = 10;
  c.wait_for_pods_ready.backoff_max_seconds = 25;
  c.wait_for_pods_ready.backoff_limit_count = 3;
  Engine e = MakeEngine(c, 4 * kCpu);
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
  // Waits 10 s, 20 s, then min(40, 25) = 25 s; the 4th timeout exceeds backoffLimitCount 3.
  const int64_t waits[] = {10, 20, 25};
  for (int n = 1; n <= 3; ++n) {
    INFO("timeout " << n);
    REQUIRE(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
    Advance(e, Duration::Seconds(10));
    e.ScheduleCycle();
    REQUIRE(e.GetWorkload("a", "w")->reason == "PodsReadyTimeout");
    CHECK(e.GetWorkload("a", "w")->requeue_count == n);
    CHECK(e.GetWorkload("a", "w")->requeue_at == e.Now() + Duration::Seconds(waits[n - 1]));
    REQUIRE(e.ConfirmEvicted("a", "w").ok());
    Advance(e, Duration::Seconds(waits[n - 1]) - Duration::Microseconds(1));
    CHECK(Admitted(e, e.ScheduleCycle()).empty());
    Advance(e, Duration::Microseconds(1));
  }
  REQUIRE(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
  Advance(e, Duration::Seconds(10));
  const CycleResult& r = e.ScheduleCycle();
  const Event* ev = FindEvent(r.events, EventKind::kEvicted);
  REQUIRE(ev != nullptr);
  CHECK(std::string(ev->reason) == "Deactivated");
  CHECK(ev->message == "The workload is deactivated due to exceeding the maximum number of re-queuing retries");
  CHECK(e.GetWorkload("a", "w")->requeue_count == 0);  // Kueue clears status.requeueState
  REQUIRE(e.ConfirmEvicted("a", "w").ok());
  CHECK(e.GetWorkload("a", "w")->state == WorkloadState::kInactive);
  REQUIRE(FindEvent(e.LastEvents(), EventKind::kDeactivated) != nullptr);
  // Reactivated, it starts over: admitted at once, and the next timeout is requeue number 1.
  REQUIRE(e.Activate("a", "w").ok());
  REQUIRE(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
  Advance(e, Duration::Seconds(10));
  e.ScheduleCycle();
  CHECK(e.GetWorkload("a", "w")->requeue_count == 1);
  CHECK(e.CheckInvariants().ok());
}

TEST_CASE("waitForPodsReady: backoffLimitCount 0 deactivates at the first timeout", "[adapter][pods-ready]") {
  EngineConfig c = PodsReady(Duration::Seconds(10));
  c.wait_for_pods_ready.backoff_limit_count = 0;
  Engine e = MakeEngine(c, 4 * kCpu);
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
  e.ScheduleCycle();
  Advance(e, Duration::Seconds(10));
  e.ScheduleCycle();
  CHECK(e.GetWorkload("a", "w")->reason == "Deactivated");
}

TEST_CASE("waitForPodsReady: the back-off formula", "[adapter][pods-ready]") {
  WaitForPodsReadyConfig c;  // base 60, max 3600
  CHECK(RequeueBackoffWait(c, 1) == Duration::Seconds(60));
  CHECK(RequeueBackoffWait(c, 2) == Duration::Seconds(120));
  CHECK(RequeueBackoffWait(c, 6) == Duration::Seconds(1920));
  CHECK(RequeueBackoffWait(c, 7) == Duration::Seconds(3600));
  CHECK(RequeueBackoffWait(c, 1'000'000) == Duration::Seconds(3600));
  c.backoff_base_seconds = 100;
  c.backoff_max_seconds = 30;
  CHECK(RequeueBackoffWait(c, 1) == Duration::Seconds(100));  // the first wait is never capped
  CHECK(RequeueBackoffWait(c, 2) == Duration::Seconds(30));
  c.backoff_max_seconds = 0;  // no cap
  CHECK(RequeueBackoffWait(c, 11) == Duration::Seconds(102400));
  c.backoff_base_seconds = 0;
  CHECK(RequeueBackoffWait(c, 5) == Duration{});
}

TEST_CASE("waitForPodsReady: requeuingStrategy.timestamp orders the requeued workload",
          "[adapter][pods-ready]") {
  // Setup: StrictFIFO, 1 cpu; `old` (created first) times out; `young` arrives later and waits.
  // Eviction: `old` queues by its eviction time, after `young`. Creation: it keeps its place.
  for (const RequeuingTimestamp ts : {RequeuingTimestamp::kEviction, RequeuingTimestamp::kCreation}) {
    EngineConfig c = PodsReady(Duration::Seconds(10));
    c.wait_for_pods_ready.requeuing_timestamp = ts;
    c.wait_for_pods_ready.backoff_base_seconds = 0;
    Engine e = MakeEngine(c, kCpu, QueueingStrategy::kStrictFIFO);
    REQUIRE(e.Submit(Workload("a", "old").Queue("q").Request("cpu", kCpu).Created(kT0)).ok());
    e.ScheduleCycle();
    REQUIRE(e.Submit(Workload("a", "young").Queue("q").Request("cpu", kCpu).Created(kT0 + Duration::Seconds(1))).ok());
    Advance(e, Duration::Seconds(10));
    e.ScheduleCycle();
    REQUIRE(e.ConfirmEvicted("a", "old").ok());
    const std::string first = ts == RequeuingTimestamp::kEviction ? "a/young" : "a/old";
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{first});
  }
}

TEST_CASE("waitForPodsReady: off, DisableWaitForPodsReady, and a host eviction", "[adapter][pods-ready]") {
  SECTION("off by default: no timer, no eviction") {
    Engine e = MakeEngine(EngineConfig{}, kCpu);
    REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
    e.ScheduleCycle();
    CHECK_FALSE(e.NextTimedChange().has_value());
    Advance(e, Duration::Seconds(86400));
    e.ScheduleCycle();
    CHECK(e.GetWorkload("a", "w")->state == WorkloadState::kAdmitted);
  }
  SECTION("the DisableWaitForPodsReady gate switches a configured timer off") {
    EngineConfig c = PodsReady(Duration::Seconds(10));
    REQUIRE(c.features.Set("DisableWaitForPodsReady", true).ok());
    Engine e = MakeEngine(c, kCpu);
    REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
    e.ScheduleCycle();
    Advance(e, Duration::Seconds(100));
    e.ScheduleCycle();
    CHECK(e.GetWorkload("a", "w")->state == WorkloadState::kAdmitted);
    CHECK_FALSE(e.NextTimedChange().has_value());
  }
  SECTION("a host eviction with reason PodsReadyTimeout gets no back-off") {
    Engine e = MakeEngine(PodsReady(Duration::Seconds(10)), kCpu);
    REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
    e.ScheduleCycle();
    REQUIRE(e.Evict("a", "w", "PodsReadyTimeout", "host").ok());
    REQUIRE(e.ConfirmEvicted("a", "w").ok());
    CHECK(e.GetWorkload("a", "w")->requeue_count == 0);
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w"});
  }
}

TEST_CASE("waitForPodsReady: snapshots keep readiness and the requeue state", "[adapter][pods-ready][snapshot]") {
  EngineConfig c = PodsReady(Duration::Seconds(10));
  c.wait_for_pods_ready.backoff_limit_count = 5;
  c.wait_for_pods_ready.recovery_timeout = Duration::Seconds(17);
  c.wait_for_pods_ready.requeuing_timestamp = RequeuingTimestamp::kCreation;
  Engine e = MakeEngine(c, 2 * kCpu);
  REQUIRE(e.Submit(Workload("a", "late").Queue("q").Request("cpu", kCpu)).ok());
  REQUIRE(e.Submit(Workload("a", "ok").Queue("q").Request("cpu", kCpu)).ok());
  e.RunUntilStable();
  REQUIRE(e.SetPodsReady("a", "ok", true).ok());
  REQUIRE(e.SetPodsReady("a", "ok", false).ok());
  Advance(e, Duration::Seconds(10));
  e.ScheduleCycle();  // `late` times out; `ok` recovers until +17 s
  REQUIRE(e.ConfirmEvicted("a", "late").ok());
  absl::StatusOr<std::string> saved = e.Save();
  REQUIRE(saved.ok());
  absl::StatusOr<Engine> r = Engine::Restore(*saved);
  REQUIRE(r.ok());
  CHECK(r->config().wait_for_pods_ready.backoff_limit_count == 5);
  CHECK(r->config().wait_for_pods_ready.recovery_timeout == Duration::Seconds(17));
  CHECK(r->config().wait_for_pods_ready.requeuing_timestamp == RequeuingTimestamp::kCreation);
  CHECK(r->GetWorkload("a", "late")->requeue_count == 1);
  CHECK(r->GetWorkload("a", "late")->requeue_at == e.GetWorkload("a", "late")->requeue_at);
  CHECK(r->NextTimedChange() == e.NextTimedChange());
  CHECK(r->CheckInvariants().ok());
  // Both go on identically.
  for (Engine* x : {&e, &*r}) {
    REQUIRE(x->SetNow(x->Now() + Duration::Seconds(60)).ok());
    x->ScheduleCycle();
  }
  CHECK(r->GetWorkload("a", "ok")->state == e.GetWorkload("a", "ok")->state);
  CHECK(r->GetWorkload("a", "ok")->reason == "PodsReadyTimeout");
  CHECK(r->Save().value() == e.Save().value());
}

TEST_CASE("waitForPodsReady: CheckInvariants catches a corrupt readiness or requeue state", "[adapter][pods-ready][invariants]") {
  Engine e = MakeEngine(PodsReady(Duration::Seconds(10)), kCpu);
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", kCpu)).ok());
  e.ScheduleCycle();
  Advance(e, Duration::Seconds(10));
  e.ScheduleCycle();
  REQUIRE(e.CheckInvariants().ok());
  ClusterState& s = internal::EngineStateForTesting(e).s;
  const WorkloadId id(e.FindWorkload("a", "w").index);
  WorkloadRecord& w = s.wl(id);
  SECTION("a negative requeue count") {
    w.extras->requeue_count = -1;
    CHECK_THAT(std::string(e.CheckInvariants().message()), Catch::Contains("requeue state count -1"));
  }
  SECTION("a requeue instant without a count") {
    w.extras->requeue_count = 0;
    CHECK_THAT(std::string(e.CheckInvariants().message()), Catch::Contains("requeue state count 0 with a requeue instant"));
  }
  SECTION("pods both ready and recovering") {
    w.admission->pods_ready = true;
    w.admission->pods_recovering = true;
    CHECK_THAT(std::string(e.CheckInvariants().message()), Catch::Contains("both ready and waiting for recovery"));
  }
}

TEST_CASE("waitForPodsReady: invalid configuration names the field and builds no engine", "[adapter][pods-ready]") {
  const auto error = [](auto mutate) {
    EngineConfig c;
    c.wait_for_pods_ready.enabled = true;
    mutate(c.wait_for_pods_ready);
    absl::StatusOr<Engine> e = Engine::Create(c);
    REQUIRE_FALSE(e.ok());
    CHECK(e.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(e.status().message());
  };
  CHECK(error([](WaitForPodsReadyConfig& w) { w.timeout = Duration::Seconds(-1); }) ==
        "waitForPodsReady.timeout: must be more than 0");
  CHECK(error([](WaitForPodsReadyConfig& w) { w.recovery_timeout = Duration::Seconds(-1); }) ==
        "waitForPodsReady.recoveryTimeout: must be >= 0");
  CHECK(error([](WaitForPodsReadyConfig& w) { w.backoff_limit_count = -1; }) ==
        "waitForPodsReady.requeuingStrategy.backoffLimitCount: must be >= 0");
  CHECK(error([](WaitForPodsReadyConfig& w) { w.backoff_base_seconds = -1; }) ==
        "waitForPodsReady.requeuingStrategy.backoffBaseSeconds: must be >= 0");
  CHECK(error([](WaitForPodsReadyConfig& w) { w.backoff_max_seconds = -1; }) ==
        "waitForPodsReady.requeuingStrategy.backoffMaxSeconds: must be >= 0");
  CHECK(error([](WaitForPodsReadyConfig& w) { w.requeuing_timestamp = static_cast<RequeuingTimestamp>(7); })
            .starts_with("waitForPodsReady.requeuingStrategy.timestamp: 7 is not supported"));
  CHECK(error([](WaitForPodsReadyConfig& w) { w.block_admission = true; })
            .starts_with("waitForPodsReady.blockAdmission: true is not supported"));
}

TEST_CASE("Feature gate ReclaimablePods=false: the host's reports are refused, loaded status still counts",
          "[adapter][lifecycle][reclaimable][gates]") {
  EngineConfig c;
  REQUIRE(c.features.Set("ReclaimablePods", false).ok());
  Engine e = MakeEngine(c, 3 * kCpu);
  REQUIRE(e.Submit(Workload("a", "run").Queue("q").Request("cpu", kCpu).Count(2)).ok());
  e.ScheduleCycle();
  const absl::Status st = e.SetReclaimablePods("a", "run", "main", 1);
  CHECK(st.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(st.message() == "Workload 'a/run': status.reclaimablePods: not reported while feature gate ReclaimablePods is off");
  CHECK(e.GetClusterQueue("eng")->usage[0].usage == 2 * kCpu);
  // status.reclaimablePods written by someone else (a loaded workload) is honoured, as Kueue's
  // cache does whatever the gate says.
  WorkloadSpec big = Workload("a", "big").Queue("q").Request("cpu", kCpu).Count(3).spec();
  big.reclaimable_pods = {{"main", 2}};
  REQUIRE(e.Submit(big).ok());
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/big"});
  CHECK(e.GetClusterQueue("eng")->usage[0].usage == 3 * kCpu);
}

TEST_CASE("Feature gate UnadmittedWorkloadsExplicitStatus=true: a new workload gets its condition at once",
          "[adapter][lifecycle][controller-status][gates]") {
  EngineConfig c;
  REQUIRE(c.features.Set("UnadmittedWorkloadsExplicitStatus", true).ok());
  Engine e = MakeEngine(c, 2 * kCpu);
  REQUIRE(e.Submit(Workload("a", "fresh").Queue("q").Request("cpu", kCpu)).ok());
  CHECK(e.GetWorkload("a", "fresh")->reason == "PendingEvaluation");
  CHECK(e.GetWorkload("a", "fresh")->message == "Workload is pending evaluation in the scheduling queue");
  // A newcomer of a blocked equivalence class: the class's NoFit reason and the bypass message.
  REQUIRE(e.Submit(Workload("a", "big").Queue("q").Request("cpu", 4 * kCpu)).ok());
  e.ScheduleCycle();
  e.ScheduleCycle();
  REQUIRE(e.GetWorkload("a", "big")->inadmissible);
  const std::string big_reason = e.GetWorkload("a", "big")->reason;
  REQUIRE(e.Submit(Workload("a", "big2").Queue("q").Request("cpu", 4 * kCpu)).ok());
  CHECK(e.GetWorkload("a", "big2")->inadmissible);
  CHECK(e.GetWorkload("a", "big2")->reason == big_reason);
  CHECK(e.GetWorkload("a", "big2")->message == "Bypassed scheduling evaluation because an equivalent workload recently failed");

  SECTION("off (Kueue's default): no condition until something writes one") {
    Engine d = MakeEngine(EngineConfig{}, 2 * kCpu);
    REQUIRE(d.Submit(Workload("a", "fresh").Queue("q").Request("cpu", kCpu)).ok());
    CHECK(d.GetWorkload("a", "fresh")->reason == "Pending");
    CHECK(d.GetWorkload("a", "fresh")->message.empty());
  }
  SECTION("it needs UnadmittedWorkloadsObservability, which is locked on here") {
    FeatureGates g;
    CHECK_FALSE(g.Set("UnadmittedWorkloadsObservability", false).ok());
  }
}

}  // namespace
}  // namespace pods_ready_test
}  // namespace qm
