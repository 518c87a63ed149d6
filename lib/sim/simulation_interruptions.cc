// Interruptions (simulation.h): a job preempted by the engine or evicted (its node failed, its pods
// were not ready in time). What its attempt keeps up to its last checkpoint, when its pods stop
// (after the grace period, or at once), and the counters and log that name who interrupted whom.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "qm/core/status.h"
#include "sim/simulation.h"

namespace qm::sim::internal {

// The engine preempted or evicted job `j` (event `e`): its attempt ends, its pods stop now or
// after the grace period, and the interruption is counted and logged.
void Simulation::Stopped(uint32_t j, const Event& e) {
  Job& job = jobs_[j];
  if (job.phase != Phase::kAdmitted && job.phase != Phase::kRunning) return;
  const bool preempted = e.kind == EventKind::kPreempted;
  if (job.phase == Phase::kRunning) EndAttempt(j);
  ++job.generation;  // its finish event is now stale
  job.phase = Phase::kEvicting;
  // A preempted job takes `eviction_delay` to stop (its pods' grace period, or the controller
  // deleting pods that were never placed); it keeps its nodes and quota until then, and the
  // preemptor waits, as in Kueue. Pods the host evicted (their node failed) stop at once.
  if (preempted && options_.eviction_delay.us > 0) {
    confirms_.Push(Time{now_ + options_.eviction_delay.us}, FinishEvent{j, job.generation});
  } else {
    StopPods(j, /*lost=*/true);
    to_confirm_.push_back(j);
  }
  if (!outcomes_.empty()) ++(preempted ? outcomes_[j].preemptions : outcomes_[j].evictions);
  GroupAcc& g = groups_[job.group];
  if (!job.counted) {
    // Outside the metrics window: the event happened, but the job's figures do not count.
  } else if (preempted) {
    ++g.preemptions;
    ++preemptions_;
  } else if (std::string_view(e.reason) == "NodeFailures") {
    ++g.evictions;
  }
  buckets_->Count(s_preempt_ + static_cast<int>(job.queue), now_, 1);
  uint32_t by = kNone;
  const char* reason = e.reason;
  if (preempted) {
    const uint32_t preemptor = JobOf(e.preemptor);
    if (preemptor != kNone) by = jobs_[preemptor].queue;
    reason = PreemptionReasonName(e.preemption_reason);
  }
  CountInterruption(j, by, reason);
  if (preemption_log_.size() < options_.preemption_log_limit) {
    PreemptionRecord rec;
    rec.time_s = static_cast<double>(now_) / 1e6;
    rec.workload = engine_.WorkloadName(job.handle);
    rec.cluster_queue = queues_[job.queue].name;
    rec.preemptor_queue = QueueName(by);
    rec.reason = reason;
    preemption_log_.push_back(std::move(rec));
  } else {
    ++preemption_log_dropped_;
  }
}

// A preempted job's pods stopped at the end of their grace period.
absl::Status Simulation::ConfirmStopped(const FinishEvent& f) {
  Job& job = jobs_[f.job];
  if (job.generation != f.generation || job.phase != Phase::kEvicting) return absl::OkStatus();
  return StopAndConfirm(f.job);
}

// Stops the job's pods now and tells the engine its eviction is complete.
absl::Status Simulation::StopAndConfirm(uint32_t j) {
  StopPods(j, /*lost=*/true);
  QM_RETURN_IF_ERROR(engine_.ConfirmEvicted(jobs_[j].handle));
  return HandleEvents(engine_.LastEvents());
}

// The job's checkpoint interval: the trace's column, else the option (0 = none).
int64_t Simulation::CheckpointIntervalUs(uint32_t j) const {
  return trace_.CheckpointIntervalOf(trace_.jobs[j], options_.checkpoint_interval).us;
}

// A running job's attempt ends now (preempted or evicted): keeps the run time up to its last
// checkpoint, and records the progress the attempt made.
void Simulation::EndAttempt(uint32_t j) {
  Job& job = jobs_[j];
  Holding& h = holdings_[job.holding];
  UnlinkRunning(j);
  const int64_t ran = std::max<int64_t>(0, now_ - h.start_us - h.startup_us);
  if (ran >= window_us_) progress_us_ = std::max(progress_us_, now_);
  const int64_t interval = CheckpointIntervalUs(j);
  if (interval <= 0) return;
  // Checkpoints come every `interval` of the attempt's run time, strictly before its end (the
  // last one would be the completion): k·interval < remaining.
  const int64_t remaining = trace_.jobs[j].duration.us - job.saved_us;
  const int64_t kept = std::min(ran / interval, (remaining - 1) / interval);
  if (kept <= 0) return;
  h.saved_us = kept * interval;
  job.saved_us += h.saved_us;
  checkpoints_kept_ += kept;
  progress_us_ = std::max(progress_us_, h.start_us + h.startup_us + h.saved_us);
}

// A preemption or eviction of job `j` by a job of queue `by` (kNone: an eviction) for `reason`.
void Simulation::CountInterruption(uint32_t j, uint32_t by, const char* reason) {
  const uint32_t victim = jobs_[j].queue;
  // A repeat: both interruptions lie in every window that holds the earlier one.
  repeated_since_us_ = std::max(repeated_since_us_, jobs_[j].interrupted_us);
  jobs_[j].interrupted_us = now_;
  while (!recent_.empty() && recent_.front().at_us <= now_ - window_us_) recent_.pop_front();
  recent_.push_back(Interruption{now_, j, by});
  ++preemption_counts_[std::make_tuple(victim, ReasonId(reason), by)];
  if (by == kNone) return;
  auto [it, fresh] = pair_series_.try_emplace(std::make_pair(by, victim), 0);
  if (fresh) {
    it->second = buckets_->AddSeries();
    pairs_.emplace_back(by, victim);
  }
  buckets_->Count(it->second, now_, 1);
}

// A small id for an interruption reason; reasons are few, so a linear search is enough.
uint32_t Simulation::ReasonId(const char* reason) {
  for (uint32_t i = 0; i < reasons_.size(); ++i) {
    if (std::strcmp(reasons_[i].c_str(), reason) == 0) return i;
  }
  reasons_.emplace_back(reason);
  return static_cast<uint32_t>(reasons_.size() - 1);
}

}  // namespace qm::sim::internal
