// Engine snapshots, validation and linking: every cross-reference of a decoded state is checked
// before anything relies on it, then the lookup structures (indexes, pending and candidate sets)
// are rebuilt from the records in their saved order and the quota tree is checked against a
// recomputation.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "adapter/engine_state.h"
#include "adapter/snapshot_codec.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/model/config_validation.h"
#include "qm/model/validate.h"
#include "qm/queue/pending_queue.h"
#include "qm/state/accounting.h"
#include "qm/state/stable_hash.h"
#include "adapter/snapshot_parts.h"

namespace qm::internal::snapshot {

absl::Status ValidateTree(const ClusterState& s, const Decoded& p) {
  const size_t nodes = p.nodes.size();
  if (nodes != s.cqs.size() + s.cohorts.size())
    return Corrupt(fmt::format("{} tree nodes for {} ClusterQueues and {} cohorts", nodes, s.cqs.size(), s.cohorts.size()));
  uint32_t resources = 0;
  for (uint32_t f = 0; f < s.catalog.fr_count(); ++f)
    resources = std::max(resources, s.catalog.FrResource(FrId(f)).value + 1);
  for (size_t i = 0; i < nodes; ++i)
    if (p.nodes[i].parent != kNoNode && p.nodes[i].parent >= nodes)
      return Corrupt(fmt::format("tree node {}: parent out of range", i));
  for (size_t i = 0; i < nodes; ++i) {
    const QuotaTree::Node& n = p.nodes[i];
    const auto where = [&](std::string_view what) { return Corrupt(fmt::format("tree node {}: {}", i, what)); };
    if (n.borrowed.size() != resources || n.potential_sum.size() != resources)
      return where("per-resource sums do not cover the catalog's resources");
    if (n.is_cluster_queue) {
      if (n.owner >= s.cqs.size() || s.cqs[n.owner].node != i) return where("names a ClusterQueue that is not its owner");
      if (!n.children.empty()) return where("a ClusterQueue has children");
    } else if (n.owner >= s.cohorts.size() || s.cohorts[n.owner].node != i) {
      return where("names a cohort that is not its owner");
    }
    if (n.parent != kNoNode && p.nodes[n.parent].is_cluster_queue)
      return where("its parent is not a cohort node");
    // The path to the root is short and ends (no cycle).
    NodeIndex at = n.parent;
    for (int depth = 0; at != kNoNode; at = p.nodes[at].parent)
      if (++depth > QuotaTree::kMaxDepth) return where("its ancestors form a cycle or are too deep");
    for (NodeIndex c : n.children)
      if (c >= nodes || p.nodes[c].parent != i) return where("lists a child that does not name it as parent");
    if (!std::is_sorted(n.children.begin(), n.children.end()) ||
        std::adjacent_find(n.children.begin(), n.children.end()) != n.children.end())
      return where("children are not sorted");
  }
  size_t linked = 0;
  for (const QuotaTree::Node& n : p.nodes) linked += n.children.size();
  size_t with_parent = 0;
  for (const QuotaTree::Node& n : p.nodes) with_parent += n.parent != kNoNode ? 1 : 0;
  if (linked != with_parent) return Corrupt("tree: parent and children links disagree");
  for (size_t i = 0; i < s.cqs.size(); ++i)
    if (s.cqs[i].node >= nodes) return Corrupt(fmt::format("ClusterQueue '{}': no tree node", s.cqs[i].name));
  for (size_t i = 0; i < s.cohorts.size(); ++i)
    if (s.cohorts[i].node >= nodes) return Corrupt(fmt::format("cohort '{}': no tree node", s.cohorts[i].name));
  return absl::OkStatus();
}

namespace {

// A spec that Apply would refuse cannot come from a snapshot the engine wrote.
absl::Status ValidSpec(const absl::Status& st) {
  if (st.ok()) return st;
  return Corrupt(std::string(st.message()));
}

// The node's own quotas and weight are what SetNodeQuotas derived from `groups` (zero nominal and
// no limits for every other slot); a node whose object is gone has no quota at all.
absl::Status CheckOwnQuotas(const ClusterState& s, const QuotaTree::Node& node, std::string_view object, bool exists,
                            const std::vector<ResourceGroupSpec>& groups, int64_t weight_milli) {
  const auto where = [&](std::string_view what) { return Corrupt(fmt::format("{}: {}", object, what)); };
  if (node.fr.size() != s.catalog.fr_count()) return where("its tree node does not cover every flavor-resource slot");
  std::vector<FrQuota> want(node.fr.size());
  if (exists) {
    if (node.weight_milli != weight_milli) return where("spec.fairSharing.weight differs from its tree node");
    for (const ResourceGroupSpec& g : groups)
      for (const FlavorQuotasSpec& f : g.flavors)
        for (const ResourceQuotaSpec& q : f.resources) {
          const FrId fr = s.catalog.FindFr(s.catalog.FindFlavor(f.name), s.catalog.FindResource(q.name));
          if (!fr.valid() || fr.value >= want.size())
            return where(fmt::format("quota of {}/{} has no flavor-resource slot", f.name, q.name));
          want[fr.value].nominal = q.nominal_quota;
          want[fr.value].borrowing_limit = q.borrowing_limit.value_or(kUnlimited);
          want[fr.value].lending_limit = q.lending_limit.value_or(kUnlimited);
        }
  }
  for (size_t f = 0; f < want.size(); ++f) {
    const FrQuota &got = node.fr[f], &w = want[f];
    if (got.nominal != w.nominal || got.borrowing_limit != w.borrowing_limit || got.lending_limit != w.lending_limit)
      return where(fmt::format("the quota of {}/{} in its tree node ({}, {}, {}) differs from its spec ({}, {}, {})",
                               s.catalog.FlavorName(s.catalog.FrFlavor(FrId(static_cast<uint32_t>(f)))),
                               s.catalog.ResourceName(s.catalog.FrResource(FrId(static_cast<uint32_t>(f)))),
                               got.nominal, got.borrowing_limit, got.lending_limit, w.nominal, w.borrowing_limit,
                               w.lending_limit));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateObjects(const ClusterState& s, const Decoded& p) {
  // Content first: every object passes the validators Apply runs, and the quota tree holds the
  // quotas the specs give (the checksum only proves the bytes are the ones written).
  for (const FlavorState& f : s.flavors)
    if (f.exists) QM_RETURN_IF_ERROR(ValidSpec(Validate(f.spec)));
  for (const CohortState& c : s.cohorts) {
    if (c.exists) QM_RETURN_IF_ERROR(ValidSpec(Validate(c.spec)));
    if (c.node < p.nodes.size())
      QM_RETURN_IF_ERROR(CheckOwnQuotas(s, p.nodes[c.node], ObjectLabel("Cohort", "", c.name), c.exists,
                                        c.spec.resource_groups, c.spec.fair_sharing_weight_milli));
  }
  for (const ClusterQueueState& cq : s.cqs) {
    if (cq.exists) QM_RETURN_IF_ERROR(ValidSpec(Validate(cq.spec)));
    if (cq.exists && cq.spec.name != cq.name)
      return Corrupt(fmt::format("ClusterQueue '{}': metadata.name '{}' differs", cq.name, cq.spec.name));
    if (cq.node < p.nodes.size())
      QM_RETURN_IF_ERROR(CheckOwnQuotas(s, p.nodes[cq.node], ObjectLabel("ClusterQueue", "", cq.name), cq.exists,
                                        cq.spec.resource_groups, cq.spec.fair_sharing_weight_milli));
  }
  for (const LocalQueueState& lq : s.local_queues)
    if (lq.exists) QM_RETURN_IF_ERROR(ValidSpec(Validate(lq.spec)));
  for (uint32_t i = 0; i < s.namespaces.size(); ++i)
    if (s.namespaces[i].exists)
      QM_RETURN_IF_ERROR(ValidSpec(Validate(NamespaceSpec{s.namespaces_names.Name(NamespaceId(i)), s.namespaces[i].labels})));
  for (const auto& [name, pc] : s.workload_priority_classes) QM_RETURN_IF_ERROR(ValidSpec(Validate(pc)));
  for (const auto& [name, pc] : s.priority_classes) QM_RETURN_IF_ERROR(ValidSpec(Validate(pc)));
  const uint32_t flavors = s.catalog.flavor_count();
  if (s.flavors.size() != flavors) return Corrupt(fmt::format("{} flavors for {} flavor names", s.flavors.size(), flavors));
  for (size_t i = 0; i < s.cohorts.size(); ++i) {
    const CohortState& c = s.cohorts[i];
    if (c.name != s.cohort_names.Name(CohortId(static_cast<uint32_t>(i))))
      return Corrupt(fmt::format("cohort {}: name '{}' is not its interned name", i, c.name));
    const QuotaTree::Node& node = p.nodes[c.node];
    if (c.refs != node.children.size())
      return Corrupt(fmt::format("cohort '{}': {} references for {} children", c.name, c.refs, node.children.size()));
    // The tree parent is the one the spec names (validation of later updates relies on it).
    const CohortId parent = c.spec.parent.empty() ? CohortId() : s.cohort_names.Find(c.spec.parent);
    if (!c.spec.parent.empty() && !parent.valid()) return Corrupt(fmt::format("cohort '{}': unknown parent", c.name));
    if (node.parent != (parent.valid() ? s.cohorts[parent.value].node : kNoNode))
      return Corrupt(fmt::format("cohort '{}': its tree parent is not the one its spec names", c.name));
  }
  for (size_t i = 0; i < s.cqs.size(); ++i) {
    const ClusterQueueState& cq = s.cqs[i];
    const auto where = [&](std::string_view what) { return Corrupt(fmt::format("ClusterQueue '{}': {}", cq.name, what)); };
    if (cq.name != s.cq_names.Name(ClusterQueueId(static_cast<uint32_t>(i)))) return where("not its interned name");
    const NodeIndex parent = p.nodes[cq.node].parent;
    if (cq.exists && (cq.spec.cohort.empty() ? cq.cohort.valid()
                                             : !cq.cohort.valid() || cq.cohort != s.cohort_names.Find(cq.spec.cohort)))
      return where("its cohort is not the one its spec names");
    if (cq.cohort.valid()) {
      if (cq.cohort.value >= s.cohorts.size() || parent != s.cohorts[cq.cohort.value].node)
        return where("its cohort is not its parent in the tree");
    } else if (parent != kNoNode) {
      return where("standalone but has a parent in the tree");
    }
    // The solver form is what ApplyClusterQueue derives from the spec.
    bool covers_pods = false;
    boost::container::small_vector<std::pair<ResourceId, uint16_t>, 8> group_of;
    if (cq.groups.size() != cq.spec.resource_groups.size()) return where("resource groups differ from its spec");
    for (size_t g = 0; g < cq.groups.size(); ++g) {
      const ResourceGroupSpec& rg = cq.spec.resource_groups[g];
      const CqResourceGroup& group = cq.groups[g];
      if (group.covered.size() != rg.covered_resources.size() || group.flavors.size() != rg.flavors.size())
        return where("resource groups differ from its spec");
      for (size_t k = 0; k < group.covered.size(); ++k) {
        if (group.covered[k] != s.catalog.FindResource(rg.covered_resources[k]))
          return where("a covered resource differs from its spec");
        group_of.emplace_back(group.covered[k], static_cast<uint16_t>(g));
        covers_pods = covers_pods || rg.covered_resources[k] == "pods";
      }
      for (size_t f = 0; f < group.flavors.size(); ++f) {
        const CqFlavor& cf = group.flavors[f];
        if (cf.flavor != s.catalog.FindFlavor(rg.flavors[f].name) || cf.frs.size() != group.covered.size())
          return where("a resource group flavor differs from its spec");
        for (size_t k = 0; k < cf.frs.size(); ++k)
          if (cf.frs[k] != s.catalog.FindFr(cf.flavor, group.covered[k]))
            return where("a resource group slot differs from its spec");
      }
    }
    std::sort(group_of.begin(), group_of.end());
    if (group_of != cq.group_of || covers_pods != cq.covers_pods) return where("the resource-to-group index differs from its spec");
  }
  // The name order of the existing queues.
  std::vector<ClusterQueueId> by_name;
  for (uint32_t i = 0; i < s.cqs.size(); ++i)
    if (s.cqs[i].exists) by_name.push_back(ClusterQueueId(i));
  std::sort(by_name.begin(), by_name.end(), [&](ClusterQueueId a, ClusterQueueId b) { return s.cq(a).name < s.cq(b).name; });
  if (by_name != s.cqs_by_name) return Corrupt("ClusterQueues by name: not the existing queues in name order");
  for (const LocalQueueState& lq : s.local_queues) {
    if (lq.ns.value >= s.namespaces.size() || s.namespaces_names.Name(lq.ns) != lq.spec.namespace_)
      return Corrupt(fmt::format("LocalQueue '{}': namespace out of range", lq.spec.name));
  }
  for (const auto& [name, pc] : s.workload_priority_classes)
    if (name != pc.name) return Corrupt(fmt::format("WorkloadPriorityClass '{}': key differs from its name", name));
  for (const auto& [name, pc] : s.priority_classes)
    if (name != pc.name) return Corrupt(fmt::format("PriorityClass '{}': key differs from its name", name));
  return absl::OkStatus();
}

namespace {

// Whether `h` names a workload that existed: a slot that is there, at its generation or an older
// one (a deleted slot's generation was bumped past every handle issued for it).
bool NamesSlot(const ClusterState& s, WorkloadHandle h) {
  if (h.index >= s.workloads.size()) return false;
  const WorkloadRecord& w = s.workloads[h.index];
  return w.deleted ? h.generation < w.generation : h.generation <= w.generation;
}

// What is wrong with a preemption history, or "" when nothing is. Every history was made by a
// preemption that counted it as victim or preemptor, and `recent` keeps the latest kRecent.
std::string HistoryProblem(const ClusterState& s, const PreemptionHistory& h) {
  uint64_t by_reason = 0;
  for (uint32_t n : h.by_reason) by_reason += n;
  if (by_reason != h.preempted)
    return fmt::format("preemption history: {} preemptions by reason, {} in all", by_reason, h.preempted);
  if (h.preempted == 0 && h.caused == 0) return "preemption history: no preemption of it or by it";
  const size_t recent = std::min<size_t>(h.preempted, PreemptionHistory::kRecent);
  if (h.recent.size() != recent)
    return fmt::format("preemption history: {} recent preemptions for {} in all (it keeps the latest {})",
                       h.recent.size(), h.preempted, PreemptionHistory::kRecent);
  if (h.held_lost.us < 0) return "preemption history: negative quota-holding time lost";
  for (const PreemptionHistory::Entry& e : h.recent) {
    if (!NamesSlot(s, e.preemptor))
      return fmt::format("preemption history: preemptor '{}' names workload slot {} generation {}, which never existed",
                         e.preemptor_name, e.preemptor.index, e.preemptor.generation);
    if (e.preemptor_cq.value >= s.cqs.size())
      return fmt::format("preemption history: preemptor '{}' has ClusterQueue id {}, not a ClusterQueue",
                         e.preemptor_name, e.preemptor_cq.value);
  }
  const AntiThrashConfig& cfg = s.config.anti_thrash;
  if (h.borrow_allowed_at.us != 0 && cfg.borrow_backoff.base.us <= 0)
    return "preemption history: a borrow back-off, with no borrow back-off configured";
  if (h.admit_allowed_at.us != 0 && cfg.requeue_backoff.base.us <= 0)
    return "preemption history: a requeue back-off, with no requeue back-off configured";
  if (h.preempt_allowed_at.us != 0 && cfg.preemption_backoff.base.us <= 0)
    return "preemption history: a preemption back-off, with no preemption back-off configured";
  // Every round had at least one preemption caused since the workload's last admission.
  if (h.rounds_unadmitted > h.caused)
    return fmt::format("preemption history: {} rounds of preemptions for {} caused", h.rounds_unadmitted, h.caused);
  return std::string();
}

}  // namespace

absl::Status ValidateWorkloads(const ClusterState& s, const Decoded& p) {
  const uint32_t resources = s.catalog.resource_count(), frs = s.catalog.fr_count();
  const size_t count = s.workloads.size();
  // Shapes.
  std::vector<uint32_t> uses(s.shapes.size(), 0);
  for (const WorkloadShape& sh : s.shapes) {
    for (const PodSetShape& ps : sh.pod_sets) {
      if (ps.count < 0 || ps.min_count < 0 || ps.min_count > ps.count) return Corrupt("shape: a pod count is out of range");
      if (ps.name.empty()) return Corrupt("shape: a pod set has no name");
      for (size_t k = 0; k < ps.per_pod.size(); ++k)
        if (ps.per_pod[k].first.value >= resources || ps.per_pod[k].second < 0 ||
            (k > 0 && ps.per_pod[k - 1].first >= ps.per_pod[k].first))
          return Corrupt("shape: requests out of range or not sorted by resource");
    }
  }
  // Records.
  std::set<std::pair<uint32_t, std::string_view>> names;
  size_t deleted = 0, active = 0, inadmissible = 0, none_pending = 0, admitted = 0;
  size_t next_usage = 0;  // into p.admission_usage
  for (size_t i = 0; i < count; ++i) {
    const WorkloadRecord& w = s.workloads[i];
    const auto where = [&](std::string_view what) { return Corrupt(fmt::format("workload slot {}: {}", i, what)); };
    if (w.deleted) {
      ++deleted;
      if (w.extras && w.extras->preemptions) return where("a deleted slot holds a preemption history");
      if (w.admission || w.scan || w.extras || w.place != QueuePlace::kNone) return where("a deleted slot holds state");
      continue;
    }
    if (w.extras && w.extras->preemptions) {
      if (std::string problem = HistoryProblem(s, *w.extras->preemptions); !problem.empty()) return where(problem);
    }
    if (w.ns.value >= s.namespaces.size()) return where("namespace out of range");
    {
      const std::string object = ObjectLabel("Workload", s.namespaces_names.Name(w.ns), std::string_view(w.name));
      QM_RETURN_IF_ERROR(ValidSpec(validate_internal::Name(object, "metadata.name", std::string(std::string_view(w.name)))));
      if (w.extras) QM_RETURN_IF_ERROR(ValidSpec(validate_internal::Labels(object, "metadata.labels", w.extras->labels)));
    }
    if (!names.emplace(w.ns.value, w.name).second) return where("its namespace/name is used twice");
    if (w.queue_name.value >= s.queue_names.size()) return where("queue name out of range");
    if (w.shape >= s.shapes.size() || s.shapes[w.shape].refs == 0) return where("shape out of range or free");
    ++uses[w.shape];
    if (w.seq == 0 || w.seq >= s.next_seq) return where("sequence number out of range");
    if (w.preempted_by.valid() && w.preempted_by.value >= count) return where("preempted by an unknown workload");
    const size_t pod_sets = s.shapes[w.shape].pod_sets.size();
    switch (w.place) {
      case QueuePlace::kNone:
        if (w.state == WorkloadState::kPending) {
          ++none_pending;
          if (!s.unqueued.contains(UnqueuedKey(w, WorkloadId(static_cast<uint32_t>(i)))))
            return where("pending outside every queue but not in the unqueued list");
        }
        break;
      case QueuePlace::kActive:
      case QueuePlace::kInadmissible:
        if (w.state != WorkloadState::kPending) return where("queued but not pending");
        if (w.queued_in.value >= s.cqs.size() || !s.cqs[w.queued_in.value].exists)
          return where("queued in a missing ClusterQueue");
        ++(w.place == QueuePlace::kActive ? active : inadmissible);
        break;
      case QueuePlace::kInflight:
      case QueuePlace::kQueued:
        return where("saved in the middle of a cycle");
    }
    const bool holds = w.state == WorkloadState::kAdmitted || w.state == WorkloadState::kEvicting;
    if (holds != (w.admission != nullptr)) return where("admission does not match its state");
    if (w.admission) {
      const AdmissionRecord& a = *w.admission;
      ++admitted;
      if (a.evicted != (w.state == WorkloadState::kEvicting)) return where("eviction does not match its state");
      if (a.cluster_queue.value >= s.cqs.size() || !s.cqs[a.cluster_queue.value].exists)
        return where("admitted in a missing ClusterQueue");
      if (a.pod_sets.size() != pod_sets) return where("admission pod sets do not match its shape");
      if (a.explicit_usage == nullptr || a.explicit_usage->size() != a.pod_sets.size())
        return where("admission pod set usage does not match its pod sets");  // the reader keeps one list per pod set
      for (size_t k_ps = 0; k_ps < a.pod_sets.size(); ++k_ps) {
        const AdmissionRecord::PodSet& ps = a.pod_sets[k_ps];
        const ResourceList& usage = (*a.explicit_usage)[k_ps];
        if (ps.count < 0 || ps.reclaimable < 0 || ps.reclaimable > ps.count) return where("admitted count out of range");
        for (size_t k = 0; k < ps.frs.size(); ++k)
          if (!ps.frs[k].valid() ||
              (k > 0 && s.catalog.FrResource(ps.frs[k - 1]) >= s.catalog.FrResource(ps.frs[k])))
            return where("admission flavors name no flavor-resource slot or are not sorted by resource");
        for (size_t k = 0; k < usage.size(); ++k)
          if (usage[k].first.value >= resources || usage[k].second < 0 || (k > 0 && usage[k - 1].first >= usage[k].first))
            return where("admission usage out of range or not sorted");
      }
      // The usage per FR it states must be what its pod sets give (AdmissionUsage), which the
      // engine derives rather than keeps.
      if (next_usage >= p.admission_usage.size() || p.admission_usage[next_usage].first != i)
        return where("admission has no usage");  // the reader records one per admission
      const FrUsage& stated = p.admission_usage[next_usage++].second;
      for (size_t k = 0; k < stated.size(); ++k)
        if (stated[k].first.value >= frs || stated[k].second < 0 || (k > 0 && stated[k - 1].first >= stated[k].first))
          return where("admission slots out of range or not sorted");
      if (AdmissionUsage(s, w) != stated) return where("admission usage is not what its pod sets and counts give");
    }
    if (w.scan)
      for (const auto& ps : w.scan->last_tried)
        for (const auto& [r, idx] : ps)
          if (r.value >= resources || idx < -1 || idx > (1 << 20)) return where("scan progress out of range");
  }
  if (s.unqueued.size() != none_pending) return Corrupt("unqueued workloads: not exactly the pending workloads outside every queue");
  for (size_t i = 0; i < s.shapes.size(); ++i) {
    const WorkloadShape& sh = s.shapes[i];
    if (sh.refs != uses[i]) return Corrupt(fmt::format("shape {}: {} references for {} workloads", i, sh.refs, uses[i]));
    if (sh.refs > 0 && sh.hash != ShapeHash(sh))
      return Corrupt(fmt::format("shape {}: its hash is not this build's shape hash", i));
  }
  // Free lists.
  std::vector<bool> seen(count, false);
  for (WorkloadId id : s.free_workloads) {
    if (id.value >= count || !s.workloads[id.value].deleted || seen[id.value])
      return Corrupt("free workloads: not exactly the deleted slots");
    seen[id.value] = true;
  }
  if (s.free_workloads.size() != deleted) return Corrupt("free workloads: not exactly the deleted slots");
  std::vector<bool> free_shape(s.shapes.size(), false);
  size_t free_shapes = 0;
  for (ShapeId id : s.free_shapes) {
    if (id >= s.shapes.size() || s.shapes[id].refs != 0 || free_shape[id]) return Corrupt("free shapes: not exactly the unused shapes");
    free_shape[id] = true;
    ++free_shapes;
  }
  for (const WorkloadShape& sh : s.shapes)
    if (sh.refs == 0 && free_shapes-- == 0) return Corrupt("free shapes: not exactly the unused shapes");
  if (free_shapes != 0) return Corrupt("free shapes: not exactly the unused shapes");
  // Shape index: every shape in use, once, under its hash.
  size_t indexed = 0;
  std::vector<bool> in_index(s.shapes.size(), false);
  for (size_t b = 0; b < p.shape_index.size(); ++b) {
    const auto& [hash, bucket] = p.shape_index[b];
    if (b > 0 && p.shape_index[b - 1].first >= hash) return Corrupt("shape index: hashes not sorted");
    if (bucket.empty()) return Corrupt("shape index: empty bucket");
    for (uint32_t id : bucket) {
      if (id >= s.shapes.size() || s.shapes[id].refs == 0 || s.shapes[id].hash != hash || in_index[id])
        return Corrupt("shape index: not exactly the shapes in use");
      in_index[id] = true;
      ++indexed;
    }
  }
  size_t in_use = 0;
  for (const WorkloadShape& sh : s.shapes) in_use += sh.refs > 0 ? 1 : 0;
  if (indexed != in_use) return Corrupt("shape index: not exactly the shapes in use");
  // Unqueued keys name pending workloads outside every queue.
  for (uint64_t k : s.unqueued) {
    const uint32_t id = UnqueuedId(k).value;
    if (id >= count || s.workloads[id].deleted || s.workloads[id].state != WorkloadState::kPending ||
        s.workloads[id].place != QueuePlace::kNone || UnqueuedKey(s.workloads[id], WorkloadId(id)) != k)
      return Corrupt("unqueued workloads: an entry names no unqueued pending workload");
  }
  // Queue memberships: each listed workload is where its record says, and every record is listed.
  size_t listed_active = 0, listed_inadmissible = 0, listed_admitted = 0;
  for (size_t c = 0; c < p.queues.size(); ++c) {
    const Decoded::Queues& q = p.queues[c];
    const ClusterQueueState& cq = s.cqs[c];
    const auto where = [&](std::string_view what) { return Corrupt(fmt::format("ClusterQueue '{}': {}", cq.name, what)); };
    const auto live = [&](uint32_t id) { return id < count && !s.workloads[id].deleted; };
    for (uint32_t id : q.heap)
      if (!live(id) || s.workloads[id].place != QueuePlace::kActive || s.workloads[id].queued_in.value != c)
        return where("its active queue lists a workload that is not in it");
    for (uint32_t id : q.inadmissible)
      if (!live(id) || s.workloads[id].place != QueuePlace::kInadmissible || s.workloads[id].queued_in.value != c)
        return where("its inadmissible set lists a workload that is not in it");
    for (uint32_t id : q.admitted)
      if (!live(id) || !s.workloads[id].admission || s.workloads[id].admission->evicted ||
          s.workloads[id].admission->cluster_queue.value != c)
        return where("its admitted set lists a workload that is not admitted there");
    for (uint32_t id : q.evicting)
      if (!live(id) || !s.workloads[id].admission || !s.workloads[id].admission->evicted ||
          s.workloads[id].admission->cluster_queue.value != c)
        return where("its evicting set lists a workload that is not evicting there");
    if (cq.sticky_preemptor.valid() && cq.sticky_preemptor.value >= count) return where("sticky preemptor out of range");
    if (!cq.exists && (!q.heap.empty() || !q.inadmissible.empty() || !q.admitted.empty() || !q.evicting.empty()))
      return where("deleted but holds workloads");
    listed_active += q.heap.size();
    listed_inadmissible += q.inadmissible.size();
    listed_admitted += q.admitted.size() + q.evicting.size();
  }
  if (listed_active != active || listed_inadmissible != inadmissible || listed_admitted != admitted)
    return Corrupt("queues: the ClusterQueues' sets do not list every queued and admitted workload once");
  return absl::OkStatus();
}

// The anti-thrash state: timers name workloads that existed; edges and reported rings name
// ClusterQueues and are kept only with the cycle detector on (the configuration never changes).
absl::Status ValidateThrash(const ClusterState& s) {
  const AntiThrashConfig& cfg = s.config.anti_thrash;
  const ThrashState& t = s.thrash;
  const size_t cqs = s.cqs.size();
  if (!t.timers.empty() && cfg.min_runtime.empty() && cfg.borrow_backoff.base.us <= 0 &&
      cfg.requeue_backoff.base.us <= 0 && cfg.preemption_backoff.base.us <= 0)
    return Corrupt("timers: present with neither a minimum runtime nor a back-off configured");
  for (const auto& [at, packed] : t.timers) {
    const WorkloadHandle h = WorkloadHandle::Unpack(packed);
    if (!NamesSlot(s, h))
      return Corrupt(fmt::format("timer at {}us: names workload slot {} generation {}, which never existed", at,
                                 h.index, h.generation));
  }
  if ((!t.edges.empty() || !t.reported_rings.empty()) && !cfg.cycle_detection.enabled)
    return Corrupt("preemption cycles: recorded with cycle detection off");
  if (t.edges.size() > cqs)
    return Corrupt(fmt::format("preemption edges: kept for {} ClusterQueues, there are {}", t.edges.size(), cqs));
  for (size_t from = 0; from < t.edges.size(); ++from) {
    const std::vector<ThrashState::Edge>& out = t.edges[from];
    const auto where = [&](std::string_view what) {
      return Corrupt(fmt::format("preemption edges of ClusterQueue '{}': {}", s.cqs[from].name, what));
    };
    for (size_t k = 0; k < out.size(); ++k) {
      const uint32_t to = out[k].to.value;
      if (to >= cqs) return where(fmt::format("victim queue id {} is not a ClusterQueue", to));
      if (to == from) return where("an edge to itself");
      for (size_t j = 0; j < k; ++j)
        if (out[j].to == out[k].to) return where(fmt::format("victim queue '{}' appears twice", s.cqs[to].name));
    }
  }
  for (const auto& [ring, at] : t.reported_rings) {
    std::string text;
    for (uint32_t q : ring) text += fmt::format("{}{}", text.empty() ? "" : " ", q);
    const auto where = [&](std::string_view what) { return Corrupt(fmt::format("reported ring [{}]: {}", text, what)); };
    if (ring.size() < 2) return where("fewer than two ClusterQueues");
    for (uint32_t q : ring)
      if (q >= cqs) return where(fmt::format("id {} is not a ClusterQueue", q));
    if (std::min_element(ring.begin(), ring.end()) != ring.begin()) return where("does not start at its smallest id");
    std::vector<uint32_t> sorted = ring;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return where("a ClusterQueue appears twice");
  }
  return absl::OkStatus();
}

namespace {

// Every set rebuilt from the records must come out in the saved order (it does when the records
// are the ones the keys were made from).
// `insert(id)` files one workload into `set`.
template <class Set, class Insert>
absl::Status Fill(const Set& set, const std::vector<uint32_t>& ids, Insert insert, std::string_view what,
                  const std::string& cq) {
  for (uint32_t id : ids) insert(WorkloadId(id));
  size_t i = 0;
  for (const auto& k : set) {
    if (i >= ids.size() || k.id.value != ids[i])
      return Corrupt(fmt::format("ClusterQueue '{}': its {} is not in the order its workloads give", cq, what));
    ++i;
  }
  if (i != ids.size()) return Corrupt(fmt::format("ClusterQueue '{}': its {} lists a workload twice", cq, what));
  return absl::OkStatus();
}

}  // namespace

absl::Status Link(ClusterState& s, Decoded& p) {
  // The quota tree: nodes, links, then every saved value.
  for (NodeIndex n = 0; n < p.nodes.size(); ++n) s.tree.AddNode(p.nodes[n].is_cluster_queue, p.nodes[n].owner);
  for (NodeIndex n = 0; n < p.nodes.size(); ++n)
    if (p.nodes[n].parent != kNoNode) s.tree.SetParent(n, p.nodes[n].parent);
  for (NodeIndex n = 0; n < p.nodes.size(); ++n) {
    QuotaTree::Node& node = s.tree.mutable_node(n);
    if (node.children != p.nodes[n].children) return Corrupt(fmt::format("tree node {}: children differ from the links", n));
    node = std::move(p.nodes[n]);
  }
  // Lookup indexes.
  for (uint32_t i = 0; i < s.workloads.size(); ++i)
    if (!s.workloads[i].deleted) s.workload_index.insert(WorkloadId(i));
  for (uint32_t i = 0; i < s.local_queues.size(); ++i) {
    const LocalQueueState& lq = s.local_queues[i];
    if (!s.local_queue_index.emplace(std::make_pair(lq.ns.value, lq.spec.name), LocalQueueId(i)).second)
      return Corrupt(fmt::format("LocalQueue '{}/{}' appears twice", lq.spec.namespace_, lq.spec.name));
  }
  for (auto& [hash, bucket] : p.shape_index) s.shape_index[hash].assign(bucket.begin(), bucket.end());
  // Pending and candidate sets, from the records.
  for (uint32_t c = 0; c < s.cqs.size(); ++c) {
    ClusterQueueState& cq = s.cqs[c];
    const Decoded::Queues& q = p.queues[c];
    // Pending queues are grouped by class, which only the records know.
    const auto pending_into = [&](ClassQueue& queue) {
      return [&s, &queue](WorkloadId id) { queue.insert(PendingKeyOf(s, id), PendingClassOf(s.wl(id)), s.wl(id).ns); };
    };
    const auto candidate_into = [&](CandidateSet& set) {
      return [&s, &set](WorkloadId id) { set.insert(CandidateKeyOf(s, id)); };
    };
    QM_RETURN_IF_ERROR(Fill(cq.heap, q.heap, pending_into(cq.heap), "active queue", cq.name));
    QM_RETURN_IF_ERROR(Fill(cq.inadmissible, q.inadmissible, pending_into(cq.inadmissible), "inadmissible set", cq.name));
    QM_RETURN_IF_ERROR(Fill(cq.admitted, q.admitted, candidate_into(cq.admitted), "admitted set", cq.name));
    QM_RETURN_IF_ERROR(Fill(cq.evicting, q.evicting, candidate_into(cq.evicting), "evicting set", cq.name));
  }
  // Records store only that a workload is queued; which queue holds it is the queue's (PlaceOf).
  // Derived state: whether a requeue back-off was ever set (ClusterState::requeue_backoff_seen).
  // An admission keeps its pod sets' usage only when its shape and counts do not give it.
  for (WorkloadRecord& w : s.workloads) {
    if (w.deleted) continue;
    if (w.admission && w.admission->explicit_usage && UsageIsDerived(s, w, *w.admission->explicit_usage))
      w.admission->explicit_usage.reset();
    if (w.place == QueuePlace::kActive || w.place == QueuePlace::kInadmissible) w.place = QueuePlace::kQueued;
    if (w.extras && w.extras->requeue_at) s.requeue_backoff_seen = true;
  }
  return absl::OkStatus();
}

namespace {

// Compares what a snapshot stores (amounts clamped to int64) of a recomputed node `a` and a read one `b`.
bool SameNode(const QuotaTree::Node& a, const QuotaTree::Node& b) {
  if (a.height != b.height || a.borrowed.size() != b.borrowed.size() || a.potential_sum != b.potential_sum ||
      a.fr.size() != b.fr.size())
    return false;
  for (size_t r = 0; r < a.borrowed.size(); ++r)
    if (ClampAmount(a.borrowed[r]) != ClampAmount(b.borrowed[r])) return false;
  for (size_t f = 0; f < a.fr.size(); ++f) {
    const FrQuota &x = a.fr[f], &y = b.fr[f];
    if (x.subtree_quota != y.subtree_quota || x.local_quota != y.local_quota || x.potential != y.potential ||
        x.usage != y.usage)
      return false;
  }
  return true;
}

}  // namespace

// The saved usage is what the admissions add up to, and the derived values of every tree that holds
// a queue or cohort in use are what `Recompute` gives.
// The snapshot holds usage clamped to int64; once it agrees, the exact sums (quota_tree.h) are
// rebuilt from the admissions and every tree recomputed from them.
absl::Status CheckTree(ClusterState& s) {
  std::vector<std::vector<WideAmount>> usage(s.cqs.size(), std::vector<WideAmount>(s.catalog.fr_count(), 0));
  for (const WorkloadRecord& w : s.workloads) {
    if (w.deleted || !w.admission) continue;
    for (const auto& [fr, v] : AdmissionUsage(s, w)) usage[w.admission->cluster_queue.value][fr.value] += v;
  }
  for (size_t c = 0; c < s.cqs.size(); ++c) {
    const QuotaTree::Node& node = s.tree.node(s.cqs[c].node);
    for (size_t f = 0; f < node.fr.size(); ++f)
      if (node.fr[f].usage != ClampAmount(usage[c][f]))
        return Corrupt(fmt::format("ClusterQueue '{}': usage of {}/{} is {}, its admissions add up to {}", s.cqs[c].name,
                                   s.catalog.FlavorName(s.catalog.FrFlavor(FrId(static_cast<uint32_t>(f)))),
                                   s.catalog.ResourceName(s.catalog.FrResource(FrId(static_cast<uint32_t>(f)))),
                                   node.fr[f].usage, ClampAmount(usage[c][f])));
  }
  for (size_t c = 0; c < s.cqs.size(); ++c) {
    QuotaTree::Node& node = s.tree.mutable_node(s.cqs[c].node);
    for (size_t f = 0; f < node.fr.size(); ++f) node.fr[f].usage_exact = usage[c][f];
  }
  QuotaTree expected = s.tree;
  const auto in_use = [&](NodeIndex n) {
    const QuotaTree::Node& node = s.tree.node(n);
    if (node.is_cluster_queue) return s.cqs[node.owner].exists;
    return s.cohorts[node.owner].exists || s.cohorts[node.owner].refs > 0;
  };
  for (NodeIndex root = 0; root < s.tree.node_count(); ++root) {
    if (s.tree.parent(root) != kNoNode || !in_use(root)) continue;
    expected.Recompute(root);
    std::vector<NodeIndex> stack{root};
    while (!stack.empty()) {
      const NodeIndex n = stack.back();
      stack.pop_back();
      if (!SameNode(expected.node(n), s.tree.node(n)))
        return Corrupt(fmt::format("tree node {}: its quotas and usage differ from a recomputation", n));
      for (NodeIndex c : s.tree.node(n).children) stack.push_back(c);
    }
  }
  // Same values as read, now with the exact sums behind them.
  for (NodeIndex root = 0; root < s.tree.node_count(); ++root)
    if (s.tree.parent(root) == kNoNode && in_use(root)) s.tree.Recompute(root);
  return absl::OkStatus();
}

}  // namespace qm::internal::snapshot
