// A small seeded generator for randomized tests: the same seed gives the same numbers with every
// compiler and standard library (std::uniform_int_distribution does not promise that).
#ifndef QM_TESTS_SUPPORT_RANDOM_H_
#define QM_TESTS_SUPPORT_RANDOM_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "qm/core/split_mix64.h"

namespace qm::test {

/// SplitMix64 (qm/core/split_mix64.h) with the draws tests need.
class Rng {
 public:
  explicit Rng(uint64_t seed) : mix_(seed) {}
  uint64_t Next() { return mix_.Next(); }
  /// Uniform in [lo, hi] (the tiny modulo bias does not matter to a test).
  int64_t Between(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1)); }
  bool OneIn(int n) { return Between(1, n) == 1; }
  template <class T>
  const T& Pick(const std::vector<T>& v) { return v[static_cast<size_t>(Between(0, static_cast<int64_t>(v.size()) - 1))]; }
  /// Fisher–Yates.
  template <class T>
  void Shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(Between(0, static_cast<int64_t>(i) - 1))]);
  }

 private:
  SplitMix64 mix_;
};

}  // namespace qm::test

#endif  // QM_TESTS_SUPPORT_RANDOM_H_
