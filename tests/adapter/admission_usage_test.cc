// An admission keeps its pod sets' usage (status.admission.podSetAssignments[].resourceUsage) only
// when the shape and admitted counts do not give it (AdmissionRecord::explicit_usage): every
// admission the engine makes in the ordinary case stores none, which is most of what an admission's
// fresh memory used to be. What the API reports, what `Save` writes, and what a restore or a
// private copy holds must not depend on whether the usage was kept or derived.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "adapter/engine_state.h"
#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace admission_usage_test {
namespace {

// One ClusterQueue covering cpu and pods in flavor `default`, fed by ns/lq.
Engine Cluster() {
  Engine e;
  const std::vector<ObjectSpec> objects = {
      test::Namespace("ns"), test::Flavor("default"),
      test::ClusterQueue("cq").Flavor("default", {test::Q("cpu", 100'000), test::Q("pods", 100)}),
      test::LocalQueue("ns", "lq", "cq")};
  REQUIRE(e.Apply(objects).ok());
  return e;
}

test::Workload Job(std::string name, int32_t count) { return test::Workload("ns", std::move(name)).Queue("lq").Count(count); }

// Whether the record keeps the usage, and the usage the API reports for pod set 0.
std::pair<bool, ResourceAmounts> Held(Engine& e, const std::string& name) {
  const WorkloadHandle h = e.FindWorkload("ns", name);
  const absl::StatusOr<WorkloadStatus> st = e.GetWorkload(h);
  REQUIRE(st.ok());
  REQUIRE(st->admission.has_value());
  const ClusterState& s = internal::EngineStateForTesting(e).s;
  const WorkloadRecord& w = s.wl(s.Resolve(h));
  REQUIRE(w.admission != nullptr);
  return {w.admission->explicit_usage != nullptr, st->admission->pod_sets[0].usage};
}

TEST_CASE("An admission keeps its pod sets' usage only when the shape does not give it", "[adapter][snapshot]") {
  Engine e = Cluster();
  // Admitted by the engine: 2 pods of 500m, charged one pod each. Derived, not kept.
  REQUIRE(e.Submit(Job("plain", 2).Request("cpu", 500)).ok());
  // Its shape asks 2 "pods" per pod, but a queue covering pods charges one per pod: kept.
  REQUIRE(e.Submit(Job("odd-pods", 1).Request("cpu", 100).Request("pods", 2)).ok());
  // Loaded holding quota with an explicit resourceUsage that is not count × request: kept.
  WorkloadSpec loaded = Job("loaded", 2).Request("cpu", 500).AdmittedIn("cq", "default").spec();
  PodSetAssignmentSpec& psa = loaded.admission->pod_set_assignments[0];
  psa.flavors = {{"cpu", "default"}, {"pods", "default"}};
  psa.resource_usage = {{"cpu", 700}};
  REQUIRE(e.Submit(loaded).ok());
  // Loaded holding quota, usage as the shape gives it: derived.
  WorkloadSpec loaded_plain = loaded;
  loaded_plain.name = "loaded-plain";
  loaded_plain.admission->pod_set_assignments[0].resource_usage = {{"cpu", 1000}, {"pods", 2}};
  REQUIRE(e.Submit(loaded_plain).ok());
  e.RunUntilSettled();

  const auto check = [](Engine& x) {
    CHECK(Held(x, "plain") == std::make_pair(false, ResourceAmounts{{"cpu", 1000}, {"pods", 2}}));
    CHECK(Held(x, "odd-pods") == std::make_pair(true, ResourceAmounts{{"cpu", 100}, {"pods", 1}}));
    // Not named in its resourceUsage and not requested by its shape: pods are 0 × count.
    CHECK(Held(x, "loaded") == std::make_pair(true, ResourceAmounts{{"cpu", 700}, {"pods", 0}}));
    CHECK(Held(x, "loaded-plain") == std::make_pair(false, ResourceAmounts{{"cpu", 1000}, {"pods", 2}}));
    CHECK(x.CheckInvariants().ok());
  };
  check(e);
  // The queue's usage adds up what each admission holds, kept or derived.
  const absl::StatusOr<ClusterQueueStatus> cq = e.GetClusterQueue("cq");
  REQUIRE(cq.ok());
  for (const FlavorResourceUsage& u : cq->usage) {
    if (u.resource == "cpu") CHECK(u.usage == 1000 + 100 + 700 + 1000);
    if (u.resource == "pods") CHECK(u.usage == 2 + 1 + 0 + 2);
  }

  // A restore and a private copy hold the same, and save the same bytes.
  const absl::StatusOr<std::string> saved = e.Save();
  REQUIRE(saved.ok());
  absl::StatusOr<Engine> restored = Engine::Restore(*saved);
  REQUIRE(restored.ok());
  check(*restored);
  CHECK(*restored->Save() == *saved);
  absl::StatusOr<Engine> copy = internal::CopyEngine(e);
  REQUIRE(copy.ok());
  check(*copy);
  CHECK(*copy->Save() == *saved);
}

}  // namespace
}  // namespace admission_usage_test
}  // namespace qm
