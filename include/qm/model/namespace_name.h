// The namespace an object lives in when it names none. Kubernetes puts a namespaced object that
// leaves metadata.namespace empty into "default"; every reader, writer and lookup of Workloads and
// LocalQueues applies that one rule through these functions, so they cannot drift apart.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace qm {

inline constexpr std::string_view kDefaultNamespace = "default";

/// `ns`, or "default" when it is empty. The view aliases `ns` (or static storage).
constexpr std::string_view NamespaceOrDefault(std::string_view ns) {
  return ns.empty() ? kDefaultNamespace : ns;
}

/// Fills in "default" when `ns` is empty (for specs as they are read).
inline void DefaultNamespace(std::string& ns) {
  if (ns.empty()) ns = kDefaultNamespace;
}

/// Splits "namespace/name" at its first '/'; a name without one is in "default". The views alias
/// `full` (or static storage). Scenario files, `qm explain --workload` and reports name workloads
/// this way.
constexpr std::pair<std::string_view, std::string_view> SplitNamespacedName(std::string_view full) {
  const size_t slash = full.find('/');
  if (slash == std::string_view::npos) return {kDefaultNamespace, full};
  return {full.substr(0, slash), full.substr(slash + 1)};
}

}  // namespace qm
