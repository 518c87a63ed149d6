// `internal::CopyEngine` (lib/adapter/engine_copy.cc), the private copy forecasts and what-if answers
// run on, made member by member instead of through `Save` and `Restore`. Over the overloaded random
// clusters of the forecast property (support/random_cluster.h), stopped after every instant:
//   - the copy saves the engine's exact bytes and passes the engine's self-check;
//   - driven on by the same calls, the copy and an engine restored from `Save` emit the same events
//     and end in the same bytes.
#include <catch2/catch.hpp>
#include <algorithm>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "support/builders.h"
#include "support/random_cluster.h"
#include "support/slow_build.h"
#include "support/thrash_host.h"

namespace qm {
namespace engine_copy_test {
namespace {

std::string Render(std::span<const Event> events) {
  std::string out;
  for (const Event& e : events) {
    out += fmt::format("#{} {} {}/{} cq{} t={} '{}' by {}/{} ({}) '{}'", e.sequence, static_cast<int>(e.kind),
                       e.workload.index, e.workload.generation, e.cluster_queue.value, e.time.us, e.reason,
                       e.preemptor.index, e.preemptor.generation, static_cast<int>(e.preemption_reason), e.message);
    for (const AdmittedPodSet& ps : e.pod_sets) out += fmt::format(" [{} x{}]", ps.index, ps.count);
    out += "\n";
  }
  return out;
}

// Moves `e` on as a host would: an hour later, the first `finishes` workloads holding quota finish,
// evictions are confirmed, and cycles run until settled. Returns the events of every step.
std::string DriveOn(Engine& e, int finishes) {
  std::string out;
  REQUIRE(e.SetNow(e.Now() + Duration::Seconds(3600)).ok());
  int finished = 0;
  for (const WorkloadHandle h : e.Workloads()) {
    if (finished == finishes) break;
    const absl::StatusOr<WorkloadStatus> st = e.GetWorkload(h);
    REQUIRE(st.ok());
    if (st->state != WorkloadState::kAdmitted) continue;
    REQUIRE(e.Finish(h).ok());
    out += Render(e.LastEvents());
    ++finished;
  }
  for (int round = 0; round < 3; ++round) {
    e.ConfirmAllEvicted();
    out += Render(e.LastEvents());
    const StableRun run = e.RunUntilSettled(1000);
    out += fmt::format("cycles {} settled {}\n", run.cycles, run.settled);
    out += Render(e.LastEvents());
  }
  return out;
}

TEST_CASE("A copy of the engine saves its exact bytes, at every instant of random runs", "[adapter][forecast][property]") {
  const uint64_t seeds = test::kSlowBuild ? 6 : 30;
  int64_t copies = 0, with_admissions = 0;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    test::HostScenario sc = test::PropertyScenario(seed, /*backoffs=*/seed % 2 == 0);  // timers, histories, extras
    sc.after_instant = [&](const Engine& e) {
      absl::StatusOr<Engine> copy = internal::CopyEngine(e);
      REQUIRE(copy.ok());
      const absl::StatusOr<std::string> want = e.Save(), got = copy->Save();
      REQUIRE(want.ok());
      REQUIRE(got.ok());
      INFO("seed " << seed << ", instant at " << e.Now().us);
      CHECK(*got == *want);
      CHECK(copy->CheckInvariants().ok());
      ++copies;
      const absl::StatusOr<ClusterQueueStatus> any = copy->ClusterQueues().empty()
                                                         ? absl::NotFoundError("none")
                                                         : copy->GetClusterQueue(copy->ClusterQueues().front());
      if (any.ok() && !any->admitted.empty()) ++with_admissions;
    };
    const test::HostRun run = test::RunHost(sc);
    INFO("seed " << seed);
    CHECK(run.errors.empty());
  }
  // The comparison has teeth: many copies, of engines that hold quota.
  CHECK(copies >= static_cast<int64_t>(seeds) * 10);
  CHECK(with_admissions > copies / 4);
}

TEST_CASE("A copy of the engine decides what a restored engine decides", "[adapter][forecast][property]") {
  const uint64_t seeds = test::kSlowBuild ? 4 : 16;
  int64_t compared = 0, events = 0;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    test::HostScenario sc = test::PropertyScenario(seed, /*backoffs=*/seed % 2 == 1);
    int64_t instant = 0;
    sc.after_instant = [&](const Engine& e) {
      if (++instant % 5 != 0) return;
      const absl::StatusOr<std::string> saved = e.Save();
      REQUIRE(saved.ok());
      absl::StatusOr<Engine> restored = Engine::Restore(*saved);
      absl::StatusOr<Engine> copy = internal::CopyEngine(e);
      REQUIRE(restored.ok());
      REQUIRE(copy.ok());
      INFO("seed " << seed << ", instant " << instant);
      const std::string want = DriveOn(*restored, 3), got = DriveOn(*copy, 3);
      CHECK(got == want);
      CHECK(*copy->Save() == *restored->Save());
      ++compared;
      events += static_cast<int64_t>(std::count(want.begin(), want.end(), '#'));
    };
    const test::HostRun run = test::RunHost(sc);
    INFO("seed " << seed);
    CHECK(run.errors.empty());
  }
  CHECK(compared >= static_cast<int64_t>(seeds) * 2);
  CHECK(events >= compared * 3);
}

TEST_CASE("A copy of the engine has none of the host's settings, and an unusable engine gives none", "[adapter][forecast]") {
  int delivered = 0;
  bool explode = false;
  EngineConfig config;
  config.clock = [] { return Time::FromUnixSeconds(1'000); };
  absl::StatusOr<Engine> made = Engine::Create(config);
  REQUIRE(made.ok());
  Engine& e = *made;
  REQUIRE(e.SetEventCallback([&](std::span<const Event>) {
    ++delivered;
    if (explode) throw std::runtime_error("callback boom");
  }).ok());
  const std::vector<ObjectSpec> objects = {test::Namespace("ns"), test::Flavor("default"),
                                           test::ClusterQueue("cq").Flavor("default", {test::Q("cpu", 1000)}),
                                           test::LocalQueue("ns", "lq", "cq")};
  REQUIRE(e.Apply(objects).ok());
  REQUIRE(e.Submit(test::Workload("ns", "one").Queue("lq").Request("cpu", 500)).ok());
  const int before = delivered;

  absl::StatusOr<Engine> copy = internal::CopyEngine(e);
  REQUIRE(copy.ok());
  // No clock: the copy keeps a manual one, at the engine's last manual instant (never moved here).
  CHECK(copy->Now() == Time{});
  REQUIRE(copy->SetNow(Time::FromUnixSeconds(5)).ok());
  CHECK(copy->Now() == Time::FromUnixSeconds(5));
  CHECK(e.Now() == Time::FromUnixSeconds(1'000));
  // No callback: the copy's admission reaches the copy's events only.
  REQUIRE(copy->RunUntilSettled().cycles > 0);
  CHECK(copy->GetWorkload(copy->FindWorkload("ns", "one"))->state == WorkloadState::kAdmitted);
  CHECK(delivered == before);
  CHECK(e.GetWorkload(e.FindWorkload("ns", "one"))->state == WorkloadState::kPending);

  // A poisoned engine is not copied.
  explode = true;
  e.RunUntilSettled();
  const absl::StatusOr<Engine> refused = internal::CopyEngine(e);
  CHECK(refused.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(refused.status().message()).find("callback boom") != std::string::npos);
}

}  // namespace
}  // namespace engine_copy_test
}  // namespace qm
