// Names of one input column matched by sorting their hashes (private to lib/sim's importers): the
// PAI importer finds each task row's job and each repeated job name this way. A hash map of 10⁶
// names misses the cache on every insert and lookup (its slots, then the name it compares);
// sorted (hash, index) pairs are walked in order, and the one random read left per match, of the
// name itself, is prefetched ahead of use.
#ifndef QM_LIB_SIM_NAME_INDEX_H_
#define QM_LIB_SIM_NAME_INDEX_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace qm::sim::internal {

/// (hash, index) pairs, as the index needs them sorted.
using HashedIndex = std::pair<uint64_t, uint32_t>;

/// Sorts `pairs` ascending, as `std::sort` would, but by first scattering them into buckets by
/// their hashes' top bits (hashes are uniform, so buckets are small and sort in cache).
void SortHashedIndices(std::vector<HashedIndex>& pairs);

/// The hash of `name` the index uses (Abseil's string hash).
uint64_t NameHash(std::string_view name);

/// Two equal names: `second` is a later index than `first`.
struct NameRepeat {
  uint32_t first = 0;
  uint32_t second = 0;
};

class NameIndex {
 public:
  /// The result of `Find` for a key that matches no name.
  static constexpr uint32_t kNotFound = std::numeric_limits<uint32_t>::max();

  void Reserve(size_t names);
  /// Appends a name (index `size()`); it must stay valid as long as the index.
  void Add(std::string_view name);
  size_t size() const { return names_.size(); }
  std::string_view name(uint32_t index) const { return names_[index]; }

  /// Of all names that repeat an earlier one, the one added first, with the earliest name equal to
  /// it (what a hash set filled in order would report first); nullopt when no name repeats. Sorts
  /// the names added so far: call it after the last `Add`.
  std::optional<NameRepeat> FirstRepeat();

  /// For each key, the index of the name equal to it, or kNotFound; when names repeat, the first.
  /// Needs `FirstRepeat` to have sorted the names.
  std::vector<uint32_t> Find(std::span<const std::string_view> keys) const;

 private:
  std::vector<std::string_view> names_;
  std::vector<HashedIndex> sorted_;  // (hash, index) of every name; sorted by `FirstRepeat`
  bool sorted_valid_ = false;
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_NAME_INDEX_H_
