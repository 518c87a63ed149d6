// The simulator's measures on small hand-computed cases (docs/simulate.md §Metrics): checkpoints,
// censored waits, jobs started versus admitted, Jain's index when nobody holds anything, and the
// GPU-hour and per-completion ratios.
#include <limits>
#include <string>

#include "catch2/catch.hpp"
#include "qm/sim/sim_result.h"
#include "qm/sim/simulator.h"
#include "qm/sim/trace.h"
#include "sim/sim_test_support.h"

namespace qm::sim {
namespace sim_metrics_test {
namespace {

using test::Cluster;
using test::Gpu;
using test::Jobs;
using test::kHour;
using test::QueueRow;
using test::Run;
using test::StopAtOnce;

// Two ClusterQueues of 4 GPUs in cohort `all` that reclaim what they lent; team-a → cq-a,
// team-b → cq-b.
constexpr const char* kTeams = R"(
kind: ResourceFlavor
metadata: {name: gpu}
spec: {nodeLabels: {pool: gpu}}
---
kind: Namespace
metadata: {name: team-a}
---
kind: Namespace
metadata: {name: team-b}
---
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  cohort: all
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}]
---
kind: ClusterQueue
metadata: {name: cq-b}
spec:
  cohort: all
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}]
---
kind: LocalQueue
metadata: {namespace: team-a, name: q}
spec: {clusterQueue: cq-a}
---
kind: LocalQueue
metadata: {namespace: team-b, name: q}
spec: {clusterQueue: cq-b}
)";

constexpr const char* kTwoNodes = R"(
---
kind: Node
metadata: {name: n1, labels: {pool: gpu}}
status: {allocatable: {nvidia.com/gpu: "4"}}
---
kind: Node
metadata: {name: n2, labels: {pool: gpu}}
status: {allocatable: {nvidia.com/gpu: "4"}}
)";

// A 10 h job of team-a borrowing 4 GPUs, reclaimed at 2.5 h by a 1 h job of team-b.
std::string Reclaimed(const std::string& checkpoint_cell = "") {
  return "submit,namespace,pod_sets,duration,checkpoint_interval\n"
         "0,team-a,1x{nvidia.com/gpu=8},10h," + checkpoint_cell + "\n"
         "2.5h,team-b,1x{nvidia.com/gpu=4},1h,\n";
}

TEST_CASE("simulate checkpoints: a preempted job keeps its work up to its last checkpoint", "[sim][checkpoint]") {
  const SimulationInput cluster = Cluster(kTeams);
  SECTION("every 1 h, preempted after 2.5 h: 0.5 h lost, 8 h left to run") {
    // Setup: pods stop at once. Expect: team-a's job keeps 2 h, loses 0.5 h (8 GPUs × 0.5 h), is
    // readmitted when team-b's job ends at 3.5 h and runs 8 h: done at 11.5 h.
    SimulationOptions options = StopAtOnce();
    options.checkpoint_interval = Duration::Seconds(3600);
    const SimulationResult r = Run(cluster, Jobs(Reclaimed()), {}, options);
    const GroupSummary& a = QueueRow(r, "cq-a");
    CHECK(a.preemptions == 1);
    CHECK(r.checkpoints_kept == 2);
    CHECK(Gpu(a).goodput_lost == Approx(8 * 0.5));
    CHECK(Gpu(a).used == Approx(8 * 2.5 + 8 * 8));
    CHECK(a.completion.max == 11.5 * kHour);
    // GPU-hours: completed = requests × duration of the completed jobs; lost = goodput lost.
    CHECK(r.gpu_hours_completed == Approx(8 * 10 + 4 * 1));
    CHECK(r.gpu_hours_lost == Approx(4));
    CHECK(r.gpu_hours_lost_per_completed == Approx(4.0 / 84.0));
    CHECK(r.preemptions_per_completed_job == 0.5);
  }
  SECTION("the trace's column overrides the flag: 0 = none") {
    // Expect: everything lost (8 GPUs × 2.5 h); the whole 10 h again from 3.5 h.
    SimulationOptions options = StopAtOnce();
    options.checkpoint_interval = Duration::Seconds(3600);
    const SimulationResult r = Run(cluster, Jobs(Reclaimed("0")), {}, options);
    CHECK(r.checkpoints_kept == 0);
    CHECK(Gpu(QueueRow(r, "cq-a")).goodput_lost == Approx(8 * 2.5));
    CHECK(QueueRow(r, "cq-a").completion.max == 13.5 * kHour);
  }
  SECTION("a checkpoint at the instant of the preemption counts") {
    // Setup: the column says every 30 min; no flag. Expect: 5 checkpoints, nothing lost, 7.5 h left.
    const SimulationResult r = Run(cluster, Jobs(Reclaimed("30m")), {}, StopAtOnce());
    CHECK(r.checkpoints_kept == 5);
    CHECK(Gpu(QueueRow(r, "cq-a")).goodput_lost == 0);
    CHECK(QueueRow(r, "cq-a").completion.max == 11 * kHour);
  }
  SECTION("pods that take 30 s to stop lose those 30 s too") {
    // Setup: the default eviction delay. Expect: pods stop at 2.5 h + 30 s, 0.5 h + 30 s lost;
    // team-b's job runs from then for 1 h, then team-a's 8 h.
    SimulationOptions options;
    options.checkpoint_interval = Duration::Seconds(3600);
    const SimulationResult r = Run(cluster, Jobs(Reclaimed()), {}, options);
    CHECK(Gpu(QueueRow(r, "cq-a")).goodput_lost == Approx(8 * (1800.0 + 30.0) / kHour));
    CHECK(QueueRow(r, "cq-a").completion.max == 11.5 * kHour + 30);
  }
  SECTION("no checkpoint interval: everything is lost, as before") {
    const SimulationResult r = Run(cluster, Jobs(Reclaimed()), {}, StopAtOnce());
    CHECK(r.checkpoints_kept == 0);
    CHECK(Gpu(QueueRow(r, "cq-a")).goodput_lost == Approx(8 * 2.5));
  }
  SECTION("a negative interval is refused") {
    SimulationOptions options;
    options.checkpoint_interval = Duration::Seconds(-1);
    absl::StatusOr<SimulationResult> r = Simulate(cluster, Jobs(Reclaimed()), {}, options);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() == "checkpoint interval: must not be negative (0 = no checkpoints)");
  }
}

TEST_CASE("simulate waits: jobs never admitted count until the end of the run (censored)", "[sim][waits]") {
  const SimulationInput cluster = Cluster(kTeams);
  // A 4-GPU job runs 0–1000 s; a 16-GPU job (more than the cohort's 8) arrives at 100 s and can
  // never be admitted.
  const Trace jobs = Jobs("submit,namespace,pod_sets,duration\n"
                          "0,team-a,1x{nvidia.com/gpu=4},1000s\n"
                          "100,team-a,1x{nvidia.com/gpu=16},10s\n");
  SECTION("the run ends at the last finish") {
    // Expect: admitted waits {0}; all waits {0, 1000 − 100}.
    const SimulationResult r = Run(cluster, jobs);
    const GroupSummary& a = QueueRow(r, "cq-a");
    CHECK(a.never_admitted == 1);
    CHECK(r.never_admitted == 1);
    CHECK(r.never_admittable == 1);  // 16 GPUs: above cq-a's maximum, ExceedsMaxQuota
    CHECK(a.wait.count == 1);
    CHECK(a.wait.max == 0);
    CHECK(a.wait_all.count == 2);
    CHECK(a.wait_all.max == 900);
    CHECK(a.wait_all.mean == 450);
    CHECK(a.wait_all.p50 == 0);
    CHECK(a.wait_all.p99 == 900);
    // The CDFs: over admitted jobs only the 0 s wait; censored, 0 s up to the median and 900 s
    // at the top (the report draws the censored one).
    REQUIRE(a.wait_quantiles.size() == 101);
    CHECK(a.wait_quantiles.back() == 0);
    REQUIRE(a.wait_all_quantiles.size() == 101);
    CHECK(a.wait_all_quantiles.front() == 0);
    CHECK(a.wait_all_quantiles.back() == 900);
  }
  SECTION("a horizon censors at the horizon") {
    SimulationOptions options;
    options.horizon = Duration::Seconds(500);
    const SimulationResult r = Run(cluster, jobs, {}, options);
    CHECK(QueueRow(r, "cq-a").wait_all.max == 400);
    CHECK(r.never_admittable == 1);
  }
  SECTION("a job that waits for room at the end is never admitted but not 'never admittable'") {
    // An 8-GPU job fits the cohort (4 nominal + 4 borrowed) but waits for the first job's 4.
    const Trace waiting = Jobs("submit,namespace,pod_sets,duration\n"
                               "0,team-a,1x{nvidia.com/gpu=4},1000s\n"
                               "100,team-a,1x{nvidia.com/gpu=8},10s\n");
    SimulationOptions options;
    options.horizon = Duration::Seconds(500);
    const SimulationResult r = Run(cluster, waiting, {}, options);
    CHECK(r.never_admitted == 1);
    CHECK(r.never_admittable == 0);
  }
  SECTION("jobs submitted after the end are not counted") {
    SimulationOptions options;
    options.horizon = Duration::Seconds(50);
    const SimulationResult r = Run(cluster, jobs, {}, options);
    CHECK(QueueRow(r, "cq-a").wait_all.count == 1);
    CHECK(QueueRow(r, "cq-a").never_admitted == 1);  // as before: jobs of the trace not admitted
  }
}

TEST_CASE("simulate started: a job admitted but never placed on nodes has not run", "[sim][placement]") {
  // Setup: nodes of 4 GPUs; an 8-GPU single pod fits the quota (4 + 4 borrowed) but no node.
  // Expect: admitted, not started, not completed; the 4-GPU job runs.
  const SimulationResult r = Run(Cluster(std::string(kTeams) + kTwoNodes),
                                 Jobs("submit,namespace,pod_sets,duration\n"
                                      "0,team-a,1x{nvidia.com/gpu=8},10s\n"
                                      "0,team-b,1x{nvidia.com/gpu=4},10s\n"));
  CHECK(QueueRow(r, "cq-a").admitted == 1);
  CHECK(QueueRow(r, "cq-a").started == 0);
  CHECK(QueueRow(r, "cq-a").completed == 0);
  CHECK(QueueRow(r, "cq-b").started == 1);
  CHECK(r.admitted == 2);
  CHECK(r.started == 1);
  CHECK(r.completed == 1);
}

TEST_CASE("simulate Jain's index: queues with demand of which none holds anything count as 0", "[sim][fairness]") {
  const SimulationInput cluster = Cluster(kTeams);
  SECTION("half the time served, half the time starved") {
    // Setup: team-a runs a 4-GPU job for 50 s and waits for a 16-GPU job that never fits; a job of
    // team-b at 100 s keeps the run going until then. Expect: 0–50 s one queue with demand holding
    // quota (1), 50–100 s one queue with demand holding nothing (0): 0.5.
    SimulationOptions options;
    options.horizon = Duration::Seconds(100);
    const SimulationResult r = Run(cluster,
                                   Jobs("submit,namespace,pod_sets,duration\n"
                                        "0,team-a,1x{nvidia.com/gpu=4},50s\n"
                                        "0,team-a,1x{nvidia.com/gpu=16},10s\n"
                                        "100,team-b,1x{nvidia.com/gpu=1},10s\n"),
                                   {}, options);
    CHECK(r.avg_jain == Approx(0.5));
  }
  SECTION("two queues starved, then one served") {
    // Setup: both teams wait for jobs that never fit from 0 s; team-b runs a 4-GPU job from 60 s.
    // Expect: 0–60 s: 0; 60–120 s: shares {0, x} over 2 queues, J = x² / (2 x²) = 0.5; average 0.25.
    SimulationOptions options;
    options.horizon = Duration::Seconds(120);
    const SimulationResult r = Run(cluster,
                                   Jobs("submit,namespace,pod_sets,duration\n"
                                        "0,team-a,1x{nvidia.com/gpu=16},10s\n"
                                        "0,team-b,1x{nvidia.com/gpu=16},10s\n"
                                        "60,team-b,1x{nvidia.com/gpu=4},1h\n"),
                                   {}, options);
    CHECK(r.avg_jain == Approx(0.25));
  }
  SECTION("an idle cluster is still fair") {
    // Setup: one job, then nothing. Expect: the index over the time with demand only: 1.
    const SimulationResult r = Run(cluster, Jobs("submit,namespace,pod_sets,duration\n"
                                                 "100,team-a,1x{nvidia.com/gpu=4},10s\n"));
    CHECK(r.avg_jain == 1);
  }
}

TEST_CASE("simulate ratios: preemptions per completed job, GPU-hours lost per GPU-hour completed", "[sim]") {
  SECTION("nothing to divide: 0") {
    const SimulationResult r = Run(Cluster(kTeams), Jobs("submit,namespace,pod_sets,duration\n"
                                                         "0,team-a,1x{nvidia.com/gpu=4},10s\n"));
    CHECK(r.preemptions_per_completed_job == 0);
    CHECK(r.gpu_hours_completed == Approx(4 * 10 / kHour));
    CHECK(r.gpu_hours_lost_per_completed == 0);
  }
  SECTION("losses but no completion: infinite (null in JSON, '-' in text)") {
    // Setup: team-a's 8-GPU job is reclaimed at 50 s; the run stops at 60 s.
    SimulationOptions options = StopAtOnce();
    options.horizon = Duration::Seconds(60);
    const SimulationResult r = Run(Cluster(kTeams),
                                   Jobs("submit,namespace,pod_sets,duration\n"
                                        "0,team-a,1x{nvidia.com/gpu=8},100s\n"
                                        "50,team-b,1x{nvidia.com/gpu=4},100s\n"),
                                   {}, options);
    CHECK(r.completed == 0);
    CHECK(r.preemptions_per_completed_job == std::numeric_limits<double>::infinity());
    CHECK(r.gpu_hours_lost == Approx(8 * 50 / kHour));
    CHECK(r.gpu_hours_lost_per_completed == std::numeric_limits<double>::infinity());
    const std::string json = FormatSimulationJson(r);
    CHECK(json.find("\"preemptions_per_completed_job\":null,") != std::string::npos);
  }
}

}  // namespace
}  // namespace sim_metrics_test
}  // namespace qm::sim
