// Differential test of classic preemption (fair sharing off): `Engine::PreemptionTargets` against an
// oracle written from docs/semantics.md §5 alone, on seeded random clusters: up to 4 ClusterQueues
// in one cohort, one flavor, cpu only, up to 11 workloads holding quota plus one preemptor.
//
// The oracle works on plain numbers (no engine code): candidates by policy (§5.2, §5.3), their
// variant (§5.4), the candidate order (§5.5), validity while taking them (§5.6), the attempts (§5.7)
// and the greedy set with fill-back (§5.8). Without lending limits and with a single cohort level,
// a queue's guaranteed quota is 0 and what it can take is
//   min(Σ nominal − Σ usage, nominal − usage + borrowingLimit)   (the second term only with a limit).
// Every answer is also checked by enumeration: the preemptor fits once the targets are gone, and
// putting back any single target but the last makes it not fit (the set is minimal after
// fill-back).
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "support/builders.h"
#include "support/random.h"

namespace qm {
namespace preemption_oracle_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Rng;
using test::Workload;

constexpr int64_t kCpu = 1000;
constexpr Time kStart = Time::FromUnixSeconds(2'000'000);

struct OQueue {
  std::string name;
  int64_t nominal = 0;
  std::optional<int64_t> borrowing_limit;
  WithinClusterQueuePolicy within = WithinClusterQueuePolicy::kNever;
  ReclaimWithinCohortPolicy reclaim = ReclaimWithinCohortPolicy::kNever;
  BorrowWithinCohortPolicy borrow = BorrowWithinCohortPolicy::kNever;
};

struct OWorkload {
  std::string name;  // in namespace "ns"
  int cq = 0;
  int32_t priority = 0;
  int64_t cpu = 0;
  int64_t created_us = 0;   // its queue-order timestamp (never evicted)
  int64_t reserved_us = 0;  // QuotaReserved transition
  std::string uid;
  int seq = 0;  // submission order
};

struct World {
  std::vector<OQueue> queues;
  std::vector<OWorkload> admitted;
  OWorkload preemptor;
};

enum class Variant { kOwnQueue, kHierarchical, kWithoutBorrowing, kWhileBorrowing };

struct Candidate {
  const OWorkload* w;
  Variant variant;
};

// ---- The oracle (docs/semantics.md §5) ------------------------------------------------------------

class Oracle {
 public:
  explicit Oracle(const World& w) : w_(w), usage_(w.queues.size(), 0) {
    for (const OWorkload& a : w.admitted) usage_[static_cast<size_t>(a.cq)] += a.cpu;
  }

  // §5.2 (`LowerOrNewerEqualPriority`: equal priorities and the preemptor strictly older).
  static bool AllowedWithin(WithinClusterQueuePolicy p, const OWorkload& pre, const OWorkload& c) {
    switch (p) {
      case WithinClusterQueuePolicy::kNever: return false;
      case WithinClusterQueuePolicy::kLowerPriority: return c.priority < pre.priority;
      case WithinClusterQueuePolicy::kLowerOrNewerEqualPriority:
        return c.priority < pre.priority || (c.priority == pre.priority && pre.created_us < c.created_us);
    }
    return false;
  }
  static bool AllowedReclaim(ReclaimWithinCohortPolicy p, const OWorkload& pre, const OWorkload& c) {
    switch (p) {
      case ReclaimWithinCohortPolicy::kNever: return false;
      case ReclaimWithinCohortPolicy::kLowerPriority: return c.priority < pre.priority;
      case ReclaimWithinCohortPolicy::kAny: return true;
    }
    return false;
  }

  std::vector<Candidate> Targets() {
    const OWorkload& p = w_.preemptor;
    const OQueue& q = w_.queues[static_cast<size_t>(p.cq)];
    // §5.3 + §5.4: own queue, then the other queues of the cohort that are above nominal.
    std::vector<Candidate> own, hier, cohort;
    for (const OWorkload& c : w_.admitted)
      if (c.cq == p.cq && AllowedWithin(q.within, p, c)) own.push_back({&c, Variant::kOwnQueue});
    if (q.reclaim != ReclaimWithinCohortPolicy::kNever) {
      const bool adv = usage_[static_cast<size_t>(p.cq)] + p.cpu <= q.nominal;
      for (const OWorkload& c : w_.admitted) {
        if (c.cq == p.cq) continue;
        if (usage_[static_cast<size_t>(c.cq)] <= w_.queues[static_cast<size_t>(c.cq)].nominal) continue;
        if (!AllowedReclaim(q.reclaim, p, c)) continue;
        Variant v = Variant::kWhileBorrowing;
        if (adv) v = Variant::kHierarchical;
        else if (q.borrow == BorrowWithinCohortPolicy::kNever || c.priority >= p.priority) v = Variant::kWithoutBorrowing;
        (v == Variant::kHierarchical ? hier : cohort).push_back({&c, v});
      }
    }
    // §5.5: lower priority, more recent reservation, smaller UID, earlier submission.
    const auto less = [](const Candidate& a, const Candidate& b) {
      if (a.w->priority != b.w->priority) return a.w->priority < b.w->priority;
      if (a.w->reserved_us != b.w->reserved_us) return a.w->reserved_us > b.w->reserved_us;
      if (a.w->uid != b.w->uid) return a.w->uid < b.w->uid;
      return a.w->seq < b.w->seq;
    };
    for (auto* list : {&hier, &cohort, &own}) std::sort(list->begin(), list->end(), less);
    std::vector<Candidate> order = hier;
    order.insert(order.end(), cohort.begin(), cohort.end());
    order.insert(order.end(), own.begin(), own.end());
    // §5.7: the attempts, each "may the preemptor end up borrowing?".
    const bool bwc_off = q.borrow == BorrowWithinCohortPolicy::kNever;
    const bool under_nominal = usage_[static_cast<size_t>(p.cq)] < q.nominal;
    std::vector<bool> attempts;
    if (hier.empty() && cohort.empty()) attempts = {true};
    else if (bwc_off && !under_nominal) attempts = {true};
    else if (bwc_off && hier.empty()) attempts = {false, true};
    else attempts = {true, false};
    for (bool borrowing : attempts) {
      std::vector<Candidate> targets;
      if (Greedy(order, borrowing, &targets)) {
        last_borrowing_ = borrowing;
        return targets;
      }
    }
    return {};
  }

  // §5.7 `fitsNow` on the current (simulated) usage.
  bool FitsNow(bool borrowing) const {
    const OWorkload& p = w_.preemptor;
    const OQueue& q = w_.queues[static_cast<size_t>(p.cq)];
    const int64_t own = usage_[static_cast<size_t>(p.cq)];
    if (!borrowing && own + p.cpu > q.nominal) return false;
    int64_t total_nominal = 0, total_usage = 0;
    for (size_t i = 0; i < w_.queues.size(); ++i) {
      total_nominal += w_.queues[i].nominal;
      total_usage += usage_[i];
    }
    int64_t available = total_nominal - total_usage;
    if (q.borrowing_limit) available = std::min(available, q.nominal - own + *q.borrowing_limit);
    return p.cpu <= std::max<int64_t>(0, available);
  }

  void Take(const OWorkload& c) { usage_[static_cast<size_t>(c.cq)] -= c.cpu; }
  void PutBack(const OWorkload& c) { usage_[static_cast<size_t>(c.cq)] += c.cpu; }
  bool last_borrowing() const { return last_borrowing_; }

 private:
  // §5.6 + §5.8.
  bool Greedy(const std::vector<Candidate>& order, bool borrowing, std::vector<Candidate>* targets) {
    const std::vector<int64_t> saved = usage_;
    for (const Candidate& c : order) {
      if (c.variant != Variant::kOwnQueue) {
        if (borrowing && c.variant == Variant::kWithoutBorrowing) continue;
        if (usage_[static_cast<size_t>(c.w->cq)] <= w_.queues[static_cast<size_t>(c.w->cq)].nominal) continue;
      }
      Take(*c.w);
      targets->push_back(c);
      if (!FitsNow(borrowing)) continue;
      for (size_t i = targets->size() - 1; i-- > 0;) {  // from the second-to-last down to the first
        PutBack(*(*targets)[i].w);
        if (FitsNow(borrowing)) {  // kept out: the last target takes its place (§5.8)
          (*targets)[i] = targets->back();
          targets->pop_back();
        } else {
          Take(*(*targets)[i].w);
        }
      }
      usage_ = saved;
      return true;
    }
    usage_ = saved;
    targets->clear();
    return false;
  }

  const World& w_;
  std::vector<int64_t> usage_;
  bool last_borrowing_ = true;
};

PreemptionReason ReasonOf(Variant v) {
  switch (v) {
    case Variant::kOwnQueue: return PreemptionReason::kInClusterQueue;
    case Variant::kWhileBorrowing: return PreemptionReason::kInCohortReclaimWhileBorrowing;
    default: return PreemptionReason::kInCohortReclamation;
  }
}

// ---- Random worlds --------------------------------------------------------------------------------

World RandomWorld(uint64_t seed) {
  Rng rng(seed);
  World w;
  const int queues = static_cast<int>(rng.Between(2, 4));
  const std::vector<WithinClusterQueuePolicy> within = {WithinClusterQueuePolicy::kNever, WithinClusterQueuePolicy::kLowerPriority,
                                                        WithinClusterQueuePolicy::kLowerOrNewerEqualPriority};
  const std::vector<ReclaimWithinCohortPolicy> reclaim = {ReclaimWithinCohortPolicy::kNever, ReclaimWithinCohortPolicy::kLowerPriority,
                                                          ReclaimWithinCohortPolicy::kAny};
  const std::vector<BorrowWithinCohortPolicy> borrow = {BorrowWithinCohortPolicy::kNever, BorrowWithinCohortPolicy::kLowerPriority};
  for (int i = 0; i < queues; ++i) {
    OQueue q;
    q.name = fmt::format("cq-{}", i);
    q.nominal = rng.Between(0, 6) * kCpu;
    if (rng.OneIn(3)) q.borrowing_limit = rng.Between(0, 3) * kCpu;
    q.within = rng.Pick(within);
    q.reclaim = rng.Pick(reclaim);
    q.borrow = q.reclaim == ReclaimWithinCohortPolicy::kNever ? BorrowWithinCohortPolicy::kNever : rng.Pick(borrow);
    w.queues.push_back(q);
  }
  int64_t total_nominal = 0;
  for (const OQueue& q : w.queues) total_nominal += q.nominal;
  std::vector<int64_t> usage(w.queues.size(), 0);
  int64_t total_usage = 0;
  std::vector<int> slots(12), uids(12);
  for (int i = 0; i < 12; ++i) slots[static_cast<size_t>(i)] = uids[static_cast<size_t>(i)] = i;
  rng.Shuffle(slots);
  rng.Shuffle(uids);
  const int attempts = static_cast<int>(rng.Between(3, 11));
  int seq = 0;
  for (int i = 0; i < attempts; ++i) {
    OWorkload a;
    a.name = fmt::format("wl-{:02}", i);
    a.cq = static_cast<int>(rng.Between(0, queues - 1));
    a.priority = static_cast<int32_t>(rng.Between(0, 3));
    a.cpu = rng.Between(1, 3) * kCpu;
    a.created_us = (kStart + Duration::Seconds(-1000 + 7 * slots[static_cast<size_t>(i)])).us;
    a.reserved_us = (kStart + Duration::Seconds(-10 * rng.Between(0, 4))).us;  // ties on purpose
    a.uid = fmt::format("uid-{:02}", uids[static_cast<size_t>(i)]);
    const OQueue& q = w.queues[static_cast<size_t>(a.cq)];
    const int64_t cap = q.borrowing_limit ? q.nominal + *q.borrowing_limit : total_nominal;
    if (usage[static_cast<size_t>(a.cq)] + a.cpu > cap || total_usage + a.cpu > total_nominal) continue;  // would not fit
    usage[static_cast<size_t>(a.cq)] += a.cpu;
    total_usage += a.cpu;
    a.seq = seq++;
    w.admitted.push_back(a);
  }
  OWorkload& p = w.preemptor;
  p.name = "preemptor";
  p.cq = static_cast<int>(rng.Between(0, queues - 1));
  p.priority = static_cast<int32_t>(rng.Between(0, 4));
  p.cpu = rng.Between(1, 6) * kCpu;
  p.created_us = (kStart + Duration::Seconds(-1000 + 7 * slots[11])).us;
  p.uid = fmt::format("uid-{:02}", uids[11]);
  p.seq = seq;
  return w;
}

Engine BuildEngine(const World& w) {
  Engine e;
  std::vector<ObjectSpec> objects = {test::Namespace("ns"), test::Flavor("f"), test::Cohort("co")};
  for (const OQueue& q : w.queues) {
    Q quota("cpu", q.nominal);
    if (q.borrowing_limit) quota.Borrow(*q.borrowing_limit);
    objects.push_back(ClusterQueue(q.name).Cohort("co").Flavor("f", {quota}).WithinClusterQueue(q.within)
                          .ReclaimWithinCohort(q.reclaim).BorrowWithinCohort(q.borrow));
    objects.push_back(test::LocalQueue("ns", "lq-" + q.name, q.name));
  }
  const absl::Status applied = e.Apply(objects);
  INFO(applied.message());
  REQUIRE(applied.ok());
  REQUIRE(e.SetNow(kStart).ok());
  for (const OWorkload& a : w.admitted) {
    const std::string& cq = w.queues[static_cast<size_t>(a.cq)].name;
    const absl::Status st = e.Apply(Workload("ns", a.name).Queue("lq-" + cq).Request("cpu", a.cpu).Priority(a.priority)
                                        .Created(Time{a.created_us}).Uid(a.uid).AdmittedIn(cq, "f", Time{a.reserved_us}));
    INFO(st.message());
    REQUIRE(st.ok());
  }
  const OWorkload& p = w.preemptor;
  const std::string& cq = w.queues[static_cast<size_t>(p.cq)].name;
  REQUIRE(e.Apply(Workload("ns", p.name).Queue("lq-" + cq).Request("cpu", p.cpu).Priority(p.priority)
                      .Created(Time{p.created_us}).Uid(p.uid)).ok());
  REQUIRE(e.CheckInvariants().ok());
  return e;
}

std::string Describe(const World& w) {
  std::string out;
  for (size_t i = 0; i < w.queues.size(); ++i) {
    const OQueue& q = w.queues[i];
    out += fmt::format("{} nominal={} bl={} within={} reclaim={} bwc={}\n", q.name, q.nominal,
                       q.borrowing_limit ? std::to_string(*q.borrowing_limit) : "-", static_cast<int>(q.within),
                       static_cast<int>(q.reclaim), static_cast<int>(q.borrow));
  }
  for (const OWorkload& a : w.admitted)
    out += fmt::format("{} in cq-{} prio={} cpu={} reserved={} uid={}\n", a.name, a.cq, a.priority, a.cpu, a.reserved_us,
                       a.uid);
  const OWorkload& p = w.preemptor;
  out += fmt::format("preemptor in cq-{} prio={} cpu={} created={}\n", p.cq, p.priority, p.cpu, p.created_us);
  return out;
}

}  // namespace

TEST_CASE("Preemption oracle: classic preemption targets match a brute-force reading of the rules",
          "[adapter][preemption][oracle]") {
  const RequestedFlavor cpu{"main", "cpu", "f", AssignmentMode::kPreempt};
  int with_targets = 0, multi = 0;
  for (uint64_t seed = 1; seed <= 1500; ++seed) {
    const World w = RandomWorld(seed);
    INFO("seed " << seed << "\n" << Describe(w));
    Engine e = BuildEngine(w);
    absl::StatusOr<std::vector<Preemption>> got = e.PreemptionTargets("ns", "preemptor", "", {&cpu, 1});
    REQUIRE(got.ok());
    Oracle oracle(w);
    const std::vector<Candidate> want = oracle.Targets();
    std::vector<std::string> got_names, want_names;
    for (const Preemption& p : *got)
      got_names.push_back(fmt::format("{} {}", e.WorkloadName(p.victim), PreemptionReasonName(p.reason)));
    for (const Candidate& c : want)
      want_names.push_back(fmt::format("ns/{} {}", c.w->name, PreemptionReasonName(ReasonOf(c.variant))));
    CHECK(got_names == want_names);
    if (want.empty()) continue;
    ++with_targets;
    if (want.size() > 1) ++multi;
    // Enumeration: without the targets the preemptor fits; with any one but the last back, it does not.
    for (const Candidate& c : want) oracle.Take(*c.w);
    CHECK(oracle.FitsNow(oracle.last_borrowing()));
    for (size_t i = 0; i + 1 < want.size(); ++i) {
      oracle.PutBack(*want[i].w);
      CHECK_FALSE(oracle.FitsNow(oracle.last_borrowing()));
      oracle.Take(*want[i].w);
    }
  }
  // The worlds must exercise the interesting cases, not only "no targets".
  CHECK(with_targets >= 300);
  CHECK(multi >= 50);
}

}  // namespace preemption_oracle_test
}  // namespace qm
