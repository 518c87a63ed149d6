// Kubernetes `Node` objects for the machines of an imported trace (private to lib/sim's importers):
// one YAML document per machine with its allocatable cpu, memory and GPUs, labelled with its GPU
// model so that a ResourceFlavor per model can select it (docs/trace-import.md §Nodes).
#ifndef QM_LIB_SIM_IMPORT_NODES_H_
#define QM_LIB_SIM_IMPORT_NODES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "qm/sim/trace_import.h"

namespace qm::sim::internal {

class NodeYaml {
 public:
  /// `source` names the format in the file's opening comment.
  NodeYaml(const TraceImportOptions& options, std::string_view source);

  /// What one machine offers; an amount of 0 is left out (cpu and memory are unknown for Philly).
  struct Machine {
    std::string_view name;
    std::string_view model;  ///< "" for a machine without GPUs or of unknown model
    int64_t cpu_milli = 0;
    int64_t memory_bytes = 0;
    int64_t gpus = 0;
  };
  /// Appends a Node. Errors (`file:line: column: message`) for an invalid or repeated name or an
  /// invalid model; `name_column` and `model_column` are the columns they came from.
  absl::Status Add(const Machine& machine, std::string_view file, int64_t line, std::string_view name_column,
                   std::string_view model_column);

  int64_t count() const { return count_; }
  /// The YAML text; "" when no node was added.
  std::string Take();

 private:
  std::string gpu_resource_;
  std::string model_label_;
  std::string yaml_;
  int64_t count_ = 0;
  absl::flat_hash_map<std::string, int64_t> lines_;  // node name → its line, to report repeats
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_IMPORT_NODES_H_
