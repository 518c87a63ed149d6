// Reading Kueue manifests: the YAML a Kueue user keeps in files or gets from `kubectl get -o yaml`.
//
//   QM_ASSIGN_OR_RETURN(qm::Manifest m, qm::ReadManifestFile("cluster.yaml"));
//   for (const std::string& note : m.notes) std::cerr << note << "\n";  // skipped Jobs, ...
//   QM_RETURN_IF_ERROR(qm::ApplyManifest(engine, m.objects));
//
// Read kinds: Namespace, ResourceFlavor, Cohort, ClusterQueue, LocalQueue, WorkloadPriorityClass,
// PriorityClass (scheduling.k8s.io) and Workload, in `kueue.x-k8s.io/v1beta1` and `v1beta2` shapes
// (and `v1alpha1` for Cohort); `apiVersion` may be omitted. The SageMaker HyperPod policy kinds
// ClusterSchedulerConfig, ComputeQuota and HyperPodCluster (`sagemaker.amazonaws.com/v1`, see
// qm/hyperpod/policy_reader.h) are expanded into the Kueue objects HyperPod creates, placed before
// the file's other objects, and Workloads in their team namespaces must pass HyperPod's admission
// policy (qm/hyperpod/governance.h). Input can be a multi-document stream, a
// `kind: List` (`items:`), or a plain YAML list of objects. Objects of other kinds (Job, Deployment,
// ConfigMap, ...) are skipped with a note, except core/v1 `Node`s, which are read into
// `Manifest::nodes` for the simulator (qm/sim/placement.h); unknown fields of read kinds are ignored, as the API
// server's Kueue would not read them. Each load is all-or-nothing, and every error names the file,
// line, object and field, e.g.
//   cluster.yaml:14: ClusterQueue/eng-alpha: spec.resourceGroups[0].flavors[1].resources[0].nominalQuota: "12x" is not a quantity
// Cross-object rules (dangling references, cohort cycles, ...) are checked by `Engine::Apply`.
#ifndef QM_IO_MANIFEST_H_
#define QM_IO_MANIFEST_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/adapter/engine.h"
#include "qm/hyperpod/policy.h"
#include "qm/model/node.h"

namespace qm {

/// One object read from a manifest, with where it came from.
struct ManifestObject {
  ObjectSpec spec;
  std::string source;  ///< "file:line" of the object's first line
};

/// The objects of one load, in file order.
struct Manifest {
  std::vector<ManifestObject> objects;
  /// One line per skipped object, e.g. `jobs.yaml:3: skipped batch/v1 Job/default/sample (qm reads
  /// only Kueue's queueing objects)`.
  std::vector<std::string> notes;
  /// Kueue's fair-sharing configuration, when the manifest holds HyperPod policies (from the
  /// ClusterSchedulerConfig's FairShare, Enabled by default).
  std::optional<FairSharingConfig> fair_sharing;
  /// With HyperPod policies: `MessageStyle::kLegacy`, the wording HyperPod's Kueue uses.
  std::optional<MessageStyle> message_style;
  /// From a Kueue `Configuration` document (apiVersion config.kueue.x-k8s.io/v1beta1 or v1beta2;
  /// at most one): its `featureGates`, and Quartermaster's `antiThrash` block
  /// (qm/model/anti_thrash.h). Its `fairSharing` goes to `fair_sharing` above; with HyperPod
  /// policies too, the two must agree on whether fair sharing is on.
  std::optional<FeatureGates> features;
  AntiThrashConfig anti_thrash;
  /// `refill:` (ours) refill mode, docs/semantics.md §11.7; off when absent.
  RefillConfig refill;
  /// The Configuration's `waitForPodsReady` (docs/semantics.md §1.7.2); off when absent.
  WaitForPodsReadyConfig wait_for_pods_ready;
  /// "file:line" of the Configuration document; empty when the manifest has none.
  std::string configuration_source;
  /// Core/v1 `Node` objects, in file order, each with its `source`. Read for the simulator only:
  /// Kueue does not read nodes, and `ApplyManifest` takes only `objects`.
  std::vector<NodeSpec> nodes;
  /// The node inventory of a `HyperPodCluster`, when the manifest has one (for the simulator's
  /// `NodesFromInventory`; its capacity checks already happened in the HyperPod expansion).
  std::optional<hyperpod::ClusterInventory> inventory;
};

/// Reads a manifest file. Errors are InvalidArgument (bad content) or NotFound (unreadable file).
absl::StatusOr<Manifest> ReadManifestFile(const std::string& path);
/// Reads manifest text; `source_name` is used in errors and `ManifestObject::source`.
absl::StatusOr<Manifest> ReadManifestString(std::string_view yaml, std::string_view source_name);

/// The object's kind.
ObjectKind KindOf(const ObjectSpec& spec);
/// A reference to the object (kind, namespace for namespaced kinds, name).
ObjectRef RefOf(const ObjectSpec& spec);
/// "Kind/name", or "Kind/namespace/name" for LocalQueue and Workload, e.g. `Workload/team-a/job-1`.
std::string ObjectDisplayName(const ObjectSpec& spec);
/// Kubernetes kind name of `kind` ("ClusterQueue"); same as `ObjectKindName`.
const char* KindName(ObjectKind kind);

/// Applies the objects to `engine` in one `Engine::Apply` call. An engine error is prefixed with the
/// `file:line` of the object it names, when it names one of `objects`.
absl::Status ApplyManifest(Engine& engine, std::span<const ManifestObject> objects);

}  // namespace qm

#endif  // QM_IO_MANIFEST_H_
