// Engine::GetLocalQueue (docs/semantics.md §1.5.1): Kueue's LocalQueue status, checked against what
// the ClusterQueue view reports for the same workloads, and in the manifests `qm run --state` writes.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "qm/text/manifest_writer.h"
#include "support/builders.h"

namespace qm {
namespace local_queue_status_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

int64_t Total(const std::vector<LocalQueueFlavorTotals>& totals, const std::string& flavor, const std::string& r) {
  for (const LocalQueueFlavorTotals& f : totals)
    if (f.flavor == flavor)
      for (const auto& [resource, amount] : f.resources)
        if (resource == r) return amount;
  return -1;
}

TEST_CASE("GetLocalQueue: unknown queues, the default namespace and the list of queues", "[adapter][localqueue]") {
  Engine e = test::OneQueueEngine(4 * kCpu);
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Namespace("default"), test::LocalQueue("", "dq", "eng"), test::LocalQueue("a", "b", "eng")})
              .ok());
  CHECK(e.LocalQueues() == std::vector<std::string>{"a/b", "a/q", "default/dq"});
  const absl::StatusOr<LocalQueueStatus> missing = e.GetLocalQueue("a", "nope");
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(missing.status().message()) == "LocalQueue 'a/nope': not found");
  CHECK(e.GetLocalQueue("nowhere", "q").status().code() == absl::StatusCode::kNotFound);
  const absl::StatusOr<LocalQueueStatus> dq = e.GetLocalQueue("", "dq");
  REQUIRE(dq.ok());
  CHECK(dq->namespace_ == "default");
  CHECK(dq->cluster_queue == "eng");
  CHECK(dq->active);
  CHECK(dq->reason == "Ready");
  REQUIRE(e.Delete(ObjectRef{ObjectKind::kLocalQueue, "a", "b"}).ok());
  CHECK(e.GetLocalQueue("a", "b").status().code() == absl::StatusCode::kNotFound);
  CHECK(e.LocalQueues() == std::vector<std::string>{"a/q", "default/dq"});
}

// Random submissions, cycles, finishes and evictions over three LocalQueues of one ClusterQueue and
// one of another: after every step the LocalQueues' pending counts and reservations add up to what
// the ClusterQueues report, and each LocalQueue's numbers match its own workloads.
TEST_CASE("GetLocalQueue: counts and totals agree with the ClusterQueues under random changes",
          "[adapter][localqueue]") {
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Namespace("a"), test::Namespace("b"), test::Flavor("x"), test::Flavor("y"),
                   ClusterQueue("one").Cohort("co").Flavor("x", {Q("cpu", 6 * kCpu)}).Flavor("y", {Q("cpu", 4 * kCpu)}),
                   ClusterQueue("two").Cohort("co").Flavor("x", {Q("cpu", 3 * kCpu)}), test::LocalQueue("a", "l1", "one"),
                   test::LocalQueue("a", "l2", "one"), test::LocalQueue("b", "l3", "one"),
                   test::LocalQueue("b", "l4", "two")})
              .ok());
  const std::vector<std::pair<std::string, std::string>> queues = {{"a", "l1"}, {"a", "l2"}, {"b", "l3"}, {"b", "l4"}};
  std::mt19937 rng(7);
  std::vector<std::pair<WorkloadHandle, size_t>> live;  // handle → index in `queues`
  for (int step = 0; step < 300; ++step) {
    const int action = static_cast<int>(rng() % 6);
    if (action <= 1) {
      const size_t q = rng() % queues.size();
      const int64_t cpus = 1 + static_cast<int64_t>(rng() % 3);
      auto h = e.Submit(Workload(queues[q].first, "w" + std::to_string(step)).Queue(queues[q].second).Request("cpu", cpus * kCpu));
      REQUIRE(h.ok());
      live.emplace_back(*h, q);
    } else if (action == 2) {
      e.ScheduleCycle();
    } else if (!live.empty()) {
      // Finish, evict (the quota stays held until confirmed) or confirm an eviction.
      const WorkloadHandle h = live[rng() % live.size()].first;
      const WorkloadState state = e.GetWorkload(h)->state;
      if (action == 3 && state == WorkloadState::kAdmitted) REQUIRE(e.Finish(h).ok());
      if (action == 4 && state == WorkloadState::kAdmitted) REQUIRE(e.Evict(h, "NodeFailures", "").ok());
      if (action == 5 && state == WorkloadState::kEvicting) REQUIRE(e.ConfirmEvicted(h).ok());
    }
    int64_t pending_one = 0, reserved_one_x = 0, reserved_one_y = 0, reserved_two_x = 0;
    for (size_t q = 0; q < queues.size(); ++q) {
      const absl::StatusOr<LocalQueueStatus> st = e.GetLocalQueue(queues[q].first, queues[q].second);
      REQUIRE(st.ok());
      // Its own workloads, counted from the workload views.
      int32_t pending = 0, holding = 0;
      int64_t held = 0;
      for (const auto& [h, in] : live) {
        const WorkloadStatus w = *e.GetWorkload(h);
        if (in != q) continue;
        if (w.state == WorkloadState::kPending) ++pending;
        if (w.state != WorkloadState::kAdmitted && w.state != WorkloadState::kEvicting) continue;
        ++holding;
        for (const PodSetAssignment& ps : w.admission->pod_sets)
          for (const auto& [resource, amount] : ps.usage) held += amount;
      }
      CHECK(st->pending_workloads == pending);
      CHECK(st->reserving_workloads == holding);
      CHECK(st->admitted_workloads == holding);
      CHECK(Total(st->flavors_reservation, "x", "cpu") + std::max<int64_t>(0, Total(st->flavors_reservation, "y", "cpu")) == held);
      CHECK(st->flavors_usage.size() == st->flavors_reservation.size());
      if (st->cluster_queue == "one") {
        REQUIRE(st->flavors_reservation.size() == 2);
        pending_one += st->pending_workloads;
        reserved_one_x += Total(st->flavors_reservation, "x", "cpu");
        reserved_one_y += Total(st->flavors_reservation, "y", "cpu");
      } else {
        REQUIRE(st->flavors_reservation.size() == 1);
        reserved_two_x += Total(st->flavors_reservation, "x", "cpu");
        CHECK(static_cast<size_t>(st->pending_workloads) == e.GetClusterQueue("two")->pending.size());
      }
    }
    const ClusterQueueStatus one = *e.GetClusterQueue("one");
    const ClusterQueueStatus two = *e.GetClusterQueue("two");
    CHECK(pending_one == static_cast<int64_t>(one.pending.size()));
    CHECK(reserved_one_x == one.usage[0].usage);
    CHECK(reserved_one_y == one.usage[1].usage);
    CHECK(reserved_two_x == two.usage[0].usage);
  }
}

TEST_CASE("WriteEngineState: LocalQueues carry Kueue's status", "[adapter][localqueue]") {
  Engine e = test::OneQueueEngine(4 * kCpu);
  REQUIRE(e.Submit(Workload("a", "job").Queue("q").Request("cpu", 3 * kCpu)).ok());
  e.ScheduleCycle();
  REQUIRE(e.Submit(Workload("a", "next").Queue("q").Request("cpu", 3 * kCpu)).ok());
  const std::vector<ObjectSpec> objects = {test::LocalQueue("a", "q", "eng")};
  const std::string yaml = WriteEngineState(e, objects);
  CHECK_THAT(yaml, Catch::Contains("reason: Ready"));
  CHECK_THAT(yaml, Catch::Contains("pendingWorkloads: 1\n  reservingWorkloads: 1\n  admittedWorkloads: 1\n"));
  CHECK_THAT(yaml, Catch::Contains("- name: default\n    resources:\n    - {name: cpu, total: \"3\"}"));
}

}  // namespace
}  // namespace local_queue_status_test
}  // namespace qm
