// Metamorphic tests: transformations of the input that must not change any decision.
//
// A seeded generator writes a script (objects, submissions, cycles, finishes, clock moves) for a
// small random cluster: 2–4 ClusterQueues in one or two levels of cohorts, 1–2 flavors, cpu (and
// sometimes memory), 6–12 workloads with random priorities, sizes and preemption policies. The
// script runs on a fresh engine and every event and the final state of every workload are
// rendered; the engine's invariants are checked after every call. Then the script is transformed
// and the rendering compared:
//   * renaming every object (namespaces, flavors, cohorts, ClusterQueues, LocalQueues, workloads)
//     with an order-preserving map, and with an order-reversing one (names are mapped back before
//     comparing; messages, which quote names, are left out). Kueue's decisions depend on names only
//     where docs/semantics.md §4.11 ("Where names decide") says; the generator avoids those ties
//     (distinct creation times, UIDs set, resources never renamed, fair sharing off in
//     the reversing case), and `ConfirmAllEvicted`'s events, which come in ClusterQueue name
//     order, are compared as a set;
//   * permuting the objects inside every `Apply` (messages included);
//   * scaling every quota and request by 1000 (messages, which print amounts, left out);
//   * saving and restoring the engine before a random call (messages included).
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "support/builders.h"
#include "support/random.h"

namespace qm {
namespace metamorphic_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Rng;
using test::Workload;

constexpr int64_t kCpu = 1000;
constexpr int64_t kGi = int64_t{1} << 30;
constexpr Time kStart = Time::FromUnixSeconds(1'000'000);

struct Op {
  enum Kind { kApply, kCycle, kConfirmAll, kFinish, kAdvance };
  Kind kind = kCycle;
  std::vector<ObjectSpec> objects;  // kApply
  std::string ns, name;             // kFinish
  int64_t seconds = 0;              // kAdvance
};

Op OpOf(Op::Kind kind) {
  Op op;
  op.kind = kind;
  return op;
}

struct Script {
  EngineConfig config;
  std::vector<Op> ops;
};

// ---- The generator -------------------------------------------------------------------------------

struct GenOptions {
  bool fair_sharing = false;  // may turn fair sharing on
};

Script RandomScript(uint64_t seed, GenOptions options) {
  Rng rng(seed);
  Script script;
  script.config.fair_sharing.enabled = options.fair_sharing && rng.OneIn(2);
  const bool memory = rng.OneIn(2), spot = rng.OneIn(2), nested = rng.OneIn(2);
  const int queues = static_cast<int>(rng.Between(2, 4));

  Op setup;
  setup.kind = Op::kApply;
  setup.objects = {test::Namespace("ns-a"), test::Namespace("ns-b"), test::Flavor("fl-on"), test::Cohort("co-root")};
  if (spot) setup.objects.push_back(test::Flavor("fl-spot"));
  if (nested) setup.objects.push_back(test::Cohort("co-sub", "co-root"));
  const std::vector<WithinClusterQueuePolicy> within = {WithinClusterQueuePolicy::kNever, WithinClusterQueuePolicy::kLowerPriority,
                                                        WithinClusterQueuePolicy::kLowerOrNewerEqualPriority};
  const std::vector<ReclaimWithinCohortPolicy> reclaim = {ReclaimWithinCohortPolicy::kNever, ReclaimWithinCohortPolicy::kLowerPriority,
                                                          ReclaimWithinCohortPolicy::kAny};
  const std::vector<BorrowWithinCohortPolicy> borrow = {BorrowWithinCohortPolicy::kNever, BorrowWithinCohortPolicy::kLowerPriority};
  for (int i = 0; i < queues; ++i) {
    ClusterQueue cq(fmt::format("cq-{}", i));
    cq.Cohort(nested && i % 2 == 1 ? "co-sub" : "co-root");
    for (const char* flavor : {"fl-on", "fl-spot"}) {
      if (std::string(flavor) == "fl-spot" && !spot) continue;
      std::vector<Q> quotas = {Q("cpu", rng.Between(0, 6) * kCpu)};
      if (memory) quotas.push_back(Q("memory", rng.Between(0, 8) * kGi));
      for (Q& q : quotas) {
        const int64_t unit = q.resource == "cpu" ? kCpu : kGi;
        if (rng.OneIn(3)) q.Borrow(rng.Between(0, 4) * unit);
        if (rng.OneIn(4)) q.Lend(std::min(q.nominal, rng.Between(0, 3) * unit));  // at most nominal
      }
      cq.Flavor(flavor, quotas);
    }
    const ReclaimWithinCohortPolicy r = rng.Pick(reclaim);
    const BorrowWithinCohortPolicy b = rng.Pick(borrow);
    // Validation: borrowWithinCohort must be Never when reclaimWithinCohort is.
    cq.WithinClusterQueue(rng.Pick(within)).ReclaimWithinCohort(r).BorrowWithinCohort(
        r == ReclaimWithinCohortPolicy::kNever ? BorrowWithinCohortPolicy::kNever : b);
    if (script.config.fair_sharing.enabled) cq.Weight(rng.Between(1, 4) * 500);
    setup.objects.push_back(cq);
    for (const char* ns : {"ns-a", "ns-b"}) setup.objects.push_back(test::LocalQueue(ns, fmt::format("lq-{}", i), fmt::format("cq-{}", i)));
  }
  script.ops.push_back(std::move(setup));

  // Distinct creation times and UIDs: the ties Kueue breaks by chance or by name never arise.
  const int workloads = static_cast<int>(rng.Between(6, 12));
  std::vector<int> slots(static_cast<size_t>(workloads)), uids(static_cast<size_t>(workloads));
  for (int i = 0; i < workloads; ++i) slots[static_cast<size_t>(i)] = uids[static_cast<size_t>(i)] = i;
  rng.Shuffle(slots);
  rng.Shuffle(uids);
  std::vector<std::pair<std::string, std::string>> submitted;
  for (int i = 0; i < workloads;) {
    Op batch;
    batch.kind = Op::kApply;
    for (int n = static_cast<int>(rng.Between(1, 4)); n > 0 && i < workloads; --n, ++i) {
      const std::string ns = rng.OneIn(2) ? "ns-a" : "ns-b";
      const std::string name = fmt::format("wl-{:02}", i);
      Workload w(ns, name);
      w.Queue(fmt::format("lq-{}", rng.Between(0, queues - 1)))
          .Priority(static_cast<int32_t>(rng.Between(0, 3)))
          .Request("cpu", rng.Between(1, 4) * kCpu)
          .Count(static_cast<int32_t>(rng.Between(1, 2)))
          .Created(kStart + Duration::Seconds(-1000 + 7 * slots[static_cast<size_t>(i)]))
          .Uid(fmt::format("uid-{:02}", uids[static_cast<size_t>(i)]));
      if (memory) w.Request("memory", rng.Between(1, 3) * kGi);
      batch.objects.push_back(w);
      submitted.emplace_back(ns, name);
    }
    script.ops.push_back(std::move(batch));
    script.ops.push_back(OpOf(Op::kConfirmAll));
    script.ops.push_back(OpOf(Op::kCycle));
    if (rng.OneIn(2)) script.ops.push_back(OpOf(Op::kCycle));
    Op advance = OpOf(Op::kAdvance);
    advance.seconds = rng.Between(1, 30);
    script.ops.push_back(advance);
    if (rng.OneIn(3)) {
      Op finish = OpOf(Op::kFinish);
      std::tie(finish.ns, finish.name) = rng.Pick(submitted);
      script.ops.push_back(finish);
    }
  }
  for (int i = 0; i < 3; ++i) {
    script.ops.push_back(OpOf(Op::kConfirmAll));
    script.ops.push_back(OpOf(Op::kCycle));
  }
  return script;
}

// ---- Transformations ------------------------------------------------------------------------------

using NameMap = std::function<std::string(const std::string&)>;

// Applies `f` to every object name and every reference to one.
Script Rename(const Script& in, const NameMap& f) {
  Script out = in;
  const auto opt = [&](std::string& s) {
    if (!s.empty()) s = f(s);
  };
  for (Op& op : out.ops) {
    for (ObjectSpec& o : op.objects) {
      std::visit(
          [&](auto& spec) {
            using T = std::decay_t<decltype(spec)>;
            if constexpr (std::is_same_v<T, NamespaceSpec> || std::is_same_v<T, ResourceFlavorSpec>) {
              spec.name = f(spec.name);
            } else if constexpr (std::is_same_v<T, CohortSpec>) {
              spec.name = f(spec.name);
              opt(spec.parent);
            } else if constexpr (std::is_same_v<T, ClusterQueueSpec>) {
              spec.name = f(spec.name);
              opt(spec.cohort);
              for (ResourceGroupSpec& g : spec.resource_groups)
                for (FlavorQuotasSpec& fq : g.flavors) fq.name = f(fq.name);
            } else if constexpr (std::is_same_v<T, LocalQueueSpec>) {
              spec.namespace_ = f(spec.namespace_);
              spec.name = f(spec.name);
              spec.cluster_queue = f(spec.cluster_queue);
            } else if constexpr (std::is_same_v<T, WorkloadSpec>) {
              spec.namespace_ = f(spec.namespace_);
              spec.name = f(spec.name);
              spec.queue_name = f(spec.queue_name);
            }
          },
          o);
    }
    opt(op.ns);
    opt(op.name);
  }
  return out;
}

// Every name the script uses, sorted.
std::vector<std::string> AllNames(const Script& s) {
  std::set<std::string> names;
  Rename(s, [&](const std::string& n) {
    names.insert(n);
    return n;
  });
  return {names.begin(), names.end()};
}

Script Scale(const Script& in, int64_t factor) {
  Script out = in;
  const auto mul = [&](std::optional<int64_t>& v) {
    if (v) *v *= factor;
  };
  for (Op& op : out.ops) {
    for (ObjectSpec& o : op.objects) {
      if (auto* cq = std::get_if<ClusterQueueSpec>(&o)) {
        for (ResourceGroupSpec& g : cq->resource_groups)
          for (FlavorQuotasSpec& fq : g.flavors)
            for (ResourceQuotaSpec& q : fq.resources) {
              q.nominal_quota *= factor;
              mul(q.borrowing_limit);
              mul(q.lending_limit);
            }
      } else if (auto* w = std::get_if<WorkloadSpec>(&o)) {
        for (PodSetSpec& ps : w->pod_sets)
          for (auto& [r, v] : ps.requests) v *= factor;
      }
    }
  }
  return out;
}

Script Permute(const Script& in, uint64_t seed) {
  Script out = in;
  Rng rng(seed);
  for (Op& op : out.ops) rng.Shuffle(op.objects);
  return out;
}

// ---- Running and rendering ------------------------------------------------------------------------

struct RunOptions {
  bool messages = true;
  std::map<std::string, std::string> back;  // transformed name → original (identity when absent)
  std::optional<size_t> restore_before;     // Save + Restore before this op
};

std::string Back(const RunOptions& o, const std::string& name) {
  auto it = o.back.find(name);
  return it == o.back.end() ? name : it->second;
}

std::string BackWorkload(const RunOptions& o, const std::string& ns_name) {
  const size_t slash = ns_name.find('/');
  if (slash == std::string::npos) return Back(o, ns_name);
  return Back(o, ns_name.substr(0, slash)) + "/" + Back(o, ns_name.substr(slash + 1));
}

std::string RenderEvent(const Engine& e, const Event& ev, const RunOptions& o) {
  std::string out = fmt::format("kind={} wl={} cq={} t={} reason={}", static_cast<int>(ev.kind),
                                BackWorkload(o, e.WorkloadName(ev.workload)), Back(o, e.ClusterQueueName(ev.cluster_queue)),
                                ev.time.us, ev.reason);
  if (ev.kind == EventKind::kPreempted)
    out += fmt::format(" preemption={} by={}", static_cast<int>(ev.preemption_reason),
                       BackWorkload(o, e.WorkloadName(ev.preemptor)));
  for (const AdmittedPodSet& ps : ev.pod_sets) {
    out += fmt::format(" ps{}x{}", ps.index, ps.count);
    for (const auto& [r, f] : ps.flavors) out += fmt::format(":{}={}", e.ResourceName(r), Back(o, e.FlavorName(f)));
  }
  if (o.messages) out += " msg=" + ev.message;
  return out;
}

// Runs the script; the rendering of every call's events and the final state of every workload.
// Checks the engine's invariants after every call.
std::string Run(const Script& script, const RunOptions& o) {
  absl::StatusOr<Engine> made = Engine::Create(script.config);
  REQUIRE(made.ok());
  Engine engine = *std::move(made);
  REQUIRE(engine.SetNow(kStart).ok());
  std::vector<std::string> lines;
  for (size_t i = 0; i < script.ops.size(); ++i) {
    if (o.restore_before == i) {
      absl::StatusOr<std::string> bytes = engine.Save();
      REQUIRE(bytes.ok());
      absl::StatusOr<Engine> restored = Engine::Restore(*bytes);
      REQUIRE(restored.ok());
      engine = *std::move(restored);
    }
    const Op& op = script.ops[i];
    absl::Status st;
    switch (op.kind) {
      case Op::kApply: st = engine.Apply(op.objects); break;
      case Op::kCycle: st = engine.ScheduleCycle().status; break;
      case Op::kConfirmAll: engine.ConfirmAllEvicted(); break;
      case Op::kFinish: st = engine.Finish(op.ns, op.name); break;
      case Op::kAdvance: st = engine.SetNow(engine.Now() + Duration::Seconds(op.seconds)); break;
    }
    if (i == 0 && !st.ok()) FAIL("the cluster was refused: " << st.message());
    std::vector<std::string> events;
    // SetNow is not a call with events: LastEvents() would still be the previous call's.
    if (op.kind != Op::kAdvance)
      for (const Event& ev : engine.LastEvents()) events.push_back(RenderEvent(engine, ev, o));
    // ConfirmAllEvicted reports in ClusterQueue name order: compare those as a set.
    if (op.kind == Op::kConfirmAll) std::sort(events.begin(), events.end());
    lines.push_back(fmt::format("op {} kind {}: {}", i, static_cast<int>(op.kind), absl::StatusCodeToString(st.code())));
    for (std::string& l : events) lines.push_back("  " + std::move(l));
    if (absl::Status inv = engine.CheckInvariants(); !inv.ok()) {
      INFO("op " << i);
      FAIL(inv.message());
    }
  }
  std::vector<std::string> final_state;
  for (WorkloadHandle h : engine.Workloads()) {
    absl::StatusOr<WorkloadStatus> w = engine.GetWorkload(h);
    REQUIRE(w.ok());
    std::string line = fmt::format("{} state={} cq={} prio={}", BackWorkload(o, engine.WorkloadName(h)),
                                   static_cast<int>(w->state), Back(o, w->cluster_queue), w->priority);
    if (o.messages) line += fmt::format(" reason={} msg={}", w->reason, w->message);
    final_state.push_back(std::move(line));
  }
  std::sort(final_state.begin(), final_state.end());  // Workloads() is in (renamed) name order
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  for (const std::string& l : final_state) out += l + "\n";
  return out;
}

constexpr uint64_t kSeeds = 60;

}  // namespace

TEST_CASE("Metamorphic: an order-preserving renaming of every object changes no decision", "[adapter][metamorphic]") {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    INFO("seed " << seed);
    const Script script = RandomScript(seed, {.fair_sharing = true});
    RunOptions plain;
    plain.messages = false;
    const std::string want = Run(script, plain);
    RunOptions renamed;
    renamed.messages = false;
    for (const std::string& n : AllNames(script)) renamed.back["x" + n] = n;  // a common prefix keeps the order
    CHECK(Run(Rename(script, [](const std::string& n) { return "x" + n; }), renamed) == want);
  }
}

TEST_CASE("Metamorphic: an order-reversing renaming changes no decision where Kueue's order ignores names",
          "[adapter][metamorphic]") {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    INFO("seed " << seed);
    const Script script = RandomScript(seed, {.fair_sharing = false});
    RunOptions plain;
    plain.messages = false;
    const std::string want = Run(script, plain);
    const std::vector<std::string> names = AllNames(script);
    std::map<std::string, std::string> forward;
    RunOptions renamed;
    renamed.messages = false;
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string to = fmt::format("n{:03}", names.size() - 1 - i);
      forward[names[i]] = to;
      renamed.back[to] = names[i];
    }
    CHECK(Run(Rename(script, [&](const std::string& n) { return forward.at(n); }), renamed) == want);
  }
}

TEST_CASE("Metamorphic: permuting the objects inside each Apply changes no decision", "[adapter][metamorphic]") {
  size_t admitted = 0, preempted = 0, fair = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    INFO("seed " << seed);
    const Script script = RandomScript(seed, {.fair_sharing = true});
    const std::string want = Run(script, {});
    CHECK(Run(Permute(script, seed * 7919), {}) == want);
    for (size_t at = want.find("kind=0 "); at != std::string::npos; at = want.find("kind=0 ", at + 1)) ++admitted;
    for (size_t at = want.find("kind=1 "); at != std::string::npos; at = want.find("kind=1 ", at + 1)) ++preempted;
    if (script.config.fair_sharing.enabled) ++fair;
  }
  // The random clusters must exercise admission and preemption, with and without fair sharing.
  UNSCOPED_INFO(admitted << " admissions, " << preempted << " preemptions, " << fair << " scripts with fair sharing");
  CHECK(admitted >= 200);  // 287 with these seeds
  CHECK(preempted >= 20);   // 35
  CHECK(fair >= 15);        // 33
}

TEST_CASE("Metamorphic: scaling every quota and request by 1000 changes no decision", "[adapter][metamorphic]") {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    INFO("seed " << seed);
    const Script script = RandomScript(seed, {.fair_sharing = true});
    RunOptions o;
    o.messages = false;
    CHECK(Run(Scale(script, 1000), o) == Run(script, o));
  }
}

TEST_CASE("Metamorphic: saving and restoring before a random call changes no later decision", "[adapter][metamorphic]") {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    INFO("seed " << seed);
    const Script script = RandomScript(seed, {.fair_sharing = true});
    const std::string want = Run(script, {});
    Rng rng(seed ^ 0x5eed);
    RunOptions o;
    o.restore_before = static_cast<size_t>(rng.Between(1, static_cast<int64_t>(script.ops.size()) - 1));
    INFO("restored before op " << *o.restore_before);
    CHECK(Run(script, o) == want);
  }
}

}  // namespace metamorphic_test
}  // namespace qm
