// Resource amounts as integers in a canonical base unit, with Kueue's saturating arithmetic.
//
// Every amount is an `int64_t`: CPU in millicores, every other resource in base units (bytes,
// devices, pods). `kUnlimited` (= INT64_MAX) stands for "no limit" and follows Kueue's rules
// (pkg/resources/amount.go): ∞ + x = ∞, ∞ − x = ∞, x − ∞ = −∞, ∞ − ∞ = 0; finite sums saturate
// instead of wrapping. Text is parsed and printed only at the edges (quantity_text.h).
#ifndef QM_CORE_QUANTITY_H_
#define QM_CORE_QUANTITY_H_

#include <cstdint>
#include <limits>
#include <string_view>

namespace qm {

/// "No limit": an unset borrowing or lending limit, or the potential of an unbounded tree.
inline constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();
/// The result of subtracting `kUnlimited` from a finite amount.
inline constexpr int64_t kMinusUnlimited = std::numeric_limits<int64_t>::min();

/// The unit an amount of a resource is counted in.
enum class Unit : uint8_t {
  kMilli,  ///< thousandths of the written value (CPU: "1" is 1000)
  kBase,   ///< the written value itself, rounded up to an integer ("1.5" bytes is 2)
};

/// CPU is counted in millicores; every other resource in base units (Kueue's `ResourceValue`).
constexpr Unit UnitForResource(std::string_view resource) {
  return resource == "cpu" ? Unit::kMilli : Unit::kBase;
}

/// a + b with Kueue's unlimited rules; finite results saturate at the int64 range.
constexpr int64_t AddAmount(int64_t a, int64_t b) {
  if (a == kUnlimited || b == kUnlimited) return kUnlimited;
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kUnlimited : kMinusUnlimited;
  return r;
}

/// a − b with Kueue's unlimited rules (∞ − ∞ = 0, ∞ − x = ∞, x − ∞ = −∞).
constexpr int64_t SubAmount(int64_t a, int64_t b) {
  if (a == kUnlimited) return b == kUnlimited ? 0 : kUnlimited;
  if (b == kUnlimited) return kMinusUnlimited;
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return a >= 0 ? kUnlimited : kMinusUnlimited;
  return r;
}

/// A sum of amounts that cannot overflow: 2^32 workloads of at most `kUnlimited` each need 95 bits.
/// Usage is accounted in it so that adding and removing a workload are exact inverses however large
/// the amounts (a saturated int64 sum could not be undone).
__extension__ typedef __int128 WideAmount;

/// `v` read as an amount: sums beyond the int64 range read as `kUnlimited` (or `kMinusUnlimited`),
/// as a saturating int64 sum would, but the exact sum is kept.
constexpr int64_t ClampAmount(WideAmount v) {
  if (v >= kUnlimited) return kUnlimited;
  if (v <= kMinusUnlimited) return kMinusUnlimited;
  return static_cast<int64_t>(v);
}

/// a × n for a count n ≥ 0, saturating at `kUnlimited`.
constexpr int64_t MulAmount(int64_t a, int64_t n) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, n, &r)) return (a >= 0) == (n >= 0) ? kUnlimited : kMinusUnlimited;
  return r;
}

}  // namespace qm

#endif  // QM_CORE_QUANTITY_H_
