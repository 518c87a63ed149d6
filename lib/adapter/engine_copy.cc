// `internal::CopyEngine`: a private copy of a live engine for a forecast or a what-if answer, made
// member by member instead of through `Save` and `Restore`.
//
// Encoding every record to bytes and decoding it again (then rebuilding every queue key by key,
// with a comparison per step) was about a seventh of a forecast of 10⁴ waiting workloads
// (docs/benchmarks.md). Here the containers are copied as they are (a btree copies its nodes, no
// comparisons), and what holds an address of the source is pointed at the copy's own:
//   - queue and candidate keys hold their record's uid (qm/queue/pending_key.h `RebindUids`);
//   - records and status stamps hold reasons interned in the source's pool;
//   - admission records live in the source's pool;
//   - the name index hashes through the records it was built for.
// The copy has what `Restore` gives an engine the host made no call on yet: no clock, gate or
// callback, an empty event list, and a fresh scheduler. Its `Save` is the source's, byte for byte
// (tests/adapter/engine_copy_test.cc), and it decides what the source would.
//
// Cost: O(records + queued keys + admissions), with no comparison of keys.
#include <memory>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "adapter/engine_state.h"
#include "qm/adapter/engine.h"
#include "qm/core/status.h"

namespace qm {
namespace {

// Every member below is copied. A new member changes a size: teach `CopyState`, `CopyRecord` or `CopyAdmission`
// about it, then update the size here (the snapshot files have the same checks).
#if defined(__x86_64__) && defined(__GLIBCXX__) && !defined(_GLIBCXX_DEBUG) && !defined(_LIBCPP_VERSION)
static_assert(sizeof(ClusterState) == 1944, "ClusterState changed: update lib/adapter/engine_copy.cc");
static_assert(sizeof(WorkloadRecord) == 144, "WorkloadRecord changed: update lib/adapter/engine_copy.cc");
static_assert(sizeof(WorkloadExtras) == 208, "WorkloadExtras changed: update lib/adapter/engine_copy.cc");
static_assert(sizeof(AdmissionRecord) == 128, "AdmissionRecord changed: update lib/adapter/engine_copy.cc");
#endif

// The copy's address of each reason the source interned (reason constants are shared as they are).
class ReasonMap {
 public:
  ReasonMap(const ClusterState& from, ClusterState& to) : from_(from), to_(to) {}
  const char* operator()(const char* reason) {
    if (reason == nullptr) return nullptr;
    if (reason == last_from_) return last_to_;  // most records repeat the one before
    const char* out = reason;
    if (const auto it = seen_.find(reason); it != seen_.end()) {
      out = it->second;
    } else {
      const auto own = from_.reason_pool.find(absl::string_view(reason));
      if (own != from_.reason_pool.end() && own->c_str() == reason) out = to_.InternReason(reason);
      seen_.emplace(reason, out);
    }
    last_from_ = reason;
    last_to_ = out;
    return out;
  }

 private:
  const ClusterState& from_;
  ClusterState& to_;
  absl::flat_hash_map<const char*, const char*> seen_;
  const char* last_from_ = nullptr;
  const char* last_to_ = nullptr;
};

std::unique_ptr<WorkloadExtras> CopyExtras(const WorkloadExtras& a) {
  auto b = std::make_unique<WorkloadExtras>();
  b->job_uid = a.job_uid;
  b->labels = a.labels;
  b->priority_class = a.priority_class;
  b->conditions = a.conditions;
  b->reclaimable_pods = a.reclaimable_pods;
  b->preemption_message = a.preemption_message;
  if (a.preemptions) b->preemptions = std::make_unique<PreemptionHistory>(*a.preemptions);
  b->requeue_count = a.requeue_count;
  b->requeue_at = a.requeue_at;
  return b;
}

void CopyAdmission(const AdmissionRecord& a, AdmissionRecord& b) {
  b.cluster_queue = a.cluster_queue;
  b.pod_sets = a.pod_sets;
  if (a.explicit_usage) b.explicit_usage = std::make_unique<std::vector<ResourceList>>(*a.explicit_usage);
  b.borrow_level = a.borrow_level;
  b.reserved_at = a.reserved_at;
  b.admitted_cycle = a.admitted_cycle;
  b.evicted = a.evicted;
  b.evicted_at = a.evicted_at;
  b.pods_ready = a.pods_ready;
  b.pods_recovering = a.pods_recovering;
  b.pods_not_ready_since = a.pods_not_ready_since;
}

void CopyRecord(const WorkloadRecord& a, WorkloadRecord& b, ClusterState& to, ReasonMap& reasons) {
  b.ns = a.ns;
  b.generation = a.generation;
  b.queue_name = a.queue_name;
  b.shape = a.shape;
  b.priority = a.priority;
  b.state = a.state;
  b.place = a.place;
  b.active = a.active;
  b.deleted = a.deleted;
  b.queued_in = a.queued_in;
  b.preempted_by = a.preempted_by;
  b.creation_time = a.creation_time;
  b.queue_time = a.queue_time;
  b.seq = a.seq;
  b.reason = reasons(a.reason);
  if (a.admission) {
    b.admission = to.NewAdmission();
    CopyAdmission(*a.admission, *b.admission);
  }
  if (a.scan) b.scan = std::make_unique<ScanProgress>(*a.scan);
  if (a.extras) b.extras = CopyExtras(*a.extras);
  b.preemption_reason = a.preemption_reason;
  b.status_epoch = a.status_epoch;
  b.name = a.name;
  b.uid = a.uid;
  b.message = a.message;
}

void CopyState(const ClusterState& from, ClusterState& to) {
  // The host's settings are not the copy's (as `Restore` without a host: no clock, no gate).
  to.config = from.config;
  to.config.clock = nullptr;
  to.config.submission_gate = nullptr;
  to.config.check_invariants = false;
  to.manual_now = from.manual_now;
  to.catalog = from.catalog;
  to.tree = from.tree;
  to.flavors = from.flavors;
  to.cq_names = from.cq_names;
  to.cqs = from.cqs;
  to.cqs_by_name = from.cqs_by_name;
  to.cohort_names = from.cohort_names;
  to.cohorts = from.cohorts;
  to.namespaces_names = from.namespaces_names;
  to.namespaces = from.namespaces;
  to.local_queues = from.local_queues;
  to.local_queue_index = from.local_queue_index;
  to.workload_priority_classes = from.workload_priority_classes;
  to.priority_classes = from.priority_classes;

  ReasonMap reasons(from, to);
  to.workloads.reserve(from.workloads.size());
  for (const WorkloadRecord& a : from.workloads) CopyRecord(a, to.workloads.emplace_back(), to, reasons);
  to.free_workloads = from.free_workloads;
  to.workload_index.reserve(from.workload_index.size());
  for (uint32_t i = 0; i < to.workloads.size(); ++i)
    if (!to.workloads[i].deleted) to.workload_index.insert(WorkloadId(i));
  to.unqueued = from.unqueued;

  const auto uid_of = [&to](WorkloadId id) { return &to.wl(id).uid; };
  for (ClusterQueueState& cq : to.cqs) {
    cq.heap.Rebind(uid_of, reasons);
    cq.inadmissible.Rebind(uid_of, reasons);
    RebindUids(cq.admitted, uid_of);
    RebindUids(cq.evicting, uid_of);
  }

  to.shapes = from.shapes;
  to.free_shapes = from.free_shapes;
  to.shape_index = from.shape_index;
  to.next_seq = from.next_seq;
  to.cycle = from.cycle;
  to.next_event = from.next_event;
  to.queue_names = from.queue_names;
  to.thrash = from.thrash;
  to.history = from.history;
  to.requeue_backoff_seen = from.requeue_backoff_seen;
  to.status_epoch = from.status_epoch;
  // Not copied: `excluded_candidates` and `flush_scratch` (empty between calls), `quiet_status`
  // (the caller's to set), `pinned_now` and `host_running` (set only inside a call), the reason
  // pool (filled above with what the copy refers to).
  to.QueuesListed();  // as `Restore`: the first cycle looks at every queue
}

}  // namespace

absl::StatusOr<Engine> internal::CopyEngine(const Engine& engine) {
  QM_RETURN_IF_ERROR(engine.Queryable("Copy"));
  const ClusterState& from = engine.state_->s;
  if (!from.excluded_candidates.empty())
    return absl::FailedPreconditionError("a copy of the engine was asked for in the middle of a scheduling cycle");
  auto state = std::make_unique<internal::EngineState>(EngineConfig());
  CopyState(from, state->s);
  state->quota_floor_cycle = state->s.cycle;  // as `Restore`: the checker cannot know older quota changes
  return Engine(std::move(state));
}

}  // namespace qm
