// The trace-driven simulator (simulator.h; model and metrics in docs/simulate.md): `Simulate`, and
// the loop that moves virtual time from one instant to the next and applies that instant's events
// in their documented order. The state of a run and the files that handle each concern are listed
// in simulation.h.
//
// Metrics are accumulated as the run goes: exact integrals of held quota, placed pods and pending
// jobs between event instants (simulation_metrics.cc), and per-job waits sorted once at the end
// (simulation_result.cc).
#include "qm/sim/simulator.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/core/status.h"
#include "sim/simulation.h"

namespace qm::sim {
namespace internal {
namespace {

// Settling rounds at one instant before a loop of confirmed evictions is called a livelock.
constexpr int64_t kMaxSettleRounds = 1'000;

}  // namespace

absl::StatusOr<SimulationResult> Simulation::Run() {
  QM_RETURN_IF_ERROR(Setup());
  QM_RETURN_IF_ERROR(Loop());
  return Result();
}

// Moves from instant to instant until nothing is left to happen, the horizon, or a livelock,
// applying each instant's events in the order simulator.h documents.
absl::Status Simulation::Loop() {
  const int64_t horizon = options_.horizon.us > 0 ? options_.horizon.us : std::numeric_limits<int64_t>::max();
  const size_t n = trace_.jobs.size();
  while (true) {
    int64_t t = std::numeric_limits<int64_t>::max();
    if (next_submit_ < n) t = trace_.jobs[next_submit_].submit.us;
    if (!finishes_.empty()) t = std::min(t, finishes_.Top().time.us);
    if (!confirms_.empty()) t = std::min(t, confirms_.Top().time.us);
    if (!readies_.empty()) t = std::min(t, readies_.Top().time.us);
    const bool work_left = next_submit_ < n || !finishes_.empty() || !confirms_.empty();
    // Node events matter while jobs run, or while admitted jobs wait for a failed node to come
    // back. A run whose only remaining events are faults is over: jobs still pending can never
    // be admitted, and admitted ones waiting with every node up can never be placed.
    if (!node_events_.empty() && (work_left || (!waiting_.empty() && nodes_down_ > 0))) {
      t = std::min(t, node_events_.Top().time.us);
    }
    // An anti-thrash timer (a minimum runtime or a borrow back-off running out) may let a parked
    // job in: an instant of its own, while there is anything left to admit.
    if (const std::optional<Time> timer = engine_.NextTimedChange(); timer && (work_left || HasPending())) {
      t = std::min(t, std::max(timer->us - kEpoch.us, now_ + 1));
    }
    if (t == std::numeric_limits<int64_t>::max()) break;
    // Between instants nothing changes but the clock, so the stall can only begin at the
    // instant the last progress falls out of the window (StalledAt explains why).
    const int64_t stall = progress_us_ + window_us_;
    if (stall > now_ && stall < t && stall <= horizon && StalledAt(stall)) {
      Advance(stall);
      DeclareLivelock(/*at_one_instant=*/false);
      break;
    }
    if (t > horizon) {
      Advance(horizon);
      break;
    }
    Advance(t);
    QM_RETURN_IF_ERROR(engine_.SetNow(kEpoch + Duration{t}));
    ++instants_;
    while (!finishes_.empty() && finishes_.Top().time.us == t) {
      const FinishEvent f = finishes_.Pop().payload;
      QM_RETURN_IF_ERROR(FinishJob(f));
    }
    while (!confirms_.empty() && confirms_.Top().time.us == t) {
      const FinishEvent f = confirms_.Pop().payload;
      QM_RETURN_IF_ERROR(ConfirmStopped(f));
    }
    while (!readies_.empty() && readies_.Top().time.us == t) {
      const FinishEvent f = readies_.Pop().payload;
      // Stale when the attempt ended (the job was evicted or finished) before its pods were up.
      if (jobs_[f.job].phase == Phase::kRunning && jobs_[f.job].generation == f.generation)
        QM_RETURN_IF_ERROR(engine_.SetPodsReady(jobs_[f.job].handle, true));
    }
    while (!node_events_.empty() && node_events_.Top().time.us == t) {
      const NodeEvent e = node_events_.Pop().payload;
      QM_RETURN_IF_ERROR(e.fail ? FailNode(e) : RepairNode(e.node));
    }
    while (next_submit_ < n && trace_.jobs[next_submit_].submit.us == t) {
      QM_RETURN_IF_ERROR(SubmitJob(static_cast<uint32_t>(next_submit_)));
      ++next_submit_;
    }
    QM_RETURN_IF_ERROR(Settle());
    if (instant_loop_) {
      DeclareLivelock(/*at_one_instant=*/true);
      break;
    }
    PlaceWaiting();
    if (options_.forecast_every.us > 0 && t >= next_forecast_us_) QM_RETURN_IF_ERROR(SampleForecast());
    if (StalledAt(now_)) {
      DeclareLivelock(/*at_one_instant=*/false);
      break;
    }
  }
  return absl::OkStatus();
}

// Runs cycles until settled, confirming at once the evictions whose pods stopped at once (those
// on failed nodes, and every preemption when the eviction delay is 0), until a round confirms
// nothing. With a zero delay a preemption loop (A preempts B, B's queue takes the room back
// first, ...) can repeat forever at one instant: after kMaxSettleRounds rounds `instant_loop_`
// is set and the run stops there as a livelock rather than hang.
absl::Status Simulation::Settle() {
  for (int64_t round = 0;; ++round) {
    if (round > kMaxSettleRounds) {
      instant_loop_ = true;  // the loop stops the run as a livelock at this instant
      return absl::OkStatus();
    }
    cycles_ += engine_.RunUntilStable(static_cast<int>(std::min<int64_t>(options_.max_cycles_per_instant, 1'000'000)));
    QM_RETURN_IF_ERROR(HandleEvents(engine_.LastEvents()));
    if (to_confirm_.empty()) return absl::OkStatus();
    std::vector<uint32_t> confirm;
    confirm.swap(to_confirm_);
    for (uint32_t j : confirm) {
      QM_RETURN_IF_ERROR(engine_.ConfirmEvicted(jobs_[j].handle));
      QM_RETURN_IF_ERROR(HandleEvents(engine_.LastEvents()));
    }
  }
}

// The trace job behind an engine workload, or kNone (a workload of the cluster file, or deleted).
uint32_t Simulation::JobOf(WorkloadHandle h) const {
  if (h.index >= job_of_slot_.size()) return kNone;
  const uint32_t j = job_of_slot_[h.index];
  return j != kNone && jobs_[j].handle == h ? j : kNone;
}

// Applies the engine's events to the jobs they concern.
absl::Status Simulation::HandleEvents(std::span<const Event> events) {
  for (const Event& e : events) {
    const uint32_t j = JobOf(e.workload);
    if (j == kNone) continue;  // a workload of the cluster file, not of the trace
    switch (e.kind) {
      case EventKind::kAdmitted: Admitted(j, e); break;
      case EventKind::kPreempted:
      case EventKind::kEvicted: Stopped(j, e); break;
      case EventKind::kRequeued:
      case EventKind::kDeactivated: Requeued(j, e.kind == EventKind::kRequeued); break;
      default: break;
    }
  }
  return absl::OkStatus();
}

// Whether some job waits for admission.
bool Simulation::HasPending() const {
  for (const QueueInfo& q : queues_)
    if (q.pending > 0) return true;
  return false;
}

}  // namespace internal

absl::StatusOr<SimulationResult> Simulate(const SimulationInput& cluster, const Trace& trace,
                                          const FaultPlan& faults, const SimulationOptions& options) {
  internal::Simulation sim(cluster, trace, faults, options);
  return sim.Run();
}

}  // namespace qm::sim
