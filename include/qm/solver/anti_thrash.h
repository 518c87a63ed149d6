// Preemption history, the preemption-cycle detector, and the anti-thrash policies that act inside
// a cycle: minimum runtime before preemption and the borrow back-off (qm/model/anti_thrash.h,
// docs/semantics.md §10 and "Extensions beyond Kueue"). The loop-free fair-sharing check lives in
// fair_sharing.h, next to the search it checks.
//
// With no policy configured, nothing here changes a decision: the history is bookkeeping, the
// detector only adds events when enabled, and every policy check returns "not blocked" after one
// branch on an empty configuration.
//
// Costs: a protection check is O(rules) per candidate examined (only with rules); recording a
// preemption is O(1) plus, with the detector, a walk of the recent cross-queue preemption edges of
// the victim's tree, O(E) for E ClusterQueue pairs that preempted each other within the window;
// timers are O(log T) each.
#ifndef QM_SOLVER_ANTI_THRASH_H_
#define QM_SOLVER_ANTI_THRASH_H_

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "qm/model/decisions.h"
#include "qm/queue/pending_queue.h"
#include "qm/state/cluster_state.h"

namespace qm {

/// The condition reason of a workload held back by an anti-thrash back-off (a Quartermaster reason).
inline constexpr const char* kBackoffReason = "Backoff";
/// `Event::reason` of the cycle events.
inline constexpr const char* kWorkloadCycleReason = "WorkloadPreemptionCycle";
inline constexpr const char* kQueueCycleReason = "ClusterQueuePreemptionCycle";

/// The name of the priority class a workload names ("" when none): the spec's class, else the
/// `kueue.x-k8s.io/priority-class` label.
inline std::string_view PriorityClassNameOf(const WorkloadRecord& w) {
  if (!w.extras) return {};
  if (w.extras->priority_class.source != PriorityClassSource::kNone) return w.extras->priority_class.name;
  for (const auto& [k, v] : w.extras->labels)
    if (k == "kueue.x-k8s.io/priority-class") return v;
  return {};
}

/// The longest minimum runtime of the rules that protect `w`, admitted in `cq`, against `reason`.
inline Duration MinRuntimeFor(const ClusterState& s, const WorkloadRecord& w, ClusterQueueId cq,
                              PreemptionReason reason) {
  Duration longest;
  for (const MinRuntimeRule& r : s.config.anti_thrash.min_runtime) {
    if (r.duration <= longest) continue;
    if (!r.reasons.empty() && std::find(r.reasons.begin(), r.reasons.end(), reason) == r.reasons.end()) continue;
    if (!r.cluster_queues.empty() &&
        std::find(r.cluster_queues.begin(), r.cluster_queues.end(), s.cq(cq).name) == r.cluster_queues.end())
      continue;
    if (!r.priority_classes.empty() &&
        std::find(r.priority_classes.begin(), r.priority_classes.end(), PriorityClassNameOf(w)) ==
            r.priority_classes.end())
      continue;
    longest = r.duration;
  }
  return longest;
}

/// Whether the workload, holding quota and not being evicted, may not be preempted for `reason`
/// now because it has not yet run its minimum runtime.
inline bool ProtectedByMinRuntime(const ClusterState& s, WorkloadId id, PreemptionReason reason) {
  if (s.config.anti_thrash.min_runtime.empty()) return false;
  const WorkloadRecord& w = s.wl(id);
  if (!w.admission || w.admission->evicted) return false;
  const Duration need = MinRuntimeFor(s, w, w.admission->cluster_queue, reason);
  return need.us > 0 && s.Now() - w.admission->reserved_at < need;
}

inline void AddTimer(ClusterState& s, Time at, WorkloadId id) {
  s.thrash.timers.emplace(at.us, s.Handle(id).Pack());
}

/// After an admission: a timer for each end of a protection, so workloads parked because every
/// candidate was protected look again when one ends.
inline void ScheduleProtectionEnds(ClusterState& s, WorkloadId id) {
  if (s.config.anti_thrash.min_runtime.empty()) return;
  const WorkloadRecord& w = s.wl(id);
  for (int r = 0; r < kPreemptionReasons; ++r) {
    const Duration d = MinRuntimeFor(s, w, w.admission->cluster_queue, static_cast<PreemptionReason>(r));
    if (d.us > 0) AddTimer(s, w.admission->reserved_at + d, id);  // equal ends share one entry
  }
}

/// Until when the borrow back-off keeps `w` within nominal quota; nullopt when it may borrow now.
inline std::optional<Time> BorrowBackoffUntil(const ClusterState& s, const WorkloadRecord& w) {
  if (s.config.anti_thrash.borrow_backoff.base.us <= 0 || !w.extras || !w.extras->preemptions) return std::nullopt;
  const Time until = w.extras->preemptions->borrow_allowed_at;
  if (until <= s.Now()) return std::nullopt;
  return until;
}

/// The n-th wait of a back-off: min(max, base × 2^(n−1)).
inline Duration BackoffAfter(const BackoffConfig& b, uint32_t n) {
  Duration d = b.base;
  const Duration cap = b.max.us > 0 ? b.max : b.base;
  for (uint32_t i = 1; i < n && d < cap; ++i) d.us = d.us > cap.us / 2 ? cap.us : d.us * 2;
  return std::min(d, cap);
}

/// Until when the requeue back-off keeps `w` from being admitted; nullopt when it may be.
inline std::optional<Time> RequeueBackoffUntil(const ClusterState& s, const WorkloadRecord& w) {
  if (s.config.anti_thrash.requeue_backoff.base.us <= 0 || !w.extras || !w.extras->preemptions) return std::nullopt;
  const Time until = w.extras->preemptions->admit_allowed_at;
  if (until <= s.Now()) return std::nullopt;
  return until;
}

/// Until when the preemption back-off keeps `w` from issuing new preemptions; nullopt when it may.
inline std::optional<Time> PreemptionBackoffUntil(const ClusterState& s, const WorkloadRecord& w) {
  if (s.config.anti_thrash.preemption_backoff.base.us <= 0 || !w.extras || !w.extras->preemptions) return std::nullopt;
  const PreemptionHistory& h = *w.extras->preemptions;
  if (h.rounds_unadmitted == 0 || h.preempt_allowed_at <= s.Now()) return std::nullopt;
  return h.preempt_allowed_at;
}

inline PreemptionHistory& HistoryOf(WorkloadRecord& w) {
  if (!w.extras) w.extras = std::make_unique<WorkloadExtras>();
  if (!w.extras->preemptions) w.extras->preemptions = std::make_unique<PreemptionHistory>();
  return *w.extras->preemptions;
}

namespace anti_thrash_internal {

// A ring of ClusterQueues that preempted each other within the window, closed by the preemption
// `from` → `to` just recorded: `to` →…→ `from` over recent edges. Depth-first in edge insertion
// order (deterministic); each queue is visited once.
inline bool FindRing(const ClusterState& s, ClusterQueueId from, ClusterQueueId to, Time since,
                     std::vector<uint32_t>* ring) {
  const auto& edges = s.thrash.edges;
  std::vector<uint32_t> path{to.value};
  std::vector<size_t> next{0};
  std::vector<bool> seen(edges.size(), false);
  if (to.value < seen.size()) seen[to.value] = true;
  while (!path.empty()) {
    const uint32_t at = path.back();
    if (at == from.value) {
      ring->assign(path.begin(), path.end());  // to … from; the edge from → to closes it
      return true;
    }
    const auto* out = at < edges.size() ? &edges[at] : nullptr;
    size_t& i = next.back();
    bool descended = false;
    while (out != nullptr && i < out->size()) {
      const ThrashState::Edge& e = (*out)[i++];
      if (e.at < since || (e.to.value < seen.size() && seen[e.to.value])) continue;
      if (e.to.value < seen.size()) seen[e.to.value] = true;
      path.push_back(e.to.value);
      next.push_back(0);
      descended = true;
      break;
    }
    if (!descended) {
      path.pop_back();
      next.pop_back();
    }
  }
  return false;
}

inline std::string QueueRingText(const ClusterState& s, const std::vector<uint32_t>& ring) {
  std::string out;
  for (uint32_t q : ring) out += s.cqs[q].name + " -> ";
  return out + s.cqs[ring.front()].name;
}

}  // namespace anti_thrash_internal

/// Records a preemption just issued (`victim` is now evicting): the victim's history and borrow
/// back-off, the preemptor's count, and, with the cycle detector on, the cycle events it closes
/// (appended to `events` after the kPreempted event).
inline void RecordPreemption(ClusterState& s, WorkloadId victim, WorkloadId preemptor, ClusterQueueId preemptor_cq,
                             PreemptionReason reason, std::vector<Event>& events) {
  const Time now = s.Now();
  WorkloadRecord& v = s.wl(victim);
  const ClusterQueueId victim_cq = v.admission->cluster_queue;
  PreemptionHistory& h = HistoryOf(v);
  ++h.preempted;
  ++h.by_reason[static_cast<int>(reason)];
  h.held_lost.us += std::max<int64_t>(0, (now - v.admission->reserved_at).us);
  h.Add(PreemptionHistory::Entry{now, s.Handle(preemptor), s.WorkloadName(preemptor), preemptor_cq, reason});
  const AntiThrashConfig& cfg = s.config.anti_thrash;
  if (cfg.borrow_backoff.base.us > 0 && reason != PreemptionReason::kInClusterQueue) {
    h.borrow_allowed_at = now + BackoffAfter(cfg.borrow_backoff, h.cohort_preemptions());
    AddTimer(s, h.borrow_allowed_at, victim);
  }
  if (cfg.requeue_backoff.base.us > 0) {
    h.admit_allowed_at = now + BackoffAfter(cfg.requeue_backoff, h.preempted);
    AddTimer(s, h.admit_allowed_at, victim);
  }
  PreemptionHistory& ph = HistoryOf(s.wl(preemptor));
  ++ph.caused;
  if (!cfg.cycle_detection.enabled) return;

  // A workload preempted by one it preempted before.
  if (ph.PreemptedBy(s.Handle(victim))) {
    Event& e = s.NewEvent(events, EventKind::kPreemptionCycle, victim, victim_cq);
    e.reason = kWorkloadCycleReason;
    e.preemption_reason = reason;
    e.preemptor = s.Handle(preemptor);
    const PreemptionHistory::Entry* earlier = nullptr;
    for (const auto& en : ph.recent)
      if (en.preemptor == s.Handle(victim)) earlier = &en;
    e.message = fmt::format(
        "{} preempted {} ({}), which had preempted it {}s earlier ({}); {} has been preempted {} time(s), {} {}",
        s.WorkloadName(preemptor), s.WorkloadName(victim), PreemptionReasonName(reason),
        (now - earlier->at).us / 1000000, PreemptionReasonName(earlier->reason), s.WorkloadName(victim), h.preempted,
        s.WorkloadName(preemptor), ph.preempted);
    e.cycle_queues = {preemptor_cq, victim_cq};
  }
  if (victim_cq == preemptor_cq) return;

  // ClusterQueues that keep preempting each other: a ring of recent cross-queue preemptions.
  auto& edges = s.thrash.edges;
  if (edges.size() < s.cqs.size()) edges.resize(s.cqs.size());
  auto& out = edges[preemptor_cq.value];
  auto it = std::find_if(out.begin(), out.end(), [&](const ThrashState::Edge& e) { return e.to == victim_cq; });
  if (it == out.end()) out.push_back({victim_cq, now});
  else it->at = now;
  const Time since = now - cfg.cycle_detection.window;
  std::vector<uint32_t> ring;
  if (!anti_thrash_internal::FindRing(s, preemptor_cq, victim_cq, since, &ring)) return;
  // ring is victim … preemptor; in preemption order it runs preemptor → victim → … → preemptor.
  std::rotate(ring.begin(), ring.end() - 1, ring.end());
  std::rotate(ring.begin(), std::min_element(ring.begin(), ring.end()), ring.end());
  auto [rep, fresh] = s.thrash.reported_rings.try_emplace(ring, now);
  if (!fresh) {
    if (rep->second > since) return;  // reported within the window
    rep->second = now;
  }
  Event& e = s.NewEvent(events, EventKind::kPreemptionCycle, victim, victim_cq);
  e.reason = kQueueCycleReason;
  e.preemption_reason = reason;
  e.preemptor = s.Handle(preemptor);
  e.message = fmt::format("ClusterQueues preempted each other in a ring within {}s: {}",
                          cfg.cycle_detection.window.us / 1000000, anti_thrash_internal::QueueRingText(s, ring));
  for (uint32_t q : ring) e.cycle_queues.push_back(ClusterQueueId(q));
}

/// After a cycle in which `preemptor` had at least one workload newly preempted: one more round
/// without admission, and with the preemption back-off, the instant it may preempt again.
inline void RecordPreemptionRound(ClusterState& s, WorkloadId preemptor) {
  PreemptionHistory& h = HistoryOf(s.wl(preemptor));
  ++h.rounds_unadmitted;
  const BackoffConfig& b = s.config.anti_thrash.preemption_backoff;
  if (b.base.us <= 0) return;
  h.preempt_allowed_at = s.Now() + BackoffAfter(b, h.rounds_unadmitted);
  AddTimer(s, h.preempt_allowed_at, preemptor);
}

/// After an admission: the workload's preemption rounds start over.
inline void ResetPreemptionRounds(WorkloadRecord& w) {
  if (w.extras && w.extras->preemptions) w.extras->preemptions->rounds_unadmitted = 0;
}

/// Flushes the cohort trees of the workloads whose protection or back-off has ended (their timers
/// passed), so what was parked behind them is looked at again. Called at the start of a cycle.
inline void ExpireTimers(ClusterState& s) {
  auto& timers = s.thrash.timers;
  const int64_t now = s.Now().us;
  while (!timers.empty() && timers.begin()->first <= now) {
    const WorkloadHandle h = WorkloadHandle::Unpack(timers.begin()->second);
    timers.erase(timers.begin());
    const WorkloadId id = s.Resolve(h);
    if (!id.valid()) continue;
    const WorkloadRecord& w = s.wl(id);
    const ClusterQueueId cq = w.admission ? w.admission->cluster_queue : w.queued_in;
    if (cq.valid()) RequestFlush(s, cq);
  }
}

/// The earliest instant at which a timer of the policies will flush a cohort tree.
inline std::optional<Time> NextTimer(const ClusterState& s) {
  if (s.thrash.timers.empty()) return std::nullopt;
  return Time{s.thrash.timers.begin()->first};
}

}  // namespace qm

#endif  // QM_SOLVER_ANTI_THRASH_H_
