// Engine::Forecast (qm/adapter/forecast.h) on small hand-computed cases: admission times and what
// they wait for, positions, estimates (own, queue, default; remaining vs whole), bounds from
// distributions, arrivals, determinism, the live engine left untouched, and option errors.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "qm/adapter/forecast.h"
#include "support/builders.h"

namespace qm {
namespace forecast_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;
constexpr Duration kHour = Duration::Seconds(3600);
constexpr Duration kMinute = Duration::Seconds(60);
const Time kT0 = Time::FromUnixSeconds(1'700'000'000);

constexpr Duration Hours(int64_t n) { return Duration::Seconds(n * 3600); }
constexpr Duration Minutes(int64_t n) { return Duration::Seconds(n * 60); }

WorkloadHandle Handle(const Engine& e, const std::string& name) { return e.FindWorkload("a", name); }

// One 4-cpu queue `eng`. At kT0 − 1h `run` (4 cpu) was admitted; at kT0 three workloads wait:
// `b` (4 cpu, created kT0 − 2h), `c` (2 cpu, kT0 − 1h), `d` (2 cpu, kT0 − 30m).
Engine BusyQueue() {
  Engine e = test::OneQueueEngine(4 * kCpu);
  REQUIRE(e.SetNow(kT0 - kHour).ok());
  REQUIRE(e.Submit(Workload("a", "run").Queue("q").Request("cpu", 4 * kCpu).Created(kT0 - kHour)).ok());
  REQUIRE(e.RunUntilSettled().settled);
  REQUIRE(e.SetNow(kT0).ok());
  REQUIRE(e.Submit(Workload("a", "b").Queue("q").Request("cpu", 4 * kCpu).Created(kT0 - Hours(2))).ok());
  REQUIRE(e.Submit(Workload("a", "c").Queue("q").Request("cpu", 2 * kCpu).Created(kT0 - kHour)).ok());
  REQUIRE(e.Submit(Workload("a", "d").Queue("q").Request("cpu", 2 * kCpu).Created(kT0 - Minutes(30))).ok());
  REQUIRE(e.RunUntilSettled().settled);  // nothing fits: all three wait
  return e;
}

// `run` has 2 h left; b runs 1 h, c 3 h, d 30 min.
ForecastOptions BusyQueueOptions(const Engine& e) {
  ForecastOptions o;
  o.workload_runtimes = {{Handle(e, "run"), RuntimeEstimate::Exact(Hours(2))},
                         {Handle(e, "b"), RuntimeEstimate::Exact(kHour)},
                         {Handle(e, "c"), RuntimeEstimate::Exact(Hours(3))},
                         {Handle(e, "d"), RuntimeEstimate::Exact(Minutes(30))}};
  return o;
}

const WorkloadForecast& Row(const ForecastReport& r, const std::string& name) {
  for (const WorkloadForecast& f : r.workloads)
    if (f.name == name) return f;
  FAIL("no forecast row for " << name);
  return r.workloads.front();
}

TEST_CASE("Forecast: exact runtimes give exact admission times, positions and what each waits for",
          "[adapter][forecast]") {
  const Engine e = BusyQueue();
  const absl::StatusOr<ForecastReport> r = e.Forecast(BusyQueueOptions(e));
  REQUIRE(r.ok());
  CHECK(r->now == kT0);
  CHECK(r->runs == 1);  // nothing uncertain: one run
  REQUIRE(r->workloads.size() == 3);
  // `run` ends at +2h: b (the head) takes the whole queue; b ends at +3h: c and d fit together.
  const WorkloadForecast& b = Row(*r, "b");
  CHECK(b.admission == kT0 + Hours(2));
  CHECK(b.p10 == b.admission);
  CHECK(b.p90 == b.admission);
  CHECK(b.admitted_fraction == 1.0);
  CHECK(b.cluster_queue == "eng");
  CHECK(b.position_in_cluster_queue == 1);
  CHECK(b.position_in_cohort == 1);
  REQUIRE(b.waits_for.size() == 1);
  CHECK(b.waits_for[0].name == "a/run");
  CHECK(b.waits_for[0].kind == ForecastBlocker::Kind::kFinishes);
  CHECK(b.waits_for[0].at == kT0 + Hours(2));
  CHECK(b.waits_for[0].workload == Handle(e, "run"));
  const WorkloadForecast& c = Row(*r, "c");
  const WorkloadForecast& d = Row(*r, "d");
  CHECK(c.admission == kT0 + Hours(3));
  CHECK(d.admission == kT0 + Hours(3));
  CHECK(c.position_in_cluster_queue == 2);
  CHECK(d.position_in_cluster_queue == 3);
  CHECK(c.position_in_cohort == 2);
  CHECK(d.position_in_cohort == 3);
  REQUIRE(c.waits_for.size() == 1);
  CHECK(c.waits_for[0].name == "a/b");
}

TEST_CASE("Forecast: the live engine is untouched", "[adapter][forecast]") {
  Engine e = BusyQueue();
  const std::string before = *e.Save();
  REQUIRE(e.Forecast(BusyQueueOptions(e)).ok());
  CHECK(*e.Save() == before);
  // And the next real cycle decides as if no forecast had run.
  CHECK(e.ScheduleCycle().admitted == 0);
}

TEST_CASE("Forecast: a ClusterQueue's estimate is a whole runtime, less the time already run",
          "[adapter][forecast]") {
  const Engine e = BusyQueue();
  ForecastOptions o;
  // `run` has run 1 h of 3 h: 2 h left, as in the exact case; the waiting ones run 1 h each.
  o.queue_runtimes = {{"eng", RuntimeEstimate::Exact(Hours(3))}};
  o.workload_runtimes = {{Handle(e, "b"), RuntimeEstimate::Exact(kHour)}};
  const absl::StatusOr<ForecastReport> r = e.Forecast(o);
  REQUIRE(r.ok());
  CHECK(Row(*r, "b").admission == kT0 + Hours(2));
  CHECK(Row(*r, "c").admission == kT0 + Hours(3));
  SECTION("an estimate already spent ends now") {
    o.queue_runtimes = {{"eng", RuntimeEstimate::Exact(Minutes(30))}};
    const absl::StatusOr<ForecastReport> spent = e.Forecast(o);
    REQUIRE(spent.ok());
    CHECK(Row(*spent, "b").admission == kT0);
    CHECK(Row(*spent, "c").admission == kT0 + kHour);
  }
  SECTION("the default covers what nothing else does") {
    ForecastOptions d;
    d.default_runtime = RuntimeEstimate::Exact(Hours(3));
    const absl::StatusOr<ForecastReport> r2 = e.Forecast(d);
    REQUIRE(r2.ok());
    CHECK(Row(*r2, "b").admission == kT0 + Hours(2));
    CHECK(Row(*r2, "c").admission == kT0 + Hours(5));  // b runs 3 h
  }
}

TEST_CASE("Forecast: a distribution gives the median as the point and quantiles as bounds", "[adapter][forecast]") {
  const Engine e = BusyQueue();
  ForecastOptions o = BusyQueueOptions(e);
  o.workload_runtimes[0].runtime.samples = {kHour, Hours(2), Hours(3)};  // `run` has 1, 2 or 3 h left
  o.runs = 300;
  const absl::StatusOr<ForecastReport> r = e.Forecast(o);
  REQUIRE(r.ok());
  CHECK(r->runs == 301);
  const WorkloadForecast& b = Row(*r, "b");
  CHECK(b.admission == kT0 + Hours(2));  // the median
  CHECK(b.p10 == kT0 + kHour);
  CHECK(b.p50 == kT0 + Hours(2));
  CHECK(b.p90 == kT0 + Hours(3));
  CHECK(b.admitted_fraction == 1.0);
  SECTION("the same seed gives the same answer; the runs are what the seed draws") {
    const absl::StatusOr<ForecastReport> again = e.Forecast(o);
    REQUIRE(again.ok());
    CHECK(again->cycles == r->cycles);
    o.runs = 3;
    int differ = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      o.seed = seed;
      const absl::StatusOr<ForecastReport> small = e.Forecast(o);
      REQUIRE(small.ok());
      differ += Row(*small, "b").p10 != Row(*small, "b").p90 ? 1 : 0;
    }
    CHECK(differ > 0);
  }
}

TEST_CASE("Forecast: higher-priority arrivals can keep a workload out past the horizon", "[adapter][forecast]") {
  const Engine e = BusyQueue();
  ForecastOptions o = BusyQueueOptions(e);
  ForecastArrivals urgent;
  urgent.workload = Workload("a", "urgent").Queue("q").Request("cpu", 4 * kCpu).Priority(100).spec();
  urgent.per_hour = 1;  // the point run: one at +1h, +2h, ...
  urgent.runtime = RuntimeEstimate::Exact(kHour);
  o.arrivals = {urgent};
  o.horizon = Hours(10);
  o.runs = 20;
  const absl::StatusOr<ForecastReport> r = e.Forecast(o);
  REQUIRE(r.ok());
  CHECK(r->runs == 21);  // arrivals are uncertain
  // From +2h on, an urgent job is always waiting when the queue frees: b never gets in.
  CHECK_FALSE(Row(*r, "b").admission.has_value());
  CHECK(Row(*r, "b").position_in_cohort == 1);  // first of the ones the forecast does not admit
  CHECK(Row(*r, "b").admitted_fraction < 1.0);
  SECTION("a bad arrival is an error naming it") {
    o.arrivals[0].per_hour = 0;
    CHECK(e.Forecast(o).status().message() == "ForecastOptions.arrivals[0].per_hour: must be a number more than 0");
    o.arrivals[0].per_hour = 1;
    o.arrivals[0].workload.queue_name = "missing";
    CHECK(e.Forecast(o).status().message() ==
          "ForecastOptions.arrivals[0].workload.queue_name: no LocalQueue 'missing' in namespace 'a'");
  }
}

TEST_CASE("Forecast: a reclaiming workload waits for the borrower it preempts", "[adapter][forecast]") {
  Engine e;
  const std::vector<ObjectSpec> objects = {test::Namespace("a"), test::Flavor("default"), test::Cohort("all"),
                   ClusterQueue("lender").Cohort("all").Flavor("default", {Q("cpu", 4 * kCpu)})
                       .ReclaimWithinCohort(ReclaimWithinCohortPolicy::kAny),
                   ClusterQueue("borrower").Cohort("all").Flavor("default", {Q("cpu", 0)}),
                   test::LocalQueue("a", "lend", "lender"), test::LocalQueue("a", "borrow", "borrower")};
  REQUIRE(e.Apply(objects).ok());
  REQUIRE(e.SetNow(kT0).ok());
  REQUIRE(e.Submit(Workload("a", "guest").Queue("borrow").Request("cpu", 4 * kCpu)).ok());
  REQUIRE(e.RunUntilSettled().admitted == 1);
  REQUIRE(e.SetNow(kT0 + kMinute).ok());
  REQUIRE(e.Submit(Workload("a", "owner").Queue("lend").Request("cpu", 4 * kCpu)).ok());
  ForecastOptions o;
  o.default_runtime = RuntimeEstimate::Exact(Hours(10));
  o.workloads = {Handle(e, "owner"), Handle(e, "guest")};
  const absl::StatusOr<ForecastReport> r = e.Forecast(o);
  REQUIRE(r.ok());
  REQUIRE(r->workloads.size() == 2);
  const WorkloadForecast& owner = r->workloads[0];
  CHECK(owner.admission == kT0 + kMinute);  // at once, by preempting the guest
  REQUIRE(owner.waits_for.size() == 1);
  CHECK(owner.waits_for[0].name == "a/guest");
  CHECK(owner.waits_for[0].kind == ForecastBlocker::Kind::kPreempted);
  // A workload that holds quota is reported as admitted when it reserved it.
  const WorkloadForecast& guest = r->workloads[1];
  CHECK(guest.admission == kT0);
  CHECK(guest.position_in_cluster_queue == 0);
}

TEST_CASE("Forecast: option errors name the field and change nothing", "[adapter][forecast]") {
  Engine e = BusyQueue();
  const std::string before = *e.Save();
  auto message = [&](const ForecastOptions& o) { return std::string(e.Forecast(o).status().message()); };
  ForecastOptions o;
  CHECK(message(o) ==
        "ForecastOptions: workload 'a/b' (ClusterQueue 'eng') has no runtime estimate: give its own, its "
        "ClusterQueue's or default_runtime");
  o.default_runtime.samples = {kHour, Duration{}};
  CHECK(message(o) == "ForecastOptions.default_runtime.samples[1]: must be more than 0");
  o.default_runtime = RuntimeEstimate::Exact(kHour);
  o.queue_runtimes = {{"nope", RuntimeEstimate::Exact(kHour)}};
  CHECK(message(o) == "ForecastOptions.queue_runtimes[0].cluster_queue: no ClusterQueue named 'nope'");
  o.queue_runtimes.clear();
  o.workloads = {Handle(e, "b"), Handle(e, "b")};
  CHECK(message(o) == "ForecastOptions.workloads[1]: listed twice");
  o.workloads = {WorkloadHandle{999, 1}};
  CHECK(e.Forecast(o).status().code() == absl::StatusCode::kNotFound);
  o.workloads.clear();
  o.runs = -1;
  CHECK(message(o) == "ForecastOptions.runs: must be >= 0");
  o.runs = 1;
  o.horizon = Duration{};
  CHECK(message(o) == "ForecastOptions.horizon: must be more than 0");
  CHECK(*e.Save() == before);
}

TEST_CASE("Forecast: with waitForPodsReady on, admitted workloads report ready and are not timed out",
          "[adapter][forecast]") {
  EngineConfig config;
  config.wait_for_pods_ready.enabled = true;
  config.wait_for_pods_ready.timeout = Minutes(5);
  Engine e = *Engine::Create(config);
  const std::vector<ObjectSpec> objects = {test::Namespace("a"), test::Flavor("default"),
                                           ClusterQueue("eng").Flavor("default", {Q("cpu", 4 * kCpu)}),
                                           test::LocalQueue("a", "q", "eng")};
  REQUIRE(e.Apply(objects).ok());
  REQUIRE(e.SetNow(kT0).ok());
  for (const char* name : {"x", "y", "z"})
    REQUIRE(e.Submit(Workload("a", name).Queue("q").Request("cpu", 4 * kCpu)).ok());
  ForecastOptions o;
  o.default_runtime = RuntimeEstimate::Exact(kHour);
  const absl::StatusOr<ForecastReport> r = e.Forecast(o);
  REQUIRE(r.ok());
  // One at a time, an hour each: never evicted by a pods-ready timeout after 5 minutes.
  CHECK(Row(*r, "x").admission == kT0);
  CHECK(Row(*r, "y").admission == kT0 + kHour);
  CHECK(Row(*r, "z").admission == kT0 + Hours(2));
}

TEST_CASE("Forecast: the bounds use every run, and a run that does not admit counts as later", "[adapter][forecast]") {
  const Engine e = BusyQueue();
  ForecastOptions o = BusyQueueOptions(e);
  // `run` has 1 h left, or (rarely) more than the horizon.
  o.workload_runtimes[0].runtime.samples = {kHour, kHour, kHour, kHour, Hours(1000)};
  o.horizon = Hours(50);
  o.runs = 400;
  const absl::StatusOr<ForecastReport> r = e.Forecast(o);
  REQUIRE(r.ok());
  const WorkloadForecast& b = Row(*r, "b");
  CHECK(b.admission == kT0 + kHour);
  CHECK(b.p50 == kT0 + kHour);
  CHECK_FALSE(b.p90.has_value());  // about a fifth of the runs never free the queue
  CHECK(b.admitted_fraction > 0.7);
  CHECK(b.admitted_fraction < 0.9);
}

}  // namespace
}  // namespace forecast_test
}  // namespace qm
