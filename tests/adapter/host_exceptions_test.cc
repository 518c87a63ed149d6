// Host functions (event callback, submission gate, clock) that throw or call back into the engine:
// the engine never goes on in an undefined state (docs/engine.md, "Exceptions and re-entrancy").
// A call is rolled back when nothing had changed yet; otherwise the engine is poisoned and every
// later call fails with FailedPrecondition naming the first exception.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace host_exceptions_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

bool Contains(const absl::Status& st, std::string_view text) {
  return std::string(st.message()).find(text) != std::string::npos;
}

// Namespace `a`, LocalQueue `q` -> ClusterQueue `eng` (4 CPU) on an engine made with `config`.
Engine Setup(EngineConfig config = {}) {
  Engine e = Engine::Create(std::move(config)).value();
  std::vector<ObjectSpec> objects = {test::Namespace("a"), test::Flavor("default"),
                                     ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}),
                                     test::LocalQueue("a", "q", "eng")};
  REQUIRE(e.Apply(objects).ok());
  return e;
}

WorkloadSpec Job(std::string name) { return Workload("a", std::move(name)).Queue("q").Request("cpu", kCpu); }

// ---- Item 1: a throwing callback -------------------------------------------------------------

TEST_CASE("Host functions: a callback that throws poisons the engine, naming the exception", "[adapter][host]") {
  Engine e = Setup();
  REQUIRE(e.SetEventCallback([](std::span<const Event>) { throw std::runtime_error("callback boom"); }).ok());
  REQUIRE(e.Submit(Job("one")).ok());
  const CycleResult* r = nullptr;
  REQUIRE_NOTHROW(r = &e.ScheduleCycle());
  // The cycle's decisions stand (the callback ran after them); its status reports the throw.
  CHECK(r->admitted == 1);
  CHECK(r->status.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(r->status, "callback boom"));
  // Every later call fails with the first exception's message, not a stale re-entrancy error.
  const absl::Status submit = e.Submit(Job("two")).status();
  CHECK(submit.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(submit, "callback boom"));
  CHECK_FALSE(Contains(submit, "called from the"));
  CHECK(Contains(e.ScheduleCycle().status, "callback boom"));
  CHECK(e.RunUntilStable() == 0);
  CHECK(e.Finish("a", "one").code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.CheckInvariants().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.GetWorkload("a", "one").status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.Save().status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.Workloads().empty());
}

TEST_CASE("Host functions: a callback that throws in a non-cycle call fails that call", "[adapter][host]") {
  Engine e = Setup();
  REQUIRE(e.Submit(Job("one")).ok());
  REQUIRE(e.ScheduleCycle().admitted == 1);
  REQUIRE(e.SetEventCallback([](std::span<const Event>) { throw 7; }).ok());
  const absl::Status finish = e.Finish("a", "one");
  CHECK(finish.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(finish, "not a std::exception"));
  CHECK(e.Submit(Job("two")).status().code() == absl::StatusCode::kFailedPrecondition);
}

// ---- Item 2: setters from inside the callback ------------------------------------------------

TEST_CASE("Host functions: the setters are refused from inside the callback", "[adapter][host]") {
  Engine e = Setup();
  REQUIRE(e.Submit(Job("one")).ok());
  absl::Status set_callback, set_gate, set_now;
  int calls = 0;
  REQUIRE(e.SetEventCallback([&](std::span<const Event>) {
             ++calls;
             // Replacing the running callback would destroy it under its own feet (ASan found the
             // use-after-free); moving the clock or changing the gate mid-delivery is a mutation.
             set_callback = e.SetEventCallback(nullptr);
             set_gate = e.SetSubmissionGate(nullptr);
             set_now = e.SetNow(Time::FromUnixMicros(42));
           }).ok());
  e.ScheduleCycle();
  CHECK(calls == 1);
  CHECK(set_callback.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(set_callback, "called from the event callback"));
  CHECK(set_gate.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(set_now.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.Now() == Time());  // SetNow changed nothing
  // The callback is still installed and the engine usable.
  REQUIRE(e.Finish("a", "one").ok());
  CHECK(calls == 2);
  CHECK(e.CheckInvariants().ok());
}

// ---- Item 3: the gate re-entering ------------------------------------------------------------

TEST_CASE("Host functions: a gate that submits the same workload is refused", "[adapter][host]") {
  Engine e = Setup();
  absl::Status inner;
  REQUIRE(e.SetSubmissionGate([&](std::string_view, const WorkloadSpec& w) {
             WorkloadSpec copy = w;
             copy.priority = 99;
             inner = e.Submit(copy).status();
             return absl::OkStatus();
           }).ok());
  auto outer = e.Submit(Job("job"));
  CHECK(inner.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(inner, "called from the submission gate"));
  REQUIRE(outer.ok());
  CHECK(e.Workloads().size() == 1);
  CHECK(e.GetWorkload("a", "job")->priority == 0);  // the outer spec, not the gate's
  CHECK(e.CheckInvariants().ok());
}

TEST_CASE("Host functions: a gate that throws fails the call and changes nothing", "[adapter][host]") {
  Engine e = Setup();
  REQUIRE(e.SetSubmissionGate([](std::string_view, const WorkloadSpec& w) -> absl::Status {
             if (w.name == "bad") throw std::runtime_error("gate boom");
             return absl::OkStatus();
           }).ok());
  const absl::Status submit = e.Submit(Job("bad")).status();
  CHECK(submit.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(submit, "gate boom"));
  const std::vector<ObjectSpec> batch = {ObjectSpec(Job("good")), ObjectSpec(Job("bad"))};
  CHECK(Contains(e.Apply(batch), "gate boom"));
  CHECK(e.Workloads().empty());
  // Rolled back, not poisoned: the engine goes on.
  REQUIRE(e.Submit(Job("good")).ok());
  CHECK(e.ScheduleCycle().admitted == 1);
  CHECK(e.CheckInvariants().ok());
}

// ---- Item 4: a throwing clock ----------------------------------------------------------------

TEST_CASE("Host functions: a clock that throws in Submit leaves no half-made workload", "[adapter][host]") {
  bool broken = false;
  EngineConfig config;
  config.clock = [&]() -> Time {
    if (broken) throw std::runtime_error("clock boom");
    return Time::FromUnixMicros(1'000'000);
  };
  Engine e = Setup(std::move(config));
  broken = true;
  absl::StatusOr<WorkloadHandle> h;
  REQUIRE_NOTHROW(h = e.Submit(Job("job")));
  CHECK(h.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(h.status(), "clock boom"));
  CHECK(e.Workloads().empty());
  CHECK_FALSE(e.FindWorkload("a", "job").valid());
  CHECK(e.CheckInvariants().ok());
  // Rolled back: once the clock works again, so does the engine.
  broken = false;
  REQUIRE(e.Submit(Job("job")).ok());
  CHECK(e.ScheduleCycle().admitted == 1);
  CHECK(e.CheckInvariants().ok());
}

TEST_CASE("Host functions: a clock that throws mid-cycle poisons the engine", "[adapter][host]") {
  bool broken = false;
  EngineConfig config;
  config.clock = [&]() -> Time {
    if (broken) throw std::runtime_error("clock boom");
    return Time::FromUnixMicros(1'000'000);
  };
  Engine e = Setup(std::move(config));
  REQUIRE(e.Submit(Job("job")).ok());
  broken = true;
  const CycleResult* r = nullptr;
  REQUIRE_NOTHROW(r = &e.ScheduleCycle());
  CHECK(r->status.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(r->status, "clock boom"));
  broken = false;  // too late: the cycle was half done
  CHECK(Contains(e.Submit(Job("other")).status(), "clock boom"));
  CHECK(e.CheckInvariants().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.Workloads().empty());
  CHECK(e.Now() == Time());
}

TEST_CASE("Host functions: a clock that calls into the engine is refused", "[adapter][host]") {
  Engine* engine = nullptr;
  absl::Status from_clock;
  EngineConfig config;
  config.clock = [&]() -> Time {
    if (engine != nullptr && from_clock.ok()) from_clock = engine->Submit(Job("sneaky")).status();
    return Time::FromUnixMicros(5);
  };
  Engine e = Setup(std::move(config));
  engine = &e;
  REQUIRE(e.Submit(Job("job")).ok());
  CHECK(from_clock.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(from_clock, "called from the clock"));
  CHECK(e.Workloads().size() == 1);
  CHECK(e.CheckInvariants().ok());
}

// A query reads the clock once, before it touches anything: a preempted workload's status reads
// it (its back-off), and Explain runs the solver on the live state. Found by the engine event
// fuzzer (tests/fuzz_regressions/engine_event/engine_event-clock-throws-inside-getworkload): the
// clock's exception used to leave GetWorkload, and could interrupt a simulation half undone.
TEST_CASE("Host functions: a clock that throws inside a query fails only that query", "[adapter][host]") {
  bool broken = false;
  EngineConfig config;
  config.clock = [&]() -> Time {
    if (broken) throw std::runtime_error("clock boom");
    return Time::FromUnixMicros(1'000'000);
  };
  Engine e = Engine::Create(std::move(config)).value();
  std::vector<ObjectSpec> objects = {
      test::Namespace("a"), test::Flavor("default"),
      ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}).WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority),
      test::LocalQueue("a", "q", "eng")};
  REQUIRE(e.Apply(objects).ok());
  const WorkloadHandle low = e.Submit(Workload("a", "low").Queue("q").Request("cpu", 4 * kCpu).Priority(1)).value();
  REQUIRE(e.ScheduleCycle().admitted == 1);
  REQUIRE(e.Submit(Workload("a", "high").Queue("q").Request("cpu", 4 * kCpu).Priority(9)).ok());
  e.ScheduleCycle();
  REQUIRE(e.ConfirmAllEvicted() == 1);
  REQUIRE(e.GetWorkload(low)->preemptions.preempted == 1);
  const std::string before = e.Save().value();

  broken = true;
  absl::StatusOr<WorkloadStatus> status;
  REQUIRE_NOTHROW(status = e.GetWorkload(low));
  CHECK(status.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(status.status(), "the clock threw 'clock boom'; nothing changed"));
  absl::StatusOr<WorkloadExplanation> explained;
  REQUIRE_NOTHROW(explained = e.Explain("a", "low"));
  CHECK(explained.status().code() == absl::StatusCode::kFailedPrecondition);
  REQUIRE_NOTHROW(e.AssignFlavors(low).status());
  CHECK(e.Save().value() == before);

  broken = false;  // not poisoned: the engine goes on
  CHECK(e.GetWorkload(low).ok());
  CHECK(e.Explain("a", "low").ok());
  CHECK(e.CheckInvariants().ok());
  CHECK(e.Save().value() == before);
}

TEST_CASE("Host functions: a query that reads the clock is refused from inside the clock", "[adapter][host]") {
  Engine* engine = nullptr;
  absl::Status from_clock;
  EngineConfig config;
  config.clock = [&]() -> Time {
    if (engine != nullptr && from_clock.ok()) from_clock = engine->GetWorkload("a", "job").status();
    return Time::FromUnixMicros(5);
  };
  Engine e = Setup(std::move(config));
  REQUIRE(e.Submit(Job("job")).ok());
  engine = &e;
  REQUIRE(e.ScheduleCycle().admitted == 1);
  CHECK(from_clock.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(from_clock, "called from the clock: it reads the clock"));
  engine = nullptr;
  CHECK(e.GetWorkload("a", "job").ok());
  CHECK(e.CheckInvariants().ok());
}

// ---- Moved-from engines ----------------------------------------------------------------------

TEST_CASE("Host functions: a moved-from engine answers FailedPrecondition", "[adapter][host]") {
  Engine e = Setup();
  REQUIRE(e.Submit(Job("job")).ok());
  Engine other = std::move(e);
  const absl::Status submit = e.Submit(Job("two")).status();  // NOLINT(bugprone-use-after-move)
  CHECK(submit.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Contains(submit, "moved from"));
  CHECK(e.ScheduleCycle().status.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.RunUntilStable() == 0);
  CHECK(e.ConfirmAllEvicted() == 0);
  CHECK(e.SetNow(Time::FromUnixMicros(1)).code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.SetEventCallback(nullptr).code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.CheckInvariants().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.Save().status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.GetClusterQueue("eng").status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.Workloads().empty());
  CHECK(e.ClusterQueues().empty());
  CHECK(e.LastEvents().empty());
  CHECK_FALSE(e.FindWorkload("a", "job").valid());
  CHECK(e.config().clock == nullptr);
  // The engine it moved into has everything.
  CHECK(other.ScheduleCycle().admitted == 1);
}

}  // namespace
}  // namespace host_exceptions_test
}  // namespace qm
