// Reading the engine: the event view and its JSON, workload and ClusterQueue status as JSON,
// explanations, and snapshots (save/restore).
#include <string>
#include <vector>

#include "c/c_api_internal.h"
#include "fmt/format.h"
#include "qm/io/explain.h"
#include "qm/io/forecast_options.h"
#include "qm/io/forecast_report.h"
#include "qm/model/namespace_name.h"
#include "text/doc.h"

namespace qm::c {
namespace {

using internal::Doc;

// Keeps `s` in the handle's event storage and returns its stable C string.
const char* Keep(qm_engine& handle, std::string s) {
  handle.event_strings.push_back(std::move(s));
  return handle.event_strings.back().c_str();
}

std::string Name(const Engine& e, WorkloadHandle w) { return w.valid() ? e.WorkloadName(w) : ""; }

// An event's workload name; a deleted workload's comes from the handle's record of the delete
// call, since the engine no longer resolves its (now stale) handle.
std::string EventWorkloadName(const Engine& e, const qm_engine& handle, const Event& ev) {
  std::string name = Name(e, ev.workload);
  if (!name.empty() || ev.kind != EventKind::kDeleted) return name;
  for (const auto& [packed, deleted] : handle.deleted_names)
    if (packed == ev.workload.Pack()) return deleted;
  return name;
}

// Whether the event names a preemptor and a preemption reason.
bool HasPreemptor(const Event& ev) {
  return ev.kind == EventKind::kPreempted || ev.kind == EventKind::kPreemptionCycle;
}

// Rebuilds the handle's `qm_event` view of `LastEvents()`. Pod sets and flavor choices go to flat
// vectors sized first, so the pointers stored in the events stay valid.
void BuildEventView(const Engine& e, qm_engine& handle) {
  handle.events.clear();
  handle.event_pod_sets.clear();
  handle.event_flavors.clear();
  handle.event_strings.clear();
  handle.event_cycle_spans.clear();
  handle.event_cycle_names.clear();
  handle.event_pointers.clear();
  handle.event_pod_set_pointers.clear();
  handle.event_flavor_pointers.clear();
  const std::span<const Event> events = e.LastEvents();
  size_t pod_sets = 0, flavors = 0;
  for (const Event& ev : events) {
    pod_sets += ev.pod_sets.size();
    for (const AdmittedPodSet& ps : ev.pod_sets) flavors += ps.flavors.size();
  }
  handle.event_pod_sets.reserve(pod_sets);
  handle.event_flavors.reserve(flavors);
  handle.event_pod_set_pointers.reserve(pod_sets);
  handle.event_flavor_pointers.reserve(flavors);
  handle.events.reserve(events.size());
  handle.event_cycle_spans.reserve(events.size());
  for (const Event& ev : events) {
    qm_event out{};
    out.sequence = ev.sequence;
    out.kind = static_cast<qm_event_kind>(static_cast<int>(ev.kind));
    out.workload = ev.workload.Pack();
    out.workload_name = Keep(handle, EventWorkloadName(e, handle, ev));
    out.cluster_queue =
        Keep(handle, ev.cluster_queue.valid() ? e.ClusterQueueName(ev.cluster_queue) : "");
    out.time_unix_micros = ev.time.us;
    out.reason = Keep(handle, ev.reason == nullptr ? "" : ev.reason);
    out.preemption_reason = HasPreemptor(ev) ? PreemptionReasonName(ev.preemption_reason) : "";
    // Not 0 for "none": 0 is the packed handle of the engine's first workload.
    out.preemptor = ev.preemptor.valid() ? ev.preemptor.Pack() : QM_NO_WORKLOAD;
    out.preemptor_name = Keep(handle, Name(e, ev.preemptor));
    out.message = Keep(handle, ev.message);
    out.pod_sets = ev.pod_sets.empty() ? nullptr
                                       : handle.event_pod_set_pointers.data() +
                                             handle.event_pod_set_pointers.size();
    out.pod_set_count = ev.pod_sets.size();
    for (const AdmittedPodSet& ps : ev.pod_sets) {
      qm_admitted_pod_set p{};
      p.index = ps.index;
      p.count = ps.count;
      p.flavors = ps.flavors.empty() ? nullptr
                                     : handle.event_flavor_pointers.data() +
                                           handle.event_flavor_pointers.size();
      p.flavor_count = ps.flavors.size();
      for (const auto& [resource, flavor] : ps.flavors) {
        handle.event_flavors.push_back(
            qm_flavor_choice{Keep(handle, e.ResourceName(resource)), Keep(handle, e.FlavorName(flavor))});
        handle.event_flavor_pointers.push_back(&handle.event_flavors.back());
      }
      handle.event_pod_sets.push_back(p);
      handle.event_pod_set_pointers.push_back(&handle.event_pod_sets.back());
    }
    handle.event_cycle_spans.emplace_back(handle.event_cycle_names.size(), ev.cycle_queues.size());
    for (ClusterQueueId cq : ev.cycle_queues) {
      handle.event_cycle_names.push_back(Keep(handle, e.ClusterQueueName(cq)));
    }
    handle.events.push_back(out);
  }
  // After the last push_back: `events` was reserved, so these addresses are final.
  handle.event_pointers.reserve(handle.events.size());
  for (const qm_event& ev : handle.events) handle.event_pointers.push_back(&ev);
}

Doc EventsDoc(const Engine& e, const qm_engine& handle) {
  Doc list = Doc::List();
  for (const Event& ev : e.LastEvents()) {
    Doc d = Doc::Map();
    d.Set("sequence", Doc::Int(static_cast<int64_t>(ev.sequence)));
    d.Set("kind", Doc::Str(EventKindName(ev.kind)));
    d.Set("workload", Doc::Str(EventWorkloadName(e, handle, ev)));
    d.Set("handle", Doc::Int(static_cast<int64_t>(ev.workload.Pack())));
    d.Set("clusterQueue",
          Doc::Str(ev.cluster_queue.valid() ? e.ClusterQueueName(ev.cluster_queue) : ""));
    d.Set("timeUnixMicros", Doc::Int(ev.time.us));
    d.Set("reason", Doc::Str(ev.reason == nullptr ? "" : ev.reason));
    if (HasPreemptor(ev)) {
      d.Set("preemptionReason", Doc::Str(PreemptionReasonName(ev.preemption_reason)));
      d.Set("preemptor", Doc::Str(Name(e, ev.preemptor)));
      d.Set("preemptorHandle", ev.preemptor.valid()
                                   ? Doc::Int(static_cast<int64_t>(ev.preemptor.Pack()))
                                   : Doc());
    }
    d.Set("message", Doc::Str(ev.message));
    if (ev.kind == EventKind::kPreemptionCycle) {
      Doc queues = Doc::List();
      for (ClusterQueueId cq : ev.cycle_queues) queues.Add(Doc::Str(e.ClusterQueueName(cq)));
      d.Set("cycleQueues", std::move(queues));
    }
    if (ev.kind == EventKind::kAdmitted) {
      Doc pod_sets = Doc::List();
      for (const AdmittedPodSet& ps : ev.pod_sets) {
        Doc flavors = Doc::Map();
        for (const auto& [resource, flavor] : ps.flavors) {
          flavors.Set(e.ResourceName(resource), Doc::Str(e.FlavorName(flavor)));
        }
        Doc p = Doc::Map();
        p.Set("index", Doc::Int(ps.index));
        p.Set("count", Doc::Int(ps.count));
        p.Set("flavors", std::move(flavors));
        pod_sets.Add(std::move(p));
      }
      d.Set("podSets", std::move(pod_sets));
    }
    list.Add(std::move(d));
  }
  return list;
}

Doc AmountsDoc(const ResourceAmounts& amounts) {
  Doc d = Doc::Map();
  for (const auto& [resource, amount] : amounts) d.Set(resource, Doc::Int(amount));
  return d;
}

Doc AssignmentDoc(const Assignment& a) {
  Doc pod_sets = Doc::List();
  for (const PodSetAssignment& ps : a.pod_sets) {
    Doc flavors = Doc::Map();
    for (const ResourceAssignment& r : ps.resources) flavors.Set(r.resource, Doc::Str(r.flavor));
    Doc p = Doc::Map();
    p.Set("name", Doc::Str(ps.name));
    p.Set("count", Doc::Int(ps.count));
    p.Set("flavors", std::move(flavors));
    p.Set("usage", AmountsDoc(ps.usage));
    pod_sets.Add(std::move(p));
  }
  Doc d = Doc::Map();
  d.Set("podSets", std::move(pod_sets));
  d.Set("borrowing", Doc::Bool(a.borrowing()));
  return d;
}

// `WorkloadStatus::preemptions`: counts (every reason listed), time lost, recent preemptions.
Doc PreemptionsDoc(const PreemptionSummary& p) {
  Doc by_reason = Doc::Map();
  for (int r = 0; r < kPreemptionReasons; ++r) {
    by_reason.Set(PreemptionReasonName(static_cast<PreemptionReason>(r)), Doc::Int(p.by_reason[r]));
  }
  Doc recent = Doc::List();
  for (const PreemptionSummary::Record& r : p.recent) {
    Doc one = Doc::Map();
    one.Set("timeUnixMicros", Doc::Int(r.time.us));
    one.Set("preemptor", Doc::Str(r.preemptor));
    one.Set("preemptorClusterQueue", Doc::Str(r.preemptor_cluster_queue));
    one.Set("reason", Doc::Str(PreemptionReasonName(r.reason)));
    recent.Add(std::move(one));
  }
  Doc d = Doc::Map();
  d.Set("preempted", Doc::Int(p.preempted));
  d.Set("byReason", std::move(by_reason));
  d.Set("caused", Doc::Int(p.caused));
  d.Set("heldLostMicros", Doc::Int(p.held_lost.us));
  d.Set("recent", std::move(recent));
  d.Set("borrowAllowedAtUnixMicros",
        p.borrow_allowed_at.has_value() ? Doc::Int(p.borrow_allowed_at->us) : Doc());
  return d;
}

Doc WorkloadDoc(const WorkloadStatus& s) {
  Doc d = Doc::Map();
  d.Set("namespace", Doc::Str(s.namespace_));
  d.Set("name", Doc::Str(s.name));
  d.Set("handle", Doc::Int(static_cast<int64_t>(s.id.Pack())));
  d.Set("state", Doc::Str(WorkloadStateName(s.state)));
  d.Set("priority", Doc::Int(s.priority));
  d.Set("creationTimeUnixMicros", Doc::Int(s.creation_time.us));
  d.Set("clusterQueue", Doc::Str(s.cluster_queue));
  d.Set("inadmissible", Doc::Bool(s.inadmissible));
  d.Set("reason", Doc::Str(s.reason));
  d.Set("message", Doc::Str(s.message));
  d.Set("admission", s.admission.has_value() ? AssignmentDoc(*s.admission) : Doc());
  d.Set("preemptionReason", s.preemption_reason.has_value()
                                ? Doc::Str(PreemptionReasonName(*s.preemption_reason))
                                : Doc());
  d.Set("preemptions", PreemptionsDoc(s.preemptions));
  // waitForPodsReady (API version 4), only when there is something to say, so the document of a
  // workload without it is what it was.
  if (s.pods_ready) d.Set("podsReady", Doc::Bool(true));
  if (s.requeue_count > 0) {
    Doc rq = Doc::Map();
    rq.Set("count", Doc::Int(s.requeue_count));
    rq.Set("requeueAtUnixMicros", s.requeue_at.has_value() ? Doc::Int(s.requeue_at->us) : Doc());
    d.Set("requeueState", std::move(rq));
  }
  return d;
}

Doc NamesDoc(const Engine& e, const std::vector<WorkloadHandle>& workloads) {
  Doc d = Doc::List();
  for (WorkloadHandle w : workloads) d.Add(Doc::Str(e.WorkloadName(w)));
  return d;
}

Doc ClusterQueueDoc(const Engine& e, const ClusterQueueStatus& s) {
  Doc usage = Doc::List();
  for (const FlavorResourceUsage& u : s.usage) {
    Doc row = Doc::Map();
    row.Set("flavor", Doc::Str(u.flavor));
    row.Set("resource", Doc::Str(u.resource));
    row.Set("nominal", Doc::Int(u.nominal));
    row.Set("usage", Doc::Int(u.usage));
    row.Set("borrowed", Doc::Int(u.borrowed));
    usage.Add(std::move(row));
  }
  Doc d = Doc::Map();
  d.Set("name", Doc::Str(s.name));
  d.Set("cohort", Doc::Str(s.cohort));
  d.Set("active", Doc::Bool(s.active));
  d.Set("activeMessage", Doc::Str(s.active_message));
  d.Set("usage", std::move(usage));
  d.Set("pending", NamesDoc(e, s.pending));
  d.Set("inadmissible", NamesDoc(e, s.inadmissible));
  d.Set("admitted", NamesDoc(e, s.admitted));
  d.Set("weightedShare", Doc::Int(s.weighted_share));
  return d;
}

// Kueue's LocalQueue status field names; amounts in the engine's base units, like ClusterQueueDoc.
Doc LocalQueueDoc(const LocalQueueStatus& s) {
  const auto totals = [](const std::vector<LocalQueueFlavorTotals>& flavors) {
    Doc list = Doc::List();
    for (const LocalQueueFlavorTotals& f : flavors) {
      Doc resources = Doc::List();
      for (const auto& [resource, amount] : f.resources) {
        Doc r = Doc::Map();
        r.Set("name", Doc::Str(resource));
        r.Set("total", Doc::Int(amount));
        resources.Add(std::move(r));
      }
      Doc d = Doc::Map();
      d.Set("name", Doc::Str(f.flavor));
      d.Set("resources", std::move(resources));
      list.Add(std::move(d));
    }
    return list;
  };
  Doc d = Doc::Map();
  d.Set("namespace", Doc::Str(s.namespace_));
  d.Set("name", Doc::Str(s.name));
  d.Set("clusterQueue", Doc::Str(s.cluster_queue));
  d.Set("active", Doc::Bool(s.active));
  d.Set("reason", Doc::Str(s.reason));
  d.Set("message", Doc::Str(s.message));
  d.Set("pendingWorkloads", Doc::Int(s.pending_workloads));
  d.Set("reservingWorkloads", Doc::Int(s.reserving_workloads));
  d.Set("admittedWorkloads", Doc::Int(s.admitted_workloads));
  d.Set("flavorsReservation", totals(s.flavors_reservation));
  d.Set("flavorsUsage", totals(s.flavors_usage));
  return d;
}

Doc FullAssignmentDoc(const Assignment& a) {
  Doc pod_sets = Doc::List();
  for (const PodSetAssignment& ps : a.pod_sets) {
    Doc resources = Doc::List();
    for (const ResourceAssignment& r : ps.resources) {
      Doc one = Doc::Map();
      one.Set("resource", Doc::Str(r.resource));
      one.Set("flavor", Doc::Str(r.flavor));
      one.Set("mode", Doc::Str(AssignmentModeName(r.mode)));
      one.Set("borrowLevel", Doc::Int(r.borrow_level));
      resources.Add(std::move(one));
    }
    Doc p = Doc::Map();
    p.Set("name", Doc::Str(ps.name));
    p.Set("count", Doc::Int(ps.count));
    p.Set("resources", std::move(resources));
    p.Set("usage", AmountsDoc(ps.usage));
    pod_sets.Add(std::move(p));
  }
  Doc attempts = Doc::List();
  for (const FlavorAttempt& at : a.attempts) {
    Doc reasons = Doc::List();
    for (const std::string& r : at.reasons) reasons.Add(Doc::Str(r));
    Doc one = Doc::Map();
    one.Set("podSet", Doc::Str(at.pod_set));
    one.Set("flavor", Doc::Str(at.flavor));
    one.Set("verdict", Doc::Str(at.verdict));
    one.Set("reasons", std::move(reasons));
    one.Set("chosen", Doc::Bool(at.chosen));
    attempts.Add(std::move(one));
  }
  Doc d = Doc::Map();
  d.Set("mode", Doc::Str(AssignmentModeName(a.representative_mode)));
  d.Set("borrowing", Doc::Bool(a.borrowing()));
  d.Set("borrowLevel", Doc::Int(a.borrow_level));
  d.Set("message", Doc::Str(a.message));
  if (!a.refused.empty()) d.Set("refusedByCycle", Doc::Str(a.refused));
  d.Set("podSets", std::move(pod_sets));
  d.Set("attempts", std::move(attempts));
  return d;
}

// The requested flavors of a preemption query: the caller's, or (none given) the resources that
// the assigner would place, each with the mode it found.
absl::StatusOr<std::vector<RequestedFlavor>> RequestedFlavors(const Engine& e, WorkloadHandle w,
                                                              std::string_view cluster_queue,
                                                              const qm_preemption_query* query) {
  std::vector<RequestedFlavor> out;
  if (query != nullptr && query->flavor_count > 0) {
    if (query->flavors == nullptr) return absl::InvalidArgumentError("query.flavors is NULL");
    if (query->flavor_count > (size_t{1} << 20)) {
      return absl::InvalidArgumentError(
          fmt::format("query.flavor_count {} is too large", query->flavor_count));
    }
    for (size_t i = 0; i < query->flavor_count; ++i) {
      const qm_requested_flavor& f = query->flavors[i];
      const std::string where = fmt::format("query.flavors[{}]", i);
      RequestedFlavor r;
      QM_ASSIGN_OR_RETURN(std::string_view ps, OptionalText(f.pod_set, (where + ".pod_set").c_str()));
      QM_ASSIGN_OR_RETURN(std::string_view res, Text(f.resource, (where + ".resource").c_str()));
      QM_ASSIGN_OR_RETURN(std::string_view fl, Text(f.flavor, (where + ".flavor").c_str()));
      if (f.mode != 1 && f.mode != 2) {
        return absl::InvalidArgumentError(
            fmt::format("{}.mode: {} is not 1 (Preempt) or 2 (Fit)", where, f.mode));
      }
      r.pod_set = ps.empty() ? "main" : std::string(ps);
      r.resource = std::string(res);
      r.flavor = std::string(fl);
      r.mode = f.mode == 1 ? AssignmentMode::kPreempt : AssignmentMode::kFit;
      out.push_back(std::move(r));
    }
    return out;
  }
  QM_ASSIGN_OR_RETURN(Assignment a, e.AssignFlavors(w, cluster_queue));
  for (const PodSetAssignment& ps : a.pod_sets) {
    for (const ResourceAssignment& r : ps.resources) {
      if (r.mode == AssignmentMode::kNoFit || r.flavor.empty()) continue;
      out.push_back(RequestedFlavor{ps.name, r.resource, r.flavor, r.mode});
    }
  }
  return out;
}

Doc PreemptionsListDoc(const Engine& e, const std::vector<Preemption>& targets) {
  Doc list = Doc::List();
  for (const Preemption& p : targets) {
    Doc d = Doc::Map();
    d.Set("victim", Doc::Str(Name(e, p.victim)));
    d.Set("handle", Doc::Int(static_cast<int64_t>(p.victim.Pack())));
    const absl::StatusOr<WorkloadStatus> status = e.GetWorkload(p.victim);
    d.Set("clusterQueue", Doc::Str(status.ok() ? status->cluster_queue : ""));
    d.Set("reason", Doc::Str(PreemptionReasonName(p.reason)));
    d.Set("message", Doc::Str(p.message));
    list.Add(std::move(d));
  }
  return list;
}

// The (namespace, name) arguments of a query.
struct WorkloadName {
  std::string_view ns;
  std::string_view name;
};
absl::StatusOr<WorkloadName> ReadName(const char* namespace_name, const char* name) {
  QM_ASSIGN_OR_RETURN(std::string_view ns, OptionalText(namespace_name, "namespace"));
  QM_ASSIGN_OR_RETURN(std::string_view n, Text(name, "name"));
  return WorkloadName{qm::NamespaceOrDefault(ns), n};
}

}  // namespace
}  // namespace qm::c

using qm::c::RunOnEngine;
using qm::internal::EmitJson;

extern "C" {

QM_C_EXPORT const char* qm_event_kind_name(int kind) {
  if (kind < 0 || kind > QM_EVENT_PREEMPTION_CYCLE) return "Unknown";
  return qm::EventKindName(static_cast<qm::EventKind>(kind));
}

QM_C_EXPORT qm_status qm_engine_events(qm_engine* engine, const qm_event* const** events,
                                       size_t* count) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine& handle) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(events, "events"));
    QM_RETURN_IF_ERROR(qm::c::NeedOut(count, "count"));
    qm::c::BuildEventView(e, handle);
    *events = handle.event_pointers.empty() ? nullptr : handle.event_pointers.data();
    *count = handle.events.size();
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_event_cycle_queues(qm_engine* engine, size_t index,
                                                   const char* const** names, size_t* count) {
  // Reads the view `qm_engine_events` built, and changes nothing in it.
  return RunOnEngine(engine, [&](qm::Engine&, qm_engine& handle) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(names, "names"));
    QM_RETURN_IF_ERROR(qm::c::NeedOut(count, "count"));
    if (index >= handle.event_cycle_spans.size()) {
      return absl::OutOfRangeError(fmt::format(
          "index: {} is not below the {} event(s) the latest qm_engine_events call returned", index,
          handle.event_cycle_spans.size()));
    }
    const auto [offset, n] = handle.event_cycle_spans[index];
    *names = n == 0 ? nullptr : handle.event_cycle_names.data() + offset;
    *count = n;
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_events_json(qm_engine* engine, char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine& handle) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    *json = qm::c::CopyOut(EmitJson(qm::c::EventsDoc(e, handle)));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_workload_json(qm_engine* engine, const char* namespace_name,
                                              const char* name, char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    QM_ASSIGN_OR_RETURN(qm::c::WorkloadName n, qm::c::ReadName(namespace_name, name));
    QM_ASSIGN_OR_RETURN(qm::WorkloadStatus status, e.GetWorkload(n.ns, n.name));
    *json = qm::c::CopyOut(EmitJson(qm::c::WorkloadDoc(status)));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_cluster_queue_json(qm_engine* engine, const char* name,
                                                   char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    QM_ASSIGN_OR_RETURN(std::string_view n, qm::c::Text(name, "name"));
    QM_ASSIGN_OR_RETURN(qm::ClusterQueueStatus status, e.GetClusterQueue(n));
    *json = qm::c::CopyOut(EmitJson(qm::c::ClusterQueueDoc(e, status)));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_local_queue_json(qm_engine* engine, const char* namespace_name,
                                                 const char* name, char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    QM_ASSIGN_OR_RETURN(qm::c::WorkloadName n, qm::c::ReadName(namespace_name, name));
    QM_ASSIGN_OR_RETURN(qm::LocalQueueStatus status, e.GetLocalQueue(n.ns, n.name));
    *json = qm::c::CopyOut(EmitJson(qm::c::LocalQueueDoc(status)));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_list_json(qm_engine* engine, char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    qm::internal::Doc queues = qm::internal::Doc::List();
    for (const std::string& cq : e.ClusterQueues()) queues.Add(qm::internal::Doc::Str(cq));
    qm::internal::Doc d = qm::internal::Doc::Map();
    d.Set("workloads", qm::c::NamesDoc(e, e.Workloads()));
    d.Set("clusterQueues", std::move(queues));
    qm::internal::Doc cohorts = qm::internal::Doc::List();
    for (const std::string& c : e.Cohorts()) cohorts.Add(qm::internal::Doc::Str(c));
    d.Set("cohorts", std::move(cohorts));
    qm::internal::Doc local_queues = qm::internal::Doc::List();
    for (const std::string& lq : e.LocalQueues()) local_queues.Add(qm::internal::Doc::Str(lq));
    d.Set("localQueues", std::move(local_queues));
    *json = qm::c::CopyOut(EmitJson(d));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_explain_json(qm_engine* engine, const char* namespace_name,
                                             const char* name, char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    QM_ASSIGN_OR_RETURN(qm::c::WorkloadName n, qm::c::ReadName(namespace_name, name));
    QM_ASSIGN_OR_RETURN(qm::WorkloadExplanation explanation, e.Explain(n.ns, n.name));
    *json = qm::c::CopyOut(qm::RenderExplanation(e, explanation, qm::OutputFormat::kJson));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_forecast_json(qm_engine* engine, const char* options, char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    std::string_view text;
    if (options != nullptr) {
      QM_ASSIGN_OR_RETURN(text, qm::c::Text(options, "options"));
    }
    QM_ASSIGN_OR_RETURN(const qm::ForecastOptions parsed, qm::ReadForecastOptions(text, "options", e));
    QM_ASSIGN_OR_RETURN(const qm::ForecastReport report, e.Forecast(parsed));
    *json = qm::c::CopyOut(qm::RenderForecast(report, qm::OutputFormat::kJson));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_what_if_json(qm_engine* engine, const char* namespace_name, const char* name,
                                             char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    QM_ASSIGN_OR_RETURN(qm::c::WorkloadName n, qm::c::ReadName(namespace_name, name));
    const qm::WorkloadHandle h = e.FindWorkload(n.ns, n.name);
    if (!h.valid()) return absl::NotFoundError(fmt::format("Workload '{}/{}': not found", n.ns, n.name));
    QM_ASSIGN_OR_RETURN(const qm::WhatIfReport report, e.WhatIf(h));
    *json = qm::c::CopyOut(qm::RenderWhatIf(report, qm::OutputFormat::kJson));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_cohort_json(qm_engine* engine, const char* name, char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    QM_ASSIGN_OR_RETURN(std::string_view n, qm::c::Text(name, "name"));
    QM_ASSIGN_OR_RETURN(qm::CohortStatus status, e.GetCohort(n));
    qm::internal::Doc d = qm::internal::Doc::Map();
    d.Set("name", qm::internal::Doc::Str(status.name));
    d.Set("parent", qm::internal::Doc::Str(status.parent));
    d.Set("implicit", qm::internal::Doc::Bool(status.implicit));
    d.Set("weightedShare", qm::internal::Doc::Int(status.weighted_share));
    *json = qm::c::CopyOut(EmitJson(d));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_assign_flavors_json(qm_engine* engine, const char* namespace_name,
                                                    const char* name, const char* cluster_queue,
                                                    char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    QM_ASSIGN_OR_RETURN(qm::c::WorkloadName n, qm::c::ReadName(namespace_name, name));
    QM_ASSIGN_OR_RETURN(std::string_view cq, qm::c::OptionalText(cluster_queue, "cluster_queue"));
    QM_ASSIGN_OR_RETURN(qm::Assignment a, e.AssignFlavors(n.ns, n.name, cq));
    *json = qm::c::CopyOut(EmitJson(qm::c::FullAssignmentDoc(a)));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_preemption_targets_json(qm_engine* engine,
                                                        const char* namespace_name,
                                                        const char* name,
                                                        const qm_preemption_query* query,
                                                        char** json) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    QM_ASSIGN_OR_RETURN(qm::c::WorkloadName n, qm::c::ReadName(namespace_name, name));
    std::string_view cq;
    if (query != nullptr) {
      QM_RETURN_IF_ERROR(
          qm::c::CheckVersion(query->version, QM_PREEMPTION_QUERY_VERSION, "qm_preemption_query"));
      QM_ASSIGN_OR_RETURN(cq, qm::c::OptionalText(query->cluster_queue, "query.cluster_queue"));
    }
    const qm::WorkloadHandle w = e.FindWorkload(n.ns, n.name);
    if (!w.valid()) return absl::NotFoundError(fmt::format("workload '{}/{}' not found", n.ns, n.name));
    QM_ASSIGN_OR_RETURN(std::vector<qm::RequestedFlavor> flavors,
                        qm::c::RequestedFlavors(e, w, cq, query));
    QM_ASSIGN_OR_RETURN(std::vector<qm::Preemption> targets, e.PreemptionTargets(w, cq, flavors));
    *json = qm::c::CopyOut(EmitJson(qm::c::PreemptionsListDoc(e, targets)));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_save(qm_engine* engine, char** data, size_t* size) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(data, "data"));
    QM_RETURN_IF_ERROR(qm::c::NeedOut(size, "size"));
    QM_ASSIGN_OR_RETURN(std::string bytes, e.Save());
    *data = qm::c::CopyOut(bytes);  // NUL-terminated too, though the bytes may hold NULs
    *size = bytes.size();
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_restore(const char* data, size_t size, qm_engine** out) {
  return qm::c::Run([&]() -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(out, "out"));
    *out = nullptr;
    if (data == nullptr) return absl::InvalidArgumentError("data is NULL");
    if (size > qm::c::kMaxInputBytes) {
      return absl::ResourceExhaustedError("snapshot is larger than 512 MiB");
    }
    QM_ASSIGN_OR_RETURN(qm::Engine engine, qm::Engine::Restore(std::string_view(data, size)));
    *out = qm::c::NewHandle(std::move(engine));
    return absl::OkStatus();
  });
}

}  // extern "C"
