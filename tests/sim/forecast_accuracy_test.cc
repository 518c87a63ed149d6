// The simulator's forecast accuracy (SimulationOptions::forecast_every, docs/forecast.md §Accuracy):
// sampling changes no decision, a forecast no later arrival overtakes is exact, and one that a later
// arrival overtakes is counted as such with its error.
#include <string>

#include "catch2/catch.hpp"
#include "qm/sim/sim_result.h"
#include "qm/sim/simulator.h"
#include "qm/sim/trace.h"
#include "sim/sim_test_support.h"

namespace qm::sim {
namespace forecast_accuracy_test {
namespace {

using test::Cluster;
using test::Jobs;
using test::Run;

// test::kOneGpuQueue, and a priority class `high`.
const std::string kOneQueue = std::string(test::kOneGpuQueue) + R"(---
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
)";

SimulationOptions Every(int64_t seconds) {
  SimulationOptions o;
  o.forecast_every = Duration::Seconds(seconds);
  return o;
}

TEST_CASE("forecast accuracy: without later arrivals every forecast is exact", "[sim][forecast]") {
  // Three 4-GPU jobs at 0 (1 h, 2 h, 30 min): the second starts at 1 h, the third at 3 h.
  const Trace jobs = Jobs("submit,namespace,pod_sets,duration\n"
                          "0,team-a,1x{nvidia.com/gpu=4},1h\n"
                          "0,team-a,1x{nvidia.com/gpu=4},2h\n"
                          "0,team-a,1x{nvidia.com/gpu=4},30m\n");
  const SimulationResult r = Run(Cluster(kOneQueue), jobs, {}, Every(1800));
  REQUIRE(r.forecast_accuracy.has_value());
  const ForecastAccuracy& a = *r.forecast_accuracy;
  // Samples are taken at the first instant at or after each multiple of 30m: 0 (two pending), 1h
  // (one), 3h (none pending) and 3h30m (none).
  CHECK(a.samples == 4);
  CHECK(a.forecasts == 3);
  CHECK(a.compared == 3);
  CHECK(a.missed == 0);
  CHECK(a.unexpected == 0);
  CHECK(a.all.median_abs_error_s == 0);
  CHECK(a.all.p90_abs_error_s == 0);
  CHECK(a.all.within_10_percent == 1.0);
  REQUIRE(a.by_arrivals.size() == 2);
  CHECK(a.by_arrivals[0].compared == 3);  // not overtaken
  CHECK(a.by_arrivals[1].compared == 0);
  // Sampling decides nothing: the run is the same with and without it.
  const SimulationResult plain = Run(Cluster(kOneQueue), jobs);
  CHECK_FALSE(plain.forecast_accuracy.has_value());
  SimulationResult sampled = r;
  sampled.forecast_accuracy.reset();
  CHECK(FormatSimulationJson(sampled) == FormatSimulationJson(plain));
}

TEST_CASE("forecast accuracy: a later high-priority arrival that overtakes is counted with its error",
          "[sim][forecast]") {
  // At 0 `low` (the second job) waits for `first` (1 h). At 30m a high-priority job arrives and takes the queue at
  // 1 h for 2 h: `low` forecast at 0 for 1 h, admitted at 3 h; error 2 h on a 3 h wait.
  const Trace jobs = Jobs("submit,namespace,priority_class,pod_sets,duration\n"
                          "0,team-a,,1x{nvidia.com/gpu=4},1h\n"
                          "0,team-a,,1x{nvidia.com/gpu=4},1h\n"
                          "30m,team-a,high,1x{nvidia.com/gpu=4},2h\n");
  const SimulationResult r = Run(Cluster(kOneQueue), jobs, {}, Every(3600));
  REQUIRE(r.forecast_accuracy.has_value());
  const ForecastAccuracy& a = *r.forecast_accuracy;
  // Samples at the instants 0 (`low` pending: forecast 1h, actual 3h) and 1h (`low` pending, the
  // high-priority job running to 3h: exact); at 3h nothing is pending.
  CHECK(a.forecasts == 2);
  REQUIRE(a.by_arrivals.size() == 2);
  CHECK(a.by_arrivals[1].compared == 1);
  CHECK(a.by_arrivals[1].median_abs_error_s == 7200);
  CHECK(a.by_arrivals[1].median_wait_s == 3 * 3600);
  CHECK(a.by_arrivals[0].compared == 1);
  CHECK(a.by_arrivals[0].median_abs_error_s == 0);
  CHECK(a.by_arrivals[0].median_wait_s == 2 * 3600);
}

}  // namespace
}  // namespace forecast_accuracy_test
}  // namespace qm::sim
