// Writing objects back as Kueue manifests: `kueue.x-k8s.io/v1beta2` YAML that `kubectl apply`
// accepts and `ReadManifestString` reads back to the same specs.
//
//   std::cout << qm::WriteEngineState(engine, specs);  // specs as loaded, status as decided
#ifndef QM_IO_MANIFEST_WRITER_H_
#define QM_IO_MANIFEST_WRITER_H_

#include <span>
#include <string>

#include "qm/adapter/engine.h"

namespace qm {

/// Writes the objects, in order, as a multi-document YAML stream (documents separated by `---`).
/// Pod sets are written as a pod template with one container holding the pod set's per-pod
/// requests; quantities in Kubernetes' canonical form (`FormatQuantityForManifest`). Empty for no
/// objects.
std::string WriteManifest(std::span<const ObjectSpec> objects);

/// Like `WriteManifest`, but every Workload gets the status `engine` reports for it now: its
/// creation time, `status.admission` for one that holds quota, and Kueue's conditions —
/// `QuotaReserved`/`Admitted` True for admitted ones, `QuotaReserved` False with the pending
/// reason and message for pending ones, and `Evicted`/`Preempted` for ones being evicted.
/// Workloads the engine no longer knows (deleted) are left out; objects of other kinds are written
/// as given (the engine keeps no copy of them).
std::string WriteEngineState(const Engine& engine, std::span<const ObjectSpec> objects);

}  // namespace qm

#endif  // QM_IO_MANIFEST_WRITER_H_
