// Field-level validation of specs, with Kueue's webhook rules (docs/semantics.md §1.8). Cross-object rules
// (references, cohort cycles) are checked by the Engine, which knows the other objects.
//
// Every error is an InvalidArgument status naming the object and the field:
//   ClusterQueue 'eng': spec.resourceGroups[0].flavors[1].resources[0].nominalQuota: must be >= 0
#ifndef QM_MODEL_VALIDATE_H_
#define QM_MODEL_VALIDATE_H_

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/model/cluster_queue.h"
#include "qm/model/flavor.h"
#include "qm/model/local_queue.h"
#include "qm/model/namespace_name.h"
#include "qm/model/priority.h"
#include "qm/model/workload.h"

namespace qm {

/// `Kind 'name'` or `Kind 'namespace/name'`, the prefix of every error about an object.
inline std::string ObjectLabel(std::string_view kind, std::string_view ns, std::string_view name) {
  if (ns.empty()) return fmt::format("{} '{}'", kind, name);
  return fmt::format("{} '{}/{}'", kind, ns, name);
}

inline absl::Status FieldError(std::string_view object, std::string_view field, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("{}: {}: {}", object, field, what));
}

namespace validate_internal {

// Whether `text` is well-formed UTF-8 without control characters: names reach logs, messages,
// YAML and JSON output, where a NUL or a stray byte would truncate or corrupt them.
inline bool PrintableUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) return false;
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07;
    else return false;
    if (i + len > text.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0x80 && cp < 0xA0))
      return false;
    i += len;
  }
  return true;
}

inline absl::Status Name(std::string_view object, std::string_view field, const std::string& name) {
  if (name.empty()) return FieldError(object, field, "must not be empty");
  if (name.size() > 253) return FieldError(object, field, "must be at most 253 characters");
  if (!PrintableUtf8(name)) return FieldError(object, field, "must be UTF-8 text without control characters");
  if (name.find('/') != std::string::npos) return FieldError(object, field, fmt::format("'{}' must not contain '/'", name));
  return absl::OkStatus();
}

inline absl::Status Labels(std::string_view object, std::string_view field, const qm::Labels& labels) {
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i].first.empty()) return FieldError(object, fmt::format("{}[{}]", field, i), "label key must not be empty");
    for (size_t j = 0; j < i; ++j)
      if (labels[j].first == labels[i].first)
        return FieldError(object, field, fmt::format("label '{}' appears twice", labels[i].first));
  }
  return absl::OkStatus();
}

inline absl::Status Weight(std::string_view object, int64_t weight_milli) {
  if (weight_milli < 0) return FieldError(object, "spec.fairSharing.weight", "must be >= 0");
  return absl::OkStatus();
}

}  // namespace validate_internal

/// Validates resource groups of a ClusterQueue (`is_cluster_queue`) or Cohort.
inline absl::Status ValidateResourceGroups(std::string_view object, const std::vector<ResourceGroupSpec>& groups,
                                           bool has_parent, bool is_cluster_queue) {
  if (groups.size() > 16) return FieldError(object, "spec.resourceGroups", "must have at most 16 items");
  std::set<std::string> resources_seen, flavors_seen;
  for (size_t g = 0; g < groups.size(); ++g) {
    const ResourceGroupSpec& group = groups[g];
    const std::string gpath = fmt::format("spec.resourceGroups[{}]", g);
    if (group.covered_resources.empty())
      return FieldError(object, gpath + ".coveredResources", "must have at least 1 item");
    if (group.covered_resources.size() > 64)
      return FieldError(object, gpath + ".coveredResources", "must have at most 64 items");
    if (group.flavors.empty()) return FieldError(object, gpath + ".flavors", "must have at least 1 item");
    if (group.flavors.size() > 64) return FieldError(object, gpath + ".flavors", "must have at most 64 items");
    for (size_t r = 0; r < group.covered_resources.size(); ++r) {
      const std::string& res = group.covered_resources[r];
      const std::string rpath = fmt::format("{}.coveredResources[{}]", gpath, r);
      if (res.empty()) return FieldError(object, rpath, "must not be empty");
      if (!resources_seen.insert(res).second)
        return FieldError(object, rpath, fmt::format("resource '{}' is covered by more than one resource group", res));
    }
    for (size_t f = 0; f < group.flavors.size(); ++f) {
      const FlavorQuotasSpec& flavor = group.flavors[f];
      const std::string fpath = fmt::format("{}.flavors[{}]", gpath, f);
      if (flavor.name.empty()) return FieldError(object, fpath + ".name", "must not be empty");
      if (!flavors_seen.insert(flavor.name).second)
        return FieldError(object, fpath + ".name", fmt::format("flavor '{}' appears more than once", flavor.name));
      if (flavor.resources.size() != group.covered_resources.size())
        return FieldError(object, fpath + ".resources",
                          fmt::format("must list the {} covered resources, got {}", group.covered_resources.size(),
                                      flavor.resources.size()));
      for (size_t r = 0; r < flavor.resources.size(); ++r) {
        const ResourceQuotaSpec& q = flavor.resources[r];
        const std::string qpath = fmt::format("{}.resources[{}]", fpath, r);
        if (q.name != group.covered_resources[r])
          return FieldError(object, qpath + ".name",
                            fmt::format("must be '{}' (the covered resources, in order), got '{}'",
                                        group.covered_resources[r], q.name));
        if (q.nominal_quota < 0) return FieldError(object, qpath + ".nominalQuota", "must be >= 0");
        if (q.borrowing_limit.has_value()) {
          if (*q.borrowing_limit < 0) return FieldError(object, qpath + ".borrowingLimit", "must be >= 0");
          if (!has_parent)
            return FieldError(object, qpath + ".borrowingLimit",
                              is_cluster_queue ? "must be unset when the ClusterQueue has no cohort"
                                               : "must be unset when the Cohort has no parent");
        }
        if (q.lending_limit.has_value()) {
          if (*q.lending_limit < 0) return FieldError(object, qpath + ".lendingLimit", "must be >= 0");
          if (is_cluster_queue && !has_parent)
            return FieldError(object, qpath + ".lendingLimit", "must be unset when the ClusterQueue has no cohort");
          if (is_cluster_queue && *q.lending_limit > q.nominal_quota)
            return FieldError(object, qpath + ".lendingLimit", "must be less than or equal to the nominalQuota");
        }
      }
    }
  }
  if (flavors_seen.size() > 256) return FieldError(object, "spec.resourceGroups", "must have at most 256 flavors");
  if (resources_seen.size() > 256)
    return FieldError(object, "spec.resourceGroups", "must cover at most 256 resources");
  return absl::OkStatus();
}

inline absl::Status Validate(const ClusterQueueSpec& cq) {
  const std::string object = ObjectLabel("ClusterQueue", "", cq.name);
  if (auto st = validate_internal::Name(object, "metadata.name", cq.name); !st.ok()) return st;
  if (!cq.cohort.empty())
    if (auto st = validate_internal::Name(object, "spec.cohortName", cq.cohort); !st.ok()) return st;
  if (auto st = ValidateResourceGroups(object, cq.resource_groups, !cq.cohort.empty(), true); !st.ok()) return st;
  const auto& f = cq.flavor_fungibility;
  if (f.preference.has_value() && (f.when_can_borrow != FungibilityPolicy::kTryNextFlavor ||
                                   f.when_can_preempt != FungibilityPolicy::kTryNextFlavor))
    return FieldError(object, "spec.flavorFungibility.preference",
                      "may only be set when whenCanBorrow and whenCanPreempt are both TryNextFlavor");
  const auto& p = cq.preemption;
  if (p.reclaim_within_cohort == ReclaimWithinCohortPolicy::kNever &&
      p.borrow_within_cohort.policy != BorrowWithinCohortPolicy::kNever)
    return FieldError(object, "spec.preemption.borrowWithinCohort.policy",
                      "must be Never when reclaimWithinCohort is Never");
  if (auto st = validate_internal::Weight(object, cq.fair_sharing_weight_milli); !st.ok()) return st;
  return validate_internal::Labels(object, "metadata.labels", cq.labels);
}

inline absl::Status Validate(const CohortSpec& c) {
  const std::string object = ObjectLabel("Cohort", "", c.name);
  if (auto st = validate_internal::Name(object, "metadata.name", c.name); !st.ok()) return st;
  if (!c.parent.empty()) {
    if (auto st = validate_internal::Name(object, "spec.parentName", c.parent); !st.ok()) return st;
    if (c.parent == c.name) return FieldError(object, "spec.parentName", "a Cohort cannot be its own parent");
  }
  if (auto st = ValidateResourceGroups(object, c.resource_groups, !c.parent.empty(), false); !st.ok()) return st;
  return validate_internal::Weight(object, c.fair_sharing_weight_milli);
}

inline absl::Status Validate(const ResourceFlavorSpec& f) {
  const std::string object = ObjectLabel("ResourceFlavor", "", f.name);
  if (auto st = validate_internal::Name(object, "metadata.name", f.name); !st.ok()) return st;
  if (f.node_labels.size() > 8) return FieldError(object, "spec.nodeLabels", "must have at most 8 items");
  if (f.node_taints.size() > 8) return FieldError(object, "spec.nodeTaints", "must have at most 8 items");
  if (f.tolerations.size() > 8) return FieldError(object, "spec.tolerations", "must have at most 8 items");
  for (size_t i = 0; i < f.node_taints.size(); ++i)
    if (f.node_taints[i].key.empty())
      return FieldError(object, fmt::format("spec.nodeTaints[{}].key", i), "must not be empty");
  return validate_internal::Labels(object, "spec.nodeLabels", f.node_labels);
}

inline absl::Status Validate(const LocalQueueSpec& lq) {
  const std::string ns = std::string(NamespaceOrDefault(lq.namespace_));
  const std::string object = ObjectLabel("LocalQueue", ns, lq.name);
  if (auto st = validate_internal::Name(object, "metadata.name", lq.name); !st.ok()) return st;
  if (auto st = validate_internal::Name(object, "spec.clusterQueue", lq.cluster_queue); !st.ok()) return st;
  return absl::OkStatus();
}

inline absl::Status Validate(const NamespaceSpec& ns) {
  const std::string object = ObjectLabel("Namespace", "", ns.name);
  if (auto st = validate_internal::Name(object, "metadata.name", ns.name); !st.ok()) return st;
  return validate_internal::Labels(object, "metadata.labels", ns.labels);
}

inline absl::Status Validate(const WorkloadPriorityClassSpec& pc) {
  return validate_internal::Name(ObjectLabel("WorkloadPriorityClass", "", pc.name), "metadata.name", pc.name);
}

inline absl::Status Validate(const PriorityClassSpec& pc) {
  return validate_internal::Name(ObjectLabel("PriorityClass", "", pc.name), "metadata.name", pc.name);
}

inline absl::Status Validate(const WorkloadSpec& w) {
  const std::string ns = std::string(NamespaceOrDefault(w.namespace_));
  const std::string object = ObjectLabel("Workload", ns, w.name);
  if (auto st = validate_internal::Name(object, "metadata.name", w.name); !st.ok()) return st;
  if (w.pod_sets.empty()) return FieldError(object, "spec.podSets", "must have at least 1 item");
  if (w.pod_sets.size() > 18) return FieldError(object, "spec.podSets", "must have at most 18 items");
  // Kueue's admission webhook allows minCount on one pod set only, but its scheduler (and section 7)
  // handles any number, and Kueue's own scheduler tests use several; we accept what the scheduler
  // can decide rather than reject it.
  for (size_t i = 0; i < w.pod_sets.size(); ++i) {
    const PodSetSpec& ps = w.pod_sets[i];
    const std::string path = fmt::format("spec.podSets[{}]", i);
    if (ps.name.empty()) return FieldError(object, path + ".name", "must not be empty");
    for (size_t j = 0; j < i; ++j)
      if (w.pod_sets[j].name == ps.name)
        return FieldError(object, path + ".name", fmt::format("pod set '{}' appears twice", ps.name));
    if (ps.count < 0) return FieldError(object, path + ".count", "must be >= 0");
    if (ps.min_count.has_value()) {
      if (*ps.min_count < 1) return FieldError(object, path + ".minCount", "must be >= 1");
      if (*ps.min_count > ps.count) return FieldError(object, path + ".minCount", "must be <= count");
    }
    for (size_t r = 0; r < ps.requests.size(); ++r) {
      if (ps.requests[r].first.empty())
        return FieldError(object, fmt::format("{}.requests[{}]", path, r), "resource name must not be empty");
      // Kubernetes rejects negative requests; one here would lower usage and admit past quota.
      if (ps.requests[r].second < 0)
        return FieldError(object, fmt::format("{}.requests.{}", path, ps.requests[r].first), "must be >= 0");
      for (size_t q = 0; q < r; ++q)
        if (ps.requests[q].first == ps.requests[r].first)
          return FieldError(object, path + ".requests",
                            fmt::format("resource '{}' appears twice", ps.requests[r].first));
    }
  }
  if (w.admission.has_value()) {
    if (w.admission->cluster_queue.empty())
      return FieldError(object, "status.admission.clusterQueue", "must not be empty");
    for (size_t i = 0; i < w.admission->pod_set_assignments.size(); ++i) {
      const auto& psa = w.admission->pod_set_assignments[i];
      const std::string path = fmt::format("status.admission.podSetAssignments[{}]", i);
      auto it = std::find_if(w.pod_sets.begin(), w.pod_sets.end(), [&](const PodSetSpec& ps) { return ps.name == psa.name; });
      if (it == w.pod_sets.end())
        return FieldError(object, path + ".name", fmt::format("no pod set named '{}'", psa.name));
      if (psa.count.has_value() && (*psa.count < 0 || *psa.count > it->count))
        return FieldError(object, path + ".count", fmt::format("must be between 0 and the pod set count {}", it->count));
      for (const auto& [res, amount] : psa.resource_usage)
        if (amount < 0) return FieldError(object, fmt::format("{}.resourceUsage.{}", path, res), "must be >= 0");
    }
  }
  return validate_internal::Labels(object, "metadata.labels", w.labels);
}

}  // namespace qm

#endif  // QM_MODEL_VALIDATE_H_
