// Status stamps (qm/queue/class_queue.h, qm/queue/pending_queue.h): a bulk park of an equivalence
// class writes one stamp instead of every member's status, and every reader still sees what Kueue
// writes on each member (docs/semantics.md §3.7): the failed head's reason and the "Bypassed ..."
// message, through flushes, snapshots, one-by-one updates, and the epoch counter's restart.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "adapter/engine_state.h"
#include "qm/adapter/engine.h"
#include "qm/queue/pending_queue.h"
#include "support/builders.h"

namespace qm {
namespace status_stamp_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;
constexpr const char* kBypassed = "Bypassed scheduling evaluation because an equivalent workload recently failed";

Time At(int64_t seconds) { return Time::FromUnixSeconds(1'700'000'000 + seconds); }

// ClusterQueue `eng` (4 cpu) full with a/running; a/w1..a/w5 (1 cpu each, one class) wait.
Engine World() {
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Namespace("a"), test::Flavor("default"),
                                          ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}),
                                          test::LocalQueue("a", "q", "eng")})
              .ok());
  REQUIRE(e.Submit(Workload("a", "running").Queue("q").Request("cpu", 4 * kCpu).Created(At(0))).ok());
  e.RunUntilStable();
  for (int i = 1; i <= 5; ++i)
    REQUIRE(e.Submit(Workload("a", "w" + std::to_string(i)).Queue("q").Request("cpu", kCpu).Created(At(i))).ok());
  return e;
}

WorkloadStatus Status(const Engine& e, const std::string& name) {
  const auto w = e.GetWorkload("a", name);
  REQUIRE(w.ok());
  return *w;
}

// Every waiting member but the failed head reads the head's reason and the Bypassed message.
void CheckParkedAsEquivalents(const Engine& e) {
  const WorkloadStatus head = Status(e, "w1");
  CHECK(head.inadmissible);
  CHECK(head.message != kBypassed);
  for (int i = 2; i <= 5; ++i) {
    const WorkloadStatus w = Status(e, "w" + std::to_string(i));
    CAPTURE(i);
    CHECK(w.inadmissible);
    CHECK(w.reason == head.reason);
    CHECK(w.message == kBypassed);
  }
}

}  // namespace

TEST_CASE("Status stamps: a bulk park writes no member, and every reader sees each member's status",
          "[queue][besteffort][stamp]") {
  Engine e = World();
  e.ScheduleCycle();  // w1 fails for lack of quota; w2..w5 are parked as its equivalents
  CheckParkedAsEquivalents(e);
  CHECK(e.CheckInvariants().ok());
  // The members' records were not written: their class carries the status.
  const ClusterState& s = internal::EngineStateForTesting(e).s;
  const WorkloadRecord& w3 = s.wl(s.FindWorkload(s.namespaces_names.Find("a"), "w3"));
  CHECK(std::string_view(w3.message) != kBypassed);
  CHECK(s.status_epoch == 1);

  SECTION("a snapshot holds every member's status, and a restored engine shows it") {
    const absl::StatusOr<std::string> saved = e.Save();
    REQUIRE(saved.ok());
    absl::StatusOr<Engine> restored = Engine::Restore(*saved, EngineConfig{});
    REQUIRE(restored.ok());
    CheckParkedAsEquivalents(*restored);
    CHECK(internal::EngineStateForTesting(*restored).s.status_epoch == 0);
    CHECK(*restored->Save() == *saved);
  }
  SECTION("a flush keeps the status until each member is looked at, one per cycle") {
    REQUIRE(e.Finish("a", "running").ok());
    CHECK(Status(e, "w3").message == kBypassed);
    CHECK_FALSE(Status(e, "w3").inadmissible);
    e.ScheduleCycle();  // admits w1; the others keep their status
    CHECK(Status(e, "w1").state == WorkloadState::kAdmitted);
    CHECK(Status(e, "w3").message == kBypassed);
    e.RunUntilStable();
    for (int i = 1; i <= 4; ++i) CHECK(Status(e, "w" + std::to_string(i)).state == WorkloadState::kAdmitted);
    CHECK(Status(e, "w5").state == WorkloadState::kPending);
    CHECK(e.CheckInvariants().ok());
  }
  SECTION("a member written one by one while parked keeps what was written") {
    // Stopping the ClusterQueue writes "is inactive" on each waiting workload, stamped or not.
    ClusterQueue stopped("eng");
    ClusterQueueSpec spec = stopped.Flavor("default", {Q("cpu", 4 * kCpu)}).spec();
    spec.stop_policy = StopPolicy::kHold;
    REQUIRE(e.Apply(spec).ok());
    for (int i = 1; i <= 5; ++i) CHECK(Status(e, "w" + std::to_string(i)).message == "ClusterQueue eng is inactive");
    CHECK(e.CheckInvariants().ok());
    const absl::StatusOr<std::string> saved = e.Save();
    REQUIRE(saved.ok());
    absl::StatusOr<Engine> restored = Engine::Restore(*saved, EngineConfig{});
    REQUIRE(restored.ok());
    CHECK(Status(*restored, "w4").message == "ClusterQueue eng is inactive");
  }
  SECTION("a member that leaves the class takes its stamped status along") {
    REQUIRE(e.Deactivate("a", "w4").ok());
    REQUIRE(e.Activate("a", "w4").ok());
    CHECK(Status(e, "w2").message == kBypassed);
    CHECK(e.CheckInvariants().ok());
  }
}

TEST_CASE("Status stamps: the epoch counter restarts before it wraps, and no status changes",
          "[queue][besteffort][stamp]") {
  Engine e = World();
  ClusterState& s = internal::EngineStateForTesting(e).s;
  s.status_epoch = UINT32_MAX - 1;
  e.ScheduleCycle();  // stamp UINT32_MAX
  CHECK(s.status_epoch == UINT32_MAX);
  CheckParkedAsEquivalents(e);
  CHECK(e.CheckInvariants().ok());
  // Quota comes back, w1 is admitted, w2 fails and its class is parked again: the counter would
  // wrap, so every stamp is written into its members first and counting starts again.
  REQUIRE(e.Submit(Workload("a", "two-cpu").Queue("q").Request("cpu", 2 * kCpu).Created(At(0))).ok());
  REQUIRE(e.Finish("a", "running").ok());
  e.ScheduleCycle();  // admits two-cpu (the earliest)
  e.ScheduleCycle();  // admits w1
  e.ScheduleCycle();  // admits w2
  REQUIRE(e.Submit(Workload("a", "w0").Queue("q").Request("cpu", kCpu).Created(At(6))).ok());
  REQUIRE(e.Submit(Workload("a", "blocker").Queue("q").Request("cpu", 3 * kCpu).Priority(5).Created(At(7))).ok());
  e.ScheduleCycle();  // blocker fails, alone in its class: the counter restarts here
  CHECK(s.status_epoch == 0);
  CHECK(Status(e, "w4").message == kBypassed);  // written from the stamp it had
  CHECK(Status(e, "w0").message != kBypassed);
  CHECK(e.CheckInvariants().ok());
  e.ScheduleCycle();  // w3 fails; w4, w5, w0 are parked with a fresh stamp
  CHECK(s.status_epoch < 10);
  CHECK(Status(e, "w3").inadmissible);
  for (const char* name : {"w4", "w5", "w0"}) {
    CAPTURE(name);
    CHECK(Status(e, name).message == kBypassed);
    CHECK(Status(e, name).reason == Status(e, "w3").reason);
  }
  CHECK(e.CheckInvariants().ok());
}

}  // namespace status_stamp_test
}  // namespace qm
