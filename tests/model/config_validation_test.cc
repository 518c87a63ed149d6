// EngineConfig validation (qm/model/config_validation.h) and the feature-gate table
// (qm/model/config.h): one test per rule, each checking the exact message, which names the field
// in Kueue's configuration spelling (pkg/config/validation.go, pkg/features/kube_features.go).
#include "qm/model/config_validation.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

namespace qm {
namespace config_validation_test {
namespace {

using S = FairSharingStrategy;

std::string ErrorOf(const EngineConfig& config) {
  const absl::Status st = ValidateEngineConfig(config);
  if (st.ok()) return "<ok>";
  CHECK(st.code() == absl::StatusCode::kInvalidArgument);
  return std::string(st.message());
}

EngineConfig WithStrategies(std::vector<S> strategies, bool enabled = true) {
  EngineConfig c;
  c.fair_sharing.enabled = enabled;
  c.fair_sharing.preemption_strategies = std::move(strategies);
  return c;
}

std::string SetError(FeatureGates& g, std::string_view name, bool value) {
  const absl::Status st = g.Set(name, value);
  if (st.ok()) return "<ok>";
  CHECK(st.code() == absl::StatusCode::kInvalidArgument);
  return std::string(st.message());
}

constexpr std::string_view kSupported =
    "supported: [LessThanOrEqualToFinalShare], [LessThanInitialShare], "
    "[LessThanOrEqualToFinalShare, LessThanInitialShare]";

// ---- fairSharing.preemptionStrategies ----------------------------------------------------------

TEST_CASE("Config: the default EngineConfig is valid", "[model][config]") {
  CHECK(ErrorOf(EngineConfig{}) == "<ok>");
  EngineConfig fs;
  fs.fair_sharing.enabled = true;
  CHECK(ErrorOf(fs) == "<ok>");
}

TEST_CASE("Config: Kueue's three strategy lists are valid", "[model][config]") {
  CHECK(ErrorOf(WithStrategies({S::kLessThanOrEqualToFinalShare})) == "<ok>");
  CHECK(ErrorOf(WithStrategies({S::kLessThanInitialShare})) == "<ok>");
  CHECK(ErrorOf(WithStrategies({S::kLessThanOrEqualToFinalShare, S::kLessThanInitialShare})) == "<ok>");
}

TEST_CASE("Config: an empty strategy list with fair sharing enabled", "[model][config]") {
  CHECK(ErrorOf(WithStrategies({})) == "fairSharing.preemptionStrategies: must not be empty");
}

TEST_CASE("Config: an empty strategy list with fair sharing disabled is unused", "[model][config]") {
  CHECK(ErrorOf(WithStrategies({}, /*enabled=*/false)) == "<ok>");
}

TEST_CASE("Config: the strategies in reverse order", "[model][config]") {
  CHECK(ErrorOf(WithStrategies({S::kLessThanInitialShare, S::kLessThanOrEqualToFinalShare})) ==
        "fairSharing.preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare] is not "
        "a supported combination; " + std::string(kSupported));
}

TEST_CASE("Config: a repeated strategy", "[model][config]") {
  CHECK(ErrorOf(WithStrategies({S::kLessThanInitialShare, S::kLessThanInitialShare})) ==
        "fairSharing.preemptionStrategies: [LessThanInitialShare, LessThanInitialShare] is not a "
        "supported combination; " + std::string(kSupported));
}

TEST_CASE("Config: an invalid combination is rejected even with fair sharing disabled",
          "[model][config]") {
  // Kueue validates the list whenever it is given (validateFairSharing does not look at enable).
  CHECK_THAT(ErrorOf(WithStrategies({S::kLessThanInitialShare, S::kLessThanOrEqualToFinalShare},
                                    /*enabled=*/false)),
             Catch::StartsWith("fairSharing.preemptionStrategies: [LessThanInitialShare, "));
}

TEST_CASE("Config: a strategy value out of the enum's range", "[model][config]") {
  CHECK(ErrorOf(WithStrategies({S::kLessThanInitialShare, static_cast<S>(7)})) ==
        "fairSharing.preemptionStrategies[1]: 7 is not a FairSharingStrategy value");
}

// ---- messageStyle ------------------------------------------------------------------------------

TEST_CASE("Config: a message style out of the enum's range", "[model][config]") {
  EngineConfig c;
  c.message_style = static_cast<MessageStyle>(5);
  CHECK(ErrorOf(c) == "messageStyle: 5 is not a MessageStyle value (Current or Legacy)");
  c.message_style = MessageStyle::kLegacy;
  CHECK(ErrorOf(c) == "<ok>");
}

// ---- features: dependencies --------------------------------------------------------------------

TEST_CASE("Config: a gate enabled while a gate it depends on is disabled", "[model][config]") {
  EngineConfig c;
  REQUIRE(c.features.Set("FlavorFungibility", false).ok());
  CHECK(ErrorOf(c) ==
        "features.FlavorFungibilityPreserveScanProgress: enabled, but it depends on features that "
        "are disabled: [FlavorFungibility]");
  REQUIRE(c.features.Set("FlavorFungibilityPreserveScanProgress", false).ok());
  CHECK(ErrorOf(c) == "<ok>");
}

TEST_CASE("Config: dependencies between gates the engine does not implement", "[model][config]") {
  EngineConfig c;
  REQUIRE(c.features.Set("TopologyAwareScheduling", false).ok());
  // TASFailedNodeReplacement (on by default) depends on TopologyAwareScheduling.
  CHECK(ErrorOf(c) ==
        "features.TASFailedNodeReplacement: enabled, but it depends on features that are disabled: "
        "[TopologyAwareScheduling]");
  REQUIRE(c.features.Set("TopologyAwareScheduling", true).ok());
  REQUIRE(c.features.Set("ElasticJobsViaWorkloadSlices", false).ok());
  REQUIRE(c.features.Set("ElasticJobsViaWorkloadSlicesWithTAS", true).ok());
  CHECK(ErrorOf(c) ==
        "features.ElasticJobsViaWorkloadSlicesWithTAS: enabled, but it depends on features that are "
        "disabled: [ElasticJobsViaWorkloadSlices]");
}

TEST_CASE("Config: FindConfigError gives the field and the message apart", "[model][config]") {
  const std::optional<ConfigFieldError> e = FindConfigError(WithStrategies({}));
  REQUIRE(e.has_value());
  CHECK(e->field == "fairSharing.preemptionStrategies");
  CHECK(e->message == "must not be empty");
  CHECK_FALSE(FindConfigError(EngineConfig{}).has_value());
}

// ---- FeatureGates::Set and the gate table ------------------------------------------------------

TEST_CASE("Feature gates: implemented gates take both values", "[model][config][features]") {
  FeatureGates g;
  CHECK(SetError(g, "PartialAdmission", false) == "<ok>");
  CHECK_FALSE(g.partial_admission);
  CHECK(SetError(g, "PrioritizePreemptorWorkloads", true) == "<ok>");
  CHECK(g.prioritize_preemptor_workloads);
  CHECK(SetError(g, "FairSharingReevaluatePreemptionCandidates", true) == "<ok>");
  CHECK(g.fair_sharing_reevaluate_preemption_candidates);
  CHECK(g.Enabled("FairSharingReevaluatePreemptionCandidates"));
}

TEST_CASE("Feature gates: gates without effect on decisions take both values",
          "[model][config][features]") {
  FeatureGates g;
  for (const bool v : {false, true}) {
    CHECK(SetError(g, "TopologyAwareScheduling", v) == "<ok>");
    CHECK(g.Enabled("TopologyAwareScheduling") == v);
    CHECK(SetError(g, "MultiKueue", v) == "<ok>");
    CHECK(SetError(g, "LocalQueueMetrics", v) == "<ok>");
    CHECK(SetError(g, "AdmissionFairSharing", v) == "<ok>");
  }
}

TEST_CASE("Feature gates: a value whose behaviour is not implemented", "[model][config][features]") {
  FeatureGates g;
  CHECK(SetError(g, "PriorityBoost", false) == "<ok>");
  CHECK_THAT(SetError(g, "PriorityBoost", true),
             Catch::StartsWith("feature gate PriorityBoost=true is not supported: "));
  CHECK_THAT(SetError(g, "ConcurrentAdmission", true),
             Catch::StartsWith("feature gate ConcurrentAdmission=true is not supported: "));
  CHECK_FALSE(g.Enabled("PriorityBoost"));
}

TEST_CASE("Feature gates: ReclaimablePods, UnadmittedWorkloadsExplicitStatus and DisableWaitForPodsReady take both values",
          "[model][config][features]") {
  // docs/semantics.md §1.7.1, §8.1, §1.7.2: each is a FeatureGates field with an effect.
  FeatureGates g;
  CHECK(g.reclaimable_pods);
  CHECK_FALSE(g.unadmitted_workloads_explicit_status);
  CHECK_FALSE(g.disable_wait_for_pods_ready);
  CHECK(SetError(g, "ReclaimablePods", false) == "<ok>");
  CHECK(SetError(g, "UnadmittedWorkloadsExplicitStatus", true) == "<ok>");
  CHECK(SetError(g, "DisableWaitForPodsReady", true) == "<ok>");
  CHECK_FALSE(g.reclaimable_pods);
  CHECK(g.unadmitted_workloads_explicit_status);
  CHECK(g.disable_wait_for_pods_ready);
  CHECK_FALSE(g.Enabled("ReclaimablePods"));
  CHECK(g.Enabled("UnadmittedWorkloadsExplicitStatus"));
  CHECK(g.Validate().ok());  // UnadmittedWorkloadsObservability, its dependency, is on
  CHECK(SetError(g, "ReclaimablePods", true) == "<ok>");
  CHECK(g.reclaimable_pods);
}

TEST_CASE("Feature gates: a gate Kueue locks to its default", "[model][config][features]") {
  FeatureGates g;
  CHECK(SetError(g, "TLSOptions", true) == "<ok>");
  CHECK(SetError(g, "TLSOptions", false) ==
        "cannot set feature gate TLSOptions to false, feature is locked to true");
}

TEST_CASE("Feature gates: an unknown name", "[model][config][features]") {
  FeatureGates g;
  CHECK(SetError(g, "PartialAdmision", true) == "unknown feature gate 'PartialAdmision'");
  CHECK_FALSE(g.Enabled("PartialAdmision"));
}

TEST_CASE("Feature gates: the table is consistent", "[model][config][features]") {
  const FeatureGates defaults;
  std::set<std::string_view> names;
  for (const FeatureGateInfo& info : FeatureGateTable()) {
    INFO(info.name);
    CHECK(names.insert(info.name).second);
    CHECK((info.field != nullptr) == (info.support == GateSupport::kImplemented));
    // Every gate starts at Kueue's default, and its default is always accepted.
    CHECK(defaults.Enabled(info.name) == info.kueue_default);
    FeatureGates g;
    CHECK(g.Set(info.name, info.kueue_default).ok());
    if (info.support == GateSupport::kOnlyValue) CHECK(info.supported_value == info.kueue_default);
  }
  CHECK(names.size() == 86);
  for (const FeatureGateDependency& d : FeatureGateDependencies()) {
    CHECK(names.contains(d.gate));
    for (std::string_view need : d.needs) CHECK((need.empty() || names.contains(need)));
  }
}

}  // namespace
}  // namespace config_validation_test
}  // namespace qm
