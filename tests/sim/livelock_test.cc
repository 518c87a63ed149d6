// The no-progress (livelock) detector of the simulator (docs/simulate.md §No progress) on small
// hand-built loops, and runs that are slow but progress and must not be flagged.
#include <cstdint>
#include <string>

#include "catch2/catch.hpp"
#include "qm/sim/sim_result.h"
#include "qm/sim/simulator.h"
#include "qm/sim/trace.h"
#include "sim/sim_test_support.h"

namespace qm::sim {
namespace livelock_test {
namespace {

using test::Cluster;
using test::Group;
using test::Jobs;
using test::kHour;
using test::Run;

// Two ClusterQueues of 4 GPUs (borrowing limit 4) in cohort `all`, quota only (no nodes). Both
// preempt lower priorities in their queue, reclaim lent quota, and preempt lower priorities of
// other queues while borrowing.
constexpr const char* kLoopCluster = R"(
kind: ResourceFlavor
metadata: {name: gpu}
---
kind: Namespace
metadata: {name: team-a}
---
kind: Namespace
metadata: {name: team-b}
---
kind: WorkloadPriorityClass
metadata: {name: high}
value: 100
---
kind: WorkloadPriorityClass
metadata: {name: low}
value: 10
---
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  cohort: all
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority}}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 4, borrowingLimit: 4}]}]
---
kind: ClusterQueue
metadata: {name: cq-b}
spec:
  cohort: all
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority}}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 4, borrowingLimit: 4}]}]
---
kind: LocalQueue
metadata: {namespace: team-a, name: q}
spec: {clusterQueue: cq-a}
---
kind: LocalQueue
metadata: {namespace: team-b, name: q}
spec: {clusterQueue: cq-b}
)";

// The loop (Kueue's preemption rules, issue 22 mechanism 1): a-big (cq-a, 6 GPUs, borrowing 2) runs;
// b-low (cq-b, 4, under cq-b's nominal quota) reclaims it; once a-big's pods are gone b-low is
// admitted and b-high (cq-b, 5) preempts it within cq-b; when b-low's pods are gone, the room b-high
// waited for goes to a-big first, which b-low reclaims again. Every 30 s (the eviction delay) one of
// a-big and b-low is preempted; b-high is never admitted and nothing completes. A warm-up job ends at
// 600 s, the loop's jobs arrive at 600, 610 and 620 s.
std::string LoopJobs(int64_t a_big_at = 600, int64_t b_low_at = 610, int64_t b_high_at = 620) {
  return "submit,namespace,priority_class,pod_sets,duration,name\n"
         "0,team-a,high,1x{nvidia.com/gpu=2},10m,warm-up\n" +
         std::to_string(a_big_at) + ",team-a,high,1x{nvidia.com/gpu=6},1000h,a-big\n" + std::to_string(b_low_at) +
         ",team-b,low,1x{nvidia.com/gpu=4},1000h,b-low\n" + std::to_string(b_high_at) +
         ",team-b,high,1x{nvidia.com/gpu=5},1000h,b-high\n";
}

SimulationOptions Window(Duration window) {
  SimulationOptions o;
  o.stall_window = window;
  return o;
}

TEST_CASE("simulate livelock: a preemption loop stops the run one window after the last progress", "[sim][livelock]") {
  const SimulationInput cluster = Cluster(kLoopCluster);
  SECTION("a 1 h window") {
    // Setup: the loop; the warm-up's completion at 600 s is the last progress. Expect: stopped at
    // 600 + 3600 s. In (600, 4200]: a-big preempted at 610 + 60k (k = 0..59), b-low at 640 + 60k
    // (k = 0..59): 60 each, all by cq-b.
    const SimulationResult r = Run(cluster, Jobs(LoopJobs()), {}, Window(Duration::Seconds(3600)));
    const Livelock& l = r.livelock;
    REQUIRE(l.detected);
    CHECK_FALSE(l.at_one_instant);
    CHECK(l.stalled_since_s == 600);
    CHECK(l.stopped_s == 4200);
    CHECK(l.window_s == 3600);
    CHECK(l.preemptions == 120);
    REQUIRE(l.pairs.size() == 2);
    CHECK(l.pairs[0].preemptor_queue == "cq-b");
    CHECK(l.pairs[0].cluster_queue == "cq-a");  // ties: by names
    CHECK(l.pairs[0].count == 60);
    CHECK(l.pairs[1].preemptor_queue == "cq-b");
    CHECK(l.pairs[1].cluster_queue == "cq-b");
    CHECK(l.pairs[1].count == 60);
    REQUIRE(l.workloads.size() == 2);
    CHECK(l.workloads[0].workload == "team-a/a-big");
    CHECK(l.workloads[0].cluster_queue == "cq-a");
    CHECK(l.workloads[0].count == 60);
    CHECK(l.workloads[1].workload == "team-b/b-low");
    CHECK(l.workloads[1].count == 60);
    CHECK(l.workloads_left_out == 0);
    // Every figure up to the stop is kept.
    CHECK(r.completed == 1);
    CHECK(r.makespan_s == 600);
    CHECK(r.preemptions == 120);
    CHECK(r.stall_window_s == 3600);
    CHECK(Group(r, "cq-b", "high").admitted == 0);
    // b-low is admitted 60 times but each time preempted at the instant of its admission: never
    // placed, never run.
    CHECK(Group(r, "cq-b", "low").admitted == 1);
    CHECK(Group(r, "cq-b", "low").started == 0);
    CHECK(Group(r, "cq-a", "high").started == 2);  // warm-up, and a-big's first attempt
    // b-high waited from 620 s to the stop (censored).
    CHECK(Group(r, "cq-b", "high").wait_all.max == 4200 - 620);
    CHECK(Group(r, "cq-b", "high").wait.count == 0);
  }
  SECTION("a 2 h window stops one hour later, with twice the preemptions in its window") {
    const SimulationResult r = Run(cluster, Jobs(LoopJobs()), {}, Window(Duration::Seconds(7200)));
    REQUIRE(r.livelock.detected);
    CHECK(r.livelock.stalled_since_s == 600);
    CHECK(r.livelock.stopped_s == 7800);
    CHECK(r.livelock.preemptions == 240);
  }
  SECTION("the default 24 h window") {
    const SimulationResult r = Run(cluster, Jobs(LoopJobs()));
    REQUIRE(r.livelock.detected);
    CHECK(r.livelock.stopped_s == 600 + 24 * kHour);
    CHECK(r.livelock.window_s == 24 * kHour);
  }
  SECTION("the same inputs, the same bytes") {
    const SimulationResult a = Run(cluster, Jobs(LoopJobs()), {}, Window(Duration::Seconds(3600)));
    const SimulationResult b = Run(cluster, Jobs(LoopJobs()), {}, Window(Duration::Seconds(3600)));
    CHECK(FormatSimulationJson(a) == FormatSimulationJson(b));
    CHECK(FormatSimulationText(a) == FormatSimulationText(b));
    CHECK(RenderHtmlReport({&a, 1}) == RenderHtmlReport({&b, 1}));
  }
}

TEST_CASE("simulate livelock: an attempt that ran a whole window, or kept checkpoints, is progress", "[sim][livelock]") {
  const SimulationInput cluster = Cluster(kLoopCluster);
  SECTION("a-big runs 25 h before the loop starts: the stall begins when it is preempted") {
    // Setup: a-big runs from 10 s; b-low arrives at 25 h (90000 s), b-high 10 s later; 24 h window.
    // Expect: a-big's first attempt ran more than a window, so its end at 90000 s is progress; stop
    // at 90000 + 86400 s. In (90000, 176400]: a-big at 90000 + 60k (k = 1..1440), b-low at
    // 90030 + 60k (k = 0..1439).
    const SimulationResult r = Run(cluster, Jobs("submit,namespace,priority_class,pod_sets,duration,name\n"
                                                 "10,team-a,high,1x{nvidia.com/gpu=6},1000h,a-big\n"
                                                 "90000,team-b,low,1x{nvidia.com/gpu=4},1000h,b-low\n"
                                                 "90010,team-b,high,1x{nvidia.com/gpu=5},1000h,b-high\n"));
    REQUIRE(r.livelock.detected);
    CHECK(r.livelock.stalled_since_s == 90000);
    CHECK(r.livelock.stopped_s == 176400);
    CHECK(r.livelock.preemptions == 2880);
    CHECK(r.preemptions == 2881);
  }
  SECTION("checkpoints taken before the loop push the stall back") {
    // Setup: a-big runs from 10 s to 3000 s, when b-low reclaims it; 1 h window. Without
    // checkpoints nothing ever progressed: stop at 3600 s. With a checkpoint every 20 min, a-big kept
    // 2 of them (at 1210 and 2410 s): the stall begins at 2410 s and the run stops at 6010 s, an
    // instant at which nothing else happens.
    const Trace jobs = Jobs("submit,namespace,priority_class,pod_sets,duration,name\n"
                            "10,team-a,high,1x{nvidia.com/gpu=6},1000h,a-big\n"
                            "3000,team-b,low,1x{nvidia.com/gpu=4},1000h,b-low\n"
                            "3010,team-b,high,1x{nvidia.com/gpu=5},1000h,b-high\n");
    SimulationOptions options = Window(Duration::Seconds(3600));
    const SimulationResult plain = Run(cluster, jobs, {}, options);
    REQUIRE(plain.livelock.detected);
    CHECK(plain.livelock.stalled_since_s == 0);
    CHECK(plain.livelock.stopped_s == 3600);
    CHECK(plain.checkpoints_kept == 0);
    options.checkpoint_interval = Duration::Seconds(1200);
    const SimulationResult kept = Run(cluster, jobs, {}, options);
    REQUIRE(kept.livelock.detected);
    CHECK(kept.checkpoints_kept == 2);
    CHECK(kept.livelock.stalled_since_s == 2410);
    CHECK(kept.livelock.stopped_s == 6010);
    CHECK(kept.livelock.preemptions == 101);  // a-big at 3000 + 60k (k = 0..50), b-low at 3030 + 60k (k = 0..49)
  }
}

TEST_CASE("simulate livelock: slow runs that progress are not flagged", "[sim][livelock]") {
  const SimulationInput cluster = Cluster(kLoopCluster);
  SECTION("long jobs one after another, no preemption") {
    // Setup: three 50 h jobs that need the whole cohort: 150 h without a completion for 50 h at a
    // time, and no preemption. Expect: not a livelock; all complete at 150 h.
    const SimulationResult r = Run(cluster, Jobs("submit,namespace,pod_sets,duration\n"
                                                 "0,team-a,1x{nvidia.com/gpu=8},50h\n"
                                                 "0,team-a,1x{nvidia.com/gpu=8},50h\n"
                                                 "0,team-b,1x{nvidia.com/gpu=8},50h\n"));
    CHECK_FALSE(r.livelock.detected);
    CHECK(r.completed == 3);
    CHECK(r.makespan_s == 150 * kHour);
  }
  SECTION("one preemption, then steady running") {
    // Setup: j1 (high) preempts j0 (low) at 120 s, then runs 3 h; j0 runs after it. 1 h window.
    // Expect: no job was preempted twice, so not a loop, though nothing completes for 3 h.
    const SimulationResult r = Run(cluster, Jobs("submit,namespace,priority_class,pod_sets,duration,name\n"
                                                 "60,team-a,low,1x{nvidia.com/gpu=5},3h,j0\n"
                                                 "120,team-a,high,1x{nvidia.com/gpu=4},3h,j1\n"),
                                   {}, Window(Duration::Seconds(3600)));
    CHECK_FALSE(r.livelock.detected);
    CHECK(r.preemptions == 1);
    CHECK(r.completed == 2);
    CHECK(r.makespan_s == 150 + 2 * 3 * kHour);
  }
  SECTION("a job that keeps running while others thrash") {
    // Setup: a-high and b-low preempt each other for ever, while b-small (1 GPU, the reason b-low
    // must reclaim) runs from 0 s. 10 min window, 1 h horizon. Expect: b-small has run a whole
    // window at every instant from 10 min on, so the run progresses; 60 + 60 preemptions (a-high at
    // 10 + 60k s, b-low at 40 + 60k s).
    SimulationOptions options = Window(Duration::Seconds(600));
    options.horizon = Duration::Seconds(3600);
    const SimulationResult r = Run(cluster, Jobs("submit,namespace,priority_class,pod_sets,duration,name\n"
                                                 "0,team-a,high,1x{nvidia.com/gpu=6},1000h,a-high\n"
                                                 "0,team-b,high,1x{nvidia.com/gpu=6},1000h,b-high\n"
                                                 "0,team-b,low,1x{nvidia.com/gpu=1},1000h,b-small\n"
                                                 "10,team-b,low,1x{nvidia.com/gpu=2},1000h,b-low\n"),
                                   {}, options);
    CHECK_FALSE(r.livelock.detected);
    CHECK(r.preemptions == 120);
    // A job counts once it has run a whole window: started 10 s after the last progress, it is
    // 10 s short when the window ends, and the run is stopped then.
    const SimulationResult late = Run(cluster, Jobs("submit,namespace,priority_class,pod_sets,duration,name\n"
                                                    "0,team-a,high,1x{nvidia.com/gpu=6},1000h,a-high\n"
                                                    "0,team-b,high,1x{nvidia.com/gpu=6},1000h,b-high\n"
                                                    "10,team-b,low,1x{nvidia.com/gpu=1},1000h,b-small\n"
                                                    "10,team-b,low,1x{nvidia.com/gpu=2},1000h,b-low\n"),
                                      {}, options);
    REQUIRE(late.livelock.detected);
    CHECK(late.livelock.stopped_s == 600);
  }
}

TEST_CASE("simulate preemption counters: complete past the log's limit", "[sim][livelock]") {
  // Setup: a-high and b-low preempt each other while b-small runs (no livelock); the log keeps 10
  // records. Expect: in the first hour 60 reclamations of a-high by cq-b (10 + 60k s) and 60
  // preemptions of b-low within cq-b (40 + 60k s): counted in full, by reason and by pair, and per
  // bucket in the pair series.
  SimulationOptions options;
  options.horizon = Duration::Seconds(3600);
  options.preemption_log_limit = 10;
  const SimulationResult r = Run(Cluster(kLoopCluster), Jobs("submit,namespace,priority_class,pod_sets,duration,name\n"
                                                             "0,team-a,high,1x{nvidia.com/gpu=6},1000h,a-high\n"
                                                             "0,team-b,high,1x{nvidia.com/gpu=6},1000h,b-high\n"
                                                             "10,team-b,low,1x{nvidia.com/gpu=1},1000h,b-small\n"
                                                             "10,team-b,low,1x{nvidia.com/gpu=2},1000h,b-low\n"),
                                 {}, options);
  CHECK(r.preemptions == 120);
  CHECK(r.preemption_log.size() == 10);
  CHECK(r.preemption_log_dropped == 110);
  REQUIRE(r.preemption_counts.size() == 2);
  CHECK(r.preemption_counts[0].cluster_queue == "cq-a");
  CHECK(r.preemption_counts[0].reason == "InCohortReclamation");
  CHECK(r.preemption_counts[0].preemptor_queue == "cq-b");
  CHECK(r.preemption_counts[0].count == 60);
  CHECK(r.preemption_counts[1].cluster_queue == "cq-b");
  CHECK(r.preemption_counts[1].reason == "InClusterQueue");
  CHECK(r.preemption_counts[1].preemptor_queue == "cq-b");
  CHECK(r.preemption_counts[1].count == 60);
  REQUIRE(r.preemptions_by_reason.size() == 2);
  CHECK(r.preemptions_by_reason[0].count == 60);
  CHECK(r.preemptions_by_reason[1].count == 60);
  REQUIRE(r.series.pair_preemptions.size() == 2);
  for (const TimeSeries::PairSeries& p : r.series.pair_preemptions) {
    int64_t sum = 0;
    for (int64_t n : p.counts) sum += n;
    CHECK(sum == 60);
  }
  CHECK(r.series.pair_preemptions[0].preemptor_queue == "cq-b");
  CHECK(r.series.pair_preemptions[0].cluster_queue == "cq-a");
  const std::string text = FormatSimulationText(r);
  CHECK(text.find("cq-a           InCohortReclamation  cq-b     60\n") != std::string::npos);
  CHECK(text.find("cq-b           InClusterQueue       cq-b     60\n") != std::string::npos);
  CHECK(text.find("not counted") == std::string::npos);
}

TEST_CASE("simulate livelock: a preemption loop at one instant (eviction delay 0)", "[sim][livelock]") {
  // Setup: the loop with pods that stop at once. At 610 s b-low reclaims a-big and is admitted; at
  // 620 s b-high preempts b-low, a-big takes the room, b-low reclaims it, ... at one instant.
  // Expect: stopped at 620 s after 1,000 rounds, stalled since the warm-up's completion (600 s); the
  // loop's preemptions alternate (500 each at 620 s, plus a-big's at 610 s).
  SimulationOptions options = test::StopAtOnce();
  const SimulationResult r = Run(Cluster(kLoopCluster), Jobs(LoopJobs()), {}, options);
  const Livelock& l = r.livelock;
  REQUIRE(l.detected);
  CHECK(l.at_one_instant);
  CHECK(l.stopped_s == 620);
  CHECK(l.stalled_since_s == 600);
  REQUIRE(l.pairs.size() == 2);
  CHECK(l.pairs[0].cluster_queue == "cq-a");
  CHECK(l.pairs[0].count == 501);
  CHECK(l.pairs[1].cluster_queue == "cq-b");
  CHECK(l.pairs[1].count == 501);
  REQUIRE(l.workloads.size() == 2);
  CHECK(l.workloads[0].workload == "team-a/a-big");
  CHECK(l.workloads[1].workload == "team-b/b-low");
  CHECK(r.preemptions == 1002);
  CHECK(r.completed == 1);
}

TEST_CASE("simulate livelock: the stall window must be positive", "[sim][livelock]") {
  SimulationOptions options;
  options.stall_window = Duration{};
  absl::StatusOr<SimulationResult> r = Simulate(Cluster(kLoopCluster), Jobs(LoopJobs()), {}, options);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "stall window: must be positive (the no-progress detector is always on)");
}

}  // namespace
}  // namespace livelock_test
}  // namespace qm::sim
