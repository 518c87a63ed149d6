// Incrementally maintained dominant resource shares (QuotaTree::DominantShare / qm::NodeShare) must
// equal a from-scratch computation of docs/semantics.md §2 and §6.2 after every admission, release and quota
// change, on random cohort trees (fixed seed, so the test is deterministic).
//
// The reference below recomputes everything from the ClusterQueues' usage and every node's own quota:
//   SubtreeQuota(CQ) = nominal;  SubtreeQuota(cohort) = nominal + Σ_child (SubtreeQuota − localQuota)
//   localQuota = max(0, SubtreeQuota − lendingLimit) if lendingLimit set, else 0
//   Usage(cohort) = Σ_child max(0, Usage(child) − localQuota(child))
//   potential(root) = SubtreeQuota; potential(n) = localQuota + potential(parent),
//                     capped at SubtreeQuota + borrowingLimit when that limit is set
//   DRS(n): root → 0; b[fr] = Usage − SubtreeQuota (kept if > 0), summed per resource;
//           lendable[r] = Σ_{fr of r} potential(parent, fr); ratio = max_r b[r]·1000/lendable[r]
//           over resources with lendable > 0 (ties → smaller resource name);
//           weighted = ratio / weight, +∞ for weight 0 with ratio > 0.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "qm/core/quantity.h"
#include "qm/state/quota_tree.h"

namespace qm {
namespace share_incremental_test {
namespace {

__extension__ typedef __int128 i128;  // GCC/Clang extension, as in qm/state/share.h

// Two resources ("cpu" = 0 < "gpu" = 1 by name); cpu has two flavors.
constexpr int kFrs = 3;
constexpr uint32_t kFrResource[kFrs] = {0, 0, 1};
constexpr int kResources = 2;

struct RefQuota {
  int64_t nominal = 0;
  int64_t borrowing_limit = kUnlimited;
  int64_t lending_limit = kUnlimited;
};

struct RefNode {
  int parent = -1;
  bool cq = false;
  int64_t weight_milli = 1000;
  RefQuota q[kFrs];
  int64_t usage[kFrs] = {};  // CQs only: Σ admitted usage
  std::vector<int> children;
};

struct RefValues {
  int64_t subtree = 0, local = 0, usage = 0, potential = 0;
};

struct RefShare {
  bool zero = true;
  int64_t borrowed = 0, lendable = 1;
  uint32_t dominant = 0;
};

class Reference {
 public:
  explicit Reference(const std::vector<RefNode>& nodes) : n_(nodes), v_(nodes.size()) {
    // Nodes are created parent-first, so reverse index order is bottom-up.
    for (int i = static_cast<int>(n_.size()) - 1; i >= 0; --i) {
      for (int f = 0; f < kFrs; ++f) {
        RefValues& v = v_[i][f];
        v.subtree = n_[i].q[f].nominal;
        v.usage = n_[i].cq ? n_[i].usage[f] : 0;
        for (int c : n_[i].children) {
          v.subtree += v_[c][f].subtree - v_[c][f].local;
          if (!n_[i].cq) v.usage += std::max<int64_t>(0, v_[c][f].usage - v_[c][f].local);
        }
        v.local = n_[i].q[f].lending_limit == kUnlimited
                      ? 0
                      : std::max<int64_t>(0, v.subtree - n_[i].q[f].lending_limit);
      }
    }
    for (size_t i = 0; i < n_.size(); ++i) {
      for (int f = 0; f < kFrs; ++f) {
        RefValues& v = v_[i][f];
        if (n_[i].parent < 0) {
          v.potential = v.subtree;
        } else {
          v.potential = v.local + v_[n_[i].parent][f].potential;
          if (n_[i].q[f].borrowing_limit != kUnlimited)
            v.potential = std::min(v.potential, v.subtree + n_[i].q[f].borrowing_limit);
        }
      }
    }
  }

  const RefValues& values(int node, int fr) const { return v_[node][fr]; }

  RefShare Share(int node) const {
    RefShare s;
    if (n_[node].parent < 0) return s;
    int64_t borrowed[kResources] = {};
    int64_t lendable[kResources] = {};
    for (int f = 0; f < kFrs; ++f) {
      const int64_t b = v_[node][f].usage - v_[node][f].subtree;
      if (b > 0) borrowed[kFrResource[f]] += b;
      lendable[kFrResource[f]] += v_[n_[node].parent][f].potential;
    }
    double best = 0;
    for (uint32_t r = 0; r < kResources; ++r) {  // ascending name order: first wins ties
      if (lendable[r] <= 0 || borrowed[r] <= 0) continue;
      const double ratio = static_cast<double>(borrowed[r]) * 1000.0 / static_cast<double>(lendable[r]);
      // Exact tie test by cross multiplication, so equal ratios keep the smaller name.
      const bool greater =
          s.zero || static_cast<i128>(borrowed[r]) * s.lendable > static_cast<i128>(s.borrowed) * lendable[r];
      if (greater) {
        s.zero = false;
        s.borrowed = borrowed[r];
        s.lendable = lendable[r];
        s.dominant = r;
        best = ratio;
      }
    }
    (void)best;
    return s;
  }

  // ratio / weight as a double (+inf for a zero-weight borrower), for ordering checks.
  double Weighted(int node) const {
    const RefShare s = Share(node);
    if (s.zero) return 0;
    if (n_[node].weight_milli == 0) return std::numeric_limits<double>::infinity();
    return static_cast<double>(s.borrowed) * 1000.0 / static_cast<double>(s.lendable) /
           (static_cast<double>(n_[node].weight_milli) / 1000.0);
  }

  // Kueue's status.fairSharing.weightedShare: ceil(weighted), INT64_MAX for a zero-weight borrower.
  int64_t WeightedCeil(int node) const {
    const RefShare s = Share(node);
    if (s.zero) return 0;
    if (n_[node].weight_milli == 0) return std::numeric_limits<int64_t>::max();
    // borrowed·1000/lendable / (w/1000) = borrowed·10^6 / (lendable·w), ceil in integers.
    const i128 num = static_cast<i128>(s.borrowed) * 1000000;
    const i128 den = static_cast<i128>(s.lendable) * n_[node].weight_milli;
    return static_cast<int64_t>((num + den - 1) / den);
  }

 private:
  const std::vector<RefNode>& n_;
  std::vector<std::array<RefValues, kFrs>> v_;
};

struct Rng {
  std::mt19937_64 g;
  explicit Rng(uint64_t seed) : g(seed) {}
  int64_t Int(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(g() % static_cast<uint64_t>(hi - lo + 1)); }
  bool Chance(int percent) { return Int(0, 99) < percent; }
};

RefQuota RandomQuota(Rng& rng, bool is_cq, bool has_parent) {
  RefQuota q;
  q.nominal = rng.Chance(25) ? 0 : rng.Int(0, 12);
  if (has_parent && rng.Chance(35)) q.borrowing_limit = rng.Int(0, 8);
  if (has_parent && rng.Chance(35)) q.lending_limit = is_cq ? rng.Int(0, q.nominal) : rng.Int(0, 15);
  return q;
}

std::string Describe(const char* what, int64_t v, int fr, int node) {
  std::ostringstream out;
  out << what << ' ' << v << " on fr " << fr << " of node " << node;
  return out.str();
}

struct World {
  std::vector<RefNode> ref;
  QuotaTree tree;
  std::vector<NodeIndex> idx;  // ref index → tree node
  std::vector<int> cqs;

  void Build(Rng& rng) {
    const int count = static_cast<int>(rng.Int(3, 14));
    std::vector<int> cohorts;
    for (int i = 0; i < count; ++i) {
      RefNode n;
      // Node 0 is the root cohort; later nodes are CQs (leaves) or cohorts under an earlier cohort.
      n.cq = i > 0 && (cohorts.size() >= 4 || rng.Chance(60));
      n.parent = i == 0 ? -1 : cohorts[rng.Int(0, static_cast<int64_t>(cohorts.size()) - 1)];
      static constexpr int64_t kWeights[] = {0, 250, 1000, 1000, 1500, 10000, 100000};
      n.weight_milli = kWeights[rng.Int(0, 6)];
      for (int f = 0; f < kFrs; ++f) n.q[f] = RandomQuota(rng, n.cq, n.parent >= 0);
      if (n.parent >= 0) ref[n.parent].children.push_back(i);
      if (n.cq) cqs.push_back(i);
      else cohorts.push_back(i);
      ref.push_back(n);
    }
    if (cqs.empty()) {  // make sure there is somewhere to admit
      RefNode n;
      n.cq = true;
      n.parent = 0;
      for (int f = 0; f < kFrs; ++f) n.q[f] = RandomQuota(rng, true, true);
      ref[0].children.push_back(static_cast<int>(ref.size()));
      cqs.push_back(static_cast<int>(ref.size()));
      ref.push_back(n);
    }
    for (size_t i = 0; i < ref.size(); ++i) {
      idx.push_back(tree.AddNode(ref[i].cq, static_cast<uint32_t>(i)));
      for (int f = 0; f < kFrs; ++f) tree.EnsureFr(FrId(f), ResourceId(kFrResource[f]));
    }
    for (size_t i = 0; i < ref.size(); ++i) {
      if (ref[i].parent >= 0) tree.SetParent(idx[i], idx[ref[i].parent]);
      tree.SetWeight(idx[i], ref[i].weight_milli);
      PushQuota(static_cast<int>(i));
    }
    tree.Recompute(idx[0]);
  }

  void PushQuota(int i) {
    for (int f = 0; f < kFrs; ++f)
      tree.SetQuota(idx[i], FrId(f), ref[i].q[f].nominal, ref[i].q[f].borrowing_limit, ref[i].q[f].lending_limit);
  }

  // One random step: mostly admissions and releases, sometimes a quota change (full recompute).
  std::string Step(Rng& rng) {
    const int cq = cqs[rng.Int(0, static_cast<int64_t>(cqs.size()) - 1)];
    const int f = static_cast<int>(rng.Int(0, kFrs - 1));
    const int roll = static_cast<int>(rng.Int(0, 99));
    if (roll < 55) {
      const int64_t v = rng.Int(1, 6);
      ref[cq].usage[f] += v;
      tree.AddUsage(idx[cq], FrId(f), v);
      return Describe("admit", v, f, cq);
    }
    if (roll < 93) {
      if (ref[cq].usage[f] == 0) return "noop";
      const int64_t v = rng.Int(1, ref[cq].usage[f]);
      ref[cq].usage[f] -= v;
      tree.RemoveUsage(idx[cq], FrId(f), v);
      return Describe("release", v, f, cq);
    }
    const int node = static_cast<int>(rng.Int(0, static_cast<int64_t>(ref.size()) - 1));
    ref[node].q[f] = RandomQuota(rng, ref[node].cq, ref[node].parent >= 0);
    PushQuota(node);
    tree.Recompute(idx[0]);
    return Describe("quota change", 0, f, node);
  }
};

void CheckAll(const World& w, const std::string& context) {
  const Reference ref(w.ref);
  for (size_t i = 0; i < w.ref.size(); ++i) {
    INFO(context << ", node " << i << (w.ref[i].cq ? " (CQ)" : " (cohort)"));
    for (int f = 0; f < kFrs; ++f) {
      const FrQuota& got = w.tree.quota(w.idx[i], FrId(f));
      const RefValues& want = ref.values(static_cast<int>(i), f);
      INFO("fr " << f);
      REQUIRE(got.subtree_quota == want.subtree);
      REQUIRE(got.local_quota == want.local);
      REQUIRE(got.usage == want.usage);
      REQUIRE(got.potential == want.potential);
    }
    const Share got = w.tree.DominantShare(w.idx[i], [](ResourceId a, ResourceId b) { return a.value < b.value; });
    const RefShare want = ref.Share(static_cast<int>(i));
    REQUIRE(got.is_zero() == want.zero);
    if (!want.zero) {
      REQUIRE(got.borrowed == want.borrowed);
      REQUIRE(got.lendable == want.lendable);
      REQUIRE(got.dominant.value == want.dominant);
    }
    REQUIRE(got.weight_milli == w.ref[i].weight_milli);
    REQUIRE(got.is_infinite() == (!want.zero && w.ref[i].weight_milli == 0));
    REQUIRE(got.WeightedShareCeil() == ref.WeightedCeil(static_cast<int>(i)));
  }
  // Ordering: CompareShare agrees with the reference weighted shares (Kueue's CompareDRS: two
  // zero-weight borrowers compare their unweighted ratios).
  for (size_t a = 0; a < w.ref.size(); ++a) {
    for (size_t b = a + 1; b < w.ref.size(); ++b) {
      const auto less = [](ResourceId x, ResourceId y) { return x.value < y.value; };
      const Share sa = w.tree.DominantShare(w.idx[a], less);
      const Share sb = w.tree.DominantShare(w.idx[b], less);
      double wa = ref.Weighted(static_cast<int>(a)), wb = ref.Weighted(static_cast<int>(b));
      if (std::isinf(wa) && std::isinf(wb)) {
        const RefShare ra = ref.Share(static_cast<int>(a)), rb = ref.Share(static_cast<int>(b));
        wa = static_cast<double>(ra.borrowed) / static_cast<double>(ra.lendable);
        wb = static_cast<double>(rb.borrowed) / static_cast<double>(rb.lendable);
      }
      const auto cmp = CompareShare(sa, sb);
      INFO(context << ", compare nodes " << a << " and " << b << ": " << wa << " vs " << wb);
      if (!std::isinf(wa) || !std::isinf(wb)) {
        const double tol = 1e-9 * std::max(1.0, std::max(std::isinf(wa) ? 0 : std::fabs(wa), std::isinf(wb) ? 0 : std::fabs(wb)));
        if (wa + tol < wb || (std::isfinite(wb) == false && std::isfinite(wa))) {
          REQUIRE((cmp < 0));
        } else if (wb + tol < wa || (std::isfinite(wa) == false && std::isfinite(wb))) {
          REQUIRE((cmp > 0));
        }
      }
    }
  }
}

TEST_CASE("Dominant shares stay equal to a from-scratch computation on random trees", "[state][share][fair]") {
  Rng rng(0x5eed'f00dULL);
  int steps_checked = 0, borrowing_seen = 0, infinite_seen = 0;
  for (int t = 0; t < 150; ++t) {
    World w;
    w.Build(rng);
    CheckAll(w, Describe("build tree", t, 0, 0));
    for (int s = 0; s < 250; ++s) {
      const std::string what = w.Step(rng);
      CheckAll(w, Describe("tree", t, 0, 0) + ", step " + std::to_string(s) + ": " + what);
      ++steps_checked;
      for (size_t i = 0; i < w.ref.size(); ++i) {
        const Share sh = w.tree.DominantShare(w.idx[i], [](ResourceId a, ResourceId b) { return a.value < b.value; });
        if (!sh.is_zero()) ++borrowing_seen;
        if (sh.is_infinite()) ++infinite_seen;
      }
    }
  }
  // The random walk must actually exercise borrowing and zero weights, or the test proves little.
  CHECK(steps_checked == 150 * 250);
  CHECK(borrowing_seen > 1000);
  CHECK(infinite_seen > 10);
}

TEST_CASE("Dominant share: hand-computed example with a resource tie and a zero weight", "[state][share][fair]") {
  // Root R (cpu 0, gpu 0) with CQs A {cpu nominal 2 on fr0, gpu 1} and B {cpu 6 on fr1, gpu 3}, B weight 0.
  // lendable(cpu) = potential(R, fr0) + potential(R, fr1) = 2 + 6 = 8, lendable(gpu) = 4.
  // A uses 4 cpu on fr0 and 2 gpu: borrowed cpu 2 → 2/8, gpu 1 → 1/4: equal ratios (250), tie → cpu.
  // B uses 7 cpu on fr1: borrowed 1 cpu → 125, weight 0 → +∞.
  std::vector<RefNode> nodes(3);
  nodes[0].children = {1, 2};
  nodes[1].parent = 0;
  nodes[1].cq = true;
  nodes[1].q[0].nominal = 2;
  nodes[1].q[2].nominal = 1;
  nodes[2].parent = 0;
  nodes[2].cq = true;
  nodes[2].q[1].nominal = 6;
  nodes[2].q[2].nominal = 3;
  nodes[2].weight_milli = 0;
  World w;
  w.ref = nodes;
  w.cqs = {1, 2};
  for (size_t i = 0; i < w.ref.size(); ++i) {
    w.idx.push_back(w.tree.AddNode(w.ref[i].cq, static_cast<uint32_t>(i)));
    for (int f = 0; f < kFrs; ++f) w.tree.EnsureFr(FrId(f), ResourceId(kFrResource[f]));
  }
  for (size_t i = 0; i < w.ref.size(); ++i) {
    if (w.ref[i].parent >= 0) w.tree.SetParent(w.idx[i], w.idx[w.ref[i].parent]);
    w.tree.SetWeight(w.idx[i], w.ref[i].weight_milli);
    w.PushQuota(static_cast<int>(i));
  }
  w.tree.Recompute(w.idx[0]);
  w.tree.AddUsage(w.idx[1], FrId(0), 4);
  w.ref[1].usage[0] = 4;
  w.tree.AddUsage(w.idx[1], FrId(2), 2);
  w.ref[1].usage[2] = 2;
  w.tree.AddUsage(w.idx[2], FrId(1), 7);
  w.ref[2].usage[1] = 7;
  CheckAll(w, "example");
  const auto less = [](ResourceId a, ResourceId b) { return a.value < b.value; };
  const Share a = w.tree.DominantShare(w.idx[1], less);
  CHECK(a.borrowed == 2);
  CHECK(a.lendable == 8);
  CHECK(a.dominant.value == 0u);
  CHECK(a.WeightedShareCeil() == 250);
  const Share b = w.tree.DominantShare(w.idx[2], less);
  CHECK(b.is_infinite());
  CHECK(b.WeightedShareCeil() == std::numeric_limits<int64_t>::max());
  CHECK((CompareShare(a, b) < 0));
  // Release A's gpu: A's cpu share stays 250; release 1 of B's cpu → B no longer borrows → 0.
  w.tree.RemoveUsage(w.idx[1], FrId(2), 2);
  w.ref[1].usage[2] = 0;
  w.tree.RemoveUsage(w.idx[2], FrId(1), 1);
  w.ref[2].usage[1] = 6;
  CheckAll(w, "example after releases");
  CHECK(w.tree.DominantShare(w.idx[2], less).is_zero());
  CHECK(w.tree.DominantShare(w.idx[1], less).WeightedShareCeil() == 250);
}

}  // namespace
}  // namespace share_incremental_test
}  // namespace qm
