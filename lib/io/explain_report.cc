// `qm explain` output.
#include <limits>
#include <string>

#include "io/report_docs.h"
#include "qm/core/quantity.h"
#include "qm/core/quantity_text.h"
#include "qm/io/explain.h"
#include "qm/io/forecast_report.h"
#include "qm/text/time_text.h"
#include "text/doc.h"

namespace qm {
namespace {

using internal::Doc;

Doc AttemptDoc(const FlavorAttempt& a) {
  Doc d = Doc::Map();
  d.Set("podSet", Doc::Str(a.pod_set));
  d.Set("flavor", Doc::Str(a.flavor));
  d.Set("verdict", Doc::Str(a.verdict));
  d.Set("chosen", Doc::Bool(a.chosen));
  Doc reasons = Doc::List();
  for (const std::string& r : a.reasons) reasons.Add(Doc::Str(r));
  d.Set("reasons", std::move(reasons));
  Doc resources = Doc::List();
  for (const FlavorAttempt::ResourceCheck& c : a.checks) {
    Doc r = Doc::Map();
    r.Set("resource", Doc::Str(c.resource));
    r.Set("requested", Doc::Str(FormatAmount(c.resource, c.requested)));
    r.Set("available", Doc::Str(FormatLimit(c.resource, c.available)));
    r.Set("nominal", Doc::Str(FormatAmount(c.resource, c.nominal)));
    r.Set("potential", Doc::Str(FormatLimit(c.resource, c.potential)));
    r.Set("borrowLevel", Doc::Int(c.borrow_level));
    resources.Add(std::move(r.Flow()));
  }
  d.Set("resources", std::move(resources));
  return d;
}

// Every preemption of and by the workload: counts (per reason, all four listed), the quota-holding
// time lost, the latest preemptions, and the end of a borrow back-off.
Doc PreemptionsDoc(const PreemptionSummary& ps) {
  Doc d = Doc::Map();
  d.Set("preempted", Doc::Int(ps.preempted));
  Doc by_reason = Doc::Map();
  for (int r = 0; r < kPreemptionReasons; ++r) {
    by_reason.Set(PreemptionReasonName(static_cast<PreemptionReason>(r)), Doc::Int(ps.by_reason[r]));
  }
  d.Set("byReason", std::move(by_reason.Flow()));
  d.Set("caused", Doc::Int(ps.caused));
  d.Set("heldLost", Doc::Str(FormatGoDuration(ps.held_lost)));
  Doc recent = Doc::List();
  for (const PreemptionSummary::Record& r : ps.recent) {
    Doc one = Doc::Map();
    one.Set("at", Doc::Str(FormatRfc3339(r.time)));
    one.Set("by", Doc::Str(r.preemptor));
    one.Set("clusterQueue", Doc::Str(r.preemptor_cluster_queue));
    one.Set("reason", Doc::Str(PreemptionReasonName(r.reason)));
    recent.Add(std::move(one.Flow()));
  }
  d.Set("recent", std::move(recent));
  if (ps.borrow_allowed_at.has_value()) d.Set("borrowAllowedAt", Doc::Str(FormatRfc3339(*ps.borrow_allowed_at)));
  return d;
}

}  // namespace

std::string RenderExplanation(const Engine& engine, const WorkloadExplanation& e,
                              OutputFormat format, const WorkloadForecast* forecast, const ForecastReport* report,
                              const WhatIfReport* what_if) {
  const WorkloadStatus& st = e.status;
  Doc d = Doc::Map();
  d.Set("workload", Doc::Str(st.namespace_ + "/" + st.name));
  d.Set("state", Doc::Str(WorkloadStateName(st.state)));
  d.Set("clusterQueue", Doc::Str(st.cluster_queue));
  d.Set("priority", Doc::Int(st.priority));
  d.Set("creationTimestamp", Doc::Str(FormatRfc3339(st.creation_time)));
  if (st.state == WorkloadState::kPending) d.Set("inadmissible", Doc::Bool(st.inadmissible));
  d.Set("reason", Doc::Str(st.reason));
  d.Set("message", Doc::Str(st.message));
  if (st.admission.has_value()) {
    Doc admission = Doc::Map();
    admission.Set("clusterQueue", Doc::Str(st.cluster_queue));
    admission.Set("borrowing", Doc::Bool(st.admission->borrowing()));
    if (st.quota_reserved_time.has_value()) {
      admission.Set("quotaReservedAt", Doc::Str(FormatRfc3339(*st.quota_reserved_time)));
    }
    admission.Set("podSets", internal::AdmittedPodSetsDoc(*st.admission));
    d.Set("admission", std::move(admission));
  }
  if (e.assignment.has_value()) {
    Doc attempts = Doc::List();
    for (const FlavorAttempt& a : e.assignment->attempts) attempts.Add(AttemptDoc(a));
    d.Set("flavorsTried", std::move(attempts));
    Doc a = Doc::Map();
    a.Set("representativeMode", Doc::Str(AssignmentModeName(e.assignment->representative_mode)));
    a.Set("borrowing", Doc::Bool(e.assignment->borrowing()));
    if (!e.assignment->message.empty()) a.Set("message", Doc::Str(e.assignment->message));
    // The next cycle would not try these flavors at all: say why, next to what they would give.
    if (!e.assignment->refused.empty()) a.Set("refusedByCycle", Doc::Str(e.assignment->refused));
    a.Set("podSets", internal::AssignmentModesDoc(*e.assignment));
    d.Set("assignment", std::move(a));
  }
  if (st.state == WorkloadState::kPending) {
    Doc would = Doc::List();
    for (const Preemption& p : e.would_preempt) {
      Doc w = Doc::Map();
      w.Set("workload", Doc::Str(engine.WorkloadName(p.victim)));
      w.Set("reason", Doc::Str(PreemptionReasonName(p.reason)));
      w.Set("message", Doc::Str(p.message));
      would.Add(std::move(w));
    }
    d.Set("wouldPreempt", std::move(would));
  }
  if (engine.config().fair_sharing.enabled && !st.cluster_queue.empty()) {
    // The fair-sharing standing of the workload's queue and of every cohort above it.
    auto share = [](int64_t v) {
      return v == std::numeric_limits<int64_t>::max() ? Doc::Str("max") : Doc::Int(v);
    };
    Doc fs = Doc::Map();
    if (absl::StatusOr<ClusterQueueStatus> cq = engine.GetClusterQueue(st.cluster_queue); cq.ok()) {
      fs.Set(st.cluster_queue, share(cq->weighted_share));
      std::string cohort = cq->cohort;
      for (int depth = 0; !cohort.empty() && depth < 64; ++depth) {
        absl::StatusOr<CohortStatus> co = engine.GetCohort(cohort);
        if (!co.ok()) break;
        fs.Set(cohort, share(co->weighted_share));
        cohort = co->parent;
      }
    }
    d.Set("weightedShares", std::move(fs.Flow()));
    // Ours (docs/semantics.md §11.8): the shares above then include the decayed borrowing history.
    if (engine.config().fair_sharing.historical.enabled)
      d.Set("shareHistoryHalfLife", Doc::Str(FormatGoDuration(engine.config().fair_sharing.historical.half_life)));
  }
  if (!e.preempted_by.empty() || e.preemption_reason.has_value()) {
    Doc p = Doc::Map();
    p.Set("by", Doc::Str(e.preempted_by));
    if (e.preemption_reason.has_value()) {
      p.Set("reason", Doc::Str(PreemptionReasonName(*e.preemption_reason)));
    }
    p.Set("message", Doc::Str(e.preemption_message));
    d.Set("preempted", std::move(p));
  }
  if (const PreemptionSummary& ps = st.preemptions;
      ps.preempted > 0 || ps.caused > 0 || ps.borrow_allowed_at.has_value()) {
    d.Set("preemptions", PreemptionsDoc(ps));
  }
  if (forecast != nullptr && report != nullptr) {
    Doc f = Doc::Map();
    f.Set("summary", Doc::Str(ForecastSentence(*forecast, *report)));
    f.Set("admission", forecast->admission ? Doc::Str(FormatRfc3339(*forecast->admission)) : Doc());
    f.Set("positionInClusterQueue", Doc::Int(forecast->position_in_cluster_queue));
    f.Set("positionInCohort", Doc::Int(forecast->position_in_cohort));
    d.Set("forecast", std::move(f));
  }
  if (what_if != nullptr) d.Set("whatIf", internal::WhatIfDoc(*what_if));
  return internal::Emit(d, format);
}

}  // namespace qm
