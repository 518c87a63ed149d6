// Dense, tagged ids and the interner that hands them out.
//
// Names (of resources, flavors, queues, workloads) are turned into small integers once, at the edge,
// so the solver indexes flat arrays instead of hashing strings. Ids are handed out in the order names
// are first seen; nothing in a decision depends on id order unless a comment says so — orders that
// users can observe are defined on names, priorities and timestamps.
#ifndef QM_CORE_IDS_H_
#define QM_CORE_IDS_H_

#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace qm {

/// A dense index tagged with the kind of thing it names, so a `FlavorId` cannot be passed where a
/// `ResourceId` is expected. The default-constructed id is invalid.
template <class Tag>
struct Id {
  static constexpr uint32_t kInvalidValue = std::numeric_limits<uint32_t>::max();
  uint32_t value = kInvalidValue;

  constexpr Id() = default;
  constexpr explicit Id(uint32_t v) : value(v) {}
  constexpr bool valid() const { return value != kInvalidValue; }
  constexpr auto operator<=>(const Id&) const = default;

  template <typename H>
  friend H AbslHashValue(H h, Id id) {
    return H::combine(std::move(h), id.value);
  }
};

using ResourceId = Id<struct ResourceTag>;
using FlavorId = Id<struct FlavorTag>;
/// A (flavor, resource) pair that some quota or usage mentions; the index of every per-FR array.
using FrId = Id<struct FlavorResourceTag>;
using ClusterQueueId = Id<struct ClusterQueueTag>;
using CohortId = Id<struct CohortTag>;
using LocalQueueId = Id<struct LocalQueueTag>;
using NamespaceId = Id<struct NamespaceTag>;
using WorkloadId = Id<struct WorkloadTag>;
/// A LocalQueue name as workloads spell it (interned whether or not such a queue exists).
using QueueNameId = Id<struct QueueNameTag>;

/// A workload as a host names it: its slot plus the slot's generation. A deleted workload's slot is
/// reused by later workloads with a new generation, so a handle kept after `Engine::Delete` is
/// rejected as stale instead of naming another workload. The default handle is invalid.
struct WorkloadHandle {
  uint32_t index = WorkloadId::kInvalidValue;
  uint32_t generation = 0;

  constexpr bool valid() const { return index != WorkloadId::kInvalidValue; }
  constexpr auto operator<=>(const WorkloadHandle&) const = default;
  /// One 64-bit number (generation in the high half), for hosts that store ids as integers.
  constexpr uint64_t Pack() const { return uint64_t{generation} << 32 | index; }
  static constexpr WorkloadHandle Unpack(uint64_t v) {
    return WorkloadHandle{static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
  }

  template <typename H>
  friend H AbslHashValue(H h, WorkloadHandle w) {
    return H::combine(std::move(h), w.index, w.generation);
  }
};

/// Hands out ids for names: the first new name gets 0, the next 1, and so on. Lookups are hash-based;
/// iteration is by id, never by hash order.
template <class IdT>
class Interner {
 public:
  /// Returns the id of `name`, creating it if new.
  IdT Intern(std::string_view name) {
    if (auto it = ids_.find(absl::string_view(name.data(), name.size())); it != ids_.end()) return it->second;
    IdT id(static_cast<uint32_t>(names_.size()));
    names_.emplace_back(name);
    ids_.emplace(names_.back(), id);
    return id;
  }
  /// Returns the id of `name`, or an invalid id if it was never interned.
  IdT Find(std::string_view name) const {
    auto it = ids_.find(absl::string_view(name.data(), name.size()));
    return it == ids_.end() ? IdT() : it->second;
  }
  const std::string& Name(IdT id) const { return names_[id.value]; }
  uint32_t size() const { return static_cast<uint32_t>(names_.size()); }

 private:
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, IdT> ids_;
};

}  // namespace qm

#endif  // QM_CORE_IDS_H_
