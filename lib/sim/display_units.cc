// Display units of the simulation summary (sim_result.h): cores, GiB, or as counted.
#include <cstdint>
#include <string_view>

#include "qm/core/quantity.h"
#include "qm/core/quantity_text.h"
#include "qm/sim/sim_result.h"

namespace qm::sim {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}  // namespace

double DisplayAmount(std::string_view resource, int64_t amount) {
  const double value = static_cast<double>(amount);
  if (UnitForResource(resource) == Unit::kMilli) return value / 1000.0;
  if (quantity_internal::IsMemoryLike(resource)) return value / kGiB;
  return value;
}

const char* DisplayUnit(std::string_view resource) {
  if (UnitForResource(resource) == Unit::kMilli) return "cores";
  if (quantity_internal::IsMemoryLike(resource)) return "GiB";
  return "";
}

bool IsAcceleratorResource(std::string_view resource) {
  return resource == "nvidia.com/gpu" || resource == "aws.amazon.com/neurondevice";
}

}  // namespace qm::sim
