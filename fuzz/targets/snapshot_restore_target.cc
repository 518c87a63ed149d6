// Structure-aware fuzz target of Engine::Restore (docs/fuzzing.md, `snapshot_fuzzer`).
//
// Random bytes almost never get past a snapshot's checksum, so they only test the header checks.
// This target starts from a valid snapshot of a small but busy engine (cohort tree, admitted,
// pending, evicting and finished workloads, priority classes, labels) and applies the edits the
// input describes to its payload, then writes the true payload length and checksum into the
// header, so every edit reaches the decoder and the content checks. Edits: overwrite one byte,
// flip one bit, write an interesting 64-bit or 32-bit value (0, 1, −1, −5, INT64_MAX, INT64_MIN,
// 2^62, a count of 2^31...), insert or delete a few bytes, copy a run of bytes elsewhere.
//
// What it checks: Restore never crashes; when it accepts, the engine passes CheckInvariants, its
// Save() restores to the same bytes, and a scheduling cycle and finishing every workload keep
// the invariants (a snapshot that restores is one the engine could have written).
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fuzz/targets/engine_checks.h"
#include "fuzz/targets/fuzz_check.h"
#include "fuzz/targets/targets.h"
#include "qm/adapter/engine.h"

namespace qm::fuzz {
namespace {

constexpr size_t kHeader = 32;

ObjectSpec Queue(std::string name, std::string cohort, int64_t cpu, std::optional<int64_t> borrow,
                 std::optional<int64_t> lend) {
  ClusterQueueSpec cq;
  cq.name = std::move(name);
  cq.cohort = std::move(cohort);
  cq.namespace_selector = LabelSelector{};
  cq.preemption.reclaim_within_cohort = ReclaimWithinCohortPolicy::kAny;
  cq.preemption.within_cluster_queue = WithinClusterQueuePolicy::kLowerPriority;
  cq.resource_groups.push_back(ResourceGroupSpec{
      {"cpu", "memory"},
      {FlavorQuotasSpec{"on-demand", {ResourceQuotaSpec{"cpu", cpu, borrow, lend}, ResourceQuotaSpec{"memory", cpu << 20, {}, {}}}},
       FlavorQuotasSpec{"spot", {ResourceQuotaSpec{"cpu", cpu / 2, {}, {}}, ResourceQuotaSpec{"memory", cpu << 19, {}, {}}}}}});
  return cq;
}

WorkloadSpec Job(std::string ns, std::string name, std::string queue, int64_t cpu, int32_t count, int32_t priority) {
  WorkloadSpec w;
  w.namespace_ = std::move(ns);
  w.name = std::move(name);
  w.uid = w.name + "-uid";
  w.queue_name = std::move(queue);
  w.priority = priority;
  w.labels = {{"team", w.namespace_}};
  PodSetSpec ps;
  ps.count = count;
  ps.requests = {{"cpu", cpu}, {"memory", cpu << 20}};
  w.pod_sets.push_back(std::move(ps));
  return w;
}

// The snapshot every input edits: built once, deterministically.
const std::string& BaseSnapshot() {
  static const std::string bytes = [] {
    Engine e;
    CohortSpec root;
    root.name = "root";
    CohortSpec pool;
    pool.name = "pool";
    pool.parent = "root";
    std::vector<ObjectSpec> objects = {
        NamespaceSpec{"a", {{"env", "prod"}}}, NamespaceSpec{"b", {}}, ResourceFlavorSpec{"on-demand", {}, {}, {}},
        ResourceFlavorSpec{"spot", {}, {}, {}}, root, pool,
        WorkloadPriorityClassSpec{"high", 100, ""},
        Queue("team-a", "pool", 8000, 4000, 2000), Queue("team-b", "pool", 4000, {}, {}), Queue("solo", "", 2000, {}, {})};
    struct Lq { const char* ns; const char* name; const char* cq; };
    for (const Lq& l : {Lq{"a", "q", "team-a"}, Lq{"b", "q", "team-b"}, Lq{"a", "solo", "solo"}}) {
      LocalQueueSpec lq;
      lq.namespace_ = l.ns;
      lq.name = l.name;
      lq.cluster_queue = l.cq;
      objects.push_back(lq);
    }
    QM_FUZZ_CHECK(e.Apply(objects).ok(), "base cluster refused");
    QM_FUZZ_CHECK(e.SetNow(Time::FromUnixSeconds(1'700'000'000)).ok(), "SetNow refused");
    QM_FUZZ_CHECK(e.Submit(Job("a", "one", "q", 3000, 2, 0)).ok(), "submit");
    QM_FUZZ_CHECK(e.Submit(Job("b", "two", "q", 2000, 1, 5)).ok(), "submit");
    QM_FUZZ_CHECK(e.Submit(Job("a", "three", "solo", 1000, 1, 0)).ok(), "submit");
    e.ScheduleCycle();
    QM_FUZZ_CHECK(e.SetNow(Time::FromUnixSeconds(1'700'000'060)).ok(), "SetNow refused");
    WorkloadSpec high = Job("b", "urgent", "q", 4000, 2, 0);
    high.priority.reset();
    high.priority_class = PriorityClassRef{PriorityClassSource::kWorkloadPriorityClass, "high"};
    QM_FUZZ_CHECK(e.Submit(high).ok(), "submit");
    QM_FUZZ_CHECK(e.Submit(Job("a", "big", "q", 50000, 1, 0)).ok(), "submit");
    e.ScheduleCycle();
    QM_FUZZ_CHECK(e.Finish("a", "three").ok(), "finish");
    QM_FUZZ_CHECK(e.Submit(Job("a", "later", "solo", 500, 3, 1)).ok(), "submit");
    return SaveOrDie(e, "building the base snapshot");
  }();
  return bytes;
}

void PutLe(std::string& s, size_t at, uint64_t v, int bytes) {
  for (int b = 0; b < bytes && at + static_cast<size_t>(b) < s.size(); ++b)
    s[at + static_cast<size_t>(b)] = static_cast<char>((v >> (8 * b)) & 0xFF);
}

// The header's payload length and FNV-1a checksum, recomputed after the edits.
void FixHeader(std::string& s) {
  PutLe(s, 16, s.size() - kHeader, 8);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = kHeader; i < s.size(); ++i) {
    h ^= static_cast<unsigned char>(s[i]);
    h *= 0x100000001b3ull;
  }
  PutLe(s, 24, h, 8);
}

class Input {
 public:
  explicit Input(std::span<const uint8_t> d) : d_(d) {}
  bool done() const { return at_ >= d_.size(); }
  uint8_t U8() { return at_ < d_.size() ? d_[at_++] : 0; }
  uint32_t U24() { return U8() | (uint32_t{U8()} << 8) | (uint32_t{U8()} << 16); }

 private:
  std::span<const uint8_t> d_;
  size_t at_ = 0;
};

constexpr uint64_t kInteresting[] = {0,
                                     1,
                                     2,
                                     static_cast<uint64_t>(-1),
                                     static_cast<uint64_t>(-5),
                                     uint64_t{1} << 62,
                                     static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
                                     static_cast<uint64_t>(std::numeric_limits<int64_t>::min()),
                                     0xFFFFFFFFull,
                                     0x7FFFFFFFull,
                                     0x80000000ull,
                                     1000,
                                     0xFF};

void Edit(Input& in, std::string& s) {
  const size_t payload = s.size() - kHeader;
  if (payload == 0) return;
  const uint8_t op = in.U8();
  const size_t at = kHeader + in.U24() % payload;
  switch (op % 8) {
    case 0: s[at] = static_cast<char>(in.U8()); break;
    case 1: s[at] = static_cast<char>(s[at] ^ (1 << (in.U8() % 8))); break;
    case 2: PutLe(s, at, kInteresting[in.U8() % std::size(kInteresting)], 8); break;
    case 3: PutLe(s, at, kInteresting[in.U8() % std::size(kInteresting)], 4); break;
    case 4: s.insert(at, std::string(1 + in.U8() % 8, static_cast<char>(in.U8()))); break;
    case 5: s.erase(at, 1 + in.U8() % 8); break;
    case 6: {  // copy a run from elsewhere (moves names, ids and whole fields around)
      const size_t from = kHeader + in.U24() % payload;
      const size_t len = 1 + in.U8() % 16;
      const std::string run = s.substr(from, len);
      s.replace(at, std::min(run.size(), s.size() - at), run);
      break;
    }
    default: PutLe(s, at, in.U8(), 1); break;  // a small count or enum
  }
}

}  // namespace

void SnapshotRestoreTarget(std::span<const uint8_t> data) {
  std::string s = BaseSnapshot();
  Input in(data);
  for (int edits = 0; edits < 16 && !in.done(); ++edits) Edit(in, s);
  FixHeader(s);
  absl::StatusOr<Engine> restored = Engine::Restore(s);
  if (!restored.ok()) return;  // refusing is correct; crashing or accepting garbage is not
  Engine& e = *restored;
  CheckInvariantsOrDie(e, "Restore of an edited snapshot");
  const std::string again = SaveOrDie(e, "after Restore");
  absl::StatusOr<Engine> twice = Engine::Restore(again);
  QM_FUZZ_CHECK(twice.ok(), "the Save() of a restored engine does not restore: ", twice.status().ToString());
  QM_FUZZ_CHECK(SaveOrDie(*twice, "after the second Restore") == again, "Save/Restore is not byte-identical");
  e.ScheduleCycle();
  CheckInvariantsOrDie(e, "a cycle after Restore");
  e.ConfirmAllEvicted();
  for (WorkloadHandle h : e.Workloads()) (void)e.Finish(h);
  CheckInvariantsOrDie(e, "finishing every workload after Restore");
  e.ScheduleCycle();
  CheckInvariantsOrDie(e, "a cycle after finishing every workload");
}

}  // namespace qm::fuzz
