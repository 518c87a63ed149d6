// Names matched by sorting their hashes (name_index.h).
#include "sim/name_index.h"

#include <algorithm>
#include <bit>

#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

namespace qm::sim::internal {

void SortHashedIndices(std::vector<HashedIndex>& pairs) {
  // Below a few thousand pairs everything is in cache: plain sorting is as fast.
  if (pairs.size() < 4096) {
    std::sort(pairs.begin(), pairs.end());
    return;
  }
  // About 128 pairs a bucket; the top bits order the buckets as they order the pairs.
  const int bits = std::min(16, static_cast<int>(std::bit_width(pairs.size() / 128)));
  const int shift = 64 - bits;
  std::vector<uint32_t> start((size_t{1} << bits) + 1, 0);
  for (const HashedIndex& p : pairs) ++start[(p.first >> shift) + 1];
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<HashedIndex> scattered(pairs.size());
  std::vector<uint32_t> next(start.begin(), start.end() - 1);
  for (const HashedIndex& p : pairs) scattered[next[p.first >> shift]++] = p;
  for (size_t b = 0; b + 1 < start.size(); ++b) {
    std::sort(scattered.begin() + start[b], scattered.begin() + start[b + 1]);
  }
  pairs.swap(scattered);
}

uint64_t NameHash(std::string_view name) {
  return absl::Hash<absl::string_view>()(absl::string_view(name.data(), name.size()));
}

void NameIndex::Reserve(size_t names) {
  names_.reserve(names);
  sorted_.reserve(names);
}

void NameIndex::Add(std::string_view name) {
  sorted_.emplace_back(NameHash(name), static_cast<uint32_t>(names_.size()));
  names_.push_back(name);
  sorted_valid_ = false;
}

std::optional<NameRepeat> NameIndex::FirstRepeat() {
  if (!sorted_valid_) {
    SortHashedIndices(sorted_);
    sorted_valid_ = true;
  }
  std::optional<NameRepeat> repeat;
  for (size_t i = 0; i < sorted_.size();) {
    size_t j = i + 1;
    while (j < sorted_.size() && sorted_[j].first == sorted_[i].first) ++j;
    // A run of equal hashes, by index: almost always one name. For each later entry, the earliest
    // equal one is its first use.
    for (size_t b = i + 1; b < j; ++b) {
      if (repeat && sorted_[b].second >= repeat->second) continue;
      for (size_t a = i; a < b; ++a) {
        if (names_[sorted_[a].second] == names_[sorted_[b].second]) {
          repeat = NameRepeat{sorted_[a].second, sorted_[b].second};
          break;
        }
      }
    }
    i = j;
  }
  return repeat;
}

std::vector<uint32_t> NameIndex::Find(std::span<const std::string_view> keys) const {
  std::vector<HashedIndex> by_hash(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) by_hash[k] = {NameHash(keys[k]), static_cast<uint32_t>(k)};
  SortHashedIndices(by_hash);
  // Merge: each key gets the first name of its hash. Only a run of several names (a collision)
  // needs its names compared here; a single candidate is checked below, in key order.
  std::vector<uint32_t> found(keys.size(), kNotFound);
  size_t i = 0;
  for (const auto& [hash, k] : by_hash) {
    while (i < sorted_.size() && sorted_[i].first < hash) ++i;
    if (i == sorted_.size()) break;
    if (sorted_[i].first != hash) continue;
    if (i + 1 == sorted_.size() || sorted_[i + 1].first != hash) {
      found[k] = sorted_[i].second;
      continue;
    }
    for (size_t a = i; a < sorted_.size() && sorted_[a].first == hash; ++a) {
      if (names_[sorted_[a].second] == keys[k]) {
        found[k] = sorted_[a].second;
        break;
      }
    }
  }
  // Equal hashes are not equal names: compare each match, in key order (the keys' text is read in
  // order). The candidate name's view, then its text, are fetched a few keys ahead.
  constexpr size_t kAhead = 16;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (k + kAhead < keys.size() && found[k + kAhead] != kNotFound) __builtin_prefetch(&names_[found[k + kAhead]]);
    if (k + kAhead / 2 < keys.size() && found[k + kAhead / 2] != kNotFound) {
      __builtin_prefetch(names_[found[k + kAhead / 2]].data());
    }
    if (found[k] != kNotFound && names_[found[k]] != keys[k]) found[k] = kNotFound;
  }
  return found;
}

}  // namespace qm::sim::internal
