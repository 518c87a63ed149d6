// The queries answer what the next cycle decides: on random states, for every pending head, the
// flavor assignment `AssignFlavors` previews (and the preemptions `Explain` lists) equal the next
// cycle's decision for it. Queues are independent (no cohorts), so heads cannot compete within a
// cycle and the correspondence is exact. Covers the checks the cycle makes before trying any
// flavor (stopped queue, missing namespace, namespace selector), which the preview once skipped:
// the query now reports them in `Assignment::refused` beside the flavor assigner's answer.
#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace preview_matches_cycle_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

struct Head {
  WorkloadHandle handle;
  std::string name;
};

// One random state: queues cq0..cqN-1 with admitted fillers, some stopped or selecting only
// namespace `a`, and one new pending workload (the head) per queue in `a`, `b` or a namespace that
// does not exist. Returns the heads.
std::vector<Head> RandomState(Engine& e, std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Namespace("a", {{"team", "x"}}), test::Namespace("b", {{"team", "y"}}),
                                          test::Flavor("default")})
              .ok());
  const int queues = 1 + pick(4);
  std::vector<ClusterQueue> specs;
  for (int i = 0; i < queues; ++i) {
    const int64_t quota = (2 + pick(6)) * kCpu;
    ClusterQueue cq(fmt::format("cq{}", i));
    cq.Flavor("default", {Q("cpu", quota)});
    if (pick(2) == 0) cq.WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority);
    if (pick(3) == 0) cq.Strict();
    specs.push_back(cq);
    std::vector<ObjectSpec> objects = {cq, test::LocalQueue("a", "q" + std::to_string(i), cq.spec().name),
                                       test::LocalQueue("b", "q" + std::to_string(i), cq.spec().name)};
    REQUIRE(e.Apply(objects).ok());
    // Fillers that all fit, so they are admitted and none stays pending.
    int64_t used = 0;
    for (int f = 0; used < quota && f < 4; ++f) {
      const int64_t size = std::min<int64_t>(quota - used, (1 + pick(3)) * kCpu);
      used += size;
      const char* ns = pick(2) == 0 ? "a" : "b";
      REQUIRE(e.Submit(Workload(ns, fmt::format("fill-{}-{}", i, f))
                           .Queue("q" + std::to_string(i))
                           .Request("cpu", size)
                           .Priority(pick(3) * 10))
                  .ok());
    }
  }
  e.RunUntilStable();
  // Changes the cycle must see before it tries any flavor.
  for (int i = 0; i < queues; ++i) {
    ClusterQueue cq = specs[i];
    bool changed = false;
    if (pick(4) == 0) {
      cq.Stop(StopPolicy::kHold);
      changed = true;
    }
    if (pick(4) == 0) {
      ClusterQueueSpec spec = cq.spec();
      spec.namespace_selector = LabelSelector{{{"team", "x"}}, {}};
      REQUIRE(e.Apply(ObjectSpec(spec)).ok());
    } else if (changed) {
      REQUIRE(e.Apply(ObjectSpec(cq)).ok());
    }
  }
  // A LocalQueue in a namespace that was never created: its workloads queue, and the cycle parks them.
  const bool ghost = e.Apply(test::LocalQueue("ghost", "q0", "cq0")).ok();
  std::vector<Head> heads;
  for (int i = 0; i < queues; ++i) {
    const int where = pick(ghost && i == 0 ? 3 : 2);
    const std::string ns = where == 0 ? "a" : where == 1 ? "b" : "ghost";
    const std::string lq = "q" + std::to_string(i);
    const std::string name = fmt::format("head-{}", i);
    auto h = e.Submit(Workload(ns, name).Queue(lq).Request("cpu", (1 + pick(5)) * kCpu).Priority(pick(3) * 10));
    REQUIRE(h.ok());
    heads.push_back(Head{*h, ns + "/" + name});
  }
  return heads;
}

TEST_CASE("Preview matches cycle: every pending head's query answer is the next cycle's decision",
          "[solver][preview][property]") {
  int fit = 0, preempt = 0, nofit = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Engine e;
    const std::vector<Head> heads = RandomState(e, rng);
    struct Expect {
      AssignmentMode mode;  // what the next cycle does: NoFit when it refuses the head outright
      std::set<std::string> victims;
    };
    std::vector<Expect> expected;
    for (const Head& h : heads) {
      auto a = e.AssignFlavors(h.handle);
      REQUIRE(a.ok());
      auto ex = e.Explain(h.handle);
      REQUIRE(ex.ok());
      REQUIRE(ex->assignment.has_value());
      CHECK(ex->assignment->representative_mode == a->representative_mode);
      CHECK(ex->assignment->refused == a->refused);
      Expect x{a->refused.empty() ? a->representative_mode : AssignmentMode::kNoFit, {}};
      if (a->refused.empty())
        for (const Preemption& p : ex->would_preempt) x.victims.insert(e.WorkloadName(p.victim));
      expected.push_back(x);
    }
    const CycleResult& r = e.ScheduleCycle();
    REQUIRE(r.status.ok());
    for (size_t i = 0; i < heads.size(); ++i) {
      CAPTURE(heads[i].name);
      bool admitted = false;
      std::set<std::string> victims;
      for (const Decision& d : r.decisions) {
        if (d.kind == Decision::Kind::kAdmitted && d.workload == heads[i].handle) admitted = true;
        if (d.kind == Decision::Kind::kPreempted && d.preemptor == heads[i].handle)
          victims.insert(e.WorkloadName(d.workload));
      }
      CHECK(admitted == (expected[i].mode == AssignmentMode::kFit));
      CHECK(victims == (expected[i].mode == AssignmentMode::kPreempt ? expected[i].victims : std::set<std::string>()));
      (expected[i].mode == AssignmentMode::kFit ? fit : expected[i].mode == AssignmentMode::kPreempt ? preempt : nofit)++;
    }
  }
  // The states cover every answer.
  CHECK(fit > 0);
  CHECK(preempt > 0);
  CHECK(nofit > 0);
}

TEST_CASE("Preview matches cycle: a stopped queue is refused with the cycle's message", "[solver][preview]") {
  Engine e = test::OneQueueEngine(4 * kCpu, ClusterQueue("eng").Stop(StopPolicy::kHold));
  auto h = e.Submit(Workload("a", "job").Queue("q").Request("cpu", kCpu));
  REQUIRE(h.ok());
  auto a = e.AssignFlavors(*h);
  REQUIRE(a.ok());
  // The flavor assigner alone finds room; the cycle would not try.
  CHECK(a->representative_mode == AssignmentMode::kFit);
  CHECK(a->refused == "ClusterQueue eng is inactive");
  CHECK(e.ScheduleCycle().admitted == 0);
}

TEST_CASE("Preview matches cycle: a namespace the selector rejects is refused", "[solver][preview]") {
  ClusterQueueSpec cq = ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}).spec();
  cq.namespace_selector = LabelSelector{{{"team", "x"}}, {}};
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Namespace("a"), test::Flavor("default"), cq,
                                          test::LocalQueue("a", "q", "eng")})
              .ok());
  auto h = e.Submit(Workload("a", "job").Queue("q").Request("cpu", kCpu));
  REQUIRE(h.ok());
  auto a = e.AssignFlavors(*h);
  REQUIRE(a.ok());
  CHECK(a->representative_mode == AssignmentMode::kFit);
  CHECK(a->refused == "workload namespace doesn't match ClusterQueue selector");
  const CycleResult& r = e.ScheduleCycle();
  CHECK(r.admitted == 0);
  CHECK(e.GetWorkload(*h)->reason == "Misconfigured");
}

}  // namespace
}  // namespace preview_matches_cycle_test
}  // namespace qm
