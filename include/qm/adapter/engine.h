// The Engine: the one class a host program drives.
//
// A host creates the cluster's queueing objects, submits workloads, and calls `ScheduleCycle()`
// whenever it wants decisions (after every change, on a timer, or `RunUntilStable()`). Each call
// that changes objects is validated and all-or-nothing: on error nothing changed. Decisions are
// deterministic: the same calls in the same order give the same decisions, byte for byte.
//
// Everything a host must act on comes out as one ordered stream of `Event`s (admitted, preempted,
// evicted, requeued, finished, deactivated, activated, deleted), from every call that can cause
// one: `Apply`, `Delete`, the cycles, and the host's own `Evict`/`Deactivate`/... The events of the
// latest call are `LastEvents()`; the event callback receives them when the call has completed,
// never in the middle of it. A host loop:
//
//   QM_ASSIGN_OR_RETURN(qm::Engine engine, qm::Engine::Create(config));
//   QM_RETURN_IF_ERROR(engine.Apply(objects));                 // flavors, queues, cohorts, ...
//   QM_ASSIGN_OR_RETURN(qm::WorkloadHandle job, engine.Submit(spec));
//   for (const qm::Event& e : engine.ScheduleCycle().events) {
//     switch (e.kind) {
//       case qm::EventKind::kAdmitted:  StartPods(e.workload, e.pod_sets); break;
//       case qm::EventKind::kPreempted:
//       case qm::EventKind::kEvicted:   StopPods(e.workload); break;  // then ConfirmEvicted
//       default: break;
//     }
//   }
//   QM_RETURN_IF_ERROR(engine.ConfirmEvicted(victim));        // its pods have stopped
//   QM_RETURN_IF_ERROR(engine.Evict(job, "NodeFailures", "node n-17 failed"));  // host's own
//
// Eviction is two-phase, as in Kueue: an evicted workload keeps its quota (state kEvicting) until
// the host reports it stopped with `ConfirmEvicted`; then it returns to its queue (kRequeued), or
// stays out of it when it was deactivated (kDeactivated).
//
// Workloads are named by a `WorkloadHandle` (slot + generation; a handle of a deleted workload is
// rejected as stale, never taken for the workload that reuses its slot) or by namespace/name;
// every workload call takes either.
//
// Threads: an Engine owns all of its memory and keeps no thread-local or global state, so it may
// be created, driven and destroyed on different threads. It is not safe for concurrent use: one
// call at a time (const queries included: they simulate on the live state and undo).
//
// Re-entrancy and exceptions (docs/engine.md, "Exceptions and re-entrancy"): calls that change the
// engine (the setters and `ScheduleCycle`/`RunUntilStable` included) made from inside a host
// function (the event callback, the submission gate, the clock) are rejected with
// FailedPrecondition and change nothing; the const queries may be called there. Host functions
// should not throw. If one does, the call is rolled back when nothing had changed yet (the gate;
// the clock stamping a submission), and otherwise the engine is poisoned: every later call fails
// with FailedPrecondition naming the first exception, and the queries answer nothing. A
// moved-from Engine answers FailedPrecondition (and empty queries) too.
//
// Semantics: docs/semantics.md. Snapshots: docs/snapshot-format.md.
#ifndef QM_ADAPTER_ENGINE_H_
#define QM_ADAPTER_ENGINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/adapter/results.h"
#include "qm/model/cluster_queue.h"
#include "qm/model/config.h"
#include "qm/model/flavor.h"
#include "qm/model/local_queue.h"
#include "qm/model/priority.h"
#include "qm/model/workload.h"

namespace qm {

/// Any object the engine accepts.
using ObjectSpec = std::variant<NamespaceSpec, ResourceFlavorSpec, CohortSpec, ClusterQueueSpec,
                                LocalQueueSpec, WorkloadPriorityClassSpec, PriorityClassSpec,
                                WorkloadSpec>;

enum class ObjectKind {
  kNamespace,
  kResourceFlavor,
  kCohort,
  kClusterQueue,
  kLocalQueue,
  kWorkloadPriorityClass,
  kPriorityClass,
  kWorkload,
};
/// Kubernetes kind name ("ClusterQueue"); `ParseObjectKind` is its inverse.
const char* ObjectKindName(ObjectKind kind);
absl::StatusOr<ObjectKind> ParseObjectKind(std::string_view kind);

/// Names one object; `namespace_` only for LocalQueue and Workload ("default" when empty).
struct ObjectRef {
  ObjectKind kind = ObjectKind::kWorkload;
  std::string namespace_;
  std::string name;
};

/// Why a workload is where it is (see `Engine::Explain`).
struct WorkloadExplanation {
  WorkloadStatus status;
  /// Pending: the flavor assignment as it would be computed now, with every flavor tried.
  std::optional<Assignment> assignment;
  /// Pending with mode Preempt: the workloads that would be preempted now.
  std::vector<Preemption> would_preempt;
  /// Admitted: the recorded assignment (borrowing = assignment.borrowing()).
  /// Evicting or preempted earlier: who preempted it, under which reason, and the message.
  std::string preempted_by;  ///< "namespace/name" of the preemptor
  std::optional<PreemptionReason> preemption_reason;
  std::string preemption_message;
};

class Engine;
struct ForecastOptions;  // qm/adapter/forecast.h
struct ForecastReport;
struct WhatIfReport;  // qm/adapter/what_if.h
/// What `Engine::RunUntilSettled` did: the cycles it ran and whether it stopped because a cycle
/// changed nothing, or because it reached `max_cycles` (or was refused) with work left.
struct StableRun {
  int cycles = 0;          ///< cycles run; 0 when refused (from inside the event callback)
  bool settled = false;    ///< the last cycle changed nothing (`CycleResult::settled`)
  uint64_t last_cycle = 0; ///< number of the last cycle run (`CycleResult::cycle`); 0 when none ran
  int64_t admitted = 0;    ///< summed over the cycles run
  int64_t preempted = 0;   ///< summed over the cycles run
  int64_t pending = 0;     ///< heads considered and not admitted by the last cycle
};

namespace internal {
class EngineState;
/// Test-only access to an engine's private state (lib/adapter/invariants.cc), so tests can corrupt
/// it and check that `Engine::CheckInvariants` notices. Not API: never call it from a host.
EngineState& EngineStateForTesting(Engine& engine);
/// Library-internal (lib/adapter/forecast.cc): makes a private copy that nobody reads statuses from
/// skip writing waiting workloads' status texts (`ClusterState::quiet_status`). Decisions are the same.
void SilenceStatusTexts(Engine& engine);
/// Library-internal (forecasts, what-if answers): a private copy of `engine` as `Restore` would
/// make it from `Save`'s bytes with no host settings, made member by member without encoding
/// anything (lib/adapter/engine_copy.cc).
absl::StatusOr<Engine> CopyEngine(const Engine& engine);
}  // namespace internal

class Engine {
 public:
  /// An engine with the default configuration (always valid).
  Engine();
  /// An engine with `config`, after validating every field (semantics of the fields:
  /// qm/model/config.h); the error names the field, e.g.
  /// `fairSharing.preemptionStrategies: must not be empty`.
  static absl::StatusOr<Engine> Create(EngineConfig config);
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const EngineConfig& config() const;

  // ---- Objects -------------------------------------------------------------------------------

  /// Creates or updates every object in `objects`, in order, as one transaction: all objects are
  /// validated against the state they will see (earlier objects of the batch included) before any
  /// change is made. Workloads are submitted as by `Submit` (or updated when they already exist).
  /// Errors name the object and field, e.g.
  /// `ClusterQueue 'eng': spec.resourceGroups[0].flavors[1].resources[0].nominalQuota: must be >= 0`.
  ///
  /// Quota updates take effect at once and never evict: a ClusterQueue or Cohort whose quota
  /// shrinks below what its admitted workloads use stays over it until they finish or are evicted
  /// (as in Kueue); it admits nothing new that does not fit. Lost capacity (a failed node) is such
  /// an update. Events: evictions of a HoldAndDrain ClusterQueue or LocalQueue (kEvicted, reasons
  /// ClusterQueueStopped / LocalQueueStopped), workloads deactivated or activated by `spec.active`.
  absl::Status Apply(std::span<const ObjectSpec> objects);
  absl::Status Apply(const ObjectSpec& object);
  /// `Apply` on behalf of `principal`: every workload of the batch passes the submission gate
  /// (`EngineConfig::submission_gate`) as that principal first; a refusal changes nothing.
  /// `Apply(objects)` is `ApplyAs("", objects)`.
  absl::Status ApplyAs(std::string_view principal, std::span<const ObjectSpec> objects);

  /// Removes an object. A ClusterQueue that still holds admitted workloads cannot be deleted
  /// (FailedPrecondition); deleting a workload releases its quota at once (event kDeleted).
  absl::Status Delete(const ObjectRef& ref);
  absl::Status Delete(WorkloadHandle workload);

  // ---- Workloads -----------------------------------------------------------------------------

  /// Submits a new workload. Without `admission` it enters its LocalQueue's ClusterQueue as
  /// pending; with `admission` it is loaded as already holding that quota.
  absl::StatusOr<WorkloadHandle> Submit(const WorkloadSpec& spec);
  /// `Submit` on behalf of `principal`, who must pass the submission gate; a refused submission
  /// changes nothing. `Submit(spec)` is `SubmitAs("", spec)`.
  absl::StatusOr<WorkloadHandle> SubmitAs(std::string_view principal, const WorkloadSpec& spec);
  /// Replaces the submission gate (e.g. after a policy change added a team). FailedPrecondition
  /// from inside a host function (the gate itself included) or on an unusable engine.
  absl::Status SetSubmissionGate(SubmissionGate gate);

  /// The workload completed: its quota is released and it leaves every queue (kFinished).
  absl::Status Finish(WorkloadHandle workload);
  absl::Status Finish(std::string_view namespace_, std::string_view name);
  /// An evicted workload has stopped: its quota is released and it goes back to its queue
  /// (kRequeued), or stays out of every queue when it is inactive (kDeactivated).
  absl::Status ConfirmEvicted(WorkloadHandle workload);
  absl::Status ConfirmEvicted(std::string_view namespace_, std::string_view name);
  /// Confirms every evicting workload (what a host whose jobs stop at once would do); returns how
  /// many. Events as for `ConfirmEvicted`, in ClusterQueue name then candidate order.
  int ConfirmAllEvicted();

  /// The host evicts a workload that holds quota (node failure, pods-ready timeout, a user's
  /// cancel): two-phase like a preemption (kEvicted with `reason` and `message` now; the quota is
  /// held until `ConfirmEvicted`), then back to its queue under Kueue's requeue rules: with reason
  /// "PodsReadyTimeout" or "AdmissionCheck" it queues by its eviction time, otherwise by its
  /// creation time (docs/semantics.md §3.3). `reason` must be a non-empty CamelCase word (a
  /// Kubernetes condition reason); FailedPrecondition when the workload holds no quota or is
  /// already being evicted.
  absl::Status Evict(WorkloadHandle workload, std::string_view reason, std::string_view message);
  absl::Status Evict(std::string_view namespace_, std::string_view name, std::string_view reason,
                     std::string_view message);
  /// Sets `spec.active = false`: a pending workload leaves its queue (kDeactivated); one holding
  /// quota is evicted with reason Deactivated (kEvicted) and becomes inactive once confirmed.
  absl::Status Deactivate(WorkloadHandle workload);
  absl::Status Deactivate(std::string_view namespace_, std::string_view name);
  /// Sets `spec.active = true`: an inactive workload goes back to its queue (kActivated, reason
  /// Reactivated). A no-op for an active workload.
  absl::Status Activate(WorkloadHandle workload);
  absl::Status Activate(std::string_view namespace_, std::string_view name);
  /// Kueue's `status.reclaimablePods`: `count` pods of pod set `pod_set` have finished. A workload
  /// holding quota gives their share back while the rest run (usage of min(admitted count, pod set
  /// count - `count`) pods), available to the next cycle, and `count` may only grow while it holds
  /// quota. A pending workload requests that many pods fewer (docs/semantics.md §1.7.1). `count` is
  /// at most the pod set's count; FailedPrecondition for a finished workload.
  absl::Status SetReclaimablePods(WorkloadHandle workload, std::string_view pod_set, int32_t count);
  absl::Status SetReclaimablePods(std::string_view namespace_, std::string_view name,
                                  std::string_view pod_set, int32_t count);

  /// Kueue's PodsReady condition, which its job reconciler writes: the host reports that every pod
  /// of a workload holding quota is running and ready (`ready`), or that one stopped being ready
  /// after they all were (a pod failed and is being replaced). With
  /// `EngineConfig::wait_for_pods_ready` on, a workload not ready `timeout` after its admission (or
  /// `recoveryTimeout` after it stopped being ready) is evicted with reason PodsReadyTimeout by the
  /// next cycle at or after that instant (`NextTimedChange`), and requeued after a back-off
  /// (docs/semantics.md §1.7.2). No event. A new admission starts not ready. FailedPrecondition
  /// for a workload that holds no quota.
  absl::Status SetPodsReady(WorkloadHandle workload, bool ready);
  absl::Status SetPodsReady(std::string_view namespace_, std::string_view name, bool ready);

  // ---- Scheduling ----------------------------------------------------------------------------

  /// Runs one scheduling cycle (docs/semantics.md §4) and returns its decisions and events. The
  /// result is owned by the engine and valid until the next call that changes the engine.
  const CycleResult& ScheduleCycle();
  /// Runs cycles until one changes nothing (`CycleResult::settled`: it admits nothing, evicts
  /// nothing and parks no workload as inadmissible), at most `max_cycles`; returns how many ran.
  /// The events of all of them are `LastEvents()`. 0 when refused (from inside the callback).
  int RunUntilStable(int max_cycles = 10000);
  /// `RunUntilStable` that also says whether it settled: `settled` false means it stopped at
  /// `max_cycles` (or at an invariant violation under `EngineConfig::check_invariants`) while the
  /// last cycle still changed something, so a host should run more cycles (or look for a loop).
  StableRun RunUntilSettled(int max_cycles = 10000);

  /// The events of the latest call that changed the engine, in order; valid until the next such
  /// call. Empty after a call that failed.
  std::span<const Event> LastEvents() const;
  /// Called once after every call that produced events, with those events (never mid-call).
  /// FailedPrecondition from inside a host function (replacing the callback from inside it would
  /// destroy the running function) or on an unusable engine.
  using EventCallback = std::function<void(std::span<const Event>)>;
  absl::Status SetEventCallback(EventCallback callback);

  // ---- Clock ---------------------------------------------------------------------------------

  /// The engine's current time (the injected clock, or the manual one).
  Time Now() const;
  /// Moves the manual clock (FailedPrecondition when a clock was injected, from inside a host
  /// function, or on an unusable engine).
  absl::Status SetNow(Time now);
  /// The earliest instant at which an anti-thrash timer runs out (the end of a minimum runtime
  /// before preemption, or of a borrow back-off: `EngineConfig::anti_thrash`), or with
  /// `EngineConfig::wait_for_pods_ready` a pods-ready deadline or a requeue back-off ends, after which a
  /// parked workload may be admitted or may preempt. A host that moves time itself (a simulator)
  /// runs a cycle then; the timer's cohort tree is flushed at the start of the first cycle at or
  /// after it. nullopt when nothing is pending (always, with the policies off). It may be in the
  /// past when no cycle has run since, and may turn out to change nothing.
  std::optional<Time> NextTimedChange() const;

  // ---- Capacity ------------------------------------------------------------------------------

  /// Makes room for `workloads` workloads in all, pending or holding quota: their records, the
  /// name index, and an admission record for each, taken from the system now and touched. Up to
  /// that many, submissions and admissions then neither grow those structures nor fault in fresh
  /// pages (the pending and candidate orderings still allocate their tree nodes as they grow).
  /// Changes no decision and nothing `Save()` writes; memory is kept until the engine is
  /// destroyed. InvalidArgument for a negative count or one above the 2^32 − 2 workloads an
  /// engine can hold; ResourceExhausted when that many would need more memory than the machine
  /// has, or when an allocation fails (what was obtained until then stays reserved).
  absl::Status Reserve(int64_t workloads);

  // ---- Snapshots -----------------------------------------------------------------------------

  /// The whole engine state (objects, workloads, queues, counters, configuration less the host's
  /// functions) in the versioned format of docs/snapshot-format.md.
  absl::StatusOr<std::string> Save() const;
  /// Rebuilds an engine from `Save()`'s bytes. The clock and submission gate are the host's
  /// functions and are not saved: pass them in `host` (its other fields are ignored). A truncated,
  /// corrupted or newer-version snapshot is an error.
  static absl::StatusOr<Engine> Restore(std::string_view snapshot, const EngineConfig& host = {});

  // ---- Self-check ----------------------------------------------------------------------------

  /// Recomputes the whole state from scratch and compares it with the incremental structures
  /// (usage of every ClusterQueue and Cohort, borrowed and lent amounts, weighted shares, queue
  /// membership and order, workload states, ids). OK, or Internal naming the first violation.
  /// O(workloads + queues × flavors × resources); for tests, fuzzers and `--check-invariants`.
  /// With `EngineConfig::check_invariants`, every cycle runs it (docs/engine.md, "Self-check").
  absl::Status CheckInvariants() const;

  // ---- Queries: const, leave no trace, answer what the next cycle would decide ---------------

  WorkloadHandle FindWorkload(std::string_view namespace_, std::string_view name) const;
  absl::StatusOr<WorkloadStatus> GetWorkload(std::string_view namespace_, std::string_view name) const;
  /// NotFound for a stale (deleted) or unknown handle.
  absl::StatusOr<WorkloadStatus> GetWorkload(WorkloadHandle workload) const;
  /// "namespace/name" of a workload; empty for a stale or unknown handle.
  std::string WorkloadName(WorkloadHandle workload) const;
  /// Every workload the engine knows, sorted by namespace then name.
  std::vector<WorkloadHandle> Workloads() const;

  absl::StatusOr<ClusterQueueStatus> GetClusterQueue(std::string_view name) const;
  std::string ClusterQueueName(ClusterQueueId id) const;
  /// Names of the interned ids events carry.
  std::string ResourceName(ResourceId id) const;
  std::string FlavorName(FlavorId id) const;
  /// Every ClusterQueue name, sorted.
  std::vector<std::string> ClusterQueues() const;
  /// Kueue's status of a LocalQueue (its Active condition, workload counts and the quota its
  /// workloads hold per flavor), as its controller would have settled it. O(pending and admitted
  /// workloads of its ClusterQueue); O(workloads) while the ClusterQueue does not exist.
  absl::StatusOr<LocalQueueStatus> GetLocalQueue(std::string_view namespace_, std::string_view name) const;
  /// Every LocalQueue as "namespace/name", sorted by namespace then name.
  std::vector<std::string> LocalQueues() const;
  absl::StatusOr<CohortStatus> GetCohort(std::string_view name) const;
  /// Every cohort name (explicit and implicit), sorted.
  std::vector<std::string> Cohorts() const;

  /// The flavors the next cycle's assigner would choose for a pending workload in `cluster_queue`
  /// (its own ClusterQueue when empty), resuming the flavor scan where the last cycle left it, with
  /// every flavor it examined. Under partial admission, the counts it would admit.
  absl::StatusOr<Assignment> AssignFlavors(std::string_view namespace_, std::string_view name,
                                           std::string_view cluster_queue = {}) const;
  absl::StatusOr<Assignment> AssignFlavors(WorkloadHandle workload,
                                           std::string_view cluster_queue = {}) const;
  /// The workloads that would have to be preempted to admit a pending workload with the given
  /// flavors (mode kPreempt marks the (flavor, resource) pairs that need room). Empty when
  /// preemption cannot make room.
  absl::StatusOr<std::vector<Preemption>> PreemptionTargets(
      std::string_view namespace_, std::string_view name, std::string_view cluster_queue,
      std::span<const RequestedFlavor> assignment) const;
  absl::StatusOr<std::vector<Preemption>> PreemptionTargets(
      WorkloadHandle workload, std::string_view cluster_queue,
      std::span<const RequestedFlavor> assignment) const;
  /// Why a workload is where it is; for a pending one, what the next cycle would do with it.
  absl::StatusOr<WorkloadExplanation> Explain(std::string_view namespace_, std::string_view name) const;
  absl::StatusOr<WorkloadExplanation> Explain(WorkloadHandle workload) const;

  /// When each pending workload is expected to be admitted (qm/adapter/forecast.h, docs/forecast.md):
  /// a copy of the engine run forward in virtual time with the host's runtime estimates. Leaves the
  /// engine untouched. InvalidArgument naming the option (a workload without an estimate, a sample
  /// that is not positive, a bad arrival); NotFound for an unknown workload.
  absl::StatusOr<ForecastReport> Forecast(const ForecastOptions& options) const;
  /// The smallest checked changes that would admit a pending workload now (qm/adapter/what_if.h):
  /// more quota for its ClusterQueue, or a higher priority. FailedPrecondition for a workload that
  /// is not pending or waits in no ClusterQueue; NotFound for an unknown one.
  absl::StatusOr<WhatIfReport> WhatIf(WorkloadHandle workload) const;

 private:
  explicit Engine(std::unique_ptr<internal::EngineState> state);
  template <class F>
  auto Call(const char* what, F&& work) -> decltype(work());
  /// OK when a call named `what` may change the engine now (not moved from, not poisoned, no host
  /// function running).
  absl::Status Usable(const char* what) const;
  /// OK when the state may be read (not moved from, not poisoned); `Readable` is the same as a bool.
  absl::Status Queryable(const char* what) const;
  bool Readable() const;
  friend internal::EngineState& internal::EngineStateForTesting(Engine& engine);
  friend void internal::SilenceStatusTexts(Engine& engine);
  friend absl::StatusOr<Engine> internal::CopyEngine(const Engine& engine);
  std::unique_ptr<internal::EngineState> state_;
};

}  // namespace qm

#endif  // QM_ADAPTER_ENGINE_H_
