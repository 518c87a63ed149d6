// Arithmetic at the ends of the int64 range: time saturates instead of wrapping, and quota-tree
// usage is exact, so adding then removing any amounts restores the tree (docs/engine.md, "Bounds").
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include "qm/core/quantity.h"
#include "qm/core/time.h"
#include "qm/state/quota_tree.h"
#include "support/random.h"

namespace qm {
namespace overflow_test {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST_CASE("Time: arithmetic saturates at the int64 range", "[core][time][overflow]") {
  // Setup: instants and spans at both ends. Expect: clamped results, exact ones elsewhere.
  CHECK((Time{kMax} + Duration::Milliseconds(1)).us == kMax);
  CHECK((Time{kMin} - Duration::Milliseconds(1)).us == kMin);
  CHECK((Time{kMin} + Duration{kMin}).us == kMin);
  CHECK((Time{kMax} - Time{kMin}).us == kMax);
  CHECK((Time{kMin} - Time{kMax}).us == kMin);
  CHECK(Duration::Milliseconds(kMax).us == kMax);
  CHECK(Duration::Seconds(kMin).us == kMin);
  CHECK(Time::FromUnixSeconds(kMax).us == kMax);
  CHECK((Duration{kMax} + Duration{1}).us == kMax);
  CHECK((Duration{kMin} - Duration{1}).us == kMin);
  CHECK((Time{5} + Duration{-7}).us == -2);
  CHECK((Time{1000} - Time{1}).us == 999);
  CHECK(Duration::Milliseconds(-3).us == -3000);
}

TEST_CASE("ClampAmount: exact sums read as saturating int64 amounts", "[core][quantity][overflow]") {
  CHECK(ClampAmount(0) == 0);
  CHECK(ClampAmount(WideAmount{kMax} + 1) == kUnlimited);
  CHECK(ClampAmount(WideAmount{kMin} - 1) == kMinusUnlimited);
  CHECK(ClampAmount(WideAmount{kMax} * 4) == kUnlimited);
  CHECK(ClampAmount(-5) == -5);
}

// A cohort with two ClusterQueues and a sub-cohort with one, quotas from `q`.
struct SmallTree {
  QuotaTree t;
  NodeIndex root, sub, a, b, c;
  explicit SmallTree(const std::vector<int64_t>& q) {
    const FrId fr{0};
    root = t.AddNode(false, 0);
    sub = t.AddNode(false, 1);
    a = t.AddNode(true, 0);
    b = t.AddNode(true, 1);
    c = t.AddNode(true, 2);
    t.EnsureFr(fr, ResourceId{0});
    t.SetParent(sub, root);
    t.SetParent(a, root);
    t.SetParent(b, root);
    t.SetParent(c, sub);
    t.SetQuota(a, fr, q[0], kUnlimited, q[1]);
    t.SetQuota(b, fr, q[2], q[3], kUnlimited);
    t.SetQuota(c, fr, q[4], kUnlimited, kUnlimited);
    t.SetQuota(sub, fr, q[5], kUnlimited, kUnlimited);
    t.Recompute(root);
  }
};

std::vector<int64_t> Usage(const QuotaTree& t) {
  std::vector<int64_t> out;
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    out.push_back(t.quota(n, FrId{0}).usage);
    out.push_back(ClampAmount(t.node(n).borrowed[0]));
  }
  return out;
}

TEST_CASE("QuotaTree: adding and removing extreme amounts is an exact inverse", "[state][quota][overflow]") {
  // Setup: random quotas and amounts drawn from {0, 1, 2^62, INT64_MAX, ...}; workloads added in
  // one order and removed in another. Expect: after all are removed, usage and borrowed are back
  // to zero on every node, and at each step they equal a recomputation (Recompute from the
  // ClusterQueues' usage). The saturating sums before the fix stuck at INT64_MAX.
  const std::vector<int64_t> amounts = {0, 1, 2, 1000, int64_t{1} << 62, kMax - 1, kMax};
  const std::vector<int64_t> quotas = {0, 1, 4000, int64_t{1} << 62, kMax};
  test::Rng rng(23);
  for (int round = 0; round < 300; ++round) {
    std::vector<int64_t> q;
    for (int i = 0; i < 6; ++i) q.push_back(rng.Pick(quotas));
    q[1] = std::min(q[1], q[0]);  // lending limit ≤ nominal, as validation requires
    SmallTree tr(q);
    const std::vector<int64_t> empty = Usage(tr.t);
    struct Held { NodeIndex cq; int64_t v; };
    std::vector<Held> held;
    const std::vector<NodeIndex> cqs = {tr.a, tr.b, tr.c};
    for (int i = 0; i < 6; ++i) {
      held.push_back({rng.Pick(cqs), rng.Pick(amounts)});
      tr.t.AddUsage(held.back().cq, FrId{0}, held.back().v);
      QuotaTree fresh = tr.t;
      fresh.Recompute(tr.root);
      REQUIRE(Usage(fresh) == Usage(tr.t));
    }
    rng.Shuffle(held);
    for (const Held& h : held) {
      tr.t.RemoveUsage(h.cq, FrId{0}, h.v);
      QuotaTree fresh = tr.t;
      fresh.Recompute(tr.root);
      REQUIRE(Usage(fresh) == Usage(tr.t));
    }
    INFO("round " << round);
    REQUIRE(Usage(tr.t) == empty);
    for (NodeIndex n = 0; n < tr.t.node_count(); ++n) REQUIRE(tr.t.quota(n, FrId{0}).usage_exact == 0);
  }
}

}  // namespace
}  // namespace overflow_test
}  // namespace qm
