// Running a scenario's steps on an engine (docs/scenario-format.md, "Steps").
//
// Choices the format leaves open:
// * Evicting workloads are released (`ConfirmAllEvicted`) once at the start of a `schedule` step
//   when `releaseEvictedAtNextSchedule` is on, not between the cycles of `{cycles: n}` or
//   `{untilStable: true}`: within one step, preemptors wait for `evictionDone` or the next step.
// * Admissions and preemptions are read from the events of every cycle of the step, `untilStable`
//   included (`Engine::RunUntilStable`: until a cycle admits, evicts and parks nothing).
// * `messages` of an `assignFlavors` step are checked against the returned assignment's message for
//   the queried workload (nothing was written to it), and of a `preemptionTargets` step against the
//   returned preemption message for each target.
#include <algorithm>
#include <string>

#include "fmt/format.h"
#include "io/names.h"
#include "io/scenario_diff.h"
#include "qm/core/status.h"
#include "qm/io/scenario.h"
#include "qm/model/namespace_name.h"

namespace qm {
namespace {

using internal::SplitWorkloadName;

// `--check-invariants`: the engine's self-check, with the cycle of the step that broke it.
absl::Status CheckAfterCycle(const Engine& engine, int cycle) {
  absl::Status st = engine.CheckInvariants();
  if (st.ok()) return st;
  return absl::Status(st.code(), fmt::format("invariant violated after cycle {} of the step: {}", cycle,
                                             std::string(st.message())));
}

absl::Status Schedule(const ScenarioConfig& config, const ScheduleStep& step, Engine& engine,
                      StepResult* r, const ScenarioRunOptions& options) {
  if (config.release_evicted_at_next_schedule) engine.ConfirmAllEvicted();
  std::vector<Event> events;
  if (step.until_stable && options.check_invariants) {
    // `RunUntilStable` one cycle at a time (same cycles, same events), checking after each.
    r->cycles = 0;
    while (r->cycles < 10000) {
      const CycleResult& cycle = engine.ScheduleCycle();
      QM_RETURN_IF_ERROR(cycle.status);
      ++r->cycles;
      events.insert(events.end(), cycle.events.begin(), cycle.events.end());
      const bool settled = cycle.settled();
      QM_RETURN_IF_ERROR(CheckAfterCycle(engine, r->cycles));
      if (settled) break;
    }
  } else if (step.until_stable) {
    r->cycles = engine.RunUntilStable(10000);
    const std::span<const Event> all = engine.LastEvents();
    events.assign(all.begin(), all.end());
  } else {
    for (int i = 0; i < step.cycles; ++i) {
      const CycleResult& cycle = engine.ScheduleCycle();
      QM_RETURN_IF_ERROR(cycle.status);
      events.insert(events.end(), cycle.events.begin(), cycle.events.end());
      if (options.check_invariants) QM_RETURN_IF_ERROR(CheckAfterCycle(engine, i + 1));
    }
    r->cycles = step.cycles;
  }
  for (const Event& e : events) {
    if (e.kind != EventKind::kAdmitted && e.kind != EventKind::kPreempted) continue;
    const std::string name = engine.WorkloadName(e.workload);
    QM_ASSIGN_OR_RETURN(const WorkloadStatus st, engine.GetWorkload(e.workload));
    if (e.kind == EventKind::kAdmitted) {
      const bool seen = std::any_of(r->admitted.begin(), r->admitted.end(),
                                    [&](const AdmittedWorkload& a) { return a.workload == name; });
      if (!seen) r->admitted.push_back({name, st.cluster_queue, st.admission});
    } else {
      r->preempted.push_back({name, e.preemptor.valid() ? engine.WorkloadName(e.preemptor) : "",
                              e.preemption_reason, st.message});
    }
  }
  return absl::OkStatus();
}

// One workload at a time, as separate `kubectl create` calls would be: a refusal by the gate is
// recorded and the rest go on; any other engine error stops the scenario. The gate is asked before
// `ApplyAs` (which asks it again) because both kinds of failure are InvalidArgument statuses.
absl::Status Submit(const SubmitStep& step, Engine& engine, StepResult* r) {
  QM_RETURN_IF_ERROR(engine.SetSubmissionGate(step.gate));
  absl::Status status;
  for (const ManifestObject& o : step.objects) {
    const auto& w = std::get<WorkloadSpec>(o.spec);
    if (step.gate) {
      if (absl::Status refused = step.gate(step.principal, w); !refused.ok()) {
        r->refused.emplace_back(fmt::format("{}/{}", NamespaceOrDefault(w.namespace_), w.name),
                                std::string(refused.message()));
        continue;
      }
    }
    status = engine.ApplyAs(step.principal, std::span<const ObjectSpec>(&o.spec, 1));
    if (!status.ok()) {
      status = absl::Status(status.code(), fmt::format("{}: {}", o.source, std::string(status.message())));
      break;
    }
  }
  // `apply` steps were checked when the file was read.
  if (absl::Status st = engine.SetSubmissionGate(nullptr); !st.ok() && status.ok()) status = st;
  return status;
}

// Calls `call(namespace, name)` for each "namespace/name" of a step's list, stopping at the first
// error (the steps that name workloads only: finish, evictionDone, deactivate, activate).
template <class F>
absl::Status ForEachWorkload(const std::vector<std::string>& workloads, F&& call) {
  for (const std::string& w : workloads) {
    const auto [ns, name] = SplitWorkloadName(w);
    QM_RETURN_IF_ERROR(call(ns, name));
  }
  return absl::OkStatus();
}

absl::Status Execute(const ScenarioConfig& config, const ScenarioStep& step, Engine& engine,
                     StepResult* r, const ScenarioRunOptions& options) {
  const StepAction& action = step.action;
  if (const auto* s = std::get_if<ScheduleStep>(&action)) return Schedule(config, *s, engine, r, options);
  if (const auto* s = std::get_if<ApplyStep>(&action)) return ApplyManifest(engine, s->objects);
  if (const auto* s = std::get_if<SubmitStep>(&action)) return Submit(*s, engine, r);
  if (const auto* s = std::get_if<DeleteStep>(&action)) {
    for (const ObjectRef& ref : s->refs) QM_RETURN_IF_ERROR(engine.Delete(ref));
    return absl::OkStatus();
  }
  if (const auto* s = std::get_if<FinishStep>(&action))
    return ForEachWorkload(s->workloads,
                           [&](std::string_view ns, std::string_view name) { return engine.Finish(ns, name); });
  if (const auto* s = std::get_if<EvictionDoneStep>(&action))
    return ForEachWorkload(s->workloads,
                           [&](std::string_view ns, std::string_view name) { return engine.ConfirmEvicted(ns, name); });
  if (const auto* s = std::get_if<EvictStep>(&action)) {
    for (const EvictStep::Item& e : s->items) {
      const auto [ns, name] = SplitWorkloadName(e.workload);
      QM_RETURN_IF_ERROR(engine.Evict(ns, name, e.reason, e.message));
    }
    return absl::OkStatus();
  }
  if (const auto* s = std::get_if<DeactivateStep>(&action))
    return ForEachWorkload(s->workloads,
                           [&](std::string_view ns, std::string_view name) { return engine.Deactivate(ns, name); });
  if (const auto* s = std::get_if<ActivateStep>(&action))
    return ForEachWorkload(s->workloads,
                           [&](std::string_view ns, std::string_view name) { return engine.Activate(ns, name); });
  if (const auto* s = std::get_if<ReclaimablePodsStep>(&action)) {
    for (const ReclaimablePodsStep::Item& item : s->items) {
      const auto [ns, name] = SplitWorkloadName(item.workload);
      QM_RETURN_IF_ERROR(engine.SetReclaimablePods(ns, name, item.pod_set, item.count));
    }
    return absl::OkStatus();
  }
  if (const auto* s = std::get_if<PodsReadyStep>(&action)) {
    for (const PodsReadyStep::Item& item : s->items) {
      const auto [ns, name] = SplitWorkloadName(item.workload);
      QM_RETURN_IF_ERROR(engine.SetPodsReady(ns, name, item.ready));
    }
    return absl::OkStatus();
  }
  if (const auto* s = std::get_if<AdvanceStep>(&action)) return engine.SetNow(engine.Now() + s->by);
  if (const auto* s = std::get_if<PreemptionTargetsStep>(&action)) {
    const auto [ns, name] = SplitWorkloadName(s->workload);
    QM_ASSIGN_OR_RETURN(std::vector<Preemption> targets,
                        engine.PreemptionTargets(ns, name, s->cluster_queue, s->assignment));
    r->targets.emplace();
    for (const Preemption& p : targets) {
      r->targets->push_back({engine.WorkloadName(p.victim),
                             p.preemptor.valid() ? engine.WorkloadName(p.preemptor) : s->workload,
                             p.reason, p.message});
    }
    return absl::OkStatus();
  }
  const auto& q = std::get<AssignFlavorsStep>(action);
  const auto [ns, name] = SplitWorkloadName(q.workload);
  QM_ASSIGN_OR_RETURN(r->assignment, engine.AssignFlavors(ns, name, q.cluster_queue));
  return absl::OkStatus();
}

void CollectPending(const Engine& engine, StepResult* r) {
  for (WorkloadHandle id : engine.Workloads()) {
    absl::StatusOr<WorkloadStatus> got = engine.GetWorkload(id);
    if (!got.ok()) continue;  // cannot happen: the handles are fresh
    const WorkloadStatus& st = *got;
    if (st.state != WorkloadState::kPending) continue;
    r->pending.push_back({engine.WorkloadName(id), st.cluster_queue, st.inadmissible, st.reason,
                          st.message});
  }
  std::sort(r->pending.begin(), r->pending.end(),
            [](const PendingWorkload& a, const PendingWorkload& b) { return a.workload < b.workload; });
}

void CollectShares(const Engine& engine, StepResult* r) {
  if (!engine.config().fair_sharing.enabled) return;
  for (const std::string& cq : engine.ClusterQueues())
    if (absl::StatusOr<ClusterQueueStatus> st = engine.GetClusterQueue(cq); st.ok())
      r->cluster_queue_shares.emplace_back(cq, st->weighted_share);
  for (const std::string& co : engine.Cohorts())
    if (absl::StatusOr<CohortStatus> st = engine.GetCohort(co); st.ok())
      r->cohort_shares.emplace_back(co, st->weighted_share);
}

// Prefixes an engine error with where the step is, unless it already names a file position.
absl::Status StepError(const Scenario& scenario, const ScenarioStep& step, size_t index,
                       const absl::Status& status) {
  const std::string message(status.message());
  if (message.starts_with(scenario.path + ":")) return status;
  return absl::Status(status.code(), fmt::format("{}: steps[{}] ({}): {}", step.source, index,
                                                 StepActionName(step.action), message));
}

}  // namespace

bool ScenarioResult::passed() const {
  if (!status.ok()) return false;
  return std::all_of(steps.begin(), steps.end(), [](const StepResult& s) { return s.diff.empty(); });
}

std::vector<std::string> ScenarioResult::DiffLines() const {
  std::vector<std::string> out;
  const bool headers = steps.size() > 1;
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepResult& s = steps[i];
    if (s.diff.empty()) continue;
    if (headers) out.push_back(fmt::format("  step {} ({} at {}):", i + 1, s.action, s.source));
    for (const std::string& line : s.diff) out.push_back((headers ? "    " : "  ") + line);
  }
  if (!status.ok()) out.push_back(fmt::format("  error: {}", std::string(status.message())));
  return out;
}

absl::StatusOr<Engine> MakeScenarioEngine(const Scenario& scenario) {
  EngineConfig config;
  config.fair_sharing = scenario.config.fair_sharing;
  config.features = scenario.config.features;
  config.message_style = scenario.config.message_style.value_or(MessageStyle::kCurrent);
  config.anti_thrash = scenario.config.anti_thrash;
  config.refill = scenario.config.refill;
  config.wait_for_pods_ready = scenario.config.wait_for_pods_ready;
  absl::StatusOr<Engine> created = Engine::Create(std::move(config));
  if (!created.ok())
    return absl::Status(created.status().code(),
                        fmt::format("{}: config: {}", scenario.path, std::string(created.status().message())));
  Engine engine = *std::move(created);
  QM_RETURN_IF_ERROR(engine.SetNow(scenario.config.now));
  absl::Status applied = ApplyManifest(engine, scenario.objects);
  if (!applied.ok()) {
    const std::string message(applied.message());
    if (message.starts_with(scenario.path + ":")) return applied;
    return absl::Status(applied.code(), fmt::format("{}: objects: {}", scenario.path, message));
  }
  return engine;
}

absl::Status RunScenarioStep(const Scenario& scenario, size_t index, Engine& engine, StepResult* r,
                             const ScenarioRunOptions& options) {
  const ScenarioStep& step = scenario.steps.at(index);
  r->action = StepActionName(step.action);
  r->source = step.source;
  if (absl::Status s = Execute(scenario.config, step, engine, r, options); !s.ok())
    return StepError(scenario, step, index, s);
  if (options.check_invariants) {
    if (absl::Status s = engine.CheckInvariants(); !s.ok())
      return StepError(scenario, step, index, absl::Status(s.code(), fmt::format("invariant violated after the step: {}",
                                                                                 std::string(s.message()))));
  }
  CollectPending(engine, r);
  CollectShares(engine, r);
  if (step.expect.has_value()) {
    r->checked = true;
    r->diff = internal::CompareExpectations(*step.expect, step, *r, engine);
  }
  return absl::OkStatus();
}

ScenarioResult RunScenarioSteps(const Scenario& scenario, Engine& engine, const ScenarioRunOptions& options) {
  ScenarioResult result;
  if (options.check_invariants) {
    if (absl::Status s = engine.CheckInvariants(); !s.ok()) {
      result.status = absl::Status(s.code(), fmt::format("{}: invariant violated before the first step: {}",
                                                         scenario.path, std::string(s.message())));
      return result;
    }
  }
  for (size_t i = 0; i < scenario.steps.size(); ++i) {
    StepResult r;
    result.status = RunScenarioStep(scenario, i, engine, &r, options);
    result.steps.push_back(std::move(r));
    if (!result.status.ok()) break;
  }
  return result;
}

std::vector<ObjectSpec> FinalObjects(const Scenario& scenario) {
  std::vector<ObjectSpec> out;
  auto same = [](const ObjectRef& a, const ObjectRef& b) {
    return a.kind == b.kind && a.namespace_ == b.namespace_ && a.name == b.name;
  };
  auto upsert = [&](const ObjectSpec& spec) {
    const ObjectRef ref = RefOf(spec);
    for (ObjectSpec& o : out) {
      if (same(RefOf(o), ref)) {
        o = spec;
        return;
      }
    }
    out.push_back(spec);
  };
  for (const ManifestObject& o : scenario.objects) upsert(o.spec);
  for (const ScenarioStep& step : scenario.steps) {
    if (const auto* apply = std::get_if<ApplyStep>(&step.action)) {
      for (const ManifestObject& o : apply->objects) upsert(o.spec);
    } else if (const auto* submit = std::get_if<SubmitStep>(&step.action)) {
      // Refused ones too: the state writer leaves out workloads the engine does not know.
      for (const ManifestObject& o : submit->objects) upsert(o.spec);
    } else if (const auto* del = std::get_if<DeleteStep>(&step.action)) {
      for (const ObjectRef& ref : del->refs) {
        std::erase_if(out, [&](const ObjectSpec& o) { return same(RefOf(o), ref); });
      }
    }
  }
  return out;
}

ScenarioResult RunScenario(const Scenario& scenario, const ScenarioRunOptions& options) {
  absl::StatusOr<Engine> engine = MakeScenarioEngine(scenario);
  if (!engine.ok()) {
    ScenarioResult result;
    result.status = engine.status();
    return result;
  }
  return RunScenarioSteps(scenario, *engine, options);
}

}  // namespace qm
