// `qm run FILE`: print what the scheduler decides at each step of a scenario.
#include <iostream>

#include "args.h"
#include "command.h"
#include "qm/io/manifest_writer.h"
#include "qm/io/scenario.h"

namespace qm::cli {
namespace {

constexpr OptionSpec kOptions[] = {{"output", true}, {"state", false}};

int RunRun(std::span<const std::string> argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, kOptions);
  if (!args.ok()) return UsageError(kRunCommand, std::string(args.status().message()));
  if (args->help) {
    std::cout << kRunCommand.help;
    return 0;
  }
  if (args->positional.size() != 1) return UsageError(kRunCommand, "expected one scenario file");
  const std::optional<OutputFormat> format = ParseOutputFormat(args->Value("output").value_or("yaml"));
  if (!format.has_value()) return UsageError(kRunCommand, "--output must be yaml or json");
  absl::StatusOr<Scenario> scenario = LoadScenarioFile(args->positional[0]);
  if (!scenario.ok()) {
    std::cerr << scenario.status().message() << "\n";
    return 2;
  }
  for (const std::string& note : scenario->notes) std::cerr << "note: " << note << "\n";
  absl::StatusOr<Engine> engine = MakeScenarioEngine(*scenario);
  if (!engine.ok()) {
    std::cerr << engine.status().message() << "\n";
    return 1;
  }
  const ScenarioResult result = RunScenarioSteps(*scenario, *engine);
  if (args->Flag("state")) {
    if (!result.status.ok()) std::cerr << result.status.message() << "\n";
    std::cout << WriteEngineState(*engine, FinalObjects(*scenario));
  } else {
    std::cout << RenderScenarioRun(*scenario, result, *format);
  }
  return result.status.ok() ? 0 : 1;
}

}  // namespace

const Command kRunCommand = {
    "run",
    "Print what the scheduler decides at each step of a scenario",
    R"(Usage: qm run FILE [--output yaml|json] [--state]

Runs the scenario's steps and prints, per step:
  admitted   workloads that got quota, with their ClusterQueue, flavors, counts, usage and
             whether they borrow from the cohort
  preempted  workloads evicted to make room, with the reason and the preemptor
  pending    every workload still waiting, with the reason and message Kueue would show
  targets / assignment   the result of a preemptionTargets / assignFlavors query step
and, for steps with `expect:`, whether the expectations held (with the diff when not).

Options:
  --output yaml|json  output format (default yaml)
  --state             instead, print the cluster after the last step as Kueue manifests
                      (kueue.x-k8s.io/v1beta2), workloads with their status

Exit status: 0 the steps ran (whatever the expectations say), 1 the engine rejected an object or
a step, 2 the file could not be loaded or bad arguments.
)",
    RunRun,
};

}  // namespace qm::cli
