// LocalQueue and Namespace specs (docs/semantics.md §1.5).
#ifndef QM_MODEL_LOCAL_QUEUE_H_
#define QM_MODEL_LOCAL_QUEUE_H_

#include <string>

#include "qm/model/cluster_queue.h"
#include "qm/model/selectors.h"

namespace qm {

/// `kueue.x-k8s.io LocalQueue`: the namespaced entry point that names a ClusterQueue.
struct LocalQueueSpec {
  std::string namespace_;  ///< metadata.namespace ("default" when empty)
  std::string name;
  std::string cluster_queue;  ///< spec.clusterQueue (immutable in Kueue)
  StopPolicy stop_policy = StopPolicy::kNone;
  Labels labels;  ///< metadata.labels (kept for output)
};

/// `v1 Namespace`: only its labels matter (ClusterQueue namespaceSelector).
struct NamespaceSpec {
  std::string name;
  Labels labels;
};

}  // namespace qm

#endif  // QM_MODEL_LOCAL_QUEUE_H_
