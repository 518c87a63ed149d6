// A Kubernetes Node as the simulator sees it: its name, labels, taints and allocatable resources.
// The engine never reads nodes (Kueue admits by quota); the simulator places admitted pods on them.
#ifndef QM_MODEL_NODE_H_
#define QM_MODEL_NODE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "qm/model/selectors.h"

namespace qm {

/// `kind: Node` (core/v1): the fields placement uses.
struct NodeSpec {
  std::string name;
  Labels labels;              ///< sorted by key
  std::vector<Taint> taints;  ///< spec.taints
  /// status.allocatable: resource → amount in base units (CPU in millicores), sorted by resource.
  std::vector<std::pair<std::string, int64_t>> allocatable;
  bool unschedulable = false;  ///< spec.unschedulable
  /// "file:line" the node was read from, prefixed to messages about it; empty for nodes built in
  /// code.
  std::string source;
};

}  // namespace qm

#endif  // QM_MODEL_NODE_H_
