// Time as an integer count of microseconds since the Unix epoch.
//
// Microseconds cover Kubernetes' zero time (0001-01-01) and beyond year 9999, are finer than any
// timestamp Kueue writes, and keep comparisons exact. Time is always a parameter or an injected
// clock: nothing in the library reads the wall clock.
#ifndef QM_CORE_TIME_H_
#define QM_CORE_TIME_H_

#include <compare>
#include <cstdint>

namespace qm {

/// A span of time in microseconds.
struct Duration {
  int64_t us = 0;
  static constexpr Duration Microseconds(int64_t v) { return {v}; }
  static constexpr Duration Milliseconds(int64_t v) { return {v * 1000}; }
  static constexpr Duration Seconds(int64_t v) { return {v * 1000000}; }
  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return {us + o.us}; }
  constexpr Duration operator-(Duration o) const { return {us - o.us}; }
};

/// An instant: microseconds since 1970-01-01T00:00:00Z (negative before it).
struct Time {
  int64_t us = 0;
  static constexpr Time FromUnixMicros(int64_t v) { return {v}; }
  static constexpr Time FromUnixSeconds(int64_t v) { return {v * 1000000}; }
  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Duration d) const { return {us + d.us}; }
  constexpr Time operator-(Duration d) const { return {us - d.us}; }
  constexpr Duration operator-(Time o) const { return {us - o.us}; }
};

}  // namespace qm

#endif  // QM_CORE_TIME_H_
