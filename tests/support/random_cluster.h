// A seeded generator of small overloaded clusters for property tests (the thrash properties,
// the forecast's): from a SplitMix64 seed (support/random.h; never std:: distributions, whose
// output differs between standard libraries):
//   * 2–4 ClusterQueues in cohort `root`, or (one seed in three) in a two-level tree `root` ←
//     {`left`, `right`}; one flavor `default`; cpu, and (one seed in two) nvidia.com/gpu;
//   * per queue: nominal cpu 2–8 (and gpu 0–4), sometimes a borrowing or lending limit on cpu;
//     withinClusterQueue LowerPriority or Never, reclaimWithinCohort Any or LowerPriority,
//     borrowWithinCohort LowerPriority one queue in three; fair sharing on one seed in two, with
//     weights 0.5–2;
//   * 2–3 priorities (0, 100, 1000), as WorkloadPriorityClass objects or as plain priorities;
//   * 30–80 workloads, one pod set of 1–4 pods, each asking up to 1.5× its queue's nominal cpu
//     (about a third must borrow) and, with gpu, half of them some gpu; one arrives every 0–15
//     minutes and runs 10 minutes to 3 hours: several times what the cluster can run.
#ifndef QM_TESTS_SUPPORT_RANDOM_CLUSTER_H_
#define QM_TESTS_SUPPORT_RANDOM_CLUSTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "support/builders.h"
#include "support/random.h"
#include "support/thrash_host.h"

namespace qm::test {

inline constexpr int64_t kRandomClusterCpu = 1000;  // milli-CPU per CPU


struct QueueDesc {
  std::string name;
  std::string cohort;
  int64_t cpu = 0;  // milli-CPU
  int64_t gpu = 0;
  std::optional<int64_t> cpu_borrowing_limit, cpu_lending_limit;
  WithinClusterQueuePolicy within = WithinClusterQueuePolicy::kNever;
  ReclaimWithinCohortPolicy reclaim = ReclaimWithinCohortPolicy::kAny;
  BorrowWithinCohortPolicy borrow = BorrowWithinCohortPolicy::kNever;
  int64_t weight_milli = kDefaultWeightMilli;
};

// A generated cluster and its arrivals, before any policy is chosen: the same seed gives the same
// cluster in every mode.
struct ClusterDesc {
  uint64_t seed = 0;
  bool two_level = false;
  bool gpu = false;
  bool fair_sharing = false;
  bool priority_classes = false;  // WorkloadPriorityClass objects, else plain priorities
  std::vector<std::pair<std::string, int32_t>> priorities;
  std::vector<QueueDesc> queues;
  std::vector<Arrival> arrivals;
};

inline ClusterDesc Generate(uint64_t seed) {
  Rng rng(seed);
  ClusterDesc c;
  c.seed = seed;
  c.two_level = rng.OneIn(3);
  c.gpu = rng.OneIn(2);
  c.fair_sharing = rng.OneIn(2);
  c.priority_classes = rng.OneIn(2);
  c.priorities = {{"low", 0}, {"mid", 100}};
  if (rng.OneIn(2)) c.priorities.emplace_back("high", 1000);
  const int queues = static_cast<int>(rng.Between(2, 4));
  for (int i = 0; i < queues; ++i) {
    QueueDesc q;
    q.name = fmt::format("cq-{}", static_cast<char>('a' + i));
    q.cohort = !c.two_level ? "root" : rng.OneIn(2) ? "left" : "right";
    q.cpu = rng.Between(2, 8) * kRandomClusterCpu;
    if (c.gpu) q.gpu = rng.Between(0, 4);
    if (rng.OneIn(3)) q.cpu_borrowing_limit = rng.Between(0, 8) * kRandomClusterCpu;
    if (rng.OneIn(4)) q.cpu_lending_limit = rng.Between(0, q.cpu / kRandomClusterCpu) * kRandomClusterCpu;
    q.within = rng.OneIn(2) ? WithinClusterQueuePolicy::kLowerPriority : WithinClusterQueuePolicy::kNever;
    q.reclaim = rng.OneIn(2) ? ReclaimWithinCohortPolicy::kAny : ReclaimWithinCohortPolicy::kLowerPriority;
    q.borrow = rng.OneIn(3) ? BorrowWithinCohortPolicy::kLowerPriority : BorrowWithinCohortPolicy::kNever;
    if (c.fair_sharing) q.weight_milli = rng.Between(1, 4) * 500;
    c.queues.push_back(std::move(q));
  }
  const int workloads = static_cast<int>(rng.Between(30, 80));
  Duration at;
  for (int i = 0; i < workloads; ++i) {
    const QueueDesc& q = c.queues[static_cast<size_t>(rng.Between(0, queues - 1))];
    Arrival a;
    a.name = fmt::format("w{:02}", i);
    a.local_queue = "lq-" + q.name.substr(3);
    a.pods = static_cast<int32_t>(rng.Between(1, 4));
    const int64_t halves = rng.Between(1, q.cpu * 3 / 2 / 500);  // total cpu in 500m steps
    a.cpu = (halves + a.pods - 1) / a.pods * 500;
    if (c.gpu && rng.OneIn(2)) a.gpu = (rng.Between(1, q.gpu + 2) + a.pods - 1) / a.pods;
    const auto& [class_name, value] = rng.Pick(c.priorities);
    if (c.priority_classes) a.priority_class = class_name;
    else a.priority = value;
    at = at + Duration::Seconds(rng.Between(0, 15 * 60));
    a.submit = at;
    a.run = Duration::Seconds(rng.Between(10 * 60, 3 * 3600));
    c.arrivals.push_back(std::move(a));
  }
  return c;
}


/// The anti-thrash back-offs (and loop-free fair sharing) the forecast tests turn on for half their
/// seeds: their timers and status texts are what a forecast's copy must follow like the engine.
inline void UseBackoffs(AntiThrashConfig& at) {
  at.requeue_backoff = BackoffConfig{Duration::Seconds(60), Duration::Seconds(10 * 3600)};
  at.preemption_backoff = BackoffConfig{Duration::Seconds(60), Duration::Seconds(10 * 3600)};
  at.borrow_backoff = BackoffConfig{Duration::Seconds(300), Duration::Seconds(3600)};
  at.loop_free_fair_sharing = true;
}

/// The cluster and arrivals of `c` as a host scenario (fair sharing as drawn; no other policy).
inline HostScenario BuildScenario(const ClusterDesc& c) {
  HostScenario sc;
  sc.config.fair_sharing.enabled = c.fair_sharing;
  sc.objects = {Namespace("ns"), Flavor("default"), Cohort("root")};
  if (c.two_level) {
    sc.objects.push_back(Cohort("left", "root"));
    sc.objects.push_back(Cohort("right", "root"));
  }
  if (c.priority_classes)
    for (const auto& [name, value] : c.priorities) sc.objects.push_back(WorkloadPriorityClassSpec{name, value, ""});
  for (const QueueDesc& q : c.queues) {
    Q cpu("cpu", q.cpu);
    if (q.cpu_borrowing_limit) cpu.Borrow(*q.cpu_borrowing_limit);
    if (q.cpu_lending_limit) cpu.Lend(*q.cpu_lending_limit);
    std::vector<Q> quotas = {cpu};
    if (c.gpu) quotas.push_back(Q("nvidia.com/gpu", q.gpu));
    ClusterQueue cq(q.name);
    cq.Cohort(q.cohort).Flavor("default", quotas).WithinClusterQueue(q.within).ReclaimWithinCohort(q.reclaim);
    cq.BorrowWithinCohort(q.borrow).Weight(q.weight_milli);
    sc.objects.push_back(cq);
    sc.objects.push_back(LocalQueue("ns", "lq-" + q.name.substr(3), q.name));
  }
  sc.arrivals = c.arrivals;
  return sc;
}

/// Seed `seed`'s cluster as the copy and quiet-status properties run it: a run that loops without
/// end at one instant (Kueue's rules can) is cut once a workload was preempted 25 times, and with
/// `backoffs` the anti-thrash back-offs are on.
inline HostScenario PropertyScenario(uint64_t seed, bool backoffs) {
  HostScenario sc = BuildScenario(Generate(seed));
  sc.max_preemptions_per_workload = 25;
  if (backoffs) UseBackoffs(sc.config.anti_thrash);
  return sc;
}

inline std::string Describe(const ClusterDesc& c) {
  std::string out = fmt::format("seed {}: {} queue(s) in {}; fair sharing {}; {}; priorities", c.seed, c.queues.size(),
                                c.two_level ? "root <- {left, right}" : "root", c.fair_sharing ? "on" : "off",
                                c.gpu ? "cpu + nvidia.com/gpu" : "cpu");
  for (const auto& [name, value] : c.priorities) out += fmt::format(" {}={}", name, value);
  out += c.priority_classes ? " (WorkloadPriorityClass)\n" : " (plain)\n";
  const auto within = [](WithinClusterQueuePolicy p) { return p == WithinClusterQueuePolicy::kNever ? "Never" : "LowerPriority"; };
  for (const QueueDesc& q : c.queues) {
    out += fmt::format("  {} cohort={} cpu={}m", q.name, q.cohort, q.cpu);
    if (q.cpu_borrowing_limit) out += fmt::format(" borrowingLimit={}m", *q.cpu_borrowing_limit);
    if (q.cpu_lending_limit) out += fmt::format(" lendingLimit={}m", *q.cpu_lending_limit);
    if (c.gpu) out += fmt::format(" gpu={}", q.gpu);
    out += fmt::format(" withinClusterQueue={} reclaimWithinCohort={} borrowWithinCohort={}", within(q.within),
                       q.reclaim == ReclaimWithinCohortPolicy::kAny ? "Any" : "LowerPriority",
                       q.borrow == BorrowWithinCohortPolicy::kNever ? "Never" : "LowerPriority");
    if (c.fair_sharing) out += fmt::format(" weight={}m", q.weight_milli);
    out += "\n";
  }
  for (const Arrival& a : c.arrivals) {
    out += fmt::format("  {} {} {}x(cpu={}m", a.name, a.local_queue, a.pods, a.cpu);
    if (a.gpu > 0) out += fmt::format(", gpu={}", a.gpu);
    out += fmt::format(") prio={} submit={}s run={}s\n", a.priority ? std::to_string(*a.priority) : a.priority_class,
                       a.submit.us / 1000000, a.run.us / 1000000);
  }
  return out;
}

}  // namespace qm::test

#endif  // QM_TESTS_SUPPORT_RANDOM_CLUSTER_H_
