// The `qm` subcommands: each lives in its own cmd_<name>.cc and is listed once in main.cc.
#ifndef QM_TOOLS_QM_COMMAND_H_
#define QM_TOOLS_QM_COMMAND_H_

#include <span>
#include <string>
#include <string_view>

namespace qm::cli {

/// One subcommand of `qm`.
struct Command {
  std::string_view name;     ///< `qm <name> ...`
  std::string_view summary;  ///< one line for `qm --help`
  std::string_view help;     ///< full text for `qm help <name>` / `qm <name> --help`
  /// Runs with the arguments after the subcommand name; returns the exit code (0 ok, 1 failure,
  /// 2 usage or load error).
  int (*run)(std::span<const std::string> args);
};

extern const Command kCheckCommand;
extern const Command kRunCommand;
extern const Command kExplainCommand;
extern const Command kForecastCommand;
extern const Command kPerfCommand;
extern const Command kHyperpodCommand;
extern const Command kSimulateCommand;
extern const Command kTraceCommand;

/// Prints `qm <command>: <message>` and a pointer to the help to stderr; returns 2.
int UsageError(const Command& command, std::string_view message);

}  // namespace qm::cli

#endif  // QM_TOOLS_QM_COMMAND_H_
