// `qm`: the command-line front end of Quartermaster. Subcommands are listed in `kCommands`; each
// is defined in its own cmd_<name>.cc (see command.h).
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "command.h"

namespace qm::cli {
namespace {

// Every subcommand, in the order `qm --help` lists them. Add new ones here.
const Command* const kCommands[] = {&kCheckCommand, &kRunCommand, &kExplainCommand, &kForecastCommand, &kPerfCommand,
                                     &kSimulateCommand, &kTraceCommand, &kHyperpodCommand};

const Command* FindCommand(std::string_view name) {
  for (const Command* c : kCommands) {
    if (c->name == name) return c;
  }
  return nullptr;
}

void PrintOverview(std::ostream& out) {
  out << "qm - Kueue's quota-admission scheduler as a deterministic engine\n\n"
         "Usage: qm <command> [arguments]\n\nCommands:\n";
  for (const Command* c : kCommands) {
    out << "  " << c->name << std::string(10 - std::min<size_t>(c->name.size(), 9), ' ')
        << c->summary << "\n";
  }
  out << "  help      Show the help of a command\n\n"
         "Run 'qm help <command>' for the options of a command.\n";
}

int Help(std::span<const std::string> args) {
  if (args.empty()) {
    PrintOverview(std::cout);
    return 0;
  }
  const Command* c = FindCommand(args[0]);
  if (c == nullptr) {
    std::cerr << "qm help: unknown command '" << args[0] << "'\n";
    return 2;
  }
  std::cout << c->help;
  return 0;
}

}  // namespace

int UsageError(const Command& command, std::string_view message) {
  std::cerr << "qm " << command.name << ": " << message << "\nRun 'qm help " << command.name
            << "' for usage.\n";
  return 2;
}

}  // namespace qm::cli

int main(int argc, char** argv) {
  using qm::cli::Command;
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  if (args.empty()) {
    qm::cli::PrintOverview(std::cerr);
    return 2;
  }
  const std::string& name = args[0];
  const std::span<const std::string> rest(args.data() + 1, args.size() - 1);
  if (name == "-h" || name == "--help") {
    qm::cli::PrintOverview(std::cout);
    return 0;
  }
  if (name == "help") return qm::cli::Help(rest);
  const Command* command = qm::cli::FindCommand(name);
  if (command == nullptr) {
    std::cerr << "qm: unknown command '" << name << "'\n\n";
    qm::cli::PrintOverview(std::cerr);
    return 2;
  }
  try {
    return command->run(rest);
  } catch (const std::exception& e) {
    std::cerr << "qm " << name << ": internal error: " << e.what() << "\n";
    return 3;
  }
}
