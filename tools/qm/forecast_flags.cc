#include "forecast_flags.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "fmt/format.h"
#include "qm/io/forecast_options.h"
#include "qm/io/scenario.h"
#include "qm/model/namespace_name.h"
#include "qm/text/time_text.h"

namespace qm::cli {
namespace {

// The parts of `text` between `sep`s (std::string_view: Debian's Abseil has its own string_view).
std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

absl::StatusOr<RuntimeEstimate> ParseEstimate(std::string_view flag, std::string_view text) {
  RuntimeEstimate e;
  for (std::string_view part : Split(text, ',')) {
    absl::StatusOr<Duration> d = ParseGoDuration(part);
    if (!d.ok() || d->us <= 0)
      return absl::InvalidArgumentError(
          fmt::format("--{}: '{}' is not a positive duration (Go syntax: 90m, 2h30m)", flag, std::string(part)));
    e.samples.push_back(*d);
  }
  return e;
}

// "KEY=D[,D...][;KEY=...]" into (key, estimate) pairs.
absl::StatusOr<std::vector<std::pair<std::string, RuntimeEstimate>>> ParseKeyed(std::string_view flag,
                                                                               std::string_view text) {
  std::vector<std::pair<std::string, RuntimeEstimate>> out;
  for (std::string_view item : Split(text, ';')) {
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return absl::InvalidArgumentError(fmt::format("--{}: '{}' is not NAME=DURATION", flag, std::string(item)));
    absl::StatusOr<RuntimeEstimate> e = ParseEstimate(flag, item.substr(eq + 1));
    if (!e.ok()) return e.status();
    out.emplace_back(std::string(item.substr(0, eq)), std::move(*e));
  }
  return out;
}

}  // namespace

std::vector<OptionSpec> WithForecastFlags(std::initializer_list<OptionSpec> own) {
  std::vector<OptionSpec> options(own);
  options.insert(options.end(), std::begin(kForecastFlagSpecs), std::end(kForecastFlagSpecs));
  return options;
}

std::optional<Engine> EngineAfterSteps(const std::string& path, int* exit_code) {
  absl::StatusOr<Scenario> scenario = LoadScenarioFile(path);
  if (!scenario.ok()) {
    std::cerr << scenario.status().message() << "\n";
    *exit_code = 2;
    return std::nullopt;
  }
  *exit_code = 1;
  absl::StatusOr<Engine> engine = MakeScenarioEngine(*scenario);
  if (!engine.ok()) {
    std::cerr << engine.status().message() << "\n";
    return std::nullopt;
  }
  const ScenarioResult result = RunScenarioSteps(*scenario, *engine);  // expectations ignored
  if (!result.status.ok()) {
    std::cerr << result.status.message() << "\n";
    return std::nullopt;
  }
  *exit_code = 0;
  return std::move(*engine);
}

bool HasForecastFlags(const Args& args) {
  for (const OptionSpec& o : kForecastFlagSpecs)
    if (args.Value(o.name)) return true;
  return false;
}

absl::StatusOr<ForecastOptions> ForecastOptionsFromArgs(const Args& args, const Engine& engine) {
  ForecastOptions o;
  if (const auto path = args.Value("options")) {
    std::ifstream in(*path, std::ios::binary);
    if (!in) return absl::InvalidArgumentError(fmt::format("--options: cannot read '{}'", *path));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    absl::StatusOr<ForecastOptions> read = ReadForecastOptions(text, *path, engine);
    if (!read.ok()) return read.status();
    o = std::move(*read);
  }
  if (const auto v = args.Value("runtime")) {
    absl::StatusOr<RuntimeEstimate> e = ParseEstimate("runtime", *v);
    if (!e.ok()) return e.status();
    o.default_runtime = std::move(*e);
  }
  if (const auto v = args.Value("queue-runtime")) {
    auto keyed = ParseKeyed("queue-runtime", *v);
    if (!keyed.ok()) return keyed.status();
    for (auto& [cq, e] : *keyed) o.queue_runtimes.push_back(QueueRuntime{cq, std::move(e)});
  }
  if (const auto v = args.Value("runtime-of")) {
    auto keyed = ParseKeyed("runtime-of", *v);
    if (!keyed.ok()) return keyed.status();
    for (auto& [name, e] : *keyed) {
      const auto [ns, n] = SplitNamespacedName(name);
      const WorkloadHandle h = engine.FindWorkload(ns, n);
      if (!h.valid()) return absl::InvalidArgumentError(fmt::format("--runtime-of: no workload '{}'", name));
      o.workload_runtimes.push_back(WorkloadRuntime{h, std::move(e)});
    }
  }
  if (const auto v = args.Value("runs")) {
    if (!absl::SimpleAtoi(*v, &o.runs) || o.runs < 0 || o.runs > 100000)
      return absl::InvalidArgumentError(fmt::format("--runs: '{}' is not a count from 0 to 100000", *v));
  }
  if (const auto v = args.Value("seed")) {
    if (!absl::SimpleAtoi(*v, &o.seed)) return absl::InvalidArgumentError(fmt::format("--seed: '{}' is not a number", *v));
  }
  if (const auto v = args.Value("horizon")) {
    absl::StatusOr<Duration> d = ParseGoDuration(*v);
    if (!d.ok() || d->us <= 0)
      return absl::InvalidArgumentError(fmt::format("--horizon: '{}' is not a positive duration", *v));
    o.horizon = *d;
  }
  return o;
}

}  // namespace qm::cli
