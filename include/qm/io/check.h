// Checking many scenario files at once: what `qm check` does, and what each CTest conformance test
// runs.
//
// Output, one block per scenario in path order:
//   PASS <name>
//   FAIL <name>
//     file: <path>
//     <diff lines>
//   SKIP <name> (<reason>)
//   XFAIL <name>             (listed in the known-failures file and failed; `--verbose` adds the diff)
//   XPASS <name>             (listed but passed: an error)
// and a closing line `N passed, M failed` (`, K skipped` when K > 0); M counts every failure, known
// ones included.
#ifndef QM_IO_CHECK_H_
#define QM_IO_CHECK_H_

#include <map>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace qm {

/// The `*.yaml` files under `paths`: a file is taken as given, a directory is searched recursively.
/// Sorted and without duplicates. NotFound for a path that does not exist.
absl::StatusOr<std::vector<std::string>> FindScenarioFiles(std::span<const std::string> paths);

/// Scenarios expected to fail. File format: one path per line, relative to the list file's
/// directory; `#` starts a comment, and a comment after a path is the reason it fails:
///   # The list only shrinks.
///   kueue/preemption/004-some-free-quota-preempt-low-priority.yaml  # preemption not implemented
struct KnownFailures {
  struct Entry {
    std::string listed;  ///< the path as written in the list
    std::string reason;
    int line = 0;
  };
  std::string file;  ///< the list file
  /// Keyed by the entry's absolute, normalized path.
  std::map<std::string, Entry> entries;
};

/// Parses a known-failures list; `list_file` names it in errors and anchors relative paths.
absl::StatusOr<KnownFailures> ParseKnownFailures(std::string_view text,
                                                 const std::string& list_file);
absl::StatusOr<KnownFailures> ReadKnownFailures(const std::string& list_file);

struct CheckOptions {
  /// When set, the outcome must match the list exactly for the scenarios under the checked paths.
  const KnownFailures* known_failures = nullptr;
  /// Print the diff of known failures too.
  bool verbose = false;
  /// Check the engine's invariants after every cycle and step (`ScenarioRunOptions`).
  bool check_invariants = false;
  /// Where each loaded scenario's load-time notes go (a quota taken as unlimited, a skipped
  /// object), one `note: <text>` line each, as `qm run` prints them; null drops them. Kept apart
  /// from `out` so that the PASS/FAIL report stays parseable.
  std::ostream* notes = nullptr;
};

struct CheckSummary {
  int passed = 0;
  int failed = 0;   ///< including known failures and load errors
  int skipped = 0;
  int known_failures = 0;   ///< failed and listed
  int unexpected = 0;       ///< listed but passed, or listed but missing
  int load_errors = 0;      ///< failed to load or to set up, and not listed
  /// 0: all passed (or, with a list, the outcome matches it); 1: a scenario failed (or the outcome
  /// does not match the list); 2: a scenario file could not be loaded.
  int exit_code = 0;
};

/// Loads, runs and reports every file in `files` (from `FindScenarioFiles(roots)`) to `out`.
CheckSummary CheckScenarios(std::span<const std::string> files,
                            std::span<const std::string> roots, const CheckOptions& options,
                            std::ostream& out);

}  // namespace qm

#endif  // QM_IO_CHECK_H_
