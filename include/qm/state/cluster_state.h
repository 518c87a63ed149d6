// Everything one engine knows: flavors, queues, cohorts, namespaces, workloads, the quota tree and
// the pending queues. The solver reads and (tentatively) mutates it; the adapter owns it.
#ifndef QM_STATE_CLUSTER_STATE_H_
#define QM_STATE_CLUSTER_STATE_H_

#include <algorithm>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_set.h"
#include "absl/hash/hash.h"
#include "boost/container/small_vector.hpp"
#include "qm/core/compact_string.h"
#include "qm/core/ids.h"
#include "qm/core/quantity.h"
#include "qm/core/time.h"
#include "qm/model/cluster_queue.h"
#include "qm/model/config.h"
#include "qm/model/flavor.h"
#include "qm/model/local_queue.h"
#include "qm/model/priority.h"
#include "qm/queue/class_queue.h"
#include "qm/queue/pending_key.h"
#include "qm/state/catalog.h"
#include "qm/state/quota_tree.h"
#include "qm/state/record_store.h"
#include "qm/state/thrash_state.h"
#include "qm/state/usage_history.h"
#include "qm/state/workload_record.h"

namespace qm {

/// A ResourceFlavor (it may be referenced before it exists).
struct FlavorState {
  bool exists = false;
  ResourceFlavorSpec spec;
};

/// One flavor entry of a ClusterQueue resource group: its FR slot per covered resource.
struct CqFlavor {
  FlavorId flavor;
  boost::container::small_vector<FrId, 4> frs;  ///< parallel to the group's `covered`
};

struct CqResourceGroup {
  boost::container::small_vector<ResourceId, 4> covered;  ///< spec order
  std::vector<CqFlavor> flavors;                          ///< preference order
};

/// Order of preemption candidates within one ClusterQueue (docs/semantics.md §5.5 keys 4–6):
///   1. lower priority first;  2. more recent quota reservation first;  3. smaller UID;
///   4. earlier submission (`seq`, unique).
struct CandidateKey {
  int32_t priority;
  WorkloadId id;
  int64_t reserved_us;
  const CompactString* uid;  ///< the workload record's (records never move)
  uint64_t seq;
};
struct CandidateOrder {
  bool operator()(const CandidateKey& a, const CandidateKey& b) const {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.reserved_us != b.reserved_us) return a.reserved_us > b.reserved_us;
    if (a.uid != b.uid) {
      if (int c = a.uid->compare(*b.uid); c != 0) return c < 0;
    }
    return a.seq < b.seq;
  }
};
using CandidateSet = absl::btree_set<CandidateKey, CandidateOrder>;

struct ClusterQueueState {
  bool exists = false;
  std::string name;
  ClusterQueueSpec spec;
  NodeIndex node = kNoNode;
  CohortId cohort;  ///< invalid when standalone
  std::vector<CqResourceGroup> groups;
  /// resource → index of the group covering it, sorted by resource id.
  boost::container::small_vector<std::pair<ResourceId, uint16_t>, 8> group_of;
  bool covers_pods = false;
  /// Active = exists, not stopped and every flavor exists (docs/semantics.md §1.3).
  bool active = false;
  std::string active_message;
  /// Kueue's AllocatableResourceGeneration: bumped when a workload leaves the accounted set or the
  /// quotas of the queue or its tree change (docs/semantics.md §4.3.8).
  uint64_t generation = 1;

  // Pending queue (docs/semantics.md §3).
  ClassQueue heap;  ///< grouped by equivalence class (qm/queue/class_queue.h)
  ClassQueue inadmissible;  ///< parked workloads, grouped the same way
  WorkloadId sticky_preemptor;
  /// Equivalence keys of workloads parked for NoFit / PreemptionNoCandidates (docs/semantics.md §3.7).
  absl::flat_hash_set<uint64_t> blocked;

  // Workloads holding quota, as preemption candidates in docs/semantics.md §5.5 order.
  CandidateSet admitted;  ///< not being evicted
  CandidateSet evicting;  ///< eviction issued, quota still held

  int FindGroup(ResourceId r) const {
    for (const auto& [res, g] : group_of)
      if (res == r) return g;
    return -1;
  }
};

struct CohortState {
  bool exists = false;  ///< an explicit Cohort object
  std::string name;
  CohortSpec spec;
  NodeIndex node = kNoNode;
  /// ClusterQueues and Cohorts that name this cohort as their parent.
  uint32_t refs = 0;
};

struct LocalQueueState {
  bool exists = false;
  LocalQueueSpec spec;
  NamespaceId ns;
};

struct NamespaceState {
  bool exists = false;
  Labels labels;
};

/// Hash/equality for the workload name index, so the index stores only ids.
struct WorkloadNameKey {
  NamespaceId ns;
  std::string_view name;
};

class ClusterState;

struct WorkloadIndexHash {
  using is_transparent = void;
  const RecordStore<WorkloadRecord>* records = nullptr;
  size_t operator()(WorkloadId id) const {
    const auto& r = (*records)[id.value];
    return (*this)(WorkloadNameKey{r.ns, r.name});
  }
  size_t operator()(const WorkloadNameKey& k) const { return absl::HashOf(k.ns.value, k.name); }
};
struct WorkloadIndexEq {
  using is_transparent = void;
  const RecordStore<WorkloadRecord>* records = nullptr;
  WorkloadNameKey Key(WorkloadId id) const {
    const auto& r = (*records)[id.value];
    return {r.ns, r.name};
  }
  WorkloadNameKey Key(const WorkloadNameKey& k) const { return k; }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    auto ka = Key(a), kb = Key(b);
    return ka.ns == kb.ns && ka.name == kb.name;
  }
};

/// The whole state. Plain data with a few lookups; the solver and adapter keep the invariants
/// documented on each member.
class ClusterState {
 public:
  ClusterState()
      : workload_index(0, WorkloadIndexHash{&workloads}, WorkloadIndexEq{&workloads}) {}
  ClusterState(const ClusterState&) = delete;
  ClusterState& operator=(const ClusterState&) = delete;

  EngineConfig config;
  Catalog catalog;
  QuotaTree tree;

  std::vector<FlavorState> flavors;  ///< indexed by FlavorId

  Interner<ClusterQueueId> cq_names;
  std::vector<ClusterQueueState> cqs;            ///< indexed by ClusterQueueId
  std::vector<ClusterQueueId> cqs_by_name;       ///< existing queues, sorted by name

  Interner<CohortId> cohort_names;
  std::vector<CohortState> cohorts;  ///< indexed by CohortId (explicit or implicit)

  Interner<NamespaceId> namespaces_names;
  std::vector<NamespaceState> namespaces;  ///< indexed by NamespaceId

  std::vector<LocalQueueState> local_queues;  ///< indexed by LocalQueueId
  absl::flat_hash_map<std::pair<uint32_t, std::string>, LocalQueueId> local_queue_index;

  absl::flat_hash_map<std::string, WorkloadPriorityClassSpec> workload_priority_classes;
  absl::flat_hash_map<std::string, PriorityClassSpec> priority_classes;

  /// Admission records live here (declared before `workloads`, so it outlives every record).
  internal::BlockPool admission_pool{sizeof(AdmissionRecord)};
  RecordStore<WorkloadRecord> workloads;  ///< indexed by WorkloadId; deleted slots are reused; records never move
  std::vector<WorkloadId> free_workloads;
  absl::flat_hash_set<WorkloadId, WorkloadIndexHash, WorkloadIndexEq> workload_index;
  /// Pending workloads that are in no ClusterQueue queue (missing / stopped LocalQueue, missing
  /// ClusterQueue); re-examined when queues change.
  absl::btree_set<uint64_t> unqueued;  ///< seq << 32 | id, so iteration follows submission order

  std::vector<WorkloadShape> shapes;  ///< indexed by ShapeId; refs == 0 means free
  std::vector<ShapeId> free_shapes;
  absl::flat_hash_map<uint64_t, boost::container::small_vector<ShapeId, 1>> shape_index;

  uint64_t next_seq = 1;
  uint64_t cycle = 0;
  /// The sequence number of the next event (`Event::sequence`).
  uint64_t next_event = 1;
  /// Condition reasons that are not `reason::` constants (from loaded conditions), with stable
  /// addresses for `WorkloadRecord::reason`.
  absl::node_hash_set<std::string> reason_pool;
  /// LocalQueue names as workloads spell them: a pending workload stores 4 bytes, not a string.
  Interner<QueueNameId> queue_names;

  const char* InternReason(std::string_view r) { return reason_pool.emplace(r).first->c_str(); }
  /// Workloads a cycle has set aside (victims removed while recomputing an overlapping
  /// assignment, docs/semantics.md §4.7): not preemption candidates while listed. Lookup only.
  absl::flat_hash_set<WorkloadId> excluded_candidates;
  /// Timers and cycle-detector memory of the anti-thrash policies (qm/solver/anti_thrash.h).
  ThrashState thrash;
  /// The historical fair share's decayed borrowing (docs/semantics.md §11.8); untouched unless
  /// `config.fair_sharing.historical` is on. A call or cycle evaluates it at its instant before it
  /// changes anything, and commits the changes it made once it has succeeded.
  UsageHistory history;
  void EvaluateHistory() {
    if (config.fair_sharing.historical.enabled) history.Evaluate(Now(), config.fair_sharing.historical.half_life);
  }
  void CommitHistory() {
    if (config.fair_sharing.historical.enabled) history.Commit(tree, config.fair_sharing.historical.half_life);
  }

  /// Which ClusterQueues a cycle visits for a head, so a cycle costs O(queues with heads) rather
  /// than O(every queue): with a standing backlog most queues have parked everything and wait.
  /// One bit per position in `cqs_by_name`. Whatever may give a queue a head (a workload entering
  /// its active queue, the queue turning active) sets the bit; the cycle clears it when it finds
  /// the queue inactive or its active queue empty (a sticky preemptor waits in the active queue).
  /// A bit set in excess costs one look, never a decision; derived, so snapshots do not hold it.
  std::vector<uint64_t> head_candidates;
  std::vector<uint32_t> cq_rank;  ///< indexed by ClusterQueueId: position in `cqs_by_name`, or kNoRank
  static constexpr uint32_t kNoRank = UINT32_MAX;
  /// Marks `id` for the next cycle's look for heads.
  void MayHaveHead(ClusterQueueId id) {
    if (id.value >= cq_rank.size() || cq_rank[id.value] == kNoRank) return;  // unlisted: QueuesListed marks all
    const uint32_t rank = cq_rank[id.value];
    head_candidates[rank / 64] |= uint64_t{1} << (rank % 64);
  }
  /// Re-derives the ranks after `cqs_by_name` changed, and marks every queue.
  void QueuesListed() {
    cq_rank.assign(cqs.size(), kNoRank);
    for (uint32_t rank = 0; rank < cqs_by_name.size(); ++rank) cq_rank[cqs_by_name[rank].value] = rank;
    head_candidates.assign((cqs_by_name.size() + 63) / 64, ~uint64_t{0});
    if (cqs_by_name.size() % 64 != 0) head_candidates.back() = (uint64_t{1} << (cqs_by_name.size() % 64)) - 1;
  }

  /// Set once any workload was given a requeue back-off end (pods-ready timeouts,
  /// docs/semantics.md §1.7.2), and never cleared: until then no flush has to read a parked
  /// member's record to see whether it still waits one out. Derived, so snapshots do not hold it
  /// (a restore sets it when a record holds one).
  bool requeue_backoff_seen = false;

  /// Set only on an engine nobody reads statuses from (a forecast's private copy,
  /// lib/adapter/forecast.cc): a waiting head's status message is not written, which is most of
  /// what a failed nomination costs. A reason's presence still counts (an empty reason list means
  /// "fits"), so every decision is the same; only the text is missing. Never saved.
  bool quiet_status = false;

  /// Scratch for `FlushClusterQueue` (qm/queue/pending_queue.h): the parked classes it hands
  /// over, in a table that keeps its room between flushes. Empty between calls; never saved.
  ClassQueue::ClassMap flush_scratch;

  /// The epoch of the latest bulk park's status stamp (qm/queue/class_queue.h, `StatusStamp`);
  /// 0 when none was made since the engine was created or restored. Derived, not saved: a
  /// snapshot holds every workload's status as its stamp gives it.
  uint32_t status_epoch = 0;

  /// A new, empty admission record in this engine's pool.
  AdmissionPtr NewAdmission() { return AdmissionPtr(new (admission_pool.Allocate()) AdmissionRecord()); }

  // ---- Lookups --------------------------------------------------------------------------------

  WorkloadId FindWorkload(NamespaceId ns, std::string_view name) const {
    auto it = workload_index.find(WorkloadNameKey{ns, name});
    return it == workload_index.end() ? WorkloadId() : *it;
  }
  /// The handle a host sees for a live workload slot.
  WorkloadHandle Handle(WorkloadId id) const { return WorkloadHandle{id.value, workloads[id.value].generation}; }
  /// The slot a handle names, or an invalid id when the handle is stale (deleted) or unknown.
  WorkloadId Resolve(WorkloadHandle h) const {
    if (!h.valid() || h.index >= workloads.size()) return WorkloadId();
    const WorkloadRecord& w = workloads[h.index];
    return w.deleted || w.generation != h.generation ? WorkloadId() : WorkloadId(h.index);
  }
  /// Appends a numbered event about `id` to `out` (stamped now) and returns it to be filled in.
  Event& NewEvent(std::vector<Event>& out, EventKind kind, WorkloadId id, ClusterQueueId cq) {
    Event& e = out.emplace_back();
    e.sequence = next_event++;
    e.kind = kind;
    e.workload = Handle(id);
    e.cluster_queue = cq;
    e.time = Now();
    return e;
  }
  WorkloadRecord& wl(WorkloadId id) { return workloads[id.value]; }
  const WorkloadRecord& wl(WorkloadId id) const { return workloads[id.value]; }
  const WorkloadShape& shape(const WorkloadRecord& w) const { return shapes[w.shape]; }
  ClusterQueueState& cq(ClusterQueueId id) { return cqs[id.value]; }
  const ClusterQueueState& cq(ClusterQueueId id) const { return cqs[id.value]; }
  LocalQueueId FindLocalQueue(NamespaceId ns, std::string_view name) const {
    auto it = local_queue_index.find(std::make_pair(ns.value, std::string(name)));
    return it == local_queue_index.end() ? LocalQueueId() : it->second;
  }
  std::string WorkloadName(WorkloadId id) const {
    const auto& w = wl(id);
    return namespaces_names.Name(w.ns) + "/" + w.name;
  }
  const std::string& ResourceName(ResourceId r) const { return catalog.ResourceName(r); }
  const std::string& FlavorName(FlavorId f) const { return catalog.FlavorName(f); }

  Time Now() const {
    if (!config.clock) return manual_now;
    if (pinned_now) return *pinned_now;
    // Named while it runs, so the engine refuses the mutating calls a clock makes into it
    // (docs/engine.md, "Exceptions and re-entrancy"); restored also when the clock throws.
    struct Restore {
      const char*& running;
      const char* outer;
      ~Restore() { running = outer; }
    } restore{host_running, host_running};
    host_running = "clock";
    return config.clock();
  }
  Time manual_now;
  /// Set while a query runs: the clock's reading taken before the query touched anything, so that
  /// a clock that throws cannot interrupt a simulation half undone. Not state: never saved.
  mutable std::optional<Time> pinned_now;
  /// The host function running now ("event callback", "submission gate", "clock"), or null. Not
  /// state: never saved, and null between calls.
  mutable const char* host_running = nullptr;
};

/// What one resource of an admitted pod set uses when no explicit usage overrides it: the shape's
/// request per pod times the admitted count, and for `pods`, which a queue that covers it charges
/// one per pod, the count when the shape does not request it.
inline int64_t DerivedPodSetUsage(const Catalog& catalog, const PodSetShape& shape, int32_t count, ResourceId r) {
  for (const auto& [res, per_pod] : shape.per_pod)
    if (res == r) return MulAmount(per_pod, count);
  return r == catalog.PodsResource() ? count : 0;
}

/// Pod set `i` of workload `w`'s admission: resource → total usage, for every resource that got a
/// flavor, in the order of the pod set's FRs (AdmissionRecord::explicit_usage, or derived).
inline ResourceList PodSetUsage(const ClusterState& s, const WorkloadRecord& w, size_t i) {
  const AdmissionRecord& a = *w.admission;
  if (a.explicit_usage) return (*a.explicit_usage)[i];
  const AdmissionRecord::PodSet& ps = a.pod_sets[i];
  const PodSetShape& shape = s.shapes[w.shape].pod_sets[i];
  ResourceList out;
  for (const FrId fr : ps.frs) {
    const ResourceId r = s.catalog.FrResource(fr);
    out.emplace_back(r, DerivedPodSetUsage(s.catalog, shape, ps.count, r));
  }
  return out;
}

/// Whether `usage` (one list per pod set, as `PodSetUsage` gives them) is what the admission's
/// shape and counts derive, so that it need not be kept.
inline bool UsageIsDerived(const ClusterState& s, const WorkloadRecord& w, const std::vector<ResourceList>& usage) {
  const AdmissionRecord& a = *w.admission;
  const WorkloadShape& shape = s.shapes[w.shape];
  if (usage.size() != a.pod_sets.size() || a.pod_sets.size() != shape.pod_sets.size()) return false;
  for (size_t i = 0; i < usage.size(); ++i) {
    const AdmissionRecord::PodSet& ps = a.pod_sets[i];
    if (usage[i].size() != ps.frs.size()) return false;
    for (size_t k = 0; k < usage[i].size(); ++k) {
      const ResourceId r = s.catalog.FrResource(ps.frs[k]);
      if (usage[i][k].first != r || usage[i][k].second != DerivedPodSetUsage(s.catalog, shape.pod_sets[i], ps.count, r))
        return false;
    }
  }
  return true;
}

/// Calls `fn(fr, amount)` for every resource of pod set `i` of `w`'s admission that got a flavor:
/// the pod set's usage (`PodSetUsage`) of the pods still running. Kueue keeps min(admitted count,
/// spec count − reclaimable) pods' usage, scaled per pod first.
template <class Fn>
void ForEachPodSetFrUsage(const ClusterState& s, const WorkloadRecord& w, size_t i, Fn&& fn) {
  const AdmissionRecord& a = *w.admission;
  const AdmissionRecord::PodSet& ps = a.pod_sets[i];
  const PodSetShape& shape = s.shapes[w.shape].pod_sets[i];
  for (const FrId fr : ps.frs) {
    const ResourceId r = s.catalog.FrResource(fr);
    int64_t total = 0;
    if (a.explicit_usage) {
      for (const auto& [res, v] : (*a.explicit_usage)[i])
        if (res == r) total = v;
    } else {
      total = DerivedPodSetUsage(s.catalog, shape, ps.count, r);
    }
    fn(fr, ps.reclaimable == 0 ? total : ps.count == 0 ? 0 : MulAmount(total / ps.count, ps.count - ps.reclaimable));
  }
}

/// What admission `w.admission` adds to its ClusterQueue's quota, per FR, sorted by FR: the sum
/// over its pod sets of `ForEachPodSetFrUsage`. Every FR the admission names has an entry, even
/// one of 0 (so "uses this FR" is "names this FR"). Derived, not stored: O(pod sets × resources),
/// no allocation up to 4 FRs.
inline FrUsage AdmissionUsage(const ClusterState& s, const WorkloadRecord& w) {
  FrUsage out;
  for (size_t i = 0; i < w.admission->pod_sets.size(); ++i) {
    ForEachPodSetFrUsage(s, w, i, [&out](FrId fr, int64_t live) {
      auto at = std::lower_bound(out.begin(), out.end(), std::make_pair(fr, int64_t{0}),
                                 [](const auto& x, const auto& y) { return x.first < y.first; });
      if (at != out.end() && at->first == fr) at->second = AddAmount(at->second, live);
      else out.insert(at, std::make_pair(fr, live));
    });
  }
  return out;
}

/// Calls `fn(fr, amount)` once per entry of `AdmissionUsage`, in some order. For the common
/// admission of one pod set (each FR once, nothing to merge) it derives in place and builds no
/// list: the preemption searches remove and restore candidates' usage thousands of times a cycle.
template <class Fn>
void ForEachAdmissionUsage(const ClusterState& s, const WorkloadRecord& w, Fn&& fn) {
  if (w.admission->pod_sets.size() == 1) return ForEachPodSetFrUsage(s, w, 0, fn);
  for (const auto& [fr, v] : AdmissionUsage(s, w)) fn(fr, v);
}

/// The pod sets of an admission as an `Event` reports them.
inline void AdmittedPodSets(const Catalog& catalog, const AdmissionRecord& a,
                            boost::container::small_vector<AdmittedPodSet, 1>* out) {
  out->clear();
  for (uint32_t i = 0; i < a.pod_sets.size(); ++i) {
    AdmittedPodSet& ps = out->emplace_back();
    ps.index = i;
    ps.count = a.pod_sets[i].count;
    ps.flavors.clear();
    for (const FrId fr : a.pod_sets[i].frs) ps.flavors.emplace_back(catalog.FrResource(fr), catalog.FrFlavor(fr));
  }
}

}  // namespace qm

#endif  // QM_STATE_CLUSTER_STATE_H_
