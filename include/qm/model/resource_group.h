// Resource groups: the quota shape shared by ClusterQueues and Cohorts (docs/semantics.md §1.3, §1.4).
#ifndef QM_MODEL_RESOURCE_GROUP_H_
#define QM_MODEL_RESOURCE_GROUP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qm {

/// Quota for one resource in one flavor. Amounts are in the resource's base unit (quantity.h).
struct ResourceQuotaSpec {
  std::string name;  ///< resource name, e.g. "cpu", "nvidia.com/gpu"
  int64_t nominal_quota = 0;
  /// How much more than nominal the node may take from its cohort; unset = no limit.
  std::optional<int64_t> borrowing_limit;
  /// How much of its quota the node lends to its cohort; unset = everything.
  std::optional<int64_t> lending_limit;
};

/// One flavor entry of a resource group: its quotas, listing the group's covered resources in the
/// same order.
struct FlavorQuotasSpec {
  std::string name;  ///< ResourceFlavor name
  std::vector<ResourceQuotaSpec> resources;
};

/// `resourceGroups[]`: resources that are assigned a flavor together, and the flavors to try, in
/// preference order.
struct ResourceGroupSpec {
  std::vector<std::string> covered_resources;
  std::vector<FlavorQuotasSpec> flavors;
};

}  // namespace qm

#endif  // QM_MODEL_RESOURCE_GROUP_H_
