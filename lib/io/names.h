// Workload names as scenario files and reports write them: "namespace/name". Private to the I/O
// layer.
#ifndef QM_LIB_IO_NAMES_H_
#define QM_LIB_IO_NAMES_H_

#include <string>
#include <string_view>
#include <utility>

#include "qm/model/namespace_name.h"

namespace qm::internal {

/// Splits "namespace/name" (already validated by the loader); "name" alone is in "default".
inline std::pair<std::string, std::string> SplitWorkloadName(std::string_view full) {
  const auto [ns, name] = SplitNamespacedName(full);
  return {std::string(ns), std::string(name)};
}

}  // namespace qm::internal

#endif  // QM_LIB_IO_NAMES_H_
