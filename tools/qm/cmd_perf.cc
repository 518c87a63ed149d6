// `qm perf CONFIG`: replay a Kueue performance generator configuration in virtual time.
#include <iostream>

#include "args.h"
#include "command.h"
#include "qm/sim/perf_config.h"
#include "qm/sim/perf_replay.h"

namespace qm::cli {
namespace {

constexpr OptionSpec kPerfOptions[] = {{"output", true}, {"fair-sharing", false}};

int RunPerf(std::span<const std::string> argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, kPerfOptions);
  if (!args.ok()) return UsageError(kPerfCommand, std::string(args.status().message()));
  if (args->help) {
    std::cout << kPerfCommand.help;
    return 0;
  }
  if (args->positional.size() != 1) return UsageError(kPerfCommand, "expected one generator configuration file");
  const std::string output = args->Value("output").value_or("text");
  if (output != "text" && output != "json") return UsageError(kPerfCommand, "--output must be text or json");
  absl::StatusOr<sim::PerfConfig> config = sim::LoadPerfConfigFile(args->positional[0]);
  if (!config.ok()) {
    std::cerr << config.status().message() << "\n";
    return 2;
  }
  sim::PerfReplayOptions options;
  options.engine.fair_sharing.enabled = args->Flag("fair-sharing");
  absl::StatusOr<sim::PerfSummary> summary = sim::ReplayPerf(*config, options);
  if (!summary.ok()) {
    std::cerr << summary.status().message() << "\n";
    return 1;
  }
  std::cout << (output == "json" ? sim::FormatPerfSummaryJson(*summary) : sim::FormatPerfSummaryText(*summary));
  return 0;
}

}  // namespace

const Command kPerfCommand = {
    "perf",
    "Replay a Kueue performance configuration in virtual time",
    R"(Usage: qm perf CONFIG [--output text|json] [--fair-sharing]

Reads a Kueue scheduler performance generator configuration (the shape of
kubernetes-sigs/kueue test/performance/scheduler/configs/*/generator.yaml; see
bench/configs/) and replays it in virtual time: workloads arrive at their creation
times, run for their runtime once admitted, then finish; scheduling cycles run at
every instant where something changed until nothing more can be admitted.

Prints what Kueue's performance checker reports (virtual wall time, average
ClusterQueue usage, average time to admission per workload class) and what this
process measured (real and cpu time, admissions per cpu second, p50/p99 cycle
time, peak resident memory). Virtual figures are deterministic; measured ones are
not.

Options:
  --output text|json  output format (default text); json prints one object
  --fair-sharing      enable fair sharing (Kueue's performance runs leave it off)

Exit status: 0 the replay finished, 1 the engine rejected the configuration,
2 the file could not be read or bad arguments.
)",
    RunPerf,
};

}  // namespace qm::cli
