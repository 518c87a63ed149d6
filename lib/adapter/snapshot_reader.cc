// Engine snapshots, reading: `Engine::Restore` checks the header, decodes every section with
// bounds-checked reads into a fresh state, then has snapshot_validation.cc check and link it.
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

namespace qm {
namespace internal::snapshot {

absl::Status Corrupt(std::string_view what) { return absl::DataLossError(fmt::format("snapshot: {}", what)); }

namespace {

template <class IdT>
absl::Status GetNames(Reader& r, std::string_view what, Interner<IdT>* names) {
  const uint32_t n = r.Count(what);
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    const std::string name = r.Str();
    if (!r.ok()) break;
    if (names->Intern(name).value != i) return Corrupt(fmt::format("{}: duplicate name '{}'", what, name));
  }
  return r.status();
}

absl::Status ReadConfig(Reader& r, uint32_t version, const EngineConfig& host, EngineConfig* config) {
  config->fair_sharing.enabled = r.Bool();
  config->fair_sharing.preemption_strategies.clear();
  const uint32_t n = r.Count("preemption strategies");
  for (uint32_t i = 0; i < n && r.ok(); ++i)
    config->fair_sharing.preemption_strategies.push_back(
        r.Enum(FairSharingStrategy::kLessThanInitialShare, "preemption strategy"));
  config->message_style = r.Enum(MessageStyle::kLegacy, "message style");
  const uint32_t gates = r.Count("feature gates");
  for (uint32_t i = 0; i < gates && r.ok(); ++i) {
    const std::string name = r.Str();
    const bool value = r.Bool();
    if (!r.ok()) break;
    if (absl::Status st = config->features.Set(name, value); !st.ok())
      return absl::InvalidArgumentError(fmt::format("snapshot: config: {}", std::string(st.message())));
  }
  config->anti_thrash = GetAntiThrash(r);
  config->wait_for_pods_ready = GetWaitForPodsReady(r);
  config->refill.enabled = version >= 4 && r.Bool();
  if (version >= 5) {
    config->fair_sharing.historical.enabled = r.Bool();
    config->fair_sharing.historical.half_life = r.Period();
  }
  QM_RETURN_IF_ERROR(r.Finish("CONF"));
  config->clock = host.clock;
  config->submission_gate = host.submission_gate;
  config->check_invariants = host.check_invariants;
  if (absl::Status st = ValidateEngineConfig(*config); !st.ok())
    return absl::InvalidArgumentError(fmt::format("snapshot: config: {}", std::string(st.message())));
  return absl::OkStatus();
}

absl::Status ReadNames(Reader& r, ClusterState& s) {
  const uint32_t resources = r.Count("resources");
  for (uint32_t i = 0; i < resources && r.ok(); ++i) {
    const std::string name = r.Str();
    if (r.ok() && s.catalog.InternResource(name).value != i)
      return Corrupt(fmt::format("resources: duplicate name '{}'", name));
  }
  const uint32_t flavors = r.Count("flavors");
  for (uint32_t i = 0; i < flavors && r.ok(); ++i) {
    const std::string name = r.Str();
    if (r.ok() && s.catalog.InternFlavor(name).value != i)
      return Corrupt(fmt::format("flavors: duplicate name '{}'", name));
  }
  const uint32_t frs = r.Count("flavor-resource slots");
  for (uint32_t i = 0; i < frs && r.ok(); ++i) {
    const uint32_t f = r.U32();
    const uint32_t res = r.U32();
    if (!r.ok()) break;
    if (f >= s.catalog.flavor_count() || res >= s.catalog.resource_count())
      return Corrupt(fmt::format("flavor-resource slot {} names flavor {} and resource {}, out of range", i, f, res));
    if (s.catalog.InternFr(FlavorId(f), ResourceId(res)).value != i)
      return Corrupt(fmt::format("flavor-resource slot {} repeats an earlier one", i));
    s.tree.EnsureFr(FrId(i), ResourceId(res));
  }
  QM_RETURN_IF_ERROR(r.status());
  QM_RETURN_IF_ERROR(GetNames(r, "ClusterQueue names", &s.cq_names));
  QM_RETURN_IF_ERROR(GetNames(r, "cohort names", &s.cohort_names));
  QM_RETURN_IF_ERROR(GetNames(r, "namespace names", &s.namespaces_names));
  QM_RETURN_IF_ERROR(GetNames(r, "queue names", &s.queue_names));
  return r.Finish("NAME");
}

absl::Status ReadTree(Reader& r, const ClusterState& s, Decoded* p) {
  const uint32_t n = r.Count("tree nodes");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    QuotaTree::Node node;
    node.parent = r.U32();
    node.is_cluster_queue = r.Bool();
    node.owner = r.U32();
    for (uint32_t c : GetIds(r, "tree children")) node.children.push_back(c);
    node.height = r.I32();
    node.weight_milli = r.I64();
    const uint32_t frs = r.Count("node quotas");
    for (uint32_t f = 0; f < frs && r.ok(); ++f) {
      FrQuota q;
      q.nominal = r.I64();
      q.borrowing_limit = r.I64();
      q.lending_limit = r.I64();
      q.subtree_quota = r.I64();
      q.local_quota = r.I64();
      q.potential = r.I64();
      q.usage = r.I64();
      q.usage_exact = q.usage;  // CheckTree rebuilds the exact sums from the admissions
      node.fr.push_back(q);
    }
    const uint32_t nb = r.Count("node borrowed");
    for (uint32_t k = 0; k < nb && r.ok(); ++k) node.borrowed.push_back(r.I64());
    const uint32_t np = r.Count("node potential sums");
    for (uint32_t k = 0; k < np && r.ok(); ++k) node.potential_sum.push_back(r.I64());
    if (!r.ok()) break;
    if (node.fr.size() != s.catalog.fr_count())
      return Corrupt(fmt::format("tree node {}: {} quota slots, the catalog has {}", i, node.fr.size(), s.catalog.fr_count()));
    p->nodes.push_back(std::move(node));
  }
  return r.Finish("TREE");
}

absl::Status ReadCohorts(Reader& r, ClusterState& s) {
  const uint32_t n = r.Count("cohorts");
  if (r.ok() && n != s.cohort_names.size())
    return Corrupt(fmt::format("{} cohorts for {} cohort names", n, s.cohort_names.size()));
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    CohortState c;
    c.exists = r.Bool();
    c.name = r.Str();
    c.spec.name = r.Str();
    c.spec.parent = r.Str();
    c.spec.resource_groups = GetGroups(r);
    c.spec.fair_sharing_weight_milli = r.I64();
    c.node = r.U32();
    c.refs = r.U32();
    s.cohorts.push_back(std::move(c));
  }
  return r.Finish("COHO");
}

absl::Status ReadClusterQueues(Reader& r, ClusterState& s) {
  const uint32_t n = r.Count("ClusterQueues");
  if (r.ok() && n != s.cq_names.size())
    return Corrupt(fmt::format("{} ClusterQueues for {} ClusterQueue names", n, s.cq_names.size()));
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    ClusterQueueState& cq = s.cqs.emplace_back();
    cq.exists = r.Bool();
    cq.name = r.Str();
    cq.spec = GetClusterQueueSpec(r);
    cq.node = r.U32();
    cq.cohort = CohortId(r.U32());
    const uint32_t groups = r.Count("ClusterQueue resource groups");
    for (uint32_t g = 0; g < groups && r.ok(); ++g) {
      CqResourceGroup& group = cq.groups.emplace_back();
      for (uint32_t res : GetIds(r, "covered resources")) group.covered.push_back(ResourceId(res));
      const uint32_t flavors = r.Count("group flavors");
      for (uint32_t f = 0; f < flavors && r.ok(); ++f) {
        CqFlavor& cf = group.flavors.emplace_back();
        cf.flavor = FlavorId(r.U32());
        for (uint32_t fr : GetIds(r, "group flavor slots")) cf.frs.push_back(FrId(fr));
      }
    }
    const uint32_t group_of = r.Count("group index");
    for (uint32_t g = 0; g < group_of && r.ok(); ++g) {
      const ResourceId res(r.U32());
      const uint32_t idx = r.U32();
      if (idx > 0xffff) r.Fail("group index out of range");
      cq.group_of.emplace_back(res, static_cast<uint16_t>(idx));
    }
    cq.covers_pods = r.Bool();
    cq.active = r.Bool();
    cq.active_message = r.Str();
    cq.generation = r.U64();
  }
  for (uint32_t id : GetIds(r, "ClusterQueues by name")) s.cqs_by_name.push_back(ClusterQueueId(id));
  return r.Finish("CLQU");
}

absl::Status ReadNamespaces(Reader& r, ClusterState& s) {
  const uint32_t n = r.Count("namespaces");
  if (r.ok() && n != s.namespaces_names.size())
    return Corrupt(fmt::format("{} namespaces for {} namespace names", n, s.namespaces_names.size()));
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    NamespaceState ns;
    ns.exists = r.Bool();
    ns.labels = GetLabels(r);
    s.namespaces.push_back(std::move(ns));
  }
  return r.Finish("NMSP");
}

absl::Status ReadLocalQueues(Reader& r, ClusterState& s) {
  const uint32_t n = r.Count("LocalQueues");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    LocalQueueState lq;
    lq.exists = r.Bool();
    lq.spec.namespace_ = r.Str();
    lq.spec.name = r.Str();
    lq.spec.cluster_queue = r.Str();
    lq.spec.stop_policy = r.Enum(StopPolicy::kHoldAndDrain, "LocalQueue stopPolicy");
    lq.spec.labels = GetLabels(r);
    lq.ns = NamespaceId(r.U32());
    s.local_queues.push_back(std::move(lq));
  }
  return r.Finish("LOCQ");
}

absl::Status ReadPriorityClasses(Reader& r, ClusterState& s) {
  const uint32_t nw = r.Count("WorkloadPriorityClasses");
  for (uint32_t i = 0; i < nw && r.ok(); ++i) {
    std::string key = r.Str();
    WorkloadPriorityClassSpec pc;
    pc.name = r.Str();
    pc.value = r.I32();
    pc.description = r.Str();
    if (r.ok() && !s.workload_priority_classes.emplace(std::move(key), std::move(pc)).second)
      return Corrupt("WorkloadPriorityClasses: duplicate name");
  }
  const uint32_t np = r.Count("PriorityClasses");
  for (uint32_t i = 0; i < np && r.ok(); ++i) {
    std::string key = r.Str();
    PriorityClassSpec pc;
    pc.name = r.Str();
    pc.value = r.I32();
    pc.global_default = r.Bool();
    pc.description = r.Str();
    if (r.ok() && !s.priority_classes.emplace(std::move(key), std::move(pc)).second)
      return Corrupt("PriorityClasses: duplicate name");
  }
  return r.Finish("PRIO");
}

absl::Status ReadShapes(Reader& r, ClusterState& s, Decoded* p) {
  const uint32_t n = r.Count("shapes");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    WorkloadShape sh;
    sh.refs = r.U32();
    sh.hash = r.U64();
    const uint32_t ps = r.Count("shape pod sets");
    for (uint32_t k = 0; k < ps && r.ok(); ++k) sh.pod_sets.push_back(GetPodSet(r));
    s.shapes.push_back(std::move(sh));
  }
  s.free_shapes = GetIds(r, "free shapes");
  const uint32_t buckets = r.Count("shape index");
  for (uint32_t i = 0; i < buckets && r.ok(); ++i) {
    const uint64_t hash = r.U64();
    p->shape_index.emplace_back(hash, GetIds(r, "shape index bucket"));
  }
  return r.Finish("SHAP");
}

absl::Status ReadWorkloads(Reader& r, ClusterState& s, Decoded* p) {
  const uint32_t n = r.Count("workloads");
  const char* last_reason = nullptr;  // interned
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    WorkloadRecord& w = s.workloads.emplace_back();
    w.deleted = r.Bool();
    w.generation = r.U32();
    w.ns = NamespaceId(r.U32());
    w.name = r.StrView();
    if (r.Bool()) w.uid = r.StrView();
    if (r.Bool()) {
      auto x = std::make_unique<WorkloadExtras>();
      x->job_uid = r.Str();
      x->labels = GetLabels(r);
      x->priority_class.source = r.Enum(PriorityClassSource::kPriorityClass, "priority class source");
      x->priority_class.name = r.Str();
      const uint32_t nc = r.Count("conditions");
      for (uint32_t k = 0; k < nc && r.ok(); ++k) {
        ConditionSpec c;
        c.type = r.Str();
        c.status = r.Bool();
        c.reason = r.Str();
        c.message = r.Str();
        if (r.Bool()) c.last_transition_time = r.At();
        x->conditions.push_back(std::move(c));
      }
      const uint32_t nr = r.Count("reclaimable pods");
      for (uint32_t k = 0; k < nr && r.ok(); ++k) {
        std::string name = r.Str();
        const int32_t count = r.I32();
        x->reclaimable_pods.emplace_back(std::move(name), count);
      }
      x->preemption_message = r.Str();
      if (r.Bool()) x->preemptions = GetHistory(r);
      x->requeue_count = r.I32();
      if (r.Bool()) x->requeue_at = r.At();
      w.extras = std::move(x);
    }
    w.queue_name = QueueNameId(r.U32());
    w.shape = r.U32();
    w.priority = r.I32();
    w.active = r.Bool();
    w.state = r.Enum(WorkloadState::kInactive, "workload state");
    w.place = r.Enum(QueuePlace::kInflight, "workload queue place");
    w.creation_time = r.At();
    w.queue_time = r.At();
    w.seq = r.U64();
    w.queued_in = ClusterQueueId(r.U32());
    // Reasons are few: most records repeat the one before, which then needs no lookup.
    const std::string_view reason = r.StrView();
    if (reason.empty()) {
      w.reason = "";
    } else if (last_reason != nullptr && reason == last_reason) {
      w.reason = last_reason;
    } else {
      w.reason = last_reason = s.InternReason(reason);
    }
    w.message = r.StrView();
    if (r.Bool()) {
      AdmissionPtr a = s.NewAdmission();
      a->cluster_queue = ClusterQueueId(r.U32());
      const uint32_t ps = r.Count("admission pod sets");
      // Kept as read until the records are validated; `Link` drops what the shapes derive.
      a->explicit_usage = std::make_unique<std::vector<ResourceList>>();
      for (uint32_t k = 0; k < ps && r.ok(); ++k) {
        AdmissionRecord::PodSet& out = a->pod_sets.emplace_back();
        ResourceList& usage = a->explicit_usage->emplace_back();
        out.count = r.I32();
        const uint32_t nf = r.Count("admission flavors");
        for (uint32_t j = 0; j < nf && r.ok(); ++j) {
          const ResourceId res(r.U32());
          const FlavorId f(r.U32());
          out.frs.push_back(s.catalog.FindFr(f, res));  // invalid when there is no such slot: refused later
        }
        const uint32_t nu = r.Count("admission pod set usage");
        for (uint32_t j = 0; j < nu && r.ok(); ++j) {
          const ResourceId res(r.U32());
          const int64_t v = r.I64();
          usage.emplace_back(res, v);
        }
        out.reclaimable = r.I32();
      }
      FrUsage& stated = p->admission_usage.emplace_back(i, FrUsage()).second;
      const uint32_t nu = r.Count("admission usage");
      for (uint32_t j = 0; j < nu && r.ok(); ++j) {
        const FrId fr(r.U32());
        const int64_t v = r.I64();
        stated.emplace_back(fr, v);
      }
      a->borrow_level = r.I32();
      a->reserved_at = r.At();
      a->admitted_cycle = r.U64();
      a->evicted = r.Bool();
      a->evicted_at = r.At();
      a->pods_ready = r.Bool();
      a->pods_recovering = r.Bool();
      a->pods_not_ready_since = r.At();
      w.admission = std::move(a);
    }
    if (r.Bool()) {
      auto sp = std::make_unique<ScanProgress>();
      const uint32_t ps = r.Count("scan pod sets");
      for (uint32_t k = 0; k < ps && r.ok(); ++k) {
        auto& out = sp->last_tried.emplace_back();
        const uint32_t m = r.Count("scan resources");
        for (uint32_t j = 0; j < m && r.ok(); ++j) {
          const ResourceId res(r.U32());
          const int32_t idx = r.I32();
          out.emplace_back(res, idx);
        }
      }
      sp->generation = r.U64();
      sp->cycle = r.U64();
      sp->equivalence = r.U64();
      w.scan = std::move(sp);
    }
    if (r.Bool()) w.preemption_reason = r.Enum(PreemptionReason::kInCohortReclaimWhileBorrowing, "preemption reason");
    w.preempted_by = WorkloadId(r.U32());
  }
  for (uint32_t id : GetIds(r, "free workloads")) s.free_workloads.push_back(WorkloadId(id));
  const uint32_t nu = r.Count("unqueued workloads");
  std::vector<uint64_t> unqueued;
  for (uint32_t i = 0; i < nu && r.ok(); ++i) unqueued.push_back(r.U64());
  s.unqueued.insert(unqueued.begin(), unqueued.end());
  if (r.ok() && s.unqueued.size() != unqueued.size()) return Corrupt("unqueued workloads: duplicate entries");
  return r.Finish("WKLD");
}

absl::Status ReadQueues(Reader& r, ClusterState& s, Decoded* p) {
  const uint32_t n = r.Count("ClusterQueue queues");
  if (r.ok() && n != s.cqs.size()) return Corrupt(fmt::format("queues of {} ClusterQueues for {}", n, s.cqs.size()));
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    Decoded::Queues& q = p->queues.emplace_back();
    q.heap = GetIds(r, "active queue");
    q.inadmissible = GetIds(r, "inadmissible set");
    s.cqs[i].sticky_preemptor = WorkloadId(r.U32());
    const uint32_t nb = r.Count("blocked equivalence classes");
    for (uint32_t k = 0; k < nb && r.ok(); ++k) s.cqs[i].blocked.insert(r.U64());
    q.admitted = GetIds(r, "admitted set");
    q.evicting = GetIds(r, "evicting set");
  }
  return r.Finish("PEND");
}

absl::Status ReadThrash(Reader& r, ClusterState& s) {
  ThrashState& t = s.thrash;
  const uint32_t timers = r.Count("timers");
  for (uint32_t i = 0; i < timers && r.ok(); ++i) {
    const Time at = r.At();
    const WorkloadHandle h = r.Handle();
    if (!r.ok()) break;
    const std::pair<int64_t, uint64_t> key(at.us, h.Pack());
    if (!t.timers.empty() && *t.timers.rbegin() >= key) return Corrupt("timers: not in order, or one repeated");
    t.timers.insert(t.timers.end(), key);
  }
  const uint32_t queues = r.Count("preemption edges");
  for (uint32_t q = 0; q < queues && r.ok(); ++q) {
    std::vector<ThrashState::Edge>& out = t.edges.emplace_back();
    const uint32_t n = r.Count("preemption edges of a ClusterQueue");
    for (uint32_t k = 0; k < n && r.ok(); ++k) {
      ThrashState::Edge e;
      e.to = ClusterQueueId(r.U32());
      e.at = r.At();
      out.push_back(e);
    }
  }
  const uint32_t rings = r.Count("reported rings");
  for (uint32_t i = 0; i < rings && r.ok(); ++i) {
    std::vector<uint32_t> ring = GetIds(r, "reported ring");
    const Time at = r.At();
    if (!r.ok()) break;
    if (!t.reported_rings.empty() && t.reported_rings.rbegin()->first >= ring)
      return Corrupt("reported rings: not in order, or one repeated");
    t.reported_rings.emplace_hint(t.reported_rings.end(), std::move(ring), at);
  }
  return r.Finish("THRS");
}

// HIST, read before the tree is built; `RestoreHistory` checks it against the tree.
struct SavedHistory {
  bool started = false;
  int64_t last_us = 0;
  std::vector<std::vector<UsageHistory::Anchor>> anchors;
};

absl::Status ReadHistory(Reader& r, SavedHistory* h) {
  h->started = r.Bool();
  h->last_us = r.I64();
  const uint32_t nodes = r.Count("history nodes");
  for (uint32_t n = 0; n < nodes && r.ok(); ++n) {
    std::vector<UsageHistory::Anchor>& node = h->anchors.emplace_back();
    const uint32_t resources = r.Count("history resources");
    for (uint32_t k = 0; k < resources && r.ok(); ++k) {
      UsageHistory::Anchor a;
      a.t0 = r.I64();
      const uint64_t lo = r.U64(), hi = r.U64();
      a.h0 = (static_cast<internal::u128>(hi) << 64) | lo;
      a.b = r.I64();
      node.push_back(a);
    }
  }
  return r.Finish("HIST");
}

// Anchors only for nodes and resources that exist, non-negative borrowing, values the arithmetic
// of qm/state/usage_history.h can hold (below 2^95), none after the last call.
absl::Status RestoreHistory(SavedHistory h, ClusterState& s) {
  if (!h.started && !h.anchors.empty()) return Corrupt("history: anchors but never started");
  if (h.started && !s.config.fair_sharing.historical.enabled)
    return Corrupt("history: kept, but the historical share is off");
  if (h.anchors.size() > s.tree.node_count())
    return Corrupt(fmt::format("history: {} nodes, the tree has {}", h.anchors.size(), s.tree.node_count()));
  for (size_t n = 0; n < h.anchors.size(); ++n) {
    if (h.anchors[n].size() > s.catalog.resource_count())
      return Corrupt(fmt::format("history: node {} has {} resources, the engine knows {}", n, h.anchors[n].size(),
                                 s.catalog.resource_count()));
    for (size_t k = 0; k < h.anchors[n].size(); ++k) {
      const UsageHistory::Anchor& a = h.anchors[n][k];
      if (a.b < 0 || (a.h0 >> 95) != 0 || a.t0 > h.last_us)
        return Corrupt(fmt::format("history: node {} resource {}: anchor out of range", n, k));
    }
  }
  s.history.Restore(h.started, h.last_us, std::move(h.anchors));
  return absl::OkStatus();
}

absl::Status ReadState(std::string_view payload, size_t base, uint32_t version, const EngineConfig& host,
                       EngineState& st) {
  ClusterState& s = st.s;
  Decoded p;
  Reader r(payload, base);
  {
    Reader b = r.Section("CONF");
    QM_RETURN_IF_ERROR(ReadConfig(b, version, host, &s.config));
  }
  {
    Reader b = r.Section("CLCK");
    s.manual_now = b.At();
    s.next_seq = b.U64();
    s.cycle = b.U64();
    s.next_event = b.U64();
    QM_RETURN_IF_ERROR(b.Finish("CLCK"));
  }
  {
    Reader b = r.Section("NAME");
    QM_RETURN_IF_ERROR(ReadNames(b, s));
  }
  {
    Reader b = r.Section("FLAV");
    const uint32_t n = b.Count("flavors");
    for (uint32_t i = 0; i < n && b.ok(); ++i) {
      FlavorState f;
      f.exists = b.Bool();
      f.spec = GetFlavorSpec(b);
      s.flavors.push_back(std::move(f));
    }
    QM_RETURN_IF_ERROR(b.Finish("FLAV"));
  }
  {
    Reader b = r.Section("TREE");
    QM_RETURN_IF_ERROR(ReadTree(b, s, &p));
  }
  {
    Reader b = r.Section("COHO");
    QM_RETURN_IF_ERROR(ReadCohorts(b, s));
  }
  {
    Reader b = r.Section("CLQU");
    QM_RETURN_IF_ERROR(ReadClusterQueues(b, s));
  }
  {
    Reader b = r.Section("NMSP");
    QM_RETURN_IF_ERROR(ReadNamespaces(b, s));
  }
  {
    Reader b = r.Section("LOCQ");
    QM_RETURN_IF_ERROR(ReadLocalQueues(b, s));
  }
  {
    Reader b = r.Section("PRIO");
    QM_RETURN_IF_ERROR(ReadPriorityClasses(b, s));
  }
  {
    Reader b = r.Section("SHAP");
    QM_RETURN_IF_ERROR(ReadShapes(b, s, &p));
  }
  {
    Reader b = r.Section("WKLD");
    QM_RETURN_IF_ERROR(ReadWorkloads(b, s, &p));
  }
  {
    Reader b = r.Section("PEND");
    QM_RETURN_IF_ERROR(ReadQueues(b, s, &p));
  }
  {
    Reader b = r.Section("THRS");
    QM_RETURN_IF_ERROR(ReadThrash(b, s));
  }
  SavedHistory history;
  if (version >= 5) {
    Reader b = r.Section("HIST");
    QM_RETURN_IF_ERROR(ReadHistory(b, &history));
  }
  if (r.ok() && !r.at_end()) r.Fail(fmt::format("{} bytes after the last section", r.remaining()));
  QM_RETURN_IF_ERROR(r.status());
  QM_RETURN_IF_ERROR(ValidateTree(s, p));
  QM_RETURN_IF_ERROR(ValidateObjects(s, p));
  QM_RETURN_IF_ERROR(ValidateWorkloads(s, p));
  QM_RETURN_IF_ERROR(ValidateThrash(s));
  QM_RETURN_IF_ERROR(Link(s, p));
  QM_RETURN_IF_ERROR(CheckTree(s));
  s.QueuesListed();  // derived, not saved: every queue is looked at by the first cycle
  return RestoreHistory(std::move(history), s);
}


}  // namespace
}  // namespace internal::snapshot

absl::StatusOr<Engine> Engine::Restore(std::string_view snapshot, const EngineConfig& host) {
  namespace sn = internal::snapshot;
  sn::Reader header(snapshot.substr(0, std::min(snapshot.size(), sn::kHeaderSize)), 0);
  const std::string_view magic(sn::kMagic, sizeof(sn::kMagic));
  if (snapshot.size() < magic.size() && magic.starts_with(snapshot))
    return absl::DataLossError(fmt::format("snapshot: truncated header ({} bytes)", snapshot.size()));
  if (!snapshot.starts_with(magic))
    return absl::InvalidArgumentError("snapshot: not a Quartermaster engine snapshot (bad magic)");
  for (size_t i = 0; i < sizeof(sn::kMagic); ++i) header.U8();
  const uint32_t version = header.U32();
  if (header.ok() && (version < sn::kOldestReadableVersion || version > sn::kFormatVersion))
    return absl::InvalidArgumentError(
        fmt::format("snapshot: format version {} is not supported (this build reads versions {} to {})", version,
                    sn::kOldestReadableVersion, sn::kFormatVersion));
  const uint32_t reserved = header.U32();
  const uint64_t len = header.U64();
  const uint64_t sum = header.U64();
  if (!header.ok()) return absl::DataLossError(fmt::format("snapshot: truncated header ({} bytes)", snapshot.size()));
  if (reserved != 0) return absl::DataLossError(fmt::format("snapshot: reserved header field is {}, not 0", reserved));
  const std::string_view payload = snapshot.substr(sn::kHeaderSize);
  if (len != payload.size())
    return absl::DataLossError(fmt::format("snapshot: the header announces {} payload bytes, {} are present", len, payload.size()));
  if (sn::Checksum(payload) != sum) return absl::DataLossError("snapshot: checksum mismatch (the snapshot is corrupted)");
  auto state = std::make_unique<internal::EngineState>(EngineConfig());
  QM_RETURN_IF_ERROR(sn::ReadState(payload, sn::kHeaderSize, version, host, *state));
  state->quota_floor_cycle = state->s.cycle;  // the checker cannot know older quota changes
  // Last, the engine's own self-check: the checks above cover each record, this one how records
  // relate (a pending workload's `active`, queue membership, candidate sets...). A state that fails
  // it is not one the engine could have saved (found by fuzz/snapshot_fuzzer).
  if (absl::Status st = state->CheckInvariants(); !st.ok())
    return absl::DataLossError(fmt::format("snapshot: inconsistent state: {}", std::string(st.message())));
  return Engine(std::move(state));
}

}  // namespace qm
