// Helpers of the simulator tests (simulator_test.cc, sim_metrics_test.cc, livelock_test.cc): clusters
// and traces from text, a run that must succeed, and lookups into its result.
#ifndef QM_TESTS_SIM_SIM_TEST_SUPPORT_H_
#define QM_TESTS_SIM_SIM_TEST_SUPPORT_H_

#include <string>
#include <utility>

#include "catch2/catch.hpp"
#include "qm/sim/sim_result.h"
#include "qm/sim/simulator.h"
#include "qm/sim/trace.h"

namespace qm::sim::test {

inline constexpr double kHour = 3600.0;

/// One ClusterQueue `cq-a` with 4 GPUs of flavor `gpu`, no nodes (quota only); namespace `team-a`
/// and its LocalQueue `q`.
inline constexpr const char* kOneGpuQueue = R"(
kind: ResourceFlavor
metadata: {name: gpu}
---
kind: Namespace
metadata: {name: team-a}
---
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}]
---
kind: LocalQueue
metadata: {namespace: team-a, name: q}
spec: {clusterQueue: cq-a}
)";

inline SimulationInput Cluster(const std::string& yaml) {
  absl::StatusOr<SimulationInput> c = LoadClusterString(yaml, "cluster.yaml");
  INFO(c.status().ToString());
  REQUIRE(c.ok());
  return *std::move(c);
}

inline Trace Jobs(const std::string& csv) {
  absl::StatusOr<Trace> t = ReadTraceString(csv, "jobs.csv");
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  return *std::move(t);
}

inline SimulationResult Run(const SimulationInput& cluster, const Trace& trace, const FaultPlan& faults = {},
                            const SimulationOptions& options = {}) {
  absl::StatusOr<SimulationResult> r = Simulate(cluster, trace, faults, options);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *std::move(r);
}

/// The group of `cq` and `priority_class` ("" = the queue's total row).
inline const GroupSummary& Group(const SimulationResult& r, const std::string& cq, const std::string& priority_class = "") {
  for (const GroupSummary& g : r.groups) {
    if (g.cluster_queue == cq && g.priority_class == priority_class) return g;
  }
  FAIL("no row for " << cq << " " << priority_class);
  return r.groups.front();
}

inline const GroupSummary& QueueRow(const SimulationResult& r, const std::string& cq) { return Group(r, cq); }

inline const ResourceHours& Gpu(const GroupSummary& g) {
  for (const ResourceHours& h : g.resources) {
    if (h.resource == "nvidia.com/gpu") return h;
  }
  FAIL("no nvidia.com/gpu figures");
  return g.resources.front();
}

inline SimulationOptions StopAtOnce() {
  SimulationOptions o;
  o.eviction_delay = Duration{};
  return o;
}

}  // namespace qm::sim::test

#endif  // QM_TESTS_SIM_SIM_TEST_SUPPORT_H_
