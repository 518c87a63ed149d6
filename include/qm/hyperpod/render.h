// Presenting a HyperPod translation (docs/hyperpod.md §2, §7): the Kueue objects exactly as
// HyperPod creates them, in `kueue.x-k8s.io/v1beta1` for `kubectl apply -f`; the fragment of
// Kueue's Configuration that the cluster policy sets (docs/hyperpod.md §2.8); and the report of `qm hyperpod lint`.
//
//   QM_ASSIGN_OR_RETURN(qm::hyperpod::Translation t, qm::hyperpod::Translate(policies));
//   std::cout << qm::hyperpod::RenderKueueObjects(t);  // | kubectl apply -f -
//   std::cout << qm::hyperpod::RenderKueueConfiguration(t.fair_sharing);
#ifndef QM_HYPERPOD_RENDER_H_
#define QM_HYPERPOD_RENDER_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "qm/hyperpod/policy_reader.h"
#include "qm/hyperpod/translate.h"
#include "qm/text/output_format.h"
#include "qm/model/config.h"

namespace qm::hyperpod {

/// Where HyperPod keeps Kueue's Configuration (docs/hyperpod.md §2, "Kueue config"): ConfigMap
/// `kueue-system/kueue-manager-config`, under the key Kueue's own manifests use.
inline constexpr std::string_view kKueueConfigNamespace = "kueue-system";
inline constexpr std::string_view kKueueConfigMap = "kueue-manager-config";
inline constexpr std::string_view kKueueConfigKey = "controller_manager_config.yaml";

/// How `RenderKueueObjects` writes.
struct RenderOptions {
  /// YAML: a multi-document stream. JSON: one `v1` `List` (kubectl applies both).
  OutputFormat format = OutputFormat::kYaml;
  /// YAML only: end with the Kueue Configuration fragment as a comment block saying where it
  /// belongs. A comment, because it is not a Kubernetes object: `kubectl apply` ignores it.
  bool kueue_config_comment = true;
};

/// The translation's objects, in its apply order, as HyperPod creates them: `v1` Namespaces and
/// `kueue.x-k8s.io/v1beta1` Kueue objects (ClusterQueue `spec.cohort`, keys as
/// `kubectl get -o yaml` prints them, LocalQueue `stopPolicy: None`, ClusterQueue
/// `fairSharing.weight` always written; see docs/hyperpod.md §2.3 and §2.4), followed in YAML by the Configuration
/// comment block. `ReadManifestString` reads the result back to the same specs.
std::string RenderKueueObjects(const Translation& translation, const RenderOptions& options = {});

/// The `fairSharing` member of Kueue's `Configuration` (docs/hyperpod.md §2.8) as plain YAML (or a JSON object), to
/// merge into the Configuration in ConfigMap kueue-system/kueue-manager-config:
///
///   fairSharing:
///     enable: true
///     preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
///
/// or `enable: false` alone when fair sharing is off.
std::string RenderKueueConfiguration(const FairSharingConfig& fair_sharing,
                                     OutputFormat format = OutputFormat::kYaml);

// ---- Lint ---------------------------------------------------------------------------------------

/// What `qm hyperpod lint` found in a set of policy files.
struct LintReport {
  /// docs/hyperpod.md §7 errors, in input order, each naming file:line, object and member: reading errors, then a
  /// conflict between files (two cluster policies or inventories), then `Validate`'s cross-object
  /// error, or that the files hold no policy at all.
  std::vector<std::string> errors;
  /// docs/hyperpod.md §7 warnings (`Lint`) of the merged set; only computed when there are no errors, because
  /// capacity sums over an invalid set would mislead.
  std::vector<Finding> warnings;

  /// 0 without errors (warnings only are fine), 1 with errors.
  int ExitCode() const { return errors.empty() ? 0 : 1; }
};

/// Lints the results of reading each input file (e.g. `ReadPolicyFile` per path, in order): every
/// failed read is an error; the files read are merged (`MergePolicies`) in order and validated;
/// then, when nothing failed, `Lint` gives the warnings.
LintReport LintDocuments(std::span<const absl::StatusOr<PolicyDocument>> documents,
                         const TranslateOptions& options = {});

/// The report as text, one finding per line, then a summary:
///
///   error: team-a.yaml:9: ComputeQuota/team-a-quota: ...BorrowLimit: 20000 is outside 0–10000
///   warning: cluster.yaml:1: ml.g5.12xlarge nvidia.com/gpu: the teams' quotas add up to 10, ...
///   warning: no ClusterSchedulerConfig: the API defaults apply (...)
///   1 error, 2 warnings
///
/// A warning about the whole set (empty `Finding::source`) has no location.
std::string FormatLintReport(const LintReport& report);

}  // namespace qm::hyperpod

#endif  // QM_HYPERPOD_RENDER_H_
