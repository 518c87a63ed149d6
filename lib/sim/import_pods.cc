// The `pod_sets` value of an imported job (import_pods.h).
#include "sim/import_pods.h"

#include <charconv>
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

namespace {

// `;` between requests: not after the opening of the list.
void SeparateRequest(std::string& text) {
  if (!text.empty()) text.push_back(';');
}

}  // namespace

void PodSetsText::AppendGpu(int64_t gpu_milli, RequestText* out) const {
  SeparateRequest(out->text);
  // Kubernetes' canonical form: whole GPUs as an integer, fractions in thousandths ("460m").
  if (gpu_milli % 1000 == 0) {
    fmt::format_to(std::back_inserter(out->text), "{}={}", gpu_resource_, gpu_milli / 1000);
  } else {
    fmt::format_to(std::back_inserter(out->text), "{}={}m", gpu_resource_, gpu_milli);
    out->fractional = true;
  }
}

void PodSetsText::FormatRequest(const PodRequest& request, RequestText* out) const {
  out->text.clear();
  out->fractional = false;
  const bool gpu = request.gpu_milli > 0;
  if (gpu && gpu_rank_ < 0) AppendGpu(request.gpu_milli, out);
  if (request.cpu_milli > 0) {
    SeparateRequest(out->text);
    out->text += "cpu=" + FormatQuantityForManifest("cpu", request.cpu_milli);
  }
  if (gpu && gpu_rank_ == 0) AppendGpu(request.gpu_milli, out);
  if (request.memory_bytes > 0) {
    SeparateRequest(out->text);
    out->text += "memory=" + FormatQuantityForManifest("memory", request.memory_bytes);
  }
  if (gpu && gpu_rank_ == 1) AppendGpu(request.gpu_milli, out);
}

const PodSetsText::RequestText& PodSetsText::RequestTextOf(const PodRequest& request) {
  if (const auto it = requests_.find(request); it != requests_.end()) return it->second;
  if (requests_.size() >= kMaxKeptRequests) {
    FormatRequest(request, &scratch_);
    return scratch_;
  }
  RequestText& made = requests_[request];
  FormatRequest(request, &made);
  return made;
}

void PodSetsText::Add(std::string_view name, int64_t count, const PodRequest& request) {
  if (pod_sets_ > 0) text_.push_back('+');
  ++pod_sets_;
  if (!name.empty()) {
    text_ += name;
    text_.push_back(':');
  }
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, count);
  text_.append(digits, end);
  text_ += "x{";
  const RequestText& r = RequestTextOf(request);
  text_ += r.text;
  text_.push_back('}');
  fractional_ = fractional_ || r.fractional;
  any_gpu_ = any_gpu_ || request.gpu_milli > 0;
}

}  // namespace qm::sim::internal
