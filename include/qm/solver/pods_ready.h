// Kueue's waitForPodsReady (EngineConfig::wait_for_pods_ready, docs/semantics.md §1.7.2): the
// workload controller's timeout on admitted workloads whose pods are not ready, its requeue
// back-off (status.requeueState), and the deactivation once the back-off limit is exceeded.
//
// The host reports readiness (`Engine::SetPodsReady`); the engine checks the deadlines at the start
// of every cycle, as it does the anti-thrash timers, and `Engine::NextTimedChange` names the next
// one to hosts that move time themselves. With waitForPodsReady off (the default) nothing here runs.
//
// Costs: one pass over the workload slots per cycle, only while waitForPodsReady is on.
#ifndef QM_SOLVER_PODS_READY_H_
#define QM_SOLVER_PODS_READY_H_

#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "fmt/format.h"
#include "qm/model/decisions.h"
#include "qm/queue/pending_queue.h"
#include "qm/state/accounting.h"
#include "qm/state/cluster_state.h"

namespace qm {

/// Kueue's reasons and messages (pkg/controller/core/workload_controller.go, pkg/workload/evict).
inline constexpr const char* kRequeuingLimitExceededMessage =
    "The workload is deactivated due to exceeding the maximum number of re-queuing retries";

/// Whether the engine runs Kueue's pods-ready timer (configured, and not switched off by the
/// DisableWaitForPodsReady gate).
inline bool WaitForPodsReadyOn(const ClusterState& s) {
  return s.config.wait_for_pods_ready.enabled && !s.config.features.disable_wait_for_pods_ready;
}

/// The instant at which an admitted workload whose pods are not ready is timed out, or nullopt
/// (pods ready, being evicted, inactive, or a recovery without a recovery timeout). Kueue's
/// `admittedNotReadyWorkload`: `timeout` from the admission while the pods never were ready
/// (WaitForStart), `recoveryTimeout` from the moment they stopped being ready (WaitForRecovery).
inline std::optional<Time> PodsReadyDeadline(const ClusterState& s, const WorkloadRecord& w) {
  if (w.deleted || !w.admission || w.admission->evicted || !w.active) return std::nullopt;
  const AdmissionRecord& a = *w.admission;
  if (a.pods_ready) return std::nullopt;
  const WaitForPodsReadyConfig& c = s.config.wait_for_pods_ready;
  if (!a.pods_recovering) return a.reserved_at + c.timeout;
  const Duration recovery = c.recovery_timeout.value_or(c.timeout);
  if (recovery.us <= 0) return std::nullopt;
  return a.pods_not_ready_since + recovery;
}

/// The end of a pending workload's requeue back-off while it still waits, or nullopt.
inline std::optional<Time> RequeueBackoffEnd(const WorkloadRecord& w) {
  if (w.deleted || !w.extras || !w.extras->requeue_at || w.state != WorkloadState::kPending) return std::nullopt;
  return w.extras->requeue_at;
}

/// Kueue's requeue back-off (pkg/workload UpdateRequeueState with pkg/util/wait): the `n`-th wait
/// (n ≥ 1) is base × 2^(n−1) seconds capped at max, except the first, which is `base` even above
/// max; max 0 means no cap. Kueue adds a random jitter of up to 0.01 % of the wait; the engine adds
/// none (deterministic), so its requeue instant is the earliest of Kueue's.
inline Duration RequeueBackoffWait(const WaitForPodsReadyConfig& c, int32_t n) {
  const int64_t base = c.backoff_base_seconds;
  const int64_t cap = c.backoff_max_seconds > 0 ? c.backoff_max_seconds : INT64_MAX / 2'000'000;
  if (n <= 1 || base == 0) return Duration::Seconds(base);
  int64_t wait = base;
  for (int32_t i = 1; i < n && wait < cap; ++i) wait = wait > cap / 2 ? cap : wait * 2;
  return Duration::Seconds(std::min(wait, cap));
}

/// Evicts every admitted workload whose pods-ready deadline has passed (PodsReadyTimeout, with a
/// requeue back-off), or deactivates it once its requeue count would pass `backoffLimitCount`; then
/// moves the pending workloads whose back-off has ended back to their queues. Events go to `events`.
/// Order: by deadline, then submission order.
inline void ExpirePodsReady(ClusterState& s, std::vector<Event>& events) {
  const Time now = s.Now();
  const WaitForPodsReadyConfig& c = s.config.wait_for_pods_ready;
  std::vector<std::tuple<int64_t, uint64_t, uint32_t>> timed_out, requeued;
  for (uint32_t i = 0; i < s.workloads.size(); ++i) {
    const WorkloadRecord& w = s.workloads[i];
    if (std::optional<Time> d = PodsReadyDeadline(s, w); d && *d <= now) timed_out.emplace_back(d->us, w.seq, i);
    if (std::optional<Time> d = RequeueBackoffEnd(w); d && *d <= now) requeued.emplace_back(d->us, w.seq, i);
  }
  std::sort(timed_out.begin(), timed_out.end());
  std::sort(requeued.begin(), requeued.end());
  for (const auto& [at, seq, i] : timed_out) {
    const WorkloadId id(i);
    WorkloadRecord& w = s.wl(id);
    if (!w.extras) w.extras = std::make_unique<WorkloadExtras>();
    WorkloadExtras& x = *w.extras;
    const ClusterQueueId cq = w.admission->cluster_queue;
    MarkEvicted(s, id, now);
    if (c.backoff_limit_count && x.requeue_count + 1 > *c.backoff_limit_count) {
      // Kueue sets a deactivation target; its reconciler then sets spec.active=false and evicts
      // with reason Deactivated + the cause, clearing status.requeueState.
      w.active = false;
      x.requeue_count = 0;
      x.requeue_at.reset();
      // Kueue's eviction reason is `Deactivated` with the cause in the message (and in the
      // condition's underlyingCause, RequeuingLimitExceeded); its metrics once called this
      // DeactivatedDueToRequeuingLimitExceeded (Kueue 0.10 to 0.12).
      w.reason = eviction_reason::kDeactivated;
      w.message = CompactString::Static(kRequeuingLimitExceededMessage);
    } else {
      ++x.requeue_count;
      const Time until = now + RequeueBackoffWait(c, x.requeue_count);
      if (!x.requeue_at || *x.requeue_at < until) x.requeue_at = until;
      s.requeue_backoff_seen = true;
      w.reason = eviction_reason::kPodsReadyTimeout;
      w.message = fmt::format("Exceeded the PodsReady timeout {}", s.WorkloadName(id));
    }
    Event& e = s.NewEvent(events, EventKind::kEvicted, id, cq);
    e.reason = w.reason;
    e.message = w.message;
  }
  for (const auto& [at, seq, i] : requeued) {
    const WorkloadId id(i);
    WorkloadRecord& w = s.wl(id);
    w.extras->requeue_at.reset();  // Kueue: Requeued=True, reason BackoffFinished
    if (PlaceOf(s, id) == QueuePlace::kInadmissible) Enqueue(s, id);
  }
}

/// The earliest pods-ready deadline or requeue back-off end, or nullopt (always with the feature off).
inline std::optional<Time> NextPodsReadyChange(const ClusterState& s) {
  if (!WaitForPodsReadyOn(s)) return std::nullopt;
  std::optional<Time> next;
  for (uint32_t i = 0; i < s.workloads.size(); ++i) {
    const WorkloadRecord& w = s.workloads[i];
    for (std::optional<Time> d : {PodsReadyDeadline(s, w), RequeueBackoffEnd(w)})
      if (d && (!next || *d < *next)) next = d;
  }
  return next;
}

}  // namespace qm

#endif  // QM_SOLVER_PODS_READY_H_
