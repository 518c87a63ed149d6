// ClusterQueue and Cohort: resource groups, fungibility, preemption and fair-sharing weights.
#include <limits>
#include <string>

#include "fmt/format.h"
#include "io/object_reader.h"
#include "io/quantity_fields.h"

namespace qm::internal {
namespace {

constexpr std::pair<std::string_view, QueueingStrategy> kQueueingStrategies[] = {
    {"BestEffortFIFO", QueueingStrategy::kBestEffortFIFO},
    {"StrictFIFO", QueueingStrategy::kStrictFIFO}};

constexpr std::pair<std::string_view, FungibilityPolicy> kFungibility[] = {
    {"MayStopSearch", FungibilityPolicy::kMayStopSearch},
    {"TryNextFlavor", FungibilityPolicy::kTryNextFlavor}};
// v1beta1 (and manifests without apiVersion) also accept the legacy names.
constexpr std::pair<std::string_view, FungibilityPolicy> kWhenCanBorrowV1beta1[] = {
    {"MayStopSearch", FungibilityPolicy::kMayStopSearch},
    {"TryNextFlavor", FungibilityPolicy::kTryNextFlavor},
    {"Borrow", FungibilityPolicy::kMayStopSearch}};
constexpr std::pair<std::string_view, FungibilityPolicy> kWhenCanPreemptV1beta1[] = {
    {"MayStopSearch", FungibilityPolicy::kMayStopSearch},
    {"TryNextFlavor", FungibilityPolicy::kTryNextFlavor},
    {"Preempt", FungibilityPolicy::kMayStopSearch}};

constexpr std::pair<std::string_view, FungibilityPreference> kPreferences[] = {
    {"BorrowingOverPreemption", FungibilityPreference::kBorrowingOverPreemption},
    {"PreemptionOverBorrowing", FungibilityPreference::kPreemptionOverBorrowing}};

constexpr std::pair<std::string_view, WithinClusterQueuePolicy> kWithinClusterQueue[] = {
    {"Never", WithinClusterQueuePolicy::kNever},
    {"LowerPriority", WithinClusterQueuePolicy::kLowerPriority},
    {"LowerOrNewerEqualPriority", WithinClusterQueuePolicy::kLowerOrNewerEqualPriority}};

constexpr std::pair<std::string_view, ReclaimWithinCohortPolicy> kReclaimWithinCohort[] = {
    {"Never", ReclaimWithinCohortPolicy::kNever},
    {"LowerPriority", ReclaimWithinCohortPolicy::kLowerPriority},
    {"Any", ReclaimWithinCohortPolicy::kAny}};

constexpr std::pair<std::string_view, BorrowWithinCohortPolicy> kBorrowWithinCohort[] = {
    {"Never", BorrowWithinCohortPolicy::kNever},
    {"LowerPriority", BorrowWithinCohortPolicy::kLowerPriority}};

std::vector<ResourceGroupSpec> ReadResourceGroups(const Cursor& c) {
  std::vector<ResourceGroupSpec> groups;
  for (const Cursor& g : c.Items()) {
    if (!g.ExpectMap()) break;
    ResourceGroupSpec group;
    group.covered_resources = g["coveredResources"].Strings();
    for (const Cursor& f : g["flavors"].Items()) {
      if (!f.ExpectMap()) break;
      FlavorQuotasSpec flavor;
      flavor.name = f["name"].RequiredString();
      for (const Cursor& r : f["resources"].Items()) {
        if (!r.ExpectMap()) break;
        ResourceQuotaSpec quota;
        quota.name = r["name"].RequiredString();
        if (!c.ctx().ok()) break;
        const Cursor nominal = r["nominalQuota"];
        if (!nominal.present()) nominal.Fail("is required");
        quota.nominal_quota = ReadQuotaLimit(nominal, quota.name).value_or(0);
        quota.borrowing_limit = ReadQuotaLimit(r["borrowingLimit"], quota.name);
        quota.lending_limit = ReadQuotaLimit(r["lendingLimit"], quota.name);
        flavor.resources.push_back(std::move(quota));
      }
      group.flavors.push_back(std::move(flavor));
    }
    groups.push_back(std::move(group));
    if (!c.ctx().ok()) break;
  }
  return groups;
}

// `spec.cohortName` (v1beta2) or `spec.cohort` (v1beta1); either spelling is read in any version,
// and both together must agree.
std::string ReadParentName(const Cursor& spec, std::string_view current, std::string_view legacy) {
  const Cursor a = spec[current];
  const Cursor b = spec[legacy];
  const std::string va = a.String();
  const std::string vb = b.String();
  if (!va.empty() && !vb.empty() && va != vb) {
    b.Fail(fmt::format("\"{}\" contradicts {}: \"{}\" (write one of them)", vb, current, va));
  }
  return va.empty() ? vb : va;
}

}  // namespace

ClusterQueueSpec ReadClusterQueue(const Cursor& c, const ObjectHeader& h) {
  ClusterQueueSpec cq;
  cq.name = h.name;
  cq.labels = h.labels;
  const Cursor spec = c["spec"];
  if (!spec.present()) return cq;
  if (!spec.ExpectMap()) return cq;
  cq.cohort = ReadParentName(spec, "cohortName", "cohort");
  const Cursor selector = spec["namespaceSelector"];
  if (selector.present()) cq.namespace_selector = ReadLabelSelector(selector);
  cq.queueing_strategy = spec["queueingStrategy"]
                             .OptEnum<QueueingStrategy>(kQueueingStrategies)
                             .value_or(QueueingStrategy::kBestEffortFIFO);
  cq.resource_groups = ReadResourceGroups(spec["resourceGroups"]);

  const Cursor fungibility = spec["flavorFungibility"];
  if (fungibility.ExpectMap()) {
    const bool legacy_ok = h.version != ApiVersion::kKueueV1beta2;
    const std::span<const std::pair<std::string_view, FungibilityPolicy>> borrow_table =
        legacy_ok ? std::span<const std::pair<std::string_view, FungibilityPolicy>>(
                        kWhenCanBorrowV1beta1)
                  : kFungibility;
    const std::span<const std::pair<std::string_view, FungibilityPolicy>> preempt_table =
        legacy_ok ? std::span<const std::pair<std::string_view, FungibilityPolicy>>(
                        kWhenCanPreemptV1beta1)
                  : kFungibility;
    // An empty string takes the default, as in Kueue.
    if (!fungibility["whenCanBorrow"].String().empty()) {
      cq.flavor_fungibility.when_can_borrow =
          fungibility["whenCanBorrow"].OptEnum<FungibilityPolicy>(borrow_table).value_or(
              FungibilityPolicy::kMayStopSearch);
    }
    if (!fungibility["whenCanPreempt"].String().empty()) {
      cq.flavor_fungibility.when_can_preempt =
          fungibility["whenCanPreempt"].OptEnum<FungibilityPolicy>(preempt_table).value_or(
              FungibilityPolicy::kTryNextFlavor);
    }
    if (!fungibility["preference"].String().empty()) {
      cq.flavor_fungibility.preference =
          fungibility["preference"].OptEnum<FungibilityPreference>(kPreferences);
    }
  }

  const Cursor preemption = spec["preemption"];
  if (preemption.ExpectMap()) {
    cq.preemption.within_cluster_queue =
        preemption["withinClusterQueue"]
            .OptEnum<WithinClusterQueuePolicy>(kWithinClusterQueue)
            .value_or(WithinClusterQueuePolicy::kNever);
    cq.preemption.reclaim_within_cohort =
        preemption["reclaimWithinCohort"]
            .OptEnum<ReclaimWithinCohortPolicy>(kReclaimWithinCohort)
            .value_or(ReclaimWithinCohortPolicy::kNever);
    const Cursor borrow = preemption["borrowWithinCohort"];
    if (borrow.ExpectMap()) {
      cq.preemption.borrow_within_cohort.policy =
          borrow["policy"]
              .OptEnum<BorrowWithinCohortPolicy>(kBorrowWithinCohort)
              .value_or(BorrowWithinCohortPolicy::kNever);
      if (std::optional<int64_t> t = borrow["maxPriorityThreshold"].OptInt(
              std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())) {
        cq.preemption.borrow_within_cohort.max_priority_threshold = static_cast<int32_t>(*t);
      }
    }
  }

  const Cursor fair_sharing = spec["fairSharing"];
  if (fair_sharing.ExpectMap()) {
    cq.fair_sharing_weight_milli =
        ReadWeightMilli(fair_sharing["weight"]).value_or(kDefaultWeightMilli);
  }
  cq.stop_policy = spec["stopPolicy"].OptEnum<StopPolicy>(kStopPolicies).value_or(StopPolicy::kNone);
  return cq;
}

CohortSpec ReadCohort(const Cursor& c, const ObjectHeader& h) {
  CohortSpec cohort;
  cohort.name = h.name;
  const Cursor spec = c["spec"];
  if (!spec.present()) return cohort;
  if (!spec.ExpectMap()) return cohort;
  cohort.parent = ReadParentName(spec, "parentName", "parent");
  cohort.resource_groups = ReadResourceGroups(spec["resourceGroups"]);
  const Cursor fair_sharing = spec["fairSharing"];
  if (fair_sharing.ExpectMap()) {
    cohort.fair_sharing_weight_milli =
        ReadWeightMilli(fair_sharing["weight"]).value_or(kDefaultWeightMilli);
  }
  return cohort;
}

}  // namespace qm::internal
