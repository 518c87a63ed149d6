// Workload life cycle in the engine: submission (pending or already holding quota), updates,
// finishing, two-phase eviction and deletion.
#include <algorithm>
#include <string>
#include <utility>
#include <variant>

#include "absl/hash/hash.h"
#include "absl/strings/ascii.h"
#include "adapter/engine_state.h"
#include "fmt/format.h"
#include "qm/model/validate.h"
#include "qm/queue/pending_queue.h"
#include "qm/state/accounting.h"
#include "qm/state/stable_hash.h"

namespace qm::internal {
namespace {

constexpr const char* kDeactivatedMessage = "The workload is deactivated";
constexpr const char* kReactivatedReason = "Reactivated";
constexpr const char* kReactivatedMessage = "The workload was reactivated";
constexpr const char* kPendingEvaluationMessage = "Workload is pending evaluation in the scheduling queue";

constexpr const char* kNamespaceMismatchMessage = "workload namespace doesn't match ClusterQueue selector";

constexpr std::string_view kQueueNameLabel = "kueue.x-k8s.io/queue-name";
constexpr std::string_view kPriorityClassLabel = "kueue.x-k8s.io/priority-class";

// Kueue clears status.requeueState when a workload is deactivated (docs/semantics.md §1.7.2).
void ClearRequeueState(WorkloadRecord& w) {
  if (!w.extras) return;
  w.extras->requeue_count = 0;
  w.extras->requeue_at.reset();
}

std::string QueueNameOf(const WorkloadSpec& spec) {
  if (!spec.queue_name.empty()) return spec.queue_name;
  if (const std::string* v = FindLabel(spec.labels, kQueueNameLabel)) return *v;
  return std::string();
}

PriorityClassRef PriorityClassOf(const WorkloadSpec& spec) {
  if (spec.priority_class.source != PriorityClassSource::kNone) return spec.priority_class;
  if (const std::string* v = FindLabel(spec.labels, kPriorityClassLabel))
    return PriorityClassRef{PriorityClassSource::kWorkloadPriorityClass, *v};
  return PriorityClassRef{};
}

bool SameToleration(const Toleration& a, const Toleration& b) {
  return a.key == b.key && a.op == b.op && a.value == b.value && a.effect == b.effect;
}
bool SameTerms(const std::vector<NodeSelectorTerm>& a, const std::vector<NodeSelectorTerm>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto& x = a[i].match_expressions;
    const auto& y = b[i].match_expressions;
    if (x.size() != y.size()) return false;
    for (size_t j = 0; j < x.size(); ++j)
      if (x[j].key != y[j].key || x[j].op != y[j].op || x[j].values != y[j].values) return false;
  }
  return true;
}
bool SamePodSet(const PodSetShape& a, const PodSetShape& b) {
  if (a.name != b.name || a.count != b.count || a.min_count != b.min_count || a.per_pod != b.per_pod ||
      a.node_selector != b.node_selector || a.required_node_affinity.has_value() != b.required_node_affinity.has_value())
    return false;
  if (a.required_node_affinity && !SameTerms(*a.required_node_affinity, *b.required_node_affinity)) return false;
  if (a.tolerations.size() != b.tolerations.size()) return false;
  for (size_t i = 0; i < a.tolerations.size(); ++i)
    if (!SameToleration(a.tolerations[i], b.tolerations[i])) return false;
  return true;
}
bool SameShape(const WorkloadShape& a, const WorkloadShape& b) {
  if (a.pod_sets.size() != b.pod_sets.size()) return false;
  for (size_t i = 0; i < a.pod_sets.size(); ++i)
    if (!SamePodSet(a.pod_sets[i], b.pod_sets[i])) return false;
  return true;
}

// Whether `spec` describes the pod set `have` was built from (ApplyWorkload's conversion): same
// name, counts, per-pod requests, node selector, affinity and tolerations.
bool SamePodSetSpec(const ClusterState& s, const PodSetShape& have, const PodSetSpec& spec) {
  if (spec.requests.size() != have.per_pod.size()) return false;
  PodSetShape want;
  want.name = spec.name;
  want.count = spec.count;
  want.min_count = spec.min_count.value_or(0);
  for (const auto& [r, v] : spec.requests) {
    const ResourceId id = s.catalog.FindResource(r);
    if (!id.valid()) return false;  // a resource the engine never saw cannot be in `have`
    want.per_pod.emplace_back(id, std::max<int64_t>(0, v));
  }
  std::sort(want.per_pod.begin(), want.per_pod.end());
  want.node_selector = spec.node_selector;
  std::sort(want.node_selector.begin(), want.node_selector.end());
  want.required_node_affinity = spec.required_node_affinity;
  want.tolerations = spec.tolerations;
  return SamePodSet(have, want);
}

// Stable across processes: shape hashes and the equivalence keys built on them are stored.
uint64_t HashShape(const WorkloadShape& shape) { return ShapeHash(shape); }

// Records the spec's priorityClassRef (reported back by Workload queries and snapshots).
void SetPriorityClassRef(WorkloadRecord& w, const PriorityClassRef& ref) {
  if (!w.extras && ref.source == PriorityClassSource::kNone) return;
  if (!w.extras) w.extras = std::make_unique<WorkloadExtras>();
  w.extras->priority_class = ref;
}

const ConditionSpec* TrueCondition(const WorkloadSpec& spec, std::string_view type) {
  const ConditionSpec* c = spec.FindCondition(type);
  return c != nullptr && c->status ? c : nullptr;
}

}  // namespace

// ---- Shapes ------------------------------------------------------------------------------------

ShapeId EngineState::InternShape(WorkloadShape shape) {
  shape.hash = HashShape(shape);
  auto& bucket = s.shape_index[shape.hash];
  for (ShapeId id : bucket) {
    if (SameShape(s.shapes[id], shape)) {
      ++s.shapes[id].refs;
      return id;
    }
  }
  ShapeId id;
  if (!s.free_shapes.empty()) {
    id = s.free_shapes.back();
    s.free_shapes.pop_back();
    s.shapes[id] = std::move(shape);
  } else {
    id = static_cast<ShapeId>(s.shapes.size());
    s.shapes.push_back(std::move(shape));
  }
  s.shapes[id].refs = 1;
  bucket.push_back(id);
  return id;
}

void EngineState::ReleaseShape(ShapeId id) {
  WorkloadShape& shape = s.shapes[id];
  if (--shape.refs > 0) return;
  auto it = s.shape_index.find(shape.hash);
  if (it != s.shape_index.end()) {
    auto& bucket = it->second;
    bucket.erase(std::find(bucket.begin(), bucket.end(), id));
    if (bucket.empty()) s.shape_index.erase(it);
  }
  shape = WorkloadShape();
  s.free_shapes.push_back(id);
}

// ---- Priority ----------------------------------------------------------------------------------

int32_t EngineState::ResolvePriority(const WorkloadSpec& spec) const {
  if (spec.priority.has_value()) return *spec.priority;
  const PriorityClassRef ref = PriorityClassOf(spec);
  if (ref.source == PriorityClassSource::kWorkloadPriorityClass) {
    auto it = s.workload_priority_classes.find(ref.name);
    if (it != s.workload_priority_classes.end()) return it->second.value;
  } else if (ref.source == PriorityClassSource::kPriorityClass) {
    auto it = s.priority_classes.find(ref.name);
    if (it != s.priority_classes.end()) return it->second.value;
  }
  // The global-default PriorityClass (the lowest one if several claim it), else 0 (docs/semantics.md §1.6).
  bool found = false;
  int32_t lowest = 0;
  for (const auto& [name, pc] : s.priority_classes) {
    if (!pc.global_default) continue;
    if (!found || pc.value < lowest) lowest = pc.value;
    found = true;
  }
  return found ? lowest : 0;
}

namespace {

// The WorkloadPriorityClass a recorded workload references: its priorityClassRef, else its
// `kueue.x-k8s.io/priority-class` label (from which Kueue's job reconciler fills the reference).
// Empty when it references none (or a scheduling.k8s.io PriorityClass).
std::string_view ReferencedWorkloadPriorityClass(const WorkloadRecord& w) {
  if (!w.extras) return {};
  const PriorityClassRef& ref = w.extras->priority_class;
  if (ref.source == PriorityClassSource::kWorkloadPriorityClass) return ref.name;
  if (ref.source != PriorityClassSource::kNone) return {};
  if (const std::string* v = FindLabel(w.extras->labels, kPriorityClassLabel)) return *v;
  return {};
}

}  // namespace

void EngineState::ApplyWorkloadPriorityClass(const WorkloadPriorityClassSpec& spec) {
  auto it = s.workload_priority_classes.find(spec.name);
  // Kueue reconciles a class when it is created (it may be a re-creation with another value) and
  // when its value changes; an update that keeps the value touches no workload.
  const bool sync = it == s.workload_priority_classes.end() || it->second.value != spec.value;
  s.workload_priority_classes[spec.name] = spec;
  if (!sync) return;
  // Every workload that references the class, whatever its state (pending, holding quota, being
  // evicted, inactive or finished), and even when its spec set a priority explicitly: the
  // controller writes spec.priority. Slots in id order, so the order of the changes is fixed.
  for (uint32_t i = 0; i < s.workloads.size(); ++i) {
    const WorkloadRecord& w = s.workloads[i];
    if (w.deleted || w.priority == spec.value || ReferencedWorkloadPriorityClass(w) != spec.name) continue;
    SetWorkloadPriority(WorkloadId(i), spec.value);
  }
}

void EngineState::SetWorkloadPriority(WorkloadId id, int32_t priority) {
  WorkloadRecord& w = s.wl(id);
  if (w.admission) {
    // Re-ordered among the preemption candidates; Kueue's workload controller also moves the
    // inadmissible workloads of the cohort tree back to their queues.
    ClusterQueueState& cq = s.cq(w.admission->cluster_queue);
    CandidateSet& set = w.admission->evicted ? cq.evicting : cq.admitted;
    set.erase(CandidateKeyOf(s, id));
    w.priority = priority;
    set.insert(CandidateKeyOf(s, id));
    RequestFlush(s, w.admission->cluster_queue);
    return;
  }
  if (w.state != WorkloadState::kPending) {
    w.priority = priority;  // inactive or finished: in no queue
    return;
  }
  // Pending: out of its queue under the old key, back under the new one. As for any spec change,
  // a parked workload returns to the active queue unless its (new) equivalence class is blocked,
  // and the flavor scan survives only when equivalence hashing is off (the hash covers priority).
  RemoveFromQueues(s, id);
  w.priority = priority;
  if (s.config.features.scheduling_equivalence_hashing) w.scan.reset();
  Enqueue(s, id);
  ReconcilePendingStatus(id);
}

// ---- Validation against the state --------------------------------------------------------------

absl::Status EngineState::CheckWorkload(const WorkloadSpec& spec, std::span<const ObjectSpec> batch) const {
  const std::string ns_name(NamespaceOf(spec.namespace_));
  const std::string object = ObjectLabel("Workload", ns_name, spec.name);
  // Named priority classes must exist (here or in the same batch).
  const PriorityClassRef ref = PriorityClassOf(spec);
  if (!spec.priority.has_value() && ref.source != PriorityClassSource::kNone) {
    bool found = false;
    if (ref.source == PriorityClassSource::kWorkloadPriorityClass) {
      found = s.workload_priority_classes.contains(ref.name);
      for (const ObjectSpec& o : batch)
        if (const auto* pc = std::get_if<WorkloadPriorityClassSpec>(&o)) found = found || pc->name == ref.name;
    } else {
      found = s.priority_classes.contains(ref.name);
      for (const ObjectSpec& o : batch)
        if (const auto* pc = std::get_if<PriorityClassSpec>(&o)) found = found || pc->name == ref.name;
    }
    if (!found)
      return absl::NotFoundError(fmt::format(
          "{}: {}: {} '{}' not found", object,
          spec.priority_class.source != PriorityClassSource::kNone ? "spec.priorityClassName"
                                                                     : "metadata.labels[kueue.x-k8s.io/priority-class]",
          ref.source == PriorityClassSource::kWorkloadPriorityClass ? "WorkloadPriorityClass" : "PriorityClass",
          ref.name));
  }
  // status.requeueState: a count of pods-ready requeues, and the end of the back-off only with one
  // (docs/semantics.md §1.7.2).
  if (spec.requeue_count < 0)
    return absl::InvalidArgumentError(fmt::format("{}: status.requeueState.count: must be >= 0", object));
  if (spec.requeue_at && spec.requeue_count == 0)
    return absl::InvalidArgumentError(fmt::format(
        "{}: status.requeueState.requeueAt: needs a count (requeue delays of admission checks are not modelled)", object));
  // Updates of a workload that holds quota may change little.
  const NamespaceId ns = s.namespaces_names.Find(ns_name);
  const WorkloadId existing = ns.valid() ? s.FindWorkload(ns, spec.name) : WorkloadId();
  if (existing.valid()) {
    const WorkloadRecord& w = s.wl(existing);
    if (w.state == WorkloadState::kFinished)
      return absl::FailedPreconditionError(fmt::format("{}: is finished and cannot be updated", object));
    // A reservation only enters with the workload (loaded as holding quota) or from the scheduler;
    // silently dropping one written on a pending workload would hide the host's intent.
    if (!w.admission && spec.admission.has_value())
      return absl::FailedPreconditionError(fmt::format(
          "{}: status.admission: an update cannot give a pending workload quota; delete it and apply it "
          "again with the admission, or let a cycle admit it",
          object));
    if (w.admission) {
      if (spec.pod_sets.size() != s.shape(w).pod_sets.size())
        return absl::FailedPreconditionError(
            fmt::format("{}: spec.podSets: cannot change while the workload holds quota", object));
      // Kueue's webhook makes spec.podSets immutable once quota is reserved: the reserved usage was
      // computed from them, so accepting a change would leave usage and spec disagreeing.
      for (size_t i = 0; i < spec.pod_sets.size(); ++i)
        if (!SamePodSetSpec(s, s.shape(w).pod_sets[i], spec.pod_sets[i]))
          return absl::FailedPreconditionError(
              fmt::format("{}: spec.podSets[{}]: cannot change while the workload holds quota", object, i));
      if (QueueNameOf(spec) != s.queue_names.Name(w.queue_name))
        return absl::FailedPreconditionError(
            fmt::format("{}: spec.queueName: cannot change while the workload holds quota", object));
    }
    return absl::OkStatus();
  }
  if (!spec.admission.has_value()) return absl::OkStatus();
  // A workload loaded as holding quota must name an existing queue.
  const ClusterQueueSpec* cq = nullptr;
  for (const ObjectSpec& o : batch)
    if (const auto* c = std::get_if<ClusterQueueSpec>(&o); c != nullptr && c->name == spec.admission->cluster_queue)
      cq = c;
  if (cq == nullptr) {
    const ClusterQueueId id = s.cq_names.Find(spec.admission->cluster_queue);
    if (id.valid() && s.cq(id).exists) cq = &s.cq(id).spec;
  }
  if (cq == nullptr)
    return absl::NotFoundError(fmt::format("{}: status.admission.clusterQueue: ClusterQueue '{}' not found", object,
                                           spec.admission->cluster_queue));
  // The flavors it names need not be in the queue's spec any more: like Kueue's cache, a recorded
  // admission keeps its usage (as borrowing, with zero nominal quota) after the queue is edited.
  return absl::OkStatus();
}

// ---- Submission and update ---------------------------------------------------------------------

EngineState::StampTimes EngineState::ReadStampTimes(const WorkloadSpec& spec) const {
  StampTimes t;
  t.creation = spec.creation_time.value_or(s.Now());
  if (!spec.admission.has_value()) return t;
  const ConditionSpec* reserved = TrueCondition(spec, "QuotaReserved");
  t.reserved = reserved != nullptr && reserved->last_transition_time ? *reserved->last_transition_time : s.Now();
  if (const ConditionSpec* ev = TrueCondition(spec, "Evicted")) t.evicted = ev->last_transition_time.value_or(s.Now());
  return t;
}

WorkloadId EngineState::ApplyWorkload(const WorkloadSpec& spec, bool first_change) {
  const NamespaceId existing_ns = s.namespaces_names.Find(NamespaceOf(spec.namespace_));
  const bool update = existing_ns.valid() && s.FindWorkload(existing_ns, spec.name).valid();
  // A new workload's timestamps are read before anything changes, in the order they were always
  // read: a clock that throws then leaves no half-made record behind.
  StampTimes times;
  if (!update) {
    try {
      times = ReadStampTimes(spec);
    } catch (...) {
      if (!first_change) throw;
      throw RolledBack{absl::FailedPreconditionError(
          fmt::format("{}: the clock threw {}; nothing changed",
                      ObjectLabel("Workload", NamespaceOf(spec.namespace_), spec.name), DescribeCurrentException()))};
    }
  }
  const NamespaceId ns = InternNamespace(NamespaceOf(spec.namespace_));
  WorkloadId id = s.FindWorkload(ns, spec.name);

  // Build the shape first (interning resources).
  WorkloadShape shape;
  for (const PodSetSpec& ps : spec.pod_sets) {
    PodSetShape out;
    out.name = ps.name;
    out.count = ps.count;
    out.min_count = ps.min_count.value_or(0);
    for (const auto& [r, v] : ps.requests)
      out.per_pod.emplace_back(s.catalog.InternResource(r), std::max<int64_t>(0, v));
    std::sort(out.per_pod.begin(), out.per_pod.end());
    out.node_selector = ps.node_selector;
    std::sort(out.node_selector.begin(), out.node_selector.end());
    out.required_node_affinity = ps.required_node_affinity;
    out.tolerations = ps.tolerations;
    shape.pod_sets.push_back(std::move(out));
  }

  if (update) {
    WorkloadRecord& w = s.wl(id);
    const int32_t priority = ResolvePriority(spec);
    if (w.admission) {
      // Holding quota: priority and `active` may change.
      if (priority != w.priority) SetWorkloadPriority(id, priority);
      SetPriorityClassRef(w, spec.priority_class);
      w.active = spec.active;
      if (!spec.active) ClearRequeueState(w);
      if (!spec.active && !w.admission->evicted)
        EvictForReason(id, eviction_reason::kDeactivated, kDeactivatedMessage);
      return id;
    }
    // Pending or inactive: replace the spec and queue it again.
    const bool was_inactive = w.state == WorkloadState::kInactive;
    RemoveFromQueues(s, id);
    ReleaseShape(w.shape);
    w.shape = InternShape(std::move(shape));
    w.priority = priority;
    w.queue_name = s.queue_names.Intern(QueueNameOf(spec));
    w.active = spec.active;
    if (spec.creation_time) w.creation_time = *spec.creation_time;
    w.queue_time = w.creation_time;
    w.scan.reset();
    w.uid = spec.uid;
    // The new spec replaces the old one: empty fields clear what was there.
    if (w.extras || !spec.job_uid.empty() || !spec.labels.empty() || !spec.conditions.empty() ||
        !spec.reclaimable_pods.empty()) {
      if (!w.extras) w.extras = std::make_unique<WorkloadExtras>();
      w.extras->job_uid = spec.job_uid;
      w.extras->labels = spec.labels;
      w.extras->conditions = spec.conditions;
      w.extras->reclaimable_pods = spec.reclaimable_pods;  // its request shrinks by them (§1.7.1)
    }
    SetPriorityClassRef(w, spec.priority_class);
    if (w.active) {
      w.state = WorkloadState::kPending;
      w.reason = reason::kPending;
      w.message.clear();
      Enqueue(s, id);
      ReconcilePendingStatus(id);
      if (was_inactive) ReportActivated(id);
    } else if (was_inactive) {
      ClearRequeueState(w);
      w.state = WorkloadState::kInactive;
      w.reason = reason::kDeactivated;
      w.message = CompactString::Static(kDeactivatedMessage);
    } else {
      ClearRequeueState(w);
      MarkInactive(id);
    }
    return id;
  }

  if (!s.free_workloads.empty()) {
    id = s.free_workloads.back();
    s.free_workloads.pop_back();
    const uint32_t generation = s.workloads[id.value].generation;
    s.workloads[id.value] = WorkloadRecord();
    s.workloads[id.value].generation = generation;
  } else {
    id = WorkloadId(static_cast<uint32_t>(s.workloads.size()));
    s.workloads.emplace_back();
  }
  WorkloadRecord& w = s.wl(id);
  w.ns = ns;
  w.name = spec.name;
  w.queue_name = s.queue_names.Intern(QueueNameOf(spec));
  w.uid = spec.uid;
  // An inactive workload carries no requeue state: Kueue's controller clears it on deactivation.
  const bool requeue_state = spec.requeue_count > 0 && spec.active;
  if (!spec.job_uid.empty() || !spec.labels.empty() || !spec.conditions.empty() ||
      spec.priority_class.source != PriorityClassSource::kNone || !spec.reclaimable_pods.empty() || requeue_state) {
    w.extras = std::make_unique<WorkloadExtras>();
    w.extras->job_uid = spec.job_uid;
    w.extras->labels = spec.labels;
    w.extras->priority_class = spec.priority_class;
    w.extras->conditions = spec.conditions;
    w.extras->reclaimable_pods = spec.reclaimable_pods;
    if (requeue_state) {
      w.extras->requeue_count = spec.requeue_count;
      w.extras->requeue_at = spec.requeue_at;  // a future one keeps it parked (Enqueue)
      if (spec.requeue_at) s.requeue_backoff_seen = true;
    }
  }
  w.shape = InternShape(std::move(shape));
  w.priority = ResolvePriority(spec);
  w.active = spec.active;
  w.creation_time = times.creation;
  w.seq = s.next_seq++;
  // Queue-order timestamp (docs/semantics.md §3.3).
  w.queue_time = w.creation_time;
  if (const ConditionSpec* ev = TrueCondition(spec, "Evicted");
      ev != nullptr && ev->last_transition_time &&
      (ev->reason == "AdmissionCheck" ||
       (ev->reason == "PodsReadyTimeout" &&
        s.config.wait_for_pods_ready.requeuing_timestamp == RequeuingTimestamp::kEviction))) {
    w.queue_time = *ev->last_transition_time;
  } else if (const ConditionSpec* pr = TrueCondition(spec, "Preempted");
             !s.config.features.priority_sorting_within_cohort && pr != nullptr &&
             pr->reason == "InCohortReclaimWhileBorrowing" && pr->last_transition_time) {
    w.queue_time = *pr->last_transition_time + Duration::Milliseconds(1);
  }
  s.workload_index.insert(id);

  if (spec.admission.has_value()) {
    const WorkloadShape& sh = s.shapes[w.shape];
    auto a = s.NewAdmission();
    a->cluster_queue = s.cq_names.Find(spec.admission->cluster_queue);
    a->pod_sets.resize(sh.pod_sets.size());
    std::vector<ResourceList> usage(sh.pod_sets.size());  // kept only when not derived (below)
    for (const PodSetAssignmentSpec& psa : spec.admission->pod_set_assignments) {
      size_t idx = 0;
      while (sh.pod_sets[idx].name != psa.name) ++idx;
      const PodSetShape& ps = sh.pod_sets[idx];
      AdmissionRecord::PodSet& out = a->pod_sets[idx];
      out.count = psa.count.value_or(ps.count);
      // Of the admitted pods, those that no longer count: Kueue's usage keeps
      // min(admitted count, spec count - reclaimable) pods (totalRequestsFromAdmission).
      const int32_t reclaimable =
          std::clamp(out.count - CountAfterReclaim(w, ps), int32_t{0}, std::max(out.count, int32_t{0}));
      out.reclaimable = reclaimable;
      for (const auto& [res, flavor] : psa.flavors) {
        const ResourceId rid = s.catalog.InternResource(res);
        out.frs.push_back(InternFr(InternFlavor(flavor), rid));
        int64_t per_pod = 0;
        for (const auto& [r, v] : ps.per_pod)
          if (r == rid) per_pod = v;
        int64_t total = MulAmount(per_pod, out.count);
        for (const auto& [r, v] : psa.resource_usage)
          if (r == res) total = v;
        usage[idx].emplace_back(rid, total);
      }
      // By resource id (the manifest lists them by name).
      std::sort(out.frs.begin(), out.frs.end(), [&](FrId x, FrId y) {
        return s.catalog.FrResource(x) < s.catalog.FrResource(y);
      });
      std::sort(usage[idx].begin(), usage[idx].end());
    }
    a->reserved_at = times.reserved;
    if (times.evicted) {
      a->evicted = true;
      a->evicted_at = *times.evicted;
    }
    w.admission = std::move(a);
    if (!UsageIsDerived(s, w, usage)) w.admission->explicit_usage = std::make_unique<std::vector<ResourceList>>(std::move(usage));
    AccountAdmission(s, id);
    w.reason = reason::kQuotaReserved;
    w.message.clear();  // formatted on demand (AdmittedMessage)
    // Loaded running: its PodsReady condition, as Kueue's job reconciler last wrote it (§1.7.2).
    if (TrueCondition(spec, "PodsReady") != nullptr) {
      w.admission->pods_ready = true;
    } else if (const ConditionSpec* pr = spec.FindCondition("PodsReady");
               pr != nullptr && !pr->status && pr->reason == "WaitForRecovery") {
      // A pod failed after they were all ready: the recovery timeout runs from this transition.
      w.admission->pods_recovering = true;
      w.admission->pods_not_ready_since = pr->last_transition_time.value_or(times.reserved);
    }
    if (w.admission->evicted) {
      const ConditionSpec* ev = TrueCondition(spec, "Evicted");
      w.reason = ev->reason.empty() ? reason::kPreempted : s.InternReason(ev->reason);
      if (!ev->message.empty()) w.message = ev->message;
    }
    return id;
  }
  if (!w.active) {
    w.state = WorkloadState::kInactive;
    w.reason = reason::kDeactivated;
    w.message = CompactString::Static(kDeactivatedMessage);
    return id;
  }
  w.state = WorkloadState::kPending;
  w.reason = reason::kPending;
  Enqueue(s, id);
  ReconcilePendingStatus(id);
  return id;
}

const char* EngineState::BlockedClassReason(WorkloadId id) const {
  const WorkloadRecord& w = s.wl(id);
  const auto& classes = s.cq(w.queued_in).inadmissible.classes();
  const auto it = classes.find(PendingClassOf(w));
  if (it == classes.end()) return nullptr;
  // The members are ordered (PendingSet), so the first one with a reason is always the same.
  const PendingClass& parked = it->second;
  for (const PendingKey& k : parked.members) {
    if (k.id == id) continue;
    const WorkloadRecord& o = s.wl(k.id);
    const char* reason = Covers(parked.stamp, o) ? parked.stamp.reason : o.reason;  // ReasonOf, class at hand
    const std::string_view r(reason);
    if (r == reason::kNoMatchingFlavor || r == reason::kExceedsMaxQuota || r == reason::kWaitingForQuota)
      return reason;
  }
  return nullptr;
}

void EngineState::ReconcilePendingStatus(WorkloadId id) {
  WorkloadRecord& w = OwnStatus(s, id);  // read and written below
  // Outside every queue, Enqueue wrote the blocker (LocalQueue missing or inactive, ClusterQueue
  // missing); the others are Kueue's resolveGranularUnadmittedQuotaReservedCondition, in its order.
  if (w.state != WorkloadState::kPending || w.place == QueuePlace::kNone) return;
  const ClusterQueueState& cq = s.cq(w.queued_in);
  if (!cq.active) {
    // docs/semantics.md §3.9: a workload without a reservation reads "is inactive", never "is stopped".
    w.reason = reason::kSuspended;
    w.message = fmt::format("ClusterQueue {} is inactive", cq.name);
    return;
  }
  if (!w.ns.valid() || !s.namespaces[w.ns.value].exists) {
    const std::string& ns = s.namespaces_names.Name(w.ns);
    w.reason = reason::kMisconfigured;
    w.message = fmt::format("workload namespace \"{}\" does not exist: namespaces \"{}\" not found", ns, ns);
    return;
  }
  if (!NamespaceMatches(s, cq, w.ns)) {
    w.reason = reason::kMisconfigured;
    w.message = CompactString::Static(kNamespaceMismatchMessage);
    return;
  }
  // Kept: a parked equivalent ("Bypassed ..."), the scheduler's own reasons until its next look,
  // and a workload no condition was ever written on while UnadmittedWorkloadsExplicitStatus is off.
  const std::string_view why(w.reason);
  const bool bypassed = std::string_view(w.message) == kBypassedMessage && PlaceOf(s, id) == QueuePlace::kInadmissible;
  if (why == reason::kPending && s.config.features.unadmitted_workloads_explicit_status) {
    // The gate stamps the condition at the first reconciliation: the blocked class's reason for a
    // workload parked on arrival (Kueue checks the equivalence cache for new workloads only with
    // the gate on), else PendingEvaluation (docs/semantics.md §8.1).
    if (bypassed) {
      if (const char* r = BlockedClassReason(id)) w.reason = r;
      return;
    }
    w.reason = reason::kPendingEvaluation;
    w.message = CompactString::Static(kPendingEvaluationMessage);
    return;
  }
  if (bypassed) return;
  if (why == reason::kPending || why == reason::kWaitingForQuota || why == reason::kNoMatchingFlavor ||
      why == reason::kExceedsMaxQuota || why == reason::kWaitingForPreemptedWorkloads ||
      why == reason::kPendingEvaluation)
    return;
  // A blockage that is gone (a queue resumed or created, the workload reactivated): pending
  // evaluation again.
  w.reason = reason::kPendingEvaluation;
  w.message = CompactString::Static(kPendingEvaluationMessage);
}

// ---- Finishing, eviction, deletion -------------------------------------------------------------

absl::Status EngineState::Finish(WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  if (w.state == WorkloadState::kFinished)
    return absl::FailedPreconditionError(fmt::format("Workload '{}': is already finished", s.WorkloadName(id)));
  ClusterQueueId cq = w.queued_in;
  if (w.admission) {
    cq = w.admission->cluster_queue;
    ReleaseAdmission(s, id);
    RequestFlush(s, cq);
  }
  RemoveFromQueues(s, id);
  w.scan.reset();
  w.state = WorkloadState::kFinished;
  w.reason = reason::kFinished;
  w.message = CompactString::Static("The workload is finished");
  AddEvent(EventKind::kFinished, id, cq).reason = reason::kFinished;
  return absl::OkStatus();
}

absl::Status EngineState::ConfirmEvicted(WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  if (w.state != WorkloadState::kEvicting)
    return absl::FailedPreconditionError(fmt::format("Workload '{}': is not being evicted (state {})",
                                                     s.WorkloadName(id), WorkloadStateName(w.state)));
  const ClusterQueueId cq = w.admission->cluster_queue;
  const Time evicted_at = w.admission->evicted_at;
  const char* evicted_for = w.reason;
  const std::string_view why(evicted_for);
  ReleaseAdmission(s, id);
  if (!s.config.features.priority_sorting_within_cohort && w.preemption_reason &&
      *w.preemption_reason == PreemptionReason::kInCohortReclaimWhileBorrowing)
    w.queue_time = evicted_at + Duration::Milliseconds(1);
  // Kueue's requeuing timestamp (Eviction, its default): a workload evicted for not getting ready
  // or by an admission check queues by its eviction time (docs/semantics.md §3.3).
  // With requeuingStrategy.timestamp Creation, a pods-ready timeout keeps the creation time.
  if (why == eviction_reason::kAdmissionCheck ||
      (why == eviction_reason::kPodsReadyTimeout &&
       s.config.wait_for_pods_ready.requeuing_timestamp == RequeuingTimestamp::kEviction))
    w.queue_time = evicted_at;
  else if (why == eviction_reason::kPodsReadyTimeout)
    w.queue_time = w.creation_time;
  if (w.active) {
    w.state = WorkloadState::kPending;
    // Kueue's job reconciler clears the reservation with reason PendingEvaluation and the eviction's
    // message, whatever the eviction was for.
    w.reason = reason::kPendingEvaluation;
    Enqueue(s, id);
    ReconcilePendingStatus(id);
    Event& e = AddEvent(EventKind::kRequeued, id, w.place == QueuePlace::kNone ? ClusterQueueId() : w.queued_in);
    e.reason = evicted_for;
  } else {
    MarkInactive(id);
  }
  RequestFlush(s, cq);
  return absl::OkStatus();
}

int EngineState::ConfirmAllEvicted() {
  std::vector<WorkloadId> evicting;
  for (ClusterQueueId cq : s.cqs_by_name)
    for (const CandidateKey& k : s.cq(cq).evicting) evicting.push_back(k.id);
  for (WorkloadId id : evicting) (void)ConfirmEvicted(id);
  return static_cast<int>(evicting.size());
}

void EngineState::EvictForReason(WorkloadId id, const char* why, std::string message) {
  WorkloadRecord& w = s.wl(id);
  if (!w.admission || w.admission->evicted) return;
  MarkEvicted(s, id, s.Now());
  w.reason = why;
  w.message = std::move(message);
  Event& e = AddEvent(EventKind::kEvicted, id, w.admission->cluster_queue);
  e.reason = why;
  e.message = w.message;
}

absl::Status EngineState::Evict(WorkloadId id, std::string_view why, std::string_view message) {
  WorkloadRecord& w = s.wl(id);
  const std::string label = ObjectLabel("Workload", s.namespaces_names.Name(w.ns), w.name);
  // A condition reason: CamelCase, as Kubernetes validates it (^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$).
  const bool valid_reason =
      !why.empty() && why.size() <= 1024 && absl::ascii_isalpha(static_cast<unsigned char>(why.front())) &&
      std::all_of(why.begin(), why.end(), [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ',' || c == ':'; }) &&
      why.back() != ',' && why.back() != ':';
  if (!valid_reason)
    return absl::InvalidArgumentError(
        fmt::format("{}: eviction reason '{}': must be a CamelCase condition reason such as PodsReadyTimeout", label, why));
  if (!w.admission)
    return absl::FailedPreconditionError(
        fmt::format("{}: holds no quota (state {}); only admitted workloads can be evicted", label, WorkloadStateName(w.state)));
  if (w.admission->evicted)
    return absl::FailedPreconditionError(fmt::format("{}: is already being evicted", label));
  EvictForReason(id, s.InternReason(why), std::string(message));
  return absl::OkStatus();
}

absl::Status EngineState::SetActive(WorkloadId id, bool active) {
  WorkloadRecord& w = s.wl(id);
  if (w.state == WorkloadState::kFinished)
    return absl::FailedPreconditionError(
        fmt::format("{}: is finished", ObjectLabel("Workload", s.namespaces_names.Name(w.ns), w.name)));
  if (w.active == active) return absl::OkStatus();
  w.active = active;
  if (!active) ClearRequeueState(w);
  if (w.admission) {
    // Holding quota: deactivation evicts (then it stays out once confirmed); reactivating a
    // workload still being evicted lets it requeue when confirmed.
    if (!active && !w.admission->evicted) EvictForReason(id, eviction_reason::kDeactivated, kDeactivatedMessage);
    return absl::OkStatus();
  }
  if (!active) {
    RemoveFromQueues(s, id);
    w.scan.reset();
    MarkInactive(id);
  } else {
    w.state = WorkloadState::kPending;
    Enqueue(s, id);
    ReconcilePendingStatus(id);  // Deactivated -> PendingEvaluation, unless blocked
    ReportActivated(id);
  }
  return absl::OkStatus();
}

absl::Status EngineState::SetPodsReady(WorkloadId id, bool ready) {
  WorkloadRecord& w = s.wl(id);
  if (!w.admission)
    return absl::FailedPreconditionError(fmt::format(
        "{}: status.conditions[PodsReady]: holds no quota (state {}); only a workload holding quota has pods",
        ObjectLabel("Workload", s.namespaces_names.Name(w.ns), w.name), WorkloadStateName(w.state)));
  AdmissionRecord& a = *w.admission;
  if (ready) {
    a.pods_ready = true;
    a.pods_recovering = false;
  } else if (a.pods_ready) {
    // PodsReady=False, reason WaitForRecovery: timed by recoveryTimeout from now.
    a.pods_ready = false;
    a.pods_recovering = true;
    a.pods_not_ready_since = s.Now();
  }
  return absl::OkStatus();
}

void EngineState::MarkInactive(WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  w.state = WorkloadState::kInactive;
  w.reason = reason::kDeactivated;
  w.message = CompactString::Static(kDeactivatedMessage);
  Event& e = AddEvent(EventKind::kDeactivated, id, ClusterQueueId());
  e.reason = eviction_reason::kDeactivated;
  e.message = kDeactivatedMessage;
}

void EngineState::ReportActivated(WorkloadId id) {
  const WorkloadRecord& w = s.wl(id);
  Event& e = AddEvent(EventKind::kActivated, id, w.place == QueuePlace::kNone ? ClusterQueueId() : w.queued_in);
  e.reason = kReactivatedReason;
  e.message = kReactivatedMessage;
}

absl::Status EngineState::SetReclaimablePods(WorkloadId id, std::string_view pod_set, int32_t count) {
  WorkloadRecord& w = s.wl(id);
  const std::string label = ObjectLabel("Workload", s.namespaces_names.Name(w.ns), w.name);
  // With ReclaimablePods off Kueue's job reconciler never writes status.reclaimablePods, the only
  // thing this call stands for (docs/semantics.md §1.7.1).
  if (!s.config.features.reclaimable_pods)
    return absl::FailedPreconditionError(fmt::format(
        "{}: status.reclaimablePods: not reported while feature gate ReclaimablePods is off", label));
  const WorkloadShape& shape = s.shape(w);
  size_t index = 0;
  while (index < shape.pod_sets.size() && shape.pod_sets[index].name != pod_set) ++index;
  if (index == shape.pod_sets.size())
    return absl::NotFoundError(fmt::format("{}: status.reclaimablePods: no pod set named '{}'", label, pod_set));
  if (w.state == WorkloadState::kFinished)
    return absl::FailedPreconditionError(fmt::format("{}: status.reclaimablePods[{}]: the workload is finished", label, pod_set));
  // Kueue's webhook: at most the pod set's count; no decrease while the workload holds quota.
  const int32_t spec_count = shape.pod_sets[index].count;
  if (count < 0 || count > spec_count)
    return absl::InvalidArgumentError(fmt::format(
        "{}: status.reclaimablePods[{}].count: {} is outside 0..{} (the pod set's count)", label, pod_set, count, spec_count));
  int32_t reported = 0;
  if (w.extras)
    for (const auto& [name, n] : w.extras->reclaimable_pods)
      if (name == pod_set) reported = n;
  if (w.admission && count < reported)
    return absl::InvalidArgumentError(fmt::format(
        "{}: status.reclaimablePods[{}].count: cannot decrease from {} to {} while the workload holds quota", label,
        pod_set, reported, count));
  if (count == reported) return absl::OkStatus();
  // A pending workload leaves its queue under its old equivalence class before the count changes it.
  const bool requeue = !w.admission && w.state == WorkloadState::kPending;
  if (requeue) RemoveFromQueues(s, id);
  if (!w.extras) w.extras = std::make_unique<WorkloadExtras>();
  auto& list = w.extras->reclaimable_pods;
  auto it = std::find_if(list.begin(), list.end(), [&](const auto& p) { return p.first == pod_set; });
  if (it == list.end()) list.emplace_back(std::string(pod_set), count);
  else it->second = count;
  if (!w.admission) {
    // Without quota the request shrinks (docs/semantics.md §1.7.1). Like any status change Kueue's
    // queue manager sees, it moves a parked workload back to the active queue, under its new
    // equivalence class.
    if (requeue) {
      Enqueue(s, id);
      ReconcilePendingStatus(id);
    }
    return absl::OkStatus();
  }
  AdmissionRecord& a = *w.admission;
  AdmissionRecord::PodSet& ps = a.pod_sets[index];
  // Kueue keeps min(admitted count, spec count - reclaimable) pods' usage (AdmissionUsage).
  // The released part of the usage leaves the quota tree at once.
  RemoveAdmissionUsage(s, w);
  ps.reclaimable = std::clamp(ps.count - (spec_count - count), int32_t{0}, std::max(ps.count, int32_t{0}));
  AddAdmissionUsage(s, w);
  ++s.cq(a.cluster_queue).generation;
  RequestFlush(s, a.cluster_queue);
  return absl::OkStatus();
}

void EngineState::DeleteWorkload(WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  ClusterQueueId cq = w.place == QueuePlace::kNone ? ClusterQueueId() : w.queued_in;
  if (w.admission) {
    cq = w.admission->cluster_queue;
    ReleaseAdmission(s, id);
    RequestFlush(s, cq);
  }
  AddEvent(EventKind::kDeleted, id, cq);
  RemoveFromQueues(s, id);
  // A sticky preemptor that was admitted keeps its id in its queue (Kueue clears it on admission,
  // which the engine does not yet: docs/semantics.md §3.2), and so may one that left its queue
  // another way (its LocalQueue deleted or re-pointed, deactivated). Once the workload is deleted
  // the id must go from every ClusterQueue, or a workload that reuses the slot would jump that
  // queue (engine fuzzer findings). O(ClusterQueues) per delete: a compare each, off the cycle.
  for (ClusterQueueState& q : s.cqs)
    if (q.sticky_preemptor == id) q.sticky_preemptor = WorkloadId();
  s.workload_index.erase(id);
  ReleaseShape(w.shape);
  const uint32_t generation = w.generation;
  w = WorkloadRecord();
  w.deleted = true;
  w.generation = generation + 1;  // every handle of the deleted workload is stale from now on
  s.free_workloads.push_back(id);
}

}  // namespace qm::internal
