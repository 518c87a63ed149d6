// Engine snapshots: `Engine::Save` writes every member of the engine's `ClusterState` in the
// versioned binary format of docs/snapshot-format.md; `Engine::Restore` decodes it with bounds-checked
// reads, validates every cross-reference, rebuilds the lookup structures (indexes, pending and
// candidate sets) from the records in their saved order, and checks the quota tree against a
// recomputation. Ids, slots, free lists and every order come back as they were, so a restored engine
// decides exactly what the saved one would have decided, byte for byte.
//
// When a member is added to the state, this file and the format document must learn it: the
// `static_assert`s on the sizes of the state's structs below fail the build until then.
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

namespace qm {
namespace internal::snapshot {
namespace {

// Every member of these structs is saved. A new member changes the size: teach Save/Restore and
// docs/snapshot-format.md about it (and bump kFormatVersion if old snapshots can no longer be
// read), then update the size here. Checked on the platform the project is developed on only.
#if defined(__x86_64__) && defined(__GLIBCXX__) && !defined(_GLIBCXX_DEBUG) && !defined(_LIBCPP_VERSION)
// 256 since format 2: `anti_thrash` (96 bytes), saved in CONF.
// 312 since format 3: `wait_for_pods_ready` (56), saved at the end of CONF.
static_assert(sizeof(EngineConfig) == 312, "EngineConfig changed: update lib/adapter/snapshot.cc");
// 1416 since workloads live in a RecordStore (chunks, not one array): same records saved.
// 1584 since format 2: the config's `anti_thrash` (96) and `thrash` (72), saved in THRS.
// 1592: `host_running` (8), not state: null between calls, never saved.
// 1608: `pinned_now` (16), not state: set only while a query runs, never saved.
// 1664 since format 3: the config's `wait_for_pods_ready` (56).
static_assert(sizeof(ClusterState) == 1664, "ClusterState changed: update lib/adapter/snapshot.cc");
// 680 since the pending queues are grouped by equivalence class: the grouping is derived from the
// records on restore, nothing new is saved.
static_assert(sizeof(ClusterQueueState) == 680, "ClusterQueueState changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(ClusterQueueSpec) == 232, "ClusterQueueSpec changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(CohortState) == 144, "CohortState changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(LocalQueueState) == 144, "LocalQueueState changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(ResourceFlavorSpec) == 104, "ResourceFlavorSpec changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(WorkloadRecord) == 144, "WorkloadRecord changed: update lib/adapter/snapshot.cc");
// 184 since format 2: `preemptions` (a pointer), saved at the end of the extras in WKLD.
// 208 since format 3: `requeue_count` and `requeue_at`, saved after the preemption history.
static_assert(sizeof(WorkloadExtras) == 208, "WorkloadExtras changed: update lib/adapter/snapshot.cc");
// 328 since format 3: `pods_ready`, `pods_recovering`, `pods_not_ready_since`, saved after
// `evicted_at`.
static_assert(sizeof(AdmissionRecord) == 328, "AdmissionRecord changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(ScanProgress) == 48, "ScanProgress changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(PodSetShape) == 208, "PodSetShape changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(WorkloadShape) == 40, "WorkloadShape changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(QuotaTree::Node) == 128, "QuotaTree::Node changed: update lib/adapter/snapshot.cc");
// 80 with `usage_exact`, which is not saved: Restore rebuilds it from the admissions (CheckTree).
static_assert(sizeof(FrQuota) == 80, "FrQuota changed: update lib/adapter/snapshot.cc");
// Format 2: the anti-thrash configuration, preemption histories and the detector's memory.
static_assert(sizeof(AntiThrashConfig) == 96, "AntiThrashConfig changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(MinRuntimeRule) == 80, "MinRuntimeRule changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(PreemptionHistory) == 88, "PreemptionHistory changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(PreemptionHistory::Entry) == 56, "PreemptionHistory::Entry changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(ThrashState) == 72, "ThrashState changed: update lib/adapter/snapshot.cc");
static_assert(sizeof(ThrashState::Edge) == 16, "ThrashState::Edge changed: update lib/adapter/snapshot.cc");
#endif

// ---- Specs ---------------------------------------------------------------------------------------

void PutLabels(Writer& w, const Labels& labels) {
  w.Count(labels.size());
  for (const auto& [k, v] : labels) {
    w.Str(k);
    w.Str(v);
  }
}
Labels GetLabels(Reader& r) {
  Labels out;
  const uint32_t n = r.Count("labels");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    std::string k = r.Str();
    std::string v = r.Str();
    out.emplace_back(std::move(k), std::move(v));
  }
  return out;
}

void PutStrings(Writer& w, const std::vector<std::string>& list) {
  w.Count(list.size());
  for (const std::string& s : list) w.Str(s);
}
std::vector<std::string> GetStrings(Reader& r, std::string_view what) {
  std::vector<std::string> out;
  const uint32_t n = r.Count(what);
  for (uint32_t i = 0; i < n && r.ok(); ++i) out.push_back(r.Str());
  return out;
}

void PutOptI32(Writer& w, const std::optional<int32_t>& v) {
  w.Bool(v.has_value());
  if (v) w.I32(*v);
}
std::optional<int32_t> GetOptI32(Reader& r) {
  if (!r.Bool()) return std::nullopt;
  return r.I32();
}
void PutOptI64(Writer& w, const std::optional<int64_t>& v) {
  w.Bool(v.has_value());
  if (v) w.I64(*v);
}
std::optional<int64_t> GetOptI64(Reader& r) {
  if (!r.Bool()) return std::nullopt;
  return r.I64();
}

void PutSelector(Writer& w, const LabelSelector& s) {
  PutLabels(w, s.match_labels);
  w.Count(s.match_expressions.size());
  for (const LabelSelectorRequirement& e : s.match_expressions) {
    w.Str(e.key);
    w.Enum(e.op);
    PutStrings(w, e.values);
  }
}
LabelSelector GetSelector(Reader& r) {
  LabelSelector s;
  s.match_labels = GetLabels(r);
  const uint32_t n = r.Count("matchExpressions");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    LabelSelectorRequirement e;
    e.key = r.Str();
    e.op = r.Enum(LabelSelectorRequirement::Operator::kDoesNotExist, "label selector operator");
    e.values = GetStrings(r, "label selector values");
    s.match_expressions.push_back(std::move(e));
  }
  return s;
}

void PutTerms(Writer& w, const std::vector<NodeSelectorTerm>& terms) {
  w.Count(terms.size());
  for (const NodeSelectorTerm& t : terms) {
    w.Count(t.match_expressions.size());
    for (const NodeSelectorRequirement& e : t.match_expressions) {
      w.Str(e.key);
      w.Enum(e.op);
      PutStrings(w, e.values);
    }
  }
}
std::vector<NodeSelectorTerm> GetTerms(Reader& r) {
  std::vector<NodeSelectorTerm> out;
  const uint32_t n = r.Count("node selector terms");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    NodeSelectorTerm t;
    const uint32_t m = r.Count("node selector requirements");
    for (uint32_t j = 0; j < m && r.ok(); ++j) {
      NodeSelectorRequirement e;
      e.key = r.Str();
      e.op = r.Enum(NodeSelectorRequirement::Operator::kLt, "node selector operator");
      e.values = GetStrings(r, "node selector values");
      t.match_expressions.push_back(std::move(e));
    }
    out.push_back(std::move(t));
  }
  return out;
}

void PutTolerations(Writer& w, const std::vector<Toleration>& list) {
  w.Count(list.size());
  for (const Toleration& t : list) {
    w.Str(t.key);
    w.Enum(t.op);
    w.Str(t.value);
    w.Bool(t.effect.has_value());
    if (t.effect) w.Enum(*t.effect);
  }
}
std::vector<Toleration> GetTolerations(Reader& r) {
  std::vector<Toleration> out;
  const uint32_t n = r.Count("tolerations");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    Toleration t;
    t.key = r.Str();
    t.op = r.Enum(Toleration::Operator::kExists, "toleration operator");
    t.value = r.Str();
    if (r.Bool()) t.effect = r.Enum(TaintEffect::kNoExecute, "toleration effect");
    out.push_back(std::move(t));
  }
  return out;
}

void PutFlavorSpec(Writer& w, const ResourceFlavorSpec& f) {
  w.Str(f.name);
  PutLabels(w, f.node_labels);
  w.Count(f.node_taints.size());
  for (const Taint& t : f.node_taints) {
    w.Str(t.key);
    w.Str(t.value);
    w.Enum(t.effect);
  }
  PutTolerations(w, f.tolerations);
}
ResourceFlavorSpec GetFlavorSpec(Reader& r) {
  ResourceFlavorSpec f;
  f.name = r.Str();
  f.node_labels = GetLabels(r);
  const uint32_t n = r.Count("taints");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    Taint t;
    t.key = r.Str();
    t.value = r.Str();
    t.effect = r.Enum(TaintEffect::kNoExecute, "taint effect");
    f.node_taints.push_back(std::move(t));
  }
  f.tolerations = GetTolerations(r);
  return f;
}

void PutGroups(Writer& w, const std::vector<ResourceGroupSpec>& groups) {
  w.Count(groups.size());
  for (const ResourceGroupSpec& g : groups) {
    PutStrings(w, g.covered_resources);
    w.Count(g.flavors.size());
    for (const FlavorQuotasSpec& f : g.flavors) {
      w.Str(f.name);
      w.Count(f.resources.size());
      for (const ResourceQuotaSpec& q : f.resources) {
        w.Str(q.name);
        w.I64(q.nominal_quota);
        PutOptI64(w, q.borrowing_limit);
        PutOptI64(w, q.lending_limit);
      }
    }
  }
}
std::vector<ResourceGroupSpec> GetGroups(Reader& r) {
  std::vector<ResourceGroupSpec> out;
  const uint32_t n = r.Count("resource groups");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    ResourceGroupSpec g;
    g.covered_resources = GetStrings(r, "covered resources");
    const uint32_t nf = r.Count("resource group flavors");
    for (uint32_t j = 0; j < nf && r.ok(); ++j) {
      FlavorQuotasSpec f;
      f.name = r.Str();
      const uint32_t nq = r.Count("flavor quotas");
      for (uint32_t k = 0; k < nq && r.ok(); ++k) {
        ResourceQuotaSpec q;
        q.name = r.Str();
        q.nominal_quota = r.I64();
        q.borrowing_limit = GetOptI64(r);
        q.lending_limit = GetOptI64(r);
        f.resources.push_back(std::move(q));
      }
      g.flavors.push_back(std::move(f));
    }
    out.push_back(std::move(g));
  }
  return out;
}

void PutClusterQueueSpec(Writer& w, const ClusterQueueSpec& s) {
  w.Str(s.name);
  w.Str(s.cohort);
  w.Bool(s.namespace_selector.has_value());
  if (s.namespace_selector) PutSelector(w, *s.namespace_selector);
  w.Enum(s.queueing_strategy);
  PutGroups(w, s.resource_groups);
  w.Enum(s.flavor_fungibility.when_can_borrow);
  w.Enum(s.flavor_fungibility.when_can_preempt);
  w.Bool(s.flavor_fungibility.preference.has_value());
  if (s.flavor_fungibility.preference) w.Enum(*s.flavor_fungibility.preference);
  w.Enum(s.preemption.within_cluster_queue);
  w.Enum(s.preemption.reclaim_within_cohort);
  w.Enum(s.preemption.borrow_within_cohort.policy);
  PutOptI32(w, s.preemption.borrow_within_cohort.max_priority_threshold);
  w.I64(s.fair_sharing_weight_milli);
  w.Enum(s.stop_policy);
  PutLabels(w, s.labels);
}
ClusterQueueSpec GetClusterQueueSpec(Reader& r) {
  ClusterQueueSpec s;
  s.name = r.Str();
  s.cohort = r.Str();
  if (r.Bool()) s.namespace_selector = GetSelector(r);
  s.queueing_strategy = r.Enum(QueueingStrategy::kStrictFIFO, "queueingStrategy");
  s.resource_groups = GetGroups(r);
  s.flavor_fungibility.when_can_borrow = r.Enum(FungibilityPolicy::kTryNextFlavor, "whenCanBorrow");
  s.flavor_fungibility.when_can_preempt = r.Enum(FungibilityPolicy::kTryNextFlavor, "whenCanPreempt");
  if (r.Bool())
    s.flavor_fungibility.preference = r.Enum(FungibilityPreference::kPreemptionOverBorrowing, "preference");
  s.preemption.within_cluster_queue =
      r.Enum(WithinClusterQueuePolicy::kLowerOrNewerEqualPriority, "withinClusterQueue");
  s.preemption.reclaim_within_cohort = r.Enum(ReclaimWithinCohortPolicy::kAny, "reclaimWithinCohort");
  s.preemption.borrow_within_cohort.policy = r.Enum(BorrowWithinCohortPolicy::kLowerPriority, "borrowWithinCohort");
  s.preemption.borrow_within_cohort.max_priority_threshold = GetOptI32(r);
  s.fair_sharing_weight_milli = r.I64();
  s.stop_policy = r.Enum(StopPolicy::kHoldAndDrain, "stopPolicy");
  s.labels = GetLabels(r);
  return s;
}

void PutPodSet(Writer& w, const PodSetShape& ps) {
  w.Str(ps.name);
  w.I32(ps.count);
  w.I32(ps.min_count);
  w.Count(ps.per_pod.size());
  for (const auto& [res, v] : ps.per_pod) {
    w.U32(res.value);
    w.I64(v);
  }
  PutLabels(w, ps.node_selector);
  w.Bool(ps.required_node_affinity.has_value());
  if (ps.required_node_affinity) PutTerms(w, *ps.required_node_affinity);
  PutTolerations(w, ps.tolerations);
}
PodSetShape GetPodSet(Reader& r) {
  PodSetShape ps;
  ps.name = r.Str();
  ps.count = r.I32();
  ps.min_count = r.I32();
  const uint32_t n = r.Count("pod set requests");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    const ResourceId res(r.U32());
    const int64_t v = r.I64();
    ps.per_pod.emplace_back(res, v);
  }
  ps.node_selector = GetLabels(r);
  if (r.Bool()) ps.required_node_affinity = GetTerms(r);
  ps.tolerations = GetTolerations(r);
  return ps;
}

// Format 3: Kueue's waitForPodsReady, at the end of CONF.
void PutWaitForPodsReady(Writer& w, const WaitForPodsReadyConfig& c) {
  w.Bool(c.enabled);
  w.Period(c.timeout);
  w.Bool(c.recovery_timeout.has_value());
  if (c.recovery_timeout) w.Period(*c.recovery_timeout);
  w.Bool(c.block_admission);
  w.Enum(c.requeuing_timestamp);
  w.Bool(c.backoff_limit_count.has_value());
  if (c.backoff_limit_count) w.I32(*c.backoff_limit_count);
  w.I32(c.backoff_base_seconds);
  w.I32(c.backoff_max_seconds);
}
WaitForPodsReadyConfig GetWaitForPodsReady(Reader& r) {
  WaitForPodsReadyConfig c;
  c.enabled = r.Bool();
  c.timeout = r.Period();
  if (r.Bool()) c.recovery_timeout = r.Period();
  c.block_admission = r.Bool();
  c.requeuing_timestamp = r.Enum(RequeuingTimestamp::kCreation, "requeuing timestamp");
  if (r.Bool()) c.backoff_limit_count = r.I32();
  c.backoff_base_seconds = r.I32();
  c.backoff_max_seconds = r.I32();
  return c;
}

void PutAntiThrash(Writer& w, const AntiThrashConfig& a) {
  w.Count(a.min_runtime.size());
  for (const MinRuntimeRule& rule : a.min_runtime) {
    w.Period(rule.duration);
    w.Count(rule.reasons.size());
    for (PreemptionReason reason : rule.reasons) w.Enum(reason);
    PutStrings(w, rule.priority_classes);
    PutStrings(w, rule.cluster_queues);
  }
  w.Bool(a.loop_free_fair_sharing);
  w.Period(a.borrow_backoff.base);
  w.Period(a.borrow_backoff.max);
  w.Period(a.requeue_backoff.base);
  w.Period(a.requeue_backoff.max);
  w.Period(a.preemption_backoff.base);
  w.Period(a.preemption_backoff.max);
  w.Bool(a.cycle_detection.enabled);
  w.Period(a.cycle_detection.window);
}
AntiThrashConfig GetAntiThrash(Reader& r) {
  AntiThrashConfig a;
  const uint32_t n = r.Count("minimum runtime rules");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    MinRuntimeRule rule;
    rule.duration = r.Period();
    const uint32_t reasons = r.Count("minimum runtime reasons");
    for (uint32_t k = 0; k < reasons && r.ok(); ++k)
      rule.reasons.push_back(r.Enum(PreemptionReason::kInCohortReclaimWhileBorrowing, "minimum runtime reason"));
    rule.priority_classes = GetStrings(r, "minimum runtime priority classes");
    rule.cluster_queues = GetStrings(r, "minimum runtime ClusterQueues");
    a.min_runtime.push_back(std::move(rule));
  }
  a.loop_free_fair_sharing = r.Bool();
  a.borrow_backoff.base = r.Period();
  a.borrow_backoff.max = r.Period();
  a.requeue_backoff.base = r.Period();
  a.requeue_backoff.max = r.Period();
  a.preemption_backoff.base = r.Period();
  a.preemption_backoff.max = r.Period();
  a.cycle_detection.enabled = r.Bool();
  a.cycle_detection.window = r.Period();
  return a;
}

// `by_reason` is saved as exactly this many counts.
static_assert(kPreemptionReasons == 4, "a new PreemptionReason changes the snapshot format");

void PutHistory(Writer& w, const PreemptionHistory& h) {
  w.U32(h.preempted);
  for (uint32_t n : h.by_reason) w.U32(n);
  w.U32(h.caused);
  w.Period(h.held_lost);
  w.Count(h.recent.size());
  for (const PreemptionHistory::Entry& e : h.recent) {
    w.At(e.at);
    w.Handle(e.preemptor);
    w.Str(e.preemptor_name);
    w.U32(e.preemptor_cq.value);
    w.Enum(e.reason);
  }
  w.At(h.borrow_allowed_at);
  w.At(h.admit_allowed_at);
  w.U32(h.rounds_unadmitted);
  w.At(h.preempt_allowed_at);
}
std::unique_ptr<PreemptionHistory> GetHistory(Reader& r) {
  auto h = std::make_unique<PreemptionHistory>();
  h->preempted = r.U32();
  for (uint32_t& n : h->by_reason) n = r.U32();
  h->caused = r.U32();
  h->held_lost = r.Period();
  const uint32_t n = r.Count("recent preemptions");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    PreemptionHistory::Entry e;
    e.at = r.At();
    e.preemptor = r.Handle();
    e.preemptor_name = r.Str();
    e.preemptor_cq = ClusterQueueId(r.U32());
    e.reason = r.Enum(PreemptionReason::kInCohortReclaimWhileBorrowing, "recent preemption reason");
    h->recent.push_back(std::move(e));
  }
  h->borrow_allowed_at = r.At();
  h->admit_allowed_at = r.At();
  h->rounds_unadmitted = r.U32();
  h->preempt_allowed_at = r.At();
  return h;
}

// ---- The state -----------------------------------------------------------------------------------

void PutIds(Writer& w, const std::vector<uint32_t>& ids) {
  w.Count(ids.size());
  for (uint32_t id : ids) w.U32(id);
}
std::vector<uint32_t> GetIds(Reader& r, std::string_view what) {
  std::vector<uint32_t> out;
  const uint32_t n = r.Count(what);
  for (uint32_t i = 0; i < n && r.ok(); ++i) out.push_back(r.U32());
  return out;
}

template <class Set>
std::vector<uint32_t> IdsOf(const Set& set) {
  std::vector<uint32_t> out;
  for (const auto& k : set) out.push_back(k.id.value);
  return out;
}

template <class IdT>
void PutNames(Writer& w, const Interner<IdT>& names) {
  w.Count(names.size());
  for (uint32_t i = 0; i < names.size(); ++i) w.Str(names.Name(IdT(i)));
}

void WriteState(const ClusterState& s, Writer& w) {
  // CONF: the configuration, less the host's functions.
  size_t sec = w.BeginSection("CONF");
  w.Bool(s.config.fair_sharing.enabled);
  w.Count(s.config.fair_sharing.preemption_strategies.size());
  for (FairSharingStrategy st : s.config.fair_sharing.preemption_strategies) w.Enum(st);
  w.Enum(s.config.message_style);
  w.Count(FeatureGateTable().size());
  for (size_t i = 0; i < FeatureGateTable().size(); ++i) {
    w.Str(FeatureGateTable()[i].name);
    w.Bool(s.config.features.EnabledAt(i));
  }
  PutAntiThrash(w, s.config.anti_thrash);
  PutWaitForPodsReady(w, s.config.wait_for_pods_ready);
  w.EndSection(sec);

  // CLCK: the manual clock and the counters.
  sec = w.BeginSection("CLCK");
  w.At(s.manual_now);
  w.U64(s.next_seq);
  w.U64(s.cycle);
  w.U64(s.next_event);
  w.EndSection(sec);

  // NAME: every interning table, in id order.
  sec = w.BeginSection("NAME");
  w.Count(s.catalog.resource_count());
  for (uint32_t i = 0; i < s.catalog.resource_count(); ++i) w.Str(s.catalog.ResourceName(ResourceId(i)));
  w.Count(s.catalog.flavor_count());
  for (uint32_t i = 0; i < s.catalog.flavor_count(); ++i) w.Str(s.catalog.FlavorName(FlavorId(i)));
  w.Count(s.catalog.fr_count());
  for (uint32_t i = 0; i < s.catalog.fr_count(); ++i) {
    w.U32(s.catalog.FrFlavor(FrId(i)).value);
    w.U32(s.catalog.FrResource(FrId(i)).value);
  }
  PutNames(w, s.cq_names);
  PutNames(w, s.cohort_names);
  PutNames(w, s.namespaces_names);
  PutNames(w, s.queue_names);
  w.EndSection(sec);

  // FLAV: flavors by FlavorId.
  sec = w.BeginSection("FLAV");
  w.Count(s.flavors.size());
  for (const FlavorState& f : s.flavors) {
    w.Bool(f.exists);
    PutFlavorSpec(w, f.spec);
  }
  w.EndSection(sec);

  // TREE: the quota tree's nodes, every field.
  sec = w.BeginSection("TREE");
  w.Count(s.tree.node_count());
  for (NodeIndex n = 0; n < s.tree.node_count(); ++n) {
    const QuotaTree::Node& node = s.tree.node(n);
    w.U32(node.parent);
    w.Bool(node.is_cluster_queue);
    w.U32(node.owner);
    PutIds(w, node.children);
    w.I32(node.height);
    w.I64(node.weight_milli);
    w.Count(node.fr.size());
    for (const FrQuota& q : node.fr) {
      w.I64(q.nominal);
      w.I64(q.borrowing_limit);
      w.I64(q.lending_limit);
      w.I64(q.subtree_quota);
      w.I64(q.local_quota);
      w.I64(q.potential);
      w.I64(q.usage);
    }
    w.Count(node.borrowed.size());
    for (WideAmount v : node.borrowed) w.I64(ClampAmount(v));  // exact sums are rebuilt on restore
    w.Count(node.potential_sum.size());
    for (int64_t v : node.potential_sum) w.I64(v);
  }
  w.EndSection(sec);

  // COHO: cohorts by CohortId.
  sec = w.BeginSection("COHO");
  w.Count(s.cohorts.size());
  for (const CohortState& c : s.cohorts) {
    w.Bool(c.exists);
    w.Str(c.name);
    w.Str(c.spec.name);
    w.Str(c.spec.parent);
    PutGroups(w, c.spec.resource_groups);
    w.I64(c.spec.fair_sharing_weight_milli);
    w.U32(c.node);
    w.U32(c.refs);
  }
  w.EndSection(sec);

  // CLQU: ClusterQueues by ClusterQueueId (their queues are in PEND), then the name order.
  sec = w.BeginSection("CLQU");
  w.Count(s.cqs.size());
  for (const ClusterQueueState& cq : s.cqs) {
    w.Bool(cq.exists);
    w.Str(cq.name);
    PutClusterQueueSpec(w, cq.spec);
    w.U32(cq.node);
    w.U32(cq.cohort.value);
    w.Count(cq.groups.size());
    for (const CqResourceGroup& g : cq.groups) {
      w.Count(g.covered.size());
      for (ResourceId r : g.covered) w.U32(r.value);
      w.Count(g.flavors.size());
      for (const CqFlavor& f : g.flavors) {
        w.U32(f.flavor.value);
        w.Count(f.frs.size());
        for (FrId fr : f.frs) w.U32(fr.value);
      }
    }
    w.Count(cq.group_of.size());
    for (const auto& [r, g] : cq.group_of) {
      w.U32(r.value);
      w.U32(g);
    }
    w.Bool(cq.covers_pods);
    w.Bool(cq.active);
    w.Str(cq.active_message);
    w.U64(cq.generation);
  }
  w.Count(s.cqs_by_name.size());
  for (ClusterQueueId id : s.cqs_by_name) w.U32(id.value);
  w.EndSection(sec);

  // NMSP: namespaces by NamespaceId.
  sec = w.BeginSection("NMSP");
  w.Count(s.namespaces.size());
  for (const NamespaceState& ns : s.namespaces) {
    w.Bool(ns.exists);
    PutLabels(w, ns.labels);
  }
  w.EndSection(sec);

  // LOCQ: LocalQueues by LocalQueueId.
  sec = w.BeginSection("LOCQ");
  w.Count(s.local_queues.size());
  for (const LocalQueueState& lq : s.local_queues) {
    w.Bool(lq.exists);
    w.Str(lq.spec.namespace_);
    w.Str(lq.spec.name);
    w.Str(lq.spec.cluster_queue);
    w.Enum(lq.spec.stop_policy);
    PutLabels(w, lq.spec.labels);
    w.U32(lq.ns.value);
  }
  w.EndSection(sec);

  // PRIO: priority classes, by name.
  sec = w.BeginSection("PRIO");
  {
    std::map<std::string_view, const WorkloadPriorityClassSpec*> wpcs;
    for (const auto& [name, pc] : s.workload_priority_classes) wpcs.emplace(name, &pc);
    w.Count(wpcs.size());
    for (const auto& [name, pc] : wpcs) {
      w.Str(name);
      w.Str(pc->name);
      w.I32(pc->value);
      w.Str(pc->description);
    }
    std::map<std::string_view, const PriorityClassSpec*> pcs;
    for (const auto& [name, pc] : s.priority_classes) pcs.emplace(name, &pc);
    w.Count(pcs.size());
    for (const auto& [name, pc] : pcs) {
      w.Str(name);
      w.Str(pc->name);
      w.I32(pc->value);
      w.Bool(pc->global_default);
      w.Str(pc->description);
    }
  }
  w.EndSection(sec);

  // SHAP: shapes by ShapeId, the free list, and the hash index by hash.
  sec = w.BeginSection("SHAP");
  w.Count(s.shapes.size());
  for (const WorkloadShape& sh : s.shapes) {
    w.U32(sh.refs);
    w.U64(sh.hash);
    w.Count(sh.pod_sets.size());
    for (const PodSetShape& ps : sh.pod_sets) PutPodSet(w, ps);
  }
  PutIds(w, s.free_shapes);
  {
    std::map<uint64_t, const boost::container::small_vector<ShapeId, 1>*> index;
    for (const auto& [hash, bucket] : s.shape_index) index.emplace(hash, &bucket);
    w.Count(index.size());
    for (const auto& [hash, bucket] : index) {
      w.U64(hash);
      w.Count(bucket->size());
      for (ShapeId id : *bucket) w.U32(id);
    }
  }
  w.EndSection(sec);

  // WKLD: workload records by WorkloadId (deleted slots included), the free list, `unqueued`.
  sec = w.BeginSection("WKLD");
  w.Count(s.workloads.size());
  for (const WorkloadRecord& r : s.workloads) {
    w.Bool(r.deleted);
    w.U32(r.generation);
    w.U32(r.ns.value);
    w.Str(r.name);
    w.Bool(!r.uid.empty());
    if (!r.uid.empty()) w.Str(r.uid);
    w.Bool(r.extras != nullptr);
    if (r.extras) {
      const WorkloadExtras& x = *r.extras;
      w.Str(x.job_uid);
      PutLabels(w, x.labels);
      w.Enum(x.priority_class.source);
      w.Str(x.priority_class.name);
      w.Count(x.conditions.size());
      for (const ConditionSpec& c : x.conditions) {
        w.Str(c.type);
        w.Bool(c.status);
        w.Str(c.reason);
        w.Str(c.message);
        w.Bool(c.last_transition_time.has_value());
        if (c.last_transition_time) w.At(*c.last_transition_time);
      }
      w.Count(x.reclaimable_pods.size());
      for (const auto& [name, n] : x.reclaimable_pods) {
        w.Str(name);
        w.I32(n);
      }
      w.Str(x.preemption_message);
      w.Bool(x.preemptions != nullptr);
      if (x.preemptions) PutHistory(w, *x.preemptions);
      w.I32(x.requeue_count);
      w.Bool(x.requeue_at.has_value());
      if (x.requeue_at) w.At(*x.requeue_at);
    }
    w.U32(r.queue_name.value);
    w.U32(r.shape);
    w.I32(r.priority);
    w.Bool(r.active);
    w.Enum(r.state);
    w.Enum(r.place);
    w.At(r.creation_time);
    w.At(r.queue_time);
    w.U64(r.seq);
    w.U32(r.queued_in.value);
    w.Str(r.reason);
    w.Str(r.message);
    w.Bool(r.admission != nullptr);
    if (r.admission) {
      const AdmissionRecord& a = *r.admission;
      w.U32(a.cluster_queue.value);
      w.Count(a.pod_sets.size());
      for (const AdmissionRecord::PodSet& ps : a.pod_sets) {
        w.I32(ps.count);
        w.Count(ps.flavors.size());
        for (const auto& [res, f] : ps.flavors) {
          w.U32(res.value);
          w.U32(f.value);
        }
        w.Count(ps.usage.size());
        for (const auto& [res, v] : ps.usage) {
          w.U32(res.value);
          w.I64(v);
        }
        w.I32(ps.reclaimable);
      }
      w.Count(a.usage.size());
      for (const auto& [fr, v] : a.usage) {
        w.U32(fr.value);
        w.I64(v);
      }
      w.I32(a.borrow_level);
      w.At(a.reserved_at);
      w.U64(a.admitted_cycle);
      w.Bool(a.evicted);
      w.At(a.evicted_at);
      w.Bool(a.pods_ready);
      w.Bool(a.pods_recovering);
      w.At(a.pods_not_ready_since);
    }
    w.Bool(r.scan != nullptr);
    if (r.scan) {
      const ScanProgress& sp = *r.scan;
      w.Count(sp.last_tried.size());
      for (const auto& ps : sp.last_tried) {
        w.Count(ps.size());
        for (const auto& [res, idx] : ps) {
          w.U32(res.value);
          w.I32(idx);
        }
      }
      w.U64(sp.generation);
      w.U64(sp.cycle);
      w.U64(sp.equivalence);
    }
    w.Bool(r.preemption_reason.has_value());
    if (r.preemption_reason) w.Enum(*r.preemption_reason);
    w.U32(r.preempted_by.value);
  }
  w.Count(s.free_workloads.size());
  for (WorkloadId id : s.free_workloads) w.U32(id.value);
  w.Count(s.unqueued.size());
  for (uint64_t k : s.unqueued) w.U64(k);
  w.EndSection(sec);

  // PEND: per ClusterQueue, its pending queues, blocked classes and candidate sets, in set order.
  sec = w.BeginSection("PEND");
  w.Count(s.cqs.size());
  for (const ClusterQueueState& cq : s.cqs) {
    PutIds(w, IdsOf(cq.heap));
    PutIds(w, IdsOf(cq.inadmissible));
    w.U32(cq.sticky_preemptor.value);
    std::vector<uint64_t> blocked(cq.blocked.begin(), cq.blocked.end());
    std::sort(blocked.begin(), blocked.end());
    w.Count(blocked.size());
    for (uint64_t k : blocked) w.U64(k);
    PutIds(w, IdsOf(cq.admitted));
    PutIds(w, IdsOf(cq.evicting));
  }
  w.EndSection(sec);

  // THRS: the anti-thrash timers and the cycle detector's memory.
  sec = w.BeginSection("THRS");
  w.Count(s.thrash.timers.size());
  for (const auto& [at, handle] : s.thrash.timers) {
    w.At(Time{at});
    w.Handle(WorkloadHandle::Unpack(handle));
  }
  w.Count(s.thrash.edges.size());
  for (const std::vector<ThrashState::Edge>& out : s.thrash.edges) {
    w.Count(out.size());
    for (const ThrashState::Edge& e : out) {
      w.U32(e.to.value);
      w.At(e.at);
    }
  }
  w.Count(s.thrash.reported_rings.size());
  for (const auto& [ring, at] : s.thrash.reported_rings) {
    PutIds(w, ring);
    w.At(at);
  }
  w.EndSection(sec);
}

// ---- Restore ---------------------------------------------------------------------------------------

absl::Status Corrupt(std::string_view what) { return absl::DataLossError(fmt::format("snapshot: {}", what)); }

// The parts decoded before they can be linked: node fields, queue memberships.
struct Decoded {
  std::vector<QuotaTree::Node> nodes;
  struct Queues {
    std::vector<uint32_t> heap, inadmissible, admitted, evicting;
  };
  std::vector<Queues> queues;
  std::vector<std::pair<uint64_t, std::vector<uint32_t>>> shape_index;
};

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

absl::Status ReadConfig(Reader& r, const EngineConfig& host, EngineConfig* config) {
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

absl::Status ReadWorkloads(Reader& r, ClusterState& s) {
  const uint32_t n = r.Count("workloads");
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    WorkloadRecord& w = s.workloads.emplace_back();
    w.deleted = r.Bool();
    w.generation = r.U32();
    w.ns = NamespaceId(r.U32());
    w.name = r.Str();
    if (r.Bool()) w.uid = r.Str();
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
    const std::string reason = r.Str();
    w.reason = reason.empty() ? "" : s.InternReason(reason);
    w.message = r.Str();
    if (r.Bool()) {
      AdmissionPtr a = s.NewAdmission();
      a->cluster_queue = ClusterQueueId(r.U32());
      const uint32_t ps = r.Count("admission pod sets");
      for (uint32_t k = 0; k < ps && r.ok(); ++k) {
        AdmissionRecord::PodSet& out = a->pod_sets.emplace_back();
        out.count = r.I32();
        const uint32_t nf = r.Count("admission flavors");
        for (uint32_t j = 0; j < nf && r.ok(); ++j) {
          const ResourceId res(r.U32());
          const FlavorId f(r.U32());
          out.flavors.emplace_back(res, f);
        }
        const uint32_t nu = r.Count("admission pod set usage");
        for (uint32_t j = 0; j < nu && r.ok(); ++j) {
          const ResourceId res(r.U32());
          const int64_t v = r.I64();
          out.usage.emplace_back(res, v);
        }
        out.reclaimable = r.I32();
      }
      const uint32_t nu = r.Count("admission usage");
      for (uint32_t j = 0; j < nu && r.ok(); ++j) {
        const FrId fr(r.U32());
        const int64_t v = r.I64();
        a->usage.emplace_back(fr, v);
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

// ---- Validation and linking --------------------------------------------------------------------

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

absl::Status ValidateWorkloads(const ClusterState& s, const Decoded& p) {
  const uint32_t resources = s.catalog.resource_count(), flavors = s.catalog.flavor_count(), frs = s.catalog.fr_count();
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
      for (const AdmissionRecord::PodSet& ps : a.pod_sets) {
        if (ps.count < 0 || ps.reclaimable < 0 || ps.reclaimable > ps.count) return where("admitted count out of range");
        for (size_t k = 0; k < ps.flavors.size(); ++k)
          if (ps.flavors[k].first.value >= resources || ps.flavors[k].second.value >= flavors ||
              (k > 0 && ps.flavors[k - 1].first >= ps.flavors[k].first))
            return where("admission flavors out of range or not sorted");
        for (size_t k = 0; k < ps.usage.size(); ++k)
          if (ps.usage[k].first.value >= resources || ps.usage[k].second < 0 ||
              (k > 0 && ps.usage[k - 1].first >= ps.usage[k].first))
            return where("admission usage out of range or not sorted");
      }
      for (size_t k = 0; k < a.usage.size(); ++k)
        if (a.usage[k].first.value >= frs || a.usage[k].second < 0 || (k > 0 && a.usage[k - 1].first >= a.usage[k].first))
          return where("admission slots out of range or not sorted");
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
    const uint32_t id = static_cast<uint32_t>(k & 0xffffffffu);
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
      return [&s, &queue](WorkloadId id) { queue.insert(PendingKeyOf(s, id), PendingClassOf(s.wl(id))); };
    };
    const auto candidate_into = [&](CandidateSet& set) {
      return [&s, &set](WorkloadId id) { set.insert(CandidateKeyOf(s, id)); };
    };
    QM_RETURN_IF_ERROR(Fill(cq.heap, q.heap, pending_into(cq.heap), "active queue", cq.name));
    QM_RETURN_IF_ERROR(Fill(cq.inadmissible, q.inadmissible, pending_into(cq.inadmissible), "inadmissible set", cq.name));
    QM_RETURN_IF_ERROR(Fill(cq.admitted, q.admitted, candidate_into(cq.admitted), "admitted set", cq.name));
    QM_RETURN_IF_ERROR(Fill(cq.evicting, q.evicting, candidate_into(cq.evicting), "evicting set", cq.name));
  }
  return absl::OkStatus();
}

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

// The saved usage is what the admissions add up to, and the derived values of every tree that holds
// a queue or cohort in use are what `Recompute` gives.
// The snapshot holds usage clamped to int64; once it agrees, the exact sums (quota_tree.h) are
// rebuilt from the admissions and every tree recomputed from them.
absl::Status CheckTree(ClusterState& s) {
  std::vector<std::vector<WideAmount>> usage(s.cqs.size(), std::vector<WideAmount>(s.catalog.fr_count(), 0));
  for (const WorkloadRecord& w : s.workloads) {
    if (w.deleted || !w.admission) continue;
    for (const auto& [fr, v] : w.admission->usage) usage[w.admission->cluster_queue.value][fr.value] += v;
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

absl::Status ReadState(std::string_view payload, size_t base, const EngineConfig& host, EngineState& st) {
  ClusterState& s = st.s;
  Decoded p;
  Reader r(payload, base);
  {
    Reader b = r.Section("CONF");
    QM_RETURN_IF_ERROR(ReadConfig(b, host, &s.config));
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
    QM_RETURN_IF_ERROR(ReadWorkloads(b, s));
  }
  {
    Reader b = r.Section("PEND");
    QM_RETURN_IF_ERROR(ReadQueues(b, s, &p));
  }
  {
    Reader b = r.Section("THRS");
    QM_RETURN_IF_ERROR(ReadThrash(b, s));
  }
  if (r.ok() && !r.at_end()) r.Fail(fmt::format("{} bytes after the last section", r.remaining()));
  QM_RETURN_IF_ERROR(r.status());
  QM_RETURN_IF_ERROR(ValidateTree(s, p));
  QM_RETURN_IF_ERROR(ValidateObjects(s, p));
  QM_RETURN_IF_ERROR(ValidateWorkloads(s, p));
  QM_RETURN_IF_ERROR(ValidateThrash(s));
  QM_RETURN_IF_ERROR(Link(s, p));
  return CheckTree(s);
}

}  // namespace
}  // namespace internal::snapshot

absl::StatusOr<std::string> Engine::Save() const {
  namespace sn = internal::snapshot;
  QM_RETURN_IF_ERROR(Queryable("Save"));
  const ClusterState& s = state_->s;
  if (!s.excluded_candidates.empty())
    return absl::FailedPreconditionError("Engine::Save: called in the middle of a scheduling cycle");
  sn::Writer w;
  w.bytes().reserve(8192);  // a small engine's whole snapshot: no regrowth on the common case
  w.bytes().append(sn::kMagic, sizeof(sn::kMagic));
  w.U32(sn::kFormatVersion);
  w.U32(0);  // reserved
  w.U64(0);  // payload length, patched below
  w.U64(0);  // checksum, patched below
  sn::WriteState(s, w);
  if (w.overflow()) return absl::ResourceExhaustedError("Engine::Save: a list or string is longer than 2^32-1");
  std::string out = std::move(w.bytes());
  const std::string_view payload = std::string_view(out).substr(sn::kHeaderSize);
  const uint64_t len = payload.size(), sum = sn::Checksum(payload);
  for (int i = 0; i < 8; ++i) {
    out[16 + static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(len >> (8 * i)));
    out[24 + static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(sum >> (8 * i)));
  }
  return out;
}

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
  if (header.ok() && version != sn::kFormatVersion)
    return absl::InvalidArgumentError(fmt::format(
        "snapshot: format version {} is not supported (this build reads version {})", version, sn::kFormatVersion));
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
  QM_RETURN_IF_ERROR(sn::ReadState(payload, sn::kHeaderSize, host, *state));
  state->quota_floor_cycle = state->s.cycle;  // the checker cannot know older quota changes
  // Last, the engine's own self-check: the checks above cover each record, this one how records
  // relate (a pending workload's `active`, queue membership, candidate sets...). A state that fails
  // it is not one the engine could have saved (found by fuzz/snapshot_fuzzer).
  if (absl::Status st = state->CheckInvariants(); !st.ok())
    return absl::DataLossError(fmt::format("snapshot: inconsistent state: {}", std::string(st.message())));
  return Engine(std::move(state));
}

}  // namespace qm
