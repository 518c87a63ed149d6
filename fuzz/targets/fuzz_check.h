// What a fuzz target does when the library breaks a promise: print why and abort, so libFuzzer
// (or the regression test's process) stops on the input that did it.
#ifndef QM_FUZZ_TARGETS_FUZZ_CHECK_H_
#define QM_FUZZ_TARGETS_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace qm::fuzz {

[[noreturn]] inline void FuzzFailure(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", file, line, what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// The pieces of a failure message, streamed (absl::StrCat takes no std::string_view here: Debian's
/// Abseil has its own string_view).
template <class... Pieces>
std::string Message(const Pieces&... pieces) {
  std::ostringstream out;
  (out << ... << pieces);
  return out.str();
}

}  // namespace qm::fuzz

/// `QM_FUZZ_CHECK(cond, "context", value, ...)`: abort with the context when `cond` is false.
#define QM_FUZZ_CHECK(cond, ...)                                                           \
  do {                                                                                     \
    if (!(cond)) ::qm::fuzz::FuzzFailure(__FILE__, __LINE__, ::qm::fuzz::Message(#cond ": ", __VA_ARGS__)); \
  } while (false)

#endif  // QM_FUZZ_TARGETS_FUZZ_CHECK_H_
