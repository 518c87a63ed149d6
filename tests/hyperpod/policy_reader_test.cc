// Reading HyperPod policies (policy_reader.h): every JSON shape of docs/hyperpod.md §9, the YAML
// kinds (structured and `cli:`), the AWS CLI shorthand, and every docs/hyperpod.md §7 validation error, each naming
// file:line, the object, the API member path and the bad value.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "qm/hyperpod/policy_reader.h"
#include "qm/hyperpod/translate.h"
#include "hyperpod/seed_documents.h"

namespace qm::hyperpod {
namespace policy_reader_test {
namespace {

using test::kCompleteDescribe;
using test::kS0Describe;

// ---- Helpers -------------------------------------------------------------------------------------

PolicyDocument Read(std::string_view text, std::string_view file) {
  absl::StatusOr<PolicyDocument> d = ReadPolicyString(text, file);
  INFO(d.status().message());
  REQUIRE(d.ok());
  return *std::move(d);
}

std::string ErrorOf(std::string_view text, std::string_view file) {
  absl::StatusOr<PolicyDocument> d = ReadPolicyString(text, file);
  if (d.ok()) return "<no error>";
  CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(d.status().message());
}

// `text` with the first occurrence of `from` replaced by `to` (which must exist).
std::string With(std::string_view text, std::string_view from, std::string_view to) {
  std::string out(text);
  const size_t at = out.find(from);
  REQUIRE(at != std::string::npos);
  out.replace(at, from.size(), to);
  return out;
}

Decimal Dec(int64_t unscaled, int32_t scale = 0) { return Decimal{.unscaled = unscaled, .scale = scale}; }

// ---- Documents -----------------------------------------------------------------------------------



// ListComputeQuotas: summaries (no Description/FailureReason/CreatedBy/LastModifiedBy) and NextToken.
constexpr std::string_view kList = R"({
  "ComputeQuotaSummaries": [
    {
      "ComputeQuotaArn": "arn:aws:sagemaker:us-west-2:111122223333:compute-quota/q1a2b3c4d5e6",
      "ComputeQuotaId": "q1a2b3c4d5e6",
      "Name": "team-a-quota",
      "ComputeQuotaVersion": 1,
      "Status": "Created",
      "ClusterArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6",
      "ComputeQuotaConfig": {
        "ComputeQuotaResources": [ { "InstanceType": "ml.g5.8xlarge", "Count": 2 } ],
        "ResourceSharingConfig": { "Strategy": "LendAndBorrow", "BorrowLimit": 50 },
        "PreemptTeamTasks": "LowerPriority"
      },
      "ComputeQuotaTarget": { "TeamName": "team-a", "FairShareWeight": 0 },
      "ActivationState": "Enabled",
      "CreationTime": 1738694400.0,
      "LastModifiedTime": "2025-02-04T18:40:00Z"
    },
    {
      "ComputeQuotaArn": "arn:aws:sagemaker:us-west-2:111122223333:compute-quota/q2a2b3c4d5e6",
      "ComputeQuotaId": "q2a2b3c4d5e6",
      "Name": "team-b-quota",
      "ComputeQuotaVersion": 2,
      "Status": "Updated",
      "ComputeQuotaConfig": {
        "ComputeQuotaResources": [ { "InstanceType": "ml.g5.8xlarge", "Count": 2 } ],
        "ResourceSharingConfig": { "Strategy": "DontLend" },
        "PreemptTeamTasks": "Never"
      },
      "ComputeQuotaTarget": { "TeamName": "team-b" },
      "ActivationState": "Disabled",
      "CreationTime": 1738694400
    }
  ],
  "NextToken": "token-1"
}
)";

// A CreateComputeQuota request body.
constexpr std::string_view kCreateQuota = R"({
  "Name": "team-a-quota",
  "Description": "Team A allocation",
  "ClusterArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6",
  "ComputeQuotaConfig": {
    "ComputeQuotaResources": [ { "InstanceType": "ml.g5.8xlarge", "Count": 2 } ],
    "ResourceSharingConfig": { "Strategy": "LendAndBorrow", "BorrowLimit": 50 },
    "PreemptTeamTasks": "LowerPriority"
  },
  "ComputeQuotaTarget": { "TeamName": "team-a", "FairShareWeight": 0 },
  "ActivationState": "Enabled",
  "Tags": [ { "Key": "owner", "Value": "ml-platform" } ]
}
)";

// The complete DescribeClusterSchedulerConfig example of docs/hyperpod.md §9.2.
constexpr std::string_view kDescribeScheduler = R"({
  "ClusterSchedulerConfigArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster-scheduler-config/s1a2b3c4d5e6",
  "ClusterSchedulerConfigId": "s1a2b3c4d5e6",
  "Name": "example-cluster-scheduler-config",
  "ClusterSchedulerConfigVersion": 1,
  "Status": "Created",
  "StatusDetails": { "PriorityClasses": "Created", "FairShare": "Created" },
  "ClusterArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6",
  "SchedulerConfig": {
    "PriorityClasses": [
      { "Name": "inference", "Weight": 90 },
      { "Name": "experimentation", "Weight": 80 },
      { "Name": "fine-tuning", "Weight": 50 },
      { "Name": "training", "Weight": 70 }
    ],
    "FairShare": "Enabled",
    "IdleResourceSharing": "Disabled"
  },
  "Description": "Task ranking with fair-share idle compute",
  "CreationTime": 1738694400.0,
  "CreatedBy": {},
  "LastModifiedTime": 1738694400.0,
  "LastModifiedBy": {}
}
)";

// A CreateClusterSchedulerConfig request body.
constexpr std::string_view kCreateScheduler = R"({
  "Name": "example-cluster-scheduler-config",
  "ClusterArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6",
  "SchedulerConfig": {
    "PriorityClasses": [ { "Name": "inference", "Weight": 90 }, { "Name": "training", "Weight": 70 } ],
    "FairShare": "Disabled",
    "IdleResourceSharing": "Enabled"
  },
  "Description": "FCFS idle compute",
  "Tags": [ { "Key": "owner", "Value": "ml-platform" } ]
}
)";

// A structured ComputeQuota object; each member on its own line (numbers in the comments).
constexpr std::string_view kQuotaYaml =
    "apiVersion: sagemaker.amazonaws.com/v1\n"                                // 1
    "kind: ComputeQuota\n"                                                    // 2
    "metadata: {name: team-a-quota}\n"                                        // 3
    "computeQuotaConfig:\n"                                                   // 4
    "  ComputeQuotaResources:\n"                                              // 5
    "  - {InstanceType: ml.g5.8xlarge, Count: 2}\n"                           // 6
    "  ResourceSharingConfig: {Strategy: LendAndBorrow, BorrowLimit: 50}\n"   // 7
    "  PreemptTeamTasks: LowerPriority\n"                                     // 8
    "computeQuotaTarget: {TeamName: team-a, FairShareWeight: 0}\n"            // 9
    "activationState: Enabled\n";                                             // 10

// A structured ClusterSchedulerConfig object.
constexpr std::string_view kSchedulerYaml =
    "kind: ClusterSchedulerConfig\n"         // 1
    "metadata: {name: policy}\n"             // 2
    "schedulerConfig:\n"                     // 3
    "  PriorityClasses:\n"                   // 4
    "  - {Name: inference, Weight: 90}\n"    // 5
    "  - {Name: training, Weight: 70}\n"     // 6
    "  FairShare: Enabled\n"                 // 7
    "  IdleResourceSharing: Disabled\n";     // 8

std::string QuotaError(std::string_view from, std::string_view to) {
  return ErrorOf(With(kQuotaYaml, from, to), "team-a.yaml");
}
std::string SchedulerError(std::string_view from, std::string_view to) {
  return ErrorOf(With(kSchedulerYaml, from, to), "policy.yaml");
}

// ---- docs/hyperpod.md §9 JSON shapes ------------------------------------------------------------------------------

TEST_CASE("ReadPolicy: the S0 describe-compute-quota output, verbatim", "[hyperpod][reader]") {
  // Expect: declared values only (no derived MemoryInGiB), ISO-8601 timestamps accepted, placeholder
  // ARNs of an output not checked.
  const PolicyDocument d = Read(kS0Describe, "s0.json");
  CHECK(d.notes.empty());
  CHECK_FALSE(d.policies.scheduler.has_value());
  CHECK_FALSE(d.policies.cluster.has_value());
  REQUIRE(d.policies.quotas.size() == 1);
  const ComputeQuotaPolicy& q = d.policies.quotas[0];
  CHECK(q.name == "only-gpu-quota");
  CHECK(q.description == "Only GPU quota allocation");
  CHECK(q.cluster_arn == "arn:aws:sagemaker:<aws_region>:<account_id>:cluster/<cluster_id>");
  CHECK(q.source == "s0.json:1");
  REQUIRE(q.resources.size() == 1);
  CHECK(q.resources[0].instance_type == "ml.g6.12xlarge");
  CHECK_FALSE(q.resources[0].count.has_value());
  CHECK(q.resources[0].accelerators == 2);
  CHECK(q.resources[0].vcpu == Dec(48));  // "48.0": trailing zeros dropped
  CHECK_FALSE(q.resources[0].memory_gib.has_value());
  CHECK_FALSE(q.resources[0].partition.has_value());
  REQUIRE(q.sharing.has_value());
  CHECK(q.sharing->strategy == SharingStrategy::kLendAndBorrow);
  CHECK(q.sharing->borrow_limit == 50);
  CHECK(q.sharing->absolute_borrow_limits.empty());
  CHECK(q.preempt_team_tasks == PreemptTeamTasks::kLowerPriority);
  CHECK(q.team == "onlygputeam");
  CHECK(q.fair_share_weight == 10);
  CHECK(q.enabled);
}

TEST_CASE("ReadPolicy: the complete DescribeComputeQuota example", "[hyperpod][reader]") {
  const PolicyDocument d = Read(kCompleteDescribe, "team-a.json");
  REQUIRE(d.policies.quotas.size() == 1);
  const ComputeQuotaPolicy& q = d.policies.quotas[0];
  CHECK(q.name == "team-a-quota");
  CHECK(q.description == "Team A allocation");
  CHECK(q.cluster_arn == "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6");
  REQUIRE(q.resources.size() == 3);
  CHECK(q.resources[0].instance_type == "ml.p5.48xlarge");
  CHECK(q.resources[0].count == 2);
  CHECK_FALSE(q.resources[0].accelerators.has_value());
  CHECK(q.resources[1].instance_type == "ml.g6.12xlarge");
  CHECK(q.resources[1].accelerators == 2);
  CHECK(q.resources[1].vcpu == Dec(24));
  CHECK(q.resources[1].memory_gib == Dec(96));
  CHECK(q.resources[2].instance_type == "ml.p5en.48xlarge");
  REQUIRE(q.resources[2].partition.has_value());
  CHECK(q.resources[2].partition->type == "mig-1g.18gb");
  CHECK(q.resources[2].partition->count == 4);
  REQUIRE(q.sharing.has_value());
  CHECK(q.sharing->borrow_limit == 100);
  REQUIRE(q.sharing->absolute_borrow_limits.size() == 1);
  CHECK(q.sharing->absolute_borrow_limits[0].instance_type == "ml.p5.48xlarge");
  CHECK(q.sharing->absolute_borrow_limits[0].accelerators == 4);
  CHECK(q.team == "team-a");
  CHECK(q.fair_share_weight == 50);
  CHECK(q.enabled);
}

TEST_CASE("ReadPolicy: ListComputeQuotas output", "[hyperpod][reader]") {
  // Expect: one policy per summary, each sourced at its own line; defaults stay undeclared.
  const PolicyDocument d = Read(kList, "list.json");
  REQUIRE(d.policies.quotas.size() == 2);
  const ComputeQuotaPolicy& a = d.policies.quotas[0];
  const ComputeQuotaPolicy& b = d.policies.quotas[1];
  CHECK(a.name == "team-a-quota");
  CHECK(a.source == "list.json:3");
  CHECK(a.team == "team-a");
  CHECK(a.fair_share_weight == 0);
  CHECK(a.resources.at(0).count == 2);
  CHECK(b.name == "team-b-quota");
  CHECK(b.source == "list.json:20");
  CHECK(b.team == "team-b");
  CHECK_FALSE(b.fair_share_weight.has_value());
  CHECK(b.cluster_arn.empty());
  REQUIRE(b.sharing.has_value());
  CHECK(b.sharing->strategy == SharingStrategy::kDontLend);
  CHECK_FALSE(b.sharing->borrow_limit.has_value());
  CHECK(b.preempt_team_tasks == PreemptTeamTasks::kNever);
  CHECK_FALSE(b.enabled);

  SECTION("a summary has no Description") {
    CHECK(ErrorOf(With(kList, "\"ComputeQuotaVersion\": 2,", "\"ComputeQuotaVersion\": 2, \"Description\": \"x\","),
                  "list.json") ==
          "list.json:24: ComputeQuota/team-b-quota: ComputeQuotaSummaries[1].Description: unknown member (expected one "
          "of ComputeQuotaArn, ComputeQuotaId, Name, ComputeQuotaVersion, Status, ClusterArn, ComputeQuotaConfig, "
          "ComputeQuotaTarget, ActivationState, CreationTime, LastModifiedTime)");
  }
  SECTION("errors inside a summary name its full member path") {
    CHECK(ErrorOf(With(kList, "\"Strategy\": \"DontLend\"", "\"Strategy\": \"Borrow\""), "list.json") ==
          "list.json:28: ComputeQuota/team-b-quota: "
          "ComputeQuotaSummaries[1].ComputeQuotaConfig.ResourceSharingConfig.Strategy: \"Borrow\" is not one of Lend, "
          "DontLend, LendAndBorrow");
  }
  SECTION("an empty list") {
    CHECK(Read("{\"ComputeQuotaSummaries\": []}", "list.json").policies.empty());
  }
}

TEST_CASE("ReadPolicy: a CreateComputeQuota request", "[hyperpod][reader]") {
  const PolicyDocument d = Read(kCreateQuota, "create.json");
  REQUIRE(d.policies.quotas.size() == 1);
  const ComputeQuotaPolicy& q = d.policies.quotas[0];
  CHECK(q.name == "team-a-quota");
  CHECK(q.description == "Team A allocation");
  CHECK(q.cluster_arn == "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6");
  CHECK(q.resources.at(0).instance_type == "ml.g5.8xlarge");
  CHECK(q.resources.at(0).count == 2);
  CHECK(q.team == "team-a");
  CHECK(q.fair_share_weight == 0);
  CHECK(q.enabled);
  CHECK(q.source == "create.json:1");

  SECTION("a request checks the ClusterArn pattern") {
    CHECK(ErrorOf(With(kCreateQuota, "cluster/c1a2b3c4d5e6", "cluster/<cluster_id>"), "create.json") ==
          "create.json:4: ComputeQuota/team-a-quota: ClusterArn: \"arn:aws:sagemaker:us-west-2:111122223333:cluster/"
          "<cluster_id>\" is not a cluster ARN (arn:aws:sagemaker:<region>:<12-digit account>:cluster/<12-character "
          "id>)");
    CHECK(ErrorOf(With(kCreateQuota, "111122223333:cluster", "11112222333:cluster"), "create.json") ==
          "create.json:4: ComputeQuota/team-a-quota: ClusterArn: \"arn:aws:sagemaker:us-west-2:11112222333:cluster/"
          "c1a2b3c4d5e6\" is not a cluster ARN (arn:aws:sagemaker:<region>:<12-digit account>:cluster/<12-character "
          "id>)");
    // Other partitions match `arn:aws[a-z\-]*`.
    CHECK(Read(With(kCreateQuota, "arn:aws:sagemaker:us-west-2", "arn:aws-us-gov:sagemaker:us-gov-west-1"),
               "create.json")
              .policies.quotas.at(0)
              .cluster_arn == "arn:aws-us-gov:sagemaker:us-gov-west-1:111122223333:cluster/c1a2b3c4d5e6");
  }
  SECTION("an unknown top-level member") {
    CHECK(ErrorOf(With(kCreateQuota, "\"Tags\"", "\"Labels\""), "create.json") ==
          "create.json:12: ComputeQuota/team-a-quota: Labels: unknown member (expected one of Name, Description, "
          "ClusterArn, ComputeQuotaConfig, ComputeQuotaTarget, ActivationState, Tags)");
  }
}

TEST_CASE("ReadPolicy: the DescribeClusterSchedulerConfig example", "[hyperpod][reader]") {
  const PolicyDocument d = Read(kDescribeScheduler, "scheduler.json");
  REQUIRE(d.policies.scheduler.has_value());
  CHECK(d.policies.quotas.empty());
  const SchedulerConfigPolicy& sc = *d.policies.scheduler;
  CHECK(sc.name == "example-cluster-scheduler-config");
  CHECK(sc.cluster_arn == "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6");
  REQUIRE(sc.priority_classes.size() == 4);
  CHECK(sc.priority_classes[0].name == "inference");
  CHECK(sc.priority_classes[0].weight == 90);
  CHECK(sc.priority_classes[1].name == "experimentation");
  CHECK(sc.priority_classes[1].weight == 80);
  CHECK(sc.priority_classes[2].name == "fine-tuning");
  CHECK(sc.priority_classes[2].weight == 50);
  CHECK(sc.priority_classes[3].name == "training");
  CHECK(sc.priority_classes[3].weight == 70);
  CHECK(sc.fair_share);
  CHECK_FALSE(sc.idle_resource_sharing);
  CHECK(sc.source == "scheduler.json:1");

  SECTION("a bad Status value") {
    CHECK(ErrorOf(With(kDescribeScheduler, "\"Status\": \"Created\"", "\"Status\": \"Ready\""), "scheduler.json") ==
          "scheduler.json:6: ClusterSchedulerConfig/example-cluster-scheduler-config: Status: \"Ready\" is not one of "
          "Creating, CreateFailed, CreateRollbackFailed, Created, Updating, UpdateFailed, UpdateRollbackFailed, "
          "Updated, Deleting, DeleteFailed, DeleteRollbackFailed, Deleted");
  }
}

TEST_CASE("ReadPolicy: a CreateClusterSchedulerConfig request", "[hyperpod][reader]") {
  const PolicyDocument d = Read(kCreateScheduler, "create-scheduler.json");
  REQUIRE(d.policies.scheduler.has_value());
  const SchedulerConfigPolicy& sc = *d.policies.scheduler;
  CHECK(sc.name == "example-cluster-scheduler-config");
  CHECK(sc.cluster_arn == "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6");
  REQUIRE(sc.priority_classes.size() == 2);
  CHECK(sc.priority_classes[1].name == "training");
  CHECK(sc.priority_classes[1].weight == 70);
  CHECK_FALSE(sc.fair_share);
  CHECK(sc.idle_resource_sharing);

  SECTION("defaults when SchedulerConfig members are absent") {
    const PolicyDocument e = Read(With(kCreateScheduler, R"("PriorityClasses": [ { "Name": "inference", "Weight": 90 }, { "Name": "training", "Weight": 70 } ],
    "FairShare": "Disabled",
    "IdleResourceSharing": "Enabled")",
                                       ""),
                                  "create-scheduler.json");
    REQUIRE(e.policies.scheduler.has_value());
    CHECK(e.policies.scheduler->priority_classes.empty());  // FCFS
    CHECK(e.policies.scheduler->fair_share);                // Enabled
    CHECK_FALSE(e.policies.scheduler->idle_resource_sharing);  // Disabled
  }
}

TEST_CASE("ReadPolicy: timestamps as ISO-8601 text or epoch seconds", "[hyperpod][reader]") {
  // Setup: CreationTime in each form the AWS CLI or the wire uses. Expect: accepted; else an error
  // naming the member and the value.
  for (std::string_view ok : {"\"2025-07-24T11:12:12.021000-07:00\"", "\"2025-07-24T18:12:12Z\"", "1753380732.021",
                              "1753380732", "0", "1.753380732021E9", "1.753380732021e+9", "1753380732.0210001"}) {
    INFO(ok);
    CHECK(ErrorOf(With(kCompleteDescribe, "1753380732.021", ok), "t.json") == "<no error>");
  }
  CHECK(ErrorOf(With(kCompleteDescribe, "1753380732.021", "\"yesterday\""), "t.json") ==
        "t.json:24: ComputeQuota/team-a-quota: CreationTime: \"yesterday\" is neither an ISO-8601 timestamp nor epoch "
        "seconds");
  CHECK(ErrorOf(With(kCompleteDescribe, "1753380732.021", "1.5e"), "t.json") ==
        "t.json:24: ComputeQuota/team-a-quota: CreationTime: \"1.5e\" is neither an ISO-8601 timestamp nor epoch "
        "seconds");
  CHECK(ErrorOf(With(kCompleteDescribe, "1753380945.205", "-5"), "t.json") ==
        "t.json:31: ComputeQuota/team-a-quota: LastModifiedTime: \"-5\" is neither an ISO-8601 timestamp nor epoch "
        "seconds");
  CHECK(ErrorOf(With(kDescribeScheduler, "\"LastModifiedTime\": 1738694400.0", "\"LastModifiedTime\": \"2025-13-01\""),
                "s.json") ==
        "s.json:22: ClusterSchedulerConfig/example-cluster-scheduler-config: LastModifiedTime: \"2025-13-01\" is "
        "neither an ISO-8601 timestamp nor epoch seconds");
}

TEST_CASE("ReadPolicy: a document that is no HyperPod policy", "[hyperpod][reader]") {
  CHECK(ErrorOf("{\"Foo\": 1}", "x.json") ==
        "x.json:1: not a HyperPod policy: expected a DescribeComputeQuota, ListComputeQuotas, CreateComputeQuota, "
        "DescribeClusterSchedulerConfig or CreateClusterSchedulerConfig document, or objects of kind "
        "ClusterSchedulerConfig, ComputeQuota, HyperPodCluster");
  CHECK(ErrorOf("just text\n", "x.yaml") == "x.yaml:1: expected a HyperPod policy (a map), got the value \"just text\"");
  CHECK(ErrorOf("{\"Name\": [1,\n", "x.json").starts_with("x.json:"));
}

// ---- YAML kinds ----------------------------------------------------------------------------------

TEST_CASE("ReadPolicy: YAML kinds with structured members", "[hyperpod][reader]") {
  const PolicyDocument q = Read(kQuotaYaml, "team-a.yaml");
  REQUIRE(q.policies.quotas.size() == 1);
  CHECK(q.policies.quotas[0].name == "team-a-quota");
  CHECK(q.policies.quotas[0].team == "team-a");
  CHECK(q.policies.quotas[0].source == "team-a.yaml:1");
  CHECK(q.policies.quotas[0].resources.at(0).count == 2);
  CHECK(q.policies.quotas[0].sharing->borrow_limit == 50);

  const PolicyDocument s = Read(kSchedulerYaml, "policy.yaml");
  REQUIRE(s.policies.scheduler.has_value());
  CHECK(s.policies.scheduler->name == "policy");
  CHECK(s.policies.scheduler->priority_classes.size() == 2);
  CHECK(s.policies.scheduler->source == "policy.yaml:1");

  const PolicyDocument c = Read("kind: HyperPodCluster\nmetadata: {name: prod}\n"
                                "instances: {ml.p5.48xlarge: 2, ml.g5.8xlarge: 4}\n",
                                "cluster.yaml");
  REQUIRE(c.policies.cluster.has_value());
  CHECK(c.policies.cluster->name == "prod");
  // Sorted by instance type.
  CHECK(c.policies.cluster->instances ==
        std::vector<std::pair<std::string, int64_t>>{{"ml.g5.8xlarge", 4}, {"ml.p5.48xlarge", 2}});
}

TEST_CASE("ReadPolicy: YAML kinds with cli: shorthand", "[hyperpod][reader]") {
  const PolicyDocument d = Read(R"(kind: ClusterSchedulerConfig
metadata: {name: example-cluster-scheduler-config}
cli: "PriorityClasses=[{Name=inference,Weight=90},{Name=training,Weight=70}],FairShare=Enabled"
---
kind: ComputeQuota
metadata: {name: team-a-quota-allocation}
description: Team A
cli:
  computeQuotaConfig: "ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count=2}],ResourceSharingConfig={Strategy=LendAndBorrow,BorrowLimit=50},PreemptTeamTasks=LowerPriority"
  computeQuotaTarget: "TeamName=team-a,FairShareWeight=0"
  activationState: Disabled
)",
                                "cli.yaml");
  REQUIRE(d.policies.scheduler.has_value());
  CHECK(d.policies.scheduler->priority_classes.size() == 2);
  CHECK(d.policies.scheduler->priority_classes[0].name == "inference");
  CHECK(d.policies.scheduler->priority_classes[0].weight == 90);
  CHECK(d.policies.scheduler->fair_share);
  REQUIRE(d.policies.quotas.size() == 1);
  const ComputeQuotaPolicy& q = d.policies.quotas[0];
  CHECK(q.name == "team-a-quota-allocation");
  CHECK(q.description == "Team A");
  CHECK(q.source == "cli.yaml:5");
  CHECK(q.resources.at(0).instance_type == "ml.g5.8xlarge");
  CHECK(q.resources.at(0).count == 2);
  CHECK(q.sharing->strategy == SharingStrategy::kLendAndBorrow);
  CHECK(q.sharing->borrow_limit == 50);
  CHECK(q.team == "team-a");
  CHECK(q.fair_share_weight == 0);
  CHECK_FALSE(q.enabled);

  SECTION("an error inside cli: shorthand names the YAML line and the API member") {
    CHECK(ErrorOf(R"(kind: ComputeQuota
metadata: {name: team-a-quota}
cli:
  computeQuotaConfig: "ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count=2}],ResourceSharingConfig={Strategy=LendAndBorrow,BorrowLimit=20000}"
  computeQuotaTarget: "TeamName=team-a"
)",
                  "team-a.yaml") ==
          "team-a.yaml:4: ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit: 20000 is "
          "outside 0–10000");
  }
  SECTION("malformed cli: shorthand names the character") {
    CHECK(ErrorOf(R"(kind: ComputeQuota
metadata: {name: team-a-quota}
cli:
  computeQuotaConfig: "ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count}]"
  computeQuotaTarget: "TeamName=team-a"
)",
                  "team-a.yaml") ==
          "team-a.yaml:4: ComputeQuota/team-a-quota: cli.computeQuotaConfig: not AWS CLI shorthand: expected '=' "
          "after \"Count\" at character 57");
  }
  SECTION("cli: together with structured members") {
    CHECK(ErrorOf("kind: ClusterSchedulerConfig\nmetadata: {name: p}\ncli: \"FairShare=Enabled\"\n"
                  "schedulerConfig: {FairShare: Enabled}\n",
                  "p.yaml") == "p.yaml:3: ClusterSchedulerConfig/p: cli: give either schedulerConfig or cli, not both");
    CHECK(ErrorOf(With(kQuotaYaml, "activationState: Enabled\n",
                       "cli: {computeQuotaConfig: \"PreemptTeamTasks=Never\", computeQuotaTarget: \"TeamName=a\"}\n"),
                  "team-a.yaml") ==
          "team-a.yaml:4: ComputeQuota/team-a-quota: computeQuotaConfig: give it inside cli, or drop cli");
  }
}

TEST_CASE("ReadPolicy: multi-document streams, lists, kind: List and scenario files", "[hyperpod][reader]") {
  const std::string cluster = "kind: HyperPodCluster\nmetadata: {name: prod}\ninstances: {ml.g5.8xlarge: 4}\n";
  SECTION("documents separated by ---, with foreign kinds skipped") {
    const PolicyDocument d = Read(std::string(kSchedulerYaml) + "---\n" + std::string(kQuotaYaml) + "---\n" + cluster +
                                      "---\nkind: Workload\nmetadata: {name: job, namespace: hyperpod-ns-team-a}\n",
                                  "all.yaml");
    CHECK(d.policies.scheduler.has_value());
    REQUIRE(d.policies.quotas.size() == 1);
    CHECK(d.policies.quotas[0].source == "all.yaml:10");
    CHECK(d.policies.cluster.has_value());
    CHECK(d.notes == std::vector<std::string>{
                         "all.yaml:25: skipped Workload/hyperpod-ns-team-a/job (not a HyperPod policy)"});
  }
  SECTION("a YAML list of objects") {
    const PolicyDocument d =
        Read("- kind: ComputeQuota\n  metadata: {name: a-quota}\n  computeQuotaConfig: {PreemptTeamTasks: Never}\n"
             "  computeQuotaTarget: {TeamName: team-a}\n"
             "- kind: ComputeQuota\n  metadata: {name: b-quota}\n  computeQuotaConfig: {}\n"
             "  computeQuotaTarget: {TeamName: team-b}\n",
             "list.yaml");
    REQUIRE(d.policies.quotas.size() == 2);
    CHECK(d.policies.quotas[0].team == "team-a");
    CHECK(d.policies.quotas[0].preempt_team_tasks == PreemptTeamTasks::kNever);
    CHECK(d.policies.quotas[1].team == "team-b");
    CHECK(d.policies.quotas[1].source == "list.yaml:5");
  }
  SECTION("kind: List with items") {
    const PolicyDocument d = Read("apiVersion: v1\nkind: List\nitems:\n- kind: HyperPodCluster\n"
                                  "  metadata: {name: prod}\n  instances: {ml.g5.8xlarge: 4}\n",
                                  "list.yaml");
    REQUIRE(d.policies.cluster.has_value());
    CHECK(d.policies.cluster->source == "list.yaml:4");
  }
  SECTION("a scenario file's objects") {
    const PolicyDocument d = Read("name: t\nobjects:\n- kind: HyperPodCluster\n  metadata: {name: prod}\n"
                                  "  instances: {ml.g5.8xlarge: 4}\nsteps: []\n",
                                  "scenario.yaml");
    REQUIRE(d.policies.cluster.has_value());
    CHECK(d.policies.cluster->instances.size() == 1);
  }
  SECTION("JSON documents in a YAML stream") {
    const PolicyDocument d = Read(std::string(kS0Describe) + "---\n" + std::string(kCreateQuota), "two.yaml");
    REQUIRE(d.policies.quotas.size() == 2);
    CHECK(d.policies.quotas[0].team == "onlygputeam");
    CHECK(d.policies.quotas[1].team == "team-a");
  }
  SECTION("a second cluster policy names both sources") {
    CHECK(ErrorOf(std::string(kSchedulerYaml) + "---\n" + std::string(kSchedulerYaml), "two.yaml") ==
          "two.yaml:10: ClusterSchedulerConfig/policy: a cluster has one cluster policy, and two.yaml:1 already "
          "defines ClusterSchedulerConfig/policy");
  }
  SECTION("a second HyperPodCluster names both sources") {
    CHECK(ErrorOf(cluster + "---\n" + cluster, "two.yaml") ==
          "two.yaml:5: HyperPodCluster/prod: only one HyperPodCluster may be given (two.yaml:1 defines "
          "HyperPodCluster/prod)");
  }
  SECTION("MergePolicies: quotas are appended, duplicates left for Validate") {
    PolicySet into = Read(kQuotaYaml, "a.yaml").policies;
    PolicySet more = Read(kQuotaYaml, "b.yaml").policies;
    REQUIRE(MergePolicies(into, std::move(more)).ok());
    CHECK(into.quotas.size() == 2);
  }
  SECTION("MergePolicies: a conflict leaves the target as it was") {
    // Setup: `into` has an inventory; `more` brings a cluster policy, a quota and a second
    // inventory. Expect: the inventory conflict is reported and neither the policy nor the quota
    // was moved in.
    PolicySet into = Read(cluster, "a.yaml").policies;
    PolicySet more = Read(std::string(kSchedulerYaml) + "---\n" + cluster + "---\n" + std::string(kQuotaYaml),
                          "b.yaml").policies;
    REQUIRE(more.scheduler.has_value());
    const absl::Status st = MergePolicies(into, std::move(more));
    CHECK(st.code() == absl::StatusCode::kInvalidArgument);
    CHECK_FALSE(into.scheduler.has_value());
    CHECK(into.quotas.empty());
    CHECK(into.cluster->source == "a.yaml:1");
  }
}

TEST_CASE("ReadPolicy: ReadPolicyFile reads a file and names it in sources", "[hyperpod][reader]") {
  SECTION("a missing file") {
    const absl::StatusOr<PolicyDocument> d = ReadPolicyFile("/nonexistent/qm/quota.json");
    REQUIRE_FALSE(d.ok());
    CHECK(d.status().code() == absl::StatusCode::kNotFound);
  }
  SECTION("a file on disk") {
    // Setup: the S0 describe output written to a temporary file. Expect: sources name the path.
    const std::string path =
        (std::filesystem::temp_directory_path() / "qm-hyperpod-policy-reader-test-s0.json").string();
    {
      std::ofstream out(path);
      out << kS0Describe;
    }
    const absl::StatusOr<PolicyDocument> d = ReadPolicyFile(path);
    std::filesystem::remove(path);
    INFO(d.status().message());
    REQUIRE(d.ok());
    REQUIRE(d->policies.quotas.size() == 1);
    CHECK(d->policies.quotas[0].source == path + ":1");
    CHECK(d->policies.quotas[0].team == "onlygputeam");
  }
}

TEST_CASE("ReadPolicy: HyperPodCluster errors", "[hyperpod][reader]") {
  CHECK(ErrorOf("kind: HyperPodCluster\nmetadata: {name: prod}\ninstances: {ml.g5.9xlarge: 4}\n", "c.yaml") ==
        "c.yaml:3: HyperPodCluster/prod: instances[ml.g5.9xlarge]: \"ml.g5.9xlarge\" is not an instance type of the "
        "catalogue");
  CHECK(ErrorOf("kind: HyperPodCluster\nmetadata: {name: prod}\ninstances: {ml.g5.8xlarge: -1}\n", "c.yaml") ==
        "c.yaml:3: HyperPodCluster/prod: instances[ml.g5.8xlarge]: -1 is outside 0–10000000");
  CHECK(ErrorOf("kind: HyperPodCluster\nmetadata: {name: prod}\ninstances: [ml.g5.8xlarge]\n", "c.yaml") ==
        "c.yaml:3: HyperPodCluster/prod: instances: expected a map instance type → node count, got a list");
  CHECK(ErrorOf("kind: HyperPodCluster\nmetadata: {name: prod}\n", "c.yaml") ==
        "c.yaml:1: HyperPodCluster/prod: instances: is required");
}

TEST_CASE("ReadPolicy: object envelope errors", "[hyperpod][reader]") {
  CHECK(ErrorOf(With(kQuotaYaml, "sagemaker.amazonaws.com/v1", "sagemaker.amazonaws.com/v2"), "team-a.yaml") ==
        "team-a.yaml:1: ComputeQuota: apiVersion: \"sagemaker.amazonaws.com/v2\" is not an API version of "
        "ComputeQuota (expected sagemaker.amazonaws.com/v1)");
  CHECK(ErrorOf(With(kQuotaYaml, "metadata: {name: team-a-quota}\n", ""), "team-a.yaml") ==
        "team-a.yaml:1: ComputeQuota: metadata: is required");
  CHECK(ErrorOf(With(kQuotaYaml, "metadata: {name: team-a-quota}\n", "metadata: {labels: {}}\n"), "team-a.yaml") ==
        "team-a.yaml:3: ComputeQuota: metadata.name: is required");
  CHECK(ErrorOf(With(kQuotaYaml, "activationState", "activation"), "team-a.yaml") ==
        "team-a.yaml:10: ComputeQuota/team-a-quota: activation: unknown member (expected one of apiVersion, kind, "
        "metadata, computeQuotaConfig, computeQuotaTarget, activationState, description, clusterArn, cli)");
  CHECK(SchedulerError("schedulerConfig:\n", "schedulerConfigs:\n") ==
        "policy.yaml:3: ClusterSchedulerConfig/policy: schedulerConfigs: unknown member (expected one of apiVersion, "
        "kind, metadata, schedulerConfig, cli, clusterArn, description)");
}

// ---- Shorthand (docs/hyperpod.md §9.3) ----------------------------------------------------------------------------

TEST_CASE("Shorthand: the section 9.3 commands", "[hyperpod][reader][shorthand]") {
  const absl::StatusOr<ComputeQuotaPolicy> q = ParseComputeQuotaShorthand(
      "team-a-quota",
      "ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count=2}],ResourceSharingConfig={Strategy=LendAndBorrow,"
      "BorrowLimit=50},PreemptTeamTasks=LowerPriority",
      "TeamName=team-a,FairShareWeight=0", "Enabled");
  INFO(q.status().message());
  REQUIRE(q.ok());
  CHECK(q->name == "team-a-quota");
  REQUIRE(q->resources.size() == 1);
  CHECK(q->resources[0].instance_type == "ml.g5.8xlarge");
  CHECK(q->resources[0].count == 2);
  CHECK(q->sharing->strategy == SharingStrategy::kLendAndBorrow);
  CHECK(q->sharing->borrow_limit == 50);
  CHECK(q->preempt_team_tasks == PreemptTeamTasks::kLowerPriority);
  CHECK(q->team == "team-a");
  CHECK(q->fair_share_weight == 0);
  CHECK(q->enabled);

  const absl::StatusOr<SchedulerConfigPolicy> sc = ParseSchedulerConfigShorthand(
      "PriorityClasses=[{Name=inference,Weight=90},{Name=training,Weight=70}],FairShare=Enabled");
  INFO(sc.status().message());
  REQUIRE(sc.ok());
  REQUIRE(sc->priority_classes.size() == 2);
  CHECK(sc->priority_classes[0].name == "inference");
  CHECK(sc->priority_classes[0].weight == 90);
  CHECK(sc->priority_classes[1].name == "training");
  CHECK(sc->priority_classes[1].weight == 70);
  CHECK(sc->fair_share);
  CHECK_FALSE(sc->idle_resource_sharing);
}

TEST_CASE("Shorthand: S0 CLI example, floats, quotes, spaces and an empty list", "[hyperpod][reader][shorthand]") {
  // The S0 blog's CLI (mixed example): numbers typed by member (VCpu float, Count int).
  const absl::StatusOr<ComputeQuotaPolicy> q = ParseComputeQuotaShorthand(
      "only-gpu-quota",
      "ComputeQuotaResources=[{InstanceType=ml.g6.12xlarge, Accelerators=2}, {InstanceType=ml.p5.48xlarge,Count=3},"
      "{InstanceType=\"ml.c5.2xlarge\",VCpu=2.5, MemoryInGiB='4'}],"
      "ResourceSharingConfig={Strategy=LendAndBorrow,BorrowLimit=10,AbsoluteBorrowLimits=[]}",
      "TeamName=onlygputeam2");
  INFO(q.status().message());
  REQUIRE(q.ok());
  REQUIRE(q->resources.size() == 3);
  CHECK(q->resources[0].accelerators == 2);
  CHECK(q->resources[1].count == 3);
  CHECK(q->resources[2].instance_type == "ml.c5.2xlarge");
  CHECK(q->resources[2].vcpu == Dec(25, 1));
  CHECK(q->resources[2].memory_gib == Dec(4));
  CHECK(q->sharing->borrow_limit == 10);
  CHECK(q->sharing->absolute_borrow_limits.empty());
  CHECK_FALSE(q->fair_share_weight.has_value());
  CHECK(q->enabled);  // empty activation state = Enabled
}

TEST_CASE("Shorthand: malformed text names the character", "[hyperpod][reader][shorthand]") {
  auto config_error = [](std::string_view config) {
    const absl::StatusOr<ComputeQuotaPolicy> q = ParseComputeQuotaShorthand("team-a-quota", config, "TeamName=team-a");
    return q.ok() ? std::string("<no error>") : std::string(q.status().message());
  };
  CHECK(config_error("ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count}]") ==
        "ComputeQuota/team-a-quota: ComputeQuotaConfig: not AWS CLI shorthand: expected '=' after \"Count\" at "
        "character 57");
  CHECK(config_error("ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count=2}") ==
        "ComputeQuota/team-a-quota: ComputeQuotaConfig: not AWS CLI shorthand: expected ',' or ']' at character 60");
  CHECK(config_error("ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count=2]") ==
        "ComputeQuota/team-a-quota: ComputeQuotaConfig: not AWS CLI shorthand: expected ',' or '}' at character 59");
  CHECK(config_error("PreemptTeamTasks=Never}") ==
        "ComputeQuota/team-a-quota: ComputeQuotaConfig: not AWS CLI shorthand: unexpected '}' at character 23");
  CHECK(config_error("PreemptTeamTasks=") ==
        "ComputeQuota/team-a-quota: ComputeQuotaConfig: not AWS CLI shorthand: expected a value at character 18");
  CHECK(config_error("=Never") ==
        "ComputeQuota/team-a-quota: ComputeQuotaConfig: not AWS CLI shorthand: expected a member name at character 1");
  CHECK(config_error("PreemptTeamTasks=Never,PreemptTeamTasks=Never") ==
        "ComputeQuota/team-a-quota: ComputeQuotaConfig: not AWS CLI shorthand: \"PreemptTeamTasks\" is given twice at "
        "character 46");
  CHECK(config_error("ComputeQuotaResources=[{InstanceType='ml.g5.8xlarge}]") ==
        "ComputeQuota/team-a-quota: ComputeQuotaConfig: not AWS CLI shorthand: unterminated ' at character 39");
  CHECK(config_error("PreemptTeamTasks=Nev=er") ==
        "ComputeQuota/team-a-quota: ComputeQuotaConfig: not AWS CLI shorthand: unexpected '=' in a value at "
        "character 21");

  const absl::StatusOr<ComputeQuotaPolicy> bad_target = ParseComputeQuotaShorthand("q", "", "TeamName");
  REQUIRE_FALSE(bad_target.ok());
  CHECK(std::string(bad_target.status().message()) == "ComputeQuota/q: ComputeQuotaConfig: not AWS CLI shorthand: "
                                                      "expected a member name at character 1");
  const absl::StatusOr<ComputeQuotaPolicy> bad_target2 =
      ParseComputeQuotaShorthand("q", "PreemptTeamTasks=Never", "TeamName");
  REQUIRE_FALSE(bad_target2.ok());
  CHECK(std::string(bad_target2.status().message()) ==
        "ComputeQuota/q: ComputeQuotaTarget: not AWS CLI shorthand: expected '=' after \"TeamName\" at character 9");
  const absl::StatusOr<SchedulerConfigPolicy> sc = ParseSchedulerConfigShorthand("PriorityClasses=[{Name=a,Weight=1}");
  REQUIRE_FALSE(sc.ok());
  CHECK(std::string(sc.status().message()) ==
        "ClusterSchedulerConfig: SchedulerConfig: not AWS CLI shorthand: expected ',' or ']' at character 35");
}

TEST_CASE("Shorthand: member errors name the object and the API path", "[hyperpod][reader][shorthand]") {
  const absl::StatusOr<SchedulerConfigPolicy> sc =
      ParseSchedulerConfigShorthand("PriorityClasses=[{Name=inference,Weight=101}]");
  REQUIRE_FALSE(sc.ok());
  CHECK(std::string(sc.status().message()) ==
        "ClusterSchedulerConfig: SchedulerConfig.PriorityClasses[0].Weight: 101 is outside 0–100");
  const absl::StatusOr<ComputeQuotaPolicy> q =
      ParseComputeQuotaShorthand("team-a-quota", "ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count=abc}]",
                                 "TeamName=team-a");
  REQUIRE_FALSE(q.ok());
  CHECK(std::string(q.status().message()) ==
        "ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].Count: \"abc\" is not an integer");
  const absl::StatusOr<ComputeQuotaPolicy> state =
      ParseComputeQuotaShorthand("team-a-quota", "PreemptTeamTasks=Never", "TeamName=team-a", "On");
  REQUIRE_FALSE(state.ok());
  CHECK(std::string(state.status().message()) ==
        "ComputeQuota/team-a-quota: ActivationState: \"On\" is not one of Enabled, Disabled");
  const absl::StatusOr<ComputeQuotaPolicy> name =
      ParseComputeQuotaShorthand("team_a", "PreemptTeamTasks=Never", "TeamName=team-a");
  REQUIRE_FALSE(name.ok());
  CHECK(std::string(name.status().message()) ==
        "ComputeQuota/team_a: Name: \"team_a\" must be 1–63 letters, digits or '-', starting and ending with a letter "
        "or digit");
}

// ---- docs/hyperpod.md §7 validation errors: one test each -----------------------------------------------------------

TEST_CASE("Policy error: PriorityClass Weight outside 0-100", "[hyperpod][reader][errors]") {
  CHECK(SchedulerError("Weight: 90", "Weight: 101") ==
        "policy.yaml:5: ClusterSchedulerConfig/policy: SchedulerConfig.PriorityClasses[0].Weight: 101 is outside 0–100");
  CHECK(SchedulerError("Weight: 70", "Weight: -1") ==
        "policy.yaml:6: ClusterSchedulerConfig/policy: SchedulerConfig.PriorityClasses[1].Weight: -1 is outside 0–100");
  CHECK(SchedulerError("Weight: 70", "Weight: 7.5") ==
        "policy.yaml:6: ClusterSchedulerConfig/policy: SchedulerConfig.PriorityClasses[1].Weight: \"7.5\" is not an "
        "integer");
  // The bounds themselves are fine.
  CHECK(SchedulerError("Weight: 70", "Weight: 0") == "<no error>");
  CHECK(SchedulerError("Weight: 70", "Weight: 100") == "<no error>");
}

TEST_CASE("Policy error: FairShareWeight outside 0-100", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("FairShareWeight: 0", "FairShareWeight: -1") ==
        "team-a.yaml:9: ComputeQuota/team-a-quota: ComputeQuotaTarget.FairShareWeight: -1 is outside 0–100");
  CHECK(QuotaError("FairShareWeight: 0", "FairShareWeight: 101") ==
        "team-a.yaml:9: ComputeQuota/team-a-quota: ComputeQuotaTarget.FairShareWeight: 101 is outside 0–100");
  CHECK(QuotaError("FairShareWeight: 0", "FairShareWeight: 100") == "<no error>");
}

TEST_CASE("Policy error: BorrowLimit outside 0-10000", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("BorrowLimit: 50", "BorrowLimit: 20000") ==
        "team-a.yaml:7: ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit: 20000 is "
        "outside 0–10000");
  CHECK(QuotaError("BorrowLimit: 50", "BorrowLimit: 10001") ==
        "team-a.yaml:7: ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit: 10001 is "
        "outside 0–10000");
  CHECK(QuotaError("BorrowLimit: 50", "BorrowLimit: -1") ==
        "team-a.yaml:7: ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit: -1 is "
        "outside 0–10000");
  // Library rule: the current range 0–10,000 (not the older 1–500).
  CHECK(QuotaError("BorrowLimit: 50", "BorrowLimit: 0") == "<no error>");
  CHECK(QuotaError("BorrowLimit: 50", "BorrowLimit: 10000") == "<no error>");
}

TEST_CASE("Policy error: more than 10 priority classes", "[hyperpod][reader][errors]") {
  std::string classes;
  for (int i = 0; i < 11; ++i) classes += "  - {Name: class-" + std::to_string(i) + ", Weight: " + std::to_string(i) + "}\n";
  const std::string text =
      "kind: ClusterSchedulerConfig\nmetadata: {name: policy}\nschedulerConfig:\n  PriorityClasses:\n" + classes;
  CHECK(ErrorOf(text, "policy.yaml") ==
        "policy.yaml:4: ClusterSchedulerConfig/policy: SchedulerConfig.PriorityClasses: has 11 entries, at most 10 are "
        "allowed");
  // Ten are fine.
  CHECK(ErrorOf(text.substr(0, text.rfind("  - {")), "policy.yaml") == "<no error>");
}

// 16 distinct instance types with a Count each, as shorthand list items.
std::string SixteenEntries() {
  const char* types[] = {"ml.c5.large",   "ml.c5.xlarge",   "ml.c5.2xlarge",  "ml.c5.4xlarge",
                         "ml.c5.9xlarge", "ml.c5.12xlarge", "ml.c5.18xlarge", "ml.c5.24xlarge",
                         "ml.m5.large",   "ml.m5.xlarge",   "ml.m5.2xlarge",  "ml.m5.4xlarge",
                         "ml.m5.8xlarge", "ml.m5.12xlarge", "ml.m5.16xlarge", "ml.m5.24xlarge"};
  std::string out;
  for (const char* t : types) out += std::string(out.empty() ? "" : ",") + "{InstanceType=" + t + ",Count=1}";
  return out;
}

TEST_CASE("Policy error: more than 15 resource entries", "[hyperpod][reader][errors]") {
  const absl::StatusOr<ComputeQuotaPolicy> q =
      ParseComputeQuotaShorthand("q", "ComputeQuotaResources=[" + SixteenEntries() + "]", "TeamName=team-a");
  REQUIRE_FALSE(q.ok());
  CHECK(std::string(q.status().message()) ==
        "ComputeQuota/q: ComputeQuotaConfig.ComputeQuotaResources: has 16 entries, at most 15 are allowed");
  // Fifteen are fine.
  const std::string fifteen = SixteenEntries().substr(0, SixteenEntries().rfind(",{"));
  CHECK(ParseComputeQuotaShorthand("q", "ComputeQuotaResources=[" + fifteen + "]", "TeamName=team-a").ok());
}

TEST_CASE("Policy error: more than 15 absolute borrow limits", "[hyperpod][reader][errors]") {
  const absl::StatusOr<ComputeQuotaPolicy> q = ParseComputeQuotaShorthand(
      "q", "ResourceSharingConfig={Strategy=LendAndBorrow,AbsoluteBorrowLimits=[" + SixteenEntries() + "]}",
      "TeamName=team-a");
  REQUIRE_FALSE(q.ok());
  CHECK(std::string(q.status().message()) ==
        "ComputeQuota/q: ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits: has 16 entries, at most 15 "
        "are allowed");
}

TEST_CASE("Policy error: Strategy Borrow (S4) is not an API value", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("Strategy: LendAndBorrow", "Strategy: Borrow") ==
        "team-a.yaml:7: ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.Strategy: \"Borrow\" is "
        "not one of Lend, DontLend, LendAndBorrow");
  // The doc text's spelling of the default is not the enum value either.
  CHECK(QuotaError("Strategy: LendAndBorrow", "Strategy: LendandBorrow") ==
        "team-a.yaml:7: ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.Strategy: "
        "\"LendandBorrow\" is not one of Lend, DontLend, LendAndBorrow");
}

TEST_CASE("Policy error: unknown PreemptTeamTasks", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("PreemptTeamTasks: LowerPriority", "PreemptTeamTasks: Always") ==
        "team-a.yaml:8: ComputeQuota/team-a-quota: ComputeQuotaConfig.PreemptTeamTasks: \"Always\" is not one of "
        "Never, LowerPriority");
}

TEST_CASE("Policy error: unknown ActivationState", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("activationState: Enabled", "activationState: Active") ==
        "team-a.yaml:10: ComputeQuota/team-a-quota: ActivationState: \"Active\" is not one of Enabled, Disabled");
  CHECK(ErrorOf(With(kCreateQuota, "\"ActivationState\": \"Enabled\"", "\"ActivationState\": \"enabled\""),
                "create.json") ==
        "create.json:11: ComputeQuota/team-a-quota: ActivationState: \"enabled\" is not one of Enabled, Disabled");
}

TEST_CASE("Policy error: unknown FairShare", "[hyperpod][reader][errors]") {
  CHECK(SchedulerError("FairShare: Enabled", "FairShare: Weighted") ==
        "policy.yaml:7: ClusterSchedulerConfig/policy: SchedulerConfig.FairShare: \"Weighted\" is not one of Enabled, "
        "Disabled");
}

TEST_CASE("Policy error: unknown IdleResourceSharing", "[hyperpod][reader][errors]") {
  CHECK(SchedulerError("IdleResourceSharing: Disabled", "IdleResourceSharing: true") ==
        "policy.yaml:8: ClusterSchedulerConfig/policy: SchedulerConfig.IdleResourceSharing: \"true\" is not one of "
        "Enabled, Disabled");
}

TEST_CASE("Policy error: unknown InstanceType", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("ml.g5.8xlarge", "ml.g5.9xlarge") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].InstanceType: "
        "\"ml.g5.9xlarge\" is not a HyperPod instance type (ClusterInstanceType)");
  CHECK(QuotaError("ml.g5.8xlarge", "g5.8xlarge") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].InstanceType: "
        "\"g5.8xlarge\" is not a HyperPod instance type (ClusterInstanceType)");
}

TEST_CASE("Policy error: ml.inf2 is catalogued but not a ClusterInstanceType", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("ml.g5.8xlarge", "ml.inf2.xlarge") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].InstanceType: "
        "\"ml.inf2.xlarge\" is not a HyperPod instance type (ClusterInstanceType)");
}

TEST_CASE("Policy error: a MIG profile the type does not have", "[hyperpod][reader][errors]") {
  const std::string mig = "{InstanceType: ml.p5.48xlarge, AcceleratorPartition: {Type: mig-1g.18gb, Count: 2}}";
  CHECK(QuotaError("{InstanceType: ml.g5.8xlarge, Count: 2}", mig) ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].AcceleratorPartition."
        "Type: \"mig-1g.18gb\" is not a MIG profile of ml.p5.48xlarge (allowed: mig-1g.10gb, mig-1g.20gb, "
        "mig-2g.20gb, mig-3g.40gb, mig-4g.40gb, mig-7g.80gb)");
  CHECK(QuotaError("{InstanceType: ml.g5.8xlarge, Count: 2}",
                   "{InstanceType: ml.g5.8xlarge, AcceleratorPartition: {Type: mig-1g.10gb, Count: 2}}") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].AcceleratorPartition."
        "Type: \"mig-1g.10gb\" is not allowed: ml.g5.8xlarge does not support accelerator partitions (MIG)");
  // A profile of the type is fine.
  CHECK(QuotaError("{InstanceType: ml.g5.8xlarge, Count: 2}",
                   "{InstanceType: ml.p4d.24xlarge, AcceleratorPartition: {Type: mig-1g.5gb, Count: 7}}") ==
        "<no error>");
}

TEST_CASE("Policy error: missing Name", "[hyperpod][reader][errors]") {
  CHECK(ErrorOf(With(kCreateQuota, "\"Name\": \"team-a-quota\",", ""), "create.json") ==
        "create.json:1: ComputeQuota: Name: is required");
  CHECK(ErrorOf(With(kCreateScheduler, "\"Name\": \"example-cluster-scheduler-config\",", ""), "s.json") ==
        "s.json:1: ClusterSchedulerConfig: Name: is required");
  CHECK(ErrorOf(With(kS0Describe, "\"Name\": \"only-gpu-quota\",", ""), "s0.json") ==
        "s0.json:1: ComputeQuota: Name: is required");
}

TEST_CASE("Policy error: missing ClusterArn in Create requests only", "[hyperpod][reader][errors]") {
  CHECK(ErrorOf(With(kCreateQuota, "\"ClusterArn\": \"arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6\",",
                     ""),
                "create.json") == "create.json:1: ComputeQuota/team-a-quota: ClusterArn: is required");
  CHECK(ErrorOf(With(kCreateScheduler,
                     "\"ClusterArn\": \"arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6\",", ""),
                "s.json") == "s.json:1: ClusterSchedulerConfig/example-cluster-scheduler-config: ClusterArn: is required");
  // Describe outputs and the YAML kinds may omit it.
  CHECK(ErrorOf(With(kS0Describe, "\"ClusterArn\": \"arn:aws:sagemaker:<aws_region>:<account_id>:cluster/<cluster_id>\",",
                     ""),
                "s0.json") == "<no error>");
}

TEST_CASE("Policy error: missing ComputeQuotaConfig", "[hyperpod][reader][errors]") {
  CHECK(ErrorOf(R"({"Name": "q", "ClusterArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6",
  "ComputeQuotaTarget": {"TeamName": "team-a"}})",
                "create.json") == "create.json:1: ComputeQuota/q: ComputeQuotaConfig: is required");
  CHECK(ErrorOf("kind: ComputeQuota\nmetadata: {name: q}\ncomputeQuotaTarget: {TeamName: team-a}\n", "q.yaml") ==
        "q.yaml:1: ComputeQuota/q: computeQuotaConfig: is required");
  CHECK(ErrorOf("kind: ComputeQuota\nmetadata: {name: q}\ncli: {computeQuotaTarget: \"TeamName=team-a\"}\n", "q.yaml") ==
        "q.yaml:3: ComputeQuota/q: cli.computeQuotaConfig: is required");
}

TEST_CASE("Policy error: missing ComputeQuotaTarget", "[hyperpod][reader][errors]") {
  CHECK(ErrorOf(With(kCreateQuota, "\"ComputeQuotaTarget\": { \"TeamName\": \"team-a\", \"FairShareWeight\": 0 },", ""),
                "create.json") == "create.json:1: ComputeQuota/team-a-quota: ComputeQuotaTarget: is required");
  CHECK(ErrorOf(With(kS0Describe, "\"ComputeQuotaTarget\": { \"TeamName\": \"onlygputeam\", \"FairShareWeight\": 10 },",
                     ""),
                "s0.json") == "s0.json:1: ComputeQuota/only-gpu-quota: ComputeQuotaTarget: is required");
  CHECK(QuotaError("computeQuotaTarget: {TeamName: team-a, FairShareWeight: 0}\n", "") ==
        "team-a.yaml:1: ComputeQuota/team-a-quota: computeQuotaTarget: is required");
}

TEST_CASE("Policy error: missing TeamName", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("TeamName: team-a, ", "") ==
        "team-a.yaml:9: ComputeQuota/team-a-quota: ComputeQuotaTarget.TeamName: is required");
}

TEST_CASE("Policy error: missing InstanceType", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("InstanceType: ml.g5.8xlarge, ", "") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].InstanceType: is "
        "required");
}

TEST_CASE("Policy error: missing Strategy", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("Strategy: LendAndBorrow, ", "") ==
        "team-a.yaml:7: ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.Strategy: is required");
}

TEST_CASE("Policy error: missing SchedulerConfig", "[hyperpod][reader][errors]") {
  CHECK(ErrorOf("kind: ClusterSchedulerConfig\nmetadata: {name: policy}\n", "policy.yaml") ==
        "policy.yaml:1: ClusterSchedulerConfig/policy: schedulerConfig: is required (or cli: "
        "\"PriorityClasses=[...],FairShare=...\")");
  // A JSON request without it cannot be told from other documents.
  CHECK(ErrorOf(R"({"Name": "p", "ClusterArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6"})",
                "p.json")
            .starts_with("p.json:1: not a HyperPod policy: "));
}

TEST_CASE("Policy error: missing PriorityClass Name or Weight", "[hyperpod][reader][errors]") {
  CHECK(SchedulerError("Name: training, ", "") ==
        "policy.yaml:6: ClusterSchedulerConfig/policy: SchedulerConfig.PriorityClasses[1].Name: is required");
  CHECK(SchedulerError(", Weight: 70", "") ==
        "policy.yaml:6: ClusterSchedulerConfig/policy: SchedulerConfig.PriorityClasses[1].Weight: is required");
}

TEST_CASE("Policy error: missing partition Type or Count", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("{InstanceType: ml.g5.8xlarge, Count: 2}",
                   "{InstanceType: ml.p5.48xlarge, AcceleratorPartition: {Count: 2}}") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].AcceleratorPartition."
        "Type: is required");
  CHECK(QuotaError("{InstanceType: ml.g5.8xlarge, Count: 2}",
                   "{InstanceType: ml.p5.48xlarge, AcceleratorPartition: {Type: mig-1g.10gb}}") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].AcceleratorPartition."
        "Count: is required");
}

TEST_CASE("Policy error: allocation and policy Name pattern and length", "[hyperpod][reader][errors]") {
  const std::string msg = "\" must be 1–63 letters, digits or '-', starting and ending with a letter or digit";
  CHECK(ErrorOf(With(kCreateQuota, "\"Name\": \"team-a-quota\"", "\"Name\": \"team_a\""), "create.json") ==
        "create.json:2: ComputeQuota: Name: \"team_a" + msg);
  CHECK(ErrorOf(With(kCreateQuota, "\"Name\": \"team-a-quota\"", "\"Name\": \"-team\""), "create.json") ==
        "create.json:2: ComputeQuota: Name: \"-team" + msg);
  const std::string n63(63, 'a');
  const std::string n64(64, 'a');
  CHECK(ErrorOf(With(kCreateQuota, "\"Name\": \"team-a-quota\"", "\"Name\": \"" + n63 + "\""), "create.json") ==
        "<no error>");
  CHECK(ErrorOf(With(kCreateQuota, "\"Name\": \"team-a-quota\"", "\"Name\": \"" + n64 + "\""), "create.json") ==
        "create.json:2: ComputeQuota: Name: \"" + n64 + msg);
  // Upper case and repeated dashes are allowed by `[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}`.
  CHECK(ErrorOf(With(kCreateQuota, "\"Name\": \"team-a-quota\"", "\"Name\": \"Team--A\""), "create.json") ==
        "<no error>");
  // The YAML kinds' metadata.name is the same API member.
  CHECK(QuotaError("{name: team-a-quota}", "{name: team.a}") ==
        "team-a.yaml:3: ComputeQuota: metadata.name: \"team.a" + msg);
  CHECK(SchedulerError("{name: policy}", "{name: policy-}") ==
        "policy.yaml:2: ClusterSchedulerConfig: metadata.name: \"policy-" + msg);
  CHECK(ErrorOf(With(kDescribeScheduler, "\"Name\": \"example-cluster-scheduler-config\"", "\"Name\": \"\""),
                "s.json") == "s.json:4: ClusterSchedulerConfig: Name: \"" + msg);
}

TEST_CASE("Policy error: TeamName pattern and length", "[hyperpod][reader][errors]") {
  const std::string msg =
      "\" must be 1–40 lower-case letters, digits or '-', starting and ending with a letter or digit";
  CHECK(QuotaError("TeamName: team-a", "TeamName: Team-A") ==
        "team-a.yaml:9: ComputeQuota/team-a-quota: ComputeQuotaTarget.TeamName: \"Team-A" + msg);
  CHECK(QuotaError("TeamName: team-a", "TeamName: team-") ==
        "team-a.yaml:9: ComputeQuota/team-a-quota: ComputeQuotaTarget.TeamName: \"team-" + msg);
  CHECK(QuotaError("TeamName: team-a", "TeamName: team_a") ==
        "team-a.yaml:9: ComputeQuota/team-a-quota: ComputeQuotaTarget.TeamName: \"team_a" + msg);
  CHECK(QuotaError("TeamName: team-a", "TeamName: " + std::string(40, 't')) == "<no error>");
  CHECK(QuotaError("TeamName: team-a", "TeamName: " + std::string(41, 't')) ==
        "team-a.yaml:9: ComputeQuota/team-a-quota: ComputeQuotaTarget.TeamName: \"" + std::string(41, 't') + msg);
  CHECK(QuotaError("TeamName: team-a", "TeamName: \"\"") ==
        "team-a.yaml:9: ComputeQuota/team-a-quota: ComputeQuotaTarget.TeamName: \"" + msg);
}

TEST_CASE("Policy error: PriorityClass Name pattern", "[hyperpod][reader][errors]") {
  CHECK(SchedulerError("Name: training", "Name: Training") ==
        "policy.yaml:6: ClusterSchedulerConfig/policy: SchedulerConfig.PriorityClasses[1].Name: \"Training\" must be "
        "1–40 lower-case letters, digits or '-', starting and ending with a letter or digit");
  CHECK(SchedulerError("Name: training", "Name: " + std::string(41, 'p')) ==
        "policy.yaml:6: ClusterSchedulerConfig/policy: SchedulerConfig.PriorityClasses[1].Name: \"" +
            std::string(41, 'p') +
            "\" must be 1–40 lower-case letters, digits or '-', starting and ending with a letter or digit");
}

TEST_CASE("Policy error: Description longer than 1024", "[hyperpod][reader][errors]") {
  CHECK(ErrorOf(With(kCreateQuota, "Team A allocation", std::string(1025, 'd')), "create.json") ==
        "create.json:3: ComputeQuota/team-a-quota: Description: is 1025 characters long, at most 1024 are allowed");
  CHECK(ErrorOf(With(kCreateQuota, "Team A allocation", std::string(1024, 'd')), "create.json") == "<no error>");
  CHECK(ErrorOf(With(kCreateScheduler, "FCFS idle compute", std::string(1025, 'd')), "s.json") ==
        "s.json:9: ClusterSchedulerConfig/example-cluster-scheduler-config: Description: is 1025 characters long, at "
        "most 1024 are allowed");
  CHECK(ErrorOf(std::string(kSchedulerYaml) + "description: " + std::string(1025, 'd') + "\n", "policy.yaml") ==
        "policy.yaml:9: ClusterSchedulerConfig/policy: description: is 1025 characters long, at most 1024 are "
        "allowed");
  CHECK(QuotaError("activationState: Enabled\n", "activationState: Enabled\ndescription: " + std::string(1025, 'd')) ==
        "team-a.yaml:11: ComputeQuota/team-a-quota: description: is 1025 characters long, at most 1024 are allowed");
}

TEST_CASE("Policy error: duplicate TeamName across allocations (Validate)", "[hyperpod][reader][errors]") {
  // Setup: two allocations for team-a in one stream. Expect: the reader accepts (MergePolicies
  // leaves duplicates to Validate); Validate reports a ConflictException naming both.
  const PolicyDocument d =
      Read(std::string(kQuotaYaml) + "---\n" + With(kQuotaYaml, "{name: team-a-quota}", "{name: team-a-second}"),
           "teams.yaml");
  const absl::Status st = Validate(d.policies);
  CHECK(st.code() == absl::StatusCode::kAlreadyExists);
  CHECK(std::string(st.message()) ==
        "teams.yaml:12: ComputeQuota/team-a-second: ComputeQuotaTarget.TeamName: team 'team-a' already has an "
        "allocation, ComputeQuota/team-a-quota at teams.yaml:1 (ConflictException)");
  SECTION("and a duplicate allocation Name") {
    const PolicyDocument same = Read(std::string(kQuotaYaml) + "---\n" + With(kQuotaYaml, "team-a,", "team-b,"),
                                     "teams.yaml");
    const absl::Status dup = Validate(same.policies);
    CHECK(dup.code() == absl::StatusCode::kAlreadyExists);
    CHECK(std::string(dup.message()) ==
          "teams.yaml:12: ComputeQuota/team-a-quota: Name: an allocation named 'team-a-quota' is already defined at "
          "teams.yaml:1");
  }
  SECTION("distinct teams and names are valid") {
    const PolicyDocument ok =
        Read(std::string(kQuotaYaml) + "---\n" +
                 With(With(kQuotaYaml, "team-a,", "team-b,"), "{name: team-a-quota}", "{name: team-b-quota}"),
             "teams.yaml");
    CHECK(Validate(ok.policies).ok());
  }
}

TEST_CASE("Policy error: duplicate priority class names", "[hyperpod][reader][errors]") {
  CHECK(SchedulerError("Name: training", "Name: inference") ==
        "policy.yaml:6: ClusterSchedulerConfig/policy: SchedulerConfig.PriorityClasses[1].Name: \"inference\" is "
        "already defined by SchedulerConfig.PriorityClasses[0]");
}

TEST_CASE("Policy error: duplicate InstanceType in one quota", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("  - {InstanceType: ml.g5.8xlarge, Count: 2}\n",
                   "  - {InstanceType: ml.g5.8xlarge, Count: 2}\n  - {InstanceType: ml.g5.8xlarge, Accelerators: 1}\n") ==
        "team-a.yaml:7: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[1].InstanceType: "
        "ml.g5.8xlarge is already listed in ComputeQuotaConfig.ComputeQuotaResources[0]");
}

TEST_CASE("Policy error: Accelerators on a CPU-only type", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("{InstanceType: ml.g5.8xlarge, Count: 2}", "{InstanceType: ml.c5.2xlarge, Accelerators: 2}") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].Accelerators: 2 is not "
        "allowed: ml.c5.2xlarge has no accelerators (CPU only)");
  // Zero accelerators on a CPU type is harmless.
  CHECK(QuotaError("{InstanceType: ml.g5.8xlarge, Count: 2}", "{InstanceType: ml.c5.2xlarge, Accelerators: 0}") ==
        "<no error>");
}

TEST_CASE("Policy error: Count combined with granular members", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("Count: 2}", "Count: 2, Accelerators: 1, VCpu: 8}") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].Count: 2 whole "
        "instances cannot be combined with Accelerators, VCpu in one entry (give Count, or "
        "Accelerators/VCpu/MemoryInGiB/AcceleratorPartition)");
  CHECK(QuotaError("{InstanceType: ml.g5.8xlarge, Count: 2}", "{InstanceType: ml.g5.8xlarge}") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0]: needs Count, or one "
        "of Accelerators, VCpu, MemoryInGiB, AcceleratorPartition");
}

TEST_CASE("Policy error: AbsoluteBorrowLimits for a type not in the quota", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("BorrowLimit: 50}", "BorrowLimit: 50, AbsoluteBorrowLimits: [{InstanceType: ml.p5.48xlarge, "
                                       "Accelerators: 4}]}") ==
        "team-a.yaml:7: ComputeQuota/team-a-quota: "
        "ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits[0].InstanceType: ml.p5.48xlarge is not in "
        "ComputeQuotaConfig.ComputeQuotaResources");
  // Its entries are validated like quota entries.
  CHECK(QuotaError("BorrowLimit: 50}", "BorrowLimit: 50, AbsoluteBorrowLimits: [{InstanceType: ml.g5.8xlarge, "
                                       "Accelerators: -4}]}") ==
        "team-a.yaml:7: ComputeQuota/team-a-quota: "
        "ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits[0].Accelerators: -4 is outside 0–10000000");
  CHECK(QuotaError("BorrowLimit: 50}", "BorrowLimit: 50, AbsoluteBorrowLimits: [{InstanceType: ml.g5.8xlarge, "
                                       "Accelerators: 4}]}") == "<no error>");
}

TEST_CASE("Policy error: negative and overflowing amounts", "[hyperpod][reader][errors]") {
  const std::string at = "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].";
  CHECK(QuotaError("Count: 2", "Count: -1") == at + "Count: -1 is outside 0–10000000");
  CHECK(QuotaError("Count: 2", "Count: 10000001") == at + "Count: 10000001 is outside 0–10000000");
  CHECK(QuotaError("Count: 2", "Count: 10000000") == "<no error>");
  // Beyond int64: still out of range, not "not an integer".
  CHECK(QuotaError("Count: 2", "Count: 99999999999999999999") == at + "Count: 99999999999999999999 is outside 0–10000000");
  CHECK(QuotaError("Count: 2", "Count: 9999999999999999999") == at + "Count: 9999999999999999999 is outside 0–10000000");
  CHECK(QuotaError("Count: 2", "Count: -99999999999999999999") ==
        at + "Count: -99999999999999999999 is outside 0–10000000");
  CHECK(QuotaError("Count: 2", "Count: 2.5") == at + "Count: \"2.5\" is not an integer");
  CHECK(QuotaError("Count: 2", "Count: two") == at + "Count: \"two\" is not an integer");
  CHECK(QuotaError("Count: 2", "Count: [2]") == at + "Count: expected a string, got a list");
  CHECK(QuotaError("Count: 2", "Accelerators: -2") == at + "Accelerators: -2 is outside 0–10000000");
  CHECK(QuotaError("Count: 2", "VCpu: -1.5") == at + "VCpu: -1.5 is outside 0–10000000");
  CHECK(QuotaError("Count: 2", "VCpu: 10000000.5") == at + "VCpu: 10000000.5 is outside 0–10000000");
  CHECK(QuotaError("Count: 2", "VCpu: 10000000.0") == "<no error>");
  CHECK(QuotaError("Count: 2", "MemoryInGiB: 99999999999999999999.5") ==
        at + "MemoryInGiB: 99999999999999999999.5 is outside 0–10000000");
  CHECK(QuotaError("Count: 2", "MemoryInGiB: 1.1234567") ==
        at + "MemoryInGiB: \"1.1234567\" is not a number with at most 6 decimals");
  CHECK(QuotaError("Count: 2", "MemoryInGiB: 1.5e3") == at + "MemoryInGiB: \"1.5e3\" is not a number with at most 6 decimals");
  CHECK(QuotaError("Count: 2", "AcceleratorPartition: {Type: mig-1g.10gb, Count: -1}") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].AcceleratorPartition."
        "Count: -1 is outside 0–10000000");
  CHECK(QuotaError("BorrowLimit: 50", "BorrowLimit: 99999999999999999999") ==
        "team-a.yaml:7: ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit: "
        "99999999999999999999 is outside 0–10000");
}

TEST_CASE("Policy error: a member given twice", "[hyperpod][reader][errors]") {
  // Setup: JSON with a repeated key. Expect: an error, not the first copy silently.
  CHECK(ErrorOf(With(kCreateQuota, "\"BorrowLimit\": 50", "\"BorrowLimit\": 50,\n \"BorrowLimit\": 20000"),
                "create.json") ==
        "create.json:8: ComputeQuota/team-a-quota: ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit: is given "
        "twice (also at line 7)");
}

TEST_CASE("Policy error: unknown members and wrong shapes", "[hyperpod][reader][errors]") {
  CHECK(QuotaError("Count: 2}", "Count: 2, Gpus: 1}") ==
        "team-a.yaml:6: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources[0].Gpus: unknown member "
        "(expected one of InstanceType, Count, Accelerators, VCpu, MemoryInGiB, AcceleratorPartition)");
  CHECK(QuotaError("  ComputeQuotaResources:\n  - {InstanceType: ml.g5.8xlarge, Count: 2}\n",
                   "  ComputeQuotaResources: {InstanceType: ml.g5.8xlarge, Count: 2}\n") ==
        "team-a.yaml:5: ComputeQuota/team-a-quota: ComputeQuotaConfig.ComputeQuotaResources: expected a list, got a "
        "map");
  CHECK(QuotaError("{TeamName: team-a, FairShareWeight: 0}", "team-a") ==
        "team-a.yaml:9: ComputeQuota/team-a-quota: ComputeQuotaTarget: expected a structure, got the value "
        "\"team-a\"");
}

}  // namespace
}  // namespace policy_reader_test
}  // namespace qm::hyperpod
