// Engine::Save / Engine::Restore (docs/snapshot-format.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "adapter/engine_state.h"
#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "qm/io/explain.h"
#include "qm/io/scenario.h"
#include "qm/solver/anti_thrash.h"
#include "qm/state/stable_hash.h"
#include "support/builders.h"
#include "support/slow_build.h"

namespace qm {
namespace snapshot_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

std::filesystem::path ScenariosDir() {
  return std::filesystem::path(QM_TESTS_DIR) / "scenarios";
}

std::vector<std::filesystem::path> ScenarioFiles() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(ScenariosDir()))
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Every field of every event, names included (the handles alone could hide a renamed slot).
std::string RenderEvents(const Engine& e, std::span<const Event> events) {
  std::string out;
  for (const Event& ev : events) {
    out += fmt::format("#{} kind={} wl={}/{}({}) cq={} t={} reason={} preemption={} by={}/{} msg={}", ev.sequence,
                       static_cast<int>(ev.kind), ev.workload.index, ev.workload.generation, e.WorkloadName(ev.workload),
                       ev.cluster_queue.value, ev.time.us, ev.reason, static_cast<int>(ev.preemption_reason),
                       ev.preemptor.index, ev.preemptor.generation, ev.message);
    for (const AdmittedPodSet& ps : ev.pod_sets) {
      out += fmt::format(" ps{}x{}", ps.index, ps.count);
      for (const auto& [r, f] : ps.flavors) out += fmt::format(":{}={}", r.value, f.value);
    }
    for (ClusterQueueId q : ev.cycle_queues) out += fmt::format(" ring:{}", q.value);
    out += "\n";
  }
  return out;
}

// What one step printed (as `qm run --output json` would) and its error.
std::string RenderStep(const Scenario& scenario, const StepResult& r, const absl::Status& status) {
  ScenarioResult one;
  one.steps.push_back(r);
  one.status = status;
  return RenderScenarioRun(scenario, one, OutputFormat::kJson) + "\nstatus: " + status.ToString();
}

// What the next cycle would do with every workload (`Explain`: flavors tried from where the scan
// stopped, targets), which depends on state no step output shows.
std::string Probe(const Engine& e) {
  std::string out;
  for (WorkloadHandle h : e.Workloads()) {
    const absl::StatusOr<WorkloadExplanation> ex = e.Explain(h);
    out += ex.ok() ? RenderExplanation(e, *ex, OutputFormat::kJson) : ex.status().ToString();
    out += "\n";
  }
  return out;
}

std::string MustSave(const Engine& e) {
  absl::StatusOr<std::string> s = e.Save();
  REQUIRE(s.ok());
  return *std::move(s);
}

// Overwrites the checksum so that only the decoder's own checks stand between `bytes` and an engine.
void FixChecksum(std::string& bytes) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 32; i < bytes.size(); ++i) {
    h ^= static_cast<unsigned char>(bytes[i]);
    h *= 1099511628211ull;
  }
  for (int i = 0; i < 8; ++i) bytes[24 + static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(h >> (8 * i)));
}

// A small engine with a bit of everything: a cohort tree, admitted, evicting, pending, parked,
// inactive, finished and deleted workloads, priority classes, a stopped LocalQueue.
Engine SmallWorld() {
  Engine e;
  std::vector<ObjectSpec> objects = {
      test::Namespace("a", {{"team", "a"}}), test::Namespace("b"), test::Flavor("on-demand"), test::Flavor("spot"),
      test::Cohort("pool", "root"),
      ClusterQueue("team-a").Cohort("pool").Flavor("on-demand", {Q("cpu", 4 * kCpu)}).Flavor("spot", {Q("cpu", 2 * kCpu)})
          .WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority),
      ClusterQueue("team-b").Cohort("pool").Flavor("on-demand", {Q("cpu", 2 * kCpu).Lend(kCpu)}),
      test::LocalQueue("a", "q", "team-a"), test::LocalQueue("b", "q", "team-b"), test::LocalQueue("b", "lost", "nowhere"),
      WorkloadPriorityClassSpec{"high", 100, "important"}, PriorityClassSpec{"low", -5, true, "background"}};
  REQUIRE(e.Apply(objects).ok());
  REQUIRE(e.SetNow(Time::FromUnixSeconds(1000)).ok());
  REQUIRE(e.Submit(Workload("a", "one").Queue("q").Request("cpu", 3 * kCpu).Uid("u-1")).ok());
  REQUIRE(e.Submit(Workload("a", "two").Queue("q").Request("cpu", 3 * kCpu)).ok());
  REQUIRE(e.Submit(Workload("b", "three").Queue("q").Request("cpu", kCpu).Count(2)).ok());
  REQUIRE(e.Submit(Workload("b", "orphan").Queue("lost").Request("cpu", kCpu)).ok());
  REQUIRE(e.Submit(Workload("b", "gone").Queue("q").Request("cpu", kCpu)).ok());
  e.RunUntilStable();
  REQUIRE(e.Submit(Workload("a", "urgent").Queue("q").Request("cpu", 4 * kCpu).Priority(50)).ok());
  REQUIRE(e.Submit(Workload("a", "huge").Queue("q").Request("cpu", 100 * kCpu)).ok());
  REQUIRE(e.Delete(ObjectRef{ObjectKind::kWorkload, "b", "gone"}).ok());
  REQUIRE(e.Submit(Workload("b", "idle").Queue("q").Request("cpu", kCpu)).ok());
  REQUIRE(e.Deactivate("b", "idle").ok());
  REQUIRE(e.SetNow(Time::FromUnixSeconds(1010)).ok());
  e.ScheduleCycle();
  e.ScheduleCycle();
  return e;
}

TEST_CASE("Snapshot: restoring at every step boundary of every scenario changes no later decision",
          "[adapter][snapshot]") {
  size_t scenarios = 0, boundaries = 0, steps_replayed = 0;
  for (const std::filesystem::path& path : ScenarioFiles()) {
    absl::StatusOr<Scenario> scenario = LoadScenarioFile(path.string());
    if (!scenario.ok()) continue;  // invalid on purpose (tests/scenarios/known-failures.txt)
    absl::StatusOr<Engine> made = MakeScenarioEngine(*scenario);
    if (!made.ok()) continue;
    INFO("scenario " << path.string());
    ++scenarios;
    Engine& reference = *made;
    std::string events;
    REQUIRE(reference.SetEventCallback([&](std::span<const Event> ev) { events += RenderEvents(reference, ev); }).ok());
    // The reference run: the snapshot before each step, then what the step did.
    std::vector<std::string> snapshots, outputs, probes;
    for (size_t i = 0; i < scenario->steps.size(); ++i) {
      snapshots.push_back(MustSave(reference));
      probes.push_back(Probe(reference));
      events.clear();
      StepResult r;
      const absl::Status st = RunScenarioStep(*scenario, i, reference, &r);
      outputs.push_back(RenderStep(*scenario, r, st) + events);
      if (!st.ok()) break;
    }
    snapshots.push_back(MustSave(reference));
    probes.push_back(Probe(reference));
    // From every boundary: restore, then the remaining steps must print, emit and leave the same.
    for (size_t k = 0; k < snapshots.size(); ++k) {
      INFO("restored before step " << k);
      absl::StatusOr<Engine> restored = Engine::Restore(snapshots[k]);
      INFO(restored.status().message());
      REQUIRE(restored.ok());
      ++boundaries;
      if (MustSave(*restored) != snapshots[k]) FAIL_CHECK("Save -> Restore -> Save differs");
      if (Probe(*restored) != probes[k]) FAIL_CHECK("Explain differs after Restore");
      std::string got_events;
      Engine& engine = *restored;
      REQUIRE(engine.SetEventCallback([&](std::span<const Event> ev) { got_events += RenderEvents(engine, ev); }).ok());
      for (size_t i = k; i < outputs.size(); ++i) {
        INFO("step " << i);
        got_events.clear();
        StepResult r;
        const absl::Status st = RunScenarioStep(*scenario, i, engine, &r);
        ++steps_replayed;
        const std::string got = RenderStep(*scenario, r, st) + got_events;
        if (got != outputs[i]) {
          CHECK(got == outputs[i]);
          break;
        }
        if (MustSave(engine) != snapshots[i + 1]) {
          FAIL_CHECK("the state after the step differs");
          break;
        }
      }
    }
  }
  UNSCOPED_INFO(scenarios << " scenarios, " << boundaries << " step boundaries restored, " << steps_replayed
                          << " steps replayed");
  CHECK(scenarios >= 100);
  SUCCEED();
}

TEST_CASE("Snapshot: Save -> Restore -> Save gives the same bytes", "[adapter][snapshot]") {
  Engine e = SmallWorld();
  const std::string first = MustSave(e);
  absl::StatusOr<Engine> restored = Engine::Restore(first);
  REQUIRE(restored.ok());
  CHECK(MustSave(*restored) == first);
  SECTION("the restored engine decides what the original decides") {
    // Setup: the same calls on both. Expect: the same events and the same state after each.
    for (Engine* x : {&e, &*restored}) {
      REQUIRE(x->Finish("a", "one").ok());
      REQUIRE(x->Submit(Workload("b", "late").Queue("q").Request("cpu", kCpu)).ok());
    }
    CHECK(RenderEvents(e, e.LastEvents()) == RenderEvents(*restored, restored->LastEvents()));
    for (int i = 0; i < 4; ++i) {
      const std::string a = RenderEvents(e, e.ScheduleCycle().events);
      const std::string b = RenderEvents(*restored, restored->ScheduleCycle().events);
      CHECK(a == b);
      CHECK(MustSave(e) == MustSave(*restored));
      e.ConfirmAllEvicted();
      restored->ConfirmAllEvicted();
    }
    CHECK(e.Workloads() == restored->Workloads());
    CHECK(e.Cohorts() == restored->Cohorts());
  }
  SECTION("an empty engine") {
    Engine empty;
    const std::string bytes = MustSave(empty);
    absl::StatusOr<Engine> back = Engine::Restore(bytes);
    REQUIRE(back.ok());
    CHECK(MustSave(*back) == bytes);
  }
  SECTION("the host's clock is taken from `host`; the manual clock is saved") {
    CHECK(restored->Now() == Time::FromUnixSeconds(1010));
    EngineConfig host;
    host.clock = [] { return Time::FromUnixSeconds(42); };
    absl::StatusOr<Engine> clocked = Engine::Restore(first, host);
    REQUIRE(clocked.ok());
    CHECK(clocked->Now() == Time::FromUnixSeconds(42));
    CHECK_FALSE(clocked->SetNow(Time{}).ok());
  }
}

TEST_CASE("Snapshot: a private copy (forecasts, what-if) saves and decides as the engine does", "[adapter][snapshot]") {
  Engine e = SmallWorld();
  const std::string saved = MustSave(e);
  absl::StatusOr<Engine> copy = internal::CopyEngine(e);
  REQUIRE(copy.ok());
  CHECK(MustSave(*copy) == saved);
  CHECK(copy->CheckInvariants().ok());
  // Setup: the same calls on both. Expect: the same events.
  for (Engine* x : {&e, &*copy}) {
    REQUIRE(x->Finish("a", "one").ok());
    REQUIRE(x->Submit(Workload("b", "late").Queue("q").Request("cpu", kCpu)).ok());
  }
  for (int i = 0; i < 3; ++i) CHECK(RenderEvents(e, e.ScheduleCycle().events) == RenderEvents(*copy, copy->ScheduleCycle().events));
  CHECK(MustSave(e) == MustSave(*copy));
}

TEST_CASE("Snapshot: a blocked equivalence class survives a restore", "[adapter][snapshot]") {
  // Setup: cq has 4 CPU; big-1 asks 8, so the first cycle parks it (NoFit) and blocks its class
  // (docs/semantics.md §3.7). No step output shows the blocked class: only the next equivalent
  // workload does.
  Engine e;
  std::vector<ObjectSpec> objects = {test::Namespace("a"), test::Flavor("default"),
                                     ClusterQueue("cq").Flavor("default", {Q("cpu", 4 * kCpu)}),
                                     test::LocalQueue("a", "q", "cq")};
  REQUIRE(e.Apply(objects).ok());
  REQUIRE(e.Submit(Workload("a", "big-1").Queue("q").Request("cpu", 8 * kCpu)).ok());
  e.ScheduleCycle();
  absl::StatusOr<Engine> restored = Engine::Restore(MustSave(e));
  REQUIRE(restored.ok());
  // Expect: an equivalent workload submitted after the restore is parked at once, as it is on the
  // original engine.
  for (Engine* x : {&e, &*restored}) {
    REQUIRE(x->Submit(Workload("a", "big-2").Queue("q").Request("cpu", 8 * kCpu)).ok());
    absl::StatusOr<WorkloadStatus> st = x->GetWorkload("a", "big-2");
    REQUIRE(st.ok());
    CHECK(st->inadmissible);
    CHECK(st->message == "Bypassed scheduling evaluation because an equivalent workload recently failed");
  }
  CHECK(MustSave(e) == MustSave(*restored));
}

TEST_CASE("Snapshot: shape hashes and equivalence keys are the same in every process", "[adapter][snapshot]") {
  // They are saved (blocked classes, scan progress), so a snapshot restored by another process or
  // build must find the same values. These constants change only with a new snapshot format version.
  WorkloadShape shape;
  PodSetShape ps;
  ps.name = "main";
  ps.count = 2;
  ps.per_pod.emplace_back(ResourceId(0), 1000);
  ps.node_selector = {{"zone", "a"}};
  Toleration t;
  t.key = "k";
  t.op = Toleration::Operator::kExists;
  t.effect = TaintEffect::kNoSchedule;
  ps.tolerations.push_back(t);
  shape.pod_sets.push_back(ps);
  CHECK(ShapeHash(shape) == 0xa926543106cb5d3eull);
  CHECK(EquivalenceKeyOf(ShapeHash(shape), 5) == 0x08284688ce6f2c36ull);
}

TEST_CASE("Snapshot: truncated and corrupted snapshots are errors", "[adapter][snapshot]") {
  const std::string good = MustSave(SmallWorld());
  REQUIRE(good.size() > 64);
  SECTION("every prefix") {
    // Expect: an error for every proper prefix, the empty one included.
    for (size_t n = 0; n < good.size(); ++n) {
      absl::StatusOr<Engine> r = Engine::Restore(std::string_view(good).substr(0, n));
      if (r.ok()) FAIL_CHECK("a prefix of " << n << " bytes was accepted");
    }
    CHECK_FALSE(Engine::Restore(good + "x").ok());
  }
  SECTION("every single-byte change") {
    // Expect: the checksum (or the header checks) catch each of them.
    for (size_t i = 0; i < good.size(); ++i) {
      for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
        std::string bad = good;
        bad[i] = static_cast<char>(static_cast<uint8_t>(bad[i]) ^ flip);
        if (Engine::Restore(bad).ok()) FAIL_CHECK("byte " << i << " ^ " << int{flip} << " was accepted");
      }
    }
  }
  SECTION("payload changes behind a valid checksum never crash the decoder") {
    // Setup: change each payload byte and fix the checksum, so the decoder and validator see it.
    // Expect: an error, or an engine that saves and restores consistently.
    // Slow builds change every kByteStride-th byte, from a different start for each flip.
    size_t accepted = 0;
    const uint8_t flips[] = {0x01, 0x80, 0xff};
    for (size_t f = 0; f < std::size(flips); ++f) {
      const uint8_t flip = flips[f];
      for (size_t i = test::ByteLoopStart(32, f); i < good.size(); i += test::kByteStride) {
        std::string bad = good;
        bad[i] = static_cast<char>(static_cast<uint8_t>(bad[i]) ^ flip);
        FixChecksum(bad);
        absl::StatusOr<Engine> r = Engine::Restore(bad);
        if (!r.ok()) continue;
        ++accepted;
        const std::string again = MustSave(*r);
        absl::StatusOr<Engine> twice = Engine::Restore(again);
        REQUIRE(twice.ok());
        CHECK(MustSave(*twice) == again);
      }
    }
    UNSCOPED_INFO(accepted << " altered payloads decoded to a valid engine");
    SUCCEED();
  }
  SECTION("bad magic and a wrong length") {
    std::string bad = good;
    bad[1] = 'X';
    const absl::StatusOr<Engine> r = Engine::Restore(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.status().message()).find("not a Quartermaster engine snapshot") != std::string::npos);
    CHECK_FALSE(Engine::Restore("not a snapshot at all, just text").ok());
  }
}

// data/format-N.snapshot: `qm run --save` of data/snapshot-cli-save.yaml by a build that wrote
// format N (cq has 2 cpu; a and b admitted, c waiting). Restores it, checks that state, and that
// saved again it is the current format and restores to the same bytes.
Engine RestoreOldFormat(int version) {
  std::ifstream in(fmt::format("{}/adapter/data/format-{}.snapshot", QM_TESTS_DIR, version), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 32);
  REQUIRE(bytes[8] == version);
  absl::StatusOr<Engine> e = Engine::Restore(bytes);
  REQUIRE(e.ok());
  CHECK(e->GetWorkload("default", "a")->state == WorkloadState::kAdmitted);
  CHECK(e->GetWorkload("default", "c")->state == WorkloadState::kPending);
  const std::string again = MustSave(*e);
  CHECK(again[8] == 5);
  CHECK(MustSave(*Engine::Restore(again)) == again);
  return *std::move(e);
}

TEST_CASE("Snapshot: a format-3 snapshot (before refill mode) still restores, with refill off", "[adapter][snapshot]") {
  CHECK_FALSE(RestoreOldFormat(3).config().refill.enabled);
}

TEST_CASE("Snapshot: a format-4 snapshot (before the historical share) still restores, with it off", "[adapter][snapshot]") {
  // Saved by 0875763.
  CHECK_FALSE(RestoreOldFormat(4).config().fair_sharing.historical.enabled);
}

TEST_CASE("Snapshot: the historical share's settings and history are saved and restored", "[adapter][snapshot]") {
  EngineConfig config;
  config.fair_sharing.enabled = true;
  config.fair_sharing.historical.enabled = true;
  config.fair_sharing.historical.half_life = Duration::Seconds(3 * 3600);
  Engine e = *Engine::Create(config);
  REQUIRE(e.SetNow(Time::FromUnixSeconds(1000)).ok());
  REQUIRE(e.Apply(std::vector<ObjectSpec>{test::Namespace("default"), test::Flavor("default"),
                                           ClusterQueue("lender").Cohort("pool").Flavor("default", {Q("cpu", 4000)}),
                                           ClusterQueue("a").Cohort("pool").Flavor("default", {Q("cpu", 0)}),
                                           test::LocalQueue("default", "qa", "a")})
              .ok());
  WorkloadSpec w;
  w.name = "w";
  w.queue_name = "qa";
  PodSetSpec ps;
  ps.requests = {{"cpu", 4000}};
  w.pod_sets.push_back(ps);
  REQUIRE(e.Submit(w).ok());
  e.RunUntilStable();
  REQUIRE(e.SetNow(Time::FromUnixSeconds(1000 + 3 * 3600)).ok());
  REQUIRE(e.Finish("default", "w").ok());
  // Borrowed 4 cpu for one half-life, then nothing: the history is 2 cpu, 500 of the cohort's 4.
  CHECK(e.GetClusterQueue("a")->weighted_share == 500);
  absl::StatusOr<Engine> restored = Engine::Restore(MustSave(e));
  REQUIRE(restored.ok());
  CHECK(restored->config().fair_sharing.historical.enabled);
  CHECK(restored->config().fair_sharing.historical.half_life == Duration::Seconds(3 * 3600));
  CHECK(MustSave(*restored) == MustSave(e));
  // Another half-life later, in both: 250.
  for (Engine* x : {&e, &*restored}) {
    REQUIRE(x->SetNow(Time::FromUnixSeconds(1000 + 6 * 3600)).ok());
    CHECK(x->GetClusterQueue("a")->weighted_share == 250);
  }
  CHECK(MustSave(*restored) == MustSave(e));

  // Damaged history: each refused with DataLoss naming the history (anchor layout:
  // docs/snapshot-format.md, HIST).
  const std::string good = MustSave(e);
  const size_t hist = good.rfind("HIST");
  REQUIRE(hist != std::string::npos);
  const size_t first_anchor = hist + 4 + 8 + 1 + 8 + 4 + 4;  // tag, length, started, last, nodes, resources
  auto put_i64 = [](std::string& b, size_t at, int64_t v) {
    for (int i = 0; i < 8; ++i) b[at + static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i)));
  };
  struct Damage {
    size_t offset;
    int64_t value;
    const char* expect;
  };
  for (const Damage& d : {Damage{first_anchor + 24, -1, "anchor out of range"},                    // b < 0
                          Damage{first_anchor + 16, int64_t{1} << 40, "anchor out of range"},      // h0 ≥ 2^95
                          Damage{first_anchor, int64_t{1} << 62, "anchor out of range"},           // t0 after last
                          Damage{hist + 4 + 8 + 1 + 8, 1 << 30, "history"}}) {                     // too many nodes
    std::string bad = good;
    if (d.offset == hist + 4 + 8 + 1 + 8) {
      for (int i = 0; i < 4; ++i) bad[d.offset + static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(d.value >> (8 * i)));
    } else {
      put_i64(bad, d.offset, d.value);
    }
    FixChecksum(bad);
    const absl::StatusOr<Engine> r = Engine::Restore(bad);
    INFO("offset " << d.offset - hist << " in HIST");
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.status().message()).find(d.expect) != std::string::npos);
  }
}

TEST_CASE("Snapshot: refill mode is saved and restored", "[adapter][snapshot]") {
  EngineConfig config;
  config.refill.enabled = true;
  const Engine e = *Engine::Create(config);
  absl::StatusOr<Engine> restored = Engine::Restore(MustSave(e));
  REQUIRE(restored.ok());
  CHECK(restored->config().refill.enabled);
  CHECK_FALSE(Engine::Restore(MustSave(Engine()))->config().refill.enabled);
}

TEST_CASE("Snapshot: a snapshot of another format version is refused, naming the version", "[adapter][snapshot]") {
  std::string bytes = MustSave(Engine());
  for (uint32_t version : {0u, 1u, 2u, 6u, 77u, 0xffffffffu}) {
    for (int i = 0; i < 4; ++i) bytes[8 + static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(version >> (8 * i)));
    const absl::StatusOr<Engine> r = Engine::Restore(bytes);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(r.status().message()) ==
          fmt::format("snapshot: format version {} is not supported (this build reads versions 3 to 5)", version));
  }
  // Even a newer snapshot cut short says which version it is.
  const absl::StatusOr<Engine> r = Engine::Restore(std::string_view(bytes).substr(0, 12));
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.status().message()).find("version 4294967295") != std::string::npos);
}


// ---- Anti-thrash state (format 2) ----------------------------------------------------------------

Time At(int64_t seconds) { return Time::FromUnixSeconds(seconds); }

// Every workload's status as a host sees it, preemption history included, and the next timer.
std::string RenderStatuses(const Engine& e) {
  std::string out;
  for (WorkloadHandle h : e.Workloads()) {
    absl::StatusOr<WorkloadStatus> st = e.GetWorkload(h);
    if (!st.ok()) {
      out += st.status().ToString() + "\n";
      continue;
    }
    const PreemptionSummary& p = st->preemptions;
    out += fmt::format("{}/{} state={} cq={} inadmissible={} reason={} msg={} preempted={}[{},{},{},{}] caused={} "
                       "lost={}",
                       st->namespace_, st->name, static_cast<int>(st->state), st->cluster_queue, st->inadmissible,
                       st->reason, st->message, p.preempted, p.by_reason[0], p.by_reason[1], p.by_reason[2],
                       p.by_reason[3], p.caused, p.held_lost.us);
    for (const PreemptionSummary::Record& r : p.recent)
      out += fmt::format(" <{} {} {} {}>", r.time.us, r.preemptor, r.preemptor_cluster_queue, static_cast<int>(r.reason));
    if (p.borrow_allowed_at) out += fmt::format(" borrow-after={}", p.borrow_allowed_at->us);
    out += "\n";
  }
  const std::optional<Time> next = e.NextTimedChange();
  out += next ? fmt::format("next timer {}\n", next->us) : "no timer\n";
  return out;
}

// One cycle's decisions and counts (the events arrive through the callback).
std::string Cycle(Engine& e) {
  const CycleResult& r = e.ScheduleCycle();
  std::string out = fmt::format("cycle {}: admitted={} preempted={} pending={} parked={}\n", r.cycle, r.admitted,
                                r.preempted, r.pending, r.parked);
  for (const Decision& d : r.decisions)
    out += fmt::format("  {} {} cq={} by={} reason={}\n", static_cast<int>(d.kind), e.WorkloadName(d.workload),
                       d.cluster_queue.value, e.WorkloadName(d.preemptor), static_cast<int>(d.preemption_reason));
  return out;
}

// Confirms every eviction, then runs a cycle.
std::string ConfirmAndCycle(Engine& e) {
  e.ConfirmAllEvicted();
  return Cycle(e);
}

// A step of a host's run: some calls, and what they printed (besides events and statuses).
using Step = std::function<std::string(Engine&)>;

struct Run {
  std::vector<std::string> snapshots;  ///< before each step, and after the last
  std::vector<std::string> statuses;   ///< RenderStatuses likewise
  std::vector<std::string> outputs;    ///< per step: what it printed, its events, then every status
};

Run Record(Engine& e, const std::vector<Step>& steps) {
  Run run;
  std::string events;
  REQUIRE(e.SetEventCallback([&](std::span<const Event> ev) { events += RenderEvents(e, ev); }).ok());
  for (const Step& step : steps) {
    run.snapshots.push_back(MustSave(e));
    run.statuses.push_back(RenderStatuses(e));
    events.clear();
    const std::string printed = step(e);
    run.outputs.push_back(printed + events + RenderStatuses(e));
  }
  run.snapshots.push_back(MustSave(e));
  run.statuses.push_back(RenderStatuses(e));
  REQUIRE(e.SetEventCallback(nullptr).ok());
  return run;
}

// Restores `original` before every step and runs the remaining steps on the restored engine:
// each must print, emit and leave exactly what it did in the original run.
void CheckRestoreAtEveryStep(const Run& original, const std::vector<Step>& steps) {
  for (size_t k = 0; k < original.snapshots.size(); ++k) {
    INFO("restored before step " << k);
    absl::StatusOr<Engine> restored = Engine::Restore(original.snapshots[k]);
    REQUIRE(restored.ok());
    CHECK(MustSave(*restored) == original.snapshots[k]);
    CHECK(RenderStatuses(*restored) == original.statuses[k]);
    const Run rest = Record(*restored, std::vector<Step>(steps.begin() + static_cast<ptrdiff_t>(k), steps.end()));
    for (size_t i = 0; i < rest.outputs.size(); ++i) {
      INFO("step " << k + i);
      CHECK(rest.outputs[i] == original.outputs[k + i]);
      CHECK(rest.snapshots[i + 1] == original.snapshots[k + i + 1]);
    }
  }
}

Engine MakeEngine(const AntiThrashConfig& anti_thrash, const std::vector<ObjectSpec>& objects) {
  EngineConfig config;
  config.anti_thrash = anti_thrash;
  absl::StatusOr<Engine> made = Engine::Create(std::move(config));
  REQUIRE(made.ok());
  REQUIRE(made->Apply(objects).ok());
  return *std::move(made);
}

// Cohort `pool` of ClusterQueues `a` and `b` (4 cpu each, reclaiming from each other), namespaces
// `a` and `b` with LocalQueue `q` into the queue of the same name; with `extra`, the same again as
// cohort `pool2` of `c` and `d`.
std::vector<ObjectSpec> TwoQueues(bool extra = false) {
  std::vector<ObjectSpec> objects = {test::Flavor("default"), test::Cohort("pool"),
                                     WorkloadPriorityClassSpec{"protected", 0, "minimum runtime"}};
  const std::vector<std::pair<std::string, std::string>> queues =
      extra ? std::vector<std::pair<std::string, std::string>>{{"a", "pool"}, {"b", "pool"}, {"c", "pool2"}, {"d", "pool2"}}
            : std::vector<std::pair<std::string, std::string>>{{"a", "pool"}, {"b", "pool"}};
  if (extra) objects.push_back(test::Cohort("pool2"));
  for (const auto& [name, cohort] : queues) {
    objects.push_back(test::Namespace(name));
    objects.push_back(ClusterQueue(name).Cohort(cohort).Flavor("default", {Q("cpu", 4 * kCpu)})
                          .ReclaimWithinCohort(ReclaimWithinCohortPolicy::kAny)
                          .WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority));
    objects.push_back(test::LocalQueue(name, "q", name));
  }
  return objects;
}

WorkloadSpec Job(const std::string& ns, const std::string& name, int64_t cpus, int32_t priority = 0) {
  return Workload(ns, name).Queue("q").Request("cpu", cpus * kCpu).Priority(priority).spec();
}
// A workload the minimum runtime protects (its rule selects priority class `protected`).
WorkloadSpec ProtectedJob(const std::string& ns, const std::string& name, int64_t cpus) {
  WorkloadSpec w = Job(ns, name, cpus);
  w.priority_class = PriorityClassRef{PriorityClassSource::kWorkloadPriorityClass, "protected"};
  return w;
}

Step Submit(WorkloadSpec w) {
  return [w = std::move(w)](Engine& e) {
    REQUIRE(e.Submit(w).ok());
    return std::string();
  };
}
Step SetTime(int64_t seconds) {
  return [seconds](Engine& e) {
    REQUIRE(e.SetNow(At(seconds)).ok());
    return std::string();
  };
}
// Several steps as one.
Step Then(std::vector<Step> steps) {
  return [steps = std::move(steps)](Engine& e) {
    std::string out;
    for (const Step& s : steps) out += s(e);
    return out;
  };
}
Step Finish(std::string ns, std::string name) {
  return [ns = std::move(ns), name = std::move(name)](Engine& e) {
    REQUIRE(e.Finish(ns, name).ok());
    return std::string();
  };
}
const Step kCycle = [](Engine& e) { return Cycle(e); };
const Step kConfirmAndCycle = [](Engine& e) { return ConfirmAndCycle(e); };

bool SameRules(const std::vector<MinRuntimeRule>& a, const std::vector<MinRuntimeRule>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].duration != b[i].duration || a[i].reasons != b[i].reasons ||
        a[i].priority_classes != b[i].priority_classes || a[i].cluster_queues != b[i].cluster_queues)
      return false;
  return true;
}

TEST_CASE("Snapshot: the anti-thrash configuration comes back with every field", "[adapter][snapshot]") {
  // Setup: every field of `antiThrash` set to a value other than its default.
  AntiThrashConfig at;
  at.min_runtime = {MinRuntimeRule{Duration::Seconds(600),
                                   {PreemptionReason::kInCohortReclamation, PreemptionReason::kInCohortFairSharing},
                                   {"high", "batch"},
                                   {"team-a"}},
                    MinRuntimeRule{Duration::Seconds(60), {PreemptionReason::kInClusterQueue}, {}, {"team-b", "team-c"}},
                    MinRuntimeRule{Duration::Milliseconds(1500), {}, {"low"}, {}}};
  at.loop_free_fair_sharing = true;
  at.borrow_backoff = BorrowBackoffConfig{Duration::Seconds(30), Duration::Seconds(480)};
  at.requeue_backoff = RequeueBackoffConfig{Duration::Seconds(40), Duration{}};
  at.preemption_backoff = PreemptionBackoffConfig{Duration::Seconds(20), Duration::Seconds(320)};
  at.cycle_detection = CycleDetectionConfig{true, Duration::Seconds(900)};
  Engine e = MakeEngine(at, TwoQueues());
  const std::string bytes = MustSave(e);
  absl::StatusOr<Engine> back = Engine::Restore(bytes);
  REQUIRE(back.ok());
  // Expect: the same configuration, and the same bytes when saved again.
  const AntiThrashConfig& got = back->config().anti_thrash;
  CHECK(SameRules(got.min_runtime, at.min_runtime));
  CHECK(got.loop_free_fair_sharing);
  CHECK(got.borrow_backoff.base == Duration::Seconds(30));
  CHECK(got.borrow_backoff.max == Duration::Seconds(480));
  CHECK(got.requeue_backoff.base == Duration::Seconds(40));
  CHECK(got.requeue_backoff.max == Duration{});
  CHECK(got.preemption_backoff.base == Duration::Seconds(20));
  CHECK(got.preemption_backoff.max == Duration::Seconds(320));
  CHECK(got.cycle_detection.enabled);
  CHECK(got.cycle_detection.window == Duration::Seconds(900));
  CHECK(MustSave(*back) == bytes);
  SECTION("the defaults come back as defaults") {
    absl::StatusOr<Engine> plain = Engine::Restore(MustSave(Engine()));
    REQUIRE(plain.ok());
    CHECK_FALSE(plain->config().anti_thrash.ChangesDecisions());
    CHECK_FALSE(plain->config().anti_thrash.cycle_detection.enabled);
    CHECK(plain->config().anti_thrash.cycle_detection.window == CycleDetectionConfig{}.window);
  }
}

// Cohort `pool`: `a` and `b` take quota from each other by reclaiming (cycle detection on, window
// 600 s). Steps, by index:
//   0 t=1000  a/x1 (8 cpu) is admitted, borrowing 4 from b.
//   1 t=1010  b/y1 reclaims: x1 preempted (edge b -> a); y1 admitted.
//   2 t=1020  x1 finishes; b/y2 is admitted, borrowing 4 from a.
//   3 t=1030  a/x2 reclaims: y2 preempted (edge a -> b): the ring a, b is reported.
//   4 t=1040  x2 finishes; y2 is admitted again, borrowing.
//   5 t=1050  a/x3 reclaims: y2 preempted again; the ring was reported 20 s ago: no event.
//   6 t=1060  y2 deactivated, y1 finishes; a/x4 (priority 5) is admitted, borrowing.
//   7 t=1640  y2 activated reclaims: x3 (priority 0) preempted. x3 had preempted y2: a workload
//             cycle; the ring's report is older than the window, its edges are not: reported again.
std::vector<Step> RingSteps() {
  return {Then({SetTime(1000), Submit(Job("a", "x1", 8)), kCycle}),
          Then({SetTime(1010), Submit(Job("b", "y1", 4)), kCycle, kConfirmAndCycle}),
          Then({SetTime(1020), Finish("a", "x1"), Submit(Job("b", "y2", 4)), kCycle}),
          Then({SetTime(1030), Submit(Job("a", "x2", 4)), kCycle, kConfirmAndCycle}),
          Then({SetTime(1040), Finish("a", "x2"), kCycle}),
          Then({SetTime(1050), Submit(Job("a", "x3", 4)), kCycle, kConfirmAndCycle}),
          Then({SetTime(1060),
                [](Engine& e) {
                  REQUIRE(e.Deactivate("b", "y2").ok());
                  return std::string();
                },
                Finish("b", "y1"), Submit(Job("a", "x4", 4, 5)), kCycle}),
          Then({SetTime(1640),
                [](Engine& e) {
                  REQUIRE(e.Activate("b", "y2").ok());
                  return std::string();
                },
                kCycle, kConfirmAndCycle})};
}

Engine RingWorld() {
  AntiThrashConfig at;
  at.cycle_detection = CycleDetectionConfig{true, Duration::Seconds(600)};
  return MakeEngine(at, TwoQueues());
}

size_t Occurrences(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("Snapshot: preemption histories, edges and reported rings come back", "[adapter][snapshot]") {
  Engine e = RingWorld();
  const std::vector<Step> steps = RingSteps();
  const Run run = Record(e, steps);
  // The run does what the steps above say (the cycle events name their reason).
  REQUIRE(run.outputs.size() == 8);
  CHECK(Occurrences(run.outputs[1], "ClusterQueuePreemptionCycle") == 0);
  CHECK(Occurrences(run.outputs[3], "ClusterQueuePreemptionCycle") == 1);
  CHECK(Occurrences(run.outputs[5], "PreemptionCycle") == 0);
  CHECK(Occurrences(run.outputs[5], "b/y2 cq=1 by=a/x3") == 1);
  CHECK(Occurrences(run.outputs[7], "WorkloadPreemptionCycle") == 1);
  CHECK(Occurrences(run.outputs[7], "ClusterQueuePreemptionCycle") == 1);

  SECTION("restored before any step, the rest of the run is the same") {
    // Expect: restored before step 3 (one edge saved), the ring is reported; before step 5 (the
    // report saved), it is not; before step 7, both cycles are reported again.
    CheckRestoreAtEveryStep(run, steps);
  }
  SECTION("the histories, as a restored engine reports them") {
    absl::StatusOr<Engine> back = Engine::Restore(run.snapshots.back());
    REQUIRE(back.ok());
    // y2: preempted by x2 and by x3 (different preemptors, both reclamation), then preempted x3.
    absl::StatusOr<WorkloadStatus> y2 = back->GetWorkload("b", "y2");
    REQUIRE(y2.ok());
    CHECK(y2->preemptions.preempted == 2);
    CHECK(y2->preemptions.by_reason[static_cast<int>(PreemptionReason::kInCohortReclamation)] == 2);
    CHECK(y2->preemptions.caused == 1);
    CHECK(y2->preemptions.held_lost == Duration::Seconds(10 + 10));
    REQUIRE(y2->preemptions.recent.size() == 2);
    CHECK(y2->preemptions.recent[0].preemptor == "a/x2");
    CHECK(y2->preemptions.recent[0].time == At(1030));
    CHECK(y2->preemptions.recent[1].preemptor == "a/x3");
    CHECK(y2->preemptions.recent[1].preemptor_cluster_queue == "a");
    // x3: a preemptor once, then preempted by y2.
    absl::StatusOr<WorkloadStatus> x3 = back->GetWorkload("a", "x3");
    REQUIRE(x3.ok());
    CHECK(x3->preemptions.caused == 1);
    CHECK(x3->preemptions.preempted == 1);
    // x1 finished; its history stays.
    CHECK(back->GetWorkload("a", "x1")->preemptions.preempted == 1);
    // The detector's memory: both edges, and the ring reported at 1640.
    const ThrashState& t = internal::EngineStateForTesting(*back).s.thrash;
    REQUIRE(t.edges.size() == 2);
    CHECK(t.edges[0].size() == 1);
    CHECK(t.edges[1].size() == 1);
    REQUIRE(t.reported_rings.size() == 1);
    CHECK(t.reported_rings.begin()->first == std::vector<uint32_t>{0, 1});
    CHECK(t.reported_rings.begin()->second == At(1640));
  }
}

// The timers a restore would rebuild from the rest of the state: for every workload holding quota,
// each end of its minimum runtime after now; for every workload with a borrow back-off, its end
// after now. What the engine holds differs (see "Why the timers are saved" in
// docs/snapshot-format.md); used below to show that the difference changes decisions.
absl::btree_set<std::pair<int64_t, uint64_t>> RebuiltTimers(const ClusterState& s) {
  absl::btree_set<std::pair<int64_t, uint64_t>> out;
  for (uint32_t i = 0; i < s.workloads.size(); ++i) {
    const WorkloadRecord& w = s.workloads[i];
    if (w.deleted) continue;
    const uint64_t handle = s.Handle(WorkloadId(i)).Pack();
    if (w.admission) {
      for (int r = 0; r < kPreemptionReasons; ++r) {
        const Duration d = MinRuntimeFor(s, w, w.admission->cluster_queue, static_cast<PreemptionReason>(r));
        if (d.us > 0 && w.admission->reserved_at + d > s.Now()) out.emplace((w.admission->reserved_at + d).us, handle);
      }
    }
    if (s.config.anti_thrash.borrow_backoff.base.us > 0 && w.extras && w.extras->preemptions &&
        w.extras->preemptions->borrow_allowed_at > s.Now())
      out.emplace(w.extras->preemptions->borrow_allowed_at.us, handle);
  }
  return out;
}

// Minimum runtime 100 s for priority class `protected`; borrow back-off 50 s doubling up to 400 s.
// Cohort `pool` (a, b), steps by index:
//   0 t=1000  a/x1 (protected, 8 cpu) admitted, borrowing 4 from b: protected until 1100.
//   1 t=1010  b/y1 (4 cpu) would reclaim, but x1 is protected: parked. Next timer 1100.
//   2 t=1099  a cycle: nothing.
//   3 t=1100  the timer flushes: y1 preempts x1 (back-off until 1150); y1 admitted.
//   4 t=1120  y1 finishes; x1 would borrow but backs off: parked.
//   5 t=1150  the back-off's timer flushes: x1 admitted (protected until 1250).
//   6 t=1160  the host evicts x1, which is admitted again (protected until 1260); the timer at 1250
//             stays: it will flush a tree of a live workload, and no current protection ends then.
//   7 t=1170  b/y2 (4 cpu) would reclaim from x1, protected: parked.
//   8 t=1250  the stale timer flushes: y2 is looked at again and parked again.
//   9 t=1260  the protection ends: y2 preempts x1 (second back-off: until 1360); y2 admitted.
//  10 t=1270  y2 is deleted; x1 backs off: parked.
//  11 t=1360  x1 admitted (protected until 1460).
//  12 t=1370  x1 deleted: its timer at 1460 flushes nothing but is the next timed change.
// Cohort `pool2` (c, d), with a workload the minimum runtime does not protect:
//  13 t=2000  c/z (priority -1) and c/w1 (priority 5), 4 cpu each, admitted (c borrows 4).
//  14 t=2010  d/v1 reclaims: z preempted (back-off until 2060); v1 admitted; z parked.
//  15 t=2020  w1 finishes: z admitted within c's nominal quota (the back-off allows that).
//  16 t=2030  v1 finishes; c/w2 (priority 5) admitted, borrowing.
//  17 t=2040  d/v2 reclaims: z preempted again (back-off until 2140); the timer at 2060 stays.
//  18 t=2060  the earlier back-off's timer flushes: z is looked at again, parked again.
//  19 t=2070  v2 finishes; z backs off: parked.
//  20 t=2140  z admitted, borrowing.
std::vector<Step> TimerSteps() {
  return {
      Then({SetTime(1000), Submit(ProtectedJob("a", "x1", 8)), kCycle}),
      Then({SetTime(1010), Submit(Job("b", "y1", 4)), kCycle}),
      Then({SetTime(1099), kCycle}),
      Then({SetTime(1100), kCycle, kConfirmAndCycle}),
      Then({SetTime(1120), Finish("b", "y1"), kCycle}),
      Then({SetTime(1150), kCycle}),
      Then({SetTime(1160),
            [](Engine& e) {
              REQUIRE(e.Evict("a", "x1", "Maintenance", "the host moved it").ok());
              return std::string();
            },
            kConfirmAndCycle}),
      Then({SetTime(1170), Submit(Job("b", "y2", 4)), kCycle}),
      Then({SetTime(1250), kCycle}),
      Then({SetTime(1260), kCycle, kConfirmAndCycle}),
      Then({SetTime(1270),
            [](Engine& e) {
              REQUIRE(e.Delete(ObjectRef{ObjectKind::kWorkload, "b", "y2"}).ok());
              return std::string();
            },
            kCycle}),
      Then({SetTime(1360), kCycle}),
      Then({SetTime(1370),
            [](Engine& e) {
              REQUIRE(e.Delete(ObjectRef{ObjectKind::kWorkload, "a", "x1"}).ok());
              return std::string();
            },
            kCycle}),
      Then({SetTime(2000), Submit(Job("c", "z", 4, -1)), Submit(Job("c", "w1", 4, 5)), kCycle, kCycle}),
      Then({SetTime(2010), Submit(Job("d", "v1", 4)), kCycle, kConfirmAndCycle}),
      Then({SetTime(2020), Finish("c", "w1"), kCycle}),
      Then({SetTime(2030), Finish("d", "v1"), Submit(Job("c", "w2", 4, 5)), kCycle}),
      Then({SetTime(2040), Submit(Job("d", "v2", 4)), kCycle, kConfirmAndCycle}),
      Then({SetTime(2060), kCycle}),
      Then({SetTime(2070), Finish("d", "v2"), kCycle}),
      Then({SetTime(2140), kCycle}),
  };
}

Engine TimerWorld() {
  AntiThrashConfig at;
  at.min_runtime = {MinRuntimeRule{Duration::Seconds(100), {}, {"protected"}, {}}};
  at.borrow_backoff = BorrowBackoffConfig{Duration::Seconds(50), Duration::Seconds(400)};
  return MakeEngine(at, TwoQueues(/*extra=*/true));
}

TEST_CASE("Snapshot: anti-thrash timers come back exactly", "[adapter][snapshot]") {
  Engine e = TimerWorld();
  const std::vector<Step> steps = TimerSteps();
  const Run run = Record(e, steps);
  REQUIRE(run.outputs.size() == 21);
  // The run does what the steps above say: the stale timers flush (a pending decision each).
  CHECK(Occurrences(run.outputs[8], "  2 b/y2 cq=1") == 1);
  CHECK(Occurrences(run.outputs[12], "next timer 1460000000") == 1);
  CHECK(Occurrences(run.outputs[18], "  2 c/z cq=2") == 1);

  SECTION("restored before any step, the rest of the run is the same") {
    // Expect: every later cycle flushes, decides and reports the next timer as in the original,
    // stale timers included (steps 8, 12 and 18).
    CheckRestoreAtEveryStep(run, steps);
  }
  SECTION("timers rebuilt from the rest of the state would change decisions") {
    // Setup: restore before each step, replace the saved timers by the ones a rebuild from the
    // other records gives, replay. Expect: where a stale timer of a live workload is missing, a
    // later cycle decides differently (steps 8 and 18: the parked workload is not looked at
    // again); where a timer of a deleted workload is, the next timed change differs at once
    // (after step 12).
    std::vector<size_t> decided_differently, reported_differently;
    for (size_t k = 0; k < run.snapshots.size(); ++k) {
      absl::StatusOr<Engine> restored = Engine::Restore(run.snapshots[k]);
      REQUIRE(restored.ok());
      ClusterState& s = internal::EngineStateForTesting(*restored).s;
      const auto rebuilt = RebuiltTimers(s);
      if (rebuilt == s.thrash.timers) continue;
      s.thrash.timers = rebuilt;
      if (RenderStatuses(*restored) != run.statuses[k]) reported_differently.push_back(k);
      const Run rest = Record(*restored, std::vector<Step>(steps.begin() + static_cast<ptrdiff_t>(k), steps.end()));
      for (size_t i = 0; i < rest.outputs.size(); ++i) {
        if (rest.outputs[i] != run.outputs[k + i]) {
          decided_differently.push_back(k + i);
          break;
        }
      }
    }
    CHECK(std::find(decided_differently.begin(), decided_differently.end(), 8) != decided_differently.end());
    CHECK(std::find(decided_differently.begin(), decided_differently.end(), 18) != decided_differently.end());
    CHECK(std::find(reported_differently.begin(), reported_differently.end(), 13) != reported_differently.end());
  }
}

TEST_CASE("Snapshot: requeue and preemption back-offs come back", "[adapter][snapshot]") {
  // Setup: the timer run with the requeue and preemption back-offs on as well: every preempted
  // workload gets an admission back-off, every preemptor counts its rounds.
  AntiThrashConfig at;
  at.min_runtime = {MinRuntimeRule{Duration::Seconds(100), {}, {"protected"}, {}}};
  at.requeue_backoff = RequeueBackoffConfig{Duration::Seconds(30), Duration::Seconds(240)};
  at.preemption_backoff = PreemptionBackoffConfig{Duration::Seconds(20), Duration::Seconds(160)};
  Engine e = MakeEngine(at, TwoQueues(/*extra=*/true));
  const std::vector<Step> steps = TimerSteps();
  const Run run = Record(e, steps);
  // The run met both back-offs: some workload waits to be admitted again, some preemptor counts a round.
  bool requeue = false, rounds = false;
  for (const WorkloadRecord& w : internal::EngineStateForTesting(e).s.workloads) {
    if (w.deleted || !w.extras || !w.extras->preemptions) continue;
    requeue = requeue || w.extras->preemptions->admit_allowed_at.us != 0;
    rounds = rounds || w.extras->preemptions->preempt_allowed_at.us != 0;
  }
  CHECK(requeue);
  CHECK(rounds);
  // Expect: restored before any step, every later decision, status and timer is the same.
  CheckRestoreAtEveryStep(run, steps);
}

// Both runs, ended: a world with preemption histories, timers (stale ones included), edges and
// reported rings, for the corruption tests.
Engine ThrashWorld() {
  AntiThrashConfig at;
  at.min_runtime = {MinRuntimeRule{Duration::Seconds(100), {}, {"protected"}, {}}};
  at.borrow_backoff = BorrowBackoffConfig{Duration::Seconds(50), Duration::Seconds(400)};
  at.cycle_detection = CycleDetectionConfig{true, Duration::Seconds(600)};
  Engine e = MakeEngine(at, TwoQueues(/*extra=*/true));
  std::vector<Step> steps = RingSteps();
  const std::vector<Step> more = TimerSteps();
  // The timer run's second part, on pool2: it ends with two back-off timers of c/z.
  for (size_t i = 13; i <= 17; ++i) steps.push_back(more[i]);
  steps.push_back([](Engine& x) {
    REQUIRE(x.Delete(ObjectRef{ObjectKind::kWorkload, "a", "x1"}).ok());
    return std::string();
  });
  for (const Step& s : steps) s(e);
  return e;
}

// Damages the state of a saved engine through `damage`, saves it, and returns what Restore says.
absl::Status RestoreDamaged(const std::function<void(ClusterState&)>& damage) {
  Engine e = ThrashWorld();
  damage(internal::EngineStateForTesting(e).s);
  absl::StatusOr<std::string> bytes = e.Save();
  REQUIRE(bytes.ok());
  return Engine::Restore(*bytes).status();
}

// The first live workload with a preemption history of at least `preempted` preemptions.
PreemptionHistory& AHistory(ClusterState& s, uint32_t preempted = 1) {
  for (WorkloadRecord& w : s.workloads)
    if (!w.deleted && w.extras && w.extras->preemptions && w.extras->preemptions->preempted >= preempted)
      return *w.extras->preemptions;
  FAIL("no preemption history");
  throw std::logic_error("unreachable");
}

bool Says(const absl::Status& st, std::string_view what) {
  return st.code() == absl::StatusCode::kDataLoss && std::string(st.message()).find(what) != std::string::npos;
}

TEST_CASE("Snapshot: damaged anti-thrash records are refused, naming what is wrong", "[adapter][snapshot]") {
  {
    // The undamaged world holds every kind of record.
    Engine e = ThrashWorld();
    const ClusterState& s = internal::EngineStateForTesting(e).s;
    REQUIRE_FALSE(s.thrash.timers.empty());
    REQUIRE_FALSE(s.thrash.edges.empty());
    REQUIRE_FALSE(s.thrash.reported_rings.empty());
    absl::StatusOr<Engine> back = Engine::Restore(MustSave(e));
    REQUIRE(back.ok());
  }
  SECTION("a history on a free slot") {
    const absl::Status st = RestoreDamaged([](ClusterState& s) {
      REQUIRE_FALSE(s.free_workloads.empty());
      WorkloadRecord& w = s.wl(s.free_workloads.front());
      w.extras = std::make_unique<WorkloadExtras>();
      w.extras->preemptions = std::make_unique<PreemptionHistory>();
      w.extras->preemptions->caused = 1;
    });
    CHECK(Says(st, "a deleted slot holds a preemption history"));
  }
  SECTION("counts that do not add up") {
    CHECK(Says(RestoreDamaged([](ClusterState& s) { ++AHistory(s).by_reason[0]; }), "preemptions by reason"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) { AHistory(s, 2).recent.pop_back(); }), "recent preemptions for"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) {
                 PreemptionHistory& h = AHistory(s);
                 h = PreemptionHistory();
               }),
               "no preemption of it or by it"));
  }
  SECTION("an out-of-range reason") {
    CHECK(Says(RestoreDamaged([](ClusterState& s) { AHistory(s).recent[0].reason = static_cast<PreemptionReason>(4); }),
               "recent preemption reason: value 4 is out of range"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) {
                 s.config.anti_thrash.min_runtime[0].reasons.push_back(static_cast<PreemptionReason>(9));
               }),
               "minimum runtime reason: value 9 is out of range"));
  }
  SECTION("ids that name nothing") {
    CHECK(Says(RestoreDamaged([](ClusterState& s) { AHistory(s).recent[0].preemptor_cq = ClusterQueueId(40); }),
               "has ClusterQueue id 40, not a ClusterQueue"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) { AHistory(s).recent[0].preemptor.generation += 5; }),
               "which never existed"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) { s.thrash.timers.emplace(5000 * 1000000LL, WorkloadHandle{900, 0}.Pack()); }),
               "names workload slot 900 generation 0, which never existed"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) { s.thrash.reported_rings.emplace(std::vector<uint32_t>{0, 7}, At(1)); }),
               "reported ring [0 7]: id 7 is not a ClusterQueue"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) { s.thrash.edges[1].push_back({ClusterQueueId(12), At(1)}); }),
               "victim queue id 12 is not a ClusterQueue"));
  }
  SECTION("rings and edges the detector cannot have made") {
    CHECK(Says(RestoreDamaged([](ClusterState& s) { s.thrash.reported_rings.emplace(std::vector<uint32_t>{1, 0}, At(1)); }),
               "reported ring [1 0]: does not start at its smallest id"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) { s.thrash.reported_rings.emplace(std::vector<uint32_t>{0, 1, 1}, At(1)); }),
               "a ClusterQueue appears twice"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) { s.thrash.edges[0].push_back({ClusterQueueId(0), At(1)}); }),
               "an edge to itself"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) { s.config.anti_thrash.cycle_detection.enabled = false; }),
               "recorded with cycle detection off"));
    CHECK(Says(RestoreDamaged([](ClusterState& s) {
                 s.config.anti_thrash.min_runtime.clear();
                 s.config.anti_thrash.borrow_backoff = {};
                 for (WorkloadRecord& w : s.workloads)
                   if (w.extras && w.extras->preemptions) w.extras->preemptions->borrow_allowed_at = Time{};
               }),
               "timers: present with neither"));
  }
  SECTION("every prefix, and payload changes behind a valid checksum") {
    // Expect: every proper prefix is an error; a changed payload byte is an error or decodes to
    // an engine that saves and restores consistently.
    const std::string good = MustSave(ThrashWorld());
    for (size_t n = 0; n < good.size(); ++n)
      if (Engine::Restore(std::string_view(good).substr(0, n)).ok()) FAIL_CHECK("a prefix of " << n << " bytes was accepted");
    // Slow builds change every kByteStride-th byte, from a different start for each flip.
    const uint8_t flips[] = {0x01, 0x80};
    for (size_t f = 0; f < std::size(flips); ++f) {
      const uint8_t flip = flips[f];
      for (size_t i = test::ByteLoopStart(32, f); i < good.size(); i += test::kByteStride) {
        std::string bad = good;
        bad[i] = static_cast<char>(static_cast<uint8_t>(bad[i]) ^ flip);
        FixChecksum(bad);
        absl::StatusOr<Engine> r = Engine::Restore(bad);
        if (!r.ok()) continue;
        const std::string again = MustSave(*r);
        absl::StatusOr<Engine> twice = Engine::Restore(again);
        REQUIRE(twice.ok());
        CHECK(MustSave(*twice) == again);
      }
    }
  }
}

}  // namespace
}  // namespace snapshot_test
}  // namespace qm
