// `qm forecast FILE`: when each pending workload is expected to be admitted after a scenario's steps.
#include <iostream>
#include <vector>

#include "args.h"
#include "command.h"
#include "forecast_flags.h"
#include "qm/io/forecast_report.h"
#include "qm/io/scenario.h"
#include "qm/model/namespace_name.h"

namespace qm::cli {
namespace {

int RunForecast(std::span<const std::string> argv) {
  const std::vector<OptionSpec> options = WithForecastFlags({{"workload", true}, {"output", true}});
  absl::StatusOr<Args> args = ParseArgs(argv, options);
  if (!args.ok()) return UsageError(kForecastCommand, std::string(args.status().message()));
  if (args->help) {
    std::cout << kForecastCommand.help;
    return 0;
  }
  if (args->positional.size() != 1) return UsageError(kForecastCommand, "expected one scenario file");
  const std::optional<OutputFormat> format = ParseOutputFormat(args->Value("output").value_or("yaml"));
  if (!format.has_value()) return UsageError(kForecastCommand, "--output must be yaml or json");

  int exit_code = 0;
  std::optional<Engine> engine = EngineAfterSteps(args->positional[0], &exit_code);
  if (!engine) return exit_code;
  if (!HasForecastFlags(*args))
    return UsageError(kForecastCommand, "every workload needs a runtime estimate: give at least --runtime");
  absl::StatusOr<ForecastOptions> forecast_options = ForecastOptionsFromArgs(*args, *engine);
  if (!forecast_options.ok()) return UsageError(kForecastCommand, std::string(forecast_options.status().message()));
  if (const std::optional<std::string> w = args->Value("workload")) {
    const auto [ns, name] = SplitNamespacedName(*w);
    const WorkloadHandle h = engine->FindWorkload(ns, name);
    if (!h.valid()) {
      std::cerr << "qm forecast: no workload '" << *w << "'\n";
      return 1;
    }
    forecast_options->workloads = {h};
  }
  absl::StatusOr<ForecastReport> report = engine->Forecast(*forecast_options);
  if (!report.ok()) {
    std::cerr << "qm forecast: " << report.status().message() << "\n";
    return 1;
  }
  std::cout << RenderForecast(*report, *format);
  return 0;
}

}  // namespace

const Command kForecastCommand = {
    "forecast",
    "Forecast when pending workloads will be admitted (an extension beyond Kueue)",
    R"(Usage: qm forecast FILE [--workload NAMESPACE/NAME] [estimates] [--output yaml|json]

Runs the scenario's steps (ignoring its expectations), then forecasts when each pending workload
(or the one named) is expected to be admitted: a copy of the engine runs forward in virtual time,
running workloads finish as the runtime estimates say, new admissions start at once, evicted pods
stop at once (docs/forecast.md). For each workload: its position in its ClusterQueue and in its
cohort, the expected admission and the wait until then, p10/p50/p90 over random runs when an
estimate has several values, and what the admission waits for. Every workload needs an estimate:
give at least --runtime.

Options:
  --workload NAMESPACE/NAME  forecast this workload only
  --output yaml|json         output format (default yaml)
)" QM_FORECAST_FLAGS_HELP,
    RunForecast};

}  // namespace qm::cli
