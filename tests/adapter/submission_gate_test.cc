// EngineConfig::submission_gate: every workload of Submit/SubmitAs/Apply/ApplyAs passes it before
// anything changes; a refusal leaves the engine as it was.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace submission_gate_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

// Admits only `alice`, or the engine's own (empty) principal, and never a workload named "bad".
absl::Status AliceOnly(std::string_view principal, const WorkloadSpec& w) {
  if (w.name == "bad") return absl::InvalidArgumentError("workload 'bad' refused");
  if (!principal.empty() && principal != "alice") {
    return absl::PermissionDeniedError(fmt::format("principal '{}' refused", principal));
  }
  return absl::OkStatus();
}

Engine Gated() {
  EngineConfig config;
  config.submission_gate = AliceOnly;
  Engine e = Engine::Create(config).value();
  std::vector<ObjectSpec> objects = {test::Namespace("a"), test::Flavor("default"),
                                     ClusterQueue("cq").Flavor("default", {Q("cpu", 4000)}),
                                     test::LocalQueue("a", "q", "cq")};
  REQUIRE(e.Apply(objects).ok());
  return e;
}

TEST_CASE("Submission gate: SubmitAs refuses a principal and changes nothing", "[adapter][gate]") {
  Engine e = Gated();
  absl::StatusOr<WorkloadHandle> refused = e.SubmitAs("bob", Workload("a", "job").Queue("q").Request("cpu", 1000));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == absl::StatusCode::kPermissionDenied);
  CHECK(refused.status().message() == "principal 'bob' refused");
  CHECK(e.Workloads().empty());
  CHECK(e.ScheduleCycle().empty());

  CHECK(e.SubmitAs("alice", Workload("a", "job").Queue("q").Request("cpu", 1000)).ok());
  CHECK(e.Submit(Workload("a", "own").Queue("q").Request("cpu", 1000)).ok());  // the engine's own
  CHECK(e.Workloads().size() == 2);
}

TEST_CASE("Submission gate: one refused workload refuses the whole Apply batch", "[adapter][gate]") {
  Engine e = Gated();
  std::vector<ObjectSpec> batch = {test::Namespace("b"), WorkloadSpec(Workload("a", "good").Queue("q")),
                                   WorkloadSpec(Workload("a", "bad").Queue("q"))};
  const absl::Status st = e.ApplyAs("alice", batch);
  CHECK(st.code() == absl::StatusCode::kInvalidArgument);
  CHECK(e.Workloads().empty());
  CHECK_FALSE(e.FindWorkload("a", "good").valid());
  CHECK(e.ScheduleCycle().empty());
  CHECK(e.ApplyAs("bob", std::vector<ObjectSpec>{test::Namespace("b")}).ok());  // no workload, no gate
}

TEST_CASE("Submission gate: SetSubmissionGate replaces or removes it", "[adapter][gate]") {
  Engine e = Gated();
  CHECK_FALSE(e.SubmitAs("bob", Workload("a", "one").Queue("q")).ok());
  REQUIRE(e.SetSubmissionGate(nullptr).ok());
  CHECK(e.SubmitAs("bob", Workload("a", "one").Queue("q")).ok());
  REQUIRE(e.SetSubmissionGate([](std::string_view, const WorkloadSpec&) { return absl::UnavailableError("closed"); }).ok());
  CHECK(e.Submit(Workload("a", "two").Queue("q")).status().code() == absl::StatusCode::kUnavailable);
  CHECK(e.Workloads().size() == 1);
}

}  // namespace
}  // namespace submission_gate_test
}  // namespace qm
