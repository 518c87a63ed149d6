// Shared by the trace importer tests (trace_import_test.cc, trace_import_errors_test.cc): the
// hand-written samples in tests/sim/data/import/<format>/ and short ways to import them.
#ifndef QM_TESTS_SIM_IMPORT_TEST_SUPPORT_H_
#define QM_TESTS_SIM_IMPORT_TEST_SUPPORT_H_

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "qm/sim/trace_import.h"

namespace qm::sim::test {

inline std::filesystem::path ImportDataDir(const std::string& format) {
  return std::filesystem::path(QM_TESTS_DIR) / "sim" / "data" / "import" / format;
}

inline std::string ReadImportFile(const std::string& format, const std::string& name) {
  std::ifstream in(ImportDataDir(format) / name, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The sample files `names` of `format`'s folder, named by their base name (so messages are short).
inline std::vector<ImportInput> Samples(const std::string& folder, const std::vector<std::string>& names) {
  std::vector<ImportInput> inputs;
  for (const std::string& name : names) inputs.push_back({name, ReadImportFile(folder, name)});
  return inputs;
}

/// Imports `inputs`; fails the test on an error.
inline ImportedTrace Import(TraceFormat format, const std::vector<ImportInput>& inputs,
                            const TraceImportOptions& options = {}) {
  absl::StatusOr<ImportedTrace> t = ImportTrace(format, inputs, options);
  if (!t.ok()) FAIL(t.status().message());
  return std::move(*t);
}

/// The error of importing `inputs` ("<no error>" when it imports).
inline std::string ImportError(TraceFormat format, const std::vector<ImportInput>& inputs,
                               const TraceImportOptions& options = {}) {
  const absl::StatusOr<ImportedTrace> t = ImportTrace(format, inputs, options);
  if (t.ok()) return "<no error>";
  CHECK(t.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(t.status().message());
}

}  // namespace qm::sim::test

#endif  // QM_TESTS_SIM_IMPORT_TEST_SUPPORT_H_
