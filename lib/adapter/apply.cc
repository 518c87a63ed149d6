// Creating, updating and deleting objects: validation of a whole batch first, then the changes.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <variant>

#include "adapter/engine_state.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/model/validate.h"
#include "qm/queue/pending_queue.h"
#include "qm/state/accounting.h"

namespace qm::internal {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

// "Kind/namespace/name" identity of an object in a batch.
std::string IdentityOf(const ObjectSpec& o) {
  return std::visit(Overloaded{
                        [](const NamespaceSpec& x) { return "Namespace/" + x.name; },
                        [](const ResourceFlavorSpec& x) { return "ResourceFlavor/" + x.name; },
                        [](const CohortSpec& x) { return "Cohort/" + x.name; },
                        [](const ClusterQueueSpec& x) { return "ClusterQueue/" + x.name; },
                        [](const LocalQueueSpec& x) {
                          return "LocalQueue/" + std::string(NamespaceOf(x.namespace_)) + "/" + x.name;
                        },
                        [](const WorkloadPriorityClassSpec& x) { return "WorkloadPriorityClass/" + x.name; },
                        [](const PriorityClassSpec& x) { return "PriorityClass/" + x.name; },
                        [](const WorkloadSpec& x) {
                          return "Workload/" + std::string(NamespaceOf(x.namespace_)) + "/" + x.name;
                        },
                    },
                    o);
}

absl::Status ValidateFields(const ObjectSpec& o) {
  return std::visit([](const auto& x) { return Validate(x); }, o);
}

}  // namespace

// ---- Interning helpers -------------------------------------------------------------------------

NamespaceId EngineState::InternNamespace(std::string_view name) {
  const NamespaceId id = s.namespaces_names.Intern(name);
  if (id.value >= s.namespaces.size()) s.namespaces.resize(id.value + 1);
  return id;
}

ClusterQueueId EngineState::InternClusterQueue(std::string_view name) {
  const ClusterQueueId id = s.cq_names.Intern(name);
  if (id.value >= s.cqs.size()) {
    s.cqs.resize(id.value + 1);
    s.cqs[id.value].name = std::string(name);
  }
  return id;
}

CohortId EngineState::InternCohort(std::string_view name) {
  const CohortId id = s.cohort_names.Intern(name);
  if (id.value >= s.cohorts.size()) {
    s.cohorts.resize(id.value + 1);
    s.cohorts[id.value].name = std::string(name);
  }
  CohortState& c = s.cohorts[id.value];
  if (c.node == kNoNode) c.node = s.tree.AddNode(false, id.value);
  return id;
}

FlavorId EngineState::InternFlavor(std::string_view name) {
  const FlavorId id = s.catalog.InternFlavor(name);
  if (id.value >= s.flavors.size()) s.flavors.resize(id.value + 1);
  return id;
}

FrId EngineState::InternFr(FlavorId f, ResourceId r) {
  const FrId fr = s.catalog.InternFr(f, r);
  s.tree.EnsureFr(fr, r);
  return fr;
}

// ---- Validation of a batch ---------------------------------------------------------------------

absl::Status EngineState::ValidateBatch(std::span<const ObjectSpec> objects) const {
  std::set<std::string> seen;
  // Cohort parents as they will be after the batch: existing explicit cohorts, then the batch.
  std::map<std::string, std::string> parent_of;
  for (const CohortState& c : s.cohorts)
    if (c.exists) parent_of[c.name] = c.spec.parent;
  for (const ObjectSpec& o : objects) {
    QM_RETURN_IF_ERROR(ValidateFields(o));
    const std::string identity = IdentityOf(o);
    if (!seen.insert(identity).second)
      return absl::InvalidArgumentError(fmt::format("{}: appears more than once in one apply", identity));
    if (const auto* c = std::get_if<CohortSpec>(&o)) parent_of[c->name] = c->parent;
  }
  for (const ObjectSpec& o : objects) {
    if (const auto* c = std::get_if<CohortSpec>(&o)) {
      // Walk up from the cohort; coming back to it means a cycle.
      std::vector<std::string> path{c->name};
      std::string at = c->parent;
      while (!at.empty()) {
        path.push_back(at);
        if (at == c->name) {
          std::string chain;
          for (size_t i = 0; i < path.size(); ++i) chain += (i ? " -> " : "") + path[i];
          return absl::InvalidArgumentError(fmt::format(
              "{}: spec.parentName: '{}' would create a cycle in the cohort tree ({})",
              ObjectLabel("Cohort", "", c->name), c->parent, chain));
        }
        if (path.size() > static_cast<size_t>(QuotaTree::kMaxDepth) - 2)
          return absl::InvalidArgumentError(fmt::format("{}: spec.parentName: the cohort tree is deeper than {} levels",
                                                        ObjectLabel("Cohort", "", c->name), QuotaTree::kMaxDepth - 2));
        auto it = parent_of.find(at);
        at = it == parent_of.end() ? std::string() : it->second;
      }
    } else if (const auto* lq = std::get_if<LocalQueueSpec>(&o)) {
      const NamespaceId ns = s.namespaces_names.Find(NamespaceOf(lq->namespace_));
      if (ns.valid()) {
        const LocalQueueId id = s.FindLocalQueue(ns, lq->name);
        if (id.valid() && s.local_queues[id.value].exists &&
            s.local_queues[id.value].spec.cluster_queue != lq->cluster_queue)
          return absl::FailedPreconditionError(
              fmt::format("{}: spec.clusterQueue: is immutable (was '{}')",
                          ObjectLabel("LocalQueue", NamespaceOf(lq->namespace_), lq->name),
                          s.local_queues[id.value].spec.cluster_queue));
      }
    } else if (const auto* cq = std::get_if<ClusterQueueSpec>(&o)) {
      // A queue that moves to another cohort keeps its admitted workloads; nothing to check.
      (void)cq;
    } else if (const auto* w = std::get_if<WorkloadSpec>(&o)) {
      QM_RETURN_IF_ERROR(CheckWorkload(*w, objects));
    }
  }
  return absl::OkStatus();
}

// ---- Apply -------------------------------------------------------------------------------------

absl::Status EngineState::Apply(std::span<const ObjectSpec> objects) {
  QM_RETURN_IF_ERROR(ValidateBatch(objects));
  for (const ObjectSpec& o : objects) {
    std::visit(Overloaded{
                   [&](const NamespaceSpec& x) { ApplyNamespace(x); },
                   [&](const ResourceFlavorSpec& x) { ApplyFlavor(x); },
                   [&](const CohortSpec& x) { ApplyCohort(x); },
                   [&](const ClusterQueueSpec& x) { ApplyClusterQueue(x); },
                   [&](const LocalQueueSpec& x) { ApplyLocalQueue(x); },
                   [&](const WorkloadPriorityClassSpec& x) { ApplyWorkloadPriorityClass(x); },
                   [&](const PriorityClassSpec& x) { s.priority_classes[x.name] = x; },
                   [&](const WorkloadSpec&) {},
               },
               o);
  }
  Settle();
  // A batch of workloads only (Submit) has changed nothing before its first workload: a clock that
  // throws while that one is stamped rolls the call back (docs/engine.md, "Exceptions and re-entrancy").
  bool changed = std::any_of(objects.begin(), objects.end(),
                             [](const ObjectSpec& o) { return !std::holds_alternative<WorkloadSpec>(o); });
  bool any_workload = false;
  for (const ObjectSpec& o : objects) {
    if (const auto* w = std::get_if<WorkloadSpec>(&o)) {
      ApplyWorkload(*w, !changed);
      changed = true;
      any_workload = true;
    }
  }
  if (any_workload) Settle();
  return absl::OkStatus();
}

void EngineState::ApplyNamespace(const NamespaceSpec& spec) {
  const NamespaceId id = InternNamespace(spec.name);
  NamespaceState& ns = s.namespaces[id.value];
  const bool existed = ns.exists;
  const Labels old = ns.labels;
  ns.exists = true;
  ns.labels = spec.labels;
  std::sort(ns.labels.begin(), ns.labels.end());
  // A queue whose selector newly matches gets its parked workloads back (docs/semantics.md §3.8).
  for (ClusterQueueId cq_id : s.cqs_by_name) {
    const ClusterQueueState& cq = s.cq(cq_id);
    if (!cq.spec.namespace_selector) continue;
    const bool now = Matches(*cq.spec.namespace_selector, ns.labels);
    const bool before = existed && Matches(*cq.spec.namespace_selector, old);
    if (now && !before) RequestFlushLater(cq_id);
  }
}

void EngineState::ApplyFlavor(const ResourceFlavorSpec& spec) {
  const FlavorId id = InternFlavor(spec.name);
  FlavorState& f = s.flavors[id.value];
  f.exists = true;
  f.spec = spec;
  std::sort(f.spec.node_labels.begin(), f.spec.node_labels.end());
  for (ClusterQueueId cq_id : s.cqs_by_name) {
    const ClusterQueueState& cq = s.cq(cq_id);
    for (const CqResourceGroup& g : cq.groups)
      for (const CqFlavor& cf : g.flavors)
        if (cf.flavor == id) {
          active_dirty_.insert(cq_id.value);
          RequestFlushLater(cq_id);
        }
  }
}

void EngineState::SetNodeQuotas(NodeIndex node, const std::vector<ResourceGroupSpec>& groups) {
  s.tree.ClearQuota(node);
  for (const ResourceGroupSpec& g : groups) {
    for (const FlavorQuotasSpec& f : g.flavors) {
      const FlavorId fid = InternFlavor(f.name);
      for (const ResourceQuotaSpec& q : f.resources) {
        const FrId fr = InternFr(fid, s.catalog.InternResource(q.name));
        s.tree.SetQuota(node, fr, q.nominal_quota, q.borrowing_limit.value_or(kUnlimited),
                        q.lending_limit.value_or(kUnlimited));
      }
    }
  }
}

void EngineState::ReleaseCohortRef(CohortId id) {
  CohortState& c = s.cohorts[id.value];
  if (c.refs > 0) --c.refs;
  if (c.refs == 0 && !c.exists) {
    // An implicit cohort nobody names any more: detach it (and release its own parent).
    MarkTreeDirty(c.node);
    if (!c.spec.parent.empty()) SetCohortParent(id, "");
    s.tree.SetParent(c.node, kNoNode);
    s.tree.ClearQuota(c.node);
  }
}

void EngineState::SetCohortParent(CohortId id, std::string_view parent) {
  CohortState& c = s.cohorts[id.value];
  const NodeIndex old_parent = s.tree.parent(c.node);
  const std::string old_name = old_parent == kNoNode ? std::string() : s.cohorts[s.tree.node(old_parent).owner].name;
  if (old_name == parent) return;
  MarkTreeDirty(c.node);
  if (old_parent != kNoNode) {
    s.tree.SetParent(c.node, kNoNode);
    ReleaseCohortRef(CohortId(s.tree.node(old_parent).owner));
  }
  if (!parent.empty()) {
    const CohortId pid = InternCohort(parent);
    CohortState& p = s.cohorts[pid.value];
    ++p.refs;
    s.tree.SetParent(s.cohorts[id.value].node, p.node);
  }
  MarkTreeDirty(s.cohorts[id.value].node);
}

void EngineState::ApplyCohort(const CohortSpec& spec) {
  const CohortId id = InternCohort(spec.name);
  CohortState& c = s.cohorts[id.value];
  c.exists = true;
  c.spec = spec;
  SetNodeQuotas(c.node, spec.resource_groups);
  s.tree.SetWeight(c.node, spec.fair_sharing_weight_milli);
  MarkTreeDirty(c.node);
  SetCohortParent(id, spec.parent);
}

void EngineState::SetClusterQueueCohort(ClusterQueueId id, std::string_view cohort) {
  ClusterQueueState& cq = s.cq(id);
  const std::string old = cq.cohort.valid() ? s.cohorts[cq.cohort.value].name : std::string();
  if (old == cohort) return;
  MarkTreeDirty(cq.node);
  if (cq.cohort.valid()) {
    s.tree.SetParent(cq.node, kNoNode);
    const CohortId previous = cq.cohort;
    cq.cohort = CohortId();
    ReleaseCohortRef(previous);
  }
  if (!cohort.empty()) {
    const CohortId cid = InternCohort(cohort);
    ++s.cohorts[cid.value].refs;
    s.cq(id).cohort = cid;
    s.tree.SetParent(s.cq(id).node, s.cohorts[cid.value].node);
  }
  MarkTreeDirty(s.cq(id).node);
}

// One insertion or removal in the name order, instead of sorting every queue again for each one
// (a manifest of 1,000 ClusterQueues sorted 1,000 times: a third of Kueue's large-scale setup).
void EngineState::UpdateSortedQueues(ClusterQueueId id) {
  const auto by_name = [&](ClusterQueueId a, ClusterQueueId b) { return s.cq(a).name < s.cq(b).name; };
  auto pos = std::lower_bound(s.cqs_by_name.begin(), s.cqs_by_name.end(), id, by_name);
  const bool listed = pos != s.cqs_by_name.end() && *pos == id;
  if (s.cq(id).exists && !listed) s.cqs_by_name.insert(pos, id);
  if (!s.cq(id).exists && listed) s.cqs_by_name.erase(pos);
  if (s.cq(id).exists != listed) s.QueuesListed();
}

void EngineState::ApplyClusterQueue(const ClusterQueueSpec& spec) {
  const ClusterQueueId id = InternClusterQueue(spec.name);
  bool created = false;
  {
    ClusterQueueState& cq = s.cq(id);
    if (cq.node == kNoNode) cq.node = s.tree.AddNode(true, id.value);
    created = !cq.exists;
    cq.exists = true;
    cq.spec = spec;
  }
  // Resource groups in solver form.
  std::vector<CqResourceGroup> groups;
  boost::container::small_vector<std::pair<ResourceId, uint16_t>, 8> group_of;
  bool covers_pods = false;
  for (size_t g = 0; g < spec.resource_groups.size(); ++g) {
    const ResourceGroupSpec& rg = spec.resource_groups[g];
    CqResourceGroup out;
    for (const std::string& r : rg.covered_resources) {
      const ResourceId rid = s.catalog.InternResource(r);
      out.covered.push_back(rid);
      group_of.emplace_back(rid, static_cast<uint16_t>(g));
      if (r == "pods") covers_pods = true;
    }
    for (const FlavorQuotasSpec& f : rg.flavors) {
      CqFlavor cf;
      cf.flavor = InternFlavor(f.name);
      for (const ResourceId rid : out.covered) cf.frs.push_back(InternFr(cf.flavor, rid));
      out.flavors.push_back(std::move(cf));
    }
    groups.push_back(std::move(out));
  }
  std::sort(group_of.begin(), group_of.end());
  ClusterQueueState& cq = s.cq(id);
  cq.groups = std::move(groups);
  cq.group_of = std::move(group_of);
  cq.covers_pods = covers_pods;
  SetNodeQuotas(cq.node, spec.resource_groups);
  s.tree.SetWeight(cq.node, spec.fair_sharing_weight_milli);
  MarkTreeDirty(cq.node);
  SetClusterQueueCohort(id, spec.cohort);
  if (created) {
    UpdateSortedQueues(id);
    retry_unqueued_ = true;
  }
  active_dirty_.insert(id.value);
  RequestFlushLater(id);
  if (spec.stop_policy == StopPolicy::kHoldAndDrain) {
    std::vector<WorkloadId> admitted;
    for (const CandidateKey& k : s.cq(id).admitted) admitted.push_back(k.id);
    for (WorkloadId w : admitted) EvictForReason(w, "ClusterQueueStopped", "The ClusterQueue is stopped");
  }
}

void EngineState::RequeueLocalQueueWorkloads(LocalQueueId lq) {
  const LocalQueueState& l = s.local_queues[lq.value];
  for (uint32_t i = 0; i < s.workloads.size(); ++i) {
    const WorkloadRecord& w = s.workloads[i];
    if (w.deleted || w.state != WorkloadState::kPending || w.ns != l.ns || s.queue_names.Name(w.queue_name) != l.spec.name) continue;
    Enqueue(s, WorkloadId(i));
    ReconcilePendingStatus(WorkloadId(i));  // the LocalQueue's stop policy changed: reconciled
  }
}

void EngineState::DrainLocalQueue(LocalQueueId lq) {
  const LocalQueueState& l = s.local_queues[lq.value];
  std::vector<WorkloadId> admitted;
  for (uint32_t i = 0; i < s.workloads.size(); ++i) {
    const WorkloadRecord& w = s.workloads[i];
    if (w.deleted || w.state != WorkloadState::kAdmitted || w.ns != l.ns || s.queue_names.Name(w.queue_name) != l.spec.name) continue;
    admitted.push_back(WorkloadId(i));
  }
  for (WorkloadId w : admitted) EvictForReason(w, "LocalQueueStopped", "The LocalQueue is stopped");
}

void EngineState::ApplyLocalQueue(const LocalQueueSpec& spec) {
  const NamespaceId ns = InternNamespace(NamespaceOf(spec.namespace_));
  auto key = std::make_pair(ns.value, spec.name);
  LocalQueueId id;
  if (auto it = s.local_queue_index.find(key); it != s.local_queue_index.end()) {
    id = it->second;
  } else {
    id = LocalQueueId(static_cast<uint32_t>(s.local_queues.size()));
    s.local_queues.emplace_back();
    s.local_queue_index.emplace(std::move(key), id);
  }
  LocalQueueState& lq = s.local_queues[id.value];
  const bool was_running = lq.exists && lq.spec.stop_policy == StopPolicy::kNone;
  lq.exists = true;
  lq.ns = ns;
  lq.spec = spec;
  lq.spec.namespace_ = std::string(NamespaceOf(spec.namespace_));
  const bool running = spec.stop_policy == StopPolicy::kNone;
  if (running != was_running) RequeueLocalQueueWorkloads(id);
  if (spec.stop_policy == StopPolicy::kHoldAndDrain) DrainLocalQueue(id);
  retry_unqueued_ = true;
}

// ---- Settling derived state --------------------------------------------------------------------

void EngineState::UpdateActive(ClusterQueueId id) {
  ClusterQueueState& cq = s.cq(id);
  std::vector<std::string> missing;
  for (const CqResourceGroup& g : cq.groups)
    for (const CqFlavor& f : g.flavors)
      if (!s.flavors[f.flavor.value].exists) missing.push_back(s.FlavorName(f.flavor));
  std::vector<std::string> why;
  if (cq.spec.stop_policy != StopPolicy::kNone) why.push_back("is stopped");
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size(); ++i) list += (i ? "," : "") + missing[i];
    why.push_back("references missing ResourceFlavor(s): " + list);
  }
  cq.active = cq.exists && why.empty();
  if (cq.active) {
    s.MayHaveHead(id);
    cq.active_message = "Can admit new workloads";
  } else {
    cq.active_message = "Can't admit new workloads: ";
    for (size_t i = 0; i < why.size(); ++i) cq.active_message += (i ? ", " : "") + why[i];
    cq.active_message += ".";
  }
  // Pending workloads of an inactive queue say why they wait (workload controller, docs/semantics.md §8):
  // "is inactive" whether the queue is stopped or misses a flavor; "is stopped" is only written on
  // workloads that hold quota (§3.9).
  if (!cq.exists) return;
  const auto say_why = [&](const PendingKey& k) {
    WorkloadRecord& w = OwnStatus(s, k.id);
    if (cq.active) {
      // The blockage is gone: Kueue's workload controller writes PendingEvaluation (§8.1).
      if (std::string_view(w.reason) == reason::kSuspended) {
        w.reason = reason::kPendingEvaluation;
        w.message = CompactString::Static("Workload is pending evaluation in the scheduling queue");
      }
    } else {
      w.reason = reason::kSuspended;
      w.message = fmt::format("ClusterQueue {} is inactive", cq.name);
    }
  };
  for (const PendingKey& k : cq.heap) say_why(k);
  for (const PendingKey& k : cq.inadmissible) say_why(k);
}

void EngineState::Settle() {
  if (!dirty_nodes_.empty()) {
    std::vector<NodeIndex> roots;
    for (NodeIndex n : dirty_nodes_) roots.push_back(s.tree.Root(n));
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    dirty_nodes_.clear();
    for (NodeIndex root : roots) {
      s.tree.Recompute(root);
      // Every queue of the tree: new allocatable generation and a flush (docs/semantics.md §3.8, §4.3.8).
      std::vector<NodeIndex> stack{root};
      while (!stack.empty()) {
        const NodeIndex n = stack.back();
        stack.pop_back();
        const auto& node = s.tree.node(n);
        if (quota_changed_cycle.size() <= n) quota_changed_cycle.resize(n + 1, 0);
        quota_changed_cycle[n] = s.cycle;
        if (node.is_cluster_queue) {
          ClusterQueueState& cq = s.cqs[node.owner];
          if (cq.exists) {
            ++cq.generation;
            RequestFlushLater(ClusterQueueId(node.owner));
          }
        }
        for (NodeIndex c : node.children) stack.push_back(c);
      }
    }
  }
  for (uint32_t id : active_dirty_) UpdateActive(ClusterQueueId(id));
  active_dirty_.clear();
  for (uint32_t id : flush_requests_)
    if (s.cqs[id].exists) FlushClusterQueue(s, ClusterQueueId(id));
  flush_requests_.clear();
  if (retry_unqueued_) {
    retry_unqueued_ = false;
    std::vector<WorkloadId> waiting;
    for (uint64_t k : s.unqueued) waiting.push_back(UnqueuedId(k));
    RetryUnqueued(s);
    // Those that found their queue are reconciled (the queue was created or resumed).
    for (WorkloadId id : waiting)
      if (s.wl(id).place != QueuePlace::kNone) ReconcilePendingStatus(id);
  }
}

// ---- Delete ------------------------------------------------------------------------------------

absl::Status EngineState::Delete(const ObjectRef& ref) {
  const std::string label = ObjectLabel(ObjectKindName(ref.kind),
                                        ref.kind == ObjectKind::kLocalQueue || ref.kind == ObjectKind::kWorkload
                                            ? NamespaceOf(ref.namespace_)
                                            : std::string_view(),
                                        ref.name);
  auto not_found = [&] { return absl::NotFoundError(fmt::format("{}: not found", label)); };
  switch (ref.kind) {
    case ObjectKind::kNamespace: {
      const NamespaceId id = s.namespaces_names.Find(ref.name);
      if (!id.valid() || !s.namespaces[id.value].exists) return not_found();
      s.namespaces[id.value].exists = false;
      s.namespaces[id.value].labels.clear();
      break;
    }
    case ObjectKind::kResourceFlavor: {
      const FlavorId id = s.catalog.FindFlavor(ref.name);
      if (!id.valid() || id.value >= s.flavors.size() || !s.flavors[id.value].exists) return not_found();
      s.flavors[id.value].exists = false;
      for (ClusterQueueId cq : s.cqs_by_name) {
        active_dirty_.insert(cq.value);
        RequestFlushLater(cq);
      }
      break;
    }
    case ObjectKind::kCohort: {
      const CohortId id = s.cohort_names.Find(ref.name);
      if (!id.valid() || !s.cohorts[id.value].exists) return not_found();
      CohortState& c = s.cohorts[id.value];
      c.exists = false;
      MarkTreeDirty(c.node);
      s.tree.ClearQuota(c.node);
      s.tree.SetWeight(c.node, kDefaultWeightMilli);
      SetCohortParent(id, "");
      c.spec = CohortSpec{ref.name, "", {}, kDefaultWeightMilli};
      if (c.refs == 0) s.tree.SetParent(c.node, kNoNode);
      break;
    }
    case ObjectKind::kClusterQueue: {
      const ClusterQueueId id = s.cq_names.Find(ref.name);
      if (!id.valid() || !s.cq(id).exists) return not_found();
      ClusterQueueState& cq = s.cq(id);
      if (!cq.admitted.empty() || !cq.evicting.empty())
        return absl::FailedPreconditionError(
            fmt::format("{}: still holds {} admitted workload(s); finish or evict them first", label,
                        cq.admitted.size() + cq.evicting.size()));
      std::vector<WorkloadId> pending;
      for (const PendingKey& k : cq.heap) pending.push_back(k.id);
      for (const PendingKey& k : cq.inadmissible) pending.push_back(k.id);
      for (WorkloadId w : pending) OwnStatus(s, w);  // a class's stamp goes with the queues below
      SetClusterQueueCohort(id, "");
      s.tree.ClearQuota(cq.node);
      cq.exists = false;
      cq.active = false;
      cq.heap.clear();
      cq.inadmissible.clear();
      cq.blocked.clear();
      cq.sticky_preemptor = WorkloadId();
      for (WorkloadId w : pending) {
        s.wl(w).place = QueuePlace::kInflight;  // detached; Enqueue files it as unqueued
        Enqueue(s, w);
      }
      UpdateSortedQueues(id);
      break;
    }
    case ObjectKind::kLocalQueue: {
      const NamespaceId ns = s.namespaces_names.Find(NamespaceOf(ref.namespace_));
      const LocalQueueId id = ns.valid() ? s.FindLocalQueue(ns, ref.name) : LocalQueueId();
      if (!id.valid() || !s.local_queues[id.value].exists) return not_found();
      s.local_queues[id.value].exists = false;
      RequeueLocalQueueWorkloads(id);
      break;
    }
    case ObjectKind::kWorkloadPriorityClass:
      if (s.workload_priority_classes.erase(ref.name) == 0) return not_found();
      break;
    case ObjectKind::kPriorityClass:
      if (s.priority_classes.erase(ref.name) == 0) return not_found();
      break;
    case ObjectKind::kWorkload: {
      const NamespaceId ns = s.namespaces_names.Find(NamespaceOf(ref.namespace_));
      const WorkloadId id = ns.valid() ? s.FindWorkload(ns, ref.name) : WorkloadId();
      if (!id.valid()) return not_found();
      DeleteWorkload(id);
      break;
    }
  }
  Settle();
  return absl::OkStatus();
}

}  // namespace qm::internal
