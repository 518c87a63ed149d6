#include "args.h"

#include "absl/status/status.h"
#include "fmt/format.h"

namespace qm::cli {

std::optional<std::string> Args::Value(std::string_view name) const {
  auto it = values.find(std::string(name));
  if (it == values.end()) return std::nullopt;
  return it->second;
}

bool Args::Flag(std::string_view name) const { return flags.contains(std::string(name)); }

absl::StatusOr<Args> ParseArgs(std::span<const std::string> args,
                               std::span<const OptionSpec> options) {
  Args out;
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      out.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      out.help = true;
      continue;
    }
    if (!arg.starts_with("--")) {
      return absl::InvalidArgumentError(fmt::format("unknown option '{}'", arg));
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& o : options) {
      if (o.name == name) spec = &o;
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(fmt::format("unknown option '--{}'", name));
    }
    if (!spec->takes_value) {
      if (value.has_value()) {
        return absl::InvalidArgumentError(fmt::format("option '--{}' takes no value", name));
      }
      out.flags[name] = true;
      continue;
    }
    if (!value.has_value()) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(fmt::format("option '--{}' needs a value", name));
      }
      value = args[++i];
    }
    out.values[name] = *value;
  }
  return out;
}

}  // namespace qm::cli
