// Pods on nodes (simulation.h): admitted jobs placed gang-wise on the node pool (or started at
// once without nodes), their pod start-up, their pods stopped (finished or interrupted: node time
// used and work lost booked), and the jobs finished when their run time has passed.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "qm/core/status.h"
#include "sim/simulation.h"

namespace qm::sim::internal {

// Calls fn(fr, amount) for every (flavor, resource) amount the job's placed pods hold.
template <class F>
void Simulation::ForEachPlacedAmount(const Holding& h, F&& fn) const {
  for (size_t i = 0; i < h.pod_amounts.size(); ++i) {
    const int32_t pods = pool_.has_value() && i < h.placement.placed.size() ? h.placement.placed[i] : h.demand[i].count;
    for (const auto& [fr, per_pod] : h.pod_amounts[i]) fn(fr, per_pod * pods);
  }
}

// Places the admitted-but-unplaced jobs, oldest admission first, skipping those that already
// failed against the same free capacity.
void Simulation::PlaceWaiting() {
  size_t keep = 0;
  for (size_t i = 0; i < waiting_.size(); ++i) {
    const uint32_t j = waiting_[i];
    Job& job = jobs_[j];
    if (job.phase != Phase::kAdmitted) continue;  // evicted or finished while waiting
    Holding& h = holdings_[job.holding];
    bool placed = true;
    if (pool_.has_value()) {
      placed = h.failed_epoch != capacity_epoch_ && pool_->TryPlace(h.demand, &h.placement);
      if (!placed) h.failed_epoch = capacity_epoch_;
    }
    if (placed) {
      Start(j);
    } else {
      waiting_[keep++] = j;
    }
  }
  waiting_.resize(keep);
}

// Job `j`'s pods are placed now: it runs after its pod start-up, for what its checkpoints have not
// already kept, and the engine learns when its pods are ready (waitForPodsReady).
void Simulation::Start(uint32_t j) {
  Job& job = jobs_[j];
  Holding& h = holdings_[job.holding];
  GroupAcc& g = groups_[job.group];
  g.unplaced_us += InWindow(h.admitted_us, now_);
  h.placed = true;
  h.start_us = now_;
  h.saved_us = 0;
  // Pod start-up: the longest of the flavors the pods use; the run time starts after it.
  h.startup_us = 0;
  if (const std::optional<Duration> own = trace_.PodStartupOf(trace_.jobs[j])) {
    h.startup_us = own->us;  // the trace's pod_startup column overrides the flavors'
  } else {
    ForEachPlacedAmount(h, [&](uint32_t fr, int64_t) {
      h.startup_us = std::max(h.startup_us, startup_of_flavor_[frs_[fr].first]);
    });
  }
  job.phase = Phase::kRunning;
  if (!outcomes_.empty()) {
    JobOutcome& o = outcomes_[j];
    if (o.first_started_us < 0) o.first_started_us = now_;
    o.nodes.clear();
    std::vector<int32_t> seen;  // a node may hold pods of several pod sets: name it once
    for (const Placement::Slot& s : h.placement.slots) {
      if (!pool_.has_value() || std::find(seen.begin(), seen.end(), s.node) != seen.end()) continue;
      seen.push_back(s.node);
      o.nodes += (o.nodes.empty() ? "" : ";") + pool_->node(s.node).name;
    }
  }
  if (!job.started) {
    job.started = true;
    if (job.counted) {
      ++g.started;
      ++started_;
    }
  }
  ForEachPlacedAmount(h, [&](uint32_t fr, int64_t amount) {
    queues_[job.queue].placed[frs_[fr].second] += amount;
  });
  if (pool_.has_value()) {
    for (const Placement::Slot& s : h.placement.slots) {
      auto& on = jobs_on_node_[static_cast<size_t>(s.node)];
      if (std::find(on.begin(), on.end(), j) == on.end()) on.push_back(j);
    }
  }
  // A readmitted job runs only what its checkpoints did not keep.
  const int64_t remaining = trace_.jobs[j].duration.us - job.saved_us;
  finishes_.Push(Time{now_ + h.startup_us + remaining}, FinishEvent{j, job.generation});
  if (report_ready_) {
    if (h.startup_us > 0) {
      readies_.Push(Time{now_ + h.startup_us}, FinishEvent{j, job.generation});
    } else {
      // Placed and up at once. Cannot fail: the job holds quota (it was just admitted or placed).
      engine_.SetPodsReady(job.handle, true).IgnoreError();
    }
  }
  LinkRunning(j);
  WatchFirstCheckpoint(j, remaining);
}

// The job's pods stop (finished or evicted): gives back their nodes and books their run time;
// when `lost`, the part its checkpoints did not keep is goodput lost.
void Simulation::StopPods(uint32_t j, bool lost) {
  Job& job = jobs_[j];
  Holding& h = holdings_[job.holding];
  GroupAcc& g = groups_[job.group];
  if (!h.placed) {
    g.unplaced_us += InWindow(h.admitted_us, now_);
    return;
  }
  // Nodes are held from placement (start-up included); work is done only after start-up.
  // Only the part inside the metrics window counts (all of it without a window).
  const double ran = static_cast<double>(InWindow(h.start_us, now_));
  const double thrown_away = static_cast<double>(InWindow(h.start_us + h.startup_us + h.saved_us, now_));
  ForEachPlacedAmount(h, [&](uint32_t fr, int64_t amount) {
    const uint32_t res = frs_[fr].second;
    queues_[job.queue].placed[res] -= amount;
    g.used_us[res] += static_cast<double>(amount) * ran;
    fr_used_us_[fr] += static_cast<double>(amount) * ran;
    if (lost) g.goodput_lost_us[res] += static_cast<double>(amount) * thrown_away;
  });
  if (lost && !outcomes_.empty()) outcomes_[j].work_lost_us += static_cast<int64_t>(thrown_away);
  if (pool_.has_value()) {
    pool_->Release(h.placement);
    ++capacity_epoch_;
    for (const Placement::Slot& s : h.placement.slots) {
      auto& on = jobs_on_node_[static_cast<size_t>(s.node)];
      on.erase(std::remove(on.begin(), on.end(), j), on.end());
    }
  }
  h.placed = false;
}

// Job `f.job` has run its duration (unless the event is stale): its pods and quota are given back,
// its completion counted, and its workload finished and deleted in the engine.
absl::Status Simulation::FinishJob(const FinishEvent& f) {
  Job& job = jobs_[f.job];
  if (job.generation != f.generation || job.phase != Phase::kRunning) return absl::OkStatus();
  // GPU-hours of completed work: what the job's pods request, over its whole duration.
  const double duration = static_cast<double>(trace_.jobs[f.job].duration.us);
  ForEachPlacedAmount(holdings_[job.holding], [&](uint32_t fr, int64_t amount) {
    if (accelerator_[frs_[fr].second] && job.counted) completed_gpu_us_ += static_cast<double>(amount) * duration;
  });
  UnlinkRunning(f.job);
  StopPods(f.job, /*lost=*/false);
  ReleaseQuota(f.job);
  job.phase = Phase::kDone;
  if (!outcomes_.empty()) outcomes_[f.job].end_us = now_;
  GroupAcc& g = groups_[job.group];
  if (job.counted) {
    ++g.completed;
    g.completions_us.push_back(now_ - trace_.jobs[f.job].submit.us);
    ++completed_counted_;
  }
  ++completed_;
  last_finish_us_ = now_;
  progress_us_ = now_;
  QM_RETURN_IF_ERROR(engine_.Finish(job.handle));
  // Deleting the finished workload keeps the engine's memory proportional to live jobs.
  QM_RETURN_IF_ERROR(engine_.Delete(job.handle));
  job_of_slot_[job.handle.index] = kNone;
  if (options_.progress && options_.progress_every > 0 && completed_ % options_.progress_every == 0) {
    options_.progress(SimulationProgress{static_cast<double>(now_) / 1e6, completed_,
                                         static_cast<int64_t>(trace_.jobs.size())});
  }
  return absl::OkStatus();
}

}  // namespace qm::sim::internal
