// Objects from plain C structs: each struct is checked (NULL arrays, UTF-8, counts) and converted
// to its qm spec, then applied like any other object, so the engine's validation and messages
// are the same as for YAML.
#include <algorithm>
#include <string>
#include <vector>

#include "c/c_api_internal.h"
#include "qm/model/namespace_name.h"
#include "fmt/format.h"

namespace qm::c {
namespace {

absl::StatusOr<std::string> Str(const char* s, const char* what) {
  QM_ASSIGN_OR_RETURN(std::string_view view, Text(s, what));
  return std::string(view);
}

absl::StatusOr<std::string> OptStr(const char* s, const char* what, std::string_view fallback) {
  QM_ASSIGN_OR_RETURN(std::string_view view, OptionalText(s, what));
  return std::string(view.empty() ? fallback : view);
}

// An array argument: `count` elements at `items`, which may be NULL only when `count` is 0.
absl::Status CheckArray(const void* items, size_t count, const std::string& what) {
  if (items == nullptr && count != 0) {
    return absl::InvalidArgumentError(fmt::format("{}: NULL with count {}", what, count));
  }
  // Far more than any real object; rejects a garbage count before it drives a loop.
  if (count > (size_t{1} << 20)) {
    return absl::InvalidArgumentError(fmt::format("{}: count {} is too large", what, count));
  }
  return absl::OkStatus();
}

absl::StatusOr<ClusterQueueSpec> ToSpec(const qm_cluster_queue& in) {
  QM_RETURN_IF_ERROR(CheckVersion(in.version, QM_CLUSTER_QUEUE_VERSION, "qm_cluster_queue"));
  ClusterQueueSpec cq;
  QM_ASSIGN_OR_RETURN(cq.name, Str(in.name, "cluster queue name"));
  const std::string what = fmt::format("ClusterQueue '{}'", cq.name);
  QM_ASSIGN_OR_RETURN(cq.cohort, OptStr(in.cohort, "cohort", ""));
  cq.namespace_selector = LabelSelector{};  // every namespace, as documented in the header
  ResourceGroupSpec group;
  QM_RETURN_IF_ERROR(CheckArray(in.covered_resources, in.covered_resource_count,
                                what + ": covered_resources"));
  for (size_t i = 0; i < in.covered_resource_count; ++i) {
    QM_ASSIGN_OR_RETURN(std::string r,
                        Str(in.covered_resources[i],
                            fmt::format("{}: covered_resources[{}]", what, i).c_str()));
    group.covered_resources.push_back(std::move(r));
  }
  QM_RETURN_IF_ERROR(CheckArray(in.flavors, in.flavor_count, what + ": flavors"));
  for (size_t f = 0; f < in.flavor_count; ++f) {
    const qm_flavor_quotas& fq = in.flavors[f];
    const std::string where = fmt::format("{}: flavors[{}]", what, f);
    FlavorQuotasSpec flavor;
    QM_ASSIGN_OR_RETURN(flavor.name, Str(fq.flavor, (where + ".flavor").c_str()));
    QM_RETURN_IF_ERROR(CheckArray(fq.resources, fq.resource_count, where + ".resources"));
    for (size_t r = 0; r < fq.resource_count; ++r) {
      const qm_resource_quota& q = fq.resources[r];
      ResourceQuotaSpec quota;
      QM_ASSIGN_OR_RETURN(quota.name,
                          Str(q.resource, fmt::format("{}.resources[{}].resource", where, r).c_str()));
      quota.nominal_quota = q.nominal_quota;
      if (q.has_borrowing_limit != 0) quota.borrowing_limit = q.borrowing_limit;
      if (q.has_lending_limit != 0) quota.lending_limit = q.lending_limit;
      flavor.resources.push_back(std::move(quota));
    }
    group.flavors.push_back(std::move(flavor));
  }
  if (!group.covered_resources.empty() || !group.flavors.empty()) {
    cq.resource_groups.push_back(std::move(group));
  }
  switch (in.within_cluster_queue) {
    case QM_WITHIN_CQ_NEVER: break;
    case QM_WITHIN_CQ_LOWER_PRIORITY:
      cq.preemption.within_cluster_queue = WithinClusterQueuePolicy::kLowerPriority;
      break;
    case QM_WITHIN_CQ_LOWER_OR_NEWER_EQUAL_PRIORITY:
      cq.preemption.within_cluster_queue = WithinClusterQueuePolicy::kLowerOrNewerEqualPriority;
      break;
    default:
      return absl::InvalidArgumentError(fmt::format(
          "{}: within_cluster_queue: {} is not a qm_within_cluster_queue value", what,
          in.within_cluster_queue));
  }
  switch (in.reclaim_within_cohort) {
    case QM_RECLAIM_NEVER: break;
    case QM_RECLAIM_LOWER_PRIORITY:
      cq.preemption.reclaim_within_cohort = ReclaimWithinCohortPolicy::kLowerPriority;
      break;
    case QM_RECLAIM_ANY: cq.preemption.reclaim_within_cohort = ReclaimWithinCohortPolicy::kAny; break;
    default:
      return absl::InvalidArgumentError(fmt::format(
          "{}: reclaim_within_cohort: {} is not a qm_reclaim_within_cohort value", what,
          in.reclaim_within_cohort));
  }
  if (in.fair_sharing_weight_milli < 0) {
    return absl::InvalidArgumentError(
        fmt::format("{}: fair_sharing_weight_milli: {} must be >= 0", what, in.fair_sharing_weight_milli));
  }
  if (in.fair_sharing_weight_milli != 0) cq.fair_sharing_weight_milli = in.fair_sharing_weight_milli;
  return cq;
}

absl::StatusOr<WorkloadSpec> ToSpec(const qm_workload& in) {
  QM_RETURN_IF_ERROR(CheckVersion(in.version, QM_WORKLOAD_VERSION, "qm_workload"));
  WorkloadSpec w;
  QM_ASSIGN_OR_RETURN(w.namespace_, OptStr(in.namespace_name, "namespace", qm::kDefaultNamespace));
  QM_ASSIGN_OR_RETURN(w.name, Str(in.name, "workload name"));
  const std::string what = fmt::format("Workload '{}/{}'", w.namespace_, w.name);
  QM_ASSIGN_OR_RETURN(w.queue_name, Str(in.queue_name, (what + ": queue_name").c_str()));
  QM_ASSIGN_OR_RETURN(std::string priority_class,
                      OptStr(in.priority_class, (what + ": priority_class").c_str(), ""));
  if (!priority_class.empty()) {
    w.priority_class = PriorityClassRef{PriorityClassSource::kWorkloadPriorityClass,
                                        std::move(priority_class)};
  }
  if (in.has_priority != 0) w.priority = in.priority;
  if (in.creation_time_unix_micros != 0) {
    w.creation_time = Time::FromUnixMicros(in.creation_time_unix_micros);
  }
  QM_RETURN_IF_ERROR(CheckArray(in.pod_sets, in.pod_set_count, what + ": pod_sets"));
  for (size_t p = 0; p < in.pod_set_count; ++p) {
    const qm_pod_set& ps = in.pod_sets[p];
    const std::string where = fmt::format("{}: pod_sets[{}]", what, p);
    PodSetSpec spec;
    QM_ASSIGN_OR_RETURN(spec.name, OptStr(ps.name, (where + ".name").c_str(), "main"));
    spec.count = ps.count;
    if (ps.min_count != 0) spec.min_count = ps.min_count;
    QM_RETURN_IF_ERROR(CheckArray(ps.requests, ps.request_count, where + ".requests"));
    for (size_t r = 0; r < ps.request_count; ++r) {
      QM_ASSIGN_OR_RETURN(std::string resource,
                          Str(ps.requests[r].resource,
                              fmt::format("{}.requests[{}].resource", where, r).c_str()));
      spec.requests.emplace_back(std::move(resource), ps.requests[r].amount);
    }
    // ResourceAmounts are sorted by name with unique names (qm/model/workload.h).
    std::sort(spec.requests.begin(), spec.requests.end());
    for (size_t r = 1; r < spec.requests.size(); ++r) {
      if (spec.requests[r].first == spec.requests[r - 1].first) {
        return absl::InvalidArgumentError(fmt::format("{}.requests: resource '{}' given twice",
                                                      where, spec.requests[r].first));
      }
    }
    w.pod_sets.push_back(std::move(spec));
  }
  // A version-1 struct ends before `inactive`: reading it would read past the caller's memory.
  if (in.version >= 2) w.active = in.inactive == 0;
  return w;
}

// Applies one object built by `build` (absl::StatusOr<Spec>(const In&)).
template <class In, class Build>
qm_status ApplyOne(qm_engine* engine, const In* in, const char* what, Build&& build) {
  return RunOnEngine(engine, [&](Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(NeedOut(in, what));
    QM_ASSIGN_OR_RETURN(auto spec, build(*in));
    return e.Apply(ObjectSpec(std::move(spec)));
  });
}

}  // namespace
}  // namespace qm::c

extern "C" {

QM_C_EXPORT qm_status qm_engine_apply_flavor(qm_engine* engine, const qm_resource_flavor* flavor) {
  return qm::c::ApplyOne(engine, flavor, "flavor",
                         [](const qm_resource_flavor& in) -> absl::StatusOr<qm::ResourceFlavorSpec> {
                           QM_RETURN_IF_ERROR(qm::c::CheckVersion(
                               in.version, QM_RESOURCE_FLAVOR_VERSION, "qm_resource_flavor"));
                           qm::ResourceFlavorSpec spec;
                           QM_ASSIGN_OR_RETURN(spec.name, qm::c::Str(in.name, "flavor name"));
                           return spec;
                         });
}

QM_C_EXPORT qm_status qm_engine_apply_cluster_queue(qm_engine* engine, const qm_cluster_queue* cq) {
  return qm::c::ApplyOne(engine, cq, "cluster queue",
                         [](const qm_cluster_queue& in) { return qm::c::ToSpec(in); });
}

QM_C_EXPORT qm_status qm_engine_apply_local_queue(qm_engine* engine, const qm_local_queue* lq) {
  return qm::c::ApplyOne(engine, lq, "local queue",
                         [](const qm_local_queue& in) -> absl::StatusOr<qm::LocalQueueSpec> {
                           QM_RETURN_IF_ERROR(qm::c::CheckVersion(
                               in.version, QM_LOCAL_QUEUE_VERSION, "qm_local_queue"));
                           qm::LocalQueueSpec spec;
                           QM_ASSIGN_OR_RETURN(spec.namespace_,
                                               qm::c::OptStr(in.namespace_name, "namespace", qm::kDefaultNamespace));
                           QM_ASSIGN_OR_RETURN(spec.name, qm::c::Str(in.name, "local queue name"));
                           QM_ASSIGN_OR_RETURN(spec.cluster_queue,
                                               qm::c::Str(in.cluster_queue, "cluster_queue"));
                           return spec;
                         });
}

QM_C_EXPORT qm_status qm_engine_apply_priority_class(qm_engine* engine,
                                                     const qm_priority_class* priority_class) {
  return qm::c::ApplyOne(
      engine, priority_class, "priority_class",
      [](const qm_priority_class& in) -> absl::StatusOr<qm::WorkloadPriorityClassSpec> {
        QM_RETURN_IF_ERROR(qm::c::CheckVersion(in.version, QM_PRIORITY_CLASS_VERSION,
                                               "qm_priority_class"));
        qm::WorkloadPriorityClassSpec spec;
        QM_ASSIGN_OR_RETURN(spec.name, qm::c::Str(in.name, "priority class name"));
        spec.value = in.value;
        return spec;
      });
}

QM_C_EXPORT qm_status qm_engine_submit(qm_engine* engine, const qm_workload* workload,
                                       uint64_t* handle) {
  return qm::c::RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(workload, "workload"));
    QM_ASSIGN_OR_RETURN(qm::WorkloadSpec spec, qm::c::ToSpec(*workload));
    QM_ASSIGN_OR_RETURN(qm::WorkloadHandle h, e.Submit(spec));
    if (handle != nullptr) *handle = h.Pack();
    return absl::OkStatus();
  });
}

}  // extern "C"
