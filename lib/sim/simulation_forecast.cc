// Forecast accuracy (SimulationOptions::forecast_every, docs/forecast.md §Accuracy): at sample
// instants the simulator asks `Engine::Forecast` when every pending job will be admitted, giving it
// each job's exact remaining run time and no future arrivals, and at the end compares every answer
// with the job's actual next admission. The forecast runs on a restored copy, so the run's
// decisions are the same with or without sampling.
#include <algorithm>
#include <cmath>

#include "fmt/format.h"
#include "qm/adapter/forecast.h"
#include "qm/core/status.h"
#include "sim/simulation.h"

namespace qm::sim::internal {
namespace {

constexpr Duration kForecastHorizon = Duration::Seconds(90 * 24 * 3600);
// Workloads of the cluster file (not trace jobs) have no known run time; they are rare.
constexpr Duration kUnknownRuntime = Duration::Seconds(3600);

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = (v.size() - 1) / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  return v[mid];
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t rank = std::clamp<size_t>(static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))), 1, v.size());
  return v[rank - 1];
}

// One compared forecast: its absolute error and the actual wait from the sample, in seconds.
struct Compared {
  double abs_error_s;
  double wait_s;
};

ForecastErrorRow Summarize(std::string name, const std::vector<Compared>& rows) {
  ForecastErrorRow r;
  r.name = std::move(name);
  r.compared = static_cast<int64_t>(rows.size());
  std::vector<double> abs, waits, rel;
  int64_t within = 0;
  for (const Compared& c : rows) {
    abs.push_back(c.abs_error_s);
    waits.push_back(c.wait_s);
    const double relative = c.wait_s > 0 ? c.abs_error_s / c.wait_s : (c.abs_error_s > 0 ? 1e9 : 0);
    rel.push_back(relative);
    within += relative <= 0.1 ? 1 : 0;
  }
  r.median_abs_error_s = Median(abs);
  r.p90_abs_error_s = Quantile(abs, 0.9);
  r.median_wait_s = Median(waits);
  r.median_relative_error = Median(rel);
  r.within_10_percent = rows.empty() ? 0 : static_cast<double>(within) / static_cast<double>(rows.size());
  return r;
}

}  // namespace

absl::Status Simulation::SampleForecast() {
  const int64_t every = options_.forecast_every.us;
  next_forecast_us_ = (now_ / every + 1) * every;
  ++forecast_samples_;
  ForecastOptions o;
  o.default_runtime = RuntimeEstimate::Exact(kUnknownRuntime);
  o.horizon = kForecastHorizon;
  o.max_cycles = options_.max_cycles_per_instant;
  std::vector<uint32_t> pending;
  for (uint32_t j = 0; j < jobs_.size(); ++j) {
    const Job& job = jobs_[j];
    if (!job.submitted || job.phase == Phase::kDone) continue;
    const int64_t left = trace_.jobs[j].duration.us - job.saved_us;  // run time still to do
    int64_t estimate = left;
    if (job.phase == Phase::kRunning) {
      // What remains of this attempt: the pods' start-up still to come, then the run time left.
      const Holding& h = holdings_[job.holding];
      const int64_t runs_from = h.start_us + h.startup_us;
      estimate = left - std::max<int64_t>(0, now_ - runs_from) + std::max<int64_t>(0, runs_from - now_);
    }
    o.workload_runtimes.push_back(WorkloadRuntime{job.handle, RuntimeEstimate::Exact(Duration{std::max<int64_t>(estimate, 1)})});
    if (job.phase == Phase::kPending) {
      pending.push_back(j);
      o.workloads.push_back(job.handle);
    }
  }
  if (pending.empty()) return absl::OkStatus();
  QM_ASSIGN_OR_RETURN(const ForecastReport report, engine_.Forecast(o));
  for (size_t i = 0; i < pending.size(); ++i) {
    const std::optional<Time>& at = report.workloads[i].admission;
    forecasts_.push_back(ForecastSample{pending[i], now_, at ? (*at - kEpoch).us : -1,
                                        static_cast<int64_t>(pending.size())});
  }
  return absl::OkStatus();
}

// Whether a job submitted after `at_us` in the same cohort tree was first admitted before `admitted_us`:
// the arrivals a forecast without arrivals cannot see took the room first.
bool Simulation::OvertakenByLaterArrival(uint32_t job, int64_t at_us, int64_t admitted_us) const {
  const auto first = std::upper_bound(trace_.jobs.begin(), trace_.jobs.end(), at_us,
                                      [](int64_t t, const TraceJob& tj) { return t < tj.submit.us; });
  const uint32_t root = queues_[jobs_[job].queue].root;
  for (auto it = first; it != trace_.jobs.end() && it->submit.us < admitted_us; ++it) {
    const Job& other = jobs_[static_cast<size_t>(it - trace_.jobs.begin())];
    if (other.first_admitted_us >= 0 && other.first_admitted_us < admitted_us && queues_[other.queue].root == root)
      return true;
  }
  return false;
}

void Simulation::FillForecastAccuracy(SimulationResult& r) const {
  if (options_.forecast_every.us <= 0) return;
  ForecastAccuracy acc;
  acc.every_s = static_cast<double>(options_.forecast_every.us) / 1e6;
  acc.samples = forecast_samples_;
  acc.forecasts = static_cast<int64_t>(forecasts_.size());
  std::vector<std::pair<uint32_t, int64_t>> admissions = admission_log_;
  std::sort(admissions.begin(), admissions.end());

  // Load bands: the samples' pending counts split in three bands of about equal size.
  std::vector<int64_t> loads;
  for (const ForecastSample& f : forecasts_) loads.push_back(f.load);
  std::sort(loads.begin(), loads.end());
  const int64_t cut1 = loads.empty() ? 0 : loads[loads.size() / 3];
  const int64_t cut2 = loads.empty() ? 0 : loads[loads.size() * 2 / 3];
  auto band = [&](int64_t load) { return load < cut1 ? 0 : load < cut2 ? 1 : 2; };

  std::vector<Compared> all;
  std::vector<std::pair<std::string, Compared>> by_team;
  std::vector<Compared> by_band[3];
  std::vector<Compared> by_arrivals[2];  // [overtaken by a job submitted after the sample]
  for (const ForecastSample& f : forecasts_) {
    const auto next = std::upper_bound(admissions.begin(), admissions.end(), std::make_pair(f.job, f.at_us));
    const bool admitted = next != admissions.end() && next->first == f.job;
    if (f.predicted_us < 0) {
      acc.unexpected += admitted ? 1 : 0;
      continue;
    }
    if (!admitted) {
      ++acc.missed;
      continue;
    }
    const Compared c{std::abs(static_cast<double>(f.predicted_us - next->second)) / 1e6,
                     static_cast<double>(next->second - f.at_us) / 1e6};
    all.push_back(c);
    const QueueInfo& q = queues_[jobs_[f.job].queue];
    by_team.emplace_back(q.team.empty() ? q.name : q.team, c);
    by_band[band(f.load)].push_back(c);
    by_arrivals[OvertakenByLaterArrival(f.job, f.at_us, next->second) ? 1 : 0].push_back(c);
  }
  acc.compared = static_cast<int64_t>(all.size());
  acc.all = Summarize("all", all);
  std::stable_sort(by_team.begin(), by_team.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < by_team.size();) {
    size_t k = i;
    std::vector<Compared> rows;
    while (k < by_team.size() && by_team[k].first == by_team[i].first) rows.push_back(by_team[k++].second);
    acc.by_team.push_back(Summarize(by_team[i].first, rows));
    i = k;
  }
  const std::string names[3] = {fmt::format("< {} pending", cut1), fmt::format("{}–{} pending", cut1, cut2 - 1),
                                fmt::format("≥ {} pending", cut2)};
  for (int b = 0; b < 3; ++b)
    if (!by_band[b].empty()) acc.by_load.push_back(Summarize(names[b], by_band[b]));
  acc.by_arrivals.push_back(Summarize("not overtaken", by_arrivals[0]));
  acc.by_arrivals.push_back(Summarize("overtaken by a later arrival", by_arrivals[1]));
  r.forecast_accuracy = std::move(acc);
}

}  // namespace qm::sim::internal
