// `qm explain FILE --workload ns/name`: why a workload is where it is after a scenario's steps.
#include <iostream>
#include <vector>

#include "args.h"
#include "command.h"
#include "forecast_flags.h"
#include "qm/io/explain.h"
#include "qm/io/scenario.h"
#include "qm/model/namespace_name.h"

namespace qm::cli {
namespace {



int RunExplain(std::span<const std::string> argv) {
  const std::vector<OptionSpec> options = WithForecastFlags({{"workload", true}, {"output", true}, {"what-if", false}});
  absl::StatusOr<Args> args = ParseArgs(argv, options);
  if (!args.ok()) return UsageError(kExplainCommand, std::string(args.status().message()));
  if (args->help) {
    std::cout << kExplainCommand.help;
    return 0;
  }
  if (args->positional.size() != 1) return UsageError(kExplainCommand, "expected one scenario file");
  const std::optional<std::string> workload = args->Value("workload");
  if (!workload.has_value() || workload->empty()) {
    return UsageError(kExplainCommand, "--workload ns/name is required");
  }
  const std::optional<OutputFormat> format = ParseOutputFormat(args->Value("output").value_or("yaml"));
  if (!format.has_value()) return UsageError(kExplainCommand, "--output must be yaml or json");
  const auto [ns_view, name_view] = SplitNamespacedName(*workload);
  const std::string ns(ns_view);
  const std::string name(name_view);

  int exit_code = 0;
  std::optional<Engine> engine = EngineAfterSteps(args->positional[0], &exit_code);
  if (!engine) return exit_code;
  absl::StatusOr<WorkloadExplanation> explanation = engine->Explain(ns, name);
  if (!explanation.ok()) {
    std::cerr << "qm explain: " << explanation.status().message() << "\n";
    return 1;
  }
  // A pending workload's explanation ends with its forecast (given runtime estimates) and with the
  // smallest checked changes that would admit it (--what-if).
  const bool pending = explanation->status.state == WorkloadState::kPending;
  std::optional<ForecastReport> forecast;
  if (HasForecastFlags(*args) && pending) {
    absl::StatusOr<ForecastOptions> forecast_options = ForecastOptionsFromArgs(*args, *engine);
    if (!forecast_options.ok()) return UsageError(kExplainCommand, std::string(forecast_options.status().message()));
    forecast_options->workloads = {explanation->status.id};
    absl::StatusOr<ForecastReport> report = engine->Forecast(*forecast_options);
    if (!report.ok()) {
      std::cerr << "qm explain: " << report.status().message() << "\n";
      return 1;
    }
    forecast = std::move(*report);
  }
  std::optional<WhatIfReport> what_if;
  if (args->Flag("what-if") && pending) {
    absl::StatusOr<WhatIfReport> report = engine->WhatIf(explanation->status.id);
    if (!report.ok()) {
      std::cerr << "qm explain: " << report.status().message() << "\n";
      return 1;
    }
    what_if = std::move(*report);
  }
  std::cout << RenderExplanation(*engine, *explanation, *format, forecast ? &forecast->workloads.front() : nullptr,
                                 forecast ? &*forecast : nullptr, what_if ? &*what_if : nullptr);
  return 0;
}

}  // namespace

const Command kExplainCommand = {
    "explain",
    "Explain why a workload is pending, admitted or preempted",
    R"(Usage: qm explain FILE --workload NAMESPACE/NAME [--output yaml|json] [--what-if] [estimates]

Runs the scenario's steps (ignoring its expectations), then explains one workload:
  pending    its reason and message, every flavor the flavor assigner tried with its verdict and,
             per resource, the amount requested, available now, nominal and potential (the most
             the queue could ever get, <unlimited> when nothing limits it) and the borrow level;
             the assignment it would get now and the workloads it would preempt
  admitted   the flavors, counts and usage it holds and whether it borrows from the cohort
  preempted  who preempted it, under which reason, and the message
and, once it was preempted or preempted another, every preemption it met: how often (per
reason), how often it caused one, the quota-holding time lost, the latest 8 preemptions and the
end of a borrow back-off

A NAME without a namespace means default/NAME.

Options:
  --workload NAMESPACE/NAME  the workload to explain (required)
  --output yaml|json         output format (default yaml)

With --what-if, a pending workload's explanation ends with the smallest changes that would admit
it now, each checked on a copy of the engine: more quota for its ClusterQueue (e.g. 2 more
nvidia.com/gpu free in flavor p5 for ClusterQueue team-b), or a higher priority (e.g. at least 71,
preempting team-a/eval-2); docs/forecast.md.

With runtime estimates (the options below, as `qm forecast` takes them), a pending workload's
explanation ends with its forecast: when it is expected to start, what it waits for and, with
distributions, its p10 and p90 (docs/forecast.md).
)" QM_FORECAST_FLAGS_HELP,
    RunExplain,
};

}  // namespace qm::cli
