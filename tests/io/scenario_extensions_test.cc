// The scenario keys Quartermaster adds to the shared format (docs/scenario-extensions.md):
// `config.messageStyle`, `config.access`, the `submit` step, and the `borrowed` / `refused`
// expectations. Loading errors name the file, line and field; running them goes through the engine.
#include <catch2/catch.hpp>

#include <string>

#include "qm/io/scenario.h"

namespace qm {
namespace scenario_extensions_test {
namespace {

std::string ErrorOf(const std::string& yaml) {
  const absl::StatusOr<Scenario> s = LoadScenarioString(yaml, "s.yaml");
  if (s.ok()) return "<no error>";
  return std::string(s.status().message());
}

// Namespace default, a flavor, a ClusterQueue `eng` (4 CPU) that may borrow from `idle` (4 CPU)
// in cohort `pool`, and LocalQueue default/q: 20 lines, after `name:` and the config lines.
const std::string kCluster =
    "objects:\n"
    "- kind: Namespace\n"
    "  metadata: {name: default}\n"
    "- kind: ResourceFlavor\n"
    "  metadata: {name: default}\n"
    "- kind: ClusterQueue\n"
    "  metadata: {name: eng}\n"
    "  spec:\n"
    "    cohort: pool\n"
    "    namespaceSelector: {}\n"
    "    resourceGroups:\n"
    "    - {coveredResources: [cpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]}\n"
    "- kind: ClusterQueue\n"
    "  metadata: {name: idle}\n"
    "  spec:\n"
    "    cohort: pool\n"
    "    resourceGroups:\n"
    "    - {coveredResources: [cpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]}\n"
    "- kind: LocalQueue\n"
    "  metadata: {name: q}\n"
    "  spec: {clusterQueue: eng}\n"
    "steps:\n";

std::string Scenario(const std::string& config, const std::string& steps) {
  return "name: t\n" + config + kCluster + steps;
}

const std::string kSixCpu =
    "- apply:\n"
    "  - kind: Workload\n"
    "    metadata: {name: six}\n"
    "    spec: {queueName: q, podSets: [{count: 1, requests: {cpu: 6}}]}\n";

TEST_CASE("Scenario extensions: borrowed is compared like usage", "[io][scenario][extensions]") {
  const std::string ok = Scenario("config: {}\n", kSixCpu + "- schedule: {}\n  expect: {borrowed: {eng: {default: {cpu: 2}}}}\n");
  absl::StatusOr<qm::Scenario> s = LoadScenarioString(ok, "s.yaml");
  REQUIRE(s.ok());
  CHECK(RunScenario(*s).passed());

  const std::string wrong = Scenario("config: {}\n", kSixCpu + "- schedule: {}\n  expect: {borrowed: {eng: {default: {cpu: 1}}}}\n");
  s = LoadScenarioString(wrong, "s.yaml");
  REQUIRE(s.ok());
  const ScenarioResult r = RunScenario(*s);
  CHECK_FALSE(r.passed());
  REQUIRE(r.steps.size() == 2);
  CHECK(r.steps[1].diff == std::vector<std::string>{"borrowed.eng.default.cpu: expected 1, got 2"});

  CHECK(ErrorOf(Scenario("", "- schedule: {}\n  expect: {borrowed: {eng: {default: {cpu: lots}}}}\n")) ==
        "s.yaml:25: steps[0].expect.borrowed[eng][default][cpu]: \"lots\" is not a quantity");
}

TEST_CASE("Scenario extensions: messageStyle selects the wording", "[io][scenario][extensions]") {
  const std::string steps = kSixCpu + "- apply:\n  - kind: Workload\n    metadata: {name: seven}\n"
                            "    spec: {queueName: q, podSets: [{count: 1, requests: {cpu: 7}}]}\n"
                            "- schedule: {cycles: 2}\n";
  absl::StatusOr<qm::Scenario> legacy = LoadScenarioString(Scenario("config: {messageStyle: Legacy}\n", steps), "s.yaml");
  REQUIRE(legacy.ok());
  CHECK(legacy->config.message_style == MessageStyle::kLegacy);
  absl::StatusOr<Engine> e = MakeScenarioEngine(*legacy);
  REQUIRE(e.ok());
  CHECK(e->config().message_style == MessageStyle::kLegacy);

  absl::StatusOr<qm::Scenario> plain = LoadScenarioString(Scenario("", steps), "s.yaml");
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->config.message_style.has_value());

  CHECK(ErrorOf(Scenario("config: {messageStyle: Old}\n", "- schedule: {}\n")) ==
        "s.yaml:2: config.messageStyle: \"Old\" is not one of Current, Legacy");
}

// Two HyperPod teams; line numbers matter only for the error tests below.
const std::string kHyperPod =
    "name: t\n"
    "config:\n"
    "  access:\n"
    "    members: {alice: [team-a]}\n"
    "    admins: [root]\n"
    "objects:\n"
    "- kind: ComputeQuota\n"
    "  metadata: {name: a}\n"
    "  computeQuotaConfig: {ComputeQuotaResources: [{InstanceType: ml.c5.2xlarge, Count: 1}]}\n"
    "  computeQuotaTarget: {TeamName: team-a}\n"
    "- kind: ComputeQuota\n"
    "  metadata: {name: b}\n"
    "  computeQuotaConfig: {ComputeQuotaResources: [{InstanceType: ml.c5.2xlarge, Count: 1}]}\n"
    "  computeQuotaTarget: {TeamName: team-b}\n"
    "steps:\n";  // line 15

std::string Job(const std::string& ns, const std::string& name) {
  return "    - kind: Workload\n"
         "      metadata: {name: " + name + ", namespace: " + ns + ", labels: {kueue.x-k8s.io/queue-name: " + ns +
         "-localqueue}}\n"
         "      spec: {podSets: [{count: 1, requests: {cpu: 1}}]}\n";
}

TEST_CASE("Scenario extensions: submit goes through the HyperPod gate, refusals are results", "[io][scenario][extensions]") {
  const std::string yaml = kHyperPod +
                           "- submit:\n"
                           "    as: alice\n"
                           "    objects:\n" +
                           Job("hyperpod-ns-team-a", "mine") + Job("hyperpod-ns-team-b", "theirs") +
                           "  expect:\n"
                           "    refused: {hyperpod-ns-team-b/theirs: \"may not submit to namespace 'hyperpod-ns-team-b'\"}\n"
                           "- schedule: {}\n"
                           "  expect: {admissions: {hyperpod-ns-team-a/mine: {clusterQueue: hyperpod-ns-team-a-clusterqueue, podSets: {main: {cpu: ml.c5.2xlarge}}}}}\n";
  absl::StatusOr<qm::Scenario> s = LoadScenarioString(yaml, "s.yaml");
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  REQUIRE(s->config.access.has_value());
  CHECK(s->config.access->admins == std::vector<std::string>{"root"});
  // HyperPod policies make the engine speak as HyperPod's Kueue.
  CHECK(s->config.message_style == MessageStyle::kLegacy);
  const ScenarioResult r = RunScenario(*s);
  INFO(r.status.ToString());
  REQUIRE(r.status.ok());
  REQUIRE(r.steps.size() == 2);
  REQUIRE(r.steps[0].refused.size() == 1);
  CHECK(r.steps[0].refused[0].first == "hyperpod-ns-team-b/theirs");
  CHECK(r.steps[0].refused[0].second ==
        "Workload/hyperpod-ns-team-b/theirs: principal 'alice' may not submit to namespace "
        "'hyperpod-ns-team-b': it belongs to team team-a");
  for (const std::string& line : r.DiffLines()) UNSCOPED_INFO(line);
  CHECK(r.passed());

  // A submit step's expect without `refused` expects none.
  const std::string unexpected = kHyperPod + "- submit:\n    as: alice\n    objects:\n" +
                                 Job("hyperpod-ns-team-b", "theirs") + "  expect: {}\n";
  s = LoadScenarioString(unexpected, "s.yaml");
  REQUIRE(s.ok());
  const ScenarioResult r2 = RunScenario(*s);
  REQUIRE(r2.steps.size() == 1);
  REQUIRE(r2.steps[0].diff.size() == 1);
  CHECK(r2.steps[0].diff[0].starts_with("refused.hyperpod-ns-team-b/theirs: not expected, got"));
}

TEST_CASE("Scenario extensions: submit errors name the step and field", "[io][scenario][extensions]") {
  CHECK(ErrorOf(kHyperPod + "- submit: {objects: []}\n") == "s.yaml:16: steps[0].submit.as: is required");
  CHECK(ErrorOf(kHyperPod + "- submit: {as: alice}\n") == "s.yaml:16: steps[0].submit.objects: expected a list of workloads");
  CHECK(ErrorOf(kHyperPod + "- submit:\n    as: alice\n    objects:\n    - kind: Namespace\n      metadata: {name: x}\n") ==
        "s.yaml:18: steps[0].submit.objects: submit takes Workloads only, got Namespace/x");
  CHECK(ErrorOf(kHyperPod + "- schedule: {}\n  expect: {refused: {}}\n") ==
        "s.yaml:17: steps[0].expect.refused: only a submit step has refused");
  CHECK(ErrorOf(Scenario("config: {access: {members: {alice: team-a}}}\n", "- schedule: {}\n")).find("config.access.members[alice]") !=
        std::string::npos);
}

}  // namespace
}  // namespace scenario_extensions_test
}  // namespace qm
