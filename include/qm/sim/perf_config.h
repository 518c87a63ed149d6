// Kueue's scheduler performance generator configuration (kubernetes-sigs/kueue
// test/performance/scheduler/configs/*/generator.yaml), read as Kueue writes it.
//
// The shape is cohorts × queuesSets × workloadsSets:
//
//   cohorts:
//   - className: cohort          # cohorts are named "<className>-<index>"
//     count: 5
//     queuesSets:
//     - className: cq            # queues are named "<className>-<setIndex>-<index>-<cohort>"
//       count: 6
//       nominalQuota: 20         # cpu, a Kubernetes quantity
//       borrowingLimit: 100
//       reclaimWithinCohort: Any
//       withinClusterQueue: LowerPriority
//       workloadsSets:
//       - count: 350             # rounds; each round creates every template once
//         creationIntervalMs: 100
//         workloads:
//         - {className: small, runtimeMs: 200, priority: 50, request: 1}
//
// Only the scheduler part is read: `topology`, `dra` and topology-aware workload fields are rejected
// with an error naming them, since the engine does not model topology-aware scheduling.
#ifndef QM_SIM_PERF_CONFIG_H_
#define QM_SIM_PERF_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "qm/model/cluster_queue.h"

namespace qm::sim {

/// One workload template (`workloads[]`): every round of its set creates one workload from it.
struct PerfWorkloadTemplate {
  std::string class_name;  ///< reported per class (`className`)
  int64_t runtime_ms = 0;  ///< how long it runs once admitted (`runtimeMs`)
  int32_t priority = 0;
  int64_t request_milli_cpu = 0;  ///< `request`: cpu per pod, in millicores
  int32_t pod_count = 1;          ///< `podCount` (default 1)
};

/// `workloadsSets[]`: `count` rounds, one every `creationIntervalMs`; each set of each queue runs
/// concurrently with the others. Round r (0-based), template i (0-based, n templates) is created at
/// `initialDelayMs + (r·n + i + 1) · creationIntervalMs` (Kueue's generator sleeps before each
/// creation).
struct PerfWorkloadsSet {
  int64_t count = 0;
  int64_t creation_interval_ms = 0;
  int64_t initial_delay_ms = 0;  ///< `initialDelayMs` (default 0)
  std::vector<PerfWorkloadTemplate> workloads;
};

/// `queuesSets[]`: `count` ClusterQueues with one flavor and one resource (cpu), each with its own
/// namespace and LocalQueue of the same name.
struct PerfQueuesSet {
  std::string class_name;
  int64_t count = 0;
  int64_t nominal_quota_milli_cpu = 0;
  std::optional<int64_t> borrowing_limit_milli_cpu;  ///< unset: no limit
  std::optional<int64_t> lending_limit_milli_cpu;    ///< unset: lends everything
  ReclaimWithinCohortPolicy reclaim_within_cohort = ReclaimWithinCohortPolicy::kNever;
  WithinClusterQueuePolicy within_cluster_queue = WithinClusterQueuePolicy::kNever;
  std::vector<PerfWorkloadsSet> workloads_sets;
};

/// `cohorts[]`: `count` cohorts, each holding every queue set.
struct PerfCohortSet {
  std::string class_name;
  int64_t count = 0;
  std::vector<PerfQueuesSet> queues_sets;
};

/// A whole generator configuration.
struct PerfConfig {
  std::string resource_flavor = "rf";  ///< `resourceFlavor.name` (Kueue's default "rf")
  std::vector<PerfCohortSet> cohorts;

  /// Number of ClusterQueues the configuration creates.
  int64_t ClusterQueueCount() const;
  /// Number of workloads the configuration creates.
  int64_t WorkloadCount() const;
};

/// Parses a generator configuration. Unknown keys are errors (they are usually typos); quantities
/// are Kubernetes quantity strings or numbers ("1", "500m", 20). Errors read like
/// `cohorts[0].queuesSets[0].workloadsSets[1].count: must be >= 0`.
absl::StatusOr<PerfConfig> ParsePerfConfig(std::string_view yaml_text, std::string_view file = "<input>");

/// Reads and parses a generator configuration file.
absl::StatusOr<PerfConfig> LoadPerfConfigFile(const std::string& path);

}  // namespace qm::sim

#endif  // QM_SIM_PERF_CONFIG_H_
