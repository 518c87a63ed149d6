// Time as an integer count of microseconds since the Unix epoch.
//
// Microseconds cover Kubernetes' zero time (0001-01-01) and beyond year 9999, are finer than any
// timestamp Kueue writes, and keep comparisons exact. Time is always a parameter or an injected
// clock: nothing in the library reads the wall clock.
#ifndef QM_CORE_TIME_H_
#define QM_CORE_TIME_H_

#include <compare>
#include <cstdint>
#include <limits>

namespace qm {

namespace time_internal {
// Saturating int64 arithmetic: an instant or span past the int64 range clamps to its end instead
// of wrapping (undefined behaviour), so "now + back-off" near the end of time stays in the future.
constexpr int64_t Clamp(bool overflow, int64_t r, bool positive) {
  if (!overflow) return r;
  return positive ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}
constexpr int64_t Add(int64_t a, int64_t b) {
  int64_t r = 0;
  const bool o = __builtin_add_overflow(a, b, &r);
  return Clamp(o, r, b > 0);
}
constexpr int64_t Sub(int64_t a, int64_t b) {
  int64_t r = 0;
  const bool o = __builtin_sub_overflow(a, b, &r);
  return Clamp(o, r, b < 0);
}
constexpr int64_t Mul(int64_t a, int64_t b) {
  int64_t r = 0;
  const bool o = __builtin_mul_overflow(a, b, &r);
  return Clamp(o, r, (a < 0) == (b < 0));
}
}  // namespace time_internal

/// A span of time in microseconds. Arithmetic saturates at the int64 range.
struct Duration {
  int64_t us = 0;
  static constexpr Duration Microseconds(int64_t v) { return {v}; }
  static constexpr Duration Milliseconds(int64_t v) { return {time_internal::Mul(v, 1000)}; }
  static constexpr Duration Seconds(int64_t v) { return {time_internal::Mul(v, 1000000)}; }
  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return {time_internal::Add(us, o.us)}; }
  constexpr Duration operator-(Duration o) const { return {time_internal::Sub(us, o.us)}; }
};

/// An instant: microseconds since 1970-01-01T00:00:00Z (negative before it). Arithmetic saturates
/// at the int64 range: `Time{INT64_MAX} + Duration::Milliseconds(1)` is `Time{INT64_MAX}`.
struct Time {
  int64_t us = 0;
  static constexpr Time FromUnixMicros(int64_t v) { return {v}; }
  static constexpr Time FromUnixSeconds(int64_t v) { return {time_internal::Mul(v, 1000000)}; }
  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Duration d) const { return {time_internal::Add(us, d.us)}; }
  constexpr Time operator-(Duration d) const { return {time_internal::Sub(us, d.us)}; }
  constexpr Duration operator-(Time o) const { return {time_internal::Sub(us, o.us)}; }
};

}  // namespace qm

#endif  // QM_CORE_TIME_H_
