// `qm run FILE`: print what the scheduler decides at each step of a scenario.
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "args.h"
#include "command.h"
#include "qm/text/manifest_writer.h"
#include "qm/io/scenario.h"

namespace qm::cli {
namespace {

constexpr OptionSpec kRunOptions[] = {{"output", true}, {"state", false}, {"save", true}, {"restore", true},
                                   {"check-invariants", false}};

// The engine a run starts from: the snapshot given with --restore, else the scenario's objects.
absl::StatusOr<Engine> StartEngine(const Scenario& scenario, const std::optional<std::string>& restore, int* exit_code) {
  if (!restore.has_value()) {
    *exit_code = 1;
    return MakeScenarioEngine(scenario);
  }
  *exit_code = 2;
  std::ifstream in(*restore, std::ios::binary);
  if (!in) return absl::NotFoundError("--restore: cannot read '" + *restore + "'");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<Engine> engine = Engine::Restore(bytes);
  if (!engine.ok()) return absl::Status(engine.status().code(), *restore + ": " + std::string(engine.status().message()));
  return engine;
}

// Writes the engine's snapshot to `path` (--save).
absl::Status SaveEngine(const Engine& engine, const std::string& path) {
  absl::StatusOr<std::string> bytes = engine.Save();
  if (!bytes.ok()) return bytes.status();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) return absl::UnavailableError("--save: cannot write '" + path + "'");
  return absl::OkStatus();
}

int RunRun(std::span<const std::string> argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, kRunOptions);
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
  const std::optional<std::string> save = args->Value("save");
  if (save.has_value() && save->empty()) return UsageError(kRunCommand, "--save needs a file name");
  int start_failure = 1;
  absl::StatusOr<Engine> engine = StartEngine(*scenario, args->Value("restore"), &start_failure);
  if (!engine.ok()) {
    std::cerr << engine.status().message() << "\n";
    return start_failure;
  }
  ScenarioRunOptions run_options;
  run_options.check_invariants = args->Flag("check-invariants");
  const ScenarioResult result = RunScenarioSteps(*scenario, *engine, run_options);
  bool saved = true;
  if (save.has_value()) {
    if (absl::Status st = SaveEngine(*engine, *save); !st.ok()) {
      std::cerr << st.message() << "\n";
      saved = false;
    }
  }
  if (args->Flag("state")) {
    if (!result.status.ok()) std::cerr << result.status.message() << "\n";
    std::cout << WriteEngineState(*engine, FinalObjects(*scenario));
  } else {
    std::cout << RenderScenarioRun(*scenario, result, *format);
  }
  return result.status.ok() && saved ? 0 : 1;
}

}  // namespace

const Command kRunCommand = {
    "run",
    "Print what the scheduler decides at each step of a scenario",
    R"(Usage: qm run FILE [--output yaml|json] [--state] [--save SNAPSHOT] [--restore SNAPSHOT]
              [--check-invariants]

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
                      (kueue.x-k8s.io/v1beta2), workloads and LocalQueues with their status
  --save SNAPSHOT     after the last step, write the engine's whole state to SNAPSHOT
                      (binary, docs/snapshot-format.md); also after a step the engine rejected
  --restore SNAPSHOT  start from the engine saved in SNAPSHOT instead of the scenario's objects,
                      configuration and clock, then run the scenario's steps on it
  --check-invariants  after every scheduling cycle and every step, recompute the engine's state
                      from scratch and compare (Engine::CheckInvariants); a violation is an
                      error of the step (exit status 1), naming the step and cycle

Exit status: 0 the steps ran (whatever the expectations say), 1 the engine rejected an object or
a step (or --save could not write), 2 the file or the --restore snapshot could not be loaded
(a truncated, corrupted or newer-version snapshot) or bad arguments.
)",
    RunRun,
};

}  // namespace qm::cli
