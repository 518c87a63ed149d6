// Workload names as scenario files and reports write them: "namespace/name". Private to the I/O
// layer.
#ifndef QM_LIB_IO_NAMES_H_
#define QM_LIB_IO_NAMES_H_

#include <string>
#include <string_view>
#include <utility>

namespace qm::internal {

/// Splits "namespace/name" (already validated by the loader); "name" alone is in "default".
inline std::pair<std::string, std::string> SplitWorkloadName(std::string_view full) {
  const size_t slash = full.find('/');
  if (slash == std::string_view::npos) return {"default", std::string(full)};
  return {std::string(full.substr(0, slash)), std::string(full.substr(slash + 1))};
}

}  // namespace qm::internal

#endif  // QM_LIB_IO_NAMES_H_
