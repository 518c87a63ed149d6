// The virtual-time driver of `qm perf`: reading Kueue's generator configuration and replaying it.
#include <catch2/catch.hpp>

#include <string>

#include "qm/sim/event_queue.h"
#include "qm/sim/perf_config.h"
#include "qm/sim/perf_replay.h"

namespace qm::sim {
namespace perf_replay_test {
namespace {

// Kueue's baseline generator.yaml shape, field for field.
constexpr const char* kBaselineShape = R"(
cohorts:
  - className: cohort
    count: 5
    queuesSets:
    - className: cq
      count: 6
      nominalQuota: 20
      borrowingLimit: 100
      reclaimWithinCohort: Any
      withinClusterQueue: LowerPriority
      workloadsSets:
      - count: 350
        creationIntervalMs: 100
        workloads:
        - className: small
          runtimeMs: 200
          priority: 50
          request: 1
      - count: 100
        creationIntervalMs: 500
        workloads:
        - className: medium
          runtimeMs: 500
          priority: 100
          request: 5
)";

const PerfWorkloadClassSummary& Class(const PerfSummary& s, const std::string& name) {
  for (const auto& c : s.workload_classes)
    if (c.name == name) return c;
  FAIL("no workload class " << name);
  return s.workload_classes.front();
}

TEST_CASE("ParsePerfConfig: reads Kueue's generator shape as is", "[sim][perf]") {
  // Setup: the baseline shape. Expect: 30 queues, 30 × 450 workloads, quantities in millicores.
  auto config = ParsePerfConfig(kBaselineShape);
  REQUIRE(config.ok());
  CHECK(config->ClusterQueueCount() == 30);
  CHECK(config->WorkloadCount() == 30 * 450);
  CHECK(config->resource_flavor == "rf");
  const PerfQueuesSet& q = config->cohorts[0].queues_sets[0];
  CHECK(q.nominal_quota_milli_cpu == 20'000);
  CHECK(q.borrowing_limit_milli_cpu == 100'000);
  CHECK(q.reclaim_within_cohort == ReclaimWithinCohortPolicy::kAny);
  CHECK(q.within_cluster_queue == WithinClusterQueuePolicy::kLowerPriority);
  CHECK(q.workloads_sets[1].workloads[0].request_milli_cpu == 5000);
  CHECK(q.workloads_sets[1].workloads[0].priority == 100);
}

TEST_CASE("ParsePerfConfig: errors name the field", "[sim][perf]") {
  SECTION("unknown field") {
    auto config = ParsePerfConfig("cohorts:\n- className: c\n  count: 1\n  queueSets: []\n");
    REQUIRE_FALSE(config.ok());
    CHECK(std::string(config.status().message()) == "<input>: cohorts[0].queueSets: unknown field");
  }
  SECTION("topology-aware configurations are rejected") {
    auto config = ParsePerfConfig("topology: {name: t}\ncohorts: []\n");
    REQUIRE_FALSE(config.ok());
    CHECK_THAT(std::string(config.status().message()), Catch::Contains("topology: is not supported"));
  }
  SECTION("negative count") {
    auto config = ParsePerfConfig("cohorts:\n- className: c\n  count: -1\n");
    REQUIRE_FALSE(config.ok());
    CHECK(std::string(config.status().message()) == "<input>: cohorts[0].count: must be >= 0");
  }
  SECTION("underscore digit separators are integers") {
    auto config = ParsePerfConfig("cohorts:\n- className: c\n  count: 1_000\n");
    REQUIRE(config.ok());
    CHECK(config->cohorts[0].count == 1000);
  }
}

TEST_CASE("ReplayPerf: arrivals, admissions and finishes in virtual time", "[sim][perf]") {
  // Setup: one queue of 2 cpu, no borrowing; 4 workloads of 1 cpu created at 10, 20, 30, 40 ms,
  // each running 25 ms. Expect: admitted at 10, 20, 35 (first finish), 45 (second finish);
  // finishes at 35, 45, 60, 70; usage Σ = 100 cpu·ms out of 2 cpu × 70 ms.
  auto config = ParsePerfConfig(R"(
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 2
    borrowingLimit: 0
    workloadsSets:
    - count: 4
      creationIntervalMs: 10
      workloads:
      - {className: w, runtimeMs: 25, priority: 1, request: 1}
)");
  REQUIRE(config.ok());
  auto s = ReplayPerf(*config);
  REQUIRE(s.ok());
  CHECK(s->workloads == 4);
  CHECK(s->cluster_queues == 1);
  CHECK(s->virtual_wall_ms == 70);
  CHECK(s->admissions == 4);
  CHECK(s->preemptions == 0);
  const auto& w = Class(*s, "w");
  CHECK(w.total_time_to_admission_ms == 10);
  CHECK(w.avg_time_to_admission_ms == Approx(2.5));
  CHECK(w.total_time_to_finish_ms == 25 + 25 + 30 + 30);
  REQUIRE(s->queue_classes.size() == 1);
  CHECK(s->queue_classes[0].used_milli_cpu_ms == 100'000);
  CHECK(s->avg_cq_usage_percent == Approx(100.0 * 100'000 / (2000.0 * 70)));
}

TEST_CASE("ReplayPerf: a preempted workload restarts and counts its last admission", "[sim][perf]") {
  // Setup: one queue of 1 cpu with withinClusterQueue LowerPriority; `low` (priority 1) created at
  // 10 ms runs 100 ms; `high` (priority 10) created at 20 ms runs 10 ms.
  // Expect: high preempts low at 20 and finishes at 30; low is readmitted at 30 and finishes at 130.
  auto config = ParsePerfConfig(R"(
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 1
    withinClusterQueue: LowerPriority
    workloadsSets:
    - count: 1
      creationIntervalMs: 10
      workloads:
      - {className: low, runtimeMs: 100, priority: 1, request: 1}
    - count: 1
      creationIntervalMs: 20
      workloads:
      - {className: high, runtimeMs: 10, priority: 10, request: 1}
)");
  REQUIRE(config.ok());
  auto s = ReplayPerf(*config);
  REQUIRE(s.ok());
  CHECK(s->preemptions == 1);
  CHECK(s->admissions == 3);
  CHECK(s->virtual_wall_ms == 130);
  CHECK(Class(*s, "low").evictions == 1);
  CHECK(Class(*s, "low").total_time_to_admission_ms == 20);
  CHECK(Class(*s, "high").total_time_to_admission_ms == 0);
}

TEST_CASE("ReplayPerf: the virtual figures are the same on every run", "[sim][perf]") {
  // Setup: a 2-cohort slice of the baseline shape, replayed twice. Expect: identical virtual figures.
  auto config = ParsePerfConfig(kBaselineShape);
  REQUIRE(config.ok());
  config->cohorts[0].count = 2;
  for (auto& ws : config->cohorts[0].queues_sets[0].workloads_sets) ws.count /= 10;
  auto a = ReplayPerf(*config);
  auto b = ReplayPerf(*config);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->virtual_wall_ms == b->virtual_wall_ms);
  CHECK(a->admissions == b->admissions);
  CHECK(a->preemptions == b->preemptions);
  CHECK(a->cycles == b->cycles);
  CHECK(a->queue_classes[0].used_milli_cpu_ms == b->queue_classes[0].used_milli_cpu_ms);
  REQUIRE(a->workload_classes.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(a->workload_classes[i].total_time_to_admission_ms == b->workload_classes[i].total_time_to_admission_ms);
    CHECK(a->workload_classes[i].admitted == a->workload_classes[i].count);
  }
  const std::string json = FormatPerfSummaryJson(*a);
  for (const char* key : {"\"workloads\":", "\"cluster_queues\":", "\"virtual_wall_ms\":", "\"real_ms\":",
                          "\"avg_cq_usage_percent\":", "\"avg_time_to_admission_ms\":{\"medium\":",
                          "\"admissions_per_cpu_second\":", "\"cycle_p50_us\":", "\"cycle_p99_us\":",
                          "\"peak_rss_bytes\":", "\"engine_ms\":", "\"outside_engine_ms\":", "\"setup_engine_ms\":"})
    CHECK_THAT(json, Catch::Contains(key));
  // Time inside the engine includes the cycles and, with the driver's own time, makes up the replay.
  CHECK(a->engine_ms >= a->schedule_ms);
  CHECK(a->engine_ms > 0);
  CHECK(a->outside_engine_ms >= 0);
  CHECK(a->engine_ms + a->outside_engine_ms >= a->real_ms * 0.999);
  CHECK(a->setup_engine_ms <= a->setup_ms);
}

TEST_CASE("EventQueue: same-time events fire in insertion order", "[sim]") {
  // Setup: events at 5, 1, 5, 1. Expect: (1,a) (1,b) (5,c) (5,d) by (time, seq).
  EventQueue<char> q;
  q.Push(Time{5}, 'c');
  q.Push(Time{1}, 'a');
  q.Push(Time{5}, 'd');
  q.Push(Time{1}, 'b');
  std::string order;
  while (!q.empty()) order += q.Pop().payload;
  CHECK(order == "abcd");
}

}  // namespace
}  // namespace perf_replay_test
}  // namespace qm::sim
