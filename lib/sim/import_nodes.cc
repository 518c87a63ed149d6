// Kubernetes `Node` objects for the machines of an imported trace (import_nodes.h).
#include "sim/import_nodes.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "fmt/format.h"
#include "qm/core/quantity_text.h"
#include "sim/import_fields.h"
#include "sim/trace_text.h"

namespace qm::sim::internal {

NodeYaml::NodeYaml(const TraceImportOptions& options, std::string_view source)
    : gpu_resource_(options.gpu_resource), model_label_(options.model_label) {
  yaml_ = fmt::format("# Nodes imported by `qm trace import --format {}` (docs/trace-import.md).\n", source);
}

absl::Status NodeYaml::Add(const Machine& machine, std::string_view file, int64_t line, std::string_view name_column,
                           std::string_view model_column) {
  // Node names are DNS subdomains; the trace's machine ids (`openb-node-0228`, hashes, `m31`) are.
  if (const std::string problem = NameProblem(machine.name, kMaxNameSize); !problem.empty()) {
    return ImportError(file, line, name_column,
                       fmt::format("{} is not a valid node name: it {}", QuoteValue(machine.name), problem));
  }
  if (!machine.model.empty()) {
    if (const std::string problem = LabelValueProblem(machine.model); !problem.empty()) {
      return ImportError(file, line, model_column,
                         fmt::format("{} is not a valid label value: it {}", QuoteValue(machine.model), problem));
    }
  }
  const auto [it, inserted] = lines_.try_emplace(std::string(machine.name), line);
  if (!inserted) {
    return ImportError(file, line, name_column,
                       fmt::format("node {} appears twice (first on line {})", QuoteValue(machine.name), it->second));
  }
  ++count_;
  auto out = std::back_inserter(yaml_);
  fmt::format_to(out, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {}\n", machine.name);
  if (!machine.model.empty()) fmt::format_to(out, "  labels:\n    {}: \"{}\"\n", model_label_, machine.model);
  yaml_ += "status:\n  allocatable:\n";
  // Sorted by resource name, as Kubernetes prints them.
  std::pair<std::string_view, std::string> amounts[3];
  size_t n = 0;
  if (machine.cpu_milli > 0) amounts[n++] = {"cpu", FormatQuantityForManifest("cpu", machine.cpu_milli)};
  if (machine.memory_bytes > 0) amounts[n++] = {"memory", FormatQuantityForManifest("memory", machine.memory_bytes)};
  if (machine.gpus > 0) amounts[n++] = {gpu_resource_, FormatQuantityForManifest(gpu_resource_, machine.gpus)};
  std::sort(amounts, amounts + n);
  for (size_t i = 0; i < n; ++i) fmt::format_to(out, "    {}: \"{}\"\n", amounts[i].first, amounts[i].second);
  if (n == 0) yaml_ += "    {}\n";
  return absl::OkStatus();
}

std::string NodeYaml::Take() {
  if (count_ == 0) return "";
  return std::move(yaml_);
}

}  // namespace qm::sim::internal
