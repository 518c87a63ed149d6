#include "qm/text/manifest_writer.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "fmt/format.h"
#include "text/doc.h"
#include "qm/core/quantity_text.h"
#include "qm/text/time_text.h"
#include "qm/model/namespace_name.h"
#include "qm/model/selectors.h"

namespace qm {
namespace {

using internal::Doc;

constexpr std::string_view kKueueApiVersion = "kueue.x-k8s.io/v1beta2";
constexpr std::string_view kKueueApiVersionV1beta1 = "kueue.x-k8s.io/v1beta1";
constexpr std::string_view kJobUidLabel = "kueue.x-k8s.io/job-uid";

Doc StringMapDoc(const Labels& labels) {
  Doc d = Doc::Map();
  for (const auto& [k, v] : labels) d.Set(k, Doc::Str(v));
  return d;
}

Doc StringsDoc(const std::vector<std::string>& items) {
  Doc d = Doc::List();
  for (const std::string& s : items) d.Add(Doc::Str(s));
  return d.Flow();
}

Doc AmountsDoc(const ResourceAmounts& amounts) {
  Doc d = Doc::Map();
  for (const auto& [resource, amount] : amounts) {
    d.Set(resource, Doc::Str(FormatQuantityForManifest(resource, amount)));
  }
  return d;
}

bool IsV1beta1(const ManifestWriteOptions& o) { return o.api_version == KueueApiVersion::kV1beta1; }

std::string_view KueueApiVersionOf(const ManifestWriteOptions& o) {
  return IsV1beta1(o) ? kKueueApiVersionV1beta1 : kKueueApiVersion;
}

// Flow style keeps v1beta2 output compact; v1beta1 output mirrors `kubectl get -o yaml`, which
// writes nested maps as blocks.
Doc& FlowUnlessV1beta1(Doc& d, const ManifestWriteOptions& o) {
  return IsV1beta1(o) ? d : d.Flow();
}

// `map` with its keys in alphabetical order: `kubectl get -o yaml` prints custom resources so, and
// the HyperPod mapping (docs/hyperpod.md §2.3) shows ClusterQueues in that order.
Doc SortedKeys(const Doc& map) {
  std::vector<std::pair<std::string, Doc>> entries = map.entries();
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Doc out = Doc::Map();
  for (auto& [k, v] : entries) out.Set(std::move(k), std::move(v));
  if (map.flow()) out.Flow();
  return out;
}

Doc Header(std::string_view api_version, std::string_view kind, Doc metadata) {
  Doc d = Doc::Map();
  d.Set("apiVersion", Doc::Str(std::string(api_version)));
  d.Set("kind", Doc::Str(std::string(kind)));
  d.Set("metadata", std::move(metadata));
  return d;
}

Doc Metadata(const std::string& name, const std::string& namespace_, const Labels& labels) {
  Doc m = Doc::Map();
  m.Set("name", Doc::Str(name));
  if (!namespace_.empty()) m.Set("namespace", Doc::Str(namespace_));
  if (!labels.empty()) m.Set("labels", StringMapDoc(labels));
  return m;
}

std::string WeightText(int64_t milli) {
  std::string out = std::to_string(milli / 1000);
  if (milli % 1000 != 0) {
    std::string frac = fmt::format("{:03}", milli % 1000);
    while (frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out;
}

const char* StopPolicyName(StopPolicy p) {
  switch (p) {
    case StopPolicy::kNone: return "None";
    case StopPolicy::kHold: return "Hold";
    case StopPolicy::kHoldAndDrain: return "HoldAndDrain";
  }
  return "None";
}

Doc TolerationsDoc(const std::vector<Toleration>& tolerations) {
  Doc list = Doc::List();
  for (const Toleration& t : tolerations) {
    Doc d = Doc::Map();
    if (!t.key.empty()) d.Set("key", Doc::Str(t.key));
    d.Set("operator", Doc::Str(t.op == Toleration::Operator::kExists ? "Exists" : "Equal"));
    if (!t.value.empty()) d.Set("value", Doc::Str(t.value));
    if (t.effect.has_value()) d.Set("effect", Doc::Str(TaintEffectName(*t.effect)));
    list.Add(d.Flow());
  }
  return list;
}

Doc ResourceGroupsDoc(const std::vector<ResourceGroupSpec>& groups) {
  Doc list = Doc::List();
  for (const ResourceGroupSpec& g : groups) {
    Doc group = Doc::Map();
    group.Set("coveredResources", StringsDoc(g.covered_resources));
    Doc flavors = Doc::List();
    for (const FlavorQuotasSpec& f : g.flavors) {
      Doc flavor = Doc::Map();
      flavor.Set("name", Doc::Str(f.name));
      Doc resources = Doc::List();
      for (const ResourceQuotaSpec& r : f.resources) {
        Doc q = Doc::Map();
        q.Set("name", Doc::Str(r.name));
        q.Set("nominalQuota", Doc::Str(FormatQuantityForManifest(r.name, r.nominal_quota)));
        if (r.borrowing_limit.has_value()) {
          q.Set("borrowingLimit", Doc::Str(FormatQuantityForManifest(r.name, *r.borrowing_limit)));
        }
        if (r.lending_limit.has_value()) {
          q.Set("lendingLimit", Doc::Str(FormatQuantityForManifest(r.name, *r.lending_limit)));
        }
        resources.Add(q.Flow());
      }
      flavor.Set("resources", std::move(resources));
      flavors.Add(std::move(flavor));
    }
    group.Set("flavors", std::move(flavors));
    list.Add(std::move(group));
  }
  return list;
}

Doc LabelSelectorDoc(const LabelSelector& selector) {
  Doc d = Doc::Map();
  if (!selector.match_labels.empty()) d.Set("matchLabels", StringMapDoc(selector.match_labels));
  if (!selector.match_expressions.empty()) {
    Doc exprs = Doc::List();
    for (const LabelSelectorRequirement& r : selector.match_expressions) {
      static constexpr const char* kOps[] = {"In", "NotIn", "Exists", "DoesNotExist"};
      Doc e = Doc::Map();
      e.Set("key", Doc::Str(r.key));
      e.Set("operator", Doc::Str(kOps[static_cast<int>(r.op)]));
      if (!r.values.empty()) e.Set("values", StringsDoc(r.values));
      exprs.Add(e.Flow());
    }
    d.Set("matchExpressions", std::move(exprs));
  }
  return d;
}

Doc WeightDoc(int64_t milli, const ManifestWriteOptions& o) {
  Doc d = Doc::Map();
  d.Set("weight", Doc::Str(WeightText(milli)));
  return FlowUnlessV1beta1(d, o);
}

Doc NamespaceDoc(const NamespaceSpec& ns) {
  return Header("v1", "Namespace", Metadata(ns.name, "", ns.labels));
}

Doc ResourceFlavorDoc(const ResourceFlavorSpec& rf, const ManifestWriteOptions& o) {
  Doc d = Header(KueueApiVersionOf(o), "ResourceFlavor", Metadata(rf.name, "", {}));
  Doc spec = Doc::Map();
  if (!rf.node_labels.empty()) spec.Set("nodeLabels", StringMapDoc(rf.node_labels));
  if (!rf.node_taints.empty()) {
    Doc taints = Doc::List();
    for (const Taint& t : rf.node_taints) {
      Doc taint = Doc::Map();
      taint.Set("key", Doc::Str(t.key));
      if (!t.value.empty()) taint.Set("value", Doc::Str(t.value));
      taint.Set("effect", Doc::Str(TaintEffectName(t.effect)));
      taints.Add(taint.Flow());
    }
    spec.Set("nodeTaints", std::move(taints));
  }
  if (!rf.tolerations.empty()) spec.Set("tolerations", TolerationsDoc(rf.tolerations));
  d.Set("spec", std::move(spec));
  return d;
}

Doc CohortDoc(const CohortSpec& c, const ManifestWriteOptions& o) {
  Doc d = Header(KueueApiVersionOf(o), "Cohort", Metadata(c.name, "", {}));
  Doc spec = Doc::Map();
  if (!c.parent.empty()) spec.Set(IsV1beta1(o) ? "parent" : "parentName", Doc::Str(c.parent));
  if (!c.resource_groups.empty()) spec.Set("resourceGroups", ResourceGroupsDoc(c.resource_groups));
  if (c.fair_sharing_weight_milli != kDefaultWeightMilli || o.explicit_defaults) {
    spec.Set("fairSharing", WeightDoc(c.fair_sharing_weight_milli, o));
  }
  d.Set("spec", std::move(spec));
  return d;
}

Doc ClusterQueueDoc(const ClusterQueueSpec& cq, const ManifestWriteOptions& o) {
  static constexpr const char* kWithin[] = {"Never", "LowerPriority", "LowerOrNewerEqualPriority"};
  static constexpr const char* kReclaim[] = {"Never", "LowerPriority", "Any"};
  static constexpr const char* kBorrow[] = {"Never", "LowerPriority"};
  static constexpr const char* kFungibility[] = {"MayStopSearch", "TryNextFlavor"};
  // v1beta1's original names for `MayStopSearch`: every v1beta1 Kueue accepts them, while
  // `MayStopSearch` came to v1beta1 only shortly before v1beta2.
  static constexpr const char* kWhenCanBorrowV1beta1[] = {"Borrow", "TryNextFlavor"};
  static constexpr const char* kWhenCanPreemptV1beta1[] = {"Preempt", "TryNextFlavor"};
  static constexpr const char* kPreference[] = {"BorrowingOverPreemption",
                                                "PreemptionOverBorrowing"};
  const bool v1beta1 = IsV1beta1(o);
  Doc d = Header(KueueApiVersionOf(o), "ClusterQueue", Metadata(cq.name, "", cq.labels));
  Doc spec = Doc::Map();
  if (!cq.cohort.empty()) spec.Set(v1beta1 ? "cohort" : "cohortName", Doc::Str(cq.cohort));
  if (cq.namespace_selector.has_value()) {
    spec.Set("namespaceSelector", LabelSelectorDoc(*cq.namespace_selector));
  }
  spec.Set("queueingStrategy",
           Doc::Str(cq.queueing_strategy == QueueingStrategy::kStrictFIFO ? "StrictFIFO"
                                                                          : "BestEffortFIFO"));
  if (!cq.resource_groups.empty()) spec.Set("resourceGroups", ResourceGroupsDoc(cq.resource_groups));
  Doc fungibility = Doc::Map();
  const int when_can_borrow = static_cast<int>(cq.flavor_fungibility.when_can_borrow);
  const int when_can_preempt = static_cast<int>(cq.flavor_fungibility.when_can_preempt);
  fungibility.Set("whenCanBorrow", Doc::Str(v1beta1 ? kWhenCanBorrowV1beta1[when_can_borrow]
                                                    : kFungibility[when_can_borrow]));
  fungibility.Set("whenCanPreempt", Doc::Str(v1beta1 ? kWhenCanPreemptV1beta1[when_can_preempt]
                                                     : kFungibility[when_can_preempt]));
  if (cq.flavor_fungibility.preference.has_value() && !v1beta1) {
    fungibility.Set("preference",
                    Doc::Str(kPreference[static_cast<int>(*cq.flavor_fungibility.preference)]));
  }
  spec.Set("flavorFungibility", std::move(FlowUnlessV1beta1(fungibility, o)));
  Doc preemption = Doc::Map();
  preemption.Set("withinClusterQueue",
                 Doc::Str(kWithin[static_cast<int>(cq.preemption.within_cluster_queue)]));
  preemption.Set("reclaimWithinCohort",
                 Doc::Str(kReclaim[static_cast<int>(cq.preemption.reclaim_within_cohort)]));
  Doc borrow = Doc::Map();
  borrow.Set("policy",
             Doc::Str(kBorrow[static_cast<int>(cq.preemption.borrow_within_cohort.policy)]));
  if (cq.preemption.borrow_within_cohort.max_priority_threshold.has_value()) {
    borrow.Set("maxPriorityThreshold",
               Doc::Int(*cq.preemption.borrow_within_cohort.max_priority_threshold));
  }
  preemption.Set("borrowWithinCohort", std::move(FlowUnlessV1beta1(borrow, o)));
  spec.Set("preemption", v1beta1 ? SortedKeys(preemption) : std::move(preemption));
  if (cq.fair_sharing_weight_milli != kDefaultWeightMilli || o.explicit_defaults) {
    spec.Set("fairSharing", WeightDoc(cq.fair_sharing_weight_milli, o));
  }
  if (cq.stop_policy != StopPolicy::kNone) {
    spec.Set("stopPolicy", Doc::Str(StopPolicyName(cq.stop_policy)));
  }
  d.Set("spec", v1beta1 ? SortedKeys(spec) : std::move(spec));
  return d;
}

Doc LocalQueueDoc(const LocalQueueSpec& lq, const ManifestWriteOptions& o) {
  Doc d = Header(KueueApiVersionOf(o), "LocalQueue",
                 Metadata(lq.name, std::string(NamespaceOrDefault(lq.namespace_)), lq.labels));
  Doc spec = Doc::Map();
  spec.Set("clusterQueue", Doc::Str(lq.cluster_queue));
  if (lq.stop_policy != StopPolicy::kNone || o.explicit_defaults) {
    spec.Set("stopPolicy", Doc::Str(StopPolicyName(lq.stop_policy)));
  }
  d.Set("spec", std::move(spec));
  return d;
}

Doc WorkloadPriorityClassDoc(const WorkloadPriorityClassSpec& pc, const ManifestWriteOptions& o) {
  Doc d = Header(KueueApiVersionOf(o), "WorkloadPriorityClass", Metadata(pc.name, "", {}));
  d.Set("value", Doc::Int(pc.value));
  if (!pc.description.empty()) d.Set("description", Doc::Str(pc.description));
  return d;
}

Doc PriorityClassDoc(const PriorityClassSpec& pc) {
  Doc d = Header("scheduling.k8s.io/v1", "PriorityClass", Metadata(pc.name, "", {}));
  d.Set("value", Doc::Int(pc.value));
  if (pc.global_default) d.Set("globalDefault", Doc::Bool(true));
  if (!pc.description.empty()) d.Set("description", Doc::Str(pc.description));
  return d;
}

Doc PodSetDoc(const PodSetSpec& ps) {
  static constexpr const char* kNodeOps[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
  Doc d = Doc::Map();
  d.Set("name", Doc::Str(ps.name));
  d.Set("count", Doc::Int(ps.count));
  if (ps.min_count.has_value()) d.Set("minCount", Doc::Int(*ps.min_count));
  Doc pod = Doc::Map();
  Doc container = Doc::Map();
  container.Set("name", Doc::Str("main"));
  Doc resources = Doc::Map();
  resources.Set("requests", std::move(AmountsDoc(ps.requests).Flow()));
  container.Set("resources", std::move(resources));
  Doc containers = Doc::List();
  containers.Add(std::move(container));
  pod.Set("containers", std::move(containers));
  if (!ps.node_selector.empty()) pod.Set("nodeSelector", StringMapDoc(ps.node_selector));
  if (ps.required_node_affinity.has_value()) {
    Doc terms = Doc::List();
    for (const NodeSelectorTerm& t : *ps.required_node_affinity) {
      Doc exprs = Doc::List();
      for (const NodeSelectorRequirement& r : t.match_expressions) {
        Doc e = Doc::Map();
        e.Set("key", Doc::Str(r.key));
        e.Set("operator", Doc::Str(kNodeOps[static_cast<int>(r.op)]));
        if (!r.values.empty()) e.Set("values", StringsDoc(r.values));
        exprs.Add(e.Flow());
      }
      Doc term = Doc::Map();
      term.Set("matchExpressions", std::move(exprs));
      terms.Add(std::move(term));
    }
    Doc required = Doc::Map();
    required.Set("nodeSelectorTerms", std::move(terms));
    Doc node_affinity = Doc::Map();
    node_affinity.Set("requiredDuringSchedulingIgnoredDuringExecution", std::move(required));
    Doc affinity = Doc::Map();
    affinity.Set("nodeAffinity", std::move(node_affinity));
    pod.Set("affinity", std::move(affinity));
  }
  if (!ps.tolerations.empty()) pod.Set("tolerations", TolerationsDoc(ps.tolerations));
  Doc tmpl = Doc::Map();
  tmpl.Set("spec", std::move(pod));
  d.Set("template", std::move(tmpl));
  return d;
}

Doc AdmissionDoc(const AdmissionSpec& admission) {
  Doc d = Doc::Map();
  d.Set("clusterQueue", Doc::Str(admission.cluster_queue));
  Doc assignments = Doc::List();
  for (const PodSetAssignmentSpec& psa : admission.pod_set_assignments) {
    Doc a = Doc::Map();
    a.Set("name", Doc::Str(psa.name));
    Doc flavors = Doc::Map();
    for (const auto& [resource, flavor] : psa.flavors) flavors.Set(resource, Doc::Str(flavor));
    a.Set("flavors", std::move(flavors.Flow()));
    if (!psa.resource_usage.empty()) {
      a.Set("resourceUsage", std::move(AmountsDoc(psa.resource_usage).Flow()));
    }
    if (psa.count.has_value()) a.Set("count", Doc::Int(*psa.count));
    assignments.Add(std::move(a));
  }
  d.Set("podSetAssignments", std::move(assignments));
  return d;
}

Doc ConditionDoc(const ConditionSpec& c) {
  Doc d = Doc::Map();
  d.Set("type", Doc::Str(c.type));
  d.Set("status", Doc::Str(c.status ? "True" : "False"));
  if (!c.reason.empty()) d.Set("reason", Doc::Str(c.reason));
  if (!c.message.empty()) d.Set("message", Doc::Str(c.message));
  if (c.last_transition_time.has_value()) {
    d.Set("lastTransitionTime", Doc::Str(FormatRfc3339(*c.last_transition_time)));
  }
  return d;
}

Doc WorkloadDoc(const WorkloadSpec& wl, const ManifestWriteOptions& o) {
  Labels labels = wl.labels;
  if (!wl.job_uid.empty() && FindLabel(labels, kJobUidLabel) == nullptr) {
    labels.emplace_back(kJobUidLabel, wl.job_uid);
    std::sort(labels.begin(), labels.end());
  }
  Doc metadata = Metadata(wl.name, std::string(NamespaceOrDefault(wl.namespace_)), {});
  if (!wl.uid.empty()) metadata.Set("uid", Doc::Str(wl.uid));
  if (wl.creation_time.has_value()) {
    metadata.Set("creationTimestamp", Doc::Str(FormatRfc3339(*wl.creation_time)));
  }
  if (!labels.empty()) metadata.Set("labels", StringMapDoc(labels));
  Doc d = Header(KueueApiVersionOf(o), "Workload", std::move(metadata));
  Doc spec = Doc::Map();
  if (!wl.queue_name.empty()) spec.Set("queueName", Doc::Str(wl.queue_name));
  if (wl.priority.has_value()) spec.Set("priority", Doc::Int(*wl.priority));
  const bool wpc = wl.priority_class.source == PriorityClassSource::kWorkloadPriorityClass;
  if (wl.priority_class.source != PriorityClassSource::kNone && IsV1beta1(o)) {
    spec.Set("priorityClassSource", Doc::Str(wpc ? "kueue.x-k8s.io/workloadpriorityclass"
                                                 : "scheduling.k8s.io/priorityclass"));
    spec.Set("priorityClassName", Doc::Str(wl.priority_class.name));
  } else if (wl.priority_class.source != PriorityClassSource::kNone) {
    Doc ref = Doc::Map();
    ref.Set("group", Doc::Str(wpc ? "kueue.x-k8s.io" : "scheduling.k8s.io"));
    ref.Set("kind", Doc::Str(wpc ? "WorkloadPriorityClass" : "PriorityClass"));
    ref.Set("name", Doc::Str(wl.priority_class.name));
    spec.Set("priorityClassRef", std::move(ref.Flow()));
  }
  if (!wl.active) spec.Set("active", Doc::Bool(false));
  Doc pod_sets = Doc::List();
  for (const PodSetSpec& ps : wl.pod_sets) pod_sets.Add(PodSetDoc(ps));
  spec.Set("podSets", std::move(pod_sets));
  d.Set("spec", std::move(spec));
  Doc status = Doc::Map();
  if (wl.admission.has_value()) status.Set("admission", AdmissionDoc(*wl.admission));
  if (!wl.conditions.empty()) {
    Doc conditions = Doc::List();
    for (const ConditionSpec& c : wl.conditions) conditions.Add(std::move(ConditionDoc(c).Flow()));
    status.Set("conditions", std::move(conditions));
  }
  if (!wl.reclaimable_pods.empty()) {
    Doc pods = Doc::List();
    for (const auto& [name, count] : wl.reclaimable_pods) {
      Doc p = Doc::Map();
      p.Set("name", Doc::Str(name));
      p.Set("count", Doc::Int(count));
      pods.Add(std::move(p.Flow()));
    }
    status.Set("reclaimablePods", std::move(pods));
  }
  if (status.size() > 0) d.Set("status", std::move(status));
  return d;
}

Doc ObjectDoc(const ObjectSpec& spec, const ManifestWriteOptions& o) {
  return std::visit(
      [&o](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, NamespaceSpec>) return NamespaceDoc(s);
        if constexpr (std::is_same_v<T, ResourceFlavorSpec>) return ResourceFlavorDoc(s, o);
        if constexpr (std::is_same_v<T, CohortSpec>) return CohortDoc(s, o);
        if constexpr (std::is_same_v<T, ClusterQueueSpec>) return ClusterQueueDoc(s, o);
        if constexpr (std::is_same_v<T, LocalQueueSpec>) return LocalQueueDoc(s, o);
        if constexpr (std::is_same_v<T, WorkloadPriorityClassSpec>) {
          return WorkloadPriorityClassDoc(s, o);
        }
        if constexpr (std::is_same_v<T, PriorityClassSpec>) return PriorityClassDoc(s);
        if constexpr (std::is_same_v<T, WorkloadSpec>) return WorkloadDoc(s, o);
      },
      spec);
}

// The admission an engine reports, as `status.admission` records it.
AdmissionSpec AdmissionFromStatus(const WorkloadStatus& status) {
  AdmissionSpec admission;
  admission.cluster_queue = status.cluster_queue;
  for (const PodSetAssignment& ps : status.admission->pod_sets) {
    PodSetAssignmentSpec psa;
    psa.name = ps.name;
    for (const ResourceAssignment& r : ps.resources) {
      if (!r.flavor.empty()) psa.flavors.emplace_back(r.resource, r.flavor);
    }
    std::sort(psa.flavors.begin(), psa.flavors.end());
    psa.resource_usage = ps.usage;
    psa.count = ps.count;
    admission.pod_set_assignments.push_back(std::move(psa));
  }
  return admission;
}

// Kueue's conditions for the state the engine reports (docs/semantics.md §8).
std::vector<ConditionSpec> ConditionsFromStatus(const WorkloadStatus& status, Time now) {
  std::vector<ConditionSpec> out;
  const Time reserved = status.quota_reserved_time.value_or(now);
  switch (status.state) {
    case WorkloadState::kAdmitted:
    case WorkloadState::kEvicting:
      out.push_back({"QuotaReserved", true, "QuotaReserved",
                     fmt::format("Quota reserved in ClusterQueue {}", status.cluster_queue),
                     reserved});
      out.push_back({"Admitted", true, "Admitted", "The workload is admitted", reserved});
      if (status.state == WorkloadState::kEvicting) {
        const std::string reason =
            status.preemption_reason.has_value() ? "Preempted" : status.reason;
        out.push_back({"Evicted", true, reason.empty() ? "Preempted" : reason, status.message, now});
        if (status.preemption_reason.has_value()) {
          out.push_back({"Preempted", true, PreemptionReasonName(*status.preemption_reason),
                         status.message, now});
        }
      }
      break;
    case WorkloadState::kPending:
      if (!status.reason.empty() || !status.message.empty()) {
        out.push_back({"QuotaReserved", false, status.reason.empty() ? "Pending" : status.reason,
                       status.message, now});
      }
      break;
    case WorkloadState::kFinished:
      out.push_back({"Finished", true, "Succeeded", status.message, now});
      break;
    case WorkloadState::kInactive:
      break;
  }
  return out;
}

// `flavorsReservation` / `flavorsUsage` of a LocalQueue status, quantities in canonical form.
Doc FlavorTotalsDoc(const std::vector<LocalQueueFlavorTotals>& totals) {
  Doc list = Doc::List();
  for (const LocalQueueFlavorTotals& f : totals) {
    Doc resources = Doc::List();
    for (const auto& [resource, amount] : f.resources) {
      Doc r = Doc::Map();
      r.Set("name", Doc::Str(resource));
      r.Set("total", Doc::Str(FormatQuantityForManifest(resource, amount)));
      resources.Add(std::move(r.Flow()));
    }
    Doc d = Doc::Map();
    d.Set("name", Doc::Str(f.flavor));
    d.Set("resources", std::move(resources));
    list.Add(std::move(d));
  }
  return list;
}

// Kueue's LocalQueue status as its controller would have written it (docs/semantics.md §1.5.1).
Doc LocalQueueStatusDoc(const LocalQueueStatus& st, Time now) {
  Doc status = Doc::Map();
  Doc conditions = Doc::List();
  conditions.Add(std::move(ConditionDoc({"Active", st.active, st.reason, st.message, now}).Flow()));
  status.Set("conditions", std::move(conditions));
  status.Set("pendingWorkloads", Doc::Int(st.pending_workloads));
  status.Set("reservingWorkloads", Doc::Int(st.reserving_workloads));
  status.Set("admittedWorkloads", Doc::Int(st.admitted_workloads));
  if (!st.flavors_reservation.empty()) status.Set("flavorsReservation", FlavorTotalsDoc(st.flavors_reservation));
  if (!st.flavors_usage.empty()) status.Set("flavorsUsage", FlavorTotalsDoc(st.flavors_usage));
  return status;
}

std::string Join(const std::vector<Doc>& docs) {
  std::string out;
  for (const Doc& d : docs) {
    if (!out.empty()) out += "---\n";
    out += internal::EmitYaml(d);
  }
  return out;
}

}  // namespace

std::string WriteManifest(std::span<const ObjectSpec> objects,
                          const ManifestWriteOptions& options) {
  std::vector<Doc> docs;
  docs.reserve(objects.size());
  for (const ObjectSpec& o : objects) docs.push_back(ObjectDoc(o, options));
  if (options.format == OutputFormat::kYaml) return Join(docs);
  // JSON has no multi-document stream; a v1 List is the one-document form kubectl applies.
  Doc items = Doc::List();
  for (Doc& d : docs) items.Add(std::move(d));
  Doc list = Doc::Map();
  list.Set("apiVersion", Doc::Str("v1"));
  list.Set("kind", Doc::Str("List"));
  list.Set("items", std::move(items));
  return internal::EmitJson(list);
}

std::string WriteEngineState(const Engine& engine, std::span<const ObjectSpec> objects) {
  std::vector<Doc> docs;
  docs.reserve(objects.size());
  const Time now = engine.Now();
  const ManifestWriteOptions options;
  for (const ObjectSpec& o : objects) {
    if (const auto* lq = std::get_if<LocalQueueSpec>(&o)) {
      Doc d = ObjectDoc(o, options);
      if (absl::StatusOr<LocalQueueStatus> st = engine.GetLocalQueue(NamespaceOrDefault(lq->namespace_), lq->name);
          st.ok())
        d.Set("status", LocalQueueStatusDoc(*st, now));
      docs.push_back(std::move(d));
      continue;
    }
    const auto* wl = std::get_if<WorkloadSpec>(&o);
    if (wl == nullptr) {
      docs.push_back(ObjectDoc(o, options));
      continue;
    }
    absl::StatusOr<WorkloadStatus> status =
        engine.GetWorkload(NamespaceOrDefault(wl->namespace_), wl->name);
    if (!status.ok()) continue;
    WorkloadSpec current = *wl;
    // A workload that names a WorkloadPriorityClass carries the class's value in spec.priority, as
    // Kueue writes it (and rewrites it when the value changes, docs/semantics.md §1.6.1); an
    // explicit priority the engine changed the same way shows its new value.
    const bool names_wpc = current.priority_class.source == PriorityClassSource::kWorkloadPriorityClass ||
                           (current.priority_class.source == PriorityClassSource::kNone &&
                            FindLabel(current.labels, "kueue.x-k8s.io/priority-class") != nullptr);
    if (names_wpc || (current.priority.has_value() && *current.priority != status->priority))
      current.priority = status->priority;
    current.creation_time = status->creation_time;
    current.active = status->state != WorkloadState::kInactive;
    current.admission.reset();
    if (status->admission.has_value()) current.admission = AdmissionFromStatus(*status);
    current.conditions = ConditionsFromStatus(*status, now);
    docs.push_back(WorkloadDoc(current, options));
  }
  return Join(docs);
}

}  // namespace qm
