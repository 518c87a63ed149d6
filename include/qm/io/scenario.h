// Scenario files (docs/scenario-format.md): a cluster's objects, steps that drive the engine, and
// what each step must produce. The same code path serves the conformance suite, `qm check` and
// `qm run`.
//
//   QM_ASSIGN_OR_RETURN(qm::Scenario s, qm::LoadScenarioFile("tests/scenarios/kueue/x.yaml"));
//   qm::ScenarioResult r = qm::RunScenario(s);
//   if (!r.passed()) for (const std::string& line : r.DiffLines()) std::cout << line << "\n";
#ifndef QM_IO_SCENARIO_H_
#define QM_IO_SCENARIO_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/adapter/engine.h"
#include "qm/hyperpod/governance.h"
#include "qm/io/manifest.h"
#include "qm/text/output_format.h"

namespace qm {

/// The default scenario clock, `2024-01-01T00:00:00Z`.
inline constexpr Time kDefaultScenarioNow = Time::FromUnixSeconds(1704067200);

/// `config:` — how the engine is built and driven.
struct ScenarioConfig {
  Time now = kDefaultScenarioNow;
  FairSharingConfig fair_sharing;
  FeatureGates features;
  /// Confirm every evicting workload at the start of each `schedule` step.
  bool release_evicted_at_next_schedule = true;
  /// `messageStyle: Current|Legacy` (ours). Unset: Current, or Legacy when the scenario holds
  /// HyperPod policies (HyperPod's Kueue words its messages the older way).
  std::optional<MessageStyle> message_style;
  /// `access:` (ours) the HyperPod access table `submit` steps are checked against
  /// (docs/hyperpod.md §8): `{members: {principal: [team, ...]}, admins: [principal, ...]}`.
  std::optional<hyperpod::AccessTable> access;
  /// `antiThrash:` (ours) the anti-thrash policies (qm/model/anti_thrash.h); all off when absent.
  AntiThrashConfig anti_thrash;
  /// `refill:` (ours) refill mode (docs/semantics.md §11.7); off when absent.
  RefillConfig refill;
  /// `waitForPodsReady:` Kueue's Configuration.waitForPodsReady; off when absent.
  WaitForPodsReadyConfig wait_for_pods_ready;
};

// ---- Steps -------------------------------------------------------------------------------------
// Workloads are named "namespace/name" everywhere below ("name" alone is read as "default/name").

/// `schedule: {}` (one cycle), `{cycles: n}`, or `{untilStable: true}`.
struct ScheduleStep {
  int cycles = 1;
  bool until_stable = false;
};
/// `apply: [objects]`: create or update.
struct ApplyStep {
  std::vector<ManifestObject> objects;
};
/// `delete: [{kind, namespace, name}]`.
struct DeleteStep {
  std::vector<ObjectRef> refs;
};
/// `finish: [workloads]`: they complete and release their quota.
struct FinishStep {
  std::vector<std::string> workloads;
};
/// `evictionDone: [workloads]`: evicting workloads stopped; their quota is released.
struct EvictionDoneStep {
  std::vector<std::string> workloads;
};
/// `advance: 30s`: move the clock.
struct AdvanceStep {
  Duration by;
};
/// `preemptionTargets: {workload, clusterQueue, assignment}`: a query, nothing changes.
struct PreemptionTargetsStep {
  std::string workload;
  std::string cluster_queue;
  std::vector<RequestedFlavor> assignment;
};
/// `assignFlavors: {workload, clusterQueue}`: a query, nothing changes.
struct AssignFlavorsStep {
  std::string workload;
  std::string cluster_queue;
};

/// `submit: {as: principal, objects: [workloads]}` (ours): each workload is submitted on behalf of
/// `principal` through the engine's submission gate, i.e. HyperPod's admission policy and, with
/// `config.access`, its access rule. A refused workload is a result of the step (`refused`), not
/// an error; the others are submitted.
struct SubmitStep {
  std::string principal;
  std::vector<ManifestObject> objects;
  /// The gate of the policies read up to this step (unset without HyperPod policies or access).
  SubmissionGate gate;
};

/// `evict: [{workload, reason, message}]`: the host evicts workloads that hold quota
/// (`Engine::Evict`): two-phase, like a preemption.
struct EvictStep {
  struct Item {
    std::string workload;
    std::string reason;   ///< a CamelCase condition reason, e.g. NodeFailures
    std::string message;  ///< optional
  };
  std::vector<Item> items;
};
/// `deactivate: [workloads]`: `spec.active = false` (`Engine::Deactivate`).
struct DeactivateStep {
  std::vector<std::string> workloads;
};
/// `activate: [workloads]`: `spec.active = true` (`Engine::Activate`).
struct ActivateStep {
  std::vector<std::string> workloads;
};
/// `reclaimablePods: [{workload, podSet, count}]`: Kueue's `status.reclaimablePods`
/// (`Engine::SetReclaimablePods`); `podSet` defaults to `main`.
struct ReclaimablePodsStep {
  struct Item {
    std::string workload;
    std::string pod_set;
    int32_t count = 0;
  };
  std::vector<Item> items;
};

/// `podsReady: [ns/name, {workload: ns/name, ready: false}, ...]`: Kueue's PodsReady condition
/// (`Engine::SetPodsReady`); a bare name means ready.
struct PodsReadyStep {
  struct Item {
    std::string workload;
    bool ready = true;
  };
  std::vector<Item> items;
};

using StepAction = std::variant<ScheduleStep, ApplyStep, DeleteStep, FinishStep, EvictionDoneStep,
                                AdvanceStep, PreemptionTargetsStep, AssignFlavorsStep, SubmitStep,
                                EvictStep, DeactivateStep, ActivateStep, ReclaimablePodsStep,
                                PodsReadyStep>;

/// The scenario-file key of an action ("schedule", "preemptionTargets", ...).
const char* StepActionName(const StepAction& action);

// ---- Expectations ------------------------------------------------------------------------------

/// One pod set of an expected admission: resource → flavor, and the admitted count if given.
struct ExpectedPodSet {
  std::map<std::string, std::string> flavors;
  std::optional<int32_t> count;
};

/// An expected admission: `{clusterQueue: cq, podSets: {main: {cpu: spot}}}`.
struct ExpectedAdmission {
  std::string cluster_queue;
  std::map<std::string, ExpectedPodSet> pod_sets;
};

/// `preempted:` / `targets:` — a list of workloads, or a map workload → reason.
struct ExpectedPreemptions {
  bool with_reasons = false;
  std::map<std::string, PreemptionReason> workloads;  ///< reasons ignored unless `with_reasons`
};

/// One resource of an expected flavor assignment: `{flavor: f, mode: Fit}` (`{mode: NoFit}` alone
/// means the resource got no flavor).
struct ExpectedResourceAssignment {
  std::string flavor;
  AssignmentMode mode = AssignmentMode::kFit;
};

/// `expect:` of a step. A key that is present is compared exactly; sets are order-insensitive.
struct Expectations {
  std::string source;  ///< "file:line" of the `expect:` key
  std::optional<std::map<std::string, ExpectedAdmission>> admitted;
  std::optional<std::map<std::string, ExpectedAdmission>> admissions;
  std::optional<ExpectedPreemptions> preempted;
  /// ClusterQueue → workloads; queues with an empty list are dropped when loading.
  std::optional<std::map<std::string, std::vector<std::string>>> pending;
  std::optional<std::map<std::string, std::vector<std::string>>> inadmissible;
  std::optional<ExpectedPreemptions> targets;
  /// Pod set → resource → expected assignment.
  std::optional<std::map<std::string, std::map<std::string, ExpectedResourceAssignment>>> assignment;
  std::optional<AssignmentMode> representative_mode;
  std::optional<bool> borrowing;
  /// Workload → text its latest status message must contain.
  std::map<std::string, std::string> messages;
  /// `reasons:` workload → its status reason, compared exactly (e.g. PodsReadyTimeout).
  std::map<std::string, std::string> reasons;
  /// `requeueState:` workload → Kueue's status.requeueState after pods-ready timeouts
  /// (docs/semantics.md §1.7.2): `count` (0 when it has none) and `requeueAt` (absent: none, or
  /// `null` to check it has none). Only the listed workloads are compared.
  struct ExpectedRequeueState {
    int32_t count = 0;
    bool check_at = false;
    std::optional<Time> at;
  };
  std::map<std::string, ExpectedRequeueState> requeue_states;
  /// `localQueues:` LocalQueue "ns/name" → Kueue's LocalQueue status (docs/semantics.md §1.5.1).
  /// Only the listed queues, and in them only the fields written, are compared. The flavor lists
  /// are compared exactly, in Kueue's order, zero amounts included.
  struct ExpectedLocalQueue {
    std::optional<bool> active;
    std::optional<std::string> reason;
    std::optional<std::string> message;
    std::optional<int32_t> pending_workloads;
    std::optional<int32_t> reserving_workloads;
    std::optional<int32_t> admitted_workloads;
    std::optional<std::vector<LocalQueueFlavorTotals>> flavors_reservation;
    std::optional<std::vector<LocalQueueFlavorTotals>> flavors_usage;
  };
  std::map<std::string, ExpectedLocalQueue> local_queues;
  /// ClusterQueue → flavor → resource → amount in base units; zero amounts are dropped.
  std::optional<std::map<std::string, std::map<std::string, std::map<std::string, int64_t>>>> usage;
  /// `borrowed:` (ours) the part of `usage` above nominal, Kueue's `flavorsUsage[].borrowed`; same
  /// shape and rules as `usage`.
  std::optional<std::map<std::string, std::map<std::string, std::map<std::string, int64_t>>>> borrowed;
  /// `weightedShares:` ClusterQueue or Cohort name → Kueue's `status.fairSharing.weightedShare`
  /// (an integer; `max` for a zero-weight borrower). Only the listed names are compared.
  std::map<std::string, int64_t> weighted_shares;
  /// `refused:` (ours) workload → text the refusal of a `submit` step must contain; the refused
  /// set is compared exactly (a `submit` step's `expect` without it expects no refusal).
  std::optional<std::map<std::string, std::string>> refused;
};

/// One step: an action and what must hold after it.
struct ScenarioStep {
  StepAction action;
  std::string source;  ///< "file:line"
  std::optional<Expectations> expect;
};

/// A loaded scenario file.
struct Scenario {
  std::string path;  ///< as given to the loader (or the source name)
  std::string name;
  std::string source;
  std::string description;
  std::optional<std::string> skip;  ///< `skip: "reason"`
  ScenarioConfig config;
  std::vector<ManifestObject> objects;
  std::vector<ScenarioStep> steps;  ///< a file without `steps` has one `schedule` step
  std::vector<std::string> notes;   ///< skipped objects
};

/// Loads a scenario. Errors name `file:line`, the field path and, inside objects, the object, e.g.
/// `x.yaml:40: steps[1].finish[0]: workload 'default/typo' is not defined in this scenario`.
absl::StatusOr<Scenario> LoadScenarioFile(const std::string& path);
absl::StatusOr<Scenario> LoadScenarioString(std::string_view yaml, std::string_view source_name);

// ---- Running -----------------------------------------------------------------------------------

/// A workload admitted during a step, with the admission recorded on it after the step.
struct AdmittedWorkload {
  std::string workload;
  std::string cluster_queue;
  std::optional<Assignment> assignment;
};

/// A workload preempted during a step (or a preemption target of a query step).
struct PreemptedWorkload {
  std::string workload;
  std::string preemptor;
  PreemptionReason reason = PreemptionReason::kInClusterQueue;
  std::string message;
};

/// A workload still pending after a step.
struct PendingWorkload {
  std::string workload;
  std::string cluster_queue;  ///< empty when its LocalQueue or ClusterQueue is missing
  bool inadmissible = false;
  std::string reason;
  std::string message;
};

/// What one step did and whether its expectations held.
struct StepResult {
  std::string action;  ///< `StepActionName`
  std::string source;
  int cycles = 0;  ///< scheduling cycles run
  /// Decisions of a `schedule` step, in decision order.
  std::vector<AdmittedWorkload> admitted;
  std::vector<PreemptedWorkload> preempted;
  /// Every pending workload after the step, by name.
  std::vector<PendingWorkload> pending;
  /// Result of a `preemptionTargets` step.
  std::optional<std::vector<PreemptedWorkload>> targets;
  /// Result of an `assignFlavors` step.
  std::optional<Assignment> assignment;
  /// Workloads a `submit` step's gate refused, with the reason, in step order.
  std::vector<std::pair<std::string, std::string>> refused;
  /// With fair sharing enabled: the weighted share of every ClusterQueue and Cohort after the
  /// step, by name.
  std::vector<std::pair<std::string, int64_t>> cluster_queue_shares;
  std::vector<std::pair<std::string, int64_t>> cohort_shares;
  bool checked = false;  ///< the step had `expect:`
  /// One line per mismatch, e.g. `pending.eng-alpha: expected [eng-alpha/a], got []`; sorted.
  std::vector<std::string> diff;
};

/// What running a scenario did.
struct ScenarioResult {
  std::vector<StepResult> steps;  ///< the steps that ran
  /// Not OK when the objects or a step were rejected by the engine (the message names the file
  /// and line); the steps after it did not run.
  absl::Status status;

  /// Every step ran and every expectation held.
  bool passed() const;
  /// The failure report for `qm check`, indented by two spaces: the error, or per failing step
  /// its diff (under a `step N (action at file:line):` header when the scenario has several steps).
  std::vector<std::string> DiffLines() const;
};

/// How scenario steps are run.
struct ScenarioRunOptions {
  /// Run `Engine::CheckInvariants` once the objects are applied, after every cycle of a `schedule`
  /// step (`untilStable` included) and after every step; a violation is the step's error, naming
  /// the step (and the cycle), and the later steps do not run (`qm check|run --check-invariants`).
  bool check_invariants = false;
};

/// Builds the engine a scenario starts from: its config, the clock at `config.now`, and the
/// objects applied in file order (one `Engine::Apply`).
absl::StatusOr<Engine> MakeScenarioEngine(const Scenario& scenario);

/// Runs the steps of `scenario` on `engine` (from `MakeScenarioEngine`) and compares expectations.
ScenarioResult RunScenarioSteps(const Scenario& scenario, Engine& engine, const ScenarioRunOptions& options = {});
/// Runs step `index` alone (what `RunScenarioSteps` does for each step): fills `r` and returns the
/// step's error, if any (then the later steps should not run).
absl::Status RunScenarioStep(const Scenario& scenario, size_t index, Engine& engine, StepResult* r,
                             const ScenarioRunOptions& options = {});

/// `MakeScenarioEngine` + `RunScenarioSteps`.
ScenarioResult RunScenario(const Scenario& scenario, const ScenarioRunOptions& options = {});

/// The objects the scenario defines once all its steps ran: `objects`, with every `apply` step's
/// objects replacing earlier specs of the same object (or added at the end) and `delete`d objects
/// removed. With `WriteEngineState` this gives the cluster's state after the scenario.
std::vector<ObjectSpec> FinalObjects(const Scenario& scenario);

/// Per step, the decisions (admitted with flavors, counts and borrowing; preempted with reason and
/// preemptor; pending with reason and message), query results and expectation outcome — what
/// `qm run` prints.
std::string RenderScenarioRun(const Scenario& scenario, const ScenarioResult& result,
                              OutputFormat format);

}  // namespace qm

#endif  // QM_IO_SCENARIO_H_
