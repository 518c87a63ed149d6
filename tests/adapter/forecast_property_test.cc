// Property: a forecast made with exact inputs equals what happens.
//
// For each seed, the generator of support/random_cluster.h draws an overloaded cluster (one or two
// cohort levels, borrowing and lending limits, the three preemption policies, fair sharing on half
// the seeds; on even seeds the anti-thrash back-offs, whose timers the forecast must follow) and
// its arrivals. The arrivals after an instant T (the submission of the middle one)
// are dropped, so nothing arrives after T. The independent host of support/thrash_host.h drives the
// engine with preempted pods stopping at once, twice: up to T, saving the engine; and to the end.
// A forecast is then made on the engine restored at T, with every workload's exact runtime (what
// remains for one that runs) and no arrivals. Every workload waiting at T must be forecast to be
// admitted exactly when the whole run first admits it after T, or not at all when it never is.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "qm/adapter/forecast.h"
#include "support/random_cluster.h"
#include "support/slow_build.h"
#include "support/thrash_host.h"

namespace qm {
namespace forecast_property_test {
namespace {

using test::Arrival;
using test::HostRun;
using test::HostScenario;

constexpr Duration kHorizon = Duration::Seconds(300 * 3600);

struct SeedResult {
  bool compared = false;  // false: the host could not run the seed to its end (a livelock)
  int64_t waiting = 0;    // workloads waiting at T
  int64_t admitted = 0;   // of them, admitted before the horizon
  std::vector<std::string> mismatches;
};

SeedResult CheckSeed(uint64_t seed) {
  SeedResult out;
  const test::ClusterDesc cluster = test::Generate(seed);
  HostScenario sc = test::BuildScenario(cluster);
  sc.stop_delay = Duration{};
  // Kueue's rules can loop without end at one instant; such a run is cut and the seed skipped.
  sc.max_preemptions_per_workload = 25;
  if (seed % 2 == 0) test::UseBackoffs(sc.config.anti_thrash);  // timers the forecast must follow too
  const Duration t = sc.arrivals[sc.arrivals.size() / 2].submit;
  std::erase_if(sc.arrivals, [&](const Arrival& a) { return a.submit > t; });

  HostScenario until_t = sc;
  until_t.horizon = t;
  until_t.save_at_end = true;
  const HostRun before = test::RunHost(until_t);
  HostScenario whole = sc;
  whole.horizon = kHorizon;
  const HostRun after = test::RunHost(whole);
  if (!before.errors.empty() || !after.errors.empty() || before.truncated || after.truncated) return out;
  out.compared = true;

  // What happened: the first admission of each workload after the events of the run up to T.
  const uint64_t cut = before.log.empty() ? 0 : before.log.back().sequence;
  std::map<std::string, Time> admitted_after;
  for (const test::LoggedEvent& e : after.log)
    if (e.sequence > cut && e.kind == EventKind::kAdmitted) admitted_after.try_emplace(e.workload, e.time);

  // The forecast at T.
  absl::StatusOr<Engine> engine = Engine::Restore(before.snapshot);
  REQUIRE(engine.ok());
  const Time now = sc.start + t;
  REQUIRE(engine->Now() == now);
  ForecastOptions options;
  options.horizon = kHorizon - t;
  for (const Arrival& a : sc.arrivals) {
    const WorkloadHandle h = engine->FindWorkload("ns", a.name);
    const absl::StatusOr<WorkloadStatus> st = engine->GetWorkload(h);
    REQUIRE(st.ok());
    Duration runtime = a.run;
    if (st->state == WorkloadState::kAdmitted) runtime = a.run - (now - *st->quota_reserved_time);
    if (st->state == WorkloadState::kFinished) continue;
    REQUIRE(runtime.us > 0);
    options.workload_runtimes.push_back({h, RuntimeEstimate::Exact(runtime)});
  }
  const absl::StatusOr<ForecastReport> report = engine->Forecast(options);
  REQUIRE(report.ok());
  CHECK_FALSE(report->truncated);
  for (const WorkloadForecast& f : report->workloads) {
    ++out.waiting;
    const auto it = admitted_after.find("ns/" + f.name);
    const std::optional<Time> actual =
        it != admitted_after.end() && it->second <= sc.start + kHorizon ? std::optional<Time>(it->second) : std::nullopt;
    out.admitted += actual ? 1 : 0;
    if (f.admission != actual)
      out.mismatches.push_back(fmt::format("{}: forecast {}s, actual {}s", f.name,
                                           f.admission ? (*f.admission - now).us / 1000000 : -1,
                                           actual ? (*actual - now).us / 1000000 : -1));
  }
  return out;
}

TEST_CASE("Forecast property: with exact runtimes and no arrivals, the forecast is what happens",
          "[adapter][forecast][property]") {
  const uint64_t seeds = test::kSlowBuild ? 12 : 60;
  // QM_FORECAST_SEED=<n> runs that seed alone.
  const char* only = std::getenv("QM_FORECAST_SEED");
  const uint64_t first = only != nullptr ? std::strtoull(only, nullptr, 10) : 1;
  int64_t compared = 0, waiting = 0, admitted = 0;
  for (uint64_t seed = first; seed <= (only != nullptr ? first : seeds); ++seed) {
    const SeedResult r = CheckSeed(seed);
    std::string mismatches;
    for (const std::string& m : r.mismatches) mismatches += "\n  " + m;
    INFO("seed " << seed << mismatches);
    CHECK(r.mismatches.empty());
    compared += r.compared ? 1 : 0;
    waiting += r.waiting;
    admitted += r.admitted;
  }
  // The property has teeth: most seeds run to the end, with many waiting workloads to forecast.
  if (only != nullptr) return;
  CHECK(compared >= static_cast<int64_t>(seeds) * 3 / 4);
  CHECK(waiting >= compared * 5);
  CHECK(admitted >= waiting / 2);
}

}  // namespace
}  // namespace forecast_property_test
}  // namespace qm
