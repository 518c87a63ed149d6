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
// resource. A call evaluates H at its instant before it changes anything (`Evaluate`), and once it
// has succeeded, starts a new stretch for each node and resource whose b it changed (`Commit`): an
// extra call in a quiet stretch (a query, a cycle that admits nothing) changes no value. Every
// value is an integer: H is kept in units of 2^-32 of the resource's base unit, 2^(−x) is computed
// to 32 fractional bits by the integer procedure of `DecayQ32`, and the only rounding is a floor,
// applied when an anchor moves. The same calls at the same instants give the same bits on every
// machine, and the value at an instant does not depend on how often the engine was called.
//
// Costs, for N tree nodes and R resources:
//   Evaluate(now) ...... O(N·R) when the instant differs from the last evaluation (one DecayQ32 of
//                        O(40) per node and resource whose history differs from its borrowing),
//                        O(1) when it does not
//   Commit ............. O(N·R) comparisons, after every call and cycle that succeeded
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
///
/// What a snapshot keeps (`started`, `last_us`, the anchors) changes only in `Commit`, at the end of
/// an engine call or cycle that succeeded: a query, or a call that failed and changed nothing, leaves
/// it as it was. `Evaluate` only refreshes the values shares read.
class UsageHistory {
 public:
  using u128 = internal::u128;

  /// One node and resource: H(t) = b + (h0 − b)·2^(−(t − t0)/T) from the anchor (t0, h0, b).
  struct Anchor {
    int64_t t0 = 0;   ///< µs since the epoch
    u128 h0 = 0;      ///< H(t0), Q32
    int64_t b = 0;    ///< what the node borrowed from t0 on (base units, ≥ 0)
    friend bool operator==(const Anchor&, const Anchor&) = default;
  };

  /// At the start of a call, cycle or query: every H at `now` (time that runs backwards stands
  /// still at the latest instant committed). O(1) when nothing moved since the last evaluation.
  void Evaluate(Time now, Duration half_life) {
    const int64_t t = started_ ? std::max(now.us, last_us_) : now.us;
    call_us_ = t;
    if (evaluated_ && t == evaluated_us_ && current_.size() == anchors_.size()) return;
    current_.resize(anchors_.size());
    for (size_t n = 0; n < anchors_.size(); ++n) {
      current_[n].resize(anchors_[n].size());
      for (size_t r = 0; r < anchors_[n].size(); ++r) current_[n][r] = At(anchors_[n][r], t, half_life.us);
    }
    evaluated_ = true;
    evaluated_us_ = t;
  }

  /// At the end of a call or cycle that succeeded, at the instant its `Evaluate` read: every node
  /// and resource whose borrowing changed during it starts a new stretch there (H is continuous, so
  /// from H at that instant). The first commit starts the history. O(N·R).
  void Commit(const QuotaTree& tree, Duration half_life) {
    const int64_t t = started_ ? std::max(call_us_, last_us_) : call_us_;
    if (!started_) {
      started_ = true;
      evaluated_ = false;  // anchors begin now
    }
    if (anchors_.size() < tree.node_count()) anchors_.resize(tree.node_count());
    bool moved = false;
    for (NodeIndex n = 0; n < tree.node_count(); ++n) {
      const auto& borrowed = tree.node(n).borrowed;
      std::vector<Anchor>& anchors = anchors_[n];
      if (anchors.size() < borrowed.size()) anchors.resize(borrowed.size(), Anchor{t, 0, 0});
      for (size_t r = 0; r < borrowed.size(); ++r) {
        Anchor& a = anchors[r];
        const int64_t b = std::max<int64_t>(0, ClampAmount(borrowed[r]));
        if (b == a.b) continue;
        a.h0 = At(a, t, half_life.us);
        a.t0 = t;
        a.b = b;
        moved = true;
      }
    }
    last_us_ = t;
    // H at t is unchanged by a new stretch that starts at t, but new nodes need their rows.
    if (moved || current_.size() != anchors_.size()) evaluated_ = false;
  }

  /// H of node `n` and resource `r` at the last `Evaluate`, in Q32 (0 for a node or resource the
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
  /// Restores a saved history; the next `Evaluate` computes the values.
  void Restore(bool started, int64_t last_us, std::vector<std::vector<Anchor>> anchors) {
    started_ = started;
    last_us_ = last_us;
    anchors_ = std::move(anchors);
    current_.clear();
    evaluated_ = false;
  }

 private:
  static u128 At(const Anchor& a, int64_t now_us, int64_t half_life_us) {
    const u128 target = static_cast<u128>(static_cast<uint64_t>(a.b)) << 32;
    if (a.h0 == target) return target;
    // h0 and target are below 2^95, the factor at most 2^32: the product fits a signed 128 bits.
    const WideAmount deviation = static_cast<WideAmount>(a.h0) - static_cast<WideAmount>(target);
    const uint64_t factor = DecayQ32(time_internal::Sub(now_us, a.t0), half_life_us);
    const WideAmount decayed = (deviation * static_cast<WideAmount>(factor)) >> 32;  // floor
    return static_cast<u128>(static_cast<WideAmount>(target) + decayed);
  }

  // Saved (docs/snapshot-format.md).
  bool started_ = false;
  int64_t last_us_ = 0;  ///< the latest instant committed
  std::vector<std::vector<Anchor>> anchors_;  ///< [node][resource]
  // Derived: the values at `evaluated_us_`, and the instant of the running call.
  std::vector<std::vector<u128>> current_;  ///< [node][resource], Q32
  bool evaluated_ = false;
  int64_t evaluated_us_ = 0;
  int64_t call_us_ = 0;
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
