// Priority classes (docs/semantics.md §1.6).
#ifndef QM_MODEL_PRIORITY_H_
#define QM_MODEL_PRIORITY_H_

#include <cstdint>
#include <string>

namespace qm {

/// `kueue.x-k8s.io WorkloadPriorityClass`.
struct WorkloadPriorityClassSpec {
  std::string name;
  int32_t value = 0;
  std::string description;
};

/// `scheduling.k8s.io PriorityClass`.
struct PriorityClassSpec {
  std::string name;
  int32_t value = 0;
  bool global_default = false;
  std::string description;
};

/// Which kind of class a workload names (v1beta1 `priorityClassSource`, v1beta2 `priorityClassRef`).
enum class PriorityClassSource { kNone, kWorkloadPriorityClass, kPriorityClass };

struct PriorityClassRef {
  PriorityClassSource source = PriorityClassSource::kNone;
  std::string name;
};

}  // namespace qm

#endif  // QM_MODEL_PRIORITY_H_
