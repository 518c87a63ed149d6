// The simulator on small hand-computed cases (docs/simulate.md): waits, placement, borrowing and
// lending, preemption and lost goodput, node failures, bad input, determinism.
#include <string>

#include "catch2/catch.hpp"
#include "qm/sim/sim_result.h"
#include "qm/sim/simulator.h"
#include "qm/sim/trace.h"
#include "sim/sim_test_support.h"

namespace qm::sim {
namespace simulator_test {
namespace {

using test::Cluster;
using test::Gpu;
using test::Jobs;
using test::kHour;
using test::QueueRow;
using test::Run;
using test::StopAtOnce;

// Two ClusterQueues of 4 GPUs in cohort `all`, team-a → cq-a, team-b → cq-b; reclaim on.
constexpr const char* kTwoTeams = R"(
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
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
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
status: {allocatable: {nvidia.com/gpu: "4", cpu: "32", memory: 128Gi}}
---
kind: Node
metadata: {name: n2, labels: {pool: gpu}}
status: {allocatable: {nvidia.com/gpu: "4", cpu: "32", memory: 128Gi}}
)";

TEST_CASE("simulate: without nodes, the second job waits for the first's quota", "[sim]") {
  const SimulationResult r = Run(Cluster(kTwoTeams), Jobs("submit,namespace,pod_sets,duration\n"
                                                          "0,team-b,1x{nvidia.com/gpu=4},10s\n"
                                                          "0,team-b,1x{nvidia.com/gpu=4},10s\n"
                                                          "0,team-a,1x{nvidia.com/gpu=4},10s\n"));
  // team-a and team-b each hold their own 4 at once; team-b's second job borrows nothing
  // (team-a uses its 4), so it waits 10 s.
  const GroupSummary& b = QueueRow(r, "cq-b");
  CHECK(b.jobs == 2);
  CHECK(b.completed == 2);
  CHECK(b.wait.count == 2);
  CHECK(b.wait.p50 == 0);
  CHECK(b.wait.max == 10);
  CHECK(b.wait.mean == 5);
  CHECK(b.completion.max == 20);
  CHECK(Gpu(b).used == Approx(2 * 4 * 10 / kHour));
  CHECK(r.makespan_s == 20);
  CHECK(r.completed == 3);
  CHECK(r.preemptions == 0);
  CHECK(b.wait_quantiles.size() == 101);
}

TEST_CASE("simulate: a job admitted by quota waits for nodes when no node fits its pods", "[sim]") {
  // Job 1 takes 3 GPUs on each node; job 2 fits the quota (6 + 2 ≤ 8 with borrowing) but no
  // node has 2 GPUs free: it waits, admitted but unplaced, until job 1 finishes at 10 s.
  const SimulationResult r = Run(Cluster(std::string(kTwoTeams) + kTwoNodes),
                                 Jobs("submit,namespace,pod_sets,duration\n"
                                      "0,team-a,2x{nvidia.com/gpu=3},10s\n"
                                      "0,team-a,1x{nvidia.com/gpu=2},10s\n"));
  const GroupSummary& a = QueueRow(r, "cq-a");
  CHECK(a.completed == 2);
  CHECK(a.wait.max == 0);                       // both admitted at once
  CHECK(a.completion.max == 20);                // the second ran from 10 to 20
  CHECK(a.unplaced_hours == Approx(10 / kHour));
  CHECK(r.unplaced_hours == Approx(10 / kHour));
  CHECK(Gpu(a).used == Approx((6 * 10 + 2 * 10) / kHour));
  // Borrowed counts quota held (docs/simulate.md): 8 of 4 nominal from 0 to 10 s, 2 after.
  CHECK(Gpu(a).borrowed == Approx(4 * 10 / kHour));
  REQUIRE(!r.utilization.empty());
  CHECK(r.utilization[0].flavor == "gpu");
  CHECK(r.utilization[0].capacity == 8);
}

// One ClusterQueue over flavors v100 (first) and p100, one 4-GPU node each; the p100 node is in
// zone b. team-a → cq.
constexpr const char* kTwoModels = R"(
kind: ResourceFlavor
metadata: {name: v100}
spec: {nodeLabels: {gpu-model: v100}}
---
kind: ResourceFlavor
metadata: {name: p100}
spec: {nodeLabels: {gpu-model: p100}}
---
kind: Namespace
metadata: {name: team-a}
---
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - {name: v100, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}
    - {name: p100, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}
---
kind: LocalQueue
metadata: {namespace: team-a, name: q}
spec: {clusterQueue: cq}
---
kind: Node
metadata: {name: v-0, labels: {gpu-model: v100, zone: a}}
status: {allocatable: {nvidia.com/gpu: "4"}}
---
kind: Node
metadata: {name: v-1, labels: {gpu-model: v100, zone: b}}
status: {allocatable: {nvidia.com/gpu: "4"}}
---
kind: Node
metadata: {name: p-0, labels: {gpu-model: p100, zone: b}}
status: {allocatable: {nvidia.com/gpu: "4"}}
)";

TEST_CASE("simulate: node constraints of the trace steer flavors and nodes", "[sim]") {
  SECTION("an affinity for p100 skips the preferred v100 flavor; the second such job waits") {
    const SimulationResult r = Run(Cluster(kTwoModels), Jobs("submit,namespace,pod_sets,duration,node_affinity\n"
                                                             "0,team-a,1x{nvidia.com/gpu=4},10s,gpu-model In p100\n"
                                                             "0,team-a,1x{nvidia.com/gpu=4},10s,gpu-model In p100\n"));
    const GroupSummary& a = QueueRow(r, "cq");
    CHECK(a.completed == 2);
    // p100's quota (8) admits both; its one node runs one at a time.
    CHECK(a.completion.max == 20);
    CHECK(r.unplaced_hours == Approx(10 / kHour));
  }
  SECTION("a selector on a label no flavor names only narrows the nodes") {
    // Both jobs get flavor v100 (the selector's zone is not a flavor label, so the assigner ignores
    // it), but only v-1 is in zone b: the second waits for it.
    const SimulationResult r = Run(Cluster(kTwoModels), Jobs("submit,namespace,pod_sets,duration,node_selector\n"
                                                             "0,team-a,1x{nvidia.com/gpu=4},10s,zone=b\n"
                                                             "0,team-a,1x{nvidia.com/gpu=4},10s,zone=b\n"));
    CHECK(QueueRow(r, "cq").completion.max == 20);
    CHECK(r.unplaced_hours == Approx(10 / kHour));
  }
  SECTION("without constraints both run at once on v100") {
    const SimulationResult r = Run(Cluster(kTwoModels), Jobs("submit,namespace,pod_sets,duration\n"
                                                             "0,team-a,1x{nvidia.com/gpu=4},10s\n"
                                                             "0,team-a,1x{nvidia.com/gpu=4},10s\n"));
    CHECK(QueueRow(r, "cq").completion.max == 10);
    CHECK(r.unplaced_hours == 0);
  }
}

TEST_CASE("simulate: a pod larger than every node is reported once per shape and counted as never run", "[sim]") {
  const SimulationResult r = Run(Cluster(kTwoModels), Jobs("submit,namespace,pod_sets,duration,node_selector\n"
                                                           "0,team-a,1x{nvidia.com/gpu=8},10s,\n"
                                                           "1,team-a,1x{nvidia.com/gpu=8},10s,\n"
                                                           "2,team-a,2x{nvidia.com/gpu=4},10s,zone=a\n"
                                                           "3,team-a,1x{nvidia.com/gpu=4},10s,zone=c\n"));
  // Rows 1-2: 8 GPUs in one pod, nodes have 4. Row 3: two pods of 4 in zone a, where one node is:
  // each pod fits a node, so it is not reported (it waits for room instead). Row 4: no node in zone c.
  CHECK(r.fit_no_node == 3);
  REQUIRE(r.warnings.size() == 2);
  CHECK(r.warnings[0] ==
        "jobs.csv:2: job-1 and 1 more jobs of its shape: a pod of pod set \"main\" ({nvidia.com/gpu=8}) fits no node "
        "of ClusterQueue \"cq\"'s flavors (the largest of them, p-0, has nvidia.com/gpu=4); admitted by quota, it can "
        "never run");
  CHECK(r.warnings[1] ==
        "jobs.csv:5: job-4: a pod of pod set \"main\" ({nvidia.com/gpu=4}) fits no node of ClusterQueue \"cq\"'s "
        "flavors that matches the job's node constraints (no node carries them); admitted by quota, it can never run");
  CHECK(r.completed == 0);
  // Without nodes nothing is checked: every admitted job runs at once.
  const SimulationResult no_nodes = Run(Cluster(kTwoTeams), Jobs("submit,namespace,pod_sets,duration\n"
                                                                 "0,team-a,1x{nvidia.com/gpu=4},10s\n"));
  CHECK(no_nodes.fit_no_node == 0);
  CHECK(no_nodes.warnings.empty());
}

TEST_CASE("simulate: reclaim preempts the borrower, which loses its progress and reruns", "[sim]") {
  // Pods stop the instant they are preempted (no grace period).
  const SimulationResult r = Run(Cluster(kTwoTeams),
                                 Jobs("submit,namespace,pod_sets,duration\n"
                                      "0,team-a,1x{nvidia.com/gpu=8},100s\n"
                                      "50,team-b,1x{nvidia.com/gpu=4},10s\n"),
                                 {}, StopAtOnce());
  const GroupSummary& a = QueueRow(r, "cq-a");
  const GroupSummary& b = QueueRow(r, "cq-b");
  CHECK(a.preemptions == 1);
  CHECK(r.preemptions == 1);
  CHECK(r.admissions == 3);
  CHECK(b.wait.max == 0);            // admitted at 50 once the borrower stopped
  CHECK(a.completion.max == 160);    // readmitted at 60, when b finished
  CHECK(Gpu(a).goodput_lost == Approx(8 * 50 / kHour));
  CHECK(Gpu(a).used == Approx((8 * 50 + 8 * 100) / kHour));
  CHECK(Gpu(a).borrowed == Approx((4 * 50 + 4 * 100) / kHour));
  CHECK(Gpu(b).lent == Approx((4 * 50 + 4 * 100) / kHour));
  CHECK(Gpu(b).used == Approx(4 * 10 / kHour));
  REQUIRE(r.preemption_log.size() == 1);
  CHECK(r.preemption_log[0].time_s == 50);
  CHECK(r.preemption_log[0].cluster_queue == "cq-a");
  CHECK(r.preemption_log[0].preemptor_queue == "cq-b");
  CHECK(r.preemption_log[0].reason == "InCohortReclamation");
}

TEST_CASE("simulate: per-job outcomes (--jobs-out), hand-computed", "[sim]") {
  SimulationOptions options = StopAtOnce();
  options.record_jobs = true;
  // The reclaim case above: a borrows 8 from 0, is preempted at 50 (50 s lost), readmitted at 60
  // when b finishes, runs 100 s again.
  SimulationResult r = Run(Cluster(kTwoTeams),
                           Jobs("submit,namespace,pod_sets,duration,priority_class\n"
                                "0,team-a,1x{nvidia.com/gpu=8},100s,\n"
                                "50,team-b,1x{nvidia.com/gpu=4},10s,high\n"),
                           {}, options);
  r.label = "run-1";
  REQUIRE(r.jobs_out.size() == 2);
  const JobOutcome& a = r.jobs_out[0];
  CHECK(a.first_admitted_us == 0);
  CHECK(a.first_started_us == 0);
  CHECK(a.end_us == 160'000'000);
  CHECK(a.preemptions == 1);
  CHECK(a.work_lost_us == 50'000'000);
  CHECK(a.state == "Completed");
  const std::vector<SimulationResult> runs = {r};
  CHECK(FormatJobsCsv(runs) ==
        "run,namespace,name,cluster_queue,priority_class,submit_s,first_admitted_s,started_s,end_s,wait_s,flavors,"
        "nodes,preemptions,evictions,work_lost_s,state\n"
        "run-1,team-a,job-1,cq-a,,0,0,0,160,0,nvidia.com/gpu=gpu,,1,0,50,Completed\n"
        "run-1,team-b,job-2,cq-b,high,50,50,50,60,0,nvidia.com/gpu=gpu,,0,0,0,Completed\n");
  // Placed on nodes: the nodes column names them; a job waiting for nodes at the end is Admitted.
  SimulationResult placed = Run(Cluster(std::string(kTwoTeams) + kTwoNodes),
                                Jobs("submit,namespace,pod_sets,duration\n"
                                     "0,team-a,2x{nvidia.com/gpu=3},10s\n"
                                     "0,team-a,1x{nvidia.com/gpu=2},10s\n"),
                                {}, options);
  REQUIRE(placed.jobs_out.size() == 2);
  CHECK(placed.jobs_out[0].nodes == "n1;n2");
  CHECK(placed.jobs_out[1].first_admitted_us == 0);
  CHECK(placed.jobs_out[1].first_started_us == 10'000'000);
  CHECK(placed.jobs_out[1].nodes == "n1");
  // Without record_jobs nothing is kept.
  CHECK(Run(Cluster(kTwoTeams), Jobs("submit,namespace,pod_sets,duration\n0,team-a,1x{nvidia.com/gpu=1},1s\n"))
            .jobs_out.empty());
}

TEST_CASE("simulate: a metrics window limits time figures to it and job figures to its jobs", "[sim]") {
  // team-a holds 4 of the 8 nominal GPUs during [0, 100) and [200, 300).
  const Trace trace = Jobs("submit,namespace,pod_sets,duration\n"
                           "0,team-a,1x{nvidia.com/gpu=4},100s\n"
                           "200,team-a,1x{nvidia.com/gpu=4},100s\n");
  const SimulationResult whole = Run(Cluster(kTwoTeams), trace);
  REQUIRE(whole.utilization.size() == 1);
  CHECK(whole.utilization[0].utilization == Approx(4.0 * 200 / 300 / 8));
  CHECK(whole.jobs == 2);
  CHECK(whole.window_start_s == 0);
  SimulationOptions options;
  options.window_start = Duration::Seconds(150);
  options.window_end = Duration::Seconds(250);
  const SimulationResult r = Run(Cluster(kTwoTeams), trace, {}, options);
  // [150, 250): 4 GPUs held for 50 of 100 s, of 8.
  CHECK(r.utilization[0].utilization == Approx(4.0 * 50 / 100 / 8));
  CHECK(r.utilization[0].avg_admitted == Approx(2.0));
  // Only the second job was submitted in the window; it completes at 300 and still counts.
  CHECK(r.jobs == 1);
  CHECK(r.completed == 1);
  const GroupSummary& a = QueueRow(r, "cq-a");
  CHECK(a.jobs == 1);
  CHECK(a.completion.max == 100);
  CHECK(Gpu(a).used == Approx(4 * 50 / kHour));
  CHECK(r.window_start_s == 150);
  CHECK(r.window_end_s == 250);
  // The run itself is the same: the time series still cover all of it.
  CHECK(r.makespan_s == whole.makespan_s);
  options.window_end = Duration::Seconds(100);
  CHECK(Simulate(Cluster(kTwoTeams), trace, {}, options).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("simulate: preempted pods keep their GPUs for the grace period; the preemptor waits", "[sim]") {
  // Default 30 s delay: team-a's pods stop at 80; team-b's job runs 80–90; team-a's needs all 8
  // GPUs again, so it reruns 90–190.
  const Trace jobs = Jobs("submit,namespace,pod_sets,duration\n"
                          "0,team-a,2x{nvidia.com/gpu=4},100s\n"
                          "50,team-b,1x{nvidia.com/gpu=4},10s\n");
  const SimulationResult r = Run(Cluster(std::string(kTwoTeams) + kTwoNodes), jobs);
  const GroupSummary& a = QueueRow(r, "cq-a");
  const GroupSummary& b = QueueRow(r, "cq-b");
  CHECK(r.preemptions == 1);
  CHECK(b.wait.max == 30);
  CHECK(b.completion.max == 40);
  CHECK(a.completion.max == 190);
  CHECK(Gpu(a).goodput_lost == Approx(8 * 80 / kHour));
  CHECK(Gpu(a).used == Approx((8 * 80 + 8 * 100) / kHour));
  CHECK(Gpu(a).borrowed == Approx((4 * 80 + 4 * 100) / kHour));
  CHECK(Gpu(b).lent == Approx((4 * 80 + 4 * 100) / kHour));
  CHECK(r.preemption_log.at(0).time_s == 50);
  // The delay is the only difference from stopping at once.
  CHECK(QueueRow(Run(Cluster(std::string(kTwoTeams) + kTwoNodes), jobs, {}, StopAtOnce()), "cq-a").completion.max == 160);
}

TEST_CASE("simulate: a failed node evicts its pods; they run again from the start", "[sim]") {
  FaultPlan faults;
  faults.failures.push_back({"n1", Duration::Seconds(30), Duration::Seconds(20)});
  const SimulationResult r = Run(Cluster(std::string(kTwoTeams) + kTwoNodes),
                                 Jobs("submit,namespace,pod_sets,duration\n"
                                      "0,team-a,1x{nvidia.com/gpu=4},100s\n"
                                      "0,team-b,1x{nvidia.com/gpu=4},100s\n"),
                                 faults);
  const GroupSummary& a = QueueRow(r, "cq-a");  // first fit: team-a's pod went to n1
  const GroupSummary& b = QueueRow(r, "cq-b");
  CHECK(r.node_failures == 1);
  CHECK(r.fault_evictions == 1);
  CHECK(a.evictions == 1);
  CHECK(b.evictions == 0);
  CHECK(a.completion.max == 150);  // readmitted at 30, placed when n1 came back at 50
  CHECK(a.unplaced_hours == Approx(20 / kHour));
  CHECK(Gpu(a).goodput_lost == Approx(4 * 30 / kHour));
  CHECK(Gpu(a).used == Approx((4 * 30 + 4 * 100) / kHour));
  CHECK(b.completion.max == 100);
}

// kTwoTeams with Kueue's waitForPodsReady: 60 s to get ready, 10 s base back-off, at most 1 requeue.
std::string WithPodsReady() {
  return std::string(kTwoTeams) +
         "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
         "waitForPodsReady: {timeout: 60s, requeuingStrategy: {backoffBaseSeconds: 10, backoffLimitCount: 1}}\n";
}

int64_t ReasonCountOf(const SimulationResult& r, std::string_view reason) {
  int64_t n = 0;
  for (const ReasonCount& c : r.preemptions_by_reason)
    if (c.reason == reason) n += c.count;
  return n;
}

TEST_CASE("simulate: pod start-up delays the run; with waitForPodsReady a slow start times out", "[sim][pods-ready]") {
  const Trace jobs = Jobs("submit,namespace,pod_sets,duration\n0,team-a,1x{nvidia.com/gpu=4},100s\n");
  SECTION("start-up alone: the job ends start-up + duration after its placement") {
    SimulationOptions o = StopAtOnce();
    o.pod_startup = {{"gpu", Duration::Seconds(30)}};
    const SimulationResult r = Run(Cluster(std::string(kTwoTeams) + kTwoNodes), jobs, {}, o);
    CHECK(r.completed == 1);
    CHECK(QueueRow(r, "cq-a").completion.max == 130);
    CHECK(r.preemptions == 0);
  }
  SECTION("ready within the timeout: no eviction") {
    SimulationOptions o = StopAtOnce();
    o.pod_startup_default = Duration::Seconds(59);
    const SimulationResult r = Run(Cluster(WithPodsReady() + kTwoNodes), jobs, {}, o);
    CHECK(r.completed == 1);
    CHECK(QueueRow(r, "cq-a").completion.max == 159);
    CHECK(ReasonCountOf(r, "PodsReadyTimeout") == 0);
  }
  SECTION("too slow: evicted at 60 s, requeued after 10 s, evicted again and deactivated") {
    SimulationOptions o = StopAtOnce();
    o.pod_startup = {{"gpu", Duration::Seconds(90)}};
    const SimulationResult r = Run(Cluster(WithPodsReady() + kTwoNodes), jobs, {}, o);
    CHECK(r.completed == 0);
    CHECK(ReasonCountOf(r, "PodsReadyTimeout") == 1);
    CHECK(ReasonCountOf(r, "Deactivated") == 1);
  }
  SECTION("a trace row's pod_startup overrides the flavors' start-up") {
    SimulationOptions o = StopAtOnce();
    o.pod_startup_default = Duration::Seconds(90);
    const Trace own = Jobs("submit,namespace,pod_sets,duration,pod_startup\n0,team-a,1x{nvidia.com/gpu=4},100s,20s\n");
    const SimulationResult r = Run(Cluster(WithPodsReady() + kTwoNodes), own, {}, o);
    CHECK(r.completed == 1);
    CHECK(QueueRow(r, "cq-a").completion.max == 120);
    CHECK(ReasonCountOf(r, "PodsReadyTimeout") == 0);
    CHECK(WriteTrace(own).starts_with("submit,namespace,team,queue,priority_class,priority,pod_sets,min_count,duration,name,pod_startup\n"));
  }
  SECTION("start-up is not reported without waitForPodsReady, and a negative one is an error") {
    SimulationOptions o = StopAtOnce();
    o.pod_startup_default = Duration::Seconds(-1);
    CHECK_FALSE(Simulate(Cluster(kTwoTeams), jobs, {}, o).ok());
  }
}

TEST_CASE("simulate: bad jobs and faults are errors naming the row, and nothing runs", "[sim]") {
  const SimulationInput cluster = Cluster(std::string(kTwoTeams) + kTwoNodes);
  auto error = [&](const std::string& csv, const FaultPlan& faults = {}) {
    absl::StatusOr<SimulationResult> r = Simulate(cluster, Jobs(csv), faults);
    REQUIRE(!r.ok());
    return std::string(r.status().message());
  };
  const std::string header = "submit,namespace,queue,priority_class,pod_sets,duration\n";
  CHECK_THAT(error(header + "0,team-a,q,,1x{cpu=1},1s\n0,team-c,q,,1x{cpu=1},1s\n"),
             Catch::StartsWith("jobs.csv:3: namespace: no LocalQueue in namespace \"team-c\""));
  CHECK_THAT(error(header + "0,team-a,other,,1x{cpu=1},1s\n"),
             Catch::StartsWith("jobs.csv:2: queue: LocalQueue \"other\" not found in namespace \"team-a\""));
  CHECK_THAT(error(header + "0,team-a,q,urgent,1x{cpu=1},1s\n"),
             Catch::StartsWith("jobs.csv:2: priority_class: \"urgent\" is neither"));
  FaultPlan faults;
  faults.failures.push_back({"n9", Duration::Seconds(1), {}});
  CHECK(error(header + "0,team-a,q,high,1x{cpu=1},1s\n", faults) == "faults: failures[0].node: no node \"n9\" in the cluster");
}

// Two HyperPod teams on 4 × ml.p5.48xlarge (8 GPUs each), 2 instances of quota each.
constexpr const char* kHyperPod = R"(
kind: HyperPodCluster
metadata: {name: ml-cluster}
instances: {ml.p5.48xlarge: 4}
---
kind: ClusterSchedulerConfig
metadata: {name: policy}
cli: "PriorityClasses=[{Name=inference,Weight=90},{Name=training,Weight=70}],FairShare=Enabled"
---
kind: ComputeQuota
metadata: {name: a-quota}
cli:
  computeQuotaConfig: "ComputeQuotaResources=[{InstanceType=ml.p5.48xlarge,Count=2}],ResourceSharingConfig={Strategy=LendAndBorrow,BorrowLimit=50},PreemptTeamTasks=LowerPriority"
  computeQuotaTarget: "TeamName=a,FairShareWeight=1"
---
kind: ComputeQuota
metadata: {name: b-quota}
cli:
  computeQuotaConfig: "ComputeQuotaResources=[{InstanceType=ml.p5.48xlarge,Count=2}],ResourceSharingConfig={Strategy=LendAndBorrow,BorrowLimit=50},PreemptTeamTasks=LowerPriority"
  computeQuotaTarget: "TeamName=b,FairShareWeight=1"
)";

TEST_CASE("simulate: the same inputs give the same bytes, report included", "[sim]") {
  TraceGeneratorOptions g;
  g.seed = 11;
  g.jobs = 400;
  g.teams = {"a", "b"};
  g.max_gpus = 16;
  g.arrivals_per_hour = 30;
  g.priority_mix = {{"inference", 0.3}, {"training", 0.7}};
  absl::StatusOr<Trace> trace = GenerateTrace(g);
  REQUIRE(trace.ok());
  const SimulationInput cluster = Cluster(kHyperPod);
  REQUIRE(cluster.nodes.size() == 4);
  FaultPlan faults;
  faults.mtbf = Duration::Seconds(100 * 3600);
  faults.repair_time = Duration::Seconds(3600);
  faults.seed = 3;
  const SimulationResult first = Run(cluster, *trace, faults);
  const SimulationResult second = Run(cluster, *trace, faults);
  CHECK(first.completed == 400);
  CHECK(first.node_failures > 0);
  CHECK(first.admissions >= 400);
  CHECK(FormatSimulationJson(first) == FormatSimulationJson(second));
  CHECK(FormatSimulationText(first) == FormatSimulationText(second));
  CHECK(RenderHtmlReport({&first, 1}) == RenderHtmlReport({&second, 1}));
  // A different fault seed changes the run (the seed is used).
  faults.seed = 4;
  CHECK(FormatSimulationJson(Run(cluster, *trace, faults)) != FormatSimulationJson(first));
  // With pods that stop at once, this trace reaches a preemption loop at one instant (a
  // higher-priority job preempts, its victims' queue takes the room back first, and a job of
  // the preemptor's own queue reclaims it): a livelock stopped at that instant, not a hang.
  faults.seed = 3;
  const SimulationResult looped = Run(cluster, *trace, faults, StopAtOnce());
  CHECK(looped.livelock.detected);
  CHECK(looped.livelock.at_one_instant);
  CHECK(looped.preemptions > 1000);
  CHECK(FormatSimulationJson(looped) == FormatSimulationJson(Run(cluster, *trace, faults, StopAtOnce())));
}

TEST_CASE("fault files: list and random failures, errors with file and line", "[sim]") {
  absl::StatusOr<FaultPlan> plan = ReadFaultString(
      "failures:\n- {node: n1, at: 2h, repair: 30m}\n- {node: n2, at: 90s}\nrandom: {mtbf: 720h, repair: 1h, seed: 7}\n",
      "faults.yaml");
  REQUIRE(plan.ok());
  REQUIRE(plan->failures.size() == 2);
  CHECK(plan->failures[0].at == Duration::Seconds(7200));
  CHECK(plan->failures[0].repair == Duration::Seconds(1800));
  CHECK(plan->failures[1].repair == Duration{});
  CHECK(plan->mtbf == Duration::Seconds(720 * 3600));
  CHECK(plan->seed == 7);
  // The trace's time syntax too: days, plain seconds, fractions of a unit.
  absl::StatusOr<FaultPlan> days = ReadFaultString(
      "failures:\n- {node: n1, at: 1d12h, repair: 90}\nrandom: {mtbf: 2d, repair: 2.5h}\n", "faults.yaml");
  REQUIRE(days.ok());
  CHECK(days->failures[0].at == Duration::Seconds(36 * 3600));
  CHECK(days->failures[0].repair == Duration::Seconds(90));
  CHECK(days->mtbf == Duration::Seconds(48 * 3600));
  CHECK(days->repair_time == Duration::Seconds(9000));
  auto error = [](const char* yaml) {
    absl::StatusOr<FaultPlan> p = ReadFaultString(yaml, "faults.yaml");
    REQUIRE(!p.ok());
    return std::string(p.status().message());
  };
  CHECK(error("failures:\n- {node: n1, at: -5s}\n") == "faults.yaml:2: failures[0].at: \"-5s\" must be >= 0");
  CHECK(error("failures:\n- {node: n1, at: soon}\n") ==
        "faults.yaml:2: failures[0].at: \"soon\" is not a duration (e.g. 90s, 30m, 2h45m, 1d12h, 2.5h)");
  CHECK_THAT(error("failures:\n- {node: n1, at: 1s, when: 2s}\n"),
             Catch::StartsWith("faults.yaml:2: failures[0].when: unknown field"));
  CHECK(error("random: {mtbf: 0s, repair: 1h}\n") == "faults.yaml:1: random.mtbf: \"0s\" must be > 0");
}

}  // namespace
}  // namespace simulator_test
}  // namespace qm::sim
