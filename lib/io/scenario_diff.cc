#include "io/scenario_diff.h"

#include <limits>
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "fmt/format.h"
#include "io/names.h"
#include "qm/core/quantity_text.h"
#include "qm/model/namespace_name.h"
#include "qm/text/time_text.h"
#include "text/doc.h"

namespace qm::internal {
namespace {

// An admission as the engine reports it, in the shape of `ExpectedAdmission`.
struct GotPodSet {
  std::map<std::string, std::string> flavors;
  int32_t count = 0;
};
struct GotAdmission {
  std::string cluster_queue;
  std::map<std::string, GotPodSet> pod_sets;
};

GotAdmission FromAssignment(const std::string& cluster_queue, const Assignment& a) {
  GotAdmission got;
  got.cluster_queue = cluster_queue;
  for (const PodSetAssignment& ps : a.pod_sets) {
    GotPodSet& g = got.pod_sets[ps.name];
    g.count = ps.count;
    for (const ResourceAssignment& r : ps.resources) {
      if (!r.flavor.empty()) g.flavors[r.resource] = r.flavor;
    }
  }
  return got;
}

Doc FlavorsDoc(const std::map<std::string, std::string>& flavors) {
  Doc d = Doc::Map();
  for (const auto& [r, f] : flavors) d.Set(r, Doc::Str(f));
  return d.Flow();
}

Doc PodSetDoc(const std::map<std::string, std::string>& flavors, std::optional<int32_t> count) {
  if (!count.has_value()) return FlavorsDoc(flavors);
  Doc d = Doc::Map();
  d.Set("flavors", FlavorsDoc(flavors));
  d.Set("count", Doc::Int(*count));
  return d.Flow();
}

std::string Render(const ExpectedAdmission& e) {
  Doc pod_sets = Doc::Map();
  for (const auto& [name, ps] : e.pod_sets) pod_sets.Set(name, PodSetDoc(ps.flavors, ps.count));
  Doc d = Doc::Map();
  d.Set("clusterQueue", Doc::Str(e.cluster_queue));
  d.Set("podSets", std::move(pod_sets.Flow()));
  return EmitFlow(d.Flow());
}

// Renders `g` in the shape of `e` (counts only where `e` gives one; `e` may be null).
std::string Render(const GotAdmission& g, const ExpectedAdmission* e) {
  Doc pod_sets = Doc::Map();
  for (const auto& [name, ps] : g.pod_sets) {
    const ExpectedPodSet* eps = nullptr;
    if (e != nullptr) {
      if (auto it = e->pod_sets.find(name); it != e->pod_sets.end()) eps = &it->second;
    }
    if (ps.flavors.empty() && eps == nullptr) continue;
    std::optional<int32_t> count;
    if (eps != nullptr && eps->count.has_value()) count = ps.count;
    pod_sets.Set(name, PodSetDoc(ps.flavors, count));
  }
  Doc d = Doc::Map();
  d.Set("clusterQueue", Doc::Str(g.cluster_queue));
  d.Set("podSets", std::move(pod_sets.Flow()));
  return EmitFlow(d.Flow());
}

bool Matches(const ExpectedAdmission& e, const GotAdmission& g) {
  if (e.cluster_queue != g.cluster_queue) return false;
  std::set<std::string> names;
  for (const auto& [n, ps] : e.pod_sets) names.insert(n);
  for (const auto& [n, ps] : g.pod_sets) names.insert(n);
  for (const std::string& n : names) {
    const auto ei = e.pod_sets.find(n);
    const auto gi = g.pod_sets.find(n);
    if (ei == e.pod_sets.end()) {
      if (!gi->second.flavors.empty()) return false;
      continue;
    }
    if (gi == g.pod_sets.end()) {
      if (!ei->second.flavors.empty() || ei->second.count.has_value()) return false;
      continue;
    }
    if (ei->second.flavors != gi->second.flavors) return false;
    if (ei->second.count.has_value() && *ei->second.count != gi->second.count) return false;
  }
  return true;
}

void CompareAdmissions(std::string_view key, const std::map<std::string, ExpectedAdmission>& expect,
                       const std::map<std::string, GotAdmission>& got,
                       std::vector<std::string>* out) {
  std::set<std::string> names;
  for (const auto& [n, a] : expect) names.insert(n);
  for (const auto& [n, a] : got) names.insert(n);
  for (const std::string& n : names) {
    const auto ei = expect.find(n);
    const auto gi = got.find(n);
    if (ei == expect.end()) {
      out->push_back(fmt::format("{}.{}: expected nothing, got {}", key, n, Render(gi->second, nullptr)));
    } else if (gi == got.end()) {
      out->push_back(fmt::format("{}.{}: expected {}, got nothing", key, n, Render(ei->second)));
    } else if (!Matches(ei->second, gi->second)) {
      out->push_back(fmt::format("{}.{}: expected {}, got {}", key, n, Render(ei->second),
                                 Render(gi->second, &ei->second)));
    }
  }
}

std::string RenderPreemptions(const std::map<std::string, PreemptionReason>& workloads,
                              bool with_reasons) {
  if (with_reasons) {
    Doc d = Doc::Map();
    for (const auto& [n, r] : workloads) d.Set(n, Doc::Str(PreemptionReasonName(r)));
    return EmitFlow(d.Flow());
  }
  Doc d = Doc::List();
  for (const auto& [n, r] : workloads) d.Add(Doc::Str(n));
  return EmitFlow(d.Flow());
}

void ComparePreemptions(std::string_view key, const ExpectedPreemptions& expect,
                        const std::vector<PreemptedWorkload>& got_list,
                        std::vector<std::string>* out) {
  std::map<std::string, PreemptionReason> got;
  for (const PreemptedWorkload& p : got_list) got[p.workload] = p.reason;
  bool same = got.size() == expect.workloads.size();
  auto gi = got.cbegin();
  for (auto ei = expect.workloads.cbegin(); same && ei != expect.workloads.cend();
       ++ei, ++gi) {
    same = ei->first == gi->first && (!expect.with_reasons || ei->second == gi->second);
  }
  if (!same) {
    out->push_back(fmt::format("{}: expected {}, got {}", key,
                               RenderPreemptions(expect.workloads, expect.with_reasons),
                               RenderPreemptions(got, expect.with_reasons)));
  }
}

std::string RenderList(const std::vector<std::string>& names) {
  Doc d = Doc::List();
  for (const std::string& n : names) d.Add(Doc::Str(n));
  return EmitFlow(d.Flow());
}

void CompareQueueLists(std::string_view key,
                       const std::map<std::string, std::vector<std::string>>& expect,
                       const std::map<std::string, std::vector<std::string>>& got,
                       std::vector<std::string>* out) {
  std::set<std::string> queues;
  for (const auto& [q, l] : expect) queues.insert(q);
  for (const auto& [q, l] : got) queues.insert(q);
  static const std::vector<std::string> kNone;
  for (const std::string& q : queues) {
    const auto ei = expect.find(q);
    const auto gi = got.find(q);
    const std::vector<std::string>& e = ei == expect.end() ? kNone : ei->second;
    const std::vector<std::string>& g = gi == got.end() ? kNone : gi->second;
    if (e != g) out->push_back(fmt::format("{}.{}: expected {}, got {}", key, q, RenderList(e), RenderList(g)));
  }
}

std::string RenderResourceAssignment(const ExpectedResourceAssignment& r) {
  Doc d = Doc::Map();
  if (!r.flavor.empty()) d.Set("flavor", Doc::Str(r.flavor));
  d.Set("mode", Doc::Str(AssignmentModeName(r.mode)));
  return EmitFlow(d.Flow());
}

void CompareAssignment(
    const std::map<std::string, std::map<std::string, ExpectedResourceAssignment>>& expect,
    const Assignment& got_assignment, std::vector<std::string>* out) {
  std::map<std::pair<std::string, std::string>, ExpectedResourceAssignment> got;
  for (const PodSetAssignment& ps : got_assignment.pod_sets) {
    for (const ResourceAssignment& r : ps.resources) {
      got[{ps.name, r.resource}] = {.flavor = r.flavor, .mode = r.mode};
    }
  }
  std::map<std::pair<std::string, std::string>, ExpectedResourceAssignment> want;
  for (const auto& [ps, resources] : expect) {
    for (const auto& [r, a] : resources) want[{ps, r}] = a;
  }
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& [k, v] : want) keys.insert(k);
  for (const auto& [k, v] : got) keys.insert(k);
  for (const auto& k : keys) {
    const auto wi = want.find(k);
    const auto gi = got.find(k);
    const std::string path = fmt::format("assignment.{}.{}", k.first, k.second);
    if (wi == want.end()) {
      out->push_back(fmt::format("{}: expected nothing, got {}", path,
                                 RenderResourceAssignment(gi->second)));
    } else if (gi == got.end()) {
      out->push_back(fmt::format("{}: expected {}, got nothing", path,
                                 RenderResourceAssignment(wi->second)));
    } else if (wi->second.flavor != gi->second.flavor || wi->second.mode != gi->second.mode) {
      out->push_back(fmt::format("{}: expected {}, got {}", path,
                                 RenderResourceAssignment(wi->second),
                                 RenderResourceAssignment(gi->second)));
    }
  }
}

// The message a `messages:` expectation is checked against (see docs/scenario-format.md).
std::string MessageOf(const std::string& workload, const ScenarioStep& step,
                      const StepResult& result, const Engine& engine) {
  if (result.targets.has_value()) {
    for (const PreemptedWorkload& t : *result.targets) {
      if (t.workload == workload) return t.message;
    }
  }
  if (const auto* q = std::get_if<AssignFlavorsStep>(&step.action);
      q != nullptr && q->workload == workload && result.assignment.has_value()) {
    return result.assignment->message;
  }
  const auto [ns, name] = SplitWorkloadName(workload);
  absl::StatusOr<WorkloadStatus> st = engine.GetWorkload(ns, name);
  return st.ok() ? st->message : "";
}

using Usage = std::map<std::string, std::map<std::string, std::map<std::string, int64_t>>>;

void CompareUsage(std::string_view key, const Usage& expect, const Usage& got,
                  std::vector<std::string>* out) {
  std::set<std::tuple<std::string, std::string, std::string>> keys;
  for (const auto& [q, fl] : expect)
    for (const auto& [f, rs] : fl)
      for (const auto& [r, v] : rs) keys.insert({q, f, r});
  for (const auto& [q, fl] : got)
    for (const auto& [f, rs] : fl)
      for (const auto& [r, v] : rs) keys.insert({q, f, r});
  auto lookup = [](const Usage& u, const std::string& q, const std::string& f,
                   const std::string& r) -> int64_t {
    auto qi = u.find(q);
    if (qi == u.end()) return 0;
    auto fi = qi->second.find(f);
    if (fi == qi->second.end()) return 0;
    auto ri = fi->second.find(r);
    return ri == fi->second.end() ? 0 : ri->second;
  };
  for (const auto& [q, f, r] : keys) {
    const int64_t e = lookup(expect, q, f, r);
    const int64_t g = lookup(got, q, f, r);
    if (e != g) {
      out->push_back(fmt::format("{}.{}.{}.{}: expected {}, got {}", key, q, f, r,
                                 FormatAmount(r, e), FormatAmount(r, g)));
    }
  }
}

// `[flavor: {resource: qty, ...}, ...]`, the flavor list of a LocalQueue status in Kueue's order.
std::string RenderFlavorTotals(const std::vector<LocalQueueFlavorTotals>& totals) {
  std::string out = "[";
  for (const LocalQueueFlavorTotals& f : totals) {
    if (out.size() > 1) out += ", ";
    out += f.flavor + ": {";
    for (size_t i = 0; i < f.resources.size(); ++i)
      out += fmt::format("{}{}: {}", i ? ", " : "", f.resources[i].first,
                         FormatAmount(f.resources[i].first, f.resources[i].second));
    out += "}";
  }
  return out + "]";
}

void CompareLocalQueue(const Engine& engine, const std::string& queue, const Expectations::ExpectedLocalQueue& want,
                       std::vector<std::string>* out) {
  const auto [ns, name] = SplitNamespacedName(queue);
  absl::StatusOr<LocalQueueStatus> got = engine.GetLocalQueue(ns, name);
  if (!got.ok()) {
    out->push_back(fmt::format("localQueues.{}: {}", queue, std::string(got.status().message())));
    return;
  }
  const auto check = [&](std::string_view field, const auto& expected, const auto& actual) {
    if (expected.has_value() && *expected != actual)
      out->push_back(fmt::format("localQueues.{}.{}: expected {}, got {}", queue, field, *expected, actual));
  };
  check("active", want.active, got->active);
  if (want.reason && *want.reason != got->reason)
    out->push_back(fmt::format("localQueues.{}.reason: expected {}, got {}", queue, JsonString(*want.reason),
                               JsonString(got->reason)));
  if (want.message && *want.message != got->message)
    out->push_back(fmt::format("localQueues.{}.message: expected {}, got {}", queue, JsonString(*want.message),
                               JsonString(got->message)));
  check("pendingWorkloads", want.pending_workloads, got->pending_workloads);
  check("reservingWorkloads", want.reserving_workloads, got->reserving_workloads);
  check("admittedWorkloads", want.admitted_workloads, got->admitted_workloads);
  const auto check_totals = [&](std::string_view field, const auto& expected,
                                const std::vector<LocalQueueFlavorTotals>& actual) {
    if (!expected.has_value()) return;
    const std::string e = RenderFlavorTotals(*expected);
    const std::string a = RenderFlavorTotals(actual);
    if (e != a) out->push_back(fmt::format("localQueues.{}.{}: expected {}, got {}", queue, field, e, a));
  };
  check_totals("flavorsReservation", want.flavors_reservation, got->flavors_reservation);
  check_totals("flavorsUsage", want.flavors_usage, got->flavors_usage);
}

}  // namespace

std::vector<std::string> CompareExpectations(const Expectations& expect, const ScenarioStep& step,
                                             const StepResult& result, const Engine& engine) {
  std::vector<std::string> out;
  if (expect.admitted.has_value()) {
    std::map<std::string, GotAdmission> got;
    for (const AdmittedWorkload& a : result.admitted) {
      got[a.workload] = a.assignment.has_value() ? FromAssignment(a.cluster_queue, *a.assignment)
                                                 : GotAdmission{a.cluster_queue, {}};
    }
    CompareAdmissions("admitted", *expect.admitted, got, &out);
  }
  if (expect.admissions.has_value()) {
    std::map<std::string, GotAdmission> got;
    for (WorkloadHandle id : engine.Workloads()) {
      absl::StatusOr<WorkloadStatus> got_status = engine.GetWorkload(id);
      if (!got_status.ok()) continue;
      const WorkloadStatus& st = *got_status;
      if (st.state != WorkloadState::kAdmitted && st.state != WorkloadState::kEvicting) continue;
      const std::string name = engine.WorkloadName(id);
      got[name] = st.admission.has_value() ? FromAssignment(st.cluster_queue, *st.admission)
                                           : GotAdmission{st.cluster_queue, {}};
    }
    CompareAdmissions("admissions", *expect.admissions, got, &out);
  }
  if (expect.preempted.has_value()) {
    ComparePreemptions("preempted", *expect.preempted, result.preempted, &out);
  }
  if (expect.pending.has_value() || expect.inadmissible.has_value()) {
    std::map<std::string, std::vector<std::string>> pending;
    std::map<std::string, std::vector<std::string>> inadmissible;
    for (const std::string& cq : engine.ClusterQueues()) {
      absl::StatusOr<ClusterQueueStatus> st = engine.GetClusterQueue(cq);
      if (!st.ok()) continue;
      std::vector<std::string> p, i;
      for (WorkloadHandle id : st->pending) p.push_back(engine.WorkloadName(id));
      for (WorkloadHandle id : st->inadmissible) i.push_back(engine.WorkloadName(id));
      std::sort(p.begin(), p.end());
      std::sort(i.begin(), i.end());
      if (!p.empty()) pending[cq] = std::move(p);
      if (!i.empty()) inadmissible[cq] = std::move(i);
    }
    if (expect.pending.has_value()) CompareQueueLists("pending", *expect.pending, pending, &out);
    if (expect.inadmissible.has_value()) {
      CompareQueueLists("inadmissible", *expect.inadmissible, inadmissible, &out);
    }
  }
  if (expect.targets.has_value()) {
    static const std::vector<PreemptedWorkload> kNoTargets;
    ComparePreemptions("targets", *expect.targets,
                       result.targets.has_value() ? *result.targets : kNoTargets, &out);
  }
  if (result.assignment.has_value()) {
    const Assignment& a = *result.assignment;
    if (expect.assignment.has_value()) CompareAssignment(*expect.assignment, a, &out);
    if (expect.representative_mode.has_value() && *expect.representative_mode != a.representative_mode) {
      out.push_back(fmt::format("representativeMode: expected {}, got {}",
                                AssignmentModeName(*expect.representative_mode),
                                AssignmentModeName(a.representative_mode)));
    }
    if (expect.borrowing.has_value() && *expect.borrowing != a.borrowing()) {
      out.push_back(fmt::format("borrowing: expected {}, got {}", *expect.borrowing, a.borrowing()));
    }
  }
  for (const auto& [workload, want] : expect.messages) {
    const std::string got = MessageOf(workload, step, result, engine);
    if (got.find(want) == std::string::npos) {
      out.push_back(fmt::format("messages.{}: expected to contain {}, got {}", workload,
                                JsonString(want), JsonString(got)));
    }
  }
  for (const auto& [workload, want] : expect.reasons) {
    const auto [ns, name] = SplitWorkloadName(workload);
    absl::StatusOr<WorkloadStatus> st = engine.GetWorkload(ns, name);
    const std::string got = st.ok() ? st->reason : "";
    if (got != want)
      out.push_back(fmt::format("reasons.{}: expected {}, got {}", workload, JsonString(want), JsonString(got)));
  }
  for (const auto& [workload, want] : expect.requeue_states) {
    const auto [ns, name] = SplitWorkloadName(workload);
    absl::StatusOr<WorkloadStatus> st = engine.GetWorkload(ns, name);
    const int32_t count = st.ok() ? st->requeue_count : 0;
    const std::optional<Time> at = st.ok() ? st->requeue_at : std::nullopt;
    const auto text = [](std::optional<Time> t) { return t ? FormatRfc3339(*t) : std::string("null"); };
    if (count != want.count)
      out.push_back(fmt::format("requeueState.{}.count: expected {}, got {}", workload, want.count, count));
    if (want.check_at && at != want.at)
      out.push_back(fmt::format("requeueState.{}.requeueAt: expected {}, got {}", workload, text(want.at), text(at)));
  }
  for (const auto& [name, want] : expect.weighted_shares) {
    std::optional<int64_t> got;
    if (absl::StatusOr<ClusterQueueStatus> cq = engine.GetClusterQueue(name); cq.ok()) {
      got = cq->weighted_share;
    } else if (absl::StatusOr<CohortStatus> co = engine.GetCohort(name); co.ok()) {
      got = co->weighted_share;
    }
    auto text = [](int64_t v) { return v == std::numeric_limits<int64_t>::max() ? std::string("max") : std::to_string(v); };
    if (!got.has_value()) {
      out.push_back(fmt::format("weightedShares.{}: no ClusterQueue or Cohort of that name", name));
    } else if (*got != want) {
      out.push_back(fmt::format("weightedShares.{}: expected {}, got {}", name, text(want), text(*got)));
    }
  }
  for (const auto& [queue, want] : expect.local_queues) CompareLocalQueue(engine, queue, want, &out);
  if (expect.refused.has_value()) {
    std::map<std::string, std::string> got(result.refused.begin(), result.refused.end());
    for (const auto& [workload, text] : *expect.refused) {
      auto it = got.find(workload);
      if (it == got.end()) {
        out.push_back(fmt::format("refused.{}: expected a refusal, it was submitted", workload));
      } else if (it->second.find(text) == std::string::npos) {
        out.push_back(fmt::format("refused.{}: expected to contain \"{}\", got \"{}\"", workload,
                                  text, it->second));
      }
    }
    for (const auto& [workload, message] : got) {
      if (!expect.refused->contains(workload)) {
        out.push_back(fmt::format("refused.{}: not expected, got \"{}\"", workload, message));
      }
    }
  }
  if (expect.usage.has_value() || expect.borrowed.has_value()) {
    Usage usage, borrowed;
    for (const std::string& cq : engine.ClusterQueues()) {
      absl::StatusOr<ClusterQueueStatus> st = engine.GetClusterQueue(cq);
      if (!st.ok()) continue;
      for (const FlavorResourceUsage& u : st->usage) {
        if (u.usage != 0) usage[cq][u.flavor][u.resource] = u.usage;
        if (u.borrowed != 0) borrowed[cq][u.flavor][u.resource] = u.borrowed;
      }
    }
    if (expect.usage.has_value()) CompareUsage("usage", *expect.usage, usage, &out);
    if (expect.borrowed.has_value()) CompareUsage("borrowed", *expect.borrowed, borrowed, &out);
  }
  return out;
}

}  // namespace qm::internal
