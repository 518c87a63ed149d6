// `qm simulate` end to end: a generated trace of N jobs from 10 HyperPod teams on 1,000
// ml.p5.48xlarge nodes (8,000 GPUs), LendAndBorrow with fair sharing, placed gang-wise. Arrivals
// keep the cluster busy (about 1,200 jobs an hour against roughly 1,500 an hour of capacity):
// teams borrow in the diurnal peaks, but with ten teams of equal quota this trace causes no
// preemption (the `preemptions` counter says so). Overloaded traces cost more than linear time
// (docs/simulate.md §Cost); this one measures the cluster that keeps up.
//
// Counters: jobs/s (per CPU second of the whole simulation: setup, submissions, cycles,
// placement, metrics), cycles, preemptions, and rss_MiB (the process's peak resident set).
// The trace is generated once per size, outside the timed region.
#include <time.h>

#include <string>

#include "bench_util.h"
#include "fmt/format.h"
#include "qm/sim/perf_replay.h"
#include "qm/sim/simulator.h"
#include "qm/sim/trace.h"

namespace qm::bench {
namespace {

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

constexpr int kTeams = 10;

std::string ClusterYaml() {
  std::string yaml =
      "kind: HyperPodCluster\nmetadata: {name: bench}\ninstances: {ml.p5.48xlarge: 1000}\n---\n"
      "kind: ClusterSchedulerConfig\nmetadata: {name: policy}\n"
      "cli: \"PriorityClasses=[{Name=inference,Weight=90},{Name=training,Weight=70},"
      "{Name=experimentation,Weight=50}],FairShare=Enabled\"\n";
  for (int t = 0; t < kTeams; ++t) {
    yaml += fmt::format(
        "---\nkind: ComputeQuota\nmetadata: {{name: team-{0}-quota}}\ncli:\n"
        "  computeQuotaConfig: \"ComputeQuotaResources=[{{InstanceType=ml.p5.48xlarge,Count=100}}],"
        "ResourceSharingConfig={{Strategy=LendAndBorrow,BorrowLimit=100}},PreemptTeamTasks=LowerPriority\"\n"
        "  computeQuotaTarget: \"TeamName=team-{0},FairShareWeight={1}\"\n",
        t, 1 + t % 3);
  }
  return yaml;
}

void BM_Simulate(benchmark::State& state) {
  const int64_t jobs = state.range(0);
  absl::StatusOr<sim::SimulationInput> cluster = sim::LoadClusterString(ClusterYaml(), "bench-cluster.yaml");
  if (!cluster.ok()) return Fail(state, std::string(cluster.status().message()));
  sim::TraceGeneratorOptions g;
  g.seed = 42;
  g.jobs = jobs;
  g.teams.clear();
  for (int t = 0; t < kTeams; ++t) g.teams.push_back(fmt::format("team-{}", t));
  g.arrivals_per_hour = 1200;
  g.max_gpus = 64;
  g.priority_mix = {{"inference", 0.2}, {"training", 0.5}, {"experimentation", 0.3}};
  absl::StatusOr<sim::Trace> trace = sim::GenerateTrace(g);
  if (!trace.ok()) return Fail(state, std::string(trace.status().message()));
  sim::SimulationOptions options;
  double cpu = 0;
  int64_t runs = 0, cycles = 0, preemptions = 0, completed = 0;
  for (auto _ : state) {
    const double cpu0 = ProcessCpuSeconds();
    absl::StatusOr<sim::SimulationResult> r = sim::Simulate(*cluster, *trace, {}, options);
    cpu += ProcessCpuSeconds() - cpu0;
    if (!r.ok()) return Fail(state, std::string(r.status().message()));
    if (r->completed + r->never_admitted != jobs || r->completed == 0) {
      return Fail(state, fmt::format("{} of {} jobs completed, {} never admitted", r->completed, jobs, r->never_admitted));
    }
    ++runs;
    cycles = r->cycles;
    preemptions = r->preemptions;
    completed = r->completed;
    benchmark::DoNotOptimize(r->groups.data());
  }
  state.counters["jobs/s"] = static_cast<double>(jobs * runs) / cpu;
  state.counters["cycles"] = static_cast<double>(cycles);
  state.counters["preemptions"] = static_cast<double>(preemptions);
  state.counters["completed"] = static_cast<double>(completed);
  state.counters["rss_MiB"] = static_cast<double>(sim::PeakRssBytes()) / (1 << 20);
}
BENCHMARK(BM_Simulate)->ArgName("jobs")->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace qm::bench
