// The forecast options `qm forecast` and `qm explain` share: runtime estimates, runs, seed, horizon.
#ifndef QM_TOOLS_QM_FORECAST_FLAGS_H_
#define QM_TOOLS_QM_FORECAST_FLAGS_H_

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "args.h"
#include "qm/adapter/engine.h"
#include "qm/adapter/forecast.h"

namespace qm::cli {

/// The options, to append to a subcommand's own.
inline constexpr OptionSpec kForecastFlagSpecs[] = {{"runtime", true}, {"runtime-of", true}, {"queue-runtime", true},
                                                    {"runs", true},    {"seed", true},       {"horizon", true},
                                                    {"options", true}};

/// Help text for them (a macro, so it joins the subcommands' help literals).
#define QM_FORECAST_FLAGS_HELP \
  "  --runtime D[,D...]         runtime of every workload without a more specific estimate; several\n" \
  "                             values are a distribution (drawn uniformly), e.g. 1h,2h,6h\n" \
  "  --queue-runtime CQ=D[,D...][;CQ=...]\n" \
  "                             runtime of a ClusterQueue's workloads (for a running one, the time it\n" \
  "                             has run is taken off)\n" \
  "  --runtime-of NS/NAME=D[,D...][;NS/NAME=...]\n" \
  "                             one workload's runtime; for a running one, the time it has left\n" \
  "  --runs N                   random runs for the p10/p90 bounds when an estimate has several\n" \
  "                             values (default 100)\n" \
  "  --seed N                   seed of the random runs (default 1)\n" \
  "  --horizon D                how far ahead to look (default 720h)\n" \
  "  --options FILE             the options as YAML or JSON, arrivals included (docs/forecast.md,\n" \
  "                             \"Options as text\"); the flags above override them\n"

/// A subcommand's own options followed by the forecast options.
std::vector<OptionSpec> WithForecastFlags(std::initializer_list<OptionSpec> own);

/// The engine after a scenario's steps (expectations ignored), for `qm explain` and `qm forecast`;
/// nullopt after printing the error to stderr, with the exit status in `exit_code` (2: the file
/// cannot be loaded; 1: the engine refuses it or a step fails).
std::optional<Engine> EngineAfterSteps(const std::string& path, int* exit_code);

/// True when any forecast option was given.
bool HasForecastFlags(const Args& args);

/// The options the flags give, for `engine`; errors name the flag and the value.
absl::StatusOr<ForecastOptions> ForecastOptionsFromArgs(const Args& args, const Engine& engine);

}  // namespace qm::cli

#endif  // QM_TOOLS_QM_FORECAST_FLAGS_H_
