// Placing admitted workloads on nodes, gang-wise (docs/simulate.md §Placement).
//
// Kueue admits by quota only; the simulator then puts the pods on nodes the way a gang scheduler
// would: every pod set of a workload on nodes that carry all of its assigned flavors' labels (and
// whose taints the flavors tolerate) and match the pods' own node selector and affinity, first fit
// in node-name order, all pods or none (or, for a pod
// set with a minCount, at least minCount). A workload that does not fit waits, admitted but
// unplaced; the simulator retries it when capacity frees.
//
//   QM_ASSIGN_OR_RETURN(qm::sim::NodePool pool, qm::sim::NodePool::Create(nodes, flavors));
//   qm::sim::PodSetDemand d{.count = 8, .min_count = 8, .flavors = {pool.FlavorIndex("a100")},
//                           .requests = {{pool.ResourceIndex("nvidia.com/gpu"), 1}}};
//   qm::sim::Placement where;
//   if (pool.TryPlace({&d, 1}, &where)) { ... pool.Release(where); }
//
// Cost: TryPlace scans the candidate nodes of each pod set's flavor set once (O(nodes × resources)
// per pod set, pods of one pod set packed per node in one step), after an O(resources) reject when
// the flavor set's total free amount is too small; Release is O(slots × resources × flavor sets
// of the node).
#ifndef QM_SIM_PLACEMENT_H_
#define QM_SIM_PLACEMENT_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "qm/model/flavor.h"
#include "qm/model/node.h"

namespace qm::sim {

/// What one pod set of an admitted workload needs.
struct PodSetDemand {
  int32_t count = 0;      ///< pods admitted
  int32_t min_count = 0;  ///< at least this many must be placed (== count for a strict gang)
  /// The flavors assigned to the pod set's resources (pool flavor indices; duplicates allowed, any
  /// order). The pods go only to nodes carrying all of them; empty = any schedulable node; an
  /// unknown flavor (-1) = no node.
  std::vector<int32_t> flavors;
  /// Per-pod requests (pool resource index, amount). A resource no node has (index -1) is not
  /// limited by nodes: the pod is placed as if it asked for none of it.
  std::vector<std::pair<int32_t, int64_t>> requests;
  /// The pods' own node constraints (nullptr: none; they must outlive the call): a node must carry
  /// every label of `node_selector` and satisfy one term of `node_affinity`. (Their tolerations add
  /// nothing here: a node is a candidate only when its flavors tolerate its taints.)
  const Labels* node_selector = nullptr;
  const std::vector<NodeSelectorTerm>* node_affinity = nullptr;
};

/// Where a workload's pods went: (node index, pod set index, pods), in placement order. Reusing one
/// `Placement` across calls (after `clear()`) keeps its buffers, so steady-state placement does not
/// allocate.
struct Placement {
  struct Slot {
    int32_t node = 0;
    int32_t pod_set = 0;
    int32_t pods = 0;
  };
  std::vector<Slot> slots;
  /// Pods placed per pod set (may be below the admitted count only down to min_count).
  std::vector<int32_t> placed;
  /// The per-pod requests that were charged to nodes, for `Release`: pod set `i`'s are
  /// `requests[request_begin[i] .. request_begin[i + 1])` as (pool resource index ≥ 0, amount > 0).
  std::vector<std::pair<int32_t, int64_t>> requests;
  std::vector<int32_t> request_begin;
  void clear() {
    slots.clear();
    placed.clear();
    requests.clear();
    request_begin.clear();
  }
};

class NodePool {
 public:
  /// Nodes (any order; kept sorted by name) and the cluster's ResourceFlavors. Errors:
  /// duplicate node names; a node that no flavor matches ("Node/n-7: no ResourceFlavor matches its
  /// labels {...}"); negative allocatable amounts.
  static absl::StatusOr<NodePool> Create(std::vector<NodeSpec> nodes,
                                         std::span<const ResourceFlavorSpec> flavors);
  ~NodePool();
  NodePool(NodePool&&) noexcept;
  NodePool& operator=(NodePool&&) noexcept;

  int32_t node_count() const;
  const NodeSpec& node(int32_t index) const;
  /// -1 when unknown.
  int32_t FlavorIndex(std::string_view flavor) const;
  int32_t ResourceIndex(std::string_view resource) const;
  std::span<const std::string> resources() const;  ///< index → name
  std::span<const std::string> flavors() const;    ///< index → name
  /// The nodes a flavor matches (indices, in name order; cordoned nodes included, though they
  /// receive no pods); empty for an unknown flavor.
  std::span<const int32_t> NodesOfFlavor(int32_t flavor) const;
  /// Allocatable and free amount of a resource on a node (0 when the node has none).
  int64_t Allocatable(int32_t node, int32_t resource) const;
  int64_t Free(int32_t node, int32_t resource) const;
  bool IsUp(int32_t node) const;

  /// Places every pod set or nothing; on success fills `out` and takes the capacity. Pod sets are
  /// placed in order, each first fit in node-name order; on failure `out` is cleared and every
  /// free amount is exactly as before. Allocates nothing once `out`'s buffers (and the cache of
  /// the demand's flavor combination) are warm.
  bool TryPlace(std::span<const PodSetDemand> demand, Placement* out);
  /// Gives back what `TryPlace` took (also for nodes that went down since).
  void Release(const Placement& placement);
  /// A node failed (down: nothing new is placed on it) or was repaired. Pods on it are the
  /// caller's to evict; their capacity comes back with `Release`.
  void SetUp(int32_t node, bool up);

 private:
  struct Impl;
  explicit NodePool(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Nodes for a HyperPod inventory: `count` nodes per instance type named `<type>-<i>` (i from 0),
/// label `node.kubernetes.io/instance-type: <type>`, allocatable from the instance catalogue
/// (nvidia.com/gpu or aws.amazon.com/neurondevice, cpu, memory, vpc.amazonaws.com/efa). Error for
/// an instance type not in the catalogue.
absl::StatusOr<std::vector<NodeSpec>> NodesFromInventory(
    std::span<const std::pair<std::string, int64_t>> instances);

}  // namespace qm::sim

#endif  // QM_SIM_PLACEMENT_H_
