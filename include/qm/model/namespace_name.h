// The namespace an object lives in when it names none. Kubernetes puts a namespaced object that
// leaves metadata.namespace empty into "default"; every reader, writer and lookup of Workloads and
// LocalQueues applies that one rule through these functions, so they cannot drift apart.
#pragma once

#include <string>
#include <string_view>

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

}  // namespace qm
