// `Engine::WhatIf` (qm/adapter/what_if.h): candidate changes from the assigner's attempts and the
// cohort tree's priorities, each checked on a copy restored from `Save()`'s bytes.
#include "qm/adapter/what_if.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "engine_state.h"
#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "qm/core/quantity_text.h"
#include "qm/core/status.h"

namespace qm {
namespace {

constexpr int kMaxPriorityTries = 32;
constexpr int kMaxRounds = 100;  // rounds of cycles and confirmations at the current instant

// Runs the current instant on `e` as a host whose pods stop at once: cycles until settled, then
// the evictions confirmed, again until nothing is left. True when `w` is then admitted; the
// workloads it preempted on the way are appended to `preempts`.
bool AdmittedNow(Engine& e, WorkloadHandle w, std::vector<std::string>* preempts) {
  for (int round = 0; round < kMaxRounds; ++round) {
    const StableRun run = e.RunUntilSettled(10000);
    for (const Event& ev : e.LastEvents())
      if (ev.kind == EventKind::kPreempted && ev.preemptor == w && preempts != nullptr)
        preempts->push_back(e.WorkloadName(ev.workload));
    if (e.ConfirmAllEvicted() == 0 && run.settled) break;
  }
  const absl::StatusOr<WorkloadStatus> st = e.GetWorkload(w);
  return st.ok() && st->state == WorkloadState::kAdmitted;
}

// The quota of (flavor, resource) in `spec`, or nullptr when the queue has none.
ResourceQuotaSpec* FindQuota(ClusterQueueSpec& spec, std::string_view flavor, std::string_view resource) {
  for (ResourceGroupSpec& g : spec.resource_groups)
    for (FlavorQuotasSpec& f : g.flavors)
      if (f.name == flavor)
        for (ResourceQuotaSpec& q : f.resources)
          if (q.name == resource) return &q;
  return nullptr;
}

// "2 nvidia.com/gpu and 8 cpu".
std::string AmountList(const std::vector<WhatIfAnswer::Quota>& quota) {
  std::string out;
  for (size_t i = 0; i < quota.size(); ++i) {
    if (i > 0) out += i + 1 == quota.size() ? " and " : ", ";
    out += FormatAmount(quota[i].resource, quota[i].amount) + " " + quota[i].resource;
  }
  return out;
}

}  // namespace

absl::StatusOr<WhatIfReport> Engine::WhatIf(WorkloadHandle workload) const {
  QM_RETURN_IF_ERROR(Queryable("WhatIf"));
  const ClusterState& s = state_->s;
  const WorkloadId id = s.Resolve(workload);
  if (!id.valid())
    return absl::NotFoundError(fmt::format("WhatIf: no workload with id {}/{}", workload.index, workload.generation));
  const WorkloadRecord& w = s.wl(id);
  if (w.state != WorkloadState::kPending || w.place == QueuePlace::kNone || !w.queued_in.valid())
    return absl::FailedPreconditionError(
        fmt::format("WhatIf: workload '{}' is not pending in a ClusterQueue", s.WorkloadName(id)));
  const ClusterQueueState& cq = s.cq(w.queued_in);
  const uint32_t root = static_cast<uint32_t>(s.tree.Root(cq.node));
  const Time now = Now();
  auto copy = [&]() -> absl::StatusOr<Engine> {
    QM_ASSIGN_OR_RETURN(Engine e, internal::CopyEngine(*this));
    QM_RETURN_IF_ERROR(e.SetNow(now));
    return e;
  };

  WhatIfReport report;
  {
    QM_ASSIGN_OR_RETURN(Engine e, copy());
    if (AdmittedNow(e, workload, nullptr)) {
      report.admitted_as_is = true;
      return report;
    }
  }

  // Quota: per flavor tried, the shortfall of each resource (the largest over its pod sets, whose
  // `requested` already adds the earlier pod sets), smallest total first.
  QM_ASSIGN_OR_RETURN(const WorkloadExplanation ex, Explain(workload));
  struct Candidate {
    std::string flavor;
    std::vector<WhatIfAnswer::Quota> quota;
    int64_t total = 0;
  };
  std::vector<Candidate> candidates;
  if (ex.assignment) {
    for (const FlavorAttempt& a : ex.assignment->attempts) {
      auto c = std::find_if(candidates.begin(), candidates.end(), [&](const Candidate& x) { return x.flavor == a.flavor; });
      if (c == candidates.end()) c = candidates.insert(candidates.end(), Candidate{a.flavor, {}, 0});
      for (const FlavorAttempt::ResourceCheck& r : a.checks) {
        const int64_t shortfall = r.requested - std::max<int64_t>(0, r.available);
        if (shortfall <= 0) continue;
        auto q = std::find_if(c->quota.begin(), c->quota.end(), [&](const WhatIfAnswer::Quota& x) { return x.resource == r.resource; });
        if (q == c->quota.end()) c->quota.push_back({a.flavor, r.resource, shortfall});
        else q->amount = std::max(q->amount, shortfall);
      }
    }
  }
  for (Candidate& c : candidates)
    for (const WhatIfAnswer::Quota& q : c.quota) c.total += q.amount;
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.total < b.total; });
  for (const Candidate& c : candidates) {
    if (c.quota.empty()) continue;
    ClusterQueueSpec spec = cq.spec;
    bool raised = true;
    for (const WhatIfAnswer::Quota& q : c.quota) {
      ResourceQuotaSpec* r = FindQuota(spec, q.flavor, q.resource);
      if (r == nullptr) raised = false;
      else r->nominal_quota += q.amount;
    }
    if (!raised) continue;
    QM_ASSIGN_OR_RETURN(Engine e, copy());
    if (!e.Apply(ObjectSpec(spec)).ok() || !AdmittedNow(e, workload, nullptr)) continue;
    WhatIfAnswer answer;
    answer.kind = WhatIfAnswer::Kind::kQuota;
    answer.cluster_queue = cq.name;
    answer.quota = c.quota;
    answer.text = fmt::format("admitted if {} more were free in flavor {} for ClusterQueue {}", AmountList(c.quota),
                              c.flavor, cq.name);
    // Who holds the cohort's room now: the other queues of the tree that borrow it.
    std::vector<std::string> borrowers;
    for (const ClusterQueueState& other : s.cqs) {
      if (!other.exists || &other == &cq || other.node == kNoNode || s.tree.Root(other.node) != root) continue;
      const absl::StatusOr<ClusterQueueStatus> st = GetClusterQueue(other.name);
      if (!st.ok()) continue;
      for (const FlavorResourceUsage& u : st->usage)
        for (const WhatIfAnswer::Quota& q : c.quota)
          if (u.borrowed > 0 && u.flavor == q.flavor && u.resource == q.resource)
            borrowers.push_back(fmt::format("{} borrows {}", other.name, FormatAmount(u.resource, u.borrowed)));
    }
    if (!borrowers.empty()) {
      std::string list;
      for (size_t i = 0; i < borrowers.size(); ++i) list += (i > 0 ? ", " : "") + borrowers[i];
      answer.text += " (" + list + ")";
    }
    report.answers.push_back(std::move(answer));
    break;
  }

  // Borrowing limit: for each flavor tried, the limit each resource would need (its usage plus the
  // request, less nominal) where the queue sets a lower one.
  const absl::StatusOr<ClusterQueueStatus> own = GetClusterQueue(cq.name);
  for (const Candidate& c : candidates) {
    if (!own.ok() || c.quota.empty()) continue;
    ClusterQueueSpec spec = cq.spec;
    std::vector<WhatIfAnswer::Quota> limits;
    for (const FlavorAttempt& a : ex.assignment->attempts) {
      if (a.flavor != c.flavor) continue;
      for (const FlavorAttempt::ResourceCheck& r : a.checks) {
        int64_t usage = 0;
        for (const FlavorResourceUsage& u : own->usage)
          if (u.flavor == a.flavor && u.resource == r.resource) usage = u.usage;
        const int64_t needed = usage + r.requested - r.nominal;
        ResourceQuotaSpec* q = FindQuota(spec, a.flavor, r.resource);
        if (q != nullptr && q->borrowing_limit && *q->borrowing_limit < needed) {
          q->borrowing_limit = needed;
          limits.push_back({a.flavor, r.resource, needed});
        }
      }
    }
    if (limits.empty()) continue;
    QM_ASSIGN_OR_RETURN(Engine e, copy());
    if (!e.Apply(ObjectSpec(spec)).ok() || !AdmittedNow(e, workload, nullptr)) continue;
    WhatIfAnswer answer;
    answer.kind = WhatIfAnswer::Kind::kBorrowingLimit;
    answer.cluster_queue = cq.name;
    answer.quota = limits;
    std::string list;
    for (size_t i = 0; i < limits.size(); ++i)
      list += (i > 0 ? ", " : "") + fmt::format("{} for {}", FormatAmount(limits[i].resource, limits[i].amount),
                                                 limits[i].resource);
    answer.text = fmt::format("admitted if ClusterQueue {} could borrow at least {} in flavor {} (borrowingLimit)",
                              cq.name, list, c.flavor);
    report.answers.push_back(std::move(answer));
    break;
  }

  // Priority: one above each priority held in the cohort tree that is not below its own, lowest
  // first.
  std::vector<int32_t> priorities;
  for (uint32_t i = 0; i < s.workloads.size(); ++i) {
    const WorkloadRecord& other = s.workloads[i];
    if (other.deleted || !other.admission || other.priority < w.priority || other.priority == INT32_MAX) continue;
    const ClusterQueueState& held = s.cq(other.admission->cluster_queue);
    if (held.node == kNoNode || s.tree.Root(held.node) != root) continue;
    priorities.push_back(other.priority + 1);
  }
  std::sort(priorities.begin(), priorities.end());
  priorities.erase(std::unique(priorities.begin(), priorities.end()), priorities.end());
  if (priorities.size() > kMaxPriorityTries) priorities.resize(kMaxPriorityTries);
  for (const int32_t p : priorities) {
    QM_ASSIGN_OR_RETURN(Engine e, copy());
    e.state_->SetWorkloadPriority(id, p);
    std::vector<std::string> preempts;
    if (!AdmittedNow(e, workload, &preempts)) continue;
    std::sort(preempts.begin(), preempts.end());
    preempts.erase(std::unique(preempts.begin(), preempts.end()), preempts.end());
    WhatIfAnswer answer;
    answer.kind = WhatIfAnswer::Kind::kPriority;
    answer.priority = p;
    answer.preempts = preempts;
    std::string list;
    for (size_t i = 0; i < preempts.size(); ++i) list += (i > 0 ? ", " : "") + preempts[i];
    answer.text = preempts.empty() ? fmt::format("admitted if its priority were at least {}", p)
                                   : fmt::format("admitted if its priority were at least {} (preempts {})", p, list);
    report.answers.push_back(std::move(answer));
    break;
  }
  return report;
}

}  // namespace qm
