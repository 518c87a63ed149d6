// How the engine runs the host's functions (event callback, submission gate, clock) and survives
// one that throws or calls back into the engine: docs/engine.md, "Exceptions and re-entrancy".
// Not installed.
#ifndef QM_LIB_ADAPTER_HOST_CALLS_H_
#define QM_LIB_ADAPTER_HOST_CALLS_H_

#include <exception>
#include <string>
#include <utility>

#include "absl/status/status.h"

namespace qm::internal {

/// Marks that a host function runs, for as long as the scope lives (also when it throws), so the
/// engine can refuse the mutating calls that function makes. `running` names the function; a
/// nested host function (a clock read by a query the callback makes) restores the outer name.
class HostScope {
 public:
  HostScope(const char*& running, const char* what) : running_(running), outer_(running) { running_ = what; }
  ~HostScope() { running_ = outer_; }
  HostScope(const HostScope&) = delete;
  HostScope& operator=(const HostScope&) = delete;

 private:
  const char*& running_;
  const char* outer_;
};

/// What the exception being handled says (call only inside a catch block).
inline std::string DescribeCurrentException() {
  try {
    throw;
  } catch (const std::exception& e) {
    return std::string("'") + e.what() + "'";
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

/// Thrown by the engine (never by a host) when a host function threw before the call changed
/// anything: the call fails with `status` and the engine stays usable. Not a std::exception, so
/// no host handler mistakes it for its own.
struct RolledBack {
  absl::Status status;
};

}  // namespace qm::internal

#endif  // QM_LIB_ADAPTER_HOST_CALLS_H_
