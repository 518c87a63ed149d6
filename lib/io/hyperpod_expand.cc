#include "io/hyperpod_expand.h"

#include <utility>
#include <variant>

#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/hyperpod/translate.h"

namespace qm::hyperpod::internal {

absl::StatusOr<Expansion> Expand(const PolicySet& policies) {
  QM_ASSIGN_OR_RETURN(Translation t, Translate(policies));
  Expansion out;
  out.fair_sharing = t.fair_sharing;
  out.governance = Governance::FromPolicies(policies);
  for (size_t i = 0; i < t.objects.size(); ++i) {
    out.objects.push_back(ManifestObject{.spec = std::move(t.objects[i]), .source = t.sources[i]});
  }
  return out;
}

absl::Status CheckWorkloads(const Governance& governance, std::span<const ManifestObject> objects) {
  for (const ManifestObject& o : objects) {
    const auto* w = std::get_if<WorkloadSpec>(&o.spec);
    if (w == nullptr) continue;
    if (absl::Status st = CheckSubmission(governance, *w); !st.ok()) {
      return absl::Status(st.code(), fmt::format("{}: {}", o.source, std::string(st.message())));
    }
  }
  return absl::OkStatus();
}

void UpdatePolicies(PolicySet& into, PolicySet more) {
  if (more.scheduler.has_value()) into.scheduler = std::move(more.scheduler);
  if (more.cluster.has_value()) into.cluster = std::move(more.cluster);
  for (ComputeQuotaPolicy& q : more.quotas) {
    bool replaced = false;
    for (ComputeQuotaPolicy& existing : into.quotas) {
      if (existing.name == q.name) {
        existing = q;
        replaced = true;
      }
    }
    if (!replaced) into.quotas.push_back(std::move(q));
  }
}

}  // namespace qm::hyperpod::internal
