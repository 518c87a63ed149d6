// Turning YAML nodes into `ObjectSpec`s: the kind dispatch and the per-kind readers. Private to the
// I/O layer; `manifest.h` and `scenario.h` are the public entry points.
#ifndef QM_LIB_IO_OBJECT_READER_H_
#define QM_LIB_IO_OBJECT_READER_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/yaml_cursor.h"
#include "qm/core/time.h"
#include "qm/model/config.h"
#include "qm/hyperpod/policy.h"
#include "qm/io/manifest.h"
#include "qm/model/node.h"

namespace qm::internal {

/// Tables and bounds the object readers share (one definition: the readers are compiled in batches).
inline constexpr std::pair<std::string_view, StopPolicy> kStopPolicies[] = {
    {"None", StopPolicy::kNone}, {"Hold", StopPolicy::kHold}, {"HoldAndDrain", StopPolicy::kHoldAndDrain}};
inline constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
inline constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

/// Which API version an object was written in; fields that differ between versions are read in
/// both spellings, and the version only decides the few values one version rejects.
enum class ApiVersion { kUnspecified, kCore, kScheduling, kKueueV1alpha1, kKueueV1beta1, kKueueV1beta2 };

/// What every object has: the parts of `apiVersion`, `kind` and `metadata` the readers need.
struct ObjectHeader {
  ApiVersion version = ApiVersion::kUnspecified;
  std::string name;
  std::string namespace_;  ///< "default" for namespaced kinds when absent; "" otherwise
  Labels labels;
};

/// What a manifest's Kueue `Configuration` document (config.kueue.x-k8s.io) sets of the engine's
/// configuration: `fairSharing`, `featureGates`, and Quartermaster's `antiThrash` block. Other
/// fields of Kueue's Configuration configure the controller and are ignored.
struct ConfigurationDoc {
  std::string source;  ///< "file:line" of the document; empty when the manifest has none
  std::optional<FairSharingConfig> fair_sharing;
  std::optional<FeatureGates> features;
  AntiThrashConfig anti_thrash;
  /// `refill:` (ours) refill mode, docs/semantics.md §11.7; off when absent.
  RefillConfig refill;
  /// Kueue's `waitForPodsReady` (docs/semantics.md §1.7.2); off when absent.
  WaitForPodsReadyConfig wait_for_pods_ready;
};

/// Reads the objects in `node`: one object, a `kind: List`, or a list of objects. Appends to
/// `objects` (with `source` set) and to `notes` for skipped kinds. Objects of the HyperPod policy
/// kinds (ClusterSchedulerConfig, ComputeQuota, HyperPodCluster) go to `policies`; the caller
/// expands them (hyperpod_expand.h). Core/v1 `Node`s go to `nodes` when it is given (manifests,
/// for the simulator), and are skipped with a note like other foreign kinds when it is null
/// (scenarios). A Kueue `Configuration` goes to `configuration` when it is given (manifests; at
/// most one), and is an error when it is null (scenarios have their `config:` block). Errors go
/// to `c.ctx()`.
void ReadObjects(const Cursor& node, std::vector<ManifestObject>* objects,
                 std::vector<std::string>* notes, hyperpod::PolicySet* policies,
                 std::vector<NodeSpec>* nodes = nullptr, ConfigurationDoc* configuration = nullptr);

/// Reports the first object of `objects` that repeats the kind, namespace and name of an earlier
/// one.
void CheckDuplicates(LoadContext& ctx, const std::vector<ManifestObject>& objects);

// Per-kind readers: `c` is the object's root map; the header is already read and the context's
// object name set. Each returns a spec even after an error (the caller checks `ctx().ok()`).
ResourceFlavorSpec ReadResourceFlavor(const Cursor& c, const ObjectHeader& h);
ClusterQueueSpec ReadClusterQueue(const Cursor& c, const ObjectHeader& h);
CohortSpec ReadCohort(const Cursor& c, const ObjectHeader& h);
WorkloadSpec ReadWorkload(const Cursor& c, const ObjectHeader& h);
/// Core/v1 `Node` (node_reader.cc); `source` is the object's "file:line".
NodeSpec ReadNode(const Cursor& c, const ObjectHeader& h, std::string source);

/// An RFC 3339 timestamp (`metav1.Time`); nullopt when absent, or after failing `c` with the parse
/// error.
std::optional<Time> ReadTime(const Cursor& c);
/// `metav1.LabelSelector` (matchLabels, matchExpressions).
LabelSelector ReadLabelSelector(const Cursor& c);
/// `corev1.Taint` list (ResourceFlavor `nodeTaints`, Node `spec.taints`): `key` and `effect`
/// required.
std::vector<Taint> ReadTaints(const Cursor& c);
/// `corev1.Toleration` list.
std::vector<Toleration> ReadTolerations(const Cursor& c);

}  // namespace qm::internal

#endif  // QM_LIB_IO_OBJECT_READER_H_
