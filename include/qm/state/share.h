// Exact dominant-resource shares (docs/semantics.md §6.2) and their comparison.
//
// Kueue computes `ratio = borrowed × 1000 / lendable` and `ratio / weight` in float64. We keep the
// integers and compare fractions exactly (a 128×64-bit product is compared in 192 bits), so two
// shares that are mathematically equal always tie, on every machine.
#ifndef QM_STATE_SHARE_H_
#define QM_STATE_SHARE_H_

#include <compare>
#include <cstdint>
#include <limits>

#include "qm/core/ids.h"

namespace qm {

namespace internal {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang extension

/// a × b as a 192-bit number (hi 64 bits, lo 128 bits).
struct U192 {
  uint64_t hi;
  u128 lo;
  friend constexpr std::strong_ordering operator<=>(const U192& a, const U192& b) {
    if (a.hi != b.hi) return a.hi <=> b.hi;
    return a.lo <=> b.lo;
  }
};

constexpr U192 Mul128x64(u128 a, uint64_t b) {
  const u128 a_lo = static_cast<uint64_t>(a);
  const u128 a_hi = a >> 64;
  const u128 p_lo = a_lo * b;  // < 2^128
  const u128 p_hi = a_hi * b;  // < 2^128
  // result = p_hi << 64 + p_lo
  const u128 lo = p_lo + (p_hi << 64);
  const uint64_t carry = lo < p_lo ? 1 : 0;
  return U192{static_cast<uint64_t>(p_hi >> 64) + carry, lo};
}

/// a × b as a 256-bit number (hi 128 bits, lo 128 bits).
struct U256 {
  u128 hi;
  u128 lo;
  friend constexpr std::strong_ordering operator<=>(const U256& a, const U256& b) {
    if (a.hi != b.hi) return a.hi <=> b.hi;
    return a.lo <=> b.lo;
  }
};

constexpr U256 Mul128x128(u128 a, u128 b) {
  const u128 a0 = static_cast<uint64_t>(a), a1 = a >> 64;
  const u128 b0 = static_cast<uint64_t>(b), b1 = b >> 64;
  const u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  // The middle column: three terms below 2^64 each, so no overflow.
  const u128 mid = static_cast<u128>(static_cast<uint64_t>(p01)) + static_cast<uint64_t>(p10) + (p00 >> 64);
  const u128 lo = static_cast<u128>(static_cast<uint64_t>(p00)) | (mid << 64);
  return U256{p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64), lo};
}

}  // namespace internal

/// The dominant resource share of a ClusterQueue or Cohort: `borrowed / lendable` of its dominant
/// resource, divided by its fair-sharing weight. A zero weight with a positive ratio is +∞.
///
/// A historical share (docs/semantics.md §11.8, not Kueue) has the same form with a finer
/// numerator: `amount_q32 / 2^32`, what the node borrows now plus its decayed borrowing history,
/// in units of 2^-32 of the base unit (below 2^96). `borrowed` is then unused.
struct Share {
  int64_t borrowed = 0;      ///< of the dominant resource, summed over its flavors
  int64_t lendable = 1;      ///< of the dominant resource (> 0 whenever borrowed > 0)
  int64_t weight_milli = 1000;
  ResourceId dominant;       ///< invalid when the ratio is 0
  bool historical = false;
  internal::u128 amount_q32 = 0;  ///< the numerator of a historical share

  /// The numerator in units of 2^-32, whichever kind of share this is.
  internal::u128 NumeratorQ32() const {
    if (historical) return amount_q32;
    return borrowed <= 0 ? 0 : static_cast<internal::u128>(static_cast<uint64_t>(borrowed)) << 32;
  }

  /// The ratio is `borrowed × 1000 / lendable` (Kueue scales by 1000).
  bool is_zero() const { return historical ? amount_q32 == 0 : borrowed <= 0; }
  /// Weight 0 and something borrowed: larger than every finite share.
  bool is_infinite() const { return weight_milli == 0 && !is_zero(); }

  /// Kueue's `status.fairSharing.weightedShare`: ceil(ratio / weight), INT64_MAX when infinite.
  int64_t WeightedShareCeil() const {
    if (is_zero()) return 0;
    if (is_infinite()) return std::numeric_limits<int64_t>::max();
    if (historical) {
      // ceil(amount × 10^6 / (lendable × weight) / 2^32), as two ceilings (which compose exactly).
      const internal::u128 num = amount_q32 * 1000000u;  // < 2^116
      const internal::u128 den =
          static_cast<internal::u128>(lendable) * static_cast<uint64_t>(weight_milli);
      const internal::u128 q = ((num + den - 1) / den + ((internal::u128{1} << 32) - 1)) >> 32;
      return q > static_cast<internal::u128>(std::numeric_limits<int64_t>::max())
                 ? std::numeric_limits<int64_t>::max()
                 : static_cast<int64_t>(q);
    }
    // ratio / weight = borrowed × 10^6 / (lendable × weight_milli)
    const internal::u128 num = static_cast<internal::u128>(borrowed) * 1000000u;
    const internal::u128 den =
        static_cast<internal::u128>(lendable) * static_cast<uint64_t>(weight_milli);
    const internal::u128 q = (num + den - 1) / den;
    return q > static_cast<internal::u128>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(q);
  }
};

/// Compares the unweighted ratios `a.borrowed / a.lendable` and `b.borrowed / b.lendable`.
inline std::strong_ordering CompareRatio(int64_t a_borrowed, int64_t a_lendable, int64_t b_borrowed,
                                         int64_t b_lendable) {
  const internal::u128 l = static_cast<internal::u128>(a_borrowed) * static_cast<uint64_t>(b_lendable);
  const internal::u128 r = static_cast<internal::u128>(b_borrowed) * static_cast<uint64_t>(a_lendable);
  return l <=> r;
}

/// Kueue's `CompareDRS`: two zero-weight borrowers compare by unweighted ratio; a zero-weight
/// borrower is larger than anything else; otherwise the weighted shares are compared.
inline std::strong_ordering CompareShare(const Share& a, const Share& b) {
  using internal::Mul128x64;
  using internal::u128;
  const bool ai = a.is_infinite(), bi = b.is_infinite();
  const bool fine = a.historical || b.historical;
  if (ai && bi) {
    if (!fine) return CompareRatio(a.borrowed, a.lendable, b.borrowed, b.lendable);
    return Mul128x64(a.NumeratorQ32(), static_cast<uint64_t>(b.lendable)) <=>
           Mul128x64(b.NumeratorQ32(), static_cast<uint64_t>(a.lendable));
  }
  if (ai) return std::strong_ordering::greater;
  if (bi) return std::strong_ordering::less;
  const bool az = a.is_zero(), bz = b.is_zero();
  if (az || bz) return bz <=> az;  // zero < positive
  if (fine) {
    // Numerators below 2^96, lendable × weight below 2^126: the products fit 256 bits.
    const u128 a_den = static_cast<u128>(a.lendable) * static_cast<uint64_t>(a.weight_milli);
    const u128 b_den = static_cast<u128>(b.lendable) * static_cast<uint64_t>(b.weight_milli);
    return internal::Mul128x128(a.NumeratorQ32(), b_den) <=> internal::Mul128x128(b.NumeratorQ32(), a_den);
  }
  // a.b × 10^6 / (a.l × a.w)  vs  b.b × 10^6 / (b.l × b.w)  ⇔  a.b × b.l × b.w  vs  b.b × a.l × a.w
  const auto l = Mul128x64(static_cast<u128>(a.borrowed) * static_cast<uint64_t>(b.lendable),
                           static_cast<uint64_t>(b.weight_milli));
  const auto r = Mul128x64(static_cast<u128>(b.borrowed) * static_cast<uint64_t>(a.lendable),
                           static_cast<uint64_t>(a.weight_milli));
  return l <=> r;
}

}  // namespace qm

#endif  // QM_STATE_SHARE_H_
