// How much of an exhaustive loop a test runs in this build. Sanitized and unoptimised builds run
// the engine 10–80× slower than an optimised one (the README's test command builds both); there the
// byte-by-byte and seed-by-seed loops take a sample, and the optimised pass runs them in full.
#ifndef QM_TESTS_SUPPORT_SLOW_BUILD_H_
#define QM_TESTS_SUPPORT_SLOW_BUILD_H_

#include <cstddef>

namespace qm::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(NDEBUG)
inline constexpr bool kSlowBuild = true;
#else
inline constexpr bool kSlowBuild = false;
#endif

/// The step between the byte positions a corruption loop changes: 1 (every byte) in optimised
/// builds, 4 in slow ones. Loops start each kind of change at a different offset
/// (ByteLoopStart), so together the changes still reach most positions.
inline constexpr size_t kByteStride = kSlowBuild ? 4 : 1;

/// Where a corruption loop over positions [first, end) starts for its `variant`-th kind of change.
constexpr size_t ByteLoopStart(size_t first, size_t variant) { return first + variant % kByteStride; }

}  // namespace qm::test

#endif  // QM_TESTS_SUPPORT_SLOW_BUILD_H_
