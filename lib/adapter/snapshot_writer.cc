// Engine snapshots: `Engine::Save` (this file) writes every member of the engine's `ClusterState` in the
// versioned binary format of docs/snapshot-format.md; `Engine::Restore` (snapshot_reader.cc) decodes it with bounds-checked
// reads, validates every cross-reference, rebuilds the lookup structures (indexes, pending and
// candidate sets) from the records in their saved order, and checks the quota tree against a
// recomputation. Ids, slots, free lists and every order come back as they were, so a restored engine
// decides exactly what the saved one would have decided, byte for byte.
//
// When a member is added to the state, the snapshot files and the format document must learn it: the
// `static_assert`s on the sizes of the state's structs below fail the build until then.
#include <string>
#include <utility>
#include <vector>

#include "adapter/engine_state.h"
#include "adapter/snapshot_parts.h"
#include "qm/core/status.h"

namespace qm {
namespace internal::snapshot {
namespace {

// Every member of these structs is saved. A new member changes the size: teach Save/Restore and
// docs/snapshot-format.md about it (and bump kFormatVersion if old snapshots can no longer be
// read), then update the size here. Checked on the platform the project is developed on only.
#if defined(__x86_64__) && defined(__GLIBCXX__) && !defined(_GLIBCXX_DEBUG) && !defined(_LIBCPP_VERSION)
// 256 since format 2: `anti_thrash` (96 bytes), saved in CONF.
// 312 since format 3: `wait_for_pods_ready` (56), saved at the end of CONF.
// 320 since format 4: `refill` (1, padded to 8), saved at the end of CONF.
// 336 since format 5: `fair_sharing.historical` (16), saved at the end of CONF.
static_assert(sizeof(EngineConfig) == 336, "EngineConfig changed: update lib/adapter/snapshot_*.cc");
// 1416 since workloads live in a RecordStore (chunks, not one array): same records saved.
// 1584 since format 2: the config's `anti_thrash` (96) and `thrash` (72), saved in THRS.
// 1592: `host_running` (8), not state: null between calls, never saved.
// 1608: `pinned_now` (16), not state: set only while a query runs, never saved.
// 1664 since format 3: the config's `wait_for_pods_ready` (56).
// 1672 since format 4: the config's `refill` (8 with padding).
// 1776 since format 5: the config's `fair_sharing.historical` (16) and `history` (88), saved in HIST
// (started, last instant committed, anchors; its evaluated values and the running call's instant
// are derived, not saved).
// 1824: `head_candidates` and `cq_rank` (48), derived from the queues on restore, not saved.
// 1832: the quota tree's `usage_changes_` (8), a count for caches within one cycle, not saved.
// 1856: the admission pool's reserved chunks (24), capacity only, not saved.
// 1864: `requeue_backoff_seen` (1, padded to 8), derived from the records on restore, not saved.
// 1896: the catalog's resource name ranks and `pods` id (32), derived from the names, not saved; `quiet_status`
// (1, in padding), set only on a forecast's private copy, not saved.
// 1944: `flush_scratch` (48), empty between calls, not saved.
static_assert(sizeof(ClusterState) == 1944, "ClusterState changed: update lib/adapter/snapshot_*.cc");
// 680 since the pending queues are grouped by equivalence class: the grouping is derived from the
// records on restore, nothing new is saved.
static_assert(sizeof(ClusterQueueState) == 680, "ClusterQueueState changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(ClusterQueueSpec) == 232, "ClusterQueueSpec changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(CohortState) == 144, "CohortState changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(LocalQueueState) == 144, "LocalQueueState changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(ResourceFlavorSpec) == 104, "ResourceFlavorSpec changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(WorkloadRecord) == 144, "WorkloadRecord changed: update lib/adapter/snapshot_*.cc");
// 184 since format 2: `preemptions` (a pointer), saved at the end of the extras in WKLD.
// 208 since format 3: `requeue_count` and `requeue_at`, saved after the preemption history.
static_assert(sizeof(WorkloadExtras) == 208, "WorkloadExtras changed: update lib/adapter/snapshot_*.cc");
// 328 since format 3: `pods_ready`, `pods_recovering`, `pods_not_ready_since`, saved after
// `evicted_at`.
// 248: a pod set's usage (88 per pod set) is derived from the shape and count, and kept only when
// it differs (`explicit_usage`, 8); saved as before, either way.
static_assert(sizeof(AdmissionRecord) == 128, "AdmissionRecord changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(ScanProgress) == 48, "ScanProgress changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(PodSetShape) == 208, "PodSetShape changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(WorkloadShape) == 40, "WorkloadShape changed: update lib/adapter/snapshot_*.cc");
// 128 with `usage_changed_at` (8, in what was padding), a count for caches within one cycle, not saved.
static_assert(sizeof(QuotaTree::Node) == 128, "QuotaTree::Node changed: update lib/adapter/snapshot_*.cc");
// 80 with `usage_exact`, which is not saved: Restore rebuilds it from the admissions (CheckTree).
static_assert(sizeof(FrQuota) == 80, "FrQuota changed: update lib/adapter/snapshot_*.cc");
// Format 2: the anti-thrash configuration, preemption histories and the detector's memory.
static_assert(sizeof(AntiThrashConfig) == 96, "AntiThrashConfig changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(MinRuntimeRule) == 80, "MinRuntimeRule changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(PreemptionHistory) == 88, "PreemptionHistory changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(PreemptionHistory::Entry) == 56, "PreemptionHistory::Entry changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(ThrashState) == 72, "ThrashState changed: update lib/adapter/snapshot_*.cc");
static_assert(sizeof(ThrashState::Edge) == 16, "ThrashState::Edge changed: update lib/adapter/snapshot_*.cc");
#endif

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

}  // namespace

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
  w.Bool(s.config.refill.enabled);  // since format 4
  w.Bool(s.config.fair_sharing.historical.enabled);  // since format 5
  w.Period(s.config.fair_sharing.historical.half_life);
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
  uint32_t slot = 0;
  for (const WorkloadRecord& r : s.workloads) {
    const WorkloadId id(slot++);
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
    w.Enum(PlaceOf(s, id));  // derived: a file never holds kQueued
    w.At(r.creation_time);
    w.At(r.queue_time);
    w.U64(r.seq);
    w.U32(r.queued_in.value);
    w.Str(ReasonOf(s, id));  // as a bulk park's stamp may give it: stamps are not saved
    w.Str(MessageOf(s, id));
    w.Bool(r.admission != nullptr);
    if (r.admission) {
      const AdmissionRecord& a = *r.admission;
      w.U32(a.cluster_queue.value);
      w.Count(a.pod_sets.size());
      for (size_t i = 0; i < a.pod_sets.size(); ++i) {
        const AdmissionRecord::PodSet& ps = a.pod_sets[i];
        w.I32(ps.count);
        w.Count(ps.frs.size());
        for (const FrId fr : ps.frs) {
          w.U32(s.catalog.FrResource(fr).value);
          w.U32(s.catalog.FrFlavor(fr).value);
        }
        // Saved whether kept or derived (the format predates the derivation).
        const ResourceList usage = PodSetUsage(s, r, i);
        w.Count(usage.size());
        for (const auto& [res, v] : usage) {
          w.U32(res.value);
          w.I64(v);
        }
        w.I32(ps.reclaimable);
      }
      // Saved although derived (the format predates the derivation); a restore checks it.
      const FrUsage usage = AdmissionUsage(s, r);
      w.Count(usage.size());
      for (const auto& [fr, v] : usage) {
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

  // HIST (since format 5): the historical fair share's anchors, per tree node and resource.
  sec = w.BeginSection("HIST");
  w.Bool(s.history.started());
  w.I64(s.history.last_us());
  w.Count(s.history.anchors().size());
  for (const std::vector<UsageHistory::Anchor>& node : s.history.anchors()) {
    w.Count(node.size());
    for (const UsageHistory::Anchor& a : node) {
      w.I64(a.t0);
      w.U64(static_cast<uint64_t>(a.h0));
      w.U64(static_cast<uint64_t>(a.h0 >> 64));
      w.I64(a.b);
    }
  }
  w.EndSection(sec);
}


}  // namespace internal::snapshot

absl::StatusOr<std::string> Engine::Save() const {
  namespace sn = internal::snapshot;
  QM_RETURN_IF_ERROR(Queryable("Save"));
  const ClusterState& s = state_->s;
  if (!s.excluded_candidates.empty())
    return absl::FailedPreconditionError("Engine::Save: called in the middle of a scheduling cycle");
  sn::Writer w;
  // Room for a small engine's whole snapshot, or for about what a workload takes (one with a pod
  // set, an admission and a short status): regrowth copies everything written so far.
  w.Reserve(8192 + s.workloads.size() * 256);
  w.Raw(std::string_view(sn::kMagic, sizeof(sn::kMagic)));
  w.U32(sn::kFormatVersion);
  w.U32(0);  // reserved
  w.U64(0);  // payload length, patched below
  w.U64(0);  // checksum, patched below
  sn::WriteState(s, w);
  if (w.overflow()) return absl::ResourceExhaustedError("Engine::Save: a list or string is longer than 2^32-1");
  std::string out = w.Take();
  const std::string_view payload = std::string_view(out).substr(sn::kHeaderSize);
  const uint64_t len = payload.size(), sum = sn::Checksum(payload);
  for (int i = 0; i < 8; ++i) {
    out[16 + static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(len >> (8 * i)));
    out[24 + static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(sum >> (8 * i)));
  }
  return out;
}


}  // namespace qm
