// A small command-line parser for the subcommands: positional arguments and `--name value`,
// `--name=value` or boolean `--name` options; `--` ends the options.
#ifndef QM_TOOLS_QM_ARGS_H_
#define QM_TOOLS_QM_ARGS_H_

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace qm::cli {

/// An option a subcommand accepts.
struct OptionSpec {
  std::string_view name;  ///< without the leading dashes
  bool takes_value = false;
};

/// The parsed command line. `-h` and `--help` are always accepted and set `help`.
struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  ///< options with a value (the last one wins)
  std::map<std::string, bool> flags;          ///< boolean options that were given
  bool help = false;

  std::optional<std::string> Value(std::string_view name) const;
  bool Flag(std::string_view name) const;
};

/// Parses `args`; an unknown option or a missing value is an InvalidArgument error.
absl::StatusOr<Args> ParseArgs(std::span<const std::string> args,
                               std::span<const OptionSpec> options);

}  // namespace qm::cli

#endif  // QM_TOOLS_QM_ARGS_H_
