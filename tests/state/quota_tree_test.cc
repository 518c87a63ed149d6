#include "qm/state/quota_tree.h"

#include <catch2/catch.hpp>
#include <vector>

namespace qm {
namespace quota_tree_test {
namespace {

// One resource, one flavor: every test uses FR slot 0.
constexpr FrId kFr{0};
constexpr ResourceId kCpu{0};

struct NodeQuota {
  int64_t nominal = 0;
  int64_t borrowing_limit = kUnlimited;
  int64_t lending_limit = kUnlimited;
};

// A small tree builder: nodes are added in order; parent = index of an earlier node or -1.
struct Tree {
  QuotaTree t;
  std::vector<NodeIndex> n;
  NodeIndex Add(bool cq, int parent, NodeQuota q) {
    const NodeIndex idx = t.AddNode(cq, static_cast<uint32_t>(n.size()));
    t.EnsureFr(kFr, kCpu);
    t.SetQuota(idx, kFr, q.nominal, q.borrowing_limit, q.lending_limit);
    if (parent >= 0) t.SetParent(idx, n[parent]);
    n.push_back(idx);
    return idx;
  }
  void Recompute() { t.Recompute(t.Root(n[0])); }
};

TEST_CASE("QuotaTree: the semantics document's worked example (lending and borrowing limits)", "[state][quota]") {
  // Setup: cohort R with CQ A {nominal 10, borrowingLimit 5, lendingLimit 4} and CQ B {nominal 10};
  // B uses 12. Expect the numbers of docs/semantics.md §2's worked example.
  Tree tr;
  const NodeIndex r = tr.Add(false, -1, {});
  const NodeIndex a = tr.Add(true, 0, {10, 5, 4});
  const NodeIndex b = tr.Add(true, 0, {10});
  tr.Recompute();
  tr.t.AddUsage(b, kFr, 12);
  CHECK(tr.t.quota(a, kFr).local_quota == 6);
  CHECK(tr.t.quota(r, kFr).subtree_quota == 14);
  CHECK(tr.t.quota(r, kFr).usage == 12);
  CHECK(tr.t.Available(b, kFr) == 2);
  CHECK(tr.t.Available(a, kFr) == 8);
  CHECK(tr.t.PotentialAvailable(a, kFr) == 15);
  CHECK(tr.t.PotentialAvailable(b, kFr) == 14);
}

TEST_CASE("QuotaTree: three-level tree, usage propagates only above guaranteed quota", "[state][quota]") {
  // Setup: root R (nominal 0) → cohort M (nominal 5) → CQs X {3, lendingLimit 1}, Y {2};
  // CQ Z {4} directly under R.
  //   local(X) = 3 − 1 = 2, subtree(M) = 5 + (3 − 2) + 2 = 8, subtree(R) = 8 + 4 = 12.
  Tree tr;
  const NodeIndex r = tr.Add(false, -1, {});
  const NodeIndex m = tr.Add(false, 0, {5});
  const NodeIndex x = tr.Add(true, 1, {3, kUnlimited, 1});
  const NodeIndex y = tr.Add(true, 1, {2});
  const NodeIndex z = tr.Add(true, 0, {4});
  tr.Recompute();
  CHECK(tr.t.quota(x, kFr).local_quota == 2);
  CHECK(tr.t.quota(m, kFr).subtree_quota == 8);
  CHECK(tr.t.quota(r, kFr).subtree_quota == 12);
  CHECK(tr.t.node(r).height == 2);
  CHECK(tr.t.node(m).height == 1);

  SECTION("potentials") {
    // Expect: R 12, M 0 + 12, X 2 + 12, Y 0 + 12, Z 12.
    CHECK(tr.t.PotentialAvailable(m, kFr) == 12);
    CHECK(tr.t.PotentialAvailable(x, kFr) == 14);
    CHECK(tr.t.PotentialAvailable(y, kFr) == 12);
    CHECK(tr.t.PotentialAvailable(z, kFr) == 12);
  }
  SECTION("X uses 4: 2 stay in X's guaranteed quota, 2 reach M and R") {
    tr.t.AddUsage(x, kFr, 4);
    CHECK(tr.t.quota(x, kFr).usage == 4);
    CHECK(tr.t.quota(m, kFr).usage == 2);
    CHECK(tr.t.quota(r, kFr).usage == 2);
    CHECK(tr.t.Available(y, kFr) == 10);
    CHECK(tr.t.Available(x, kFr) == 10);
    CHECK(tr.t.Available(z, kFr) == 10);
    // Removing is the exact inverse.
    tr.t.RemoveUsage(x, kFr, 4);
    CHECK(tr.t.quota(x, kFr).usage == 0);
    CHECK(tr.t.quota(m, kFr).usage == 0);
    CHECK(tr.t.quota(r, kFr).usage == 0);
  }
  SECTION("borrowing levels are subtree heights, not hops") {
    tr.t.AddUsage(x, kFr, 4);
    // Y asks 3 > nominal 2: M absorbs it (2 + 3 ≤ 8) → level height(M) = 1, reclaimable.
    BorrowLevel ly = tr.t.BorrowingLevel(y, kFr, 3);
    CHECK(ly.level == 1);
    CHECK(ly.may_reclaim);
    // Z asks 5 > 4: only R absorbs it (2 + 5 ≤ 12) → level 2, R has no parent.
    BorrowLevel lz = tr.t.BorrowingLevel(z, kFr, 5);
    CHECK(lz.level == 2);
    CHECK_FALSE(lz.may_reclaim);
    // Within nominal: level 0, reclaimable because Y has a parent.
    BorrowLevel l0 = tr.t.BorrowingLevel(y, kFr, 2);
    CHECK(l0.level == 0);
    CHECK(l0.may_reclaim);
  }
  SECTION("a borrowing limit clips available and potential") {
    tr.t.SetQuota(y, kFr, 2, 1, kUnlimited);
    tr.Recompute();
    tr.t.AddUsage(x, kFr, 4);
    CHECK(tr.t.PotentialAvailable(y, kFr) == 3);
    CHECK(tr.t.Available(y, kFr) == 3);
    tr.t.AddUsage(y, kFr, 3);
    CHECK(tr.t.Available(y, kFr) == 0);
  }
}

TEST_CASE("QuotaTree: a standalone ClusterQueue has nominal − usage", "[state][quota]") {
  Tree tr;
  const NodeIndex a = tr.Add(true, -1, {7});
  tr.Recompute();
  struct Row {
    int64_t usage, available;
  };
  for (Row row : {Row{0, 7}, Row{5, 2}, Row{7, 0}, Row{9, 0}}) {
    CAPTURE(row.usage);
    QuotaTree t = tr.t;
    t.AddUsage(a, kFr, row.usage);
    CHECK(t.Available(a, kFr) == row.available);
    CHECK(t.BorrowingLevel(a, kFr, 1).level == 0);
  }
}

TEST_CASE("QuotaTree: a cohort's own quota is an extra shared pool and its lending limit caps what it lends up",
          "[state][quota]") {
  // Setup: root R → cohort C {nominal 6, lendingLimit 2} → CQ A {nominal 0}; CQ B {nominal 0} under R.
  //   subtree(C) = 6, local(C) = 4, subtree(R) = 6 − 4 = 2.
  Tree tr;
  tr.Add(false, -1, {});
  const NodeIndex c = tr.Add(false, 0, {6, kUnlimited, 2});
  const NodeIndex a = tr.Add(true, 1, {0});
  const NodeIndex b = tr.Add(true, 0, {0});
  tr.Recompute();
  CHECK(tr.t.quota(c, kFr).local_quota == 4);
  CHECK(tr.t.PotentialAvailable(a, kFr) == 6);
  CHECK(tr.t.PotentialAvailable(b, kFr) == 2);
  tr.t.AddUsage(a, kFr, 5);  // 4 from C's guaranteed part, 1 lent up to R
  CHECK(tr.t.Available(a, kFr) == 1);
  CHECK(tr.t.Available(b, kFr) == 1);
  tr.t.RemoveUsage(a, kFr, 5);
  CHECK(tr.t.Available(b, kFr) == 2);
}

TEST_CASE("QuotaTree: dominant share follows borrowing incrementally", "[state][quota][fairsharing]") {
  // Setup: cohort R with CQs A {10} and B {10}; A uses 15 (borrows 5 of R's 20 lendable).
  Tree tr;
  tr.Add(false, -1, {});
  const NodeIndex a = tr.Add(true, 0, {10});
  tr.Add(true, 0, {10});
  tr.Recompute();
  auto by_id = [](ResourceId x, ResourceId y) { return x.value < y.value; };
  CHECK(tr.t.DominantShare(a, by_id).is_zero());
  tr.t.AddUsage(a, kFr, 15);
  Share s = tr.t.DominantShare(a, by_id);
  CHECK(s.borrowed == 5);
  CHECK(s.lendable == 20);
  CHECK(s.WeightedShareCeil() == 250);  // 5 / 20 × 1000
  tr.t.SetWeight(a, 2000);
  CHECK(tr.t.DominantShare(a, by_id).WeightedShareCeil() == 125);
  tr.t.SetWeight(a, 0);
  CHECK(tr.t.DominantShare(a, by_id).is_infinite());
  tr.t.RemoveUsage(a, kFr, 15);
  CHECK(tr.t.DominantShare(a, by_id).is_zero());
}

}  // namespace
}  // namespace quota_tree_test
}  // namespace qm
