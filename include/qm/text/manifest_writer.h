// Writing objects back as Kueue manifests: `kueue.x-k8s.io/v1beta2` YAML (or, on request, the
// `v1beta1` shape older Kueue installations such as SageMaker HyperPod's serve, or JSON) that
// `kubectl apply` accepts and `ReadManifestString` reads back to the same specs.
//
//   std::cout << qm::WriteEngineState(engine, specs);  // specs as loaded, status as decided
//   std::cout << qm::WriteManifest(specs, {.api_version = qm::KueueApiVersion::kV1beta1});
#ifndef QM_TEXT_MANIFEST_WRITER_H_
#define QM_TEXT_MANIFEST_WRITER_H_

#include <span>
#include <string>

#include "qm/adapter/engine.h"
#include "qm/text/output_format.h"

namespace qm {

/// The `kueue.x-k8s.io` API version objects are written in. The versions differ, for the kinds
/// written here, in: ClusterQueue `spec.cohort` (v1beta1) vs `spec.cohortName` (v1beta2);
/// `flavorFungibility` `Borrow`/`Preempt` (v1beta1, understood by every v1beta1 Kueue) vs
/// `MayStopSearch` (v1beta2), and `flavorFungibility.preference`, which v1beta1 does not have
/// (it is left out); Cohort `spec.parent` vs `spec.parentName`; Workload
/// `spec.priorityClassSource`+`priorityClassName` vs `spec.priorityClassRef`. ResourceFlavor,
/// LocalQueue and WorkloadPriorityClass (top-level `value`) are the same in both.
enum class KueueApiVersion { kV1beta2, kV1beta1 };

/// How `WriteManifest` writes. The defaults are the v1beta2 YAML `qm run --state` prints.
struct ManifestWriteOptions {
  KueueApiVersion api_version = KueueApiVersion::kV1beta2;
  /// YAML: a multi-document stream. JSON: one `v1` `List` object holding the objects as `items`
  /// (what `kubectl apply -f` takes as a single JSON document).
  OutputFormat format = OutputFormat::kYaml;
  /// Also write the defaulted fields that HyperPod's objects carry (docs/hyperpod.md §2.3,
  /// docs/hyperpod.md §2.4): `spec.fairSharing.weight` of every ClusterQueue and Cohort and `spec.stopPolicy` of
  /// every LocalQueue. A ClusterQueue's `stopPolicy: None` stays implicit, as on HyperPod's.
  bool explicit_defaults = false;
};

/// Writes the objects, in order, as a multi-document YAML stream (documents separated by `---`).
/// Pod sets are written as a pod template with one container holding the pod set's per-pod
/// requests; quantities in Kubernetes' canonical form (`FormatQuantityForManifest`). Empty for no
/// objects in YAML; an empty `List` in JSON. With `api_version` v1beta1 the keys of a
/// ClusterQueue's `spec` and `spec.preemption` are in alphabetical order and its nested settings in
/// block style, as `kubectl get clusterqueue -o yaml` shows them.
std::string WriteManifest(std::span<const ObjectSpec> objects,
                          const ManifestWriteOptions& options = {});

/// Like `WriteManifest`, but every Workload gets the status `engine` reports for it now: its
/// creation time, `status.admission` for one that holds quota, and Kueue's conditions —
/// `QuotaReserved`/`Admitted` True for admitted ones, `QuotaReserved` False with the pending
/// reason and message for pending ones, and `Evicted`/`Preempted` for ones being evicted.
/// Every LocalQueue the engine knows gets Kueue's LocalQueue status (docs/semantics.md §1.5.1).
/// Workloads the engine no longer knows (deleted) are left out; objects of other kinds are written
/// as given (the engine keeps no copy of them).
std::string WriteEngineState(const Engine& engine, std::span<const ObjectSpec> objects);

}  // namespace qm

#endif  // QM_TEXT_MANIFEST_WRITER_H_
