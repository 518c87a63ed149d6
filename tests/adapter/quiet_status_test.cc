// A forecast runs its private copy of the engine without waiting workloads' status texts
// (`internal::SilenceStatusTexts`, ClusterState::quiet_status). Leaving the texts out must not
// change a single decision: the same overloaded clusters the forecast property draws
// (support/random_cluster.h) are run by the independent host twice, once silenced, and every event
// (its cycle, instant, kind, workload, queue, reason, preemptor and message) must be the same.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "support/random_cluster.h"
#include "support/slow_build.h"
#include "support/thrash_host.h"

namespace qm {
namespace quiet_status_test {
namespace {

std::string Render(const test::LoggedEvent& e) {
  return fmt::format("#{} cycle {} t={} {} {} in {} reason '{}' by {} ({}) '{}'", e.sequence, e.cycle, e.time.us,
                     static_cast<int>(e.kind), e.workload, e.cluster_queue, e.reason, e.preemptor,
                     static_cast<int>(e.preemption_reason), e.message);
}

TEST_CASE("Silenced status texts change no decision", "[adapter][forecast][property]") {
  const uint64_t seeds = test::kSlowBuild ? 8 : 40;
  int64_t events = 0, preemptions = 0;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    // The back-offs write status texts of their own.
    test::HostScenario sc = test::PropertyScenario(seed, /*backoffs=*/seed % 2 == 0);
    const test::HostRun loud = test::RunHost(sc);
    sc.quiet_status = true;
    const test::HostRun quiet = test::RunHost(sc);
    INFO("seed " << seed);
    CHECK(loud.errors == quiet.errors);
    CHECK(loud.truncated == quiet.truncated);
    CHECK(loud.cycles == quiet.cycles);
    CHECK(loud.instants == quiet.instants);
    REQUIRE(loud.log.size() == quiet.log.size());
    for (size_t i = 0; i < loud.log.size(); ++i) {
      if (Render(loud.log[i]) != Render(quiet.log[i])) {
        FAIL_CHECK("event " << i << " differs:\n  loud  " << Render(loud.log[i]) << "\n  quiet " << Render(quiet.log[i]));
        break;
      }
      preemptions += loud.log[i].kind == EventKind::kPreempted ? 1 : 0;
    }
    events += static_cast<int64_t>(loud.log.size());
  }
  // The comparison has teeth: many decisions, preemptions among them.
  CHECK(events >= static_cast<int64_t>(seeds) * 20);
  CHECK(preemptions > 0);
}

TEST_CASE("A silenced engine writes no text for a waiting workload, and the same reason", "[adapter][forecast]") {
  auto build = [](bool quiet) {
    absl::StatusOr<Engine> made = Engine::Create(EngineConfig{});
    REQUIRE(made.ok());
    Engine e = std::move(*made);
    if (quiet) internal::SilenceStatusTexts(e);
    ClusterQueueSpec cq;
    cq.name = "cq";
    cq.namespace_selector = LabelSelector{};
    ResourceGroupSpec group;
    group.covered_resources = {"cpu"};
    group.flavors.push_back(FlavorQuotasSpec{"default", {ResourceQuotaSpec{"cpu", 1000, std::nullopt, {}}}});
    cq.resource_groups.push_back(group);
    LocalQueueSpec lq;
    lq.namespace_ = "ns";
    lq.name = "lq";
    lq.cluster_queue = "cq";
    std::vector<ObjectSpec> objects;
    objects.emplace_back(ResourceFlavorSpec{"default", {}, {}, {}});
    objects.emplace_back(cq);
    objects.emplace_back(NamespaceSpec{"ns", {}});
    objects.emplace_back(lq);
    REQUIRE(e.Apply(objects).ok());
    WorkloadSpec w;
    w.namespace_ = "ns";
    w.name = "big";
    w.queue_name = "lq";
    PodSetSpec ps;
    ps.name = "main";
    ps.count = 1;
    ps.requests = {{"cpu", 2000}};
    w.pod_sets.push_back(ps);
    REQUIRE(e.Submit(w).ok());
    e.RunUntilSettled();
    return e;
  };
  Engine loud = build(false), quiet = build(true);
  const absl::StatusOr<WorkloadStatus> a = loud.GetWorkload(loud.FindWorkload("ns", "big"));
  const absl::StatusOr<WorkloadStatus> b = quiet.GetWorkload(quiet.FindWorkload("ns", "big"));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->state == WorkloadState::kPending);
  CHECK(b->state == WorkloadState::kPending);
  CHECK(a->reason == b->reason);
  CHECK(a->message.find("insufficient quota for cpu in flavor default") != std::string::npos);
  CHECK(b->message.empty());
}

}  // namespace
}  // namespace quiet_status_test
}  // namespace qm
