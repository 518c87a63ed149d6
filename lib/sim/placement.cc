// Gang placement on nodes (docs/simulate.md §Placement).
//
// The pool keeps free amounts in one dense node × resource table. Every pod set is placed on the
// candidate nodes of its *flavor set* (the nodes that match all its flavors and are schedulable),
// which is computed once per distinct set and cached. Each flavor set also keeps the total free
// amount of its up candidates, updated on every take and give-back, so a gang that cannot fit even
// in total is rejected without looking at a node.
#include "qm/sim/placement.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "fmt/format.h"
#include "qm/core/assert.h"

namespace qm::sim {
namespace {

__extension__ typedef __int128 Int128;

// "file:line: Node/name", or "Node/name" for a node built in code.
std::string NodeLabel(const NodeSpec& node) {
  return node.source.empty() ? fmt::format("Node/{}", node.name)
                             : fmt::format("{}: Node/{}", node.source, node.name);
}

std::string LabelsText(const Labels& labels) {
  std::string out = "{";
  for (const auto& [k, v] : labels) {
    if (out.size() > 1) out += ", ";
    out += fmt::format("{}={}", k, v);
  }
  return out + "}";
}

std::string TaintText(const Taint& t) {
  return t.value.empty() ? fmt::format("{}:{}", t.key, TaintEffectName(t.effect))
                         : fmt::format("{}={}:{}", t.key, t.value, TaintEffectName(t.effect));
}

bool HasLabels(const Labels& node_labels, const Labels& wanted) {
  for (const auto& [k, v] : wanted) {
    const std::string* got = FindLabel(node_labels, k);
    if (got == nullptr || *got != v) return false;
  }
  return true;
}

// Whether pods admitted to `flavor` may run despite `taint`. Only NoSchedule and NoExecute keep
// pods off a node. Kueue adds the flavor's tolerations to the pods it admits, and admits to a
// flavor only pods that tolerate the flavor's `nodeTaints`, so both count.
bool FlavorTolerates(const ResourceFlavorSpec& flavor, const Taint& taint) {
  if (taint.effect == TaintEffect::kPreferNoSchedule) return true;
  for (const Toleration& t : flavor.tolerations) {
    if (Tolerates(t, taint)) return true;
  }
  for (const Taint& own : flavor.node_taints) {
    if (own.key == taint.key && own.value == taint.value && own.effect == taint.effect) return true;
  }
  return false;
}

// The first taint of `node` the flavor does not tolerate, or nullptr.
const Taint* UntoleratedTaint(const ResourceFlavorSpec& flavor, const NodeSpec& node) {
  for (const Taint& taint : node.taints) {
    if (!FlavorTolerates(flavor, taint)) return &taint;
  }
  return nullptr;
}

}  // namespace

struct NodePool::Impl {
  // The nodes that may receive a pod set's pods, and what they have free in total.
  struct FlavorSet {
    std::vector<int32_t> key;    // sorted, unique flavor indices; empty = no flavor constraint
    std::vector<int32_t> nodes;  // schedulable nodes matching every flavor of `key`, name order
    // Per resource: the sum of `free` over the up nodes of `nodes` (never negative).
    std::vector<Int128> free_up;
  };

  std::vector<NodeSpec> nodes;           // sorted by name (unique)
  std::vector<std::string> resources;    // sorted names of every resource some node has
  std::vector<std::string> flavor_names;  // sorted
  int32_t resource_count = 0;
  std::vector<int64_t> allocatable;  // [node * resource_count + resource]
  std::vector<int64_t> free;         // same shape; 0 ≤ free ≤ allocatable
  std::vector<uint8_t> up;           // per node; down nodes keep their pods until released
  std::vector<std::vector<int32_t>> flavor_nodes;  // per flavor: matching nodes (cordoned too)

  // Set `f` (f < flavor count) is flavor f's own; the next is the unconstrained set; multi-flavor
  // sets follow in order of first use.
  std::vector<FlavorSet> sets;
  int32_t unconstrained_set = 0;
  std::vector<std::vector<int32_t>> sets_of_node;     // per node: sets listing it as candidate
  std::vector<std::vector<int32_t>> multi_by_first;  // per flavor: multi-flavor sets by key[0]
  std::vector<int32_t> key_scratch;                   // reused by `SetFor`

  int64_t& FreeAt(int32_t node, int32_t r) {
    return free[static_cast<size_t>(node) * static_cast<size_t>(resource_count) +
                static_cast<size_t>(r)];
  }

  int32_t AddSet(std::vector<int32_t> key, std::vector<int32_t> candidates) {
    const auto id = static_cast<int32_t>(sets.size());
    FlavorSet set{.key = std::move(key), .nodes = std::move(candidates),
                  .free_up = std::vector<Int128>(static_cast<size_t>(resource_count), 0)};
    for (int32_t n : set.nodes) {
      sets_of_node[static_cast<size_t>(n)].push_back(id);
      if (!up[static_cast<size_t>(n)]) continue;
      for (int32_t r = 0; r < resource_count; ++r) set.free_up[static_cast<size_t>(r)] += FreeAt(n, r);
    }
    sets.push_back(std::move(set));
    return id;
  }

  // The flavor set of a pod set's flavors; -1 when one of them is not a pool flavor (no node can
  // take the pods). Allocates only the first time a multi-flavor combination is seen.
  int32_t SetFor(std::span<const int32_t> flavors) {
    const auto flavor_count = static_cast<int32_t>(flavor_names.size());
    if (flavors.empty()) return unconstrained_set;
    if (flavors.size() == 1) return flavors[0] >= 0 && flavors[0] < flavor_count ? flavors[0] : -1;
    key_scratch.assign(flavors.begin(), flavors.end());
    std::sort(key_scratch.begin(), key_scratch.end());
    key_scratch.erase(std::unique(key_scratch.begin(), key_scratch.end()), key_scratch.end());
    if (key_scratch.front() < 0 || key_scratch.back() >= flavor_count) return -1;
    if (key_scratch.size() == 1) return key_scratch[0];
    for (int32_t id : multi_by_first[static_cast<size_t>(key_scratch[0])]) {
      if (sets[static_cast<size_t>(id)].key == key_scratch) return id;
    }
    // Intersect the flavors' candidate lists (all in name order).
    std::vector<int32_t> candidates = sets[static_cast<size_t>(key_scratch[0])].nodes;
    for (size_t i = 1; i < key_scratch.size(); ++i) {
      const std::vector<int32_t>& other = sets[static_cast<size_t>(key_scratch[i])].nodes;
      std::vector<int32_t> both;
      std::set_intersection(candidates.begin(), candidates.end(), other.begin(), other.end(),
                            std::back_inserter(both));
      candidates = std::move(both);
    }
    const int32_t id = AddSet(key_scratch, std::move(candidates));
    multi_by_first[static_cast<size_t>(key_scratch[0])].push_back(id);
    return id;
  }

  // Adds `pods × amount` of every request to the node's free amounts (`sign` = +1) or takes it
  // (`sign` = -1), keeping the flavor sets' totals in step while the node is up.
  void Charge(int32_t node, int64_t pods, std::span<const std::pair<int32_t, int64_t>> requests,
              int sign) {
    const bool is_up = up[static_cast<size_t>(node)] != 0;
    for (const auto& [r, amount] : requests) {
      const int64_t delta = sign * pods * amount;
      int64_t& f = FreeAt(node, r);
      f += delta;
      QM_DCHECK(f >= 0 && f <= allocatable[static_cast<size_t>(&f - free.data())],
                "placement: free amount out of range (release without a matching place?)");
      if (!is_up) continue;
      for (int32_t id : sets_of_node[static_cast<size_t>(node)]) {
        sets[static_cast<size_t>(id)].free_up[static_cast<size_t>(r)] += delta;
      }
    }
  }

  std::span<const std::pair<int32_t, int64_t>> RequestsOf(const Placement& p, int32_t pod_set) {
    const auto i = static_cast<size_t>(pod_set);
    return std::span(p.requests)
        .subspan(static_cast<size_t>(p.request_begin[i]),
                 static_cast<size_t>(p.request_begin[i + 1] - p.request_begin[i]));
  }

  // Places up to `count` pods first-fit on the set's up candidates; returns how many went.
  // Whether `node` satisfies the pods' own node selector and affinity.
  bool Accepts(int32_t node, const PodSetDemand& d) const {
    return NodeAccepts(nodes[static_cast<size_t>(node)].labels, d.node_selector, d.node_affinity);
  }

  int32_t Pack(const FlavorSet& set, const PodSetDemand& d, int32_t pod_set, int32_t count,
               std::span<const std::pair<int32_t, int64_t>> requests, Placement* out) {
    const bool constrained = d.node_selector != nullptr || d.node_affinity != nullptr;
    int32_t remaining = count;
    for (int32_t node : set.nodes) {
      if (!up[static_cast<size_t>(node)]) continue;
      if (constrained && !Accepts(node, d)) continue;
      // How many pods fit: the minimum over requests of free / request. Comparing before
      // dividing keeps full nodes (the common case in a busy cluster) at one compare each.
      int64_t fit = remaining;
      for (const auto& [r, amount] : requests) {
        const int64_t f = FreeAt(node, r);
        if (f < amount) {
          fit = 0;
          break;
        }
        if (Int128{f} < Int128{fit} * amount) fit = f / amount;
      }
      if (fit == 0) continue;
      Charge(node, fit, requests, -1);
      out->slots.push_back({.node = node, .pod_set = pod_set, .pods = static_cast<int32_t>(fit)});
      remaining -= static_cast<int32_t>(fit);
      if (remaining == 0) break;
    }
    return count - remaining;
  }

  void GiveBack(const Placement& p) {
    for (const Placement::Slot& slot : p.slots) {
      Charge(slot.node, slot.pods, RequestsOf(p, slot.pod_set), +1);
    }
  }
};

absl::StatusOr<NodePool> NodePool::Create(std::vector<NodeSpec> nodes,
                                          std::span<const ResourceFlavorSpec> flavors) {
  auto impl = std::make_unique<Impl>();
  // Stable: of two nodes with one name, the later one in the input is the one reported.
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const NodeSpec& a, const NodeSpec& b) { return a.name < b.name; });
  for (size_t i = 1; i < nodes.size(); ++i) {
    if (nodes[i].name != nodes[i - 1].name) continue;
    const NodeSpec& again = nodes[i];
    const NodeSpec& first = nodes[i - 1];
    return absl::InvalidArgumentError(
        first.source.empty()
            ? fmt::format("{}: duplicate node name", NodeLabel(again))
            : fmt::format("{}: duplicate node (first defined at {})", NodeLabel(again), first.source));
  }
  std::vector<std::string> resources;
  for (NodeSpec& node : nodes) {
    std::sort(node.allocatable.begin(), node.allocatable.end());
    for (size_t i = 0; i < node.allocatable.size(); ++i) {
      const auto& [resource, amount] = node.allocatable[i];
      if (i > 0 && node.allocatable[i - 1].first == resource) {
        return absl::InvalidArgumentError(
            fmt::format("{}: allocatable lists '{}' twice", NodeLabel(node), resource));
      }
      if (amount < 0) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: allocatable '{}' is {} (must not be negative)", NodeLabel(node), resource, amount));
      }
      resources.push_back(resource);
    }
  }
  std::sort(resources.begin(), resources.end());
  resources.erase(std::unique(resources.begin(), resources.end()), resources.end());

  std::vector<const ResourceFlavorSpec*> sorted_flavors;
  for (const ResourceFlavorSpec& f : flavors) sorted_flavors.push_back(&f);
  std::sort(sorted_flavors.begin(), sorted_flavors.end(),
            [](const ResourceFlavorSpec* a, const ResourceFlavorSpec* b) { return a->name < b->name; });
  for (size_t i = 1; i < sorted_flavors.size(); ++i) {
    if (sorted_flavors[i]->name == sorted_flavors[i - 1]->name) {
      return absl::InvalidArgumentError(
          fmt::format("ResourceFlavor/{}: duplicate ResourceFlavor", sorted_flavors[i]->name));
    }
  }

  // Which flavors each node carries; a node none matches is an error (a typo in a label, most
  // likely: its capacity would silently never be used).
  const size_t node_count = nodes.size();
  impl->flavor_nodes.resize(sorted_flavors.size());
  for (size_t n = 0; n < node_count; ++n) {
    bool matched = false;
    const ResourceFlavorSpec* labels_only = nullptr;
    const Taint* blocking = nullptr;
    for (size_t f = 0; f < sorted_flavors.size(); ++f) {
      if (!HasLabels(nodes[n].labels, sorted_flavors[f]->node_labels)) continue;
      if (const Taint* t = UntoleratedTaint(*sorted_flavors[f], nodes[n]); t != nullptr) {
        if (labels_only == nullptr) {
          labels_only = sorted_flavors[f];
          blocking = t;
        }
        continue;
      }
      impl->flavor_nodes[f].push_back(static_cast<int32_t>(n));
      matched = true;
    }
    if (matched) continue;
    std::string message = fmt::format("{}: no ResourceFlavor matches its labels {}",
                                      NodeLabel(nodes[n]), LabelsText(nodes[n].labels));
    if (labels_only != nullptr) {
      message += fmt::format(" and tolerates its taints (ResourceFlavor '{}' matches the labels but "
                             "not the taint {})",
                             labels_only->name, TaintText(*blocking));
    }
    return absl::InvalidArgumentError(message);
  }

  impl->resource_count = static_cast<int32_t>(resources.size());
  impl->resources = std::move(resources);
  for (const ResourceFlavorSpec* f : sorted_flavors) impl->flavor_names.push_back(f->name);
  const auto r_count = static_cast<size_t>(impl->resource_count);
  impl->allocatable.assign(node_count * r_count, 0);
  for (size_t n = 0; n < node_count; ++n) {
    for (const auto& [resource, amount] : nodes[n].allocatable) {
      const auto r = std::lower_bound(impl->resources.begin(), impl->resources.end(), resource) -
                     impl->resources.begin();
      impl->allocatable[n * r_count + static_cast<size_t>(r)] = amount;
    }
  }
  impl->free = impl->allocatable;
  impl->up.assign(node_count, 1);
  impl->nodes = std::move(nodes);
  impl->sets_of_node.resize(node_count);
  impl->multi_by_first.resize(sorted_flavors.size());

  // Unschedulable (cordoned) nodes match their flavors but are never candidates.
  auto schedulable = [&](const std::vector<int32_t>& in) {
    std::vector<int32_t> out;
    for (int32_t n : in) {
      if (!impl->nodes[static_cast<size_t>(n)].unschedulable) out.push_back(n);
    }
    return out;
  };
  for (size_t f = 0; f < sorted_flavors.size(); ++f) {
    impl->AddSet({static_cast<int32_t>(f)}, schedulable(impl->flavor_nodes[f]));
  }
  std::vector<int32_t> all(node_count);
  for (size_t n = 0; n < node_count; ++n) all[n] = static_cast<int32_t>(n);
  impl->unconstrained_set = impl->AddSet({}, schedulable(all));
  return NodePool(std::move(impl));
}

NodePool::NodePool(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NodePool::~NodePool() = default;
NodePool::NodePool(NodePool&&) noexcept = default;
NodePool& NodePool::operator=(NodePool&&) noexcept = default;

int32_t NodePool::node_count() const { return static_cast<int32_t>(impl_->nodes.size()); }

const NodeSpec& NodePool::node(int32_t index) const {
  return impl_->nodes[static_cast<size_t>(index)];
}

int32_t NodePool::FlavorIndex(std::string_view flavor) const {
  const auto& names = impl_->flavor_names;
  const auto it = std::lower_bound(names.begin(), names.end(), flavor);
  return it != names.end() && *it == flavor ? static_cast<int32_t>(it - names.begin()) : -1;
}

int32_t NodePool::ResourceIndex(std::string_view resource) const {
  const auto& names = impl_->resources;
  const auto it = std::lower_bound(names.begin(), names.end(), resource);
  return it != names.end() && *it == resource ? static_cast<int32_t>(it - names.begin()) : -1;
}

std::span<const std::string> NodePool::resources() const { return impl_->resources; }
std::span<const std::string> NodePool::flavors() const { return impl_->flavor_names; }

std::span<const int32_t> NodePool::NodesOfFlavor(int32_t flavor) const {
  if (flavor < 0 || flavor >= static_cast<int32_t>(impl_->flavor_nodes.size())) return {};
  return impl_->flavor_nodes[static_cast<size_t>(flavor)];
}

int64_t NodePool::Allocatable(int32_t node, int32_t resource) const {
  if (resource < 0) return 0;
  return impl_->allocatable[static_cast<size_t>(node) * static_cast<size_t>(impl_->resource_count) +
                            static_cast<size_t>(resource)];
}

int64_t NodePool::Free(int32_t node, int32_t resource) const {
  if (resource < 0) return 0;
  return impl_->FreeAt(node, resource);
}

bool NodePool::IsUp(int32_t node) const { return impl_->up[static_cast<size_t>(node)] != 0; }

bool NodePool::TryPlace(std::span<const PodSetDemand> demand, Placement* out) {
  Impl& p = *impl_;
  out->clear();
  out->placed.assign(demand.size(), 0);
  // The node-limited requests of every pod set, kept in `out` for `Release`.
  for (const PodSetDemand& d : demand) {
    out->request_begin.push_back(static_cast<int32_t>(out->requests.size()));
    for (const auto& [r, amount] : d.requests) {
      QM_DCHECK(r < p.resource_count, "PodSetDemand: resource index out of range");
      if (r >= 0 && amount > 0) out->requests.emplace_back(r, amount);
    }
  }
  out->request_begin.push_back(static_cast<int32_t>(out->requests.size()));

  auto fail = [&] {
    p.GiveBack(*out);
    out->clear();
    return false;
  };
  for (size_t i = 0; i < demand.size(); ++i) {
    const PodSetDemand& d = demand[i];
    if (d.count <= 0) continue;
    const int32_t need = std::clamp(d.min_count, 0, d.count);
    const int32_t set_id = p.SetFor(d.flavors);
    if (set_id < 0) return fail();
    const Impl::FlavorSet& set = p.sets[static_cast<size_t>(set_id)];
    const auto requests = p.RequestsOf(*out, static_cast<int32_t>(i));
    // Quick reject: not even the flavor set's total free amount covers `need` pods.
    for (const auto& [r, amount] : requests) {
      if (Int128{need} * amount > set.free_up[static_cast<size_t>(r)]) return fail();
    }
    int32_t placed = 0;
    if (requests.empty()) {
      // Nothing node-limited: the whole pod set goes to the first up candidate.
      for (int32_t node : set.nodes) {
        if (!p.up[static_cast<size_t>(node)] || !p.Accepts(node, d)) continue;
        out->slots.push_back({.node = node, .pod_set = static_cast<int32_t>(i), .pods = d.count});
        placed = d.count;
        break;
      }
    } else {
      placed = p.Pack(set, d, static_cast<int32_t>(i), d.count, requests, out);
    }
    if (placed < need) return fail();
    out->placed[i] = placed;
  }
  return true;
}

void NodePool::Release(const Placement& placement) { impl_->GiveBack(placement); }

void NodePool::SetUp(int32_t node, bool up) {
  Impl& p = *impl_;
  uint8_t& state = p.up[static_cast<size_t>(node)];
  if ((state != 0) == up) return;
  state = up ? 1 : 0;
  // The node's free capacity joins (or leaves) the totals of its flavor sets.
  for (int32_t id : p.sets_of_node[static_cast<size_t>(node)]) {
    Impl::FlavorSet& set = p.sets[static_cast<size_t>(id)];
    for (int32_t r = 0; r < p.resource_count; ++r) {
      const int64_t f = p.FreeAt(node, r);
      set.free_up[static_cast<size_t>(r)] += up ? f : -f;
    }
  }
}

}  // namespace qm::sim
