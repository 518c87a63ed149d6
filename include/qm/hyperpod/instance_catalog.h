// The SageMaker HyperPod instance catalogue (compiled in from `shared/data/instance-types.csv`):
// per `ml.*` instance type, the accelerators, vCPUs, memory and EFA interfaces that quota defaults
// and `Count` expansion use (docs/hyperpod.md §4). Nominal figures, not node-allocatable ones.
//
//   const qm::hyperpod::InstanceType* t = qm::hyperpod::FindInstanceType("ml.g5.8xlarge");
//   // t->accelerators == 1, t->vcpu == 32, t->memory_mib == 131072, t->efa == 1
#ifndef QM_HYPERPOD_INSTANCE_CATALOG_H_
#define QM_HYPERPOD_INSTANCE_CATALOG_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace qm::hyperpod {

/// One instance type.
struct InstanceType {
  std::string_view name;              ///< `ml.g5.8xlarge`
  std::string_view accelerator_type;  ///< `NVIDIA A10G`, `AWS Trainium`; empty for CPU-only types
  int32_t accelerators;    ///< GPUs (NVIDIA) or Trainium/Inferentia chips per instance; 0 if none
  int32_t neuron_devices;  ///< `aws.amazon.com/neurondevice` per instance; 0 on non-Neuron types
  int32_t vcpu;            ///< vCPUs per instance
  int64_t memory_mib;      ///< host memory per instance in MiB (5.25 GiB = 5376)
  int32_t efa;             ///< EFA interfaces per instance (0 when unknown, see `efa_known`)
  bool efa_known;          ///< false where the catalogue has no figure (`ml.p6e-gb200.36xlarge`)

  /// Accelerators are Neuron devices (Trainium, Inferentia).
  bool is_neuron() const { return neuron_devices > 0; }
  /// Accelerators are NVIDIA GPUs.
  bool is_gpu() const { return accelerators > 0 && neuron_devices == 0; }
  /// A compute quota may name this type: every `ClusterInstanceType` of the API, which does not
  /// list the `ml.inf2.*` sizes the catalogue also holds.
  bool quota_allowed() const { return !name.starts_with("ml.inf2."); }
};

/// Every catalogued type, sorted by name.
std::span<const InstanceType> InstanceTypes();

/// The type of that name, or nullptr.
const InstanceType* FindInstanceType(std::string_view name);

/// The MIG profiles (`mig-1g.10gb`, ...) a quota's `AcceleratorPartition.Type` may name on that
/// type, in the HyperPod CLI's order; empty for types without MIG support.
std::vector<std::string_view> MigProfilesOf(std::string_view instance_type);

}  // namespace qm::hyperpod

#endif  // QM_HYPERPOD_INSTANCE_CATALOG_H_
