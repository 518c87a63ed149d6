// Reading the input files of a trace import (private to lib/sim; `ImportTraceFiles` in
// trace_import.h). Regular files are mapped read-only instead of read into a string: a string of a
// 200 MB trace is zeroed, faulted in page by page and then copied into, which took a quarter of an
// import's time; a mapping of a file in the page cache costs neither. Files that cannot be mapped
// (pipes, /dev/stdin, files whose size stat does not give, such as /proc's) are read to their end.
#ifndef QM_LIB_SIM_IMPORT_FILE_H_
#define QM_LIB_SIM_IMPORT_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "qm/sim/trace_import.h"

namespace qm::sim::internal {

/// The input at `path`, named `path`: its `borrowed` bytes are a mapping (which `owner` unmaps) for
/// a non-empty regular file, else its `text` holds what was read. NotFound `cannot read 'path':
/// reason` when the file cannot be opened or read.
absl::StatusOr<ImportInput> ReadImportFile(const std::string& path);

/// The input at `path` read into its `text`, never mapped: what `ReadImportFile` falls back to.
absl::StatusOr<ImportInput> ReadImportFileToString(const std::string& path);

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_IMPORT_FILE_H_
