// The `pod_sets` value of an imported job (import_pods.h).
#include "sim/import_pods.h"

#include <iterator>

#include "fmt/format.h"
#include "qm/core/quantity_text.h"

namespace qm::sim::internal {

PodSetsText::PodSetsText(std::string_view gpu_resource) : gpu_resource_(gpu_resource) {
  gpu_rank_ = gpu_resource < "cpu" ? -1 : gpu_resource < "memory" ? 0 : 1;
}

void PodSetsText::Clear() {
  text_.clear();
  pod_sets_ = 0;
  fractional_ = false;
  any_gpu_ = false;
}

void PodSetsText::Separate() {
  if (text_.back() != '{') text_.push_back(';');
}

void PodSetsText::AppendGpu(int64_t gpu_milli) {
  Separate();
  // Kubernetes' canonical form: whole GPUs as an integer, fractions in thousandths ("460m").
  if (gpu_milli % 1000 == 0) {
    fmt::format_to(std::back_inserter(text_), "{}={}", gpu_resource_, gpu_milli / 1000);
  } else {
    fmt::format_to(std::back_inserter(text_), "{}={}m", gpu_resource_, gpu_milli);
    fractional_ = true;
  }
  any_gpu_ = true;
}

void PodSetsText::Add(std::string_view name, int64_t count, const PodRequest& request) {
  if (pod_sets_ > 0) text_.push_back('+');
  ++pod_sets_;
  if (!name.empty()) fmt::format_to(std::back_inserter(text_), "{}:", name);
  fmt::format_to(std::back_inserter(text_), "{}x{{", count);
  const bool gpu = request.gpu_milli > 0;
  if (gpu && gpu_rank_ < 0) AppendGpu(request.gpu_milli);
  if (request.cpu_milli > 0) {
    Separate();
    text_ += "cpu=" + FormatQuantityForManifest("cpu", request.cpu_milli);
  }
  if (gpu && gpu_rank_ == 0) AppendGpu(request.gpu_milli);
  if (request.memory_bytes > 0) {
    Separate();
    text_ += "memory=" + FormatQuantityForManifest("memory", request.memory_bytes);
  }
  if (gpu && gpu_rank_ == 1) AppendGpu(request.gpu_milli);
  text_.push_back('}');
}

}  // namespace qm::sim::internal
