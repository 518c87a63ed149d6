// Updates of an existing workload (docs/semantics.md §1.7, "Updates"): a workload that holds quota
// keeps its pod sets (Kueue's webhook makes them immutable once quota is reserved), and an update
// of a pending workload replaces every field, empty ones included.
#include <catch2/catch.hpp>

#include <string>

#include "adapter/engine_state.h"
#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace update_admitted_test {
namespace {

using test::Workload;

constexpr int64_t kCpu = 1000;

int64_t CpuUsage(const Engine& e) {
  absl::StatusOr<ClusterQueueStatus> st = e.GetClusterQueue("eng");
  REQUIRE(st.ok());
  int64_t total = 0;
  for (const FlavorResourceUsage& u : st->usage) total += u.usage;
  return total;
}

const WorkloadRecord& Record(Engine& e, std::string_view name) {
  internal::EngineState& state = internal::EngineStateForTesting(e);
  const WorkloadHandle h = e.FindWorkload("a", name);
  REQUIRE(h.valid());
  return state.s.wl(WorkloadId(h.index));
}

TEST_CASE("Workload update: pod sets of an admitted workload cannot change", "[adapter][update]") {
  Engine e = test::OneQueueEngine(100 * kCpu);
  REQUIRE(e.Submit(Workload("a", "w").Queue("q").Request("cpu", 10 * kCpu)).ok());
  e.ScheduleCycle();
  REQUIRE(e.GetWorkload("a", "w")->state == WorkloadState::kAdmitted);
  REQUIRE(CpuUsage(e) == 10 * kCpu);
  const std::string before = *e.Save();

  SECTION("a raised request is refused and usage stays") {
    // Setup: re-apply with 90 cpu instead of 10. Expect: FailedPrecondition naming podSets[0].
    const absl::Status st = e.Apply(Workload("a", "w").Queue("q").Request("cpu", 90 * kCpu));
    REQUIRE(st.code() == absl::StatusCode::kFailedPrecondition);
    CHECK(std::string(st.message()) ==
          "Workload 'a/w': spec.podSets[0]: cannot change while the workload holds quota");
    CHECK(CpuUsage(e) == 10 * kCpu);
    CHECK(*e.Save() == before);
  }
  SECTION("a new resource, a node selector or a toleration is refused") {
    // Setup: three updates that each change only one pod-set field. Expect: all refused.
    CHECK(e.Apply(Workload("a", "w").Queue("q").Request("cpu", 10 * kCpu).Request("memory", 1)).code() ==
          absl::StatusCode::kFailedPrecondition);
    WorkloadSpec selector = Workload("a", "w").Queue("q").Request("cpu", 10 * kCpu).spec();
    selector.pod_sets[0].node_selector = {{"zone", "a"}};
    CHECK(e.Apply(selector).code() == absl::StatusCode::kFailedPrecondition);
    WorkloadSpec tolerating = Workload("a", "w").Queue("q").Request("cpu", 10 * kCpu).spec();
    tolerating.pod_sets[0].tolerations.push_back(Toleration{});
    CHECK(e.Apply(tolerating).code() == absl::StatusCode::kFailedPrecondition);
    CHECK(*e.Save() == before);
  }
  SECTION("the same pod sets with a new priority are accepted") {
    // Setup: re-apply unchanged but priority 7. Expect: OK, priority 7, usage unchanged.
    REQUIRE(e.Apply(Workload("a", "w").Queue("q").Request("cpu", 10 * kCpu).Priority(7)).ok());
    CHECK(e.GetWorkload("a", "w")->priority == 7);
    CHECK(CpuUsage(e) == 10 * kCpu);
  }
}

TEST_CASE("Workload update: a pending workload's labels, job UID and priority class are replaced",
          "[adapter][update]") {
  Engine e = test::OneQueueEngine(1 * kCpu);
  REQUIRE(e.Apply(WorkloadPriorityClassSpec{"high", 100, ""}).ok());
  WorkloadSpec spec = Workload("a", "w").Queue("q").Request("cpu", 5 * kCpu).spec();  // never fits
  spec.labels = {{"team", "x"}};
  spec.job_uid = "job-1";
  REQUIRE(e.Submit(spec).ok());
  REQUIRE(Record(e, "w").extras != nullptr);

  SECTION("empty labels and job UID clear the old ones") {
    // Setup: re-apply without labels and job UID. Expect: both gone.
    spec.labels.clear();
    spec.job_uid.clear();
    REQUIRE(e.Apply(spec).ok());
    const WorkloadRecord& w = Record(e, "w");
    REQUIRE(w.extras != nullptr);
    CHECK(w.extras->labels.empty());
    CHECK(w.extras->job_uid.empty());
  }
  SECTION("a new priorityClassRef is recorded and sets the priority") {
    // Setup: re-apply naming WorkloadPriorityClass `high`. Expect: priority 100, ref recorded.
    spec.priority_class = PriorityClassRef{PriorityClassSource::kWorkloadPriorityClass, "high"};
    REQUIRE(e.Apply(spec).ok());
    CHECK(e.GetWorkload("a", "w")->priority == 100);
    const WorkloadRecord& w = Record(e, "w");
    CHECK(w.extras->priority_class.name == "high");
    // Restore keeps it: the snapshot carries the recorded ref.
    absl::StatusOr<Engine> back = Engine::Restore(*e.Save());
    REQUIRE(back.ok());
    CHECK(Record(*back, "w").extras->priority_class.name == "high");
  }
}

}  // namespace
}  // namespace update_admitted_test
}  // namespace qm
