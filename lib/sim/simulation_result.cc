// The result of a run (simulation.h): jobs still holding nodes at the end are stopped, waits are
// censored, and per-job and per-instant figures become the `SimulationResult`'s rows, utilization,
// counters and time series, every list in name order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "qm/sim/sim_result.h"
#include "sim/simulation.h"
#include "sim/time_buckets.h"

namespace qm::sim::internal {
namespace {

constexpr double kUsPerHour = 3.6e9;

// Percentiles of `us` (sorted in place), in seconds; all 101 of them in `quantiles` when given.
Percentiles Summarise(std::vector<int64_t>& us, std::vector<double>* quantiles) {
  Percentiles p;
  if (us.empty()) return p;
  std::sort(us.begin(), us.end());
  const size_t n = us.size();
  auto rank = [&](double pct) {
    const size_t k = static_cast<size_t>(std::ceil(pct / 100.0 * static_cast<double>(n)));
    return static_cast<double>(us[k == 0 ? 0 : k - 1]) / 1e6;
  };
  double sum = 0;
  for (int64_t v : us) sum += static_cast<double>(v);
  p.count = static_cast<int64_t>(n);
  p.mean = sum / static_cast<double>(n) / 1e6;
  p.p50 = rank(50);
  p.p90 = rank(90);
  p.p99 = rank(99);
  p.max = static_cast<double>(us.back()) / 1e6;
  if (quantiles != nullptr) {
    quantiles->resize(101);
    for (int q = 0; q <= 100; ++q) (*quantiles)[static_cast<size_t>(q)] = rank(q);
  }
  return p;
}

}  // namespace

// The factor from base units of resource `res` to display units (millicores to cores, bytes to
// GiB, counts as they are; `DisplayAmount`).
double Simulation::Factor(uint32_t res) const {
  constexpr int64_t kProbe = int64_t{1} << 30;
  return DisplayAmount(resources_[res], kProbe) / static_cast<double>(kProbe);
}

// Assembles the result at the end of the run (now_).
SimulationResult Simulation::Result() {
  // Jobs still running or waiting at the end (a horizon, or jobs that can never be placed).
  for (uint32_t j = 0; j < jobs_.size(); ++j) {
    if (jobs_[j].phase == Phase::kRunning || jobs_[j].phase == Phase::kAdmitted) StopPods(j, false);
    if (jobs_[j].phase == Phase::kEvicting && jobs_[j].holding != kNone && holdings_[jobs_[j].holding].placed) {
      StopPods(j, true);
    }
  }
  // Jobs never admitted that can never be: the engine's pending reason says they exceed their
  // queue's maximum, or fit no flavor (docs/semantics.md §4.3.9).
  int64_t never_admittable = 0;
  for (const Job& job : jobs_) {
    if (!job.submitted || job.first_admitted_us >= 0 || !job.counted) continue;
    const absl::StatusOr<WorkloadStatus> st = engine_.GetWorkload(job.handle);
    if (st.ok() && (st->reason == "ExceedsMaxQuota" || st->reason == "NoMatchingFlavor")) ++never_admittable;
  }
  // Censored waits: a job submitted but never admitted has waited until the end of the run.
  for (uint32_t j = 0; j < jobs_.size(); ++j) {
    const Job& job = jobs_[j];
    if (!job.submitted || !job.counted) continue;
    const int64_t until = job.first_admitted_us >= 0 ? job.first_admitted_us : now_;
    groups_[job.group].waits_all_us.push_back(until - trace_.jobs[j].submit.us);
  }
  SimulationResult r;
  r.label = cluster_.label;
  r.jobs = 0;
  for (const Job& job : jobs_) r.jobs += job.counted ? 1 : 0;
  r.admissions = admissions_;
  r.started = started_;
  r.completed = completed_counted_;
  r.never_admittable = never_admittable;
  r.preemptions = preemptions_;
  r.fault_evictions = fault_evictions_;
  r.node_failures = node_failures_;
  r.cycles = cycles_;
  r.instants = instants_;
  r.makespan_s = static_cast<double>(completed_ > 0 ? last_finish_us_ : now_) / 1e6;
  r.avg_jain = demand_us_ > 0 ? jain_us_ / demand_us_ : 1.0;
  r.checkpoints_kept = checkpoints_kept_;
  r.stall_window_s = static_cast<double>(window_us_) / 1e6;
  r.livelock = std::move(livelock_);
  const double run_us = std::max<double>(1.0, static_cast<double>(InWindow(0, now_)));
  r.window_start_s = static_cast<double>(options_.window_start.us) / 1e6;
  r.window_end_s = static_cast<double>(options_.window_end.us) / 1e6;

  // Groups: per queue (by name), its total row, then its classes by name.
  std::vector<uint32_t> order(groups_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (groups_[a].queue != groups_[b].queue) return queues_[groups_[a].queue].name < queues_[groups_[b].queue].name;
    return groups_[a].priority_class < groups_[b].priority_class;
  });
  std::vector<ResourceHours> totals(quota_resources_);
  for (size_t res = 0; res < quota_resources_; ++res) totals[res].resource = resources_[res];
  std::vector<uint32_t> queue_order(queues_.size());
  for (uint32_t i = 0; i < queue_order.size(); ++i) queue_order[i] = i;
  std::sort(queue_order.begin(), queue_order.end(), [&](uint32_t a, uint32_t b) { return queues_[a].name < queues_[b].name; });
  size_t next = 0;
  for (uint32_t q : queue_order) {
    const QueueInfo& info = queues_[q];
    GroupSummary total;
    total.cluster_queue = info.name;
    total.team = info.team;
    total.resources.resize(quota_resources_);
    for (size_t res = 0; res < quota_resources_; ++res) {
      total.resources[res].resource = resources_[res];
      total.resources[res].borrowed = info.borrowed_us[res] * Factor(static_cast<uint32_t>(res)) / kUsPerHour;
      total.resources[res].lent = info.lent_us[res] * Factor(static_cast<uint32_t>(res)) / kUsPerHour;
    }
    std::vector<int64_t> all_waits, all_waits_censored, all_completions;
    std::vector<GroupSummary> rows;
    for (; next < order.size() && groups_[order[next]].queue == q; ++next) {
      GroupAcc& g = groups_[order[next]];
      GroupSummary row;
      row.cluster_queue = info.name;
      row.team = info.team;
      row.priority_class = g.priority_class;
      row.jobs = g.jobs;
      row.admitted = g.admitted;
      row.started = g.started;
      row.completed = g.completed;
      row.never_admitted = g.jobs - g.admitted;
      row.preemptions = g.preemptions;
      row.evictions = g.evictions;
      row.unplaced_hours = static_cast<double>(g.unplaced_us) / kUsPerHour;
      all_waits.insert(all_waits.end(), g.waits_us.begin(), g.waits_us.end());
      all_waits_censored.insert(all_waits_censored.end(), g.waits_all_us.begin(), g.waits_all_us.end());
      all_completions.insert(all_completions.end(), g.completions_us.begin(), g.completions_us.end());
      row.wait = Summarise(g.waits_us, &row.wait_quantiles);
      row.wait_all = Summarise(g.waits_all_us, &row.wait_all_quantiles);
      row.completion = Summarise(g.completions_us, nullptr);
      row.resources.resize(quota_resources_);
      for (size_t res = 0; res < quota_resources_; ++res) {
        const double f = Factor(static_cast<uint32_t>(res)) / kUsPerHour;
        row.resources[res].resource = resources_[res];
        row.resources[res].used = g.used_us[res] * f;
        row.resources[res].goodput_lost = g.goodput_lost_us[res] * f;
        total.resources[res].used += row.resources[res].used;
        total.resources[res].goodput_lost += row.resources[res].goodput_lost;
      }
      total.jobs += row.jobs;
      total.admitted += row.admitted;
      total.started += row.started;
      total.completed += row.completed;
      total.never_admitted += row.never_admitted;
      total.preemptions += row.preemptions;
      total.evictions += row.evictions;
      total.unplaced_hours += row.unplaced_hours;
      rows.push_back(std::move(row));
    }
    total.wait = Summarise(all_waits, &total.wait_quantiles);
    total.wait_all = Summarise(all_waits_censored, &total.wait_all_quantiles);
    total.completion = Summarise(all_completions, nullptr);
    for (size_t res = 0; res < quota_resources_; ++res) {
      totals[res].used += total.resources[res].used;
      totals[res].borrowed += total.resources[res].borrowed;
      totals[res].lent += total.resources[res].lent;
      totals[res].goodput_lost += total.resources[res].goodput_lost;
    }
    r.admitted += total.admitted;
    r.never_admitted += total.never_admitted;
    r.unplaced_hours += total.unplaced_hours;
    r.groups.push_back(std::move(total));
    for (GroupSummary& row : rows) r.groups.push_back(std::move(row));
  }
  r.totals = std::move(totals);
  r.rounded_jobs = trace_.rounded_jobs;
  r.fit_no_node = fit_no_node_;
  r.warnings = warnings_;
  for (uint32_t j = 0; j < outcomes_.size(); ++j) {
    const Job& job = jobs_[j];
    const char* state = "Pending";
    switch (job.phase) {
      case Phase::kDone: state = "Completed"; break;
      case Phase::kRunning: state = "Running"; break;
      case Phase::kEvicting: state = "Evicting"; break;
      case Phase::kAdmitted: state = j < fits_no_node_.size() && fits_no_node_[j] ? "FitsNoNode" : "Admitted"; break;
      case Phase::kPending: state = job.submitted ? "Pending" : "NotSubmitted"; break;
    }
    outcomes_[j].state = state;
  }
  r.jobs_out = std::move(outcomes_);
  r.gpu_hours_completed = completed_gpu_us_ / kUsPerHour;
  for (const ResourceHours& h : r.totals) {
    if (IsAcceleratorResource(h.resource)) r.gpu_hours_lost += h.goodput_lost;
  }
  // Ratios: +∞ when there is something to divide but no completion, 0 when there is nothing.
  auto ratio = [](double num, double den) {
    if (den > 0) return num / den;
    return num > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  };
  r.preemptions_per_completed_job = ratio(static_cast<double>(preemptions_), static_cast<double>(completed_counted_));
  r.gpu_hours_lost_per_completed = ratio(r.gpu_hours_lost, r.gpu_hours_completed);

  std::vector<uint32_t> fr_order(frs_.size());
  for (uint32_t i = 0; i < fr_order.size(); ++i) fr_order[i] = i;
  std::sort(fr_order.begin(), fr_order.end(), [&](uint32_t a, uint32_t b) {
    if (flavors_[frs_[a].first] != flavors_[frs_[b].first]) return flavors_[frs_[a].first] < flavors_[frs_[b].first];
    return resources_[frs_[a].second] < resources_[frs_[b].second];
  });
  for (uint32_t fr : fr_order) {
    const uint32_t res = frs_[fr].second;
    const double f = Factor(res);
    FlavorUtilization u;
    u.flavor = flavors_[frs_[fr].first];
    u.resource = resources_[res];
    u.capacity = fr_capacity_us_[fr] / run_us * f;
    u.nominal = static_cast<double>(fr_nominal_[fr]) * f;
    u.avg_used = fr_used_us_[fr] / run_us * f;
    u.avg_admitted = fr_admitted_us_[fr] / run_us * f;
    if (pool_.has_value()) {
      u.utilization = u.capacity > 0 ? u.avg_used / u.capacity : 0;
    } else {
      u.utilization = u.nominal > 0 ? u.avg_admitted / u.nominal : 0;
    }
    r.utilization.push_back(std::move(u));
  }
  FillSeries(r, queue_order);
  r.preemption_log = std::move(preemption_log_);
  r.preemption_log_dropped = preemption_log_dropped_;
  FillPreemptionCounts(r);
  FillForecastAccuracy(r);
  return r;
}

// The complete counters, by (victim queue, reason, preemptor queue) and by (victim, reason),
// sorted by names ("" first: evictions).
void Simulation::FillPreemptionCounts(SimulationResult& r) const {
  for (const auto& [key, n] : preemption_counts_) {
    const auto& [victim, reason, by] = key;
    r.preemption_counts.push_back({queues_[victim].name, reasons_[reason], QueueName(by), n});
  }
  std::sort(r.preemption_counts.begin(), r.preemption_counts.end(), [](const PreemptionCount& a, const PreemptionCount& b) {
    return std::tie(a.cluster_queue, a.reason, a.preemptor_queue) < std::tie(b.cluster_queue, b.reason, b.preemptor_queue);
  });
  for (const PreemptionCount& c : r.preemption_counts) {
    if (!r.preemptions_by_reason.empty() && r.preemptions_by_reason.back().cluster_queue == c.cluster_queue &&
        r.preemptions_by_reason.back().reason == c.reason) {
      r.preemptions_by_reason.back().count += c.count;
    } else {
      r.preemptions_by_reason.push_back({c.cluster_queue, c.reason, c.count});
    }
  }
}

// The report's time series, rebinned to at most `options_.buckets` buckets, queues in name order.
void Simulation::FillSeries(SimulationResult& r, const std::vector<uint32_t>& queue_order) {
  const internal::TimeBuckets::Rebinned b = buckets_->Rebin(std::max<int64_t>(now_, 1));
  TimeSeries& s = r.series;
  const int nq = static_cast<int>(queues_.size());
  const size_t nb = static_cast<size_t>(b.buckets);
  s.bucket_seconds = static_cast<double>(b.width_us) / 1e6;
  for (size_t i = 0; i < nb; ++i) s.start_s.push_back(static_cast<double>(b.width_us) * static_cast<double>(i) / 1e6);
  for (uint32_t q : queue_order) s.queues.push_back(queues_[q].name);
  auto avg = [&](int series) {
    std::vector<double> v(nb);
    for (size_t i = 0; i < nb; ++i) v[i] = b.covered_us[i] > 0 ? b.sums[static_cast<size_t>(series)][i] / b.covered_us[i] : 0;
    return v;
  };
  for (size_t res = 0; res < quota_resources_; ++res) {
    const double f = Factor(static_cast<uint32_t>(res));
    s.resources.push_back(resources_[res]);
    std::vector<std::vector<double>> per_queue;
    for (uint32_t q : queue_order) {
      std::vector<double> v = avg(s_used_ + static_cast<int>(res) * nq + static_cast<int>(q));
      for (double& x : v) x *= f;
      per_queue.push_back(std::move(v));
    }
    s.used.push_back(std::move(per_queue));
    std::vector<double> cap = avg(s_capacity_ + static_cast<int>(res));
    for (double& x : cap) x *= f;
    s.capacity.push_back(std::move(cap));
  }
  for (uint32_t q : queue_order) {
    s.pending.push_back(avg(s_pending_ + static_cast<int>(q)));
    s.share.push_back(avg(s_share_ + static_cast<int>(q)));
    std::vector<int64_t> counts(nb);
    for (size_t i = 0; i < nb; ++i) counts[i] = std::llround(b.sums[static_cast<size_t>(s_preempt_ + static_cast<int>(q))][i]);
    s.preemptions.push_back(std::move(counts));
  }
  s.jain = avg(s_jain_);
  std::vector<size_t> pair_order(pairs_.size());
  for (size_t i = 0; i < pair_order.size(); ++i) pair_order[i] = i;
  std::sort(pair_order.begin(), pair_order.end(), [&](size_t x, size_t y) {
    return std::make_pair(QueueName(pairs_[x].first), queues_[pairs_[x].second].name) <
           std::make_pair(QueueName(pairs_[y].first), queues_[pairs_[y].second].name);
  });
  for (size_t i : pair_order) {
    TimeSeries::PairSeries p;
    p.preemptor_queue = QueueName(pairs_[i].first);
    p.cluster_queue = queues_[pairs_[i].second].name;
    const int series = pair_series_.at(pairs_[i]);
    p.counts.resize(nb);
    for (size_t k = 0; k < nb; ++k) p.counts[k] = std::llround(b.sums[static_cast<size_t>(series)][k]);
    s.pair_preemptions.push_back(std::move(p));
  }
}

}  // namespace qm::sim::internal
