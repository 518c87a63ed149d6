// The importers of each public trace format (private to lib/sim; trace_import.h is the API and
// docs/trace-import.md documents each mapping). Each reads its inputs, recognised by their header
// or name, into `sink` (jobs, skip counts, times) and `nodes` (machines, when the format lists
// them).
#ifndef QM_LIB_SIM_IMPORT_FORMATS_H_
#define QM_LIB_SIM_IMPORT_FORMATS_H_

#include <span>

#include "absl/status/status.h"
#include "qm/sim/trace_import.h"
#include "sim/import_nodes.h"
#include "sim/import_sink.h"

namespace qm::sim::internal {

absl::Status ImportOpenb(std::span<const ImportInput> inputs, ImportSink& sink, NodeYaml& nodes);
absl::Status ImportPai2020(std::span<const ImportInput> inputs, ImportSink& sink, NodeYaml& nodes);
absl::Status ImportPhilly(std::span<const ImportInput> inputs, ImportSink& sink, NodeYaml& nodes);
absl::Status ImportHelios(std::span<const ImportInput> inputs, ImportSink& sink, NodeYaml& nodes);

/// The job's owner: `TraceImportOptions::owner` when set, else `value` from the trace's owner
/// column; false (without an error) when neither gives one. Shared by the formats with owners.
absl::StatusOr<bool> ResolveOwner(ImportSink& sink, std::string_view value, uint32_t input, int64_t line,
                                  std::string_view column, uint32_t* owner);

/// `<model label> In <models>` for a GPU-model constraint such as openb's `V100M16|V100M32`, after
/// checking each model as a label value; appended to `out` (cleared first).
absl::Status ModelAffinity(const ImportSink& sink, std::string_view models, uint32_t input, int64_t line,
                           std::string_view column, std::string* out);

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_IMPORT_FORMATS_H_
