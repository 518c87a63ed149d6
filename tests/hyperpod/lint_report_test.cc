// LintDocuments and FormatLintReport: the docs/hyperpod.md §7 errors (reader, conflicts between files, `Validate`)
// and warnings (`Lint`) of docs/hyperpod.md, one line each, the summary, and the exit status of
// `qm hyperpod lint`.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qm/hyperpod/policy_reader.h"
#include "qm/hyperpod/render.h"

namespace qm::hyperpod {
namespace lint_report_test {
namespace {

// One input file each: (name, text).
LintReport LintTexts(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<absl::StatusOr<PolicyDocument>> docs;
  for (const auto& [name, text] : files) docs.push_back(ReadPolicyString(text, name));
  return LintDocuments(docs);
}

// S4 option 2 (docs/hyperpod.md §7): 2 + 8 GPUs of quota on 2 × ml.g5.12xlarge (8 GPUs), and a
// Lend allocation that gives a BorrowLimit.
constexpr std::string_view kOverCapacity = R"(kind: HyperPodCluster
metadata: {name: s4-option-2}
instances: {ml.g5.12xlarge: 2}
---
kind: ClusterSchedulerConfig
metadata: {name: ranking}
schedulerConfig: {FairShare: Enabled}
---
kind: ComputeQuota
metadata: {name: team-a-quota}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g5.12xlarge, Accelerators: 2}]
  ResourceSharingConfig: {Strategy: LendAndBorrow, BorrowLimit: 100}
computeQuotaTarget: {TeamName: team-a, FairShareWeight: 50}
---
kind: ComputeQuota
metadata: {name: team-b-quota}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g5.12xlarge, Count: 2}]
  ResourceSharingConfig: {Strategy: Lend, BorrowLimit: 100}
computeQuotaTarget: {TeamName: team-b, FairShareWeight: 50}
)";

constexpr std::string_view kTeamA = R"(kind: ComputeQuota
metadata: {name: team-a-quota}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g5.8xlarge, Count: 2}]
computeQuotaTarget: {TeamName: team-a}
)";

TEST_CASE("LintDocuments: a valid policy set gives warnings only and exit status 0",
          "[hyperpod][lint]") {
  SECTION("quota above the inventory, per resource, and an ignored BorrowLimit") {
    // Setup: S4 option 2. Expect: gpu 10 > 8, cpu 120 > 96, memory 480Gi > 384Gi, efa 3 > 2
    // (team-a's 2 GPUs touch one instance: 1 EFA), then the BorrowLimit Lend ignores; no errors.
    const LintReport report = LintTexts({{"cluster.yaml", std::string(kOverCapacity)}});
    CHECK(report.ExitCode() == 0);
    CHECK(FormatLintReport(report) ==
          "warning: cluster.yaml:1: ml.g5.12xlarge nvidia.com/gpu: the teams' quotas add up to 10, "
          "above the 8 of the cluster's 2 nodes (HyperPodCluster/s4-option-2)\n"
          "warning: cluster.yaml:1: ml.g5.12xlarge cpu: the teams' quotas add up to 120, above the "
          "96 of the cluster's 2 nodes (HyperPodCluster/s4-option-2)\n"
          "warning: cluster.yaml:1: ml.g5.12xlarge memory: the teams' quotas add up to 480Gi, "
          "above the 384Gi of the cluster's 2 nodes (HyperPodCluster/s4-option-2)\n"
          "warning: cluster.yaml:1: ml.g5.12xlarge vpc.amazonaws.com/efa: the teams' quotas add up "
          "to 3, above the 2 of the cluster's 2 nodes (HyperPodCluster/s4-option-2)\n"
          "warning: cluster.yaml:16: ComputeQuota/team-b-quota: ComputeQuotaConfig."
          "ResourceSharingConfig.BorrowLimit is ignored with Strategy Lend\n"
          "0 errors, 5 warnings\n");
  }
  SECTION("a single allocation without inventory or cluster policy") {
    // Setup: one quota file. Expect: the set-wide warnings carry no location.
    const LintReport report = LintTexts({{"team-a.yaml", std::string(kTeamA)}});
    CHECK(report.ExitCode() == 0);
    CHECK(report.errors.empty());
    CHECK(FormatLintReport(report) ==
          "warning: no HyperPodCluster inventory: quotas are not checked against capacity\n"
          "warning: team-a.yaml:1: ComputeQuota/team-a-quota is the only allocation: no borrowing "
          "or cross-team preemption can happen\n"
          "warning: no ClusterSchedulerConfig: the API defaults apply (first-come first-serve task "
          "prioritization, FairShare=Enabled)\n"
          "0 errors, 3 warnings\n");
  }
}

TEST_CASE("LintDocuments: errors name file, line, object and member; exit status 1",
          "[hyperpod][lint]") {
  SECTION("a member out of range") {
    // Setup: BorrowLimit 20000 (the API allows 0–10000). Expect: one error, no warnings even
    // though the set also has a single allocation.
    const LintReport report = LintTexts({{"team-a.yaml", R"(kind: ComputeQuota
metadata: {name: team-a-quota}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g5.8xlarge, Count: 2}]
  ResourceSharingConfig: {Strategy: LendAndBorrow, BorrowLimit: 20000}
computeQuotaTarget: {TeamName: team-a}
)"}});
    CHECK(report.ExitCode() == 1);
    CHECK(report.warnings.empty());
    CHECK(FormatLintReport(report) ==
          "error: team-a.yaml:5: ComputeQuota/team-a-quota: "
          "ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit: 20000 is outside 0–10000\n"
          "1 error, 0 warnings\n");
  }
  SECTION("every file's error, then the cross-file ones") {
    // Setup: a file with an unknown strategy, then two files giving team-a an allocation each.
    // Expect: the reader's error, then Validate's duplicate team (ConflictException), in order.
    const LintReport report = LintTexts({
        {"bad.yaml", R"(kind: ComputeQuota
metadata: {name: bad}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g5.8xlarge, Count: 1}]
  ResourceSharingConfig: {Strategy: Borrow}
computeQuotaTarget: {TeamName: team-c}
)"},
        {"team-a.yaml", std::string(kTeamA)},
        {"team-a-again.yaml", R"(kind: ComputeQuota
metadata: {name: team-a-second}
computeQuotaConfig:
  ComputeQuotaResources: [{InstanceType: ml.g5.8xlarge, Count: 1}]
computeQuotaTarget: {TeamName: team-a}
)"},
    });
    CHECK(report.ExitCode() == 1);
    REQUIRE(report.errors.size() == 2);
    CHECK(report.errors[0].rfind("bad.yaml:5: ComputeQuota/bad: ", 0) == 0);
    CHECK(report.errors[0].find("Strategy") != std::string::npos);
    CHECK(report.errors[1] ==
          "team-a-again.yaml:1: ComputeQuota/team-a-second: ComputeQuotaTarget.TeamName: team "
          "'team-a' already has an allocation, ComputeQuota/team-a-quota at team-a.yaml:1 "
          "(ConflictException)");
    CHECK(FormatLintReport(report).ends_with("\n2 errors, 0 warnings\n"));
  }
  SECTION("two cluster policies in different files") {
    // Setup: the same ClusterSchedulerConfig twice. Expect: the merge conflict naming both files;
    // the first file's policies still count (no "no policy" error).
    const std::string policy =
        "kind: ClusterSchedulerConfig\nmetadata: {name: p}\n"
        "schedulerConfig: {FairShare: Enabled}\n";
    const LintReport report = LintTexts({{"one.yaml", policy}, {"two.yaml", policy}});
    CHECK(report.errors == std::vector<std::string>{
                               "two.yaml:1: ClusterSchedulerConfig/p: a cluster has one cluster "
                               "policy, and one.yaml:1 already defines ClusterSchedulerConfig/p"});
    CHECK(report.ExitCode() == 1);
  }
  SECTION("no policy at all") {
    // Setup: a file of Kueue objects only. Expect: an error, since nothing was checked.
    const LintReport report =
        LintTexts({{"kueue.yaml", "kind: Namespace\napiVersion: v1\nmetadata: {name: team-a}\n"}});
    REQUIRE(report.errors.size() == 1);
    CHECK(report.errors[0].rfind("no HyperPod policy in the input", 0) == 0);
    CHECK(report.ExitCode() == 1);
  }
}

TEST_CASE("FormatLintReport: one line per finding and a counted summary", "[hyperpod][lint]") {
  SECTION("nothing found") {
    CHECK(FormatLintReport({}) == "0 errors, 0 warnings\n");
    CHECK(LintReport{}.ExitCode() == 0);
  }
  SECTION("singular and plural, errors before warnings") {
    LintReport report;
    report.warnings = {{"a.yaml:3", "first"}, {"", "whole set"}};
    report.errors = {"a.yaml:1: ComputeQuota/x: Name: bad"};
    CHECK(FormatLintReport(report) ==
          "error: a.yaml:1: ComputeQuota/x: Name: bad\n"
          "warning: a.yaml:3: first\n"
          "warning: whole set\n"
          "1 error, 2 warnings\n");
    CHECK(report.ExitCode() == 1);
  }
}

}  // namespace
}  // namespace lint_report_test
}  // namespace qm::hyperpod
