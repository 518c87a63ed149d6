// LoadScenarioString / LoadScenarioFile error paths (docs/scenario-format.md): one test per path,
// each checking that the message names the file, the line and the field path (and, inside
// objects, the object).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "qm/io/scenario.h"

namespace qm {
namespace scenario_loader_test {
namespace {

std::string ErrorOf(const std::string& yaml) {
  const absl::StatusOr<Scenario> s = LoadScenarioString(yaml, "s.yaml");
  if (s.ok()) return "<no error>";
  CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(s.status().message());
}

// Lines 1-20: a flavor, a ClusterQueue `eng`, LocalQueue default/q and workload default/w; the
// first step starts at line 21.
const std::string kHead =
    "name: t\n"                                                              // 1
    "objects:\n"                                                             // 2
    "- kind: ResourceFlavor\n"                                               // 3
    "  metadata: {name: default}\n"                                          // 4
    "- kind: ClusterQueue\n"                                                 // 5
    "  metadata: {name: eng}\n"                                              // 6
    "  spec:\n"                                                              // 7
    "    namespaceSelector: {}\n"                                            // 8
    "    resourceGroups:\n"                                                  // 9
    "    - coveredResources: [cpu]\n"                                        // 10
    "      flavors:\n"                                                       // 11
    "      - name: default\n"                                                // 12
    "        resources: [{name: cpu, nominalQuota: 4}]\n"                    // 13
    "- kind: LocalQueue\n"                                                   // 14
    "  metadata: {name: q}\n"                                                // 15
    "  spec: {clusterQueue: eng}\n"                                          // 16
    "- kind: Workload\n"                                                     // 17
    "  metadata: {name: w}\n"                                                // 18
    "  spec: {queueName: q, podSets: [{count: 1, requests: {cpu: 1}}]}\n"    // 19
    "steps:\n";                                                              // 20

TEST_CASE("Scenario: the fixture loads", "[io][scenario]") {
  const absl::StatusOr<Scenario> s = LoadScenarioString(kHead + "- schedule: {}\n  expect: {admitted: {w: {clusterQueue: eng, podSets: {main: {cpu: default}}}}}\n", "s.yaml");
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  CHECK(s->name == "t");
  CHECK(s->objects.size() == 4);
  REQUIRE(s->steps.size() == 1);
  CHECK(s->steps[0].source == "s.yaml:21");
  REQUIRE(s->steps[0].expect.has_value());
  CHECK(s->steps[0].expect->source == "s.yaml:22");
}

// ---- The file and the top level ------------------------------------------------------------------

TEST_CASE("Scenario error: malformed YAML", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nobjects: [\n") == "s.yaml:3: malformed YAML: end of sequence flow not found");
}

TEST_CASE("Scenario error: a file that cannot be read", "[io][scenario][errors]") {
  const absl::StatusOr<Scenario> s = LoadScenarioFile("/nonexistent/qm/s.yaml");
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(s.status().message()) == "cannot read '/nonexistent/qm/s.yaml': No such file or directory");
}

TEST_CASE("Scenario error: more than one YAML document", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: a\n---\nname: b\n") == "s.yaml: a scenario file holds exactly one YAML document, got 2");
}

TEST_CASE("Scenario error: an empty file", "[io][scenario][errors]") {
  CHECK(ErrorOf("") == "s.yaml: a scenario file holds exactly one YAML document, got 0");
}

TEST_CASE("Scenario error: a document that is not a map", "[io][scenario][errors]") {
  CHECK(ErrorOf("- name: t\n") == "s.yaml:1: expected a scenario (a map with name, objects, steps), got a list");
}

TEST_CASE("Scenario error: an unknown top-level key", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nexpects: {}\n") ==
        "s.yaml:2: expects: unknown field \"expects\" (expected one of: name, source, description, skip, config, "
        "objects, steps, expect)");
}

TEST_CASE("Scenario error: a missing name", "[io][scenario][errors]") {
  CHECK(ErrorOf("description: no name\n") == "s.yaml:1: name: is required");
}

TEST_CASE("Scenario error: config that is not a map", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nconfig: [now]\n") == "s.yaml:2: config: expected a map, got a list");
}

TEST_CASE("Scenario error: an unknown config key", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nconfig:\n  fairsharing: {}\n") ==
        "s.yaml:3: config.fairsharing: unknown field \"fairsharing\" (expected one of: now, fairSharing, features, "
        "releaseEvictedAtNextSchedule, messageStyle, access, antiThrash, waitForPodsReady, refill)");
}

TEST_CASE("Scenario error: bad waitForPodsReady fields name the key", "[io][scenario][errors][pods-ready]") {
  const std::string head = "name: t\nconfig:\n  waitForPodsReady:\n";
  CHECK(ErrorOf(head + "    timeout: -5m\n") == "s.yaml:4: config.waitForPodsReady.timeout: \"-5m\" must not be negative");
  CHECK(ErrorOf(head + "    timeout: 0s\n") == "s.yaml:4: config.waitForPodsReady.timeout: must be more than 0");
  CHECK(ErrorOf(head + "    requeuingStrategy: {backoffLimitCount: -1}\n") ==
        "s.yaml:4: config.waitForPodsReady.requeuingStrategy.backoffLimitCount: must be >= 0");
  CHECK(ErrorOf(head + "    requeuingStrategy: {timestamp: Admission}\n") ==
        "s.yaml:4: config.waitForPodsReady.requeuingStrategy.timestamp: \"Admission\" is not one of Eviction, Creation");
  CHECK_THAT(ErrorOf(head + "    blockAdmission: true\n"),
             Catch::StartsWith("s.yaml:4: config.waitForPodsReady.blockAdmission: true is not supported"));
  CHECK(ErrorOf(head + "    timout: 5m\n") ==
        "s.yaml:4: config.waitForPodsReady.timout: unknown field \"timout\" (expected one of: enable, timeout, "
        "recoveryTimeout, blockAdmission, requeuingStrategy)");
}

TEST_CASE("Scenario error: podsReady naming an unknown workload", "[io][scenario][errors][pods-ready]") {
  CHECK(ErrorOf(kHead + "- podsReady: [nope]\n") == "s.yaml:21: steps[0].podsReady[0]: workload 'default/nope' is not defined in this scenario");
  CHECK(ErrorOf(kHead + "- podsReady: [{workload: w, ready: maybe}]\n") ==
        "s.yaml:21: steps[0].podsReady[0].ready: \"maybe\" is not a boolean (true or false)");
}

TEST_CASE("Scenario error: bad localQueues expectations name the queue and field", "[io][scenario][errors]") {
  const std::string step = kHead + "- schedule: {}\n  expect:\n    localQueues:\n";
  CHECK(ErrorOf(step + "      nope: {active: true}\n") ==
        "s.yaml:24: steps[0].expect.localQueues[nope]: LocalQueue 'default/nope' is not defined in this scenario");
  CHECK(ErrorOf(step + "      a/b/c: {}\n") ==
        "s.yaml:24: steps[0].expect.localQueues[a/b/c]: \"a/b/c\" is not a LocalQueue name (namespace/name or name)");
  CHECK(ErrorOf(step + "      q: {pending: 1}\n") ==
        "s.yaml:24: steps[0].expect.localQueues[q].pending: unknown field \"pending\" (expected one of: active, reason, "
        "message, pendingWorkloads, reservingWorkloads, admittedWorkloads, flavorsReservation, flavorsUsage)");
  CHECK(ErrorOf(step + "      q: {pendingWorkloads: -1}\n") ==
        "s.yaml:24: steps[0].expect.localQueues[q].pendingWorkloads: -1 is out of range [0, 2147483647]");
  CHECK(ErrorOf(step + "      q: {flavorsUsage: {default: {cpu: lots}}}\n") != "<no error>");
  CHECK(ErrorOf(step + "      default/q: {active: true, flavorsUsage: {default: {cpu: \"1\"}}}\n") == "<no error>");
}

TEST_CASE("Scenario error: a bad config.now timestamp", "[io][scenario][errors]") {
  CHECK_THAT(ErrorOf("name: t\nconfig:\n  now: \"2024-01-01\"\n"),
             Catch::StartsWith("s.yaml:3: config.now: \"2024-01-01\" is not an RFC 3339 timestamp"));
}

TEST_CASE("Scenario error: an unknown fairSharing key", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    enabled: true\n") ==
        "s.yaml:4: config.fairSharing.enabled: unknown field \"enabled\" (expected one of: enable, "
        "preemptionStrategies, historicalShare)");
}

TEST_CASE("Scenario error: the historical share's settings are checked", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    historicalShare: {halfLife: 1h}\n") ==
        "s.yaml:4: config.fairSharing.historicalShare: needs fair sharing: set fairSharing.enable: true");
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    enable: true\n    historicalShare: {halfLife: 0s}\n") ==
        "s.yaml:5: config.fairSharing.historicalShare.halfLife: must be more than 0");
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    enable: true\n    historicalShare: {halfLife: -1h}\n") ==
        "s.yaml:5: config.fairSharing.historicalShare.halfLife: \"-1h\" must not be negative");
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    enable: true\n    historicalShare: {halfLife: 900000h}\n") ==
        "s.yaml:5: config.fairSharing.historicalShare.halfLife: must be at most 100 years");
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    enable: true\n    historicalShare: {halflife: 1h}\n") ==
        "s.yaml:5: config.fairSharing.historicalShare.halflife: unknown field \"halflife\" (expected one of: "
        "enable, halfLife)");
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    enable: true\n    historicalShare: 24h\n").find(
            "config.fairSharing.historicalShare") != std::string::npos);
  // Off: the half-life is not checked (an unused setting), as Kueue leaves unused blocks alone.
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    historicalShare: {enable: false, halfLife: 0s}\n") == "<no error>");
}

TEST_CASE("Scenario error: fairSharing.enable that is not a boolean", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    enable: on-ish\n") ==
        "s.yaml:4: config.fairSharing.enable: \"on-ish\" is not a boolean (true or false)");
}

TEST_CASE("Scenario error: an unknown preemption strategy", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    preemptionStrategies: [LessThanFinalShare]\n") ==
        "s.yaml:4: config.fairSharing.preemptionStrategies[0]: \"LessThanFinalShare\" is not one of "
        "LessThanOrEqualToFinalShare, LessThanInitialShare");
}

TEST_CASE("Scenario error: preemption strategies Kueue does not support", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nconfig:\n  fairSharing:\n    enable: true\n"
                "    preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]\n") ==
        "s.yaml:5: config.fairSharing.preemptionStrategies: [LessThanInitialShare, "
        "LessThanOrEqualToFinalShare] is not a supported combination; supported: "
        "[LessThanOrEqualToFinalShare], [LessThanInitialShare], [LessThanOrEqualToFinalShare, "
        "LessThanInitialShare]");
  CHECK_THAT(ErrorOf("name: t\nconfig:\n  fairSharing:\n"
                     "    preemptionStrategies: [LessThanInitialShare, LessThanInitialShare]\n"),
             Catch::StartsWith("s.yaml:4: config.fairSharing.preemptionStrategies: [LessThanInitialShare, "
                               "LessThanInitialShare] is not a supported combination"));
}

TEST_CASE("Scenario: an empty preemption strategy list gets Kueue's default", "[io][scenario]") {
  const absl::StatusOr<Scenario> s = LoadScenarioString(
      "name: t\nconfig:\n  fairSharing: {enable: true, preemptionStrategies: []}\n"
      "expect: {}\n", "s.yaml");
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  CHECK(s->config.fair_sharing.preemption_strategies ==
        std::vector<FairSharingStrategy>{FairSharingStrategy::kLessThanOrEqualToFinalShare,
                                         FairSharingStrategy::kLessThanInitialShare});
}

TEST_CASE("Scenario error: a feature gate whose dependency is disabled", "[io][scenario][errors]") {
  // FlavorFungibilityPreserveScanProgress is on by default and not in the file: the error points
  // at `features:`.
  CHECK(ErrorOf("name: t\nconfig:\n  features:\n    FlavorFungibility: false\n") ==
        "s.yaml:3: config.features.FlavorFungibilityPreserveScanProgress: enabled, but it depends on "
        "features that are disabled: [FlavorFungibility]");
  CHECK(ErrorOf("name: t\nconfig:\n  features:\n    FlavorFungibility: false\n"
                "    FlavorFungibilityPreserveScanProgress: true\n") ==
        "s.yaml:5: config.features.FlavorFungibilityPreserveScanProgress: enabled, but it depends on "
        "features that are disabled: [FlavorFungibility]");
}

TEST_CASE("Scenario error: a feature gate value the engine does not implement", "[io][scenario][errors]") {
  CHECK_THAT(ErrorOf("name: t\nconfig:\n  features:\n    PriorityBoost: true\n"),
             Catch::StartsWith("s.yaml:4: config.features.PriorityBoost: feature gate PriorityBoost=true "
                               "is not supported: "));
  CHECK(ErrorOf("name: t\nconfig:\n  features:\n    PriorityBoost: false\n    TopologyAwareScheduling: "
                "false\n    TASFailedNodeReplacement: false\n    TASFailedNodeReplacementFailFast: false\n"
                "    TASReplaceNodeOnPodTermination: false\n    TASReplaceNodeOnNodeTaints: false\n"
                "    TASMultiLayerTopology: false\n    TASHandleOverlappingFlavors: false\n"
                "    TASProfileMixed: false\n    TASRecomputeAssignmentWithinSchedulingCycle: false\n"
                "expect: {}\n") == "<no error>");
}

TEST_CASE("Scenario: an exa-scale cpu quota loads as unlimited, with a note", "[io][scenario]") {
  std::string yaml = kHead;
  const std::string quota = "nominalQuota: 4}";
  yaml.replace(yaml.find(quota), quota.size(), "nominalQuota: 1E}");
  // The workload's namespace, so that it can be admitted (2 more lines: the quota is on line 15).
  yaml.insert(yaml.find("objects:\n") + 9, "- kind: Namespace\n  metadata: {name: default}\n");
  const absl::StatusOr<Scenario> s = LoadScenarioString(
      yaml + "- schedule: {}\n  expect: {admitted: {w: {clusterQueue: eng, podSets: {main: {cpu: default}}}}}\n",
      "s.yaml");
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  REQUIRE(s->notes.size() == 1);
  CHECK(s->notes[0] ==
        "s.yaml:15: ClusterQueue/eng: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: \"1E\" is too "
        "large for an int64 count of cpu (millicores); taken as unlimited, as Kueue does");
  const ScenarioResult r = RunScenario(*s);
  for (const std::string& line : r.DiffLines()) INFO(line);
  CHECK(r.passed());
}

TEST_CASE("Scenario error: a feature gate value that is not a boolean", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nconfig:\n  features:\n    PartialAdmission: sometimes\n") ==
        "s.yaml:4: config.features.PartialAdmission: \"sometimes\" is not a boolean (true or false)");
}

TEST_CASE("Scenario error: an unknown feature gate", "[io][scenario][errors]") {
  CHECK_THAT(ErrorOf("name: t\nconfig:\n  features:\n    PartialAdmision: true\n"),
             Catch::StartsWith("s.yaml:4: config.features.PartialAdmision: ") && Catch::Contains("PartialAdmision"));
}

TEST_CASE("Scenario error: releaseEvictedAtNextSchedule that is not a boolean", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nconfig:\n  releaseEvictedAtNextSchedule: 1\n") ==
        "s.yaml:3: config.releaseEvictedAtNextSchedule: \"1\" is not a boolean (true or false)");
}

TEST_CASE("Scenario error: objects that are not a list", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nobjects: {kind: Namespace}\n") == "s.yaml:2: objects: expected a list, got a map");
}

TEST_CASE("Scenario error: a bad object names the object and its field", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nobjects:\n- kind: ClusterQueue\n  metadata: {name: eng}\n  spec:\n"
                "    resourceGroups:\n    - coveredResources: [cpu]\n      flavors:\n      - name: default\n"
                "        resources:\n        - name: cpu\n          nominalQuota: 12x\n") ==
        "s.yaml:12: ClusterQueue/eng: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: \"12x\" is not a "
        "quantity");
}

TEST_CASE("Scenario error: an object defined twice", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nobjects:\n- kind: ResourceFlavor\n  metadata: {name: f}\n- kind: ResourceFlavor\n"
                "  metadata: {name: f}\n") ==
        "s.yaml:5: ResourceFlavor/f: duplicate object (first defined at s.yaml:3)");
}

TEST_CASE("Scenario error: a top-level expect together with steps", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nsteps:\n- schedule: {}\nexpect: {}\n") ==
        "s.yaml:4: expect: a top-level expect is only allowed without steps (put it in a step)");
}

TEST_CASE("Scenario error: an empty steps list", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nsteps: []\n") == "s.yaml:2: steps: must list at least one step");
}

TEST_CASE("Scenario error: steps that are not a list", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nsteps: {schedule: {}}\n") == "s.yaml:2: steps: expected a list, got a map");
}

// ---- Steps ---------------------------------------------------------------------------------------

TEST_CASE("Scenario error: a step that is not a map", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule\n") == "s.yaml:21: steps[0]: expected a map, got the string \"schedule\"");
}

TEST_CASE("Scenario error: an unknown step key", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- shedule: {}\n") ==
        "s.yaml:21: steps[0].shedule: unknown field \"shedule\" (expected one of: schedule, apply, delete, finish, "
        "evictionDone, advance, preemptionTargets, assignFlavors, submit, evict, deactivate, activate, reclaimablePods, "
        "podsReady, expect)");
}

TEST_CASE("Scenario error: a step without action", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- expect: {}\n") ==
        "s.yaml:21: steps[0]: a step needs one action: schedule, apply, delete, finish, evictionDone, advance, "
        "preemptionTargets, assignFlavors, submit, evict, deactivate, activate, reclaimablePods, podsReady");
}

TEST_CASE("Scenario error: host-action steps name the step and the field", "[io][scenario][errors][host-steps]") {
  SECTION("evict needs a condition reason") {
    // Setup: a reason with a space. Expect: the reason field of the item, at its line.
    CHECK(ErrorOf(kHead + "- evict: [{workload: w, reason: \"node failed\"}]\n") ==
          "s.yaml:21: steps[0].evict[0].reason: \"node failed\" is not a condition reason (CamelCase, such as "
          "NodeFailures)");
    CHECK(ErrorOf(kHead + "- evict: [{workload: w}]\n") == "s.yaml:21: steps[0].evict[0].reason: is required");
  }
  SECTION("evict names a defined workload and known fields") {
    CHECK(ErrorOf(kHead + "- evict: [{workload: typo, reason: NodeFailures}]\n") ==
          "s.yaml:21: steps[0].evict[0].workload: workload 'default/typo' is not defined in this scenario");
    CHECK(ErrorOf(kHead + "- evict: [{workload: w, reason: NodeFailures, why: x}]\n") ==
          "s.yaml:21: steps[0].evict[0].why: unknown field \"why\" (expected one of: workload, reason, message)");
  }
  SECTION("deactivate and activate take a list of defined workloads") {
    CHECK(ErrorOf(kHead + "- deactivate: [typo]\n") ==
          "s.yaml:21: steps[0].deactivate[0]: workload 'default/typo' is not defined in this scenario");
    CHECK(ErrorOf(kHead + "- activate:\n") == "s.yaml:21: steps[0].activate: expected a list of workloads");
  }
  SECTION("reclaimablePods needs a count within range") {
    CHECK(ErrorOf(kHead + "- reclaimablePods: [{workload: w, podSet: main}]\n") ==
          "s.yaml:21: steps[0].reclaimablePods[0].count: is required");
    const std::string negative = ErrorOf(kHead + "- reclaimablePods: [{workload: w, count: -1}]\n");
    CHECK(negative.rfind("s.yaml:21: steps[0].reclaimablePods[0].count: ", 0) == 0);
  }
  SECTION("valid host-action steps load") {
    const absl::StatusOr<Scenario> s = LoadScenarioString(
        kHead +
            "- evict: [{workload: w, reason: NodeFailures, message: node n-1 failed}]\n"
            "- deactivate: [w]\n"
            "- activate: [default/w]\n"
            "- reclaimablePods: [{workload: w, count: 1}]\n",
        "s.yaml");
    REQUIRE(s.ok());
    REQUIRE(s->steps.size() == 4);
    const auto& evict = std::get<EvictStep>(s->steps[0].action);
    CHECK(evict.items.size() == 1);
    CHECK(evict.items[0].workload == "default/w");
    CHECK(evict.items[0].reason == "NodeFailures");
    CHECK(evict.items[0].message == "node n-1 failed");
    CHECK(std::get<DeactivateStep>(s->steps[1].action).workloads == std::vector<std::string>{"default/w"});
    CHECK(std::get<ActivateStep>(s->steps[2].action).workloads == std::vector<std::string>{"default/w"});
    const auto& rp = std::get<ReclaimablePodsStep>(s->steps[3].action);
    CHECK(rp.items[0].pod_set == "main");
    CHECK(rp.items[0].count == 1);
    CHECK(std::string(StepActionName(s->steps[3].action)) == "reclaimablePods");
  }
}

TEST_CASE("Scenario error: a step with two actions", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  finish: [w]\n") ==
        "s.yaml:21: steps[0]: a step has exactly one action, got schedule, finish");
}

TEST_CASE("Scenario error: an unknown schedule key", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {cycle: 2}\n") ==
        "s.yaml:21: steps[0].schedule.cycle: unknown field \"cycle\" (expected one of: cycles, untilStable)");
}

TEST_CASE("Scenario error: schedule cycles out of range", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {cycles: 0}\n") ==
        "s.yaml:21: steps[0].schedule.cycles: 0 is out of range [1, 10000]");
}

TEST_CASE("Scenario error: schedule cycles together with untilStable", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule:\n    untilStable: true\n    cycles: 3\n") ==
        "s.yaml:23: steps[0].schedule.cycles: cannot be used with untilStable");
}

TEST_CASE("Scenario error: apply without objects", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- apply:\n") == "s.yaml:21: steps[0].apply: expected a list of objects");
}

TEST_CASE("Scenario error: a bad object in an apply step", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- apply:\n  - kind: LocalQueue\n    metadata: {name: r}\n    spec: {stopPolicy: Paused, clusterQueue: eng}\n") ==
        "s.yaml:24: LocalQueue/default/r: spec.stopPolicy: \"Paused\" is not one of None, Hold, HoldAndDrain");
}

TEST_CASE("Scenario error: delete that is not a list", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- delete:\n") == "s.yaml:21: steps[0].delete: expected a list of {kind, namespace, name}");
}

TEST_CASE("Scenario error: a delete item that is not a map", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- delete: [w]\n") == "s.yaml:21: steps[0].delete[0]: expected a map, got the string \"w\"");
}

TEST_CASE("Scenario error: an unknown delete key", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- delete: [{kind: Workload, nam: w}]\n") ==
        "s.yaml:21: steps[0].delete[0].nam: unknown field \"nam\" (expected one of: kind, namespace, name)");
}

TEST_CASE("Scenario error: a delete without kind", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- delete: [{name: w}]\n") == "s.yaml:21: steps[0].delete[0].kind: is required");
}

TEST_CASE("Scenario error: a delete of an unknown kind", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- delete: [{kind: Job, name: w}]\n") ==
        "s.yaml:21: steps[0].delete[0].kind: \"Job\" is not one of Namespace, ResourceFlavor, Cohort, ClusterQueue, "
        "LocalQueue, WorkloadPriorityClass, PriorityClass, Workload");
}

TEST_CASE("Scenario error: a delete without name", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- delete: [{kind: ClusterQueue}]\n") == "s.yaml:21: steps[0].delete[0].name: is required");
}

TEST_CASE("Scenario error: a delete of a workload the scenario does not define", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- delete: [{kind: Workload, namespace: other, name: w}]\n") ==
        "s.yaml:21: steps[0].delete[0].name: workload 'other/w' is not defined in this scenario");
}

TEST_CASE("Scenario error: finish without workloads", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- finish:\n") == "s.yaml:21: steps[0].finish: expected a list of workloads");
}

TEST_CASE("Scenario error: finish of an undefined workload", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n- finish:\n  - default/w\n  - typo\n") ==
        "s.yaml:24: steps[1].finish[1]: workload 'default/typo' is not defined in this scenario");
}

TEST_CASE("Scenario error: a workload name with two slashes", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- finish: [a/b/c]\n") ==
        "s.yaml:21: steps[0].finish[0]: \"a/b/c\" is not a workload name (namespace/name or name)");
}

TEST_CASE("Scenario error: evictionDone of an undefined workload", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- evictionDone: [nobody]\n") ==
        "s.yaml:21: steps[0].evictionDone[0]: workload 'default/nobody' is not defined in this scenario");
}

TEST_CASE("Scenario error: a workload used before the apply step that defines it", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- finish: [late]\n- apply:\n  - kind: Workload\n    metadata: {name: late}\n"
                        "    spec: {queueName: q, podSets: [{requests: {cpu: 1}}]}\n") ==
        "s.yaml:21: steps[0].finish[0]: workload 'default/late' is not defined in this scenario");
}

TEST_CASE("Scenario error: advance without a duration", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- advance:\n") == "s.yaml:21: steps[0].advance: is required");
}

TEST_CASE("Scenario error: a bad advance duration", "[io][scenario][errors]") {
  CHECK_THAT(ErrorOf(kHead + "- advance: 30 seconds\n"),
             Catch::StartsWith("s.yaml:21: steps[0].advance: \"30 seconds\" is not a duration"));
}

TEST_CASE("Scenario error: a negative advance", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- advance: -5s\n") ==
        "s.yaml:21: steps[0].advance: \"-5s\" must not be negative (the clock only moves forward)");
}

TEST_CASE("Scenario error: preemptionTargets that is not a map", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- preemptionTargets: [w]\n") ==
        "s.yaml:21: steps[0].preemptionTargets: expected a map, got a list");
}

TEST_CASE("Scenario error: an unknown preemptionTargets key", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- preemptionTargets: {workload: w, clusterQueue: eng, flavors: {}}\n") ==
        "s.yaml:21: steps[0].preemptionTargets.flavors: unknown field \"flavors\" (expected one of: workload, "
        "clusterQueue, assignment)");
}

TEST_CASE("Scenario error: preemptionTargets in an undefined ClusterQueue", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- preemptionTargets: {workload: w, clusterQueue: nope, assignment: {main: {cpu: default}}}\n") ==
        "s.yaml:21: steps[0].preemptionTargets.clusterQueue: ClusterQueue 'nope' is not defined in this scenario");
}

TEST_CASE("Scenario error: preemptionTargets without assignment", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- preemptionTargets: {workload: w, clusterQueue: eng}\n") ==
        "s.yaml:21: steps[0].preemptionTargets.assignment: is required");
}

TEST_CASE("Scenario error: a preemptionTargets mode that is not Preempt or Fit", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- preemptionTargets:\n    workload: w\n    clusterQueue: eng\n    assignment:\n"
                        "      main: {cpu: {flavor: default, mode: NoFit}}\n") ==
        "s.yaml:25: steps[0].preemptionTargets.assignment[main][cpu].mode: \"NoFit\" is not one of Preempt, Fit");
}

TEST_CASE("Scenario error: assignFlavors that is not a map", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- assignFlavors: w\n") ==
        "s.yaml:21: steps[0].assignFlavors: expected a map, got the string \"w\"");
}

TEST_CASE("Scenario error: assignFlavors of an undefined workload", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- assignFlavors: {workload: team/w}\n") ==
        "s.yaml:21: steps[0].assignFlavors.workload: workload 'team/w' is not defined in this scenario");
}

TEST_CASE("Scenario error: assignFlavors in an undefined ClusterQueue", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- assignFlavors: {workload: w, clusterQueue: other}\n") ==
        "s.yaml:21: steps[0].assignFlavors.clusterQueue: ClusterQueue 'other' is not defined in this scenario");
}

// ---- Expectations --------------------------------------------------------------------------------

TEST_CASE("Scenario error: an unknown expectation key", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    admited: {}\n") ==
        "s.yaml:23: steps[0].expect.admited: unknown field \"admited\" (expected one of: admitted, admissions, "
        "preempted, pending, inadmissible, targets, assignment, representativeMode, borrowing, messages, reasons, "
        "requeueState, usage, borrowed, weightedShares, refused, localQueues)");
}

TEST_CASE("Scenario error: a requeueState expectation with a bad requeueAt", "[io][scenario][errors][pods-ready]") {
  CHECK_THAT(ErrorOf(kHead + "- schedule: {}\n  expect:\n    requeueState: {w: {count: 1, requeueAt: soon}}\n"),
             Catch::StartsWith("s.yaml:23: steps[0].expect.requeueState[w].requeueAt: \"soon\" is not an RFC 3339 timestamp"));
}

TEST_CASE("Scenario error: an expect that is not a map", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect: [admitted]\n") ==
        "s.yaml:22: steps[0].expect: expected a map, got a list");
}

TEST_CASE("Scenario error: targets outside a preemptionTargets step", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect: {targets: []}\n") ==
        "s.yaml:22: steps[0].expect.targets: only a preemptionTargets step has targets");
}

TEST_CASE("Scenario error: assignment outside an assignFlavors step", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect: {borrowing: false}\n") ==
        "s.yaml:22: steps[0].expect.borrowing: only an assignFlavors step has borrowing");
}

TEST_CASE("Scenario error: an admitted workload the scenario does not define", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    admitted:\n      ghost: {clusterQueue: eng}\n") ==
        "s.yaml:24: steps[0].expect.admitted[ghost]: workload 'default/ghost' is not defined in this scenario");
}

TEST_CASE("Scenario error: an admitted entry that is not a map", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    admitted:\n      w: eng\n") ==
        "s.yaml:24: steps[0].expect.admitted[w]: expected a map, got the string \"eng\"");
}

TEST_CASE("Scenario error: an unknown key in an admitted entry", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    admitted:\n      w: {queue: eng}\n") ==
        "s.yaml:24: steps[0].expect.admitted[w].queue: unknown field \"queue\" (expected one of: clusterQueue, podSets)");
}

TEST_CASE("Scenario error: an admission in an undefined ClusterQueue", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    admissions:\n      w: {clusterQueue: engg}\n") ==
        "s.yaml:24: steps[0].expect.admissions[w].clusterQueue: ClusterQueue 'engg' is not defined in this scenario");
}

TEST_CASE("Scenario error: a bad preemption reason", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    preempted: {w: Reclaimed}\n") ==
        "s.yaml:23: steps[0].expect.preempted[w]: \"Reclaimed\" is not one of InClusterQueue, InCohortReclamation, "
        "InCohortFairSharing, InCohortReclaimWhileBorrowing");
}

TEST_CASE("Scenario error: preempted that is neither a list nor a map", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    preempted: w\n") ==
        "s.yaml:23: steps[0].expect.preempted: expected a list of workloads or a map workload: reason, got the string "
        "\"w\"");
}

TEST_CASE("Scenario error: pending in an undefined ClusterQueue", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    pending: {other: [w]}\n") ==
        "s.yaml:23: steps[0].expect.pending[other]: ClusterQueue 'other' is not defined in this scenario");
}

TEST_CASE("Scenario error: inadmissible with an undefined workload", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    inadmissible:\n      eng: [w, v]\n") ==
        "s.yaml:24: steps[0].expect.inadmissible[eng][1]: workload 'default/v' is not defined in this scenario");
}

TEST_CASE("Scenario error: an assignment entry without mode", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- assignFlavors: {workload: w}\n  expect:\n    assignment: {main: {cpu: {flavor: default}}}\n") ==
        "s.yaml:23: steps[0].expect.assignment[main][cpu].mode: is required");
}

TEST_CASE("Scenario error: a bad representativeMode", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- assignFlavors: {workload: w}\n  expect:\n    representativeMode: Borrow\n") ==
        "s.yaml:23: steps[0].expect.representativeMode: \"Borrow\" is not one of Fit, Preempt, NoFit");
}

TEST_CASE("Scenario error: a message for an undefined workload", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    messages: {nobody: text}\n") ==
        "s.yaml:23: steps[0].expect.messages[nobody]: workload 'default/nobody' is not defined in this scenario");
}

TEST_CASE("Scenario error: a bad weightedShares value", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    weightedShares: {eng: -1}\n") ==
        "s.yaml:23: steps[0].expect.weightedShares[eng]: -1 is out of range [0, 9223372036854775807]");
}

TEST_CASE("Scenario error: a usage amount that is not a quantity", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    usage:\n      eng: {default: {cpu: 1x}}\n") ==
        "s.yaml:24: steps[0].expect.usage[eng][default][cpu]: \"1x\" is not a quantity");
}

TEST_CASE("Scenario error: usage of an undefined ClusterQueue", "[io][scenario][errors]") {
  CHECK(ErrorOf(kHead + "- schedule: {}\n  expect:\n    usage:\n      nope: {default: {cpu: 1}}\n") ==
        "s.yaml:24: steps[0].expect.usage[nope]: ClusterQueue 'nope' is not defined in this scenario");
}

TEST_CASE("Scenario error: the top-level expect is read like a step's", "[io][scenario][errors]") {
  CHECK(ErrorOf("name: t\nexpect:\n  admitted: {ghost: {clusterQueue: x}}\n") ==
        "s.yaml:3: expect.admitted[ghost]: workload 'default/ghost' is not defined in this scenario");
}

TEST_CASE("Scenario: loading is all-or-nothing", "[io][scenario][errors]") {
  // A valid prefix (objects and a first step) does not produce a partial scenario.
  const absl::StatusOr<Scenario> s = LoadScenarioString(kHead + "- schedule: {}\n- advance: soon\n", "s.yaml");
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(std::string(s.status().message()), Catch::StartsWith("s.yaml:22: steps[1].advance: \"soon\" is not a duration"));
}

}  // namespace
}  // namespace scenario_loader_test
}  // namespace qm
