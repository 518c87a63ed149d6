// `qm_simulate`: the simulator (qm/sim/simulator.h) on in-memory cluster, trace and fault texts.
//
// The library is built with the simulator when lib/sim implements it; CMakeLists.txt detects that
// and defines QM_C_HAVE_SIMULATOR. Without it `qm_simulate` reports QM_UNIMPLEMENTED and
// `qm_has_simulator()` is 0, so callers (and the tests) can tell instead of guessing.
#include <cmath>
#include <string>

#include "c/c_api_internal.h"
#include "fmt/format.h"

#ifdef QM_C_HAVE_SIMULATOR
#include "qm/sim/sim_result.h"
#include "qm/sim/simulator.h"
#include "qm/sim/trace.h"
#endif

namespace qm::c {
namespace {

#ifdef QM_C_HAVE_SIMULATOR
absl::StatusOr<std::string> SimulateJson(std::string_view cluster_yaml, std::string_view trace_csv,
                                         std::string_view faults_yaml,
                                         const qm_simulate_options* options) {
  sim::SimulationOptions sim_options;
  if (options != nullptr) {
    QM_RETURN_IF_ERROR(
        CheckVersion(options->version, QM_SIMULATE_OPTIONS_VERSION, "qm_simulate_options"));
    if (options->buckets < 0) {
      return absl::InvalidArgumentError(fmt::format("buckets: {} must be >= 0", options->buckets));
    }
    if (options->buckets > 0) sim_options.buckets = options->buckets;
    if (!std::isfinite(options->horizon_seconds) || options->horizon_seconds < 0 ||
        options->horizon_seconds > 1e12) {
      return absl::InvalidArgumentError(
          fmt::format("horizon_seconds: {} must be between 0 and 1e12", options->horizon_seconds));
    }
    sim_options.horizon =
        Duration::Microseconds(static_cast<int64_t>(std::llround(options->horizon_seconds * 1e6)));
  }
  QM_ASSIGN_OR_RETURN(sim::SimulationInput cluster, sim::LoadClusterString(cluster_yaml, "cluster"));
  QM_ASSIGN_OR_RETURN(sim::Trace trace, sim::ReadTraceString(trace_csv, "trace"));
  sim::FaultPlan faults;
  if (!faults_yaml.empty()) {
    QM_ASSIGN_OR_RETURN(faults, sim::ReadFaultString(faults_yaml, "faults"));
  }
  QM_ASSIGN_OR_RETURN(sim::SimulationResult result,
                      sim::Simulate(cluster, trace, faults, sim_options));
  return sim::FormatSimulationJson(result);
}
#endif

}  // namespace
}  // namespace qm::c

extern "C" {

QM_C_EXPORT int qm_has_simulator(void) {
#ifdef QM_C_HAVE_SIMULATOR
  return 1;
#else
  return 0;
#endif
}

QM_C_EXPORT qm_status qm_simulate(const char* cluster_yaml, const char* trace_csv,
                                  const char* faults_yaml, const qm_simulate_options* options,
                                  char** json) {
  return qm::c::Run([&]() -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(json, "json"));
    *json = nullptr;
    QM_ASSIGN_OR_RETURN(std::string_view cluster, qm::c::Text(cluster_yaml, "cluster_yaml"));
    QM_ASSIGN_OR_RETURN(std::string_view trace, qm::c::Text(trace_csv, "trace_csv"));
    QM_ASSIGN_OR_RETURN(std::string_view faults, qm::c::OptionalText(faults_yaml, "faults_yaml"));
#ifdef QM_C_HAVE_SIMULATOR
    QM_ASSIGN_OR_RETURN(std::string out, qm::c::SimulateJson(cluster, trace, faults, options));
    *json = qm::c::CopyOut(out);
    return absl::OkStatus();
#else
    (void)cluster;
    (void)trace;
    (void)faults;
    (void)options;
    return absl::UnimplementedError(
        "this libquartermaster_c was built without the simulator (lib/sim has no Simulate yet)");
#endif
  });
}

}  // extern "C"
