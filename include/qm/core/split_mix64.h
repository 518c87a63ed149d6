// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state and a fixed, documented output, so a seed
// gives the same numbers with every compiler and standard library (<random>'s distributions are
// implementation-defined). It draws the forecast's random runs (qm/adapter/forecast.h), seeds the
// trace generator's xoshiro256** and draws the simulator's node failures.
#ifndef QM_CORE_SPLIT_MIX64_H_
#define QM_CORE_SPLIT_MIX64_H_

#include <cstddef>
#include <cstdint>

namespace qm {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in (0, 1], 53 random bits: safe to take the logarithm of.
  double Open01() { return (static_cast<double>(Next() >> 11) + 1.0) * 0x1.0p-53; }
  /// Uniform in [0, n) for n > 0 (the modulo bias, below n / 2^64, does not matter here).
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }

 private:
  uint64_t state_;
};

}  // namespace qm

#endif  // QM_CORE_SPLIT_MIX64_H_
