// Refill mode (RefillConfig, docs/semantics.md §11.7; not Kueue): after the heads of a cycle, a
// ClusterQueue whose head was admitted admits its next heads while they fit within its own quota,
// without preemption or borrowing. Off by default: Kueue's one head per queue per cycle.
#include <catch2/catch.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"
#include "support/random_cluster.h"

namespace qm {
namespace refill_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

Engine WithRefill(bool on) {
  EngineConfig config;
  config.refill.enabled = on;
  return *Engine::Create(config);
}

std::vector<std::string> Admitted(const Engine& e, const CycleResult& r) {
  std::vector<std::string> out;
  for (const Event& ev : r.events)
    if (ev.kind == EventKind::kAdmitted) out.push_back(e.WorkloadName(ev.workload));
  return out;
}

void OneQueue(Engine& e, int64_t cpu, ClusterQueue cq = ClusterQueue("eng")) {
  const std::vector<ObjectSpec> objects = {test::Namespace("a"), test::Flavor("default"),
                                           cq.Flavor("default", {Q("cpu", cpu)}), test::LocalQueue("a", "q", "eng")};
  REQUIRE(e.Apply(objects).ok());
}

TEST_CASE("Refill: a queue admits every head that fits in one cycle; off, one per cycle", "[solver][refill]") {
  for (const bool on : {false, true}) {
    Engine e = WithRefill(on);
    OneQueue(e, 4 * kCpu);
    for (int i = 0; i < 5; ++i)
      REQUIRE(e.Submit(Workload("a", "w" + std::to_string(i)).Queue("q").Request("cpu", kCpu).Priority(10 - i)).ok());
    const CycleResult& first = e.ScheduleCycle();
    if (on) {
      // In priority order, until the fifth no longer fits; it stays in the queue, undecided.
      CHECK(Admitted(e, first) == std::vector<std::string>{"a/w0", "a/w1", "a/w2", "a/w3"});
      CHECK(first.admitted == 4);
      CHECK(first.decisions.size() == 4);
      CHECK(e.GetWorkload("a", "w4")->reason == "Pending");  // never nominated: its status is untouched
    } else {
      CHECK(Admitted(e, first) == std::vector<std::string>{"a/w0"});
    }
    const StableRun rest = e.RunUntilSettled();
    CHECK(rest.cycles == (on ? 2 : 5));  // off: three more admissions; both: the fifth parked, then nothing
    for (int i = 0; i < 4; ++i) CHECK(e.GetWorkload("a", "w" + std::to_string(i))->state == WorkloadState::kAdmitted);
    CHECK(e.GetWorkload("a", "w4")->state == WorkloadState::kPending);
  }
}

TEST_CASE("Refill: stops at a head that would borrow; the next cycle admits it as Kueue would", "[solver][refill]") {
  Engine e = WithRefill(true);
  const std::vector<ObjectSpec> objects = {
      test::Namespace("a"), test::Flavor("default"), test::Cohort("all"),
      ClusterQueue("eng").Cohort("all").Flavor("default", {Q("cpu", 2 * kCpu)}),
      ClusterQueue("idle").Cohort("all").Flavor("default", {Q("cpu", 4 * kCpu)}), test::LocalQueue("a", "q", "eng")};
  REQUIRE(e.Apply(objects).ok());
  for (int i = 0; i < 4; ++i)
    REQUIRE(e.Submit(Workload("a", "w" + std::to_string(i)).Queue("q").Request("cpu", kCpu).Priority(10 - i)).ok());
  // Cycle 1: w0 (the head) and w1 fill eng's 2 cpu; w2 would borrow: refill stops there.
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w0", "a/w1"});
  // Cycle 2: w2 is the head and borrows as Kueue lets it; w3 would borrow too: no refill.
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w2"});
  CHECK(Admitted(e, e.ScheduleCycle()) == std::vector<std::string>{"a/w3"});
}

TEST_CASE("Refill: never preempts, and leaves capacity a preemptor is waiting for", "[solver][refill]") {
  Engine e = WithRefill(true);
  OneQueue(e, 4 * kCpu, ClusterQueue("eng").WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority));
  REQUIRE(e.Submit(Workload("a", "low").Queue("q").Request("cpu", 3 * kCpu).Priority(0)).ok());
  REQUIRE(e.RunUntilSettled().admitted == 1);
  // `high` needs 4 cpu: it preempts `low`; the 1 cpu left must not go to `small` meanwhile.
  REQUIRE(e.Submit(Workload("a", "high").Queue("q").Request("cpu", 4 * kCpu).Priority(100)).ok());
  REQUIRE(e.Submit(Workload("a", "small").Queue("q").Request("cpu", kCpu).Priority(50)).ok());
  const CycleResult& r = e.ScheduleCycle();
  CHECK(r.preempted == 1);
  CHECK(r.admitted == 0);
  CHECK(e.GetWorkload("a", "small")->state == WorkloadState::kPending);
}

// The property of issue 28: where Kueue's one-head-per-cycle admits every workload, refill admits
// the same ones, on the same queues and flavors, in no more cycles. Every generated cluster
// (support/random_cluster.h) is cut to its first n workloads, submitted at once, for growing n while
// the default mode still admits all of them.
// (Under overload the admitted sets may differ: a queue that refills takes its own nominal quota
// before a cohort neighbour borrows it. On these generated clusters, all 80 workloads at once, 5 of
// 100 seeds end with different sets: docs/semantics.md §11.7.)
struct Settled {
  std::vector<std::string> admitted;  // "ns/name cq=... flavors" of every admitted workload
  int cycles = 0;
};

Settled SettleAll(const test::HostScenario& sc, size_t n, bool refill) {
  EngineConfig config = sc.config;
  config.refill.enabled = refill;
  Engine e = *Engine::Create(config);
  Settled out;
  if (!e.SetNow(sc.start).ok() || !e.Apply(sc.objects).ok()) return out;
  for (size_t i = 0; i < n; ++i)
    if (!e.Submit(test::thrash_host_internal::SpecOf(sc.arrivals[i])).ok()) return out;
  const StableRun run = e.RunUntilSettled(100000);
  out.cycles = run.settled ? run.cycles : -1;
  for (const WorkloadHandle h : e.Workloads()) {
    const WorkloadStatus st = *e.GetWorkload(h);
    if (st.state != WorkloadState::kAdmitted) continue;
    std::string row = e.WorkloadName(h) + " cq=" + st.cluster_queue;
    for (const PodSetAssignment& ps : st.admission->pod_sets)
      for (const ResourceAssignment& r : ps.resources) row += " " + r.resource + ":" + r.flavor;
    out.admitted.push_back(std::move(row));
  }
  return out;
}

TEST_CASE("Refill property: where every workload is admitted, refill admits the same, in no more cycles",
          "[solver][refill][property]") {
  int64_t compared = 0, fewer_cycles = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    test::HostScenario sc = test::BuildScenario(test::Generate(seed));
    // Smaller workloads than the generator's (a quarter of the cpu, at most one GPU a pod), so that
    // several fit in a queue at once and refill has something to do.
    for (test::Arrival& a : sc.arrivals) {
      a.cpu = (a.cpu / 4 + 249) / 250 * 250;
      a.gpu = std::min<int64_t>(a.gpu, 1);
    }
    for (size_t n = 2; n <= sc.arrivals.size(); n += 2) {
      const Settled kueue = SettleAll(sc, n, false);
      if (kueue.cycles < 0 || kueue.admitted.size() < n) break;  // the default mode leaves one out: stop
      const Settled refill = SettleAll(sc, n, true);
      INFO("seed " << seed << ", first " << n << " workloads");
      CHECK(refill.admitted == kueue.admitted);
      CHECK(refill.cycles >= 0);
      CHECK(refill.cycles <= kueue.cycles);
      ++compared;
      fewer_cycles += refill.cycles < kueue.cycles ? 1 : 0;
    }
  }
  CHECK(compared >= 300);                // the property has cases
  CHECK(fewer_cycles >= compared / 4);  // and refill saves cycles on many of them
}

}  // namespace
}  // namespace refill_test
}  // namespace qm
