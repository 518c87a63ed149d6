// Changes a host makes on its own: evictions (node failure, pods-ready timeout, a user's cancel),
// deactivation, reclaimable pods, and quota that shrinks under admitted workloads.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace host_changes_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

Engine OneQueue(int64_t cpus = 4) { return test::OneQueueEngine(cpus * kCpu); }

int64_t Usage(const Engine& e) { return e.GetClusterQueue("eng")->usage[0].usage; }

std::vector<std::string> Admitted(const Engine& e, const CycleResult& r) { return test::Log(e, r).admitted; }

TEST_CASE("Evict: two-phase, with the host's reason and message, then back to the queue", "[adapter][host]") {
  Engine e = OneQueue();
  auto job = e.Submit(Workload("a", "job").Queue("q").Request("cpu", 4 * kCpu));
  REQUIRE(job.ok());
  e.ScheduleCycle();
  REQUIRE(e.Evict(*job, "NodeFailures", "node n-17 failed").ok());
  REQUIRE(e.LastEvents().size() == 1);
  CHECK(e.LastEvents()[0].kind == EventKind::kEvicted);
  CHECK(std::string(e.LastEvents()[0].reason) == "NodeFailures");
  CHECK(e.LastEvents()[0].message == "node n-17 failed");
  auto st = e.GetWorkload(*job);
  CHECK(st->state == WorkloadState::kEvicting);
  CHECK(st->reason == "NodeFailures");
  CHECK(Usage(e) == 4 * kCpu);             // held until the host confirms
  CHECK(e.ScheduleCycle().events.empty());  // and nothing re-admits it meanwhile
  REQUIRE(e.ConfirmEvicted(*job).ok());
  CHECK(e.LastEvents()[0].kind == EventKind::kRequeued);
  CHECK(Usage(e) == 0);
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/job"});
}

TEST_CASE("Evict: refused for what cannot be evicted, changing nothing", "[adapter][host]") {
  Engine e = OneQueue();
  auto job = e.Submit(Workload("a", "job").Queue("q").Request("cpu", kCpu));
  REQUIRE(job.ok());
  CHECK(e.Evict(*job, "NodeFailures", "").code() == absl::StatusCode::kFailedPrecondition);  // pending
  e.ScheduleCycle();
  CHECK(e.Evict(*job, "", "no reason").code() == absl::StatusCode::kInvalidArgument);
  CHECK(e.Evict(*job, "not a reason", "").code() == absl::StatusCode::kInvalidArgument);
  CHECK(e.GetWorkload(*job)->state == WorkloadState::kAdmitted);
  REQUIRE(e.Evict("a", "job", "PodsReadyTimeout", "Exceeded the PodsReady timeout a/job").ok());
  const absl::Status again = e.Evict(*job, "NodeFailures", "");
  CHECK(again.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(again.message()) == "Workload 'a/job': is already being evicted");
  CHECK(e.Evict("a", "missing", "NodeFailures", "").code() == absl::StatusCode::kNotFound);
}

TEST_CASE("Evict: Kueue's requeue order — PodsReadyTimeout queues by eviction time, others by creation",
          "[adapter][host]") {
  // Setup: `old` (created at 1) runs; `young` (created at 5) waits for the only CPU. At 10 the host
  // evicts `old`. Kueue's default requeuing timestamp is the eviction time for PodsReadyTimeout,
  // so `young` goes first; for any other reason `old` keeps its creation time and goes first.
  const auto run = [](const char* reason) {
    Engine e = OneQueue(1);
    REQUIRE(e.Submit(Workload("a", "old").Queue("q").Request("cpu", kCpu).Created(Time::FromUnixSeconds(1))).ok());
    e.ScheduleCycle();
    REQUIRE(e.Submit(Workload("a", "young").Queue("q").Request("cpu", kCpu).Created(Time::FromUnixSeconds(5))).ok());
    e.ScheduleCycle();
    REQUIRE(e.SetNow(Time::FromUnixSeconds(10)).ok());
    REQUIRE(e.Evict("a", "old", reason, "").ok());
    REQUIRE(e.ConfirmEvicted("a", "old").ok());
    return Admitted(e, e.ScheduleCycle());
  };
  CHECK(run("PodsReadyTimeout") == std::vector<std::string>{"a/young"});
  CHECK(run("AdmissionCheck") == std::vector<std::string>{"a/young"});
  CHECK(run("NodeFailures") == std::vector<std::string>{"a/old"});
}

TEST_CASE("Deactivate and Activate", "[adapter][host]") {
  Engine e = OneQueue(1);
  auto running = e.Submit(Workload("a", "running").Queue("q").Request("cpu", kCpu));
  REQUIRE(running.ok());
  e.ScheduleCycle();
  auto waiting = e.Submit(Workload("a", "waiting").Queue("q").Request("cpu", kCpu));
  REQUIRE(waiting.ok());

  SECTION("a pending workload leaves its queue at once") {
    REQUIRE(e.Deactivate(*waiting).ok());
    CHECK(e.LastEvents()[0].kind == EventKind::kDeactivated);
    CHECK(e.GetWorkload(*waiting)->state == WorkloadState::kInactive);
    CHECK(e.GetClusterQueue("eng")->pending.empty());
    REQUIRE(e.Finish(*running).ok());
    CHECK(e.ScheduleCycle().events.empty());
    REQUIRE(e.Activate(*waiting).ok());
    CHECK(e.LastEvents()[0].kind == EventKind::kActivated);
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/waiting"});
  }
  SECTION("an admitted workload is evicted (Deactivated) and stays out once confirmed") {
    REQUIRE(e.Deactivate("a", "running").ok());
    CHECK(std::string(e.LastEvents()[0].reason) == "Deactivated");
    CHECK(e.LastEvents()[0].message == "The workload is deactivated");
    REQUIRE(e.ConfirmEvicted(*running).ok());
    CHECK(e.LastEvents()[0].kind == EventKind::kDeactivated);
    CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/waiting"});
    CHECK(e.GetWorkload(*running)->state == WorkloadState::kInactive);
  }
  SECTION("activating an active workload changes nothing") {
    REQUIRE(e.Activate(*waiting).ok());
    CHECK(e.LastEvents().empty());
  }
}

TEST_CASE("SetReclaimablePods: finished pods give their quota back to the next cycle", "[adapter][host]") {
  Engine e = OneQueue(4);
  auto job = e.Submit(Workload("a", "job").Queue("q").Request("cpu", kCpu).Count(4));
  REQUIRE(job.ok());
  e.ScheduleCycle();
  REQUIRE(e.Submit(Workload("a", "next").Queue("q").Request("cpu", 2 * kCpu)).ok());
  CHECK(e.ScheduleCycle().events.empty());  // parked: no room
  REQUIRE(e.SetReclaimablePods(*job, "main", 2).ok());
  CHECK(Usage(e) == 2 * kCpu);
  CHECK(e.GetWorkload(*job)->state == WorkloadState::kAdmitted);
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/next"});

  CHECK(e.SetReclaimablePods(*job, "main", 1).code() == absl::StatusCode::kInvalidArgument);   // decrease
  CHECK(e.SetReclaimablePods(*job, "main", 5).code() == absl::StatusCode::kInvalidArgument);   // > count
  CHECK(e.SetReclaimablePods(*job, "workers", 1).code() == absl::StatusCode::kNotFound);       // no pod set
  CHECK(e.SetReclaimablePods("a", "next", "main", 3).code() == absl::StatusCode::kInvalidArgument);
  REQUIRE(e.SetReclaimablePods("a", "job", "main", 4).ok());
  CHECK(Usage(e) == 2 * kCpu);  // only `next`
  REQUIRE(e.Finish(*job).ok());
  CHECK(Usage(e) == 2 * kCpu);
}

TEST_CASE("Quota shrinking under admitted workloads evicts nothing; the queue drains below it", "[adapter][host]") {
  // A node with 2 of the 4 CPUs fails: the host lowers the quota to 2.
  Engine e = OneQueue(4);
  for (const char* name : {"one", "two", "three"})
    REQUIRE(e.Submit(Workload("a", name).Queue("q").Request("cpu", kCpu)).ok());
  e.RunUntilStable();
  REQUIRE(e.Apply(ClusterQueue("eng").Flavor("default", {Q("cpu", 2 * kCpu)})).ok());
  CHECK(e.LastEvents().empty());
  auto q = e.GetClusterQueue("eng");
  CHECK(q->usage[0].nominal == 2 * kCpu);
  CHECK(q->usage[0].usage == 3 * kCpu);  // over its new quota, as in Kueue
  REQUIRE(e.Submit(Workload("a", "four").Queue("q").Request("cpu", kCpu)).ok());
  CHECK(e.ScheduleCycle().events.empty());
  REQUIRE(e.Finish("a", "one").ok());
  CHECK(e.ScheduleCycle().events.empty());  // 2 used of 2
  REQUIRE(e.Finish("a", "two").ok());
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/four"});
}

}  // namespace
}  // namespace host_changes_test
}  // namespace qm
