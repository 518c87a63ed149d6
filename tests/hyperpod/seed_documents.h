// Policy documents quoted in docs/hyperpod.md §9, shared by the HyperPod tests.
#ifndef QM_TESTS_HYPERPOD_SEED_DOCUMENTS_H_
#define QM_TESTS_HYPERPOD_SEED_DOCUMENTS_H_

#include <string_view>

namespace qm::hyperpod::test {

// The S0 `describe-compute-quota` output, verbatim (docs/hyperpod.md §9.1).
constexpr std::string_view kS0Describe = R"({
  "ComputeQuotaArn": "arn:aws:sagemaker:<aws_region>:<account_id>:compute-quota/<compute_quota_id>",
  "ComputeQuotaId": "<compute_quota_id>",
  "Name": "only-gpu-quota",
  "Description": "Only GPU quota allocation",
  "ComputeQuotaVersion": 1,
  "Status": "Created",
  "ClusterArn": "arn:aws:sagemaker:<aws_region>:<account_id>:cluster/<cluster_id>",
  "ComputeQuotaConfig": {
    "ComputeQuotaResources": [
      { "InstanceType": "ml.g6.12xlarge", "Accelerators": 2, "VCpu": 48.0 }
    ],
    "ResourceSharingConfig": { "Strategy": "LendAndBorrow", "BorrowLimit": 50 },
    "PreemptTeamTasks": "LowerPriority"
  },
  "ComputeQuotaTarget": { "TeamName": "onlygputeam", "FairShareWeight": 10 },
  "ActivationState": "Enabled",
  "CreationTime": "2025-07-24T11:12:12.021000-07:00",
  "CreatedBy": {},
  "LastModifiedTime": "2025-07-24T11:15:45.205000-07:00",
  "LastModifiedBy": {}
}
)";

// The complete DescribeComputeQuota example of docs/hyperpod.md §9.1 (every member; wire timestamps).
constexpr std::string_view kCompleteDescribe = R"({
  "ComputeQuotaArn": "arn:aws:sagemaker:us-west-2:111122223333:compute-quota/q1a2b3c4d5e6",
  "ComputeQuotaId": "q1a2b3c4d5e6",
  "Name": "team-a-quota",
  "Description": "Team A allocation",
  "ComputeQuotaVersion": 3,
  "Status": "Updated",
  "ClusterArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/c1a2b3c4d5e6",
  "ComputeQuotaConfig": {
    "ComputeQuotaResources": [
      { "InstanceType": "ml.p5.48xlarge", "Count": 2 },
      { "InstanceType": "ml.g6.12xlarge", "Accelerators": 2, "VCpu": 24.0, "MemoryInGiB": 96.0 },
      { "InstanceType": "ml.p5en.48xlarge", "AcceleratorPartition": { "Type": "mig-1g.18gb", "Count": 4 } }
    ],
    "ResourceSharingConfig": {
      "Strategy": "LendAndBorrow",
      "BorrowLimit": 100,
      "AbsoluteBorrowLimits": [ { "InstanceType": "ml.p5.48xlarge", "Accelerators": 4 } ]
    },
    "PreemptTeamTasks": "LowerPriority"
  },
  "ComputeQuotaTarget": { "TeamName": "team-a", "FairShareWeight": 50 },
  "ActivationState": "Enabled",
  "CreationTime": 1753380732.021,
  "CreatedBy": {
    "IamIdentity": {
      "Arn": "arn:aws:sts::111122223333:assumed-role/Admin/alice",
      "PrincipalId": "AROAEXAMPLE:alice"
    }
  },
  "LastModifiedTime": 1753380945.205,
  "LastModifiedBy": {
    "IamIdentity": {
      "Arn": "arn:aws:sts::111122223333:assumed-role/Admin/alice",
      "PrincipalId": "AROAEXAMPLE:alice"
    }
  }
}
)";

}  // namespace qm::hyperpod::test

#endif  // QM_TESTS_HYPERPOD_SEED_DOCUMENTS_H_
