// MessageStyle::kLegacy words quota and preemption messages as flat-cohort Kueue releases did (what
// SageMaker HyperPod shows); the decisions must not depend on the style.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace message_style_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

// team-a (4 CPU, may borrow 2) and team-b (4 CPU) in one cohort; `standalone` (4 CPU) alone.
Engine Cluster(MessageStyle style) {
  EngineConfig config;
  config.message_style = style;
  Engine e = Engine::Create(config).value();
  std::vector<ObjectSpec> objects = {
      test::Namespace("a"), test::Namespace("b"), test::Namespace("s"), test::Flavor("default"),
      ClusterQueue("team-a").Cohort("pool").Flavor("default", {Q("cpu", 4 * kCpu).Borrow(2 * kCpu)})
          .WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority),
      ClusterQueue("team-b").Cohort("pool").Flavor("default", {Q("cpu", 4 * kCpu)}),
      ClusterQueue("standalone").Flavor("default", {Q("cpu", 4 * kCpu)}),
      test::LocalQueue("a", "q", "team-a"), test::LocalQueue("b", "q", "team-b"),
      test::LocalQueue("s", "q", "standalone")};
  REQUIRE(e.Apply(objects).ok());
  return e;
}

std::string MessageOf(const Engine& e, const char* ns, const char* name) {
  absl::StatusOr<WorkloadStatus> st = e.GetWorkload(ns, name);
  REQUIRE(st.ok());
  return st->message;
}

TEST_CASE("Legacy messages: the queue's own borrowing limit is named first", "[adapter][messages]") {
  for (MessageStyle style : {MessageStyle::kCurrent, MessageStyle::kLegacy}) {
    Engine e = Cluster(style);
    REQUIRE(e.Submit(Workload("a", "running").Queue("q").Request("cpu", 3 * kCpu).Created(Time::FromUnixSeconds(1))).ok());
    e.ScheduleCycle();
    // 3 in use + 4 asked = 7 > 4 nominal + 2 borrowable; within max capacity (6) on its own.
    REQUIRE(e.Submit(Workload("a", "next").Queue("q").Request("cpu", 4 * kCpu).Created(Time::FromUnixSeconds(2))).ok());
    e.ScheduleCycle();
    const std::string m = MessageOf(e, "a", "next");
    if (style == MessageStyle::kLegacy) {
      CHECK(m == "couldn't assign flavors to pod set main: borrowing limit for cpu in flavor default exceeded");
    } else {
      CHECK(m == "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed");
    }
    CHECK(e.GetWorkload("a", "next")->state == WorkloadState::kPending);
  }
}

TEST_CASE("Legacy messages: a request above nominal + borrowing limit", "[adapter][messages]") {
  Engine legacy = Cluster(MessageStyle::kLegacy);
  Engine current = Cluster(MessageStyle::kCurrent);
  for (Engine* e : {&legacy, &current}) {
    REQUIRE(e->Submit(Workload("a", "huge").Queue("q").Request("cpu", 7 * kCpu)).ok());
    e->ScheduleCycle();
  }
  CHECK(MessageOf(legacy, "a", "huge") ==
        "couldn't assign flavors to pod set main: borrowing limit for cpu in flavor default exceeded");
  CHECK(MessageOf(current, "a", "huge") ==
        "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, previously "
        "considered podsets requests (0) + current podset request (7) > maximum capacity (6)");
}

TEST_CASE("Legacy messages: short of unused quota in the cohort, and in a standalone queue", "[adapter][messages]") {
  Engine e = Cluster(MessageStyle::kLegacy);
  // team-b uses 3 of its 4: team-a can take 4 + 1.
  REQUIRE(e.Submit(Workload("b", "busy").Queue("q").Request("cpu", 3 * kCpu)).ok());
  REQUIRE(e.Submit(Workload("s", "busy").Queue("q").Request("cpu", 3 * kCpu)).ok());
  e.ScheduleCycle();
  REQUIRE(e.Submit(Workload("a", "six").Queue("q").Request("cpu", 6 * kCpu)).ok());
  REQUIRE(e.Submit(Workload("s", "two").Queue("q").Request("cpu", 2 * kCpu)).ok());
  REQUIRE(e.Submit(Workload("s", "five").Queue("q").Request("cpu", 5 * kCpu).Created(Time::FromUnixSeconds(9))).ok());
  e.ScheduleCycle();
  CHECK(MessageOf(e, "a", "six") ==
        "couldn't assign flavors to pod set main: insufficient unused quota in cohort for cpu in flavor default, 1 more needed");
  CHECK(MessageOf(e, "s", "two") ==
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed");
  e.ScheduleCycle();
  CHECK(MessageOf(e, "s", "five") ==
        "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default in ClusterQueue");
}

TEST_CASE("Legacy messages: the preemption message names the preemptor's UID only", "[adapter][messages]") {
  for (MessageStyle style : {MessageStyle::kCurrent, MessageStyle::kLegacy}) {
    Engine e = Cluster(style);
    REQUIRE(e.Submit(Workload("a", "low").Queue("q").Request("cpu", 4 * kCpu).Priority(1)).ok());
    e.ScheduleCycle();
    REQUIRE(e.Submit(Workload("a", "high").Queue("q").Request("cpu", 4 * kCpu).Priority(9).Uid("uid-high")).ok());
    const CycleResult& r = e.ScheduleCycle();
    REQUIRE(r.preempted == 1);
    const std::string m = MessageOf(e, "a", "low");
    if (style == MessageStyle::kLegacy) {
      CHECK(m == "Preempted to accommodate a workload (UID: uid-high) due to prioritization in the ClusterQueue");
    } else {
      CHECK(m == "Preempted to accommodate a workload (UID: uid-high, JobUID: UNKNOWN) due to prioritization in the "
                 "ClusterQueue; preemptor path: /pool/team-a; preemptee path: /pool/team-a");
    }
  }
}

}  // namespace
}  // namespace message_style_test
}  // namespace qm
