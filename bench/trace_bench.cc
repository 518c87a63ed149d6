// Workload traces (qm/sim/trace.h): generating, writing and reading 10⁶-job traces, the sizes
// `qm simulate` must handle in well under a second.
//
// Counters: bytes/job, the trace's own arrays (jobs, pod sets, requests, strings, names) divided by
// its jobs; csv_bytes/job, the text's size.
#include <string>

#include "bench_util.h"
#include "qm/sim/trace.h"

namespace qm::bench {
namespace {

sim::TraceGeneratorOptions Options(int64_t jobs) {
  sim::TraceGeneratorOptions o;
  o.seed = 42;
  o.jobs = jobs;
  o.teams = {"ml", "nlp", "vision", "speech", "infra"};
  o.team_weights = {4, 2, 2, 1, 1};
  o.arrivals_per_hour = 2000;
  o.priority_mix = {{"high", 0.1}, {"medium", 0.3}, {"low", 0.6}};
  return o;
}

// What a trace holds in memory: its arrays at their capacity, plus the strings' heap parts.
int64_t TraceBytes(const sim::Trace& t) {
  int64_t bytes = static_cast<int64_t>(t.jobs.capacity() * sizeof(sim::TraceJob) +
                                       t.pod_sets.capacity() * sizeof(sim::TracePodSet) +
                                       t.requests.capacity() * sizeof(sim::TraceRequest) + t.names.capacity() +
                                       t.strings.capacity() * sizeof(std::string));
  for (const std::string& s : t.strings) bytes += static_cast<int64_t>(s.capacity() > 15 ? s.capacity() : 0);
  return bytes;
}

// Gives every job an explicit name, as exported traces usually have.
void NameEveryJob(sim::Trace& t) {
  for (sim::TraceJob& j : t.jobs) {
    const std::string name = fmt::format("train-{}", j.row);
    j.name_offset = static_cast<uint32_t>(t.names.size());
    j.name_size = static_cast<uint32_t>(name.size());
    t.names += name;
  }
}

void BM_Trace_Generate(benchmark::State& state) {
  const int64_t jobs = state.range(0);
  int64_t bytes = 0;
  for (auto _ : state) {
    absl::StatusOr<sim::Trace> t = sim::GenerateTrace(Options(jobs));
    if (!t.ok() || static_cast<int64_t>(t->jobs.size()) != jobs) return Fail(state, "generated the wrong number of jobs");
    bytes = TraceBytes(*t);
    benchmark::DoNotOptimize(t->jobs.data());
  }
  state.SetItemsProcessed(state.iterations() * jobs);
  state.counters["bytes/job"] = static_cast<double>(bytes) / static_cast<double>(jobs);
}
BENCHMARK(BM_Trace_Generate)->Arg(1'000)->Arg(1'000'000)->ArgName("jobs")->Unit(benchmark::kMillisecond);

void BM_Trace_Write(benchmark::State& state) {
  const int64_t jobs = state.range(0);
  absl::StatusOr<sim::Trace> t = sim::GenerateTrace(Options(jobs));
  if (!t.ok()) return Fail(state, std::string(t.status().message()));
  size_t size = 0;
  for (auto _ : state) {
    std::string text = sim::WriteTrace(*t);
    size = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetItemsProcessed(state.iterations() * jobs);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(size));
}
BENCHMARK(BM_Trace_Write)->Arg(1'000)->Arg(1'000'000)->ArgName("jobs")->Unit(benchmark::kMillisecond);

// Reads a written trace back; `named`: every job has an explicit name (checked for duplicates).
void BM_Trace_Read(benchmark::State& state, bool named) {
  const int64_t jobs = state.range(0);
  absl::StatusOr<sim::Trace> t = sim::GenerateTrace(Options(jobs));
  if (!t.ok()) return Fail(state, std::string(t.status().message()));
  if (named) NameEveryJob(*t);
  const std::string text = sim::WriteTrace(*t);
  int64_t bytes = 0;
  for (auto _ : state) {
    absl::StatusOr<sim::Trace> back = sim::ReadTraceString(text, "bench.csv");
    if (!back.ok()) return Fail(state, std::string(back.status().message()));
    if (static_cast<int64_t>(back->jobs.size()) != jobs) return Fail(state, "read the wrong number of jobs");
    bytes = TraceBytes(*back);
    benchmark::DoNotOptimize(back->jobs.data());
  }
  state.SetItemsProcessed(state.iterations() * jobs);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.counters["bytes/job"] = static_cast<double>(bytes) / static_cast<double>(jobs);
  state.counters["csv_bytes/job"] = static_cast<double>(text.size()) / static_cast<double>(jobs);
}
BENCHMARK_CAPTURE(BM_Trace_Read, unnamed, false)->Arg(1'000)->Arg(1'000'000)->ArgName("jobs")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Trace_Read, named, true)->Arg(1'000)->Arg(1'000'000)->ArgName("jobs")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace qm::bench
