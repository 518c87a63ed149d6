// `qm run` output: per step, what the engine decided.
#include <limits>
#include <string>

#include "io/report_docs.h"
#include "qm/core/quantity_text.h"
#include "qm/io/scenario.h"
#include "text/doc.h"

namespace qm {
namespace internal {

Doc AdmittedPodSetsDoc(const Assignment& a) {
  Doc pod_sets = Doc::Map();
  for (const PodSetAssignment& ps : a.pod_sets) {
    Doc flavors = Doc::Map();
    for (const ResourceAssignment& r : ps.resources) {
      if (!r.flavor.empty()) flavors.Set(r.resource, Doc::Str(r.flavor));
    }
    Doc usage = Doc::Map();
    for (const auto& [resource, amount] : ps.usage) {
      usage.Set(resource, Doc::Str(FormatAmount(resource, amount)));
    }
    Doc d = Doc::Map();
    d.Set("count", Doc::Int(ps.count));
    d.Set("flavors", std::move(flavors.Flow()));
    d.Set("usage", std::move(usage.Flow()));
    pod_sets.Set(ps.name, std::move(d.Flow()));
  }
  return pod_sets;
}

Doc AssignmentModesDoc(const Assignment& a) {
  Doc pod_sets = Doc::Map();
  for (const PodSetAssignment& ps : a.pod_sets) {
    Doc resources = Doc::Map();
    for (const ResourceAssignment& r : ps.resources) {
      Doc d = Doc::Map();
      if (!r.flavor.empty()) d.Set("flavor", Doc::Str(r.flavor));
      d.Set("mode", Doc::Str(AssignmentModeName(r.mode)));
      if (r.borrow_level > 0) d.Set("borrowLevel", Doc::Int(r.borrow_level));
      resources.Set(r.resource, std::move(d.Flow()));
    }
    pod_sets.Set(ps.name, std::move(resources));
  }
  return pod_sets;
}

std::string Emit(const Doc& doc, OutputFormat format) {
  return format == OutputFormat::kJson ? EmitJson(doc) : EmitYaml(doc);
}

}  // namespace internal

namespace {

using internal::Doc;

Doc PreemptedDoc(const PreemptedWorkload& p) {
  Doc d = Doc::Map();
  d.Set("workload", Doc::Str(p.workload));
  d.Set("reason", Doc::Str(PreemptionReasonName(p.reason)));
  if (!p.preemptor.empty()) d.Set("preemptor", Doc::Str(p.preemptor));
  d.Set("message", Doc::Str(p.message));
  return d;
}

Doc StepDoc(size_t index, const StepResult& s) {
  Doc d = Doc::Map();
  d.Set("step", Doc::Int(static_cast<int64_t>(index + 1)));
  d.Set("action", Doc::Str(s.action));
  d.Set("source", Doc::Str(s.source));
  const bool query = s.targets.has_value() || s.assignment.has_value();
  if (s.action == "schedule") {
    d.Set("cycles", Doc::Int(s.cycles));
    Doc admitted = Doc::List();
    for (const AdmittedWorkload& a : s.admitted) {
      Doc w = Doc::Map();
      w.Set("workload", Doc::Str(a.workload));
      w.Set("clusterQueue", Doc::Str(a.cluster_queue));
      if (a.assignment.has_value()) {
        w.Set("borrowing", Doc::Bool(a.assignment->borrowing()));
        w.Set("podSets", internal::AdmittedPodSetsDoc(*a.assignment));
      }
      admitted.Add(std::move(w));
    }
    d.Set("admitted", std::move(admitted));
    Doc preempted = Doc::List();
    for (const PreemptedWorkload& p : s.preempted) preempted.Add(PreemptedDoc(p));
    d.Set("preempted", std::move(preempted));
  }
  if (s.action == "submit") {
    Doc refused = Doc::List();
    for (const auto& [workload, message] : s.refused) {
      Doc w = Doc::Map();
      w.Set("workload", Doc::Str(workload));
      w.Set("message", Doc::Str(message));
      refused.Add(std::move(w));
    }
    d.Set("refused", std::move(refused));
  }
  if (s.targets.has_value()) {
    Doc targets = Doc::List();
    for (const PreemptedWorkload& p : *s.targets) targets.Add(PreemptedDoc(p));
    d.Set("targets", std::move(targets));
  }
  if (s.assignment.has_value()) {
    Doc a = Doc::Map();
    a.Set("representativeMode", Doc::Str(AssignmentModeName(s.assignment->representative_mode)));
    a.Set("borrowing", Doc::Bool(s.assignment->borrowing()));
    if (!s.assignment->message.empty()) a.Set("message", Doc::Str(s.assignment->message));
    a.Set("podSets", internal::AssignmentModesDoc(*s.assignment));
    d.Set("assignment", std::move(a));
  }
  if (!query) {
    Doc pending = Doc::List();
    for (const PendingWorkload& p : s.pending) {
      Doc w = Doc::Map();
      w.Set("workload", Doc::Str(p.workload));
      w.Set("clusterQueue", Doc::Str(p.cluster_queue));
      if (p.inadmissible) w.Set("inadmissible", Doc::Bool(true));
      w.Set("reason", Doc::Str(p.reason));
      w.Set("message", Doc::Str(p.message));
      pending.Add(std::move(w));
    }
    d.Set("pending", std::move(pending));
  }
  if (!s.cluster_queue_shares.empty() || !s.cohort_shares.empty()) {
    // Kueue's status.fairSharing.weightedShare; "max" for a zero-weight queue that borrows.
    auto share = [](int64_t v) {
      return v == std::numeric_limits<int64_t>::max() ? Doc::Str("max") : Doc::Int(v);
    };
    Doc cqs = Doc::Map();
    for (const auto& [name, v] : s.cluster_queue_shares) cqs.Set(name, share(v));
    Doc cohorts = Doc::Map();
    for (const auto& [name, v] : s.cohort_shares) cohorts.Set(name, share(v));
    Doc fs = Doc::Map();
    fs.Set("clusterQueues", std::move(cqs.Flow()));
    fs.Set("cohorts", std::move(cohorts.Flow()));
    d.Set("weightedShares", std::move(fs));
  }
  if (s.checked) {
    d.Set("expectations", Doc::Str(s.diff.empty() ? "passed" : "failed"));
    if (!s.diff.empty()) {
      Doc diff = Doc::List();
      for (const std::string& line : s.diff) diff.Add(Doc::Str(line));
      d.Set("diff", std::move(diff));
    }
  }
  return d;
}

}  // namespace

std::string RenderScenarioRun(const Scenario& scenario, const ScenarioResult& result,
                              OutputFormat format) {
  Doc d = Doc::Map();
  d.Set("scenario", Doc::Str(scenario.name));
  d.Set("file", Doc::Str(scenario.path));
  Doc steps = Doc::List();
  for (size_t i = 0; i < result.steps.size(); ++i) steps.Add(StepDoc(i, result.steps[i]));
  d.Set("steps", std::move(steps));
  if (!result.status.ok()) d.Set("error", Doc::Str(std::string(result.status.message())));
  d.Set("result", Doc::Str(result.passed() ? "PASS" : "FAIL"));
  return internal::Emit(d, format);
}

}  // namespace qm
