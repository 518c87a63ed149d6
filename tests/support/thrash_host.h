// A deterministic host for property tests: drives an `Engine` in virtual time like a small
// simulator, and keeps every event it sees in a log.
//
// At each instant, in this order: workloads whose run time has passed finish (`Finish`; finished
// workloads are kept, never deleted), evictions whose stop delay has passed are confirmed
// (`ConfirmEvicted`), arrivals due are submitted, then cycles run one by one until one is
// `settled()`. The next instant is the earliest of the next arrival, finish, pending confirmation
// and `Engine::NextTimedChange()`. An admitted workload starts running at once (there are no
// nodes) and finishes `run` later; a preempted one loses its progress and runs its whole `run`
// again when readmitted. The run stops after `horizon`, when nothing is left that could change
// anything (every workload finished, or the rest can never be admitted), at the first error, or
// when one workload reaches `max_preemptions_per_workload`.
//
// The host checks what it can check as it goes and records each violation in
// `HostRun::errors`: a cycle whose self-check failed (`EngineConfig::check_invariants` is forced
// on), a refused call, an event that does not fit the workload's state as the host knows it (e.g.
// kRequeued other than from the host's `ConfirmEvicted`, kPreemptionCycle with the detector off),
// a timer in the past, and, at the end, a workload the engine lost or whose engine state differs
// from the host's.
#ifndef QM_TESTS_SUPPORT_THRASH_HOST_H_
#define QM_TESTS_SUPPORT_THRASH_HOST_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "qm/adapter/engine.h"

namespace qm::test {

/// One workload the host submits: a single pod set `main` in namespace `ns`.
struct Arrival {
  std::string name;
  std::string local_queue;
  int32_t pods = 1;
  /// Per pod, in base units (milli-CPU, GPU count); 0 = not requested.
  int64_t cpu = 0;
  int64_t gpu = 0;
  /// Plain `spec.priority` when set; otherwise `priority_class` names a WorkloadPriorityClass.
  std::optional<int32_t> priority;
  std::string priority_class;
  /// Offset from `HostScenario::start`.
  Duration submit;
  Duration run;
};

/// Everything one host run needs.
struct HostScenario {
  EngineConfig config;
  /// Applied once, in order, before the first instant.
  std::vector<ObjectSpec> objects;
  /// In submission order (ties in `submit` keep this order).
  std::vector<Arrival> arrivals;
  Time start = Time::FromUnixSeconds(1'000'000);
  /// The run stops after `start + horizon`.
  Duration horizon = Duration::Seconds(200 * 3600);
  /// Time between a preemption and the host's `ConfirmEvicted` (Kubernetes' grace period).
  Duration stop_delay = Duration::Seconds(30);
  /// Stops the run (marking it truncated) once one workload has been preempted this many times;
  /// 0 = no limit. For runs that may loop and only need to show it.
  int64_t max_preemptions_per_workload = 0;
  /// A cap on cycles at one instant before the host gives up (a livelock within one instant).
  int max_cycles_per_instant = 1000;
  /// Keeps the engine's `Save()` of the end of the run in `HostRun::snapshot` (a forecast's start).
  bool save_at_end = false;
  /// Runs the engine without waiting workloads' status texts, as a forecast's private copy does
  /// (`internal::SilenceStatusTexts`).
  bool quiet_status = false;
  /// Called after every instant with the engine (tests that inspect or copy it mid-run).
  std::function<void(const Engine&)> after_instant;
};

/// One event as the host saw it, with names instead of handles.
struct LoggedEvent {
  uint64_t sequence = 0;
  /// The engine's cycle number for events of a cycle; 0 for events of a host call.
  uint64_t cycle = 0;
  Time time;
  EventKind kind = EventKind::kAdmitted;
  std::string workload;
  std::string cluster_queue;
  std::string reason;
  PreemptionReason preemption_reason = PreemptionReason::kInClusterQueue;
  std::string preemptor;
  std::string message;
};

/// Where the host believes a workload is.
enum class HostState { kUnsubmitted, kPending, kRunning, kEvicting, kFinished };

/// What one run produced.
struct HostRun {
  std::vector<LoggedEvent> log;
  /// Every violation the host saw, in order; empty for a clean run.
  std::vector<std::string> errors;
  /// Per arrival (same index): the final state as the host tracked it.
  std::vector<HostState> final_state;
  /// Per arrival: `WorkloadStatus::preemptions` at the end (zero when never submitted).
  std::vector<PreemptionSummary> final_preemptions;
  Time end;
  int64_t instants = 0;
  int64_t cycles = 0;
  bool truncated = false;  ///< stopped by `max_preemptions_per_workload`
  /// Every ClusterQueue's usage and admitted workloads when the first error was seen.
  std::string state_at_first_error;
  /// With `HostScenario::save_at_end`: the engine at the end of the run.
  std::string snapshot;
};

/// Renders one logged event as one line (the form determinism tests compare byte for byte);
/// without `numbers`, the event sequence and cycle numbers are left out.
inline std::string RenderEvent(const LoggedEvent& e, Time start, bool numbers = true) {
  std::string line = numbers ? fmt::format("#{} c{} ", e.sequence, e.cycle) : std::string();
  line += fmt::format("t={}.{:06} {} {}", (e.time - start).us / 1000000, (e.time - start).us % 1000000,
                      EventKindName(e.kind), e.workload);
  if (!e.cluster_queue.empty()) line += " cq=" + e.cluster_queue;
  if (!e.reason.empty()) line += " reason=" + e.reason;
  if (e.kind == EventKind::kPreempted || e.kind == EventKind::kPreemptionCycle) {
    line += fmt::format(" by={} why={}", e.preemptor, PreemptionReasonName(e.preemption_reason));
  }
  if (!e.message.empty()) line += " msg=" + e.message;
  return line;
}

/// The whole log, one event a line; `skip` leaves out events of that kind.
inline std::string RenderLog(const HostRun& run, Time start, bool numbers = true,
                             std::optional<EventKind> skip = std::nullopt) {
  std::string out;
  for (const LoggedEvent& e : run.log)
    if (e.kind != skip) out += RenderEvent(e, start, numbers) + "\n";
  return out;
}

namespace thrash_host_internal {

inline const char* HostStateName(HostState s) {
  switch (s) {
    case HostState::kUnsubmitted: return "unsubmitted";
    case HostState::kPending: return "pending";
    case HostState::kRunning: return "running";
    case HostState::kEvicting: return "evicting";
    case HostState::kFinished: return "finished";
  }
  return "?";
}

inline WorkloadSpec SpecOf(const Arrival& a) {
  WorkloadSpec spec;
  spec.namespace_ = "ns";
  spec.name = a.name;
  spec.uid = "uid-" + a.name;
  spec.queue_name = a.local_queue;
  spec.priority = a.priority;
  if (!a.priority) spec.priority_class = {PriorityClassSource::kWorkloadPriorityClass, a.priority_class};
  PodSetSpec ps;
  ps.count = a.pods;
  if (a.cpu > 0) ps.requests.emplace_back("cpu", a.cpu);
  if (a.gpu > 0) ps.requests.emplace_back("nvidia.com/gpu", a.gpu);
  std::sort(ps.requests.begin(), ps.requests.end());
  spec.pod_sets.push_back(std::move(ps));
  return spec;
}

struct Slot {
  WorkloadHandle handle;
  HostState state = HostState::kUnsubmitted;
  Time finish_at;   // kRunning
  Time confirm_at;  // kEvicting
  int64_t preempted = 0;
};

class Host {
 public:
  explicit Host(const HostScenario& sc) : sc_(sc), slots_(sc.arrivals.size()) {}

  HostRun Run() {
    EngineConfig config = sc_.config;
    config.check_invariants = true;
    absl::StatusOr<Engine> created = Engine::Create(std::move(config));
    if (!created.ok()) return Fail(fmt::format("Engine::Create: {}", std::string(created.status().message())));
    engine_.emplace(std::move(*created));
    Engine& e = *engine_;
    if (sc_.quiet_status) internal::SilenceStatusTexts(e);
    if (absl::Status st = e.SetNow(sc_.start); !st.ok()) return Fail(std::string(st.message()));
    if (absl::Status st = e.Apply(sc_.objects); !st.ok())
      return Fail(fmt::format("Apply: {}", std::string(st.message())));
    Record(0);

    const Time last = sc_.start + sc_.horizon;
    std::optional<Time> now = sc_.start;
    while (now && *now <= last && run_.errors.empty() && !run_.truncated) {
      Step(*now);
      if (sc_.after_instant) sc_.after_instant(e);
      now = NextInstant(*now);
    }
    Finalize();
    return std::move(run_);
  }

 private:
  HostRun Fail(std::string why) {
    run_.errors.push_back(std::move(why));
    Finalize();
    return std::move(run_);
  }

  void Error(std::string why) {
    if (run_.errors.empty() && engine_) run_.state_at_first_error = DumpState();
    if (run_.errors.size() < 20) run_.errors.push_back(std::move(why));
  }

  // Every ClusterQueue's usage and every workload holding quota.
  std::string DumpState() const {
    const Engine& e = *engine_;
    std::string out;
    for (const std::string& name : e.ClusterQueues()) {
      absl::StatusOr<ClusterQueueStatus> cq = e.GetClusterQueue(name);
      if (!cq.ok()) continue;
      out += fmt::format("{} (cohort {}):", name, cq->cohort);
      for (const FlavorResourceUsage& u : cq->usage)
        out += fmt::format(" {} nominal={} usage={} borrowed={};", u.resource, u.nominal, u.usage, u.borrowed);
      out += "\n";
      for (WorkloadHandle h : cq->admitted) {
        absl::StatusOr<WorkloadStatus> w = e.GetWorkload(h);
        if (w.ok()) out += fmt::format("  {} {}\n", w->name, WorkloadStateName(w->state));
      }
    }
    return out;
  }

  void Step(Time now) {
    Engine& e = *engine_;
    ++run_.instants;
    if (absl::Status st = e.SetNow(now); !st.ok()) return Error(std::string(st.message()));
    // 1. Finishes, in (finish time, arrival) order.
    for (size_t i : Due(HostState::kRunning, now, &Slot::finish_at)) {
      current_ = i;
      if (absl::Status st = e.Finish(slots_[i].handle); !st.ok())
        Error(fmt::format("Finish {}: {}", sc_.arrivals[i].name, std::string(st.message())));
      Record(0);
    }
    // 2. Confirmations of evictions whose stop delay has passed.
    for (size_t i : Due(HostState::kEvicting, now, &Slot::confirm_at)) {
      current_ = i;
      if (absl::Status st = e.ConfirmEvicted(slots_[i].handle); !st.ok())
        Error(fmt::format("ConfirmEvicted {}: {}", sc_.arrivals[i].name, std::string(st.message())));
      Record(0);
    }
    current_.reset();
    // 3. Arrivals.
    for (; next_arrival_ < sc_.arrivals.size() && sc_.start + sc_.arrivals[next_arrival_].submit <= now;
         ++next_arrival_) {
      const Arrival& a = sc_.arrivals[next_arrival_];
      absl::StatusOr<WorkloadHandle> h = e.Submit(SpecOf(a));
      if (!h.ok()) {
        Error(fmt::format("Submit {}: {}", a.name, std::string(h.status().message())));
        continue;
      }
      slots_[next_arrival_].handle = *h;
      slots_[next_arrival_].state = HostState::kPending;
      index_.emplace_back(a.name, next_arrival_);
      std::sort(index_.begin(), index_.end());
      Record(0);
    }
    if (absl::Status st = e.CheckInvariants(); !st.ok())
      Error(fmt::format("invariants after host calls: {}", std::string(st.message())));
    // 4. Cycles until one changes nothing.
    for (int n = 0;; ++n) {
      if (n == sc_.max_cycles_per_instant) {
        Error(fmt::format("no settled cycle after {} cycles at t={}s", n, (now - sc_.start).us / 1000000));
        break;
      }
      const CycleResult& r = e.ScheduleCycle();
      ++run_.cycles;
      Record(r.cycle, r.events);
      if (!r.status.ok()) {
        Error(fmt::format("cycle {} at t={}s: {}", r.cycle, (now - sc_.start).us / 1000000,
                          std::string(r.status.message())));
        break;
      }
      if (r.settled()) break;
    }
  }

  // Slots in state `s` whose `field` time has come, by (time, index).
  std::vector<size_t> Due(HostState s, Time now, Time Slot::*field) const {
    std::vector<std::pair<Time, size_t>> due;
    for (size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i].state == s && slots_[i].*field <= now) due.emplace_back(slots_[i].*field, i);
    std::sort(due.begin(), due.end());
    std::vector<size_t> out;
    for (const auto& d : due) out.push_back(d.second);
    return out;
  }

  std::optional<Time> NextInstant(Time now) {
    std::optional<Time> next;
    const auto consider = [&](Time t) {
      if (!next || t < *next) next = t;
    };
    bool waiting = false;  // something is pending: timers can matter
    for (const Slot& s : slots_) {
      if (s.state == HostState::kRunning) consider(s.finish_at);
      if (s.state == HostState::kEvicting) consider(s.confirm_at);
      waiting = waiting || s.state == HostState::kPending;
    }
    if (next_arrival_ < sc_.arrivals.size()) consider(sc_.start + sc_.arrivals[next_arrival_].submit);
    if (const std::optional<Time> timer = engine_->NextTimedChange(); timer && waiting) {
      // Every timer at or before `now` was consumed by the cycles that just ran.
      if (*timer <= now) {
        Error(fmt::format("NextTimedChange {}s is not after the cycles at {}s", (*timer - sc_.start).us / 1000000,
                          (now - sc_.start).us / 1000000));
        return std::nullopt;
      }
      consider(*timer);
    }
    return next;
  }

  std::optional<size_t> IndexOf(const std::string& ns_name) const {
    if (ns_name.size() < 3 || ns_name.compare(0, 3, "ns/") != 0) return std::nullopt;
    const std::string name = ns_name.substr(3);
    auto it = std::lower_bound(index_.begin(), index_.end(), std::make_pair(name, size_t{0}));
    if (it == index_.end() || it->first != name) return std::nullopt;
    return it->second;
  }

  void Record(uint64_t cycle) { Record(cycle, engine_->LastEvents()); }

  // Logs the events and moves the host's model of each workload along; an event that does not
  // fit the model is an error.
  void Record(uint64_t cycle, std::span<const Event> events) {
    const Engine& e = *engine_;
    for (const Event& ev : events) {
      LoggedEvent le;
      le.sequence = ev.sequence;
      le.cycle = cycle;
      le.time = ev.time;
      le.kind = ev.kind;
      le.workload = e.WorkloadName(ev.workload);
      if (ev.cluster_queue.valid()) le.cluster_queue = e.ClusterQueueName(ev.cluster_queue);
      le.reason = ev.reason;
      le.preemption_reason = ev.preemption_reason;
      if (ev.preemptor.valid()) le.preemptor = e.WorkloadName(ev.preemptor);
      le.message = ev.message;
      if (!run_.log.empty() && ev.sequence <= run_.log.back().sequence)
        Error(fmt::format("event #{} after #{}: sequence numbers must increase", ev.sequence, run_.log.back().sequence));
      if (ev.time != e.Now()) Error(fmt::format("event #{} is stamped {}µs, not now", ev.sequence, ev.time.us));
      Apply(le, cycle);
      run_.log.push_back(std::move(le));
    }
  }

  void Apply(const LoggedEvent& le, uint64_t cycle) {
    const std::optional<size_t> i = IndexOf(le.workload);
    if (!i) return Error(fmt::format("event #{} names unknown workload '{}'", le.sequence, le.workload));
    Slot& s = slots_[*i];
    const auto expect = [&](HostState want, bool from_cycle) {
      if (s.state != want || (cycle != 0) != from_cycle || (!from_cycle && current_ != i)) {
        Error(fmt::format("event #{} {} {} in host state {} ({})", le.sequence, EventKindName(le.kind), le.workload,
                          HostStateName(s.state), cycle != 0 ? "from a cycle" : "from a host call"));
        return false;
      }
      return true;
    };
    switch (le.kind) {
      case EventKind::kAdmitted:
        if (expect(HostState::kPending, true)) {
          s.state = HostState::kRunning;
          s.finish_at = le.time + sc_.arrivals[*i].run;
        }
        break;
      case EventKind::kPreempted:
        ++s.preempted;
        if (sc_.max_preemptions_per_workload > 0 && s.preempted >= sc_.max_preemptions_per_workload)
          run_.truncated = true;
        if (le.preemptor.empty() || !IndexOf(le.preemptor))
          Error(fmt::format("event #{} preemption by unknown '{}'", le.sequence, le.preemptor));
        if (expect(HostState::kRunning, true)) {
          s.state = HostState::kEvicting;
          s.confirm_at = le.time + sc_.stop_delay;
        }
        break;
      case EventKind::kRequeued:
        if (expect(HostState::kEvicting, false)) s.state = HostState::kPending;
        break;
      case EventKind::kFinished:
        if (expect(HostState::kRunning, false)) s.state = HostState::kFinished;
        break;
      case EventKind::kPreemptionCycle: {
        // Follows, in the same cycle, the preemption it reports.
        bool follows = false;
        for (auto it = run_.log.rbegin(); it != run_.log.rend() && it->cycle == cycle; ++it) {
          if (it->kind == EventKind::kPreempted && it->workload == le.workload && it->preemptor == le.preemptor) {
            follows = true;
            break;
          }
        }
        if (!follows || cycle == 0 || !sc_.config.anti_thrash.cycle_detection.enabled)
          Error(fmt::format("event #{} PreemptionCycle {} by {}: not right after that preemption, or detection off",
                            le.sequence, le.workload, le.preemptor));
        break;
      }
      default:
        Error(fmt::format("event #{} {} {}: the host never causes this", le.sequence, EventKindName(le.kind), le.workload));
    }
  }

  // End of run: the engine's view of every workload must match the host's.
  void Finalize() {
    run_.final_state.resize(slots_.size());
    run_.final_preemptions.resize(slots_.size());
    if (!engine_) return;
    const Engine& e = *engine_;
    run_.end = e.Now();
    if (sc_.save_at_end) {
      absl::StatusOr<std::string> saved = e.Save();
      if (saved.ok()) run_.snapshot = std::move(*saved);
      else Error(fmt::format("Save: {}", std::string(saved.status().message())));
    }
    size_t submitted = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      run_.final_state[i] = slots_[i].state;
      if (slots_[i].state == HostState::kUnsubmitted) continue;
      ++submitted;
      absl::StatusOr<WorkloadStatus> st = e.GetWorkload(slots_[i].handle);
      if (!st.ok()) {
        Error(fmt::format("workload {} is lost: {}", sc_.arrivals[i].name, std::string(st.status().message())));
        continue;
      }
      run_.final_preemptions[i] = st->preemptions;
      WorkloadState want = WorkloadState::kPending;
      switch (slots_[i].state) {
        case HostState::kRunning: want = WorkloadState::kAdmitted; break;
        case HostState::kEvicting: want = WorkloadState::kEvicting; break;
        case HostState::kFinished: want = WorkloadState::kFinished; break;
        default: break;
      }
      if (st->state != want)
        Error(fmt::format("workload {} is {} in the engine, {} for the host", sc_.arrivals[i].name,
                          WorkloadStateName(st->state), HostStateName(slots_[i].state)));
    }
    if (e.Workloads().size() != submitted)
      Error(fmt::format("the engine knows {} workloads, the host submitted {}", e.Workloads().size(), submitted));
  }

  const HostScenario& sc_;
  std::optional<Engine> engine_;
  std::vector<Slot> slots_;
  std::vector<std::pair<std::string, size_t>> index_;  // name → arrival, sorted
  size_t next_arrival_ = 0;
  std::optional<size_t> current_;  // the workload of the host call whose events are recorded
  HostRun run_;
};

}  // namespace thrash_host_internal

/// Runs `sc` to its end (see the file comment).
inline HostRun RunHost(const HostScenario& sc) { return thrash_host_internal::Host(sc).Run(); }

}  // namespace qm::test

#endif  // QM_TESTS_SUPPORT_THRASH_HOST_H_
