// Forecast options as YAML/JSON text (qm/io/forecast_options.h): every key, and errors that name the
// line and key.
#include <catch2/catch.hpp>
#include <string>

#include "qm/io/forecast_options.h"
#include "support/builders.h"

namespace qm {
namespace forecast_options_test {
namespace {

using test::Workload;

Engine TwoWorkloads() {
  Engine e = test::OneQueueEngine(4000);
  REQUIRE(e.Submit(Workload("a", "x").Queue("q").Request("cpu", 1000)).ok());
  REQUIRE(e.Submit(Workload("a", "y").Queue("q").Request("cpu", 1000)).ok());
  return e;
}

std::string ErrorOf(const Engine& e, const std::string& text) {
  const absl::StatusOr<ForecastOptions> o = ReadForecastOptions(text, "options", e);
  return o.ok() ? "OK" : std::string(o.status().message());
}

TEST_CASE("Forecast options: every key, as YAML and as JSON", "[io][forecast]") {
  const Engine e = TwoWorkloads();
  for (const char* text : {
           "workloads: [a/x]\n"
           "defaultRuntime: [1h, 2h30m]\n"
           "queueRuntimes: {eng: 45m}\n"
           "workloadRuntimes: {a/y: [10m, 20m]}\n"
           "runs: 7\nseed: 9\nhorizon: 48h\n",
           R"({"workloads": ["a/x"], "defaultRuntime": ["1h", "2h30m"], "queueRuntimes": {"eng": "45m"},
               "workloadRuntimes": {"a/y": ["10m", "20m"]}, "runs": 7, "seed": 9, "horizon": "48h"})"}) {
    const absl::StatusOr<ForecastOptions> o = ReadForecastOptions(text, "options", e);
    REQUIRE(o.ok());
    CHECK(o->workloads == std::vector<WorkloadHandle>{e.FindWorkload("a", "x")});
    CHECK(o->default_runtime.samples == std::vector<Duration>{Duration::Seconds(3600), Duration::Seconds(9000)});
    REQUIRE(o->queue_runtimes.size() == 1);
    CHECK(o->queue_runtimes[0].cluster_queue == "eng");
    CHECK(o->queue_runtimes[0].runtime.samples == std::vector<Duration>{Duration::Seconds(2700)});
    REQUIRE(o->workload_runtimes.size() == 1);
    CHECK(o->workload_runtimes[0].workload == e.FindWorkload("a", "y"));
    CHECK(o->workload_runtimes[0].runtime.samples.size() == 2);
    CHECK(o->runs == 7);
    CHECK(o->seed == 9);
    CHECK(o->horizon == Duration::Seconds(48 * 3600));
  }
  const absl::StatusOr<ForecastOptions> empty = ReadForecastOptions("", "options", e);
  REQUIRE(empty.ok());
  CHECK(empty->runs == ForecastOptions{}.runs);
  CHECK(empty->default_runtime.empty());
}

TEST_CASE("Forecast options: arrivals, a Kueue Workload as the template", "[io][forecast]") {
  const Engine e = TwoWorkloads();
  const absl::StatusOr<ForecastOptions> o = ReadForecastOptions(
      "arrivals:\n"
      "- perHour: 0.5\n"
      "  runtime: [30m, 1h]\n"
      "  workload:\n"
      "    metadata: {name: urgent, namespace: a}\n"
      "    spec: {queueName: q, priority: 100, podSets: [{name: main, count: 2, requests: {cpu: \"1\"}}]}\n",
      "options", e);
  REQUIRE(o.ok());
  REQUIRE(o->arrivals.size() == 1);
  const ForecastArrivals& a = o->arrivals[0];
  CHECK(a.per_hour == 0.5);
  CHECK(a.runtime.samples.size() == 2);
  CHECK(a.workload.name == "urgent");
  CHECK(a.workload.namespace_ == "a");
  CHECK(a.workload.queue_name == "q");
  CHECK(a.workload.priority == 100);
  REQUIRE(a.workload.pod_sets.size() == 1);
  CHECK(a.workload.pod_sets[0].count == 2);
  CHECK(ErrorOf(e, "arrivals: [{perHour: 0, workload: {metadata: {name: u}, spec: {podSets: []}}}]\n") ==
        "options:1: arrivals[0].perHour: \"0\" is not a number more than 0");
  CHECK(ErrorOf(e, "arrivals: [{perHour: 1}]\n") == "options:1: arrivals[0].workload: is required");
}

TEST_CASE("Forecast options: errors name the line and the key", "[io][forecast]") {
  const Engine e = TwoWorkloads();
  CHECK(ErrorOf(e, "defaultRuntime: [1h, 2x]\n") ==
        "options:1: defaultRuntime[1]: \"2x\" is not a positive duration (Go syntax: 90m, 2h30m)");
  CHECK(ErrorOf(e, "defaultRuntime: 1h\nworkloads: [a/nope]\n") == "options:2: workloads[0]: no workload 'a/nope'");
  CHECK(ErrorOf(e, "runtime: 1h\n").find("options:1: runtime: unknown field") == 0);
  CHECK(ErrorOf(e, "runs: -1\n").find("options:1: runs:") == 0);
  CHECK(ErrorOf(e, "horizon: 0s\n") == "options:1: horizon: \"0s\" is not a positive duration");
  CHECK(ErrorOf(e, "defaultRuntime: [\n").find("options:") == 0);  // malformed YAML
  CHECK(ErrorOf(e, "[1, 2]\n") == "options:1: expected a map, got a list");
}

}  // namespace
}  // namespace forecast_options_test
}  // namespace qm
