// The `pod_sets` value of an imported job (private to lib/sim's importers): pod sets of identical
// pods with their per-pod cpu, memory and GPU requests, written as docs/trace-format.md §Pod sets
// says (`2x{cpu=8;memory=32Gi;nvidia.com/gpu=1}`), requests sorted by resource name and zero
// requests left out.
#ifndef QM_LIB_SIM_IMPORT_PODS_H_
#define QM_LIB_SIM_IMPORT_PODS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace qm::sim::internal {

/// What one pod asks for, in base units.
struct PodRequest {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  /// Thousandths of a GPU: GPU-sharing traces ask for fractions (openb's 0.46 GPU is 460).
  int64_t gpu_milli = 0;
  bool operator==(const PodRequest&) const = default;
};

/// Splits `total` into `parts` near-equal shares, larger ones first: share `i` of `parts`.
inline int64_t EvenShare(int64_t total, int64_t parts, int64_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

/// Builds one job's `pod_sets` value.
class PodSetsText {
 public:
  explicit PodSetsText(std::string_view gpu_resource);

  void Clear();
  /// Appends a pod set of `count` pods (≥ 1) asking for `request`; `name` "" leaves it unnamed.
  void Add(std::string_view name, int64_t count, const PodRequest& request);

  std::string_view text() const { return text_; }
  int pod_set_count() const { return pod_sets_; }
  /// Whether some pod asks for a fraction of a GPU (then the trace is read with
  /// `--round-fractional up`: Kubernetes takes whole extended resources only).
  bool fractional() const { return fractional_; }
  /// Whether some pod asks for a GPU.
  bool any_gpu() const { return any_gpu_; }

 private:
  void Separate();  // ';' unless the request list just opened
  void AppendGpu(int64_t gpu_milli);

  std::string gpu_resource_;
  int gpu_rank_ = 2;  // where the GPU resource sorts among cpu (0) and memory (1)
  std::string text_;
  int pod_sets_ = 0;
  bool fractional_ = false;
  bool any_gpu_ = false;
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_IMPORT_PODS_H_
