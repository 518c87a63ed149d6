// Snapshots: the encoding of specs and records that several sections share (docs/snapshot-format.md).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adapter/snapshot_parts.h"

namespace qm::internal::snapshot {

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

}  // namespace qm::internal::snapshot
