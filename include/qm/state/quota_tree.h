// Quota and usage over the cohort tree (docs/semantics.md §2).
//
// Every ClusterQueue and every Cohort is a node; ClusterQueues are leaves. Each node holds, per
// (flavor, resource) slot, its own quota (nominal, borrowing and lending limits) and the derived
// subtree quota, guaranteed ("local") quota, potential and usage. Usage changes propagate
// incrementally up the tree; structural changes (quotas, edges) recompute only the affected trees.
//
// Costs, with d = depth of the tree (≤ a handful in practice) and F = number of FR slots:
//   AddUsage / RemoveUsage of one FR ..... O(d)
//   Available(cq, fr) ..................... O(d)
//   PotentialAvailable(cq, fr) ............ O(1) (precomputed)
//   BorrowingLevel(cq, fr, v) ............. O(d)
//   DominantShare(node) ................... O(R) for R resources (borrowed sums are incremental)
//   Recompute(tree) ....................... O(nodes of that tree × F)
#ifndef QM_STATE_QUOTA_TREE_H_
#define QM_STATE_QUOTA_TREE_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "qm/core/assert.h"
#include "qm/core/ids.h"
#include "qm/core/quantity.h"
#include "qm/state/share.h"

namespace qm {

using NodeIndex = uint32_t;
inline constexpr NodeIndex kNoNode = std::numeric_limits<NodeIndex>::max();

/// Quota and usage of one node for one (flavor, resource).
struct FrQuota {
  // Own quota, from the node's resource groups. Unset limits are `kUnlimited`.
  int64_t nominal = 0;
  int64_t borrowing_limit = kUnlimited;
  int64_t lending_limit = kUnlimited;
  // Derived by Recompute.
  int64_t subtree_quota = 0;  ///< CQ: nominal; cohort: nominal + Σ children's lendable part
  int64_t local_quota = 0;    ///< guaranteed: max(0, subtree − lending_limit); 0 without a limit
  int64_t potential = 0;      ///< the most the node could get if nothing else ran
  // Maintained incrementally, exactly: `usage_exact` is the sum (CQ: Σ admitted workloads; cohort:
  // Σ children's usage above their local quota) and `usage` = ClampAmount(usage_exact) is what
  // readers compare with quotas. A saturating sum could not be undone when a workload leaves.
  int64_t usage = 0;
  WideAmount usage_exact = 0;
};

/// Borrowing level of putting an amount into a ClusterQueue (docs/semantics.md §2): 0 when it fits within
/// nominal, else the height of the lowest ancestor subtree whose quota absorbs it.
struct BorrowLevel {
  int level = 0;
  /// Whether a subtree that absorbs it has a parent, i.e. its quota could be reclaimed from others.
  bool may_reclaim = false;
};

/// The quota tree. Node indexes are stable for the lifetime of the tree.
class QuotaTree {
 public:
  struct Node {
    NodeIndex parent = kNoNode;
    bool is_cluster_queue = false;
    uint32_t owner = 0;  ///< ClusterQueueId or CohortId value
    int height = 0;                   ///< cohorts: see docs/semantics.md §2; ClusterQueues: 0
    std::vector<NodeIndex> children;  ///< kept sorted by index
    int64_t weight_milli = 1000;
    /// `usage_changes()` as of the latest AddUsage or RemoveUsage that changed this node's usage
    /// (a simulation and its undo count too): what was computed from this node's usage at count c
    /// still holds while this is ≤ c. Derived, never saved (0 after a restore, like the count).
    uint64_t usage_changed_at = 0;
    std::vector<FrQuota> fr;          ///< indexed by FrId
    /// Per resource: Σ over its FRs of max(0, usage − subtree_quota) (what the node borrows), exact
    /// (up to 2^16 FRs per resource of at most 2^95 each), so incremental updates never overflow.
    std::vector<WideAmount> borrowed;
    /// Per resource: Σ over its FRs of potential (what this node could lend to a child; a child's
    /// "lendable" in the share formula is its parent's value).
    std::vector<int64_t> potential_sum;
  };

  // ---- Structure ------------------------------------------------------------------------------

  NodeIndex AddNode(bool is_cluster_queue, uint32_t owner) {
    Node n;
    n.is_cluster_queue = is_cluster_queue;
    n.owner = owner;
    n.fr.resize(fr_resource_.size());
    n.borrowed.assign(resource_count_, 0);
    n.potential_sum.assign(resource_count_, 0);
    nodes_.push_back(std::move(n));
    return static_cast<NodeIndex>(nodes_.size() - 1);
  }

  /// Makes room for FR slot `fr` (of resource `resource`) in every node.
  void EnsureFr(FrId fr, ResourceId resource) {
    if (resource.value >= resource_count_) {
      resource_count_ = resource.value + 1;
      for (auto& n : nodes_) {
        n.borrowed.resize(resource_count_, 0);
        n.potential_sum.resize(resource_count_, 0);
      }
    }
    if (fr.value < fr_resource_.size()) return;
    fr_resource_.resize(fr.value + 1);
    fr_resource_[fr.value] = resource;
    for (auto& n : nodes_) n.fr.resize(fr_resource_.size());
  }

  /// Re-links `n` under `parent` (kNoNode = root). Call Recompute on the old and new roots after.
  void SetParent(NodeIndex n, NodeIndex parent) {
    Node& node = nodes_[n];
    if (node.parent == parent) return;
    if (node.parent != kNoNode) {
      auto& siblings = nodes_[node.parent].children;
      siblings.erase(std::find(siblings.begin(), siblings.end(), n));
    }
    node.parent = parent;
    if (parent != kNoNode) {
      auto& siblings = nodes_[parent].children;
      siblings.insert(std::lower_bound(siblings.begin(), siblings.end(), n), n);
    }
  }

  /// Resets the node's own quotas (usage is kept).
  void ClearQuota(NodeIndex n) {
    for (auto& q : nodes_[n].fr) {
      q.nominal = 0;
      q.borrowing_limit = kUnlimited;
      q.lending_limit = kUnlimited;
    }
  }
  void SetQuota(NodeIndex n, FrId fr, int64_t nominal, int64_t borrowing_limit,
                int64_t lending_limit) {
    FrQuota& q = nodes_[n].fr[fr.value];
    q.nominal = nominal;
    q.borrowing_limit = borrowing_limit;
    q.lending_limit = lending_limit;
  }
  void SetWeight(NodeIndex n, int64_t weight_milli) { nodes_[n].weight_milli = weight_milli; }

  NodeIndex Root(NodeIndex n) const {
    while (nodes_[n].parent != kNoNode) n = nodes_[n].parent;
    return n;
  }

  /// Recomputes every derived value of the tree rooted at `root`: subtree and local quotas, cohort
  /// usage (from the ClusterQueues' usage), potentials, heights and share sums.
  void Recompute(NodeIndex root) {
    QM_DCHECK(nodes_[root].parent == kNoNode, "Recompute expects a root");
    std::vector<NodeIndex> order;  // pre-order
    order.push_back(root);
    for (size_t i = 0; i < order.size(); ++i)
      for (NodeIndex c : nodes_[order[i]].children) order.push_back(c);
    const size_t frs = fr_resource_.size();
    ++usage_changes_;  // every cohort's usage is summed again: nothing computed before holds
    // Bottom-up: subtree quota, local quota, cohort usage, height.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Node& n = nodes_[*it];
      n.usage_changed_at = usage_changes_;
      for (size_t f = 0; f < frs; ++f) {
        FrQuota& q = n.fr[f];
        q.subtree_quota = q.nominal;
        if (!n.is_cluster_queue) q.usage_exact = 0;
      }
      n.height = 0;
      for (NodeIndex c : n.children) {
        const Node& child = nodes_[c];
        if (!n.is_cluster_queue) n.height = std::max(n.height, child.is_cluster_queue ? 1 : child.height + 1);
        for (size_t f = 0; f < frs; ++f) {
          const FrQuota& cq = child.fr[f];
          FrQuota& q = n.fr[f];
          q.subtree_quota = AddAmount(q.subtree_quota, SubAmount(cq.subtree_quota, cq.local_quota));
          q.usage_exact += std::max<WideAmount>(0, cq.usage_exact - cq.local_quota);
        }
      }
      for (size_t f = 0; f < frs; ++f) {
        FrQuota& q = n.fr[f];
        q.local_quota = std::max<int64_t>(0, SubAmount(q.subtree_quota, q.lending_limit));
        q.usage = ClampAmount(q.usage_exact);
      }
    }
    // Top-down: potential, then the per-resource sums.
    for (NodeIndex idx : order) {
      Node& n = nodes_[idx];
      for (size_t f = 0; f < frs; ++f) {
        FrQuota& q = n.fr[f];
        if (n.parent == kNoNode) {
          q.potential = q.subtree_quota;
        } else {
          q.potential = AddAmount(q.local_quota, nodes_[n.parent].fr[f].potential);
          if (q.borrowing_limit != kUnlimited)
            q.potential = std::min(q.potential, AddAmount(q.subtree_quota, q.borrowing_limit));
        }
      }
      std::fill(n.borrowed.begin(), n.borrowed.end(), 0);
      std::fill(n.potential_sum.begin(), n.potential_sum.end(), 0);
      for (size_t f = 0; f < frs; ++f) {
        const FrQuota& q = n.fr[f];
        const uint32_t r = fr_resource_[f].value;
        n.borrowed[r] += Borrowed(q);
        n.potential_sum[r] = AddAmount(n.potential_sum[r], q.potential);
      }
    }
  }

  // ---- Usage (hot path) -----------------------------------------------------------------------

  /// Adds `v` ≥ 0 of `fr` to node `n`: it first fills n's free guaranteed quota; only the excess
  /// reaches the parent.
  void AddUsage(NodeIndex n, FrId fr, int64_t v) {
    ++usage_changes_;
    const uint32_t f = fr.value;
    const uint32_t r = fr_resource_[f].value;
    WideAmount left = v;
    while (n != kNoNode && left > 0) {
      Node& node = nodes_[n];
      FrQuota& q = node.fr[f];
      const WideAmount local_available = std::max<WideAmount>(0, q.local_quota - q.usage_exact);
      const WideAmount old_borrowed = Borrowed(q);
      q.usage_exact += left;
      q.usage = ClampAmount(q.usage_exact);
      node.borrowed[r] += Borrowed(q) - old_borrowed;
      node.usage_changed_at = usage_changes_;
      if (left <= local_available) break;
      left -= local_available;
      n = node.parent;
    }
  }

  /// Removes `v` ≥ 0 of `fr` from node `n`: the exact inverse of AddUsage, since every sum on the
  /// way is exact (`WideAmount`), whatever the amounts.
  void RemoveUsage(NodeIndex n, FrId fr, int64_t v) {
    ++usage_changes_;
    const uint32_t f = fr.value;
    const uint32_t r = fr_resource_[f].value;
    WideAmount left = v;
    while (n != kNoNode && left > 0) {
      Node& node = nodes_[n];
      FrQuota& q = node.fr[f];
      const WideAmount in_parent = q.usage_exact - q.local_quota;
      const WideAmount old_borrowed = Borrowed(q);
      q.usage_exact -= left;
      q.usage = ClampAmount(q.usage_exact);
      node.borrowed[r] += Borrowed(q) - old_borrowed;
      node.usage_changed_at = usage_changes_;
      if (in_parent <= 0) break;
      left = std::min(left, in_parent);
      n = node.parent;
    }
  }

  /// Counts AddUsage and RemoveUsage calls: what was computed from usage at one count still holds
  /// while the count is the same (a simulation and its undo count twice, conservatively).
  uint64_t usage_changes() const { return usage_changes_; }

  /// What node `n` can still take of `fr` now, possibly borrowing, clipped by every borrowing
  /// limit on the way up. Never negative.
  int64_t Available(NodeIndex n, FrId fr) const { return std::max<int64_t>(0, RawAvailable(n, fr.value)); }

  /// The most node `n` could ever get of `fr` (nothing else running).
  int64_t PotentialAvailable(NodeIndex n, FrId fr) const { return nodes_[n].fr[fr.value].potential; }

  /// Borrowing level of putting `v` more of `fr` into ClusterQueue node `cq` (docs/semantics.md §2).
  BorrowLevel BorrowingLevel(NodeIndex cq, FrId fr, int64_t v) const {
    const uint32_t f = fr.value;
    const Node& c = nodes_[cq];
    const FrQuota& q = c.fr[f];
    if (!(AddAmount(q.usage, v) > q.nominal) || c.parent == kNoNode)
      return {0, c.parent != kNoNode};
    int64_t rem = SubAmount(v, LocalAvailable(q));
    NodeIndex a = c.parent;
    for (;;) {
      const Node& an = nodes_[a];
      const FrQuota& aq = an.fr[f];
      if (AddAmount(aq.usage, rem) <= aq.subtree_quota) return {an.height, an.parent != kNoNode};
      if (an.parent == kNoNode) return {an.height, false};
      rem = SubAmount(rem, LocalAvailable(aq));
      a = an.parent;
    }
  }

  // ---- Predicates -----------------------------------------------------------------------------

  /// Usage ≤ subtree quota on `fr` (for a ClusterQueue: within nominal).
  bool WithinNominal(NodeIndex n, FrId fr) const {
    const FrQuota& q = nodes_[n].fr[fr.value];
    return q.usage <= q.subtree_quota;
  }
  /// Usage > subtree quota on `fr`.
  bool Borrows(NodeIndex n, FrId fr) const { return !WithinNominal(n, fr); }
  /// Borrows on at least one resource (any flavor).
  bool BorrowsAny(NodeIndex n) const {
    for (WideAmount b : nodes_[n].borrowed)
      if (b > 0) return true;
    return false;
  }

  /// The dominant resource share of node `n` (docs/semantics.md §6.2). `names_less(a, b)` orders resources
  /// by name, for the tie between equal ratios.
  template <class NameLess>
  Share DominantShare(NodeIndex n, NameLess names_less) const {
    const Node& node = nodes_[n];
    Share s;
    s.weight_milli = node.weight_milli;
    if (node.parent == kNoNode) return s;
    const Node& parent = nodes_[node.parent];
    for (uint32_t r = 0; r < node.borrowed.size(); ++r) {
      const int64_t b = ClampAmount(node.borrowed[r]);
      const int64_t lendable = parent.potential_sum[r];
      if (b <= 0 || lendable <= 0) continue;
      if (s.is_zero()) {
        s.borrowed = b;
        s.lendable = lendable;
        s.dominant = ResourceId(r);
        continue;
      }
      // Kueue's ratio is integer-free here; compare b/lendable exactly.
      auto c = CompareRatio(b, lendable, s.borrowed, s.lendable);
      if (c > 0 || (c == 0 && names_less(ResourceId(r), s.dominant))) {
        s.borrowed = b;
        s.lendable = lendable;
        s.dominant = ResourceId(r);
      }
    }
    return s;
  }

  // ---- Access ---------------------------------------------------------------------------------

  const Node& node(NodeIndex n) const { return nodes_[n]; }
  /// Writable node, for `Engine::Restore` only: it rebuilds a saved tree with AddNode, EnsureFr and
  /// SetParent, sets the saved values here, then checks them against `Recompute`.
  Node& mutable_node(NodeIndex n) { return nodes_[n]; }
  const FrQuota& quota(NodeIndex n, FrId fr) const { return nodes_[n].fr[fr.value]; }
  NodeIndex parent(NodeIndex n) const { return nodes_[n].parent; }
  uint32_t node_count() const { return static_cast<uint32_t>(nodes_.size()); }
  uint32_t fr_count() const { return static_cast<uint32_t>(fr_resource_.size()); }
  ResourceId fr_resource(FrId fr) const { return fr_resource_[fr.value]; }

 private:
  // What a node borrows of one FR: its usage above its subtree quota. `kUnlimited` quota counts as
  // the int64 maximum here, which only matters once usage passes it (the ∞ rules would then make
  // the amount depend on the order of additions).
  static WideAmount Borrowed(const FrQuota& q) { return std::max<WideAmount>(0, q.usage_exact - q.subtree_quota); }
  static int64_t LocalAvailable(const FrQuota& q) { return std::max<int64_t>(0, SubAmount(q.local_quota, q.usage)); }

  int64_t RawAvailable(NodeIndex n, uint32_t f) const {
    // Walk up to the root collecting the path, then fold top-down.
    NodeIndex path[kMaxDepth];
    int depth = 0;
    for (NodeIndex i = n; i != kNoNode; i = nodes_[i].parent) {
      QM_DCHECK(depth < kMaxDepth, "cohort tree deeper than kMaxDepth");
      path[depth++] = i;
    }
    const FrQuota& root = nodes_[path[depth - 1]].fr[f];
    int64_t avail = SubAmount(root.subtree_quota, root.usage);
    for (int i = depth - 2; i >= 0; --i) {
      const FrQuota& q = nodes_[path[i]].fr[f];
      int64_t from_parent = avail;
      if (q.borrowing_limit != kUnlimited) {
        const int64_t stored = SubAmount(q.subtree_quota, q.local_quota);
        const int64_t used = std::max<int64_t>(0, SubAmount(q.usage, q.local_quota));
        from_parent = std::min(from_parent, AddAmount(SubAmount(stored, used), q.borrowing_limit));
      }
      avail = AddAmount(LocalAvailable(q), from_parent);
    }
    return avail;
  }

 public:
  /// Deepest cohort tree supported (validation rejects deeper trees).
  static constexpr int kMaxDepth = 64;

 private:
  std::vector<Node> nodes_;
  std::vector<ResourceId> fr_resource_;
  uint32_t resource_count_ = 0;
  uint64_t usage_changes_ = 0;
};

}  // namespace qm

#endif  // QM_STATE_QUOTA_TREE_H_
