// Submission rules of a HyperPod-governed cluster (docs/hyperpod.md §2.9, §8): the admission
// policy HyperPod installs (queue-name label required, priority class must be defined) and the
// access rule (a principal submits only for its teams). Both are given to the Engine as its
// submission gate, so every `Submit`/`SubmitAs`/`Apply`/`ApplyAs` passes them:
//
//   qm::EngineConfig config;
//   config.submission_gate = qm::hyperpod::MakeSubmissionGate(
//       qm::hyperpod::Governance::FromPolicies(policies), access);
//   qm::Engine engine(config);
//   engine.SubmitAs("arn:aws:sts::444455556666:assumed-role/team-b-access/bob", spec);
//   // PermissionDenied naming the principal and its teams, and nothing changed, when the role is
//   // not a member of the workload's team.
#ifndef QM_HYPERPOD_GOVERNANCE_H_
#define QM_HYPERPOD_GOVERNANCE_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/adapter/engine.h"
#include "qm/hyperpod/policy.h"

namespace qm::hyperpod {

inline constexpr std::string_view kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr std::string_view kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
/// The ValidatingAdmissionPolicy HyperPod installs, and its message for a missing queue label.
inline constexpr std::string_view kAdmissionPolicyName = "hyperpod-task-governance-admission-policy";
inline constexpr std::string_view kMissingQueueNameMessage =
    "The label 'kueue.x-k8s.io/queue-name' is either missing or does not have a value set.";

/// Which namespaces are governed, and the classes a workload may name.
struct Governance {
  struct Team {
    std::string team;
    std::string namespace_;    ///< `hyperpod-ns-<team>`
    std::string local_queue;   ///< `hyperpod-ns-<team>-localqueue`
    std::string cluster_queue;  ///< `hyperpod-ns-<team>-clusterqueue`
    bool enabled = true;       ///< ActivationState; the admission policy applies only when Enabled
  };
  std::vector<Team> teams;                    ///< sorted by team
  std::vector<std::string> priority_classes;  ///< `<name>-priority`, in policy order

  static Governance FromPolicies(const PolicySet& policies);
  const Team* FindTeam(std::string_view team) const;
  const Team* FindNamespace(std::string_view namespace_) const;
};

/// HyperPod's admission policy for a workload (docs/hyperpod.md §2.9). In a governed namespace: the queue must be
/// named (label `kueue.x-k8s.io/queue-name`, or `spec.queueName` as a Workload created from such
/// a job carries it), else InvalidArgument with HyperPod's message; a priority class (label
/// `kueue.x-k8s.io/priority-class` or a WorkloadPriorityClass in `spec.priorityClassName`) must be
/// one of the defined `<name>-priority` classes, else InvalidArgument listing them. No class means
/// the lowest priority (0). Workloads in other namespaces pass.
absl::Status CheckSubmission(const Governance& governance, const WorkloadSpec& workload);

/// Who may submit for which team (docs/hyperpod.md §8): the members of each team's access binding (group
/// `hyperpod-ns-<team>-namespace-level-group`, or an EKS access entry scoped to the namespace),
/// and the cluster administrators.
struct AccessTable {
  /// principal (IAM role or user ARN, or group name) → teams, as given.
  std::vector<std::pair<std::string, std::vector<std::string>>> members;
  std::vector<std::string> admins;
};

/// The principal a caller is evaluated as: an STS assumed-role session
/// (`arn:aws:sts::<account>:assumed-role/<role>/<session>`) is its role,
/// `arn:aws:iam::<account>:role/<role>`; so a caller from another account is evaluated as the
/// cluster-account role it assumed. Any other principal is itself.
std::string EffectivePrincipal(std::string_view principal);

/// The teams `principal` belongs to, sorted.
std::vector<std::string> TeamsOf(const AccessTable& access, std::string_view principal);
bool IsAdmin(const AccessTable& access, std::string_view principal);

/// The namespace part of docs/hyperpod.md §8 `may_submit` (what Kubernetes RBAC decides before any admission
/// policy runs): an administrator, or a member of team T submitting into `hyperpod-ns-T`.
/// PermissionDenied naming the principal, the namespace and the principal's teams otherwise.
absl::Status CheckNamespaceAccess(const AccessTable& access, const Governance& governance,
                                  std::string_view principal, const WorkloadSpec& workload);

/// docs/hyperpod.md §8 `may_submit`: an administrator, or a member of team T submitting into `hyperpod-ns-T` to
/// `hyperpod-ns-T-localqueue` with no class or a defined one. PermissionDenied naming the
/// principal, the workload and the teams it may use otherwise.
absl::Status CheckAccess(const AccessTable& access, const Governance& governance,
                         std::string_view principal, const WorkloadSpec& workload);

/// docs/hyperpod.md §8 `may_read_queue`: administrators read every ClusterQueue, members their teams' ones.
bool MayReadClusterQueue(const AccessTable& access, const Governance& governance,
                         std::string_view principal, std::string_view cluster_queue);

/// The Engine's submission gate for a governed cluster: `CheckSubmission` for every submission and,
/// when an access table is given, `CheckAccess` for every submission made on behalf of a principal
/// (`Engine::SubmitAs`/`ApplyAs`). A submission without a principal is the embedding program's own
/// and is treated as a cluster administrator's: only the admission policy applies to it.
SubmissionGate MakeSubmissionGate(Governance governance, std::optional<AccessTable> access = {});

}  // namespace qm::hyperpod

#endif  // QM_HYPERPOD_GOVERNANCE_H_
