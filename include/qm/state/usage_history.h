// Decayed borrowing history for the historical fair-share mode (docs/semantics.md §11.8; not
// Kueue, off by default).
//
// For every node of the quota tree (ClusterQueue or Cohort) and every resource, `H` is the
// exponentially weighted average of what the node borrowed in the past, with half-life T:
//
//   dH/dt = (ln 2 / T) · (b(t) − H(t)),  so across a stretch where b stays constant
//   H(t) = b + (H(t0) − b) · 2^(−(t − t0)/T).
//
// b only changes inside engine calls, so the history keeps one anchor (t0, H(t0), b) per node and
// resource and moves it only when it sees that b has changed since the last call: an extra call
// in a quiet stretch (a query, a cycle that admits nothing) changes nothing. Every value is an
// integer: H is kept in units of 2^-32 of the resource's base unit, 2^(−x) is computed to 32
// fractional bits by the integer procedure of `DecayQ32`, and the only rounding is a floor,
// applied when an anchor moves. The same calls at the same instants give the same bits on every
// machine, and the value at an instant does not depend on how often the engine was called.
//
// Costs, for N tree nodes and R resources:
//   Advance(now) ....... O(N·R) when time has moved (one DecayQ32 of O(40) per node and resource
//                        whose history differs from its borrowing), O(1) when it has not
//   Q32(node, r) ....... O(1)
#ifndef QM_STATE_USAGE_HISTORY_H_
#define QM_STATE_USAGE_HISTORY_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "qm/core/quantity.h"
#include "qm/core/time.h"
#include "qm/state/quota_tree.h"
#include "qm/state/share.h"

namespace qm {

namespace usage_history_internal {

using internal::u128;

// floor(sqrt(v)), bit by bit: exact on every machine.
constexpr u128 Isqrt(u128 v) {
  u128 result = 0;
  u128 bit = static_cast<u128>(1) << 126;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= result + bit) {
      v -= result + bit;
      result = (result >> 1) + bit;
    } else {
      result >>= 1;
    }
    bit >>= 2;
  }
  return result;
}

inline constexpr int kFractionBits = 40;  // bits of the exponent's fraction DecayQ32 uses
inline constexpr int kOneShift = 62;      // the table is in Q62

// kRoots[i] = 2^(−2^−(i+1)) in Q62, each the integer square root of the one before.
constexpr std::array<uint64_t, kFractionBits> MakeRoots() {
  std::array<uint64_t, kFractionBits> roots{};
  u128 v = static_cast<u128>(1) << (kOneShift - 1);  // 1/2
  for (int i = 0; i < kFractionBits; ++i) {
    v = Isqrt(v << kOneShift);
    roots[i] = static_cast<uint64_t>(v);
  }
  return roots;
}
inline constexpr std::array<uint64_t, kFractionBits> kRoots = MakeRoots();

}  // namespace usage_history_internal

/// 2^(−elapsed/half_life) in Q32 (2^32 is 1), both in microseconds, half_life > 0, elapsed ≥ 0:
/// the whole part of the exponent shifts, the first 40 bits of its fraction each multiply by a
/// precomputed 2^(−2^−i) in Q62 (floor), and the product is floored to Q32.
constexpr uint64_t DecayQ32(int64_t elapsed, int64_t half_life) {
  using usage_history_internal::u128;
  if (elapsed <= 0) return uint64_t{1} << 32;
  const int64_t whole = elapsed / half_life;
  if (whole >= 33) return 0;
  int64_t rem = elapsed % half_life;
  u128 r = static_cast<u128>(1) << usage_history_internal::kOneShift;
  for (int i = 0; i < usage_history_internal::kFractionBits && rem != 0; ++i) {
    rem *= 2;  // rem < half_life ≤ 2^62: no overflow
    if (rem >= half_life) {
      rem -= half_life;
      r = (r * usage_history_internal::kRoots[i]) >> usage_history_internal::kOneShift;
    }
  }
  return static_cast<uint64_t>(r >> (usage_history_internal::kOneShift - 32 + whole));
}

/// The decayed borrowing history of every quota-tree node (see the top of this file).
class UsageHistory {
 public:
  using u128 = internal::u128;

  /// One node and resource: H(t) = b + (h0 − b)·2^(−(t − t0)/T) from the anchor (t0, h0, b).
  struct Anchor {
    int64_t t0 = 0;   ///< µs since the epoch
    u128 h0 = 0;      ///< H(t0), Q32
    int64_t b = 0;    ///< what the node borrowed from t0 on (base units, ≥ 0)
  };

  /// Brings the history to `now`: where a node's borrowing differs from its anchor's, the anchor
  /// moves to the previous call's instant (when the change was made); then every H is evaluated at
  /// `now`. Time that runs backwards is taken as standing still.
  void Advance(const QuotaTree& tree, Time now, Duration half_life) {
    const bool first = !started_;
    if (first) {
      started_ = true;
      last_us_ = now.us;
    } else if (now.us <= last_us_) {
      // No time has passed: H(last_us_) stands, and a change of b made since is found at the next
      // call that moves time, anchored at last_us_ all the same.
      return;
    }
    Grow(tree);
    for (NodeIndex n = 0; n < tree.node_count(); ++n) {
      const auto& borrowed = tree.node(n).borrowed;
      std::vector<Anchor>& anchors = anchors_[n];
      std::vector<u128>& current = current_[n];
      for (size_t r = 0; r < borrowed.size(); ++r) {
        Anchor& a = anchors[r];
        const int64_t b = std::max<int64_t>(0, ClampAmount(borrowed[r]));
        if (b != a.b) {
          // Changed during the call at last_us_ (nothing changes between calls): H is continuous,
          // so the new stretch starts from H(last_us_), which `current` holds.
          a.t0 = last_us_;
          a.h0 = current[r];
          a.b = b;
        }
        current[r] = Evaluate(a, now.us, half_life.us);
      }
    }
    last_us_ = now.us;
  }

  /// H of node `n` and resource `r` at the last `Advance`, in Q32 (0 for a node or resource the
  /// history has not seen yet).
  u128 Q32(NodeIndex n, uint32_t r) const {
    if (n >= current_.size() || r >= current_[n].size()) return 0;
    return current_[n][r];
  }
  /// Node `n`'s values by resource (fewer than the tree's resources, or none, for a node or
  /// resources the history has not seen yet: those are 0).
  std::span<const u128> Row(NodeIndex n) const {
    if (n >= current_.size()) return {};
    return current_[n];
  }

  // ---- Snapshots (docs/snapshot-format.md, HIST) ----------------------------------------------

  bool started() const { return started_; }
  int64_t last_us() const { return last_us_; }
  const std::vector<std::vector<Anchor>>& anchors() const { return anchors_; }
  /// Restores a saved history; `current` is recomputed by the next `Advance`, which every engine
  /// call makes before it reads a share.
  void Restore(bool started, int64_t last_us, std::vector<std::vector<Anchor>> anchors, Duration half_life) {
    started_ = started;
    last_us_ = last_us;
    anchors_ = std::move(anchors);
    current_.assign(anchors_.size(), {});
    for (size_t n = 0; n < anchors_.size(); ++n) {
      current_[n].resize(anchors_[n].size());
      for (size_t r = 0; r < anchors_[n].size(); ++r) current_[n][r] = Evaluate(anchors_[n][r], last_us_, half_life.us);
    }
  }

 private:
  static u128 Evaluate(const Anchor& a, int64_t now_us, int64_t half_life_us) {
    const u128 target = static_cast<u128>(static_cast<uint64_t>(a.b)) << 32;
    if (a.h0 == target) return target;
    // h0 and target are below 2^95, the factor at most 2^32: the product fits a signed 128 bits.
    const WideAmount deviation = static_cast<WideAmount>(a.h0) - static_cast<WideAmount>(target);
    const uint64_t factor = DecayQ32(time_internal::Sub(now_us, a.t0), half_life_us);
    const WideAmount decayed = (deviation * static_cast<WideAmount>(factor)) >> 32;  // floor
    return static_cast<u128>(static_cast<WideAmount>(target) + decayed);
  }

  // New nodes and resources start with no history, anchored at the previous call's instant (they
  // appeared during it).
  void Grow(const QuotaTree& tree) {
    if (anchors_.size() < tree.node_count()) {
      anchors_.resize(tree.node_count());
      current_.resize(tree.node_count());
    }
    for (NodeIndex n = 0; n < tree.node_count(); ++n) {
      const size_t r = tree.node(n).borrowed.size();
      if (anchors_[n].size() < r) {
        const size_t old = anchors_[n].size();
        anchors_[n].resize(r);
        current_[n].resize(r);
        for (size_t i = old; i < r; ++i) anchors_[n][i].t0 = last_us_;
      }
    }
  }

  bool started_ = false;
  int64_t last_us_ = 0;  ///< the instant of the last Advance, which `current_` is evaluated at
  std::vector<std::vector<Anchor>> anchors_;  ///< [node][resource]
  std::vector<std::vector<u128>> current_;    ///< [node][resource]: H at last_us_, Q32; derived
};

/// The historical share of node `n` (docs/semantics.md §11.8): the dominant resource share with
/// `borrowed` replaced by borrowed + H, compared exactly; ties between resources go to
/// `names_less`. The root's share is zero, as in `QuotaTree::DominantShare`.
template <class NameLess>
Share HistoricalShare(const QuotaTree& tree, const UsageHistory& history, NodeIndex n, NameLess names_less) {
  using internal::u128;
  const QuotaTree::Node& node = tree.node(n);
  Share s;
  s.historical = true;
  s.weight_milli = node.weight_milli;
  if (node.parent == kNoNode) return s;
  const QuotaTree::Node& parent = tree.node(node.parent);
  const std::span<const u128> h = history.Row(n);
  for (uint32_t r = 0; r < node.borrowed.size(); ++r) {
    const int64_t lendable = parent.potential_sum[r];
    if (lendable <= 0) continue;
    const int64_t b = std::max<int64_t>(0, ClampAmount(node.borrowed[r]));
    const u128 amount = (static_cast<u128>(static_cast<uint64_t>(b)) << 32) + (r < h.size() ? h[r] : 0);
    if (amount == 0) continue;
    if (s.is_zero()) {
      s.amount_q32 = amount;
      s.lendable = lendable;
      s.dominant = ResourceId(r);
      continue;
    }
    const auto c = internal::Mul128x64(amount, static_cast<uint64_t>(s.lendable)) <=>
                   internal::Mul128x64(s.amount_q32, static_cast<uint64_t>(lendable));
    if (c > 0 || (c == 0 && names_less(ResourceId(r), s.dominant))) {
      s.amount_q32 = amount;
      s.lendable = lendable;
      s.dominant = ResourceId(r);
    }
  }
  return s;
}

}  // namespace qm

#endif  // QM_STATE_USAGE_HISTORY_H_
