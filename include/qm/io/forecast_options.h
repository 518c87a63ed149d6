// Forecast options as YAML or JSON text (docs/forecast.md §Options as text): what the C API and
// Python pass to `Engine::Forecast`.
//
//   workloads: [team-a/train-1]        # default: every pending workload
//   defaultRuntime: 2h                 # or a list: [1h, 2h, 6h]
//   queueRuntimes: {team-a-cq: [30m, 1h]}
//   workloadRuntimes: {team-b/eval-3: 45m}   # a running workload: the time it has left
//   runs: 100
//   seed: 1
//   horizon: 720h
//   arrivals:                          # new workloads during the forecast (ForecastArrivals)
//   - perHour: 2
//     runtime: 1h                      # default: the ClusterQueue's, else defaultRuntime
//     workload:                        # a Kueue Workload; its name prefixes the copies' names
//       metadata: {name: urgent, namespace: team-a}
//       spec: {queueName: q, priority: 100, podSets: [{name: main, count: 1, requests: {cpu: "4"}}]}
#ifndef QM_IO_FORECAST_OPTIONS_H_
#define QM_IO_FORECAST_OPTIONS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "qm/adapter/engine.h"
#include "qm/adapter/forecast.h"

namespace qm {

/// Reads the options for `engine` (workload names are resolved against it). Errors name the source
/// line and key (`options:3: defaultRuntime[1]: "2x" is not a duration`); unknown keys are errors.
/// Empty text gives the defaults.
absl::StatusOr<ForecastOptions> ReadForecastOptions(std::string_view text, std::string_view source_name,
                                                    const Engine& engine);

}  // namespace qm

#endif  // QM_IO_FORECAST_OPTIONS_H_
