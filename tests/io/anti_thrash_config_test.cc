// The `antiThrash` block (qm/model/anti_thrash.h) as a manifest's Kueue `Configuration` and as a
// scenario's `config:` key: what is read, and errors that name the file, line and field.
#include <catch2/catch.hpp>

#include <string>

#include "qm/io/explain.h"
#include "qm/io/manifest.h"
#include "qm/io/scenario.h"

namespace qm {
namespace anti_thrash_config_test {
namespace {

std::string ManifestError(const std::string& yaml) {
  const absl::StatusOr<Manifest> m = ReadManifestString(yaml, "cluster.yaml");
  if (m.ok()) return "<no error>";
  CHECK(m.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(m.status().message());
}

const std::string kConfiguration = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n";

TEST_CASE("Configuration: v1beta2 turns fair sharing on by the fairSharing block's presence", "[io][manifest]") {
  const std::string v1beta2 = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n";
  // Kueue's v1beta2 FairSharing has no `enable`: the block alone enables it.
  absl::StatusOr<Manifest> m =
      ReadManifestString(v1beta2 + "fairSharing: {preemptionStrategies: [LessThanInitialShare]}\n", "cluster.yaml");
  REQUIRE(m.ok());
  REQUIRE(m->fair_sharing.has_value());
  CHECK(m->fair_sharing->enabled);
  m = ReadManifestString(v1beta2 + "fairSharing: {}\n", "cluster.yaml");
  REQUIRE(m.ok());
  CHECK(m->fair_sharing->enabled);
  m = ReadManifestString(v1beta2 + "featureGates: {PrioritizePreemptorWorkloads: true}\n", "cluster.yaml");
  REQUIRE(m.ok());
  CHECK_FALSE(m->fair_sharing.has_value());
  CHECK(ManifestError(v1beta2 + "fairSharing: {enable: false}\n") ==
        "cluster.yaml:3: Configuration: fairSharing.enable: v1beta2 has no fairSharing.enable: fair sharing is on "
        "when fairSharing is present (remove the block to turn it off)");
  // v1beta1 keeps its `enable`, default false.
  m = ReadManifestString(kConfiguration + "fairSharing: {preemptionStrategies: [LessThanInitialShare]}\n", "cluster.yaml");
  REQUIRE(m.ok());
  CHECK_FALSE(m->fair_sharing->enabled);
}

TEST_CASE("Configuration: fair sharing, feature gates and every antiThrash field are read", "[io][manifest][thrash]") {
  const absl::StatusOr<Manifest> m = ReadManifestString(
      kConfiguration +
          "fairSharing: {enable: true, preemptionStrategies: [LessThanInitialShare]}\n"
          "featureGates: {PrioritizePreemptorWorkloads: true}\n"
          "manageJobsWithoutQueueName: true\n"  // a controller setting: ignored
          "antiThrash:\n"
          "  minRuntime:\n"
          "  - {duration: 30m, reasons: [InClusterQueue, InCohortFairSharing], priorityClasses: [training],\n"
          "     clusterQueues: [team-a]}\n"
          "  - {duration: 2h}\n"
          "  loopFreeFairSharing: true\n"
          "  borrowBackoff: {base: 10m, max: 8h}\n"
          "  requeueBackoff: {base: 4h}\n"
          "  preemptionBackoff: {base: 1m, max: 1h}\n"
          "  cycleDetection: {enable: true, window: 2h}\n",
      "cluster.yaml");
  REQUIRE(m.ok());
  REQUIRE(m->fair_sharing.has_value());
  CHECK(m->fair_sharing->enabled);
  CHECK(m->fair_sharing->preemption_strategies ==
        std::vector<FairSharingStrategy>{FairSharingStrategy::kLessThanInitialShare});
  REQUIRE(m->features.has_value());
  CHECK(m->features->prioritize_preemptor_workloads);
  CHECK(m->configuration_source == "cluster.yaml:1");
  const AntiThrashConfig& a = m->anti_thrash;
  REQUIRE(a.min_runtime.size() == 2);
  CHECK(a.min_runtime[0].duration == Duration::Seconds(1800));
  CHECK(a.min_runtime[0].reasons ==
        std::vector<PreemptionReason>{PreemptionReason::kInClusterQueue, PreemptionReason::kInCohortFairSharing});
  CHECK(a.min_runtime[0].priority_classes == std::vector<std::string>{"training"});
  CHECK(a.min_runtime[0].cluster_queues == std::vector<std::string>{"team-a"});
  CHECK(a.min_runtime[1].duration == Duration::Seconds(7200));
  CHECK(a.min_runtime[1].reasons.empty());
  CHECK(a.loop_free_fair_sharing);
  CHECK(a.borrow_backoff.base == Duration::Seconds(600));
  CHECK(a.borrow_backoff.max == Duration::Seconds(8 * 3600));
  CHECK(a.requeue_backoff.base == Duration::Seconds(4 * 3600));
  CHECK(a.requeue_backoff.max == Duration{});
  CHECK(a.preemption_backoff.base == Duration::Seconds(60));
  CHECK(a.cycle_detection.enabled);
  CHECK(a.cycle_detection.window == Duration::Seconds(7200));
  CHECK(a.ChangesDecisions());
}

TEST_CASE("Configuration: a manifest without one leaves every policy off", "[io][manifest][thrash]") {
  const absl::StatusOr<Manifest> m =
      ReadManifestString("kind: ResourceFlavor\nmetadata: {name: default}\n", "cluster.yaml");
  REQUIRE(m.ok());
  CHECK(m->configuration_source.empty());
  CHECK_FALSE(m->features.has_value());
  CHECK_FALSE(m->anti_thrash.ChangesDecisions());
  CHECK_FALSE(m->anti_thrash.cycle_detection.enabled);
}

TEST_CASE("Configuration errors name the line and the field", "[io][manifest][thrash][errors]") {
  CHECK(ManifestError(kConfiguration + "antiThrash:\n  minRuntime:\n  - {duration: 0s}\n") ==
        "cluster.yaml:5: Configuration: antiThrash.minRuntime[0].duration: must be more than 0");
  CHECK(ManifestError(kConfiguration + "antiThrash:\n  minRuntime:\n  - {reasons: [InClusterQueue]}\n") ==
        "cluster.yaml:5: Configuration: antiThrash.minRuntime[0].duration: is required");
  CHECK(ManifestError(kConfiguration + "antiThrash:\n  minRuntime:\n  - {duration: 1h, reasons: [Sometimes]}\n") ==
        "cluster.yaml:5: Configuration: antiThrash.minRuntime[0].reasons[0]: \"Sometimes\" is not one of "
        "InClusterQueue, InCohortReclamation, InCohortFairSharing, InCohortReclaimWhileBorrowing");
  CHECK(ManifestError(kConfiguration + "antiThrash:\n  requeueBackoff: {base: -1h}\n") ==
        "cluster.yaml:4: Configuration: antiThrash.requeueBackoff.base: \"-1h\" must not be negative");
  CHECK(ManifestError(kConfiguration + "antiThrash:\n  borrowBackoff: {base: soon}\n")
            .starts_with("cluster.yaml:4: Configuration: antiThrash.borrowBackoff.base: "));
  CHECK(ManifestError(kConfiguration + "antiThrash:\n  preemptionBackoff: {base: 1h, max: 10m}\n") ==
        "cluster.yaml:4: Configuration: antiThrash.preemptionBackoff.max: must be >= base (or 0 for a constant "
        "back-off)");
  CHECK(ManifestError(kConfiguration + "antiThrash:\n  loopFree: true\n") ==
        "cluster.yaml:4: Configuration: antiThrash.loopFree: unknown field \"loopFree\" (expected one of: "
        "minRuntime, loopFreeFairSharing, borrowBackoff, requeueBackoff, preemptionBackoff, cycleDetection)");
  CHECK(ManifestError(kConfiguration + "featureGates: {NoSuchGate: true}\n") ==
        "cluster.yaml:3: Configuration: featureGates.NoSuchGate: unknown feature gate 'NoSuchGate'");
  CHECK(ManifestError(kConfiguration + "---\n" + kConfiguration) ==
        "cluster.yaml:4: Configuration: a second Configuration (the first is at cluster.yaml:1); give one");
}

std::string ScenarioError(const std::string& yaml) {
  const absl::StatusOr<Scenario> s = LoadScenarioString(yaml, "s.yaml");
  if (s.ok()) return "<no error>";
  return std::string(s.status().message());
}

TEST_CASE("Scenario config: antiThrash is read, checked at its line, and a Configuration object is refused",
          "[io][scenario][thrash]") {
  const absl::StatusOr<Scenario> s = LoadScenarioString(
      "name: t\nconfig:\n  antiThrash:\n    requeueBackoff: {base: 20m, max: 8h}\n    loopFreeFairSharing: true\n",
      "s.yaml");
  REQUIRE(s.ok());
  CHECK(s->config.anti_thrash.requeue_backoff.base == Duration::Seconds(1200));
  CHECK(s->config.anti_thrash.loop_free_fair_sharing);
  CHECK(ScenarioError("name: t\nconfig:\n  antiThrash:\n    minRuntime:\n    - {duration: 0s}\n") ==
        "s.yaml:5: config.antiThrash.minRuntime[0].duration: must be more than 0");
  CHECK(ScenarioError("name: t\nobjects:\n- " + std::string("{apiVersion: config.kueue.x-k8s.io/v1beta1, kind: Configuration}\n")) ==
        "s.yaml:3: Configuration: kind: a Kueue Configuration belongs in a cluster file; a scenario sets the engine's "
        "configuration in its config: block");
}

TEST_CASE("qm explain: the preemption history of a workload preempted three times", "[io][explain][thrash]") {
  const absl::StatusOr<Scenario> s =
      LoadScenarioFile(std::string(QM_TESTS_DIR) + "/scenarios/qm/thrash/01-preemptor-loses-its-room.yaml");
  REQUIRE(s.ok());
  absl::StatusOr<Engine> e = MakeScenarioEngine(*s);
  REQUIRE(e.ok());
  REQUIRE(RunScenarioSteps(*s, *e).passed());
  const absl::StatusOr<WorkloadExplanation> low = e->Explain("default", "low");
  REQUIRE(low.ok());
  const std::string text = RenderExplanation(*e, *low, OutputFormat::kYaml);
  CHECK_THAT(text, Catch::Contains("preemptions:\n"
                                   "  preempted: 3\n"
                                   "  byReason: {InClusterQueue: 3, InCohortReclamation: 0, InCohortFairSharing: 0, "
                                   "InCohortReclaimWhileBorrowing: 0}\n"
                                   "  caused: 0\n"
                                   "  heldLost: 1m0s\n"
                                   "  recent:\n"
                                   "  - {at: \"2024-01-01T00:01:00Z\", by: default/high, clusterQueue: a, reason: InClusterQueue}\n"));
  const absl::StatusOr<WorkloadExplanation> high = e->Explain("default", "high");
  REQUIRE(high.ok());
  CHECK_THAT(RenderExplanation(*e, *high, OutputFormat::kYaml),
             Catch::Contains("preemptions:\n  preempted: 0\n  byReason: {InClusterQueue: 0, InCohortReclamation: 0, "
                             "InCohortFairSharing: 0, InCohortReclaimWhileBorrowing: 0}\n  caused: 3\n"));
}

TEST_CASE("qm explain: with the historical share, the shares say they include the history", "[io][explain]") {
  const absl::StatusOr<Scenario> s = LoadScenarioFile(
      std::string(QM_TESTS_DIR) + "/scenarios/qm/historical-share/01-idle-team-gets-freed-capacity-first.yaml");
  REQUIRE(s.ok());
  absl::StatusOr<Engine> e = MakeScenarioEngine(*s);
  REQUIRE(e.ok());
  REQUIRE(RunScenarioSteps(*s, *e).passed());
  const absl::StatusOr<WorkloadExplanation> b2 = e->Explain("default", "b-2");
  REQUIRE(b2.ok());
  const std::string text = RenderExplanation(*e, *b2, OutputFormat::kYaml);
  CHECK_THAT(text, Catch::Contains("weightedShares: {b: 750, pool: 0}\nshareHistoryHalfLife: 24h0m0s\n"));
}


}  // namespace
}  // namespace anti_thrash_config_test
}  // namespace qm
