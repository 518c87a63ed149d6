// Shared helpers of the benchmark suites: synthetic worlds built through the public Engine API,
// memory probes, and failure tracking so a benchmark that computes a wrong result fails the
// process (the smoke tests rely on it; google/benchmark's SkipWithError alone exits 0).
#ifndef QM_BENCH_BENCH_UTIL_H_
#define QM_BENCH_BENCH_UTIL_H_

#include <malloc.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "fmt/format.h"
#include "qm/adapter/engine.h"

namespace qm::bench {

/// CPU time of the calling thread, in ns: on a shared machine, wall time would count other
/// processes' turns.
inline int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// Minor page faults of this thread so far (first touches of fresh memory: issue 27's page zeroing).
inline int64_t ThreadMinorFaults() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return static_cast<int64_t>(ru.ru_minflt);
}

/// Set when a benchmark reported a wrong result; `main` (bench_main.cc) returns 1 then.
inline bool& Failed() {
  static bool failed = false;
  return failed;
}

/// Marks the benchmark as failed with `message` (use for correctness checks, never for timing).
inline void Fail(benchmark::State& state, const std::string& message) {
  Failed() = true;
  state.SkipWithError(message.c_str());
}

/// Bytes currently allocated through malloc (in use, not cached by the allocator).
/// Whether the 10⁷ sizes were asked for (environment QM_BENCH_10M=1): they take gigabytes, so
/// they are registered on demand only.
inline bool HugeSizesRequested() {
  const char* v = std::getenv("QM_BENCH_10M");
  return v != nullptr && std::string(v) == "1";
}

inline int64_t HeapInUseBytes() {
  const struct mallinfo2 mi = mallinfo2();
  return static_cast<int64_t>(mi.uordblks + mi.hblkhd);
}

/// The shape of a synthetic world: `queues` ClusterQueues in cohorts of `cohort_size`, each with one
/// resource group of `resources` resources over `flavors` flavors.
struct WorldShape {
  int64_t queues = 1;
  int64_t cohort_size = 10;
  int flavors = 1;
  int resources = 3;
  /// Nominal quota of every (flavor, resource) of a queue, in request units (see `Request`).
  int64_t nominal_units = 1;
  std::optional<int64_t> borrowing_limit_units;
  ReclaimWithinCohortPolicy reclaim = ReclaimWithinCohortPolicy::kNever;
  WithinClusterQueuePolicy within = WithinClusterQueuePolicy::kNever;
};

/// `queues` ClusterQueues in cohorts of 10, one flavor of three resources, `per_queue` units each,
/// no borrowing (a queue's freed unit is its own), and an engine with fair sharing on: the world of
/// the backlog and forecast benchmarks. Fails `state` (and returns nullopt) when it cannot be built.
/// `historical`: with the historical fair share on (docs/semantics.md §11.8, half-life 24 h).
inline std::optional<Engine> FairSharingWorld(benchmark::State& state, int64_t queues, int64_t per_queue,
                                              WorldShape* shape, bool historical = false);

/// Resource `r` of a synthetic world: cpu, memory, pods, then example.com/r<k>.
inline std::string ResourceName(int r) {
  switch (r) {
    case 0: return "cpu";
    case 1: return "memory";
    case 2: return "pods";
    default: return fmt::format("example.com/r{}", r);
  }
}
/// One request unit of resource `r`: 1 cpu, 1 GiB, 1 pod, 1 count.
inline int64_t UnitAmount(int r) {
  switch (r) {
    case 0: return 1000;
    case 1: return int64_t{1} << 30;
    default: return 1;
  }
}
inline std::string QueueName(int64_t q) { return fmt::format("cq-{:05d}", q); }
inline std::string FlavorName(int f) { return fmt::format("flavor-{}", f); }

/// Flavors, cohorts' queues, namespaces and LocalQueues (namespace and LocalQueue named as the queue).
inline absl::Status BuildWorld(Engine& engine, const WorldShape& shape) {
  std::vector<ObjectSpec> objects;
  for (int f = 0; f < shape.flavors; ++f) objects.emplace_back(ResourceFlavorSpec{FlavorName(f), {}, {}, {}});
  for (int64_t q = 0; q < shape.queues; ++q) {
    ClusterQueueSpec cq;
    cq.name = QueueName(q);
    cq.cohort = fmt::format("cohort-{:05d}", q / shape.cohort_size);
    cq.namespace_selector = LabelSelector{};
    cq.preemption.reclaim_within_cohort = shape.reclaim;
    cq.preemption.within_cluster_queue = shape.within;
    ResourceGroupSpec group;
    for (int r = 0; r < shape.resources; ++r) group.covered_resources.push_back(ResourceName(r));
    for (int f = 0; f < shape.flavors; ++f) {
      FlavorQuotasSpec fq{FlavorName(f), {}};
      for (int r = 0; r < shape.resources; ++r) {
        std::optional<int64_t> borrow;
        if (shape.borrowing_limit_units) borrow = *shape.borrowing_limit_units * UnitAmount(r);
        fq.resources.push_back(ResourceQuotaSpec{ResourceName(r), shape.nominal_units * UnitAmount(r), borrow, {}});
      }
      group.flavors.push_back(std::move(fq));
    }
    cq.resource_groups.push_back(std::move(group));
    objects.emplace_back(std::move(cq));
    objects.emplace_back(NamespaceSpec{QueueName(q), {}});
    LocalQueueSpec lq;
    lq.namespace_ = QueueName(q);
    lq.name = QueueName(q);
    lq.cluster_queue = QueueName(q);
    objects.emplace_back(std::move(lq));
  }
  return engine.Apply(objects);
}

/// A one-pod workload in queue `q` asking one unit of each of the world's resources.
inline WorkloadSpec MakeWorkload(const WorldShape& shape, int64_t q, std::string name, int32_t priority,
                                 Time created, int64_t units = 1) {
  WorkloadSpec spec;
  spec.namespace_ = QueueName(q);
  spec.name = std::move(name);
  spec.uid = spec.name;
  spec.queue_name = QueueName(q);
  spec.priority = priority;
  spec.creation_time = created;
  PodSetSpec ps;
  for (int r = 0; r < shape.resources; ++r) ps.requests.emplace_back(ResourceName(r), units * UnitAmount(r));
  std::sort(ps.requests.begin(), ps.requests.end());
  spec.pod_sets.push_back(std::move(ps));
  return spec;
}

/// Marks `spec` as already admitted in its queue on flavor `f` (loaded as holding quota).
inline void AdmitOn(WorkloadSpec& spec, int f, Time reserved) {
  AdmissionSpec a;
  a.cluster_queue = spec.queue_name;
  PodSetAssignmentSpec psa;
  psa.name = spec.pod_sets[0].name;
  for (const auto& [r, v] : spec.pod_sets[0].requests) psa.flavors.emplace_back(r, FlavorName(f));
  a.pod_set_assignments.push_back(std::move(psa));
  spec.admission = std::move(a);
  spec.conditions.push_back(ConditionSpec{"QuotaReserved", true, "QuotaReserved", "", reserved});
  spec.conditions.push_back(ConditionSpec{"Admitted", true, "Admitted", "", reserved});
}

/// Runs cycles until one considers no workload; returns the admissions and adds the cycles run.
inline int64_t Drain(Engine& engine, int64_t* cycles, int64_t max_cycles = int64_t{1} << 40) {
  int64_t admitted = 0;
  for (int64_t n = 0; n < max_cycles; ++n) {
    const CycleResult& r = engine.ScheduleCycle();
    ++*cycles;
    admitted += r.admitted;
    if (r.decisions.empty()) break;
  }
  return admitted;
}

inline std::optional<Engine> FairSharingWorld(benchmark::State& state, int64_t queues, int64_t per_queue,
                                              WorldShape* shape, bool historical) {
  shape->queues = queues;
  shape->cohort_size = 10;
  shape->flavors = 1;
  shape->resources = 3;
  shape->nominal_units = per_queue;
  shape->borrowing_limit_units = 0;
  EngineConfig config;
  config.fair_sharing.enabled = true;
  config.fair_sharing.historical.enabled = historical;
  absl::StatusOr<Engine> made = Engine::Create(config);
  if (!made.ok()) {
    Fail(state, std::string(made.status().message()));
    return std::nullopt;
  }
  if (absl::Status st = BuildWorld(*made, *shape); !st.ok()) {
    Fail(state, std::string(st.message()));
    return std::nullopt;
  }
  return std::move(*made);
}

}  // namespace qm::bench

#endif  // QM_BENCH_BENCH_UTIL_H_
