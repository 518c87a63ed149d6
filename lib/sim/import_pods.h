// The `pod_sets` value of an imported job (private to lib/sim's importers): pod sets of identical
// pods with their per-pod cpu, memory and GPU requests, written as docs/trace-format.md §Pod sets
// says (`2x{cpu=8;memory=32Gi;nvidia.com/gpu=1}`), requests sorted by resource name and zero
// requests left out.
#ifndef QM_LIB_SIM_IMPORT_PODS_H_
#define QM_LIB_SIM_IMPORT_PODS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace qm::sim::internal {

/// What one pod asks for, in base units.
struct PodRequest {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  /// Thousandths of a GPU: GPU-sharing traces ask for fractions (openb's 0.46 GPU is 460).
  int64_t gpu_milli = 0;
  bool operator==(const PodRequest&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const PodRequest& r) {
    return H::combine(std::move(h), r.cpu_milli, r.memory_bytes, r.gpu_milli);
  }
};

/// Splits `total` into `parts` near-equal shares, larger ones first: share `i` of `parts`.
inline int64_t EvenShare(int64_t total, int64_t parts, int64_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

/// Builds one job's `pod_sets` value. The requests' text (`cpu=4;memory=30000Mi;nvidia.com/gpu=8`)
/// is made once per distinct request and then copied: traces repeat a few hundred requests over
/// millions of rows, and formatting quantities was a tenth of a PAI import.
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

  /// How many distinct requests are kept formatted; any others are formatted each time.
  static constexpr size_t kMaxKeptRequests = 4096;

 private:
  // A request's text, without its braces, and whether it asks for a fraction of a GPU.
  struct RequestText {
    std::string text;
    bool fractional = false;
  };
  const RequestText& RequestTextOf(const PodRequest& request);
  void FormatRequest(const PodRequest& request, RequestText* out) const;
  void AppendGpu(int64_t gpu_milli, RequestText* out) const;

  std::string gpu_resource_;
  int gpu_rank_ = 2;  // where the GPU resource sorts among cpu (0) and memory (1)
  absl::flat_hash_map<PodRequest, RequestText> requests_;
  RequestText scratch_;  // beyond kMaxKeptRequests
  std::string text_;
  int pod_sets_ = 0;
  bool fractional_ = false;
  bool any_gpu_ = false;
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_IMPORT_PODS_H_
