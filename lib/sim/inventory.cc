// Nodes for a HyperPod `HyperPodCluster` inventory. Each node gets its instance type's catalogue
// figures under the resource names HyperPod's ClusterQueues use (docs/hyperpod.md §2.3), with the
// same arithmetic as a `Count: 1` quota (translate.cc, §4.2 rule 1), so a cluster whose teams'
// quotas add up to its inventory is exactly full when they all use their quota.
#include <string>
#include <utility>

#include "fmt/format.h"
#include "qm/hyperpod/instance_catalog.h"
#include "qm/hyperpod/translate.h"
#include "qm/sim/placement.h"

namespace qm::sim {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// Digits of the largest index, so `<type>-<i>` sorts by name in index order.
int IndexWidth(int64_t count) {
  int width = 1;
  for (int64_t v = count - 1; v >= 10; v /= 10) ++width;
  return width;
}

// One instance's allocatable, sorted by resource name. Zero amounts are left out (a CPU-only type
// has no GPU entry), as a Node's allocatable lists only what the node has.
std::vector<std::pair<std::string, int64_t>> InstanceAllocatable(const hyperpod::InstanceType& t) {
  std::vector<std::pair<std::string, int64_t>> out;
  // Quotas count Neuron devices by the type's accelerator figure too (translate.cc).
  if (t.is_neuron()) out.emplace_back(std::string(hyperpod::kNeuronResource), t.accelerators);
  out.emplace_back("cpu", int64_t{t.vcpu} * 1000);
  out.emplace_back("memory", t.memory_mib * kMiB);
  if (t.is_gpu()) out.emplace_back(std::string(hyperpod::kGpuResource), t.accelerators);
  if (t.efa > 0) out.emplace_back(std::string(hyperpod::kEfaResource), t.efa);
  return out;  // "aws.amazon.com/…" < "cpu" < "memory" < "nvidia.com/…" < "vpc.amazonaws.com/…"
}

}  // namespace

absl::StatusOr<std::vector<NodeSpec>> NodesFromInventory(
    std::span<const std::pair<std::string, int64_t>> instances) {
  std::vector<NodeSpec> nodes;
  for (size_t i = 0; i < instances.size(); ++i) {
    const auto& [type_name, count] = instances[i];
    const hyperpod::InstanceType* type = hyperpod::FindInstanceType(type_name);
    if (type == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("HyperPodCluster: unknown instance type '{}' (not in the instance catalogue)",
                      type_name));
    }
    if (count < 0) {
      return absl::InvalidArgumentError(
          fmt::format("HyperPodCluster: {}: count {} must not be negative", type_name, count));
    }
    for (size_t j = 0; j < i; ++j) {
      if (instances[j].first == type_name) {
        return absl::InvalidArgumentError(
            fmt::format("HyperPodCluster: instance type '{}' is listed twice", type_name));
      }
    }
    const std::vector<std::pair<std::string, int64_t>> allocatable = InstanceAllocatable(*type);
    const int width = IndexWidth(count);
    for (int64_t k = 0; k < count; ++k) {
      nodes.push_back(NodeSpec{
          .name = fmt::format("{}-{:0{}}", type_name, k, width),
          .labels = {{std::string(hyperpod::kInstanceTypeLabel), type_name}},
          .taints = {},
          .allocatable = allocatable,
          .unschedulable = false,
          .source = {}});
    }
  }
  return nodes;
}

}  // namespace qm::sim
