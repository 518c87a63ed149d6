// Soak: drives many host calls through one engine with a steady population and checks, at
// checkpoints, that resident memory stays flat after warm-up and the engine's invariants hold.
//
//   QM_SOAK_CALLS=100000000 ./build-dev/tests/qm_soak    # the full soak (docs/fuzzing.md)
//   ctest --test-dir build-dev -L soak                  # the CTest (label `soak`, not in CI)
//
// The cluster: 4 ClusterQueues in one cohort (cpu and a GPU resource, two flavors, borrowing
// limits, preemption within the queue and reclaim within the cohort), three priority classes. The
// host keeps about kPopulation workloads alive: it submits new ones while below it, and finishes,
// evicts, confirms, deactivates and reactivates, deletes, and runs cycles, chosen by a fixed PRNG,
// so every run makes the same calls. A call the engine refuses (e.g. evicting a pending workload)
// still counts: hosts make such calls too.
//
// Exit status 0 when every checkpoint holds, 1 with the first failure otherwise.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "fuzz/targets/engine_checks.h"
#include "qm/adapter/engine.h"

namespace {

constexpr int kQueues = 4;
constexpr size_t kPopulation = 2000;
constexpr int kCheckpoints = 20;
// Resident memory may grow by this much after warm-up (the first two checkpoints) before the soak
// fails: allocator caches and hash tables that double once more are not leaks; steady growth is.
constexpr int64_t kRssToleranceBytes = 32 << 20;
constexpr double kRssToleranceFraction = 0.10;

// splitmix64: the same sequence on every platform.
struct Rng {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
};

std::vector<qm::ObjectSpec> Cluster() {
  std::vector<qm::ObjectSpec> objects;
  objects.push_back(qm::ResourceFlavorSpec{"on-demand", {}, {}, {}});
  objects.push_back(qm::ResourceFlavorSpec{"spot", {}, {}, {}});
  objects.push_back(qm::WorkloadPriorityClassSpec{"low", 10, ""});
  objects.push_back(qm::WorkloadPriorityClassSpec{"mid", 50, ""});
  objects.push_back(qm::WorkloadPriorityClassSpec{"high", 100, ""});
  for (int i = 0; i < kQueues; ++i) {
    qm::ClusterQueueSpec cq;
    cq.name = absl::StrCat("team-", i);
    cq.cohort = "pool";
    cq.namespace_selector = qm::LabelSelector{};
    cq.preemption.within_cluster_queue = qm::WithinClusterQueuePolicy::kLowerPriority;
    cq.preemption.reclaim_within_cohort = qm::ReclaimWithinCohortPolicy::kAny;
    qm::ResourceGroupSpec group{{"cpu", "example.com/gpu"}, {}};
    for (const char* flavor : {"on-demand", "spot"}) {
      group.flavors.push_back(qm::FlavorQuotasSpec{
          flavor, {qm::ResourceQuotaSpec{"cpu", 64'000, 32'000, {}},
                   qm::ResourceQuotaSpec{"example.com/gpu", 16, 8, {}}}});
    }
    cq.resource_groups.push_back(group);
    objects.push_back(cq);
    objects.push_back(qm::NamespaceSpec{absl::StrCat("ns-", i), {}});
    objects.push_back(qm::LocalQueueSpec{absl::StrCat("ns-", i), "jobs", cq.name, qm::StopPolicy::kNone, {}});
  }
  return objects;
}

qm::WorkloadSpec Job(Rng& rng, uint64_t serial) {
  qm::WorkloadSpec w;
  w.namespace_ = absl::StrCat("ns-", rng.Below(kQueues));
  w.name = absl::StrCat("job-", serial);
  w.queue_name = "jobs";
  static const char* const kClasses[] = {"low", "mid", "high"};
  w.priority_class = {qm::PriorityClassSource::kWorkloadPriorityClass, kClasses[rng.Below(3)]};
  qm::PodSetSpec ps;
  ps.count = 1 + static_cast<int32_t>(rng.Below(4));
  ps.requests = {{"cpu", 1000 * static_cast<int64_t>(1 + rng.Below(8))},
                 {"example.com/gpu", static_cast<int64_t>(rng.Below(3))}};
  w.pod_sets.push_back(ps);
  return w;
}

// Resident set in bytes from /proc/self/statm (0 when unknown). Read here rather than through
// qm::sim::CurrentRssBytes so the soak links the engine alone, as an embedding host does.
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0;
  int64_t resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

int64_t CallsFromEnv() {
  const char* text = std::getenv("QM_SOAK_CALLS");
  if (text == nullptr || *text == '\0') return 100'000'000;
  return std::strtoll(text, nullptr, 10);
}

}  // namespace

int main() {
  const int64_t total = CallsFromEnv();
  if (total < kCheckpoints) {
    std::fprintf(stderr, "QM_SOAK_CALLS must be at least %d\n", kCheckpoints);
    return 2;
  }
  qm::Engine engine;
  if (absl::Status st = engine.Apply(Cluster()); !st.ok()) {
    std::fprintf(stderr, "cluster refused: %s\n", st.ToString().c_str());
    return 1;
  }

  Rng rng{42};
  std::vector<qm::WorkloadHandle> live;  // submitted, not yet deleted
  uint64_t serial = 0;
  int64_t refused = 0;
  int64_t rss_after_warmup = 0;
  const auto start = std::chrono::steady_clock::now();
  int64_t calls = 0;
  auto count = [&](const absl::Status& status) {
    ++calls;
    if (!status.ok()) ++refused;
  };

  std::printf("checkpoint,calls,seconds,calls_per_second,workloads,rss_mib\n");
  for (int checkpoint = 1; checkpoint <= kCheckpoints; ++checkpoint) {
    const int64_t until = total * checkpoint / kCheckpoints;
    while (calls < until) {
      const uint64_t op = rng.Below(100);
      if (live.size() < kPopulation && op < 30) {
        absl::StatusOr<qm::WorkloadHandle> h = engine.Submit(Job(rng, serial++));
        count(h.status());
        if (h.ok()) live.push_back(*h);
        continue;
      }
      if (live.empty() || op >= 94) {  // cycles: about 1 call in 16
        engine.ScheduleCycle();
        ++calls;
        continue;
      }
      const size_t at = rng.Below(live.size());
      const qm::WorkloadHandle w = live[at];
      if (op < 45) {  // finish, then delete the finished workload: the population turns over
        count(engine.Finish(w));
        const absl::Status deleted = engine.Delete(w);
        count(deleted);
        if (deleted.ok()) {
          live[at] = live.back();
          live.pop_back();
        }
      } else if (op < 55) {
        count(engine.Evict(w, "NodeFailures", "soak"));
      } else if (op < 65) {
        count(engine.ConfirmEvicted(w));
      } else if (op < 70) {
        count(engine.Deactivate(w));
      } else if (op < 78) {
        count(engine.Activate(w));
      } else if (op < 82) {
        engine.ConfirmAllEvicted();
        ++calls;
      } else {
        absl::StatusOr<qm::WorkloadStatus> status = engine.GetWorkload(w);  // a query host call
        count(status.status());
      }
    }

    qm::fuzz::CheckInvariantsOrDie(engine, absl::StrCat("soak checkpoint ", checkpoint));
    const int64_t rss = ResidentBytes();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%d,%" PRId64 ",%.1f,%.0f,%zu,%.1f\n", checkpoint, calls, seconds, calls / seconds,
                live.size(), rss / 1048576.0);
    std::fflush(stdout);
    if (checkpoint == 2) rss_after_warmup = rss;
    if (checkpoint > 2 && rss_after_warmup > 0) {
      const int64_t allowed =
          rss_after_warmup + std::max<int64_t>(kRssToleranceBytes,
                                               static_cast<int64_t>(rss_after_warmup * kRssToleranceFraction));
      if (rss > allowed) {
        std::fprintf(stderr, "resident memory grew from %.1f MiB after warm-up to %.1f MiB (allowed %.1f)\n",
                     rss_after_warmup / 1048576.0, rss / 1048576.0, allowed / 1048576.0);
        return 1;
      }
    }
  }
  std::printf("done: %" PRId64 " host calls, %" PRId64 " refused, %" PRIu64 " workloads submitted\n",
              calls, refused, serial);
  return 0;
}
