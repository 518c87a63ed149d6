// The historical fair share's arithmetic (qm/state/usage_history.h, docs/semantics.md §11.8):
// the integer decay factor, the anchored history and the exact comparison of historical shares.
#include <catch2/catch.hpp>

#include <cmath>
#include <compare>
#include <limits>
#include <cstdint>
#include <vector>

#include "qm/state/quota_tree.h"
#include "qm/state/share.h"
#include "qm/state/usage_history.h"
#include "support/random.h"

namespace qm {
namespace {

using internal::u128;
constexpr int64_t kHour = int64_t{3600} * 1000000;

// 2^(−elapsed/half_life) in Q32 by long double, for comparison.
long double ReferenceQ32(int64_t elapsed, int64_t half_life) {
  return std::exp2l(-static_cast<long double>(elapsed) / static_cast<long double>(half_life)) * 4294967296.0L;
}

TEST_CASE("DecayQ32 is exact at whole half-lives and within 2 units of 2^-x elsewhere") {
  CHECK(DecayQ32(0, kHour) == (uint64_t{1} << 32));
  CHECK(DecayQ32(-5, kHour) == (uint64_t{1} << 32));
  CHECK(DecayQ32(kHour, kHour) == (uint64_t{1} << 31));
  CHECK(DecayQ32(3 * kHour, kHour) == (uint64_t{1} << 29));
  CHECK(DecayQ32(32 * kHour, kHour) == 1);
  CHECK(DecayQ32(33 * kHour, kHour) == 0);
  CHECK(DecayQ32(std::numeric_limits<int64_t>::max(), 1) == 0);
  test::Rng rng(20261127);
  uint64_t previous = uint64_t{1} << 32;
  int64_t t = 0;
  for (int i = 0; i < 20000; ++i) {
    const int64_t half_life = rng.Between(1, 100 * kHour);
    const int64_t elapsed = rng.Between(0, 40 * half_life);
    const long double want = ReferenceQ32(elapsed, half_life);
    const uint64_t got = DecayQ32(elapsed, half_life);
    INFO("elapsed " << elapsed << " half-life " << half_life);
    CHECK(std::fabs(static_cast<long double>(got) - want) <= 2.0L);
    // Never increasing in the elapsed time (one fixed half-life).
    t += rng.Between(0, kHour / 7);
    const uint64_t v = DecayQ32(t, 24 * kHour);
    CHECK(v <= previous);
    previous = v;
  }
}

TEST_CASE("Mul128x128 agrees with Mul128x64 and with its own commutation") {
  test::Rng rng(7);
  for (int i = 0; i < 10000; ++i) {
    const u128 a = (static_cast<u128>(rng.Next()) << 64) | rng.Next();
    const uint64_t b = rng.Next();
    const auto wide = internal::Mul128x128(a, b);
    const auto narrow = internal::Mul128x64(a, b);
    CHECK(wide.hi == narrow.hi);
    CHECK(wide.lo == narrow.lo);
    const u128 c = (static_cast<u128>(rng.Next()) << 64) | rng.Next();
    CHECK(std::is_eq(internal::Mul128x128(a, c) <=> internal::Mul128x128(c, a)));
  }
  // (2^128 − 1)² = 2^256 − 2^129 + 1.
  const u128 max = ~static_cast<u128>(0);
  const auto sq = internal::Mul128x128(max, max);
  CHECK(sq.hi == max - 1);
  CHECK(sq.lo == 1);
}

TEST_CASE("a historical share without history orders exactly as the dominant resource share") {
  test::Rng rng(11);
  auto random_share = [&] {
    Share s;
    s.borrowed = rng.OneIn(5) ? 0 : rng.Between(1, int64_t{1} << rng.Between(1, 62));
    s.lendable = rng.Between(1, int64_t{1} << rng.Between(1, 62));
    s.weight_milli = rng.OneIn(8) ? 0 : rng.Between(1, int64_t{1} << rng.Between(1, 40));
    return s;
  };
  auto historical = [](Share s) {
    s.historical = true;
    s.amount_q32 = static_cast<u128>(static_cast<uint64_t>(s.borrowed)) << 32;
    s.borrowed = 0;
    return s;
  };
  for (int i = 0; i < 20000; ++i) {
    const Share a = random_share(), b = random_share();
    INFO(a.borrowed << "/" << a.lendable << " w" << a.weight_milli << " vs " << b.borrowed << "/" << b.lendable
                    << " w" << b.weight_milli);
    CHECK(CompareShare(a, b) == CompareShare(historical(a), historical(b)));
    CHECK(a.WeightedShareCeil() == historical(a).WeightedShareCeil());
  }
}

TEST_CASE("a historical share's fraction of a unit counts") {
  Share a, b;
  a.historical = b.historical = true;
  a.lendable = b.lendable = 8;
  a.amount_q32 = (u128{3} << 32) + 1;  // 3 and 2^-32 GPUs
  b.amount_q32 = u128{3} << 32;
  CHECK(std::is_gt(CompareShare(a, b)));
  CHECK(a.WeightedShareCeil() == 376);  // ceil(375.000…)
  CHECK(b.WeightedShareCeil() == 375);
}

// A two-queue cohort: queue 1 borrows what `SetBorrowed` says from the lender, queue 2. `Call`
// is what an engine call at `t` does: evaluate, change the borrowing (or not), commit.
struct Cohort {
  QuotaTree tree;
  NodeIndex root, borrower, lender;
  int64_t borrowed = 0;
  Cohort() {
    tree.EnsureFr(FrId(0), ResourceId(0));
    root = tree.AddNode(false, 0);
    borrower = tree.AddNode(true, 0);
    lender = tree.AddNode(true, 1);
    tree.SetParent(borrower, root);
    tree.SetParent(lender, root);
    tree.SetQuota(lender, FrId(0), 1000, kUnlimited, kUnlimited);
    tree.Recompute(root);
  }
  void SetBorrowed(int64_t v) {
    if (v > borrowed) tree.AddUsage(borrower, FrId(0), v - borrowed);
    if (v < borrowed) tree.RemoveUsage(borrower, FrId(0), borrowed - v);
    borrowed = v;
  }
  void Call(UsageHistory& h, int64_t t, int64_t b, Duration half_life) {
    h.Evaluate(Time{t}, half_life);
    SetBorrowed(b);
    h.Commit(tree, half_life);
  }
};

TEST_CASE("UsageHistory follows b + (h0 - b)·2^-(t - t0)/T") {
  const Duration half_life{24 * kHour};
  Cohort c;
  UsageHistory h;
  c.Call(h, 0, 8, half_life);
  h.Evaluate(Time{24 * kHour}, half_life);
  CHECK(h.Q32(c.borrower, 0) == (u128{4} << 32));
  c.Call(h, 48 * kHour, 0, half_life);  // evaluated at 48 h, before the change
  CHECK(h.Q32(c.borrower, 0) == (u128{6} << 32));
  h.Evaluate(Time{72 * kHour}, half_life);
  CHECK(h.Q32(c.borrower, 0) == (u128{3} << 32));
  CHECK(h.Q32(c.lender, 0) == 0);
  CHECK(h.Q32(c.root, 0) == 0);
  CHECK(h.Q32(99, 0) == 0);
  // A query (Evaluate without Commit) leaves what a snapshot keeps as it was.
  CHECK(h.last_us() == 48 * kHour);
  // Time that runs backwards stands still at the latest instant committed.
  h.Evaluate(Time{10 * kHour}, half_life);
  CHECK(h.Q32(c.borrower, 0) == (u128{6} << 32));  // H(48 h)
}

TEST_CASE("UsageHistory: calls in quiet stretches change nothing, and it tracks the exact curve") {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    test::Rng rng(seed);
    const Duration half_life{rng.Between(1, 72) * kHour / rng.Between(1, 4)};
    Cohort sparse, dense;
    UsageHistory hs, hd;
    long double exact = 0;  // H in base units, by the continuous formula
    int64_t t = rng.Between(-kHour, kHour), b = 0;
    sparse.Call(hs, t, 0, half_life);
    dense.Call(hd, t, 0, half_life);
    for (int step = 0; step < 60; ++step) {
      const int64_t next = t + rng.Between(0, 30 * kHour);
      // Quiet calls and queries in between, only on `dense`.
      for (int k = static_cast<int>(rng.Between(0, 3)); k > 0; --k) {
        const int64_t at = rng.Between(t, next);
        if (rng.OneIn(2)) dense.Call(hd, at, b, half_life);
        else hd.Evaluate(Time{at}, half_life);
      }
      exact = b + (exact - b) * std::exp2l(-static_cast<long double>(next - t) / half_life.us);
      b = rng.OneIn(3) ? 0 : rng.Between(1, 1000);
      sparse.Call(hs, next, b, half_life);
      dense.Call(hd, next, b, half_life);
      INFO("seed " << seed << " step " << step);
      REQUIRE(hs.Q32(sparse.borrower, 0) == hd.Q32(dense.borrower, 0));
      REQUIRE(hs.anchors() == hd.anchors());
      const long double got = static_cast<long double>(hs.Q32(sparse.borrower, 0)) / 4294967296.0L;
      CHECK(std::fabs(got - exact) <= 1e-6L * (1 + exact));
      t = next;
    }
  }
}

TEST_CASE("UsageHistory: Restore from the anchors gives the same values") {
  const Duration half_life{6 * kHour};
  Cohort c;
  UsageHistory h;
  c.Call(h, 0, 5, half_life);
  c.Call(h, kHour, 2, half_life);
  c.Call(h, 4 * kHour, 2, half_life);
  UsageHistory copy;
  copy.Restore(h.started(), h.last_us(), h.anchors());
  for (UsageHistory* x : {&h, &copy}) x->Evaluate(Time{9 * kHour}, half_life);
  CHECK(copy.Q32(c.borrower, 0) == h.Q32(c.borrower, 0));
  // From below 2 towards 2: the history of 5 for an hour is mostly gone, 2 not yet reached.
  CHECK(h.Q32(c.borrower, 0) > (u128{1} << 32));
  CHECK(h.Q32(c.borrower, 0) < (u128{2} << 32));
}

}  // namespace
}  // namespace qm
