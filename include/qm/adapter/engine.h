// The Engine: the one class a host program drives.
//
// A host creates the cluster's queueing objects, submits workloads, and calls `ScheduleCycle()`
// whenever it wants decisions (after every change, on a timer, or in a loop until stable). Each call
// that changes objects is validated and all-or-nothing: on error nothing changed. Decisions are
// deterministic: the same calls in the same order give the same decisions, byte for byte.
//
//   qm::Engine engine;
//   QM_RETURN_IF_ERROR(engine.Apply(objects));          // flavors, queues, cohorts, namespaces
//   QM_ASSIGN_OR_RETURN(auto id, engine.Submit(spec));  // a pending workload
//   const qm::CycleResult& r = engine.ScheduleCycle();  // admit / preempt / leave pending
//
// Eviction is two-phase, as in Kueue: a preempted workload keeps its quota (state kEvicting) until
// the host reports it stopped with `ConfirmEvicted`; then it returns to its queue.
//
// The engine is not thread-safe; use one per thread or lock around it.
#ifndef QM_ADAPTER_ENGINE_H_
#define QM_ADAPTER_ENGINE_H_

#include <functional>
#include <memory>
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

namespace internal {
class EngineState;
}

class Engine {
 public:
  explicit Engine(EngineConfig config = {});
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
  absl::Status Apply(std::span<const ObjectSpec> objects);
  absl::Status Apply(const ObjectSpec& object);
  /// `Apply` on behalf of `principal`: every workload of the batch passes the submission gate
  /// (`EngineConfig::submission_gate`) as that principal first; a refusal changes nothing.
  /// `Apply(objects)` is `ApplyAs("", objects)`.
  absl::Status ApplyAs(std::string_view principal, std::span<const ObjectSpec> objects);

  /// Removes an object. A ClusterQueue that still holds admitted workloads cannot be deleted
  /// (FailedPrecondition); deleting a workload releases its quota.
  absl::Status Delete(const ObjectRef& ref);

  // ---- Workloads -----------------------------------------------------------------------------

  /// Submits a new workload. Without `admission` it enters its LocalQueue's ClusterQueue as
  /// pending; with `admission` it is loaded as already holding that quota.
  absl::StatusOr<WorkloadId> Submit(const WorkloadSpec& spec);
  /// `Submit` on behalf of `principal`, who must pass the submission gate; a refused submission
  /// changes nothing. `Submit(spec)` is `SubmitAs("", spec)`.
  absl::StatusOr<WorkloadId> SubmitAs(std::string_view principal, const WorkloadSpec& spec);
  /// Replaces the submission gate (e.g. after a policy change added a team).
  void SetSubmissionGate(SubmissionGate gate);
  /// The workload completed: its quota is released and it leaves every queue.
  absl::Status Finish(std::string_view namespace_, std::string_view name);
  /// An evicting workload has stopped: its quota is released and it goes back to its queue.
  absl::Status ConfirmEvicted(std::string_view namespace_, std::string_view name);
  /// Confirms every evicting workload (what a host whose jobs stop at once would do).
  int ConfirmAllEvicted();

  // ---- Scheduling ----------------------------------------------------------------------------

  /// Runs one scheduling cycle (semantics §4) and returns its decisions. The result is owned by the
  /// engine and valid until the next call to `ScheduleCycle` or `RunUntilStable`.
  const CycleResult& ScheduleCycle();
  /// Runs cycles until one admits and preempts nothing, at most `max_cycles`; returns how many ran.
  int RunUntilStable(int max_cycles = 10000);
  /// Called with every decision as it is made (in addition to the returned result).
  void SetDecisionCallback(std::function<void(const Decision&)> callback);

  // ---- Clock ---------------------------------------------------------------------------------

  /// The engine's current time (the injected clock, or the manual one).
  Time Now() const;
  /// Moves the manual clock (FailedPrecondition when a clock was injected).
  absl::Status SetNow(Time now);

  // ---- Queries (no side effects) -------------------------------------------------------------

  WorkloadId FindWorkload(std::string_view namespace_, std::string_view name) const;
  absl::StatusOr<WorkloadStatus> GetWorkload(std::string_view namespace_,
                                             std::string_view name) const;
  WorkloadStatus GetWorkload(WorkloadId id) const;
  /// "namespace/name" of a workload id.
  std::string WorkloadName(WorkloadId id) const;
  /// Every workload the engine knows, sorted by namespace then name.
  std::vector<WorkloadId> Workloads() const;

  absl::StatusOr<ClusterQueueStatus> GetClusterQueue(std::string_view name) const;
  std::string ClusterQueueName(ClusterQueueId id) const;
  /// Every ClusterQueue name, sorted.
  std::vector<std::string> ClusterQueues() const;
  absl::StatusOr<CohortStatus> GetCohort(std::string_view name) const;
  /// Every cohort name (explicit and implicit), sorted.
  std::vector<std::string> Cohorts() const;

  /// The flavors the assigner would choose now for a pending workload in `cluster_queue` (its own
  /// ClusterQueue when empty), with every flavor it examined.
  absl::StatusOr<Assignment> AssignFlavors(std::string_view namespace_, std::string_view name,
                                           std::string_view cluster_queue = {});
  /// The workloads that would have to be preempted to admit a pending workload with the given
  /// flavors (mode kPreempt marks the (flavor, resource) pairs that need room). Empty when
  /// preemption cannot make room.
  absl::StatusOr<std::vector<Preemption>> PreemptionTargets(
      std::string_view namespace_, std::string_view name, std::string_view cluster_queue,
      std::span<const RequestedFlavor> assignment);
  /// Why a workload is where it is.
  absl::StatusOr<WorkloadExplanation> Explain(std::string_view namespace_, std::string_view name);

 private:
  std::unique_ptr<internal::EngineState> state_;
};

}  // namespace qm

#endif  // QM_ADAPTER_ENGINE_H_
