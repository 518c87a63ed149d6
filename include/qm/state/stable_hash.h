// Hashes that are the same in every process, build and machine, for the values the engine keeps in
// its state: a shape's hash and a workload's equivalence key (docs/semantics.md §3.7) are stored in
// `ClusterState` (blocked equivalence classes, scan progress) and so in snapshots
// (docs/snapshot-format.md). `absl::Hash` is salted per process (its seed is an address), so it
// serves lookup tables only and must never produce a value that is stored.
#ifndef QM_STATE_STABLE_HASH_H_
#define QM_STATE_STABLE_HASH_H_

#include <cstdint>
#include <string_view>

#include "qm/state/catalog.h"
#include "qm/state/workload_record.h"

namespace qm {

/// Mixes `v` into `h`: boost::hash_combine's step followed by murmur3's 64-bit finalizer.
constexpr uint64_t StableMix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}
/// Mixes a string (its length, then its FNV-1a hash) into `h`.
constexpr uint64_t StableMix(uint64_t h, std::string_view s) { return StableMix(StableMix(h, s.size()), Fnv1a64(s)); }

/// The hash of a workload shape: equal shapes (every field of every pod set) hash equal.
inline uint64_t ShapeHash(const WorkloadShape& shape) {
  uint64_t h = StableMix(0, shape.pod_sets.size());
  for (const PodSetShape& ps : shape.pod_sets) {
    h = StableMix(h, ps.name);
    h = StableMix(StableMix(h, static_cast<uint32_t>(ps.count)), static_cast<uint32_t>(ps.min_count));
    h = StableMix(h, ps.per_pod.size());
    for (const auto& [r, v] : ps.per_pod) h = StableMix(StableMix(h, r.value), static_cast<uint64_t>(v));
    h = StableMix(h, ps.node_selector.size());
    for (const auto& [k, v] : ps.node_selector) h = StableMix(StableMix(h, k), v);
    h = StableMix(h, ps.required_node_affinity ? ps.required_node_affinity->size() + 1 : 0);
    if (ps.required_node_affinity) {
      for (const NodeSelectorTerm& t : *ps.required_node_affinity) {
        h = StableMix(h, t.match_expressions.size());
        for (const NodeSelectorRequirement& e : t.match_expressions) {
          h = StableMix(StableMix(StableMix(h, e.key), static_cast<uint64_t>(e.op)), e.values.size());
          for (const std::string& v : e.values) h = StableMix(h, v);
        }
      }
    }
    h = StableMix(h, ps.tolerations.size());
    for (const Toleration& t : ps.tolerations) {
      h = StableMix(StableMix(StableMix(h, t.key), static_cast<uint64_t>(t.op)), t.value);
      h = StableMix(h, t.effect.has_value() ? static_cast<uint64_t>(*t.effect) : ~uint64_t{0});
    }
  }
  return h;
}

/// The equivalence key of a workload of shape hash `shape_hash` and priority `priority`.
constexpr uint64_t EquivalenceKeyOf(uint64_t shape_hash, int32_t priority) {
  return StableMix(shape_hash, static_cast<uint32_t>(priority));
}

}  // namespace qm

#endif  // QM_STATE_STABLE_HASH_H_
