// Workload: pod sets (template or `requests` shorthand), priority, and the status of a workload that
// already holds quota.
#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "fmt/format.h"
#include "io/object_reader.h"
#include "io/quantity_fields.h"
#include "qm/core/quantity.h"
#include "qm/text/time_text.h"

namespace qm::internal {
namespace {

constexpr std::string_view kJobUidLabel = "kueue.x-k8s.io/job-uid";

constexpr std::pair<std::string_view, NodeSelectorRequirement::Operator> kNodeOps[] = {
    {"In", NodeSelectorRequirement::Operator::kIn},
    {"NotIn", NodeSelectorRequirement::Operator::kNotIn},
    {"Exists", NodeSelectorRequirement::Operator::kExists},
    {"DoesNotExist", NodeSelectorRequirement::Operator::kDoesNotExist},
    {"Gt", NodeSelectorRequirement::Operator::kGt},
    {"Lt", NodeSelectorRequirement::Operator::kLt}};

constexpr std::pair<std::string_view, PriorityClassSource> kPriorityClassSources[] = {
    {"kueue.x-k8s.io/workloadpriorityclass", PriorityClassSource::kWorkloadPriorityClass},
    {"scheduling.k8s.io/priorityclass", PriorityClassSource::kPriorityClass}};

constexpr std::pair<std::string_view, bool> kConditionStatuses[] = {
    {"True", true}, {"False", false}, {"Unknown", false}};

using Amounts = std::map<std::string, int64_t>;

// One container's requests: `requests`, with `limits` filling resources that have no request.
Amounts ContainerRequests(const Cursor& container) {
  Amounts out;
  if (!container.ExpectMap()) return out;
  const Cursor resources = container["resources"];
  if (!resources.ExpectMap()) return out;
  for (const auto& [name, v] : ReadRequestMap(resources["limits"])) out[name] = v;
  for (const auto& [name, v] : ReadRequestMap(resources["requests"])) out[name] = v;
  return out;
}

void AddInto(Amounts& total, const Amounts& add) {
  for (const auto& [name, v] : add) total[name] = AddAmount(total[name], v);
}

void MaxInto(Amounts& total, const Amounts& other) {
  for (const auto& [name, v] : other) total[name] = std::max(total[name], v);
}

// Kubernetes' pod request: per resource, max(Σ containers + Σ sidecars, the largest regular init
// container plus the sidecars started before it), plus the pod overhead.
ResourceAmounts PodRequests(const Cursor& pod_spec) {
  Amounts regular;
  for (const Cursor& container : pod_spec["containers"].Items()) {
    AddInto(regular, ContainerRequests(container));
  }
  Amounts sidecars;
  Amounts init_peak;
  for (const Cursor& init : pod_spec["initContainers"].Items()) {
    const Amounts requests = ContainerRequests(init);
    if (init["restartPolicy"].String() == "Always") {
      AddInto(sidecars, requests);
      MaxInto(init_peak, sidecars);
    } else {
      Amounts with_sidecars = sidecars;
      AddInto(with_sidecars, requests);
      MaxInto(init_peak, with_sidecars);
    }
  }
  AddInto(regular, sidecars);
  MaxInto(regular, init_peak);
  for (const auto& [name, v] : ReadRequestMap(pod_spec["overhead"])) {
    regular[name] = AddAmount(regular[name], v);
  }
  return {regular.begin(), regular.end()};
}

std::vector<NodeSelectorTerm> ReadNodeSelectorTerms(const Cursor& c) {
  std::vector<NodeSelectorTerm> terms;
  for (const Cursor& t : c.Items()) {
    if (!t.ExpectMap()) break;
    NodeSelectorTerm term;
    for (const Cursor& e : t["matchExpressions"].Items()) {
      if (!e.ExpectMap()) break;
      NodeSelectorRequirement req;
      req.key = e["key"].RequiredString();
      const Cursor op = e["operator"];
      if (!op.present()) op.Fail("is required");
      req.op = op.OptEnum<NodeSelectorRequirement::Operator>(kNodeOps).value_or(
          NodeSelectorRequirement::Operator::kIn);
      req.values = e["values"].Strings();
      term.match_expressions.push_back(std::move(req));
    }
    terms.push_back(std::move(term));
  }
  return terms;
}

void ReadPodTemplate(const Cursor& tmpl, PodSetSpec* ps) {
  if (!tmpl.ExpectMap()) return;
  const Cursor spec = tmpl["spec"];
  if (!spec.ExpectMap()) return;
  ps->requests = PodRequests(spec);
  ps->node_selector = spec["nodeSelector"].StringMap();
  const Cursor affinity = spec["affinity"];
  if (affinity.ExpectMap() && affinity["nodeAffinity"].ExpectMap()) {
    const Cursor required =
        affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
    if (required.ExpectMap()) {
      ps->required_node_affinity = ReadNodeSelectorTerms(required["nodeSelectorTerms"]);
    }
  }
  ps->tolerations = ReadTolerations(spec["tolerations"]);
}

PodSetSpec ReadPodSet(const Cursor& c) {
  PodSetSpec ps;
  if (!c.ExpectMap()) return ps;
  if (const std::optional<std::string> name = c["name"].OptString(); name && !name->empty()) {
    ps.name = *name;
  }
  ps.count = static_cast<int32_t>(c["count"].OptInt(0, kInt32Max).value_or(1));
  if (std::optional<int64_t> min_count = c["minCount"].OptInt(0, kInt32Max)) {
    ps.min_count = static_cast<int32_t>(*min_count);
  }
  const Cursor requests = c["requests"];
  const Cursor tmpl = c["template"];
  if (requests.present() && tmpl.present()) {
    requests.Fail("cannot be used together with template (write the requests in a container)");
    return ps;
  }
  if (requests.present()) {
    ps.requests = ReadRequestMap(requests);
  } else {
    ReadPodTemplate(tmpl, &ps);
  }
  return ps;
}

PriorityClassRef ReadPriorityClass(const Cursor& spec) {
  PriorityClassRef ref;
  const Cursor name = spec["priorityClassName"];
  if (!name.String().empty()) {
    const Cursor source = spec["priorityClassSource"];
    if (source.String().empty()) {
      source.Fail(fmt::format(
          "is required with priorityClassName (kueue.x-k8s.io/workloadpriorityclass or "
          "scheduling.k8s.io/priorityclass)"));
      return ref;
    }
    ref.name = name.String();
    ref.source = source.OptEnum<PriorityClassSource>(kPriorityClassSources)
                     .value_or(PriorityClassSource::kNone);
  }
  const Cursor class_ref = spec["priorityClassRef"];
  if (class_ref.ExpectMap()) {
    const std::string group = class_ref["group"].String();
    const std::string kind = class_ref["kind"].String();
    PriorityClassRef v1beta2;
    v1beta2.name = class_ref["name"].RequiredString();
    if (group == "kueue.x-k8s.io" && kind == "WorkloadPriorityClass") {
      v1beta2.source = PriorityClassSource::kWorkloadPriorityClass;
    } else if (group == "scheduling.k8s.io" && kind == "PriorityClass") {
      v1beta2.source = PriorityClassSource::kPriorityClass;
    } else {
      class_ref.Fail(fmt::format(
          "group \"{}\" and kind \"{}\" name no priority class (expected kueue.x-k8s.io "
          "WorkloadPriorityClass or scheduling.k8s.io PriorityClass)",
          group, kind));
      return ref;
    }
    if (ref.source != PriorityClassSource::kNone &&
        (ref.source != v1beta2.source || ref.name != v1beta2.name)) {
      class_ref.Fail("contradicts priorityClassName/priorityClassSource (write one of them)");
      return ref;
    }
    ref = v1beta2;
  }
  return ref;
}

AdmissionSpec ReadAdmission(const Cursor& c) {
  AdmissionSpec admission;
  admission.cluster_queue = c["clusterQueue"].RequiredString();
  for (const Cursor& p : c["podSetAssignments"].Items()) {
    if (!p.ExpectMap()) break;
    PodSetAssignmentSpec psa;
    psa.name = p["name"].String();
    if (psa.name.empty()) psa.name = "main";
    psa.flavors = p["flavors"].StringMap();
    psa.resource_usage = ReadRequestMap(p["resourceUsage"]);
    if (std::optional<int64_t> count = p["count"].OptInt(0, kInt32Max)) {
      psa.count = static_cast<int32_t>(*count);
    }
    admission.pod_set_assignments.push_back(std::move(psa));
  }
  return admission;
}

std::vector<ConditionSpec> ReadConditions(const Cursor& c) {
  std::vector<ConditionSpec> out;
  for (const Cursor& item : c.Items()) {
    if (!item.ExpectMap()) break;
    ConditionSpec cond;
    cond.type = item["type"].RequiredString();
    const Cursor status = item["status"];
    if (!status.present()) status.Fail("is required");
    cond.status = status.OptEnum<bool>(kConditionStatuses).value_or(false);
    cond.reason = item["reason"].String();
    cond.message = item["message"].String();
    cond.last_transition_time = ReadTime(item["lastTransitionTime"]);
    out.push_back(std::move(cond));
  }
  return out;
}

}  // namespace

std::optional<Time> ReadTime(const Cursor& c) {
  const std::optional<std::string> text = c.OptString();
  if (!text.has_value()) return std::nullopt;
  absl::StatusOr<Time> t = ParseRfc3339(*text);
  if (!t.ok()) {
    c.Fail(std::string(t.status().message()));
    return std::nullopt;
  }
  return *t;
}

WorkloadSpec ReadWorkload(const Cursor& c, const ObjectHeader& h) {
  WorkloadSpec wl;
  wl.namespace_ = h.namespace_;
  wl.name = h.name;
  wl.labels = h.labels;
  if (const std::string* job_uid = FindLabel(h.labels, kJobUidLabel)) wl.job_uid = *job_uid;
  const Cursor metadata = c["metadata"];
  wl.uid = metadata["uid"].String();
  wl.creation_time = ReadTime(metadata["creationTimestamp"]);

  const Cursor spec = c["spec"];
  if (!spec.present()) {
    spec.Fail("is required");
    return wl;
  }
  if (!spec.ExpectMap()) return wl;
  wl.queue_name = spec["queueName"].String();
  if (std::optional<int64_t> p = spec["priority"].OptInt(kInt32Min, kInt32Max)) {
    wl.priority = static_cast<int32_t>(*p);
  }
  wl.priority_class = ReadPriorityClass(spec);
  wl.active = spec["active"].OptBool().value_or(true);
  const Cursor pod_sets = spec["podSets"];
  if (!pod_sets.present()) pod_sets.Fail("is required");
  for (const Cursor& ps : pod_sets.Items()) {
    wl.pod_sets.push_back(ReadPodSet(ps));
    if (!c.ctx().ok()) return wl;
  }

  const Cursor status = c["status"];
  if (!status.ExpectMap()) return wl;
  const Cursor admission = status["admission"];
  if (admission.ExpectMap()) wl.admission = ReadAdmission(admission);
  wl.conditions = ReadConditions(status["conditions"]);
  for (const Cursor& r : status["reclaimablePods"].Items()) {
    if (!r.ExpectMap()) break;
    const std::string name = r["name"].RequiredString();
    const Cursor count = r["count"];
    if (!count.present()) count.Fail("is required");
    wl.reclaimable_pods.emplace_back(name,
                                     static_cast<int32_t>(count.OptInt(0, kInt32Max).value_or(0)));
  }
  if (const Cursor rq = status["requeueState"]; rq.ExpectMap()) {
    rq.CheckKeys({"count", "requeueAt"});
    wl.requeue_count = static_cast<int32_t>(rq["count"].OptInt(0, kInt32Max).value_or(0));
    wl.requeue_at = ReadTime(rq["requeueAt"]);
  }
  return wl;
}

}  // namespace qm::internal
