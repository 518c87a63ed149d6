// `qm check PATH...`: verify scenario files against their expectations.
#include <iostream>

#include "args.h"
#include "command.h"
#include "qm/io/check.h"

namespace qm::cli {
namespace {

constexpr OptionSpec kCheckOptions[] = {{"known-failures", true}, {"verbose", false}, {"check-invariants", false}};

int RunCheck(std::span<const std::string> argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, kCheckOptions);
  if (!args.ok()) return UsageError(kCheckCommand, std::string(args.status().message()));
  if (args->help) {
    std::cout << kCheckCommand.help;
    return 0;
  }
  if (args->positional.empty()) return UsageError(kCheckCommand, "no scenario files or directories given");
  absl::StatusOr<std::vector<std::string>> files = FindScenarioFiles(args->positional);
  if (!files.ok()) return UsageError(kCheckCommand, std::string(files.status().message()));
  std::optional<KnownFailures> known;
  if (std::optional<std::string> list = args->Value("known-failures")) {
    absl::StatusOr<KnownFailures> read = ReadKnownFailures(*list);
    if (!read.ok()) return UsageError(kCheckCommand, std::string(read.status().message()));
    known = std::move(*read);
  }
  CheckOptions options;
  options.known_failures = known.has_value() ? &*known : nullptr;
  options.verbose = args->Flag("verbose");
  options.check_invariants = args->Flag("check-invariants");
  // The same `note:` lines on stderr as `qm run`: a silently reinterpreted quota is worth seeing.
  options.notes = &std::cerr;
  return CheckScenarios(*files, args->positional, options, std::cout).exit_code;
}

}  // namespace

const Command kCheckCommand = {
    "check",
    "Verify scenario files against their expectations",
    R"(Usage: qm check PATH... [--known-failures FILE] [--verbose] [--check-invariants]

Runs every scenario file (*.yaml, directories searched recursively, in path order) and compares
what the engine decides with the file's `expect:` blocks. Prints one line per scenario:

  PASS <name>
  FAIL <name>          followed by the file and an indented diff, expected vs got
  SKIP <name> (<why>)  for a scenario with `skip:`

and a closing line `N passed, M failed` (`, K skipped`). What loading a file reinterpreted or
skipped (a quota too large for int64 taken as unlimited, a non-Kueue object) is printed to stderr
as `note: <file>:<line>: ...`, as `qm run` prints it.

Options:
  --known-failures FILE  scenarios expected to fail: one path per line, relative to FILE's
                         directory, `#` starts a comment (a comment after a path gives the reason).
                         The outcome must match the list exactly for the scenarios under PATH:
                         listed ones must fail (XFAIL), unlisted ones must pass; a listed scenario
                         that passes (XPASS) must be removed from the list.
  --verbose              also print the diff of known failures
  --check-invariants     after every scheduling cycle and every step, recompute the engine's
                         state from scratch and compare (Engine::CheckInvariants); a violation
                         fails the scenario, naming the step and cycle

Exit status: 0 all passed (or the outcome matches the known-failures list), 1 a scenario failed
(or the outcome does not match the list), 2 a file could not be loaded or bad arguments.
)",
    RunCheck,
};

}  // namespace qm::cli
