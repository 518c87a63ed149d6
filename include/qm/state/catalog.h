// The per-engine catalog of interned resource and flavor names and of (flavor, resource) slots.
#ifndef QM_STATE_CATALOG_H_
#define QM_STATE_CATALOG_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "qm/core/ids.h"
#include "qm/core/quantity.h"

namespace qm {

/// 64-bit FNV-1a of a string. Kueue iterates a pod set's requested resources in this hash order,
/// which decides which resource group's failure message is reported (docs/semantics.md §4.3.2).
constexpr uint64_t Fnv1a64(std::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

/// Interned resource and flavor names, and the dense (flavor, resource) slots every per-FR array is
/// indexed by. Slots are created when a quota, usage or request first mentions the pair and are never
/// removed, so arrays only grow.
class Catalog {
 public:
  ResourceId InternResource(std::string_view name) {
    ResourceId id = resources_.Intern(name);
    if (id.value == resource_hash_.size()) {
      resource_hash_.push_back(Fnv1a64(name));
      resource_unit_.push_back(UnitForResource(name));
      RankResourceNames();
      if (name == "pods") pods_ = id;
    }
    return id;
  }
  /// The `pods` resource (a queue that covers it is charged one per pod), or an invalid id while no
  /// spec has named it. Kept at hand: every flavor assignment asks.
  ResourceId PodsResource() const { return pods_; }
  /// Name order of resources, as one integer comparison: shares break ties between resources by
  /// name on every comparison, and comparing the strings there cost more than the shares.
  bool ResourceNameLess(ResourceId a, ResourceId b) const { return resource_rank_[a.value] < resource_rank_[b.value]; }
  ResourceId FindResource(std::string_view name) const { return resources_.Find(name); }
  const std::string& ResourceName(ResourceId id) const { return resources_.Name(id); }
  uint32_t resource_count() const { return resources_.size(); }
  uint64_t ResourceHash(ResourceId id) const { return resource_hash_[id.value]; }
  Unit ResourceUnit(ResourceId id) const { return resource_unit_[id.value]; }

  FlavorId InternFlavor(std::string_view name) { return flavors_.Intern(name); }
  FlavorId FindFlavor(std::string_view name) const { return flavors_.Find(name); }
  const std::string& FlavorName(FlavorId id) const { return flavors_.Name(id); }
  uint32_t flavor_count() const { return flavors_.size(); }

  /// The slot of (flavor, resource), created if new.
  FrId InternFr(FlavorId flavor, ResourceId resource) {
    auto [it, inserted] = fr_ids_.try_emplace(Key(flavor, resource), FrId());
    if (inserted) {
      it->second = FrId(static_cast<uint32_t>(fr_pairs_.size()));
      fr_pairs_.emplace_back(flavor, resource);
    }
    return it->second;
  }
  /// The slot of (flavor, resource), or an invalid id when no quota or usage ever mentioned it.
  FrId FindFr(FlavorId flavor, ResourceId resource) const {
    auto it = fr_ids_.find(Key(flavor, resource));
    return it == fr_ids_.end() ? FrId() : it->second;
  }
  FlavorId FrFlavor(FrId fr) const { return fr_pairs_[fr.value].first; }
  ResourceId FrResource(FrId fr) const { return fr_pairs_[fr.value].second; }
  uint32_t fr_count() const { return static_cast<uint32_t>(fr_pairs_.size()); }

 private:
  // Resources are few and interned rarely (a new name in a spec): re-ranking them all is cheap.
  void RankResourceNames() {
    std::vector<ResourceId> order(resources_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = ResourceId(i);
    std::sort(order.begin(), order.end(), [&](ResourceId a, ResourceId b) { return ResourceName(a) < ResourceName(b); });
    resource_rank_.resize(order.size());
    for (uint32_t rank = 0; rank < order.size(); ++rank) resource_rank_[order[rank].value] = rank;
  }
  static uint64_t Key(FlavorId f, ResourceId r) {
    return (static_cast<uint64_t>(f.value) << 32) | r.value;
  }
  Interner<ResourceId> resources_;
  std::vector<uint64_t> resource_hash_;
  std::vector<Unit> resource_unit_;
  std::vector<uint32_t> resource_rank_;  ///< by ResourceId: position in name order
  ResourceId pods_;
  Interner<FlavorId> flavors_;
  absl::flat_hash_map<uint64_t, FrId> fr_ids_;
  std::vector<std::pair<FlavorId, ResourceId>> fr_pairs_;
};

}  // namespace qm

#endif  // QM_STATE_CATALOG_H_
