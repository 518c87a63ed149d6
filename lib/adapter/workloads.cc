// Workload life cycle in the engine: submission (pending or already holding quota), updates,
// finishing, two-phase eviction and deletion.
#include <algorithm>
#include <string>
#include <utility>
#include <variant>

#include "absl/hash/hash.h"
#include "adapter/engine_state.h"
#include "fmt/format.h"
#include "qm/model/validate.h"
#include "qm/queue/pending_queue.h"
#include "qm/state/accounting.h"

namespace qm::internal {
namespace {

constexpr std::string_view kQueueNameLabel = "kueue.x-k8s.io/queue-name";
constexpr std::string_view kPriorityClassLabel = "kueue.x-k8s.io/priority-class";

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

uint64_t HashShape(const WorkloadShape& shape) {
  size_t h = absl::HashOf(shape.pod_sets.size());
  for (const PodSetShape& ps : shape.pod_sets) {
    h = absl::HashOf(h, ps.name, ps.count, ps.min_count);
    for (const auto& [r, v] : ps.per_pod) h = absl::HashOf(h, r.value, v);
    for (const auto& [k, v] : ps.node_selector) h = absl::HashOf(h, k, v);
    if (ps.required_node_affinity)
      for (const auto& t : *ps.required_node_affinity)
        for (const auto& e : t.match_expressions) h = absl::HashOf(h, e.key, static_cast<int>(e.op), e.values);
    for (const auto& t : ps.tolerations)
      h = absl::HashOf(h, t.key, static_cast<int>(t.op), t.value, t.effect.has_value() ? static_cast<int>(*t.effect) : -1);
  }
  return h;
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
  // The global-default PriorityClass (the lowest one if several claim it), else 0 (§1.6).
  bool found = false;
  int32_t lowest = 0;
  for (const auto& [name, pc] : s.priority_classes) {
    if (!pc.global_default) continue;
    if (!found || pc.value < lowest) lowest = pc.value;
    found = true;
  }
  return found ? lowest : 0;
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
  // Updates of a workload that holds quota may change little.
  const NamespaceId ns = s.namespaces_names.Find(ns_name);
  const WorkloadId existing = ns.valid() ? s.FindWorkload(ns, spec.name) : WorkloadId();
  if (existing.valid()) {
    const WorkloadRecord& w = s.wl(existing);
    if (w.state == WorkloadState::kFinished)
      return absl::FailedPreconditionError(fmt::format("{}: is finished and cannot be updated", object));
    if (w.admission) {
      if (spec.pod_sets.size() != s.shape(w).pod_sets.size())
        return absl::FailedPreconditionError(
            fmt::format("{}: spec.podSets: cannot change while the workload holds quota", object));
      for (size_t i = 0; i < spec.pod_sets.size(); ++i) {
        const PodSetShape& have = s.shape(w).pod_sets[i];
        if (spec.pod_sets[i].name != have.name || spec.pod_sets[i].count != have.count)
          return absl::FailedPreconditionError(
              fmt::format("{}: spec.podSets[{}]: cannot change while the workload holds quota", object, i));
      }
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

WorkloadId EngineState::ApplyWorkload(const WorkloadSpec& spec) {
  const NamespaceId ns = InternNamespace(NamespaceOf(spec.namespace_));
  WorkloadId id = s.FindWorkload(ns, spec.name);
  const bool update = id.valid();

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
      if (priority != w.priority) {
        ClusterQueueState& cq = s.cq(w.admission->cluster_queue);
        CandidateSet& set = w.admission->evicted ? cq.evicting : cq.admitted;
        set.erase(CandidateKeyOf(s, id));
        w.priority = priority;
        set.insert(CandidateKeyOf(s, id));
        RequestFlush(s, w.admission->cluster_queue);
      }
      w.active = spec.active;
      if (!spec.active && !w.admission->evicted)
        EvictForReason(id, "InactiveWorkload", "The workload is deactivated");
      return id;
    }
    // Pending or inactive: replace the spec and queue it again.
    RemoveFromQueues(s, id);
    ReleaseShape(w.shape);
    w.shape = InternShape(std::move(shape));
    w.priority = priority;
    w.queue_name = s.queue_names.Intern(QueueNameOf(spec));
    w.active = spec.active;
    if (spec.creation_time) w.creation_time = *spec.creation_time;
    w.queue_time = w.creation_time;
    w.scan.reset();
    w.uid_text = spec.uid.empty() ? nullptr : std::make_unique<const std::string>(spec.uid);
    if (!spec.job_uid.empty() || !spec.labels.empty() || !spec.conditions.empty()) {
      if (!w.extras) w.extras = std::make_unique<WorkloadExtras>();
      w.extras->job_uid = spec.job_uid;
      w.extras->labels = spec.labels;
      w.extras->conditions = spec.conditions;
    }
    if (w.active) {
      w.state = WorkloadState::kPending;
      w.reason = reason::kPending;
      w.message.clear();
      Enqueue(s, id);
    } else {
      w.state = WorkloadState::kInactive;
      w.reason = reason::kInadmissible;
      w.message = "The workload is deactivated";
    }
    return id;
  }

  if (!s.free_workloads.empty()) {
    id = s.free_workloads.back();
    s.free_workloads.pop_back();
    s.workloads[id.value] = WorkloadRecord();
  } else {
    id = WorkloadId(static_cast<uint32_t>(s.workloads.size()));
    s.workloads.emplace_back();
  }
  WorkloadRecord& w = s.wl(id);
  w.ns = ns;
  w.name = spec.name;
  w.queue_name = s.queue_names.Intern(QueueNameOf(spec));
  if (!spec.uid.empty()) w.uid_text = std::make_unique<const std::string>(spec.uid);
  if (!spec.job_uid.empty() || !spec.labels.empty() || !spec.conditions.empty() ||
      spec.priority_class.source != PriorityClassSource::kNone || !spec.reclaimable_pods.empty()) {
    w.extras = std::make_unique<WorkloadExtras>();
    w.extras->job_uid = spec.job_uid;
    w.extras->labels = spec.labels;
    w.extras->priority_class = spec.priority_class;
    w.extras->conditions = spec.conditions;
    w.extras->reclaimable_pods = spec.reclaimable_pods;
  }
  w.shape = InternShape(std::move(shape));
  w.priority = ResolvePriority(spec);
  w.active = spec.active;
  w.creation_time = spec.creation_time.value_or(s.Now());
  w.seq = s.next_seq++;
  // Queue-order timestamp (§3.3).
  w.queue_time = w.creation_time;
  if (const ConditionSpec* ev = TrueCondition(spec, "Evicted");
      ev != nullptr && (ev->reason == "PodsReadyTimeout" || ev->reason == "AdmissionCheck") && ev->last_transition_time) {
    w.queue_time = *ev->last_transition_time;
  } else if (const ConditionSpec* pr = TrueCondition(spec, "Preempted");
             !s.config.features.priority_sorting_within_cohort && pr != nullptr &&
             pr->reason == "InCohortReclaimWhileBorrowing" && pr->last_transition_time) {
    w.queue_time = *pr->last_transition_time + Duration::Milliseconds(1);
  }
  s.workload_index.insert(id);

  if (spec.admission.has_value()) {
    const WorkloadShape& sh = s.shapes[w.shape];
    auto a = std::make_unique<AdmissionRecord>();
    a->cluster_queue = s.cq_names.Find(spec.admission->cluster_queue);
    a->pod_sets.resize(sh.pod_sets.size());
    for (const PodSetAssignmentSpec& psa : spec.admission->pod_set_assignments) {
      size_t idx = 0;
      while (sh.pod_sets[idx].name != psa.name) ++idx;
      const PodSetShape& ps = sh.pod_sets[idx];
      AdmissionRecord::PodSet& out = a->pod_sets[idx];
      out.count = psa.count.value_or(ps.count);
      int32_t reclaimable = 0;
      for (const auto& [name, n] : spec.reclaimable_pods)
        if (name == psa.name) reclaimable = std::min(n, out.count);
      for (const auto& [res, flavor] : psa.flavors) {
        const ResourceId rid = s.catalog.InternResource(res);
        const FlavorId fid = InternFlavor(flavor);
        out.flavors.emplace_back(rid, fid);
        int64_t per_pod = 0;
        for (const auto& [r, v] : ps.per_pod)
          if (r == rid) per_pod = v;
        int64_t total = MulAmount(per_pod, out.count);
        for (const auto& [r, v] : psa.resource_usage)
          if (r == res) total = v;
        out.usage.emplace_back(rid, total);
        // Usage of the pods still running: total scaled down by the reclaimable ones, per pod first.
        int64_t live = total;
        if (reclaimable > 0) live = out.count == 0 ? 0 : MulAmount(total / out.count, out.count - reclaimable);
        const FrId fr = InternFr(fid, rid);
        auto it = std::lower_bound(a->usage.begin(), a->usage.end(), std::make_pair(fr, int64_t{0}),
                                   [](const auto& x, const auto& y) { return x.first < y.first; });
        if (it != a->usage.end() && it->first == fr) it->second = AddAmount(it->second, live);
        else a->usage.insert(it, std::make_pair(fr, live));
      }
      std::sort(out.flavors.begin(), out.flavors.end());
      std::sort(out.usage.begin(), out.usage.end());
    }
    const ConditionSpec* reserved = TrueCondition(spec, "QuotaReserved");
    a->reserved_at = reserved != nullptr && reserved->last_transition_time ? *reserved->last_transition_time : s.Now();
    if (const ConditionSpec* ev = TrueCondition(spec, "Evicted")) {
      a->evicted = true;
      a->evicted_at = ev->last_transition_time.value_or(s.Now());
    }
    w.admission = std::move(a);
    AccountAdmission(s, id);
    w.reason = reason::kQuotaReserved;
    w.message.clear();  // formatted on demand (AdmittedMessage)
    if (w.admission->evicted) {
      const ConditionSpec* ev = TrueCondition(spec, "Evicted");
      w.reason = ev->reason.empty() ? reason::kPreempted : s.InternReason(ev->reason);
      if (!ev->message.empty()) w.message = ev->message;
    }
    return id;
  }
  if (!w.active) {
    w.state = WorkloadState::kInactive;
    w.reason = reason::kInadmissible;
    w.message = "The workload is deactivated";
    return id;
  }
  w.state = WorkloadState::kPending;
  w.reason = reason::kPending;
  Enqueue(s, id);
  if (w.place != QueuePlace::kNone && !s.cq(w.queued_in).active) {
    const ClusterQueueState& cq = s.cq(w.queued_in);
    w.reason = reason::kSuspended;
    w.message = cq.spec.stop_policy != StopPolicy::kNone ? fmt::format("ClusterQueue {} is stopped", cq.name)
                                                         : fmt::format("ClusterQueue {} is inactive", cq.name);
  }
  return id;
}

// ---- Finishing, eviction, deletion -------------------------------------------------------------

absl::Status EngineState::Finish(WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  if (w.state == WorkloadState::kFinished)
    return absl::FailedPreconditionError(fmt::format("Workload '{}': is already finished", s.WorkloadName(id)));
  if (w.admission) {
    const ClusterQueueId cq = w.admission->cluster_queue;
    ReleaseAdmission(s, id);
    RequestFlush(s, cq);
  }
  RemoveFromQueues(s, id);
  w.scan.reset();
  w.state = WorkloadState::kFinished;
  w.reason = reason::kFinished;
  w.message = "The workload is finished";
  return absl::OkStatus();
}

absl::Status EngineState::ConfirmEvicted(WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  if (w.state != WorkloadState::kEvicting)
    return absl::FailedPreconditionError(fmt::format("Workload '{}': is not being evicted (state {})",
                                                     s.WorkloadName(id), WorkloadStateName(w.state)));
  const ClusterQueueId cq = w.admission->cluster_queue;
  const Time evicted_at = w.admission->evicted_at;
  ReleaseAdmission(s, id);
  if (!s.config.features.priority_sorting_within_cohort && w.preemption_reason &&
      *w.preemption_reason == PreemptionReason::kInCohortReclaimWhileBorrowing)
    w.queue_time = evicted_at + Duration::Milliseconds(1);
  if (w.active) {
    w.state = WorkloadState::kPending;
    if (std::string_view(w.reason) == reason::kPreempted) w.reason = reason::kPendingEvaluation;
    Enqueue(s, id);
  } else {
    w.state = WorkloadState::kInactive;
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
}

void EngineState::DeleteWorkload(WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  if (w.admission) {
    const ClusterQueueId cq = w.admission->cluster_queue;
    ReleaseAdmission(s, id);
    RequestFlush(s, cq);
  }
  RemoveFromQueues(s, id);
  s.workload_index.erase(id);
  ReleaseShape(w.shape);
  w = WorkloadRecord();
  w.deleted = true;
  s.free_workloads.push_back(id);
}

}  // namespace qm::internal
