// Quantity text: whatever the parser accepts must format back to text it reads as the same amount,
// and the clamping parser must agree with the strict one wherever the strict one succeeds.
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "fuzz/targets/fuzz_check.h"
#include "fuzz/targets/targets.h"
#include "qm/core/quantity_text.h"

namespace qm::fuzz {
namespace {

// The resource whose canonical text the amount is formatted in, chosen by the first byte, so that
// the three formats (milli decimal SI, binary SI, decimal SI) are all exercised.
constexpr std::string_view kResources[] = {"cpu", "memory", "nvidia.com/gpu"};

}  // namespace

void QuantityTarget(std::span<const uint8_t> data) {
  if (data.empty()) return;
  const std::string_view resource = kResources[data[0] % 3];
  const Unit unit = UnitForResource(resource);
  const std::string_view text(reinterpret_cast<const char*>(data.data()) + 1, data.size() - 1);

  const absl::StatusOr<int64_t> strict = ParseQuantity(text, unit);
  const absl::StatusOr<int64_t> clamped = ParseQuantityClamped(text, unit);
  if (strict.ok()) {
    QM_FUZZ_CHECK(clamped.ok() && *clamped == *strict, "clamped parse disagrees on \"", text, "\"");
  } else if (strict.status().code() == absl::StatusCode::kOutOfRange) {
    QM_FUZZ_CHECK(clamped.ok() && (*clamped == kUnlimited || *clamped == kMinusUnlimited),
                  "out-of-range \"", text, "\" does not clamp to an end");
  } else {
    QM_FUZZ_CHECK(!clamped.ok(), "clamped parse accepts malformed \"", text, "\"");
  }
  if (!clamped.ok()) return;

  // Canonical text reads back as the same amount (both ends of the range included).
  const std::string formatted = FormatQuantityForManifest(resource, *clamped);
  const absl::StatusOr<int64_t> again = ParseQuantityClamped(formatted, unit);
  QM_FUZZ_CHECK(again.ok() && *again == *clamped, "\"", text, "\" = ", *clamped, " formats as \"",
                formatted, "\", which reads back as ",
                again.ok() ? absl::StrCat(*again) : std::string(again.status().message()));
  (void)FormatLimit(resource, *clamped);
}

}  // namespace qm::fuzz
