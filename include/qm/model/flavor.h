// ResourceFlavor: a kind of node a quota is expressed in (docs/semantics.md §1.2).
#ifndef QM_MODEL_FLAVOR_H_
#define QM_MODEL_FLAVOR_H_

#include <string>
#include <vector>

#include "qm/model/selectors.h"

namespace qm {

/// `kueue.x-k8s.io ResourceFlavor`. Only the name and these three fields affect scheduling.
struct ResourceFlavorSpec {
  std::string name;
  /// Labels a pod must be able to select (at most 8). Sorted by key.
  Labels node_labels;
  /// Taints a pod must tolerate; only NoSchedule and NoExecute are checked (at most 8).
  std::vector<Taint> node_taints;
  /// Tolerations Kueue adds to admitted pods; they also tolerate the flavor's own taints (at most 8).
  std::vector<Toleration> tolerations;
};

}  // namespace qm

#endif  // QM_MODEL_FLAVOR_H_
