// Core/v1 `Node`: what the simulator places pods by (labels, taints, cordon, allocatable). The
// engine never sees nodes; Kueue admits by quota alone.
#include <map>
#include <string>
#include <utility>

#include "fmt/format.h"
#include "io/object_reader.h"
#include "io/quantity_fields.h"

namespace qm::internal {
namespace {

// `status.allocatable` (what the scheduler may hand out), or `status.capacity` when a node lists
// no allocatable, as kubelet sets allocatable = capacity minus reservations and a hand-written
// inventory often gives only one. Sorted by resource.
std::vector<std::pair<std::string, int64_t>> ReadAllocatable(const Cursor& status) {
  const Cursor allocatable = status["allocatable"];
  const Cursor amounts = allocatable.present() ? allocatable : status["capacity"];
  std::map<std::string, int64_t> sorted;
  for (const auto& [resource, value] : amounts.Entries()) {
    if (resource.empty()) {
      value.Fail("resource names must not be empty");
      return {};
    }
    const std::optional<int64_t> v = ReadQuota(value, resource);
    if (!v.has_value()) {
      if (value.ctx().ok()) value.Fail("a quantity is required");
      return {};
    }
    sorted[resource] = *v;
  }
  return {sorted.begin(), sorted.end()};
}

}  // namespace

NodeSpec ReadNode(const Cursor& c, const ObjectHeader& h, std::string source) {
  NodeSpec node;
  node.name = h.name;
  node.labels = h.labels;
  node.source = std::move(source);
  const Cursor spec = c["spec"];
  if (spec.ExpectMap()) {
    node.taints = ReadTaints(spec["taints"]);
    node.unschedulable = spec["unschedulable"].OptBool().value_or(false);
  }
  const Cursor status = c["status"];
  if (status.ExpectMap()) node.allocatable = ReadAllocatable(status);
  return node;
}

}  // namespace qm::internal
