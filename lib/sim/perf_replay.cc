// Replaying a Kueue performance configuration in virtual time (perf_replay.h).
#include "qm/sim/perf_replay.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "qm/sim/event_queue.h"

namespace qm::sim {
namespace {

// Virtual time 0 of a replay (any fixed instant works; this keeps timestamps readable).
constexpr Time kEpoch = Time::FromUnixSeconds(1'700'000'000);

double CpuNowMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int64_t StatusFieldKb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') {
      return std::strtoll(line.c_str() + n + 1, nullptr, 10);
    }
  }
  return -1;
}

// A ClusterQueue of the replay.
struct Queue {
  std::string name;  // also its namespace and LocalQueue name
  uint32_t queue_class = 0;
  int64_t nominal = 0;
  int64_t usage = 0;           // millicores held by admitted (and evicting) workloads
  int64_t used = 0;            // Σ usage × ms
  int64_t last_change_ms = 0;  // when `usage` last changed

  void Change(int64_t now_ms, int64_t delta) {
    used += usage * (now_ms - last_change_ms);
    last_change_ms = now_ms;
    usage += delta;
  }
};

// A workload of the replay, in generation order.
struct Work {
  uint32_t queue = 0;
  uint32_t workload_class = 0;
  uint32_t generation = 0;  // bumped on eviction: finish events of older admissions are stale
  int32_t priority = 0;
  int32_t pods = 1;
  int64_t request = 0;  // millicores per pod
  int64_t created_ms = 0;
  int64_t runtime_ms = 0;
  int64_t admitted_ms = -1;  // last admission
  int64_t finished_ms = -1;
  int32_t evictions = 0;
  bool holds_quota = false;
  std::string name;
};

struct FinishEvent {
  uint32_t work = 0;
  uint32_t generation = 0;
};

uint32_t ClassIndex(std::vector<std::string>& names, const std::string& name) {
  for (uint32_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return i;
  names.push_back(name);
  return static_cast<uint32_t>(names.size() - 1);
}

class Replay {
 public:
  Replay(const PerfConfig& config, const PerfReplayOptions& options)
      : config_(config), options_(options) {}

  absl::StatusOr<PerfSummary> Run() {
    const Clock::time_point setup_start = Clock::now();
    if (options_.engine.clock) return absl::InvalidArgumentError("the replay owns the clock: leave EngineConfig.clock unset");
    absl::StatusOr<Engine> engine = Engine::Create(options_.engine);
    if (!engine.ok()) return engine.status();
    engine_ = *std::move(engine);
    if (absl::Status st = Build(); !st.ok()) return st;
    summary_.setup_ms = MsSince(setup_start);

    const Clock::time_point start = Clock::now();
    const double cpu_start = CpuNowMs();
    if (absl::Status st = Loop(); !st.ok()) return st;
    summary_.cpu_ms = CpuNowMs() - cpu_start;
    summary_.real_ms = MsSince(start);
    Summarise();
    return summary_;
  }

 private:  // Runs one Engine call and adds its wall time to the time spent inside the engine.
  template <class F>
  auto InEngine(F&& call) {
    const Clock::time_point t0 = Clock::now();
    auto result = call();
    engine_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
    return result;
  }

  // Creates the objects and the list of arrivals, in the generator's order.
  absl::Status Build() {
    std::vector<ObjectSpec> objects;
    objects.emplace_back(ResourceFlavorSpec{config_.resource_flavor, {}, {}, {}});
    for (const PerfCohortSet& cset : config_.cohorts) {
      for (int64_t c = 0; c < cset.count; ++c) {
        const std::string cohort = fmt::format("{}-{}", cset.class_name, c);
        ++summary_.cohorts;
        for (size_t qs = 0; qs < cset.queues_sets.size(); ++qs) {
          const PerfQueuesSet& qset = cset.queues_sets[qs];
          for (int64_t q = 0; q < qset.count; ++q) {
            Queue queue;
            queue.name = fmt::format("{}-{}-{}-{}", qset.class_name, qs, q, cohort);
            queue.queue_class = ClassIndex(queue_class_names_, qset.class_name);
            queue.nominal = qset.nominal_quota_milli_cpu;
            ClusterQueueSpec cq;
            cq.name = queue.name;
            cq.cohort = cohort;
            cq.namespace_selector = LabelSelector{};
            cq.preemption.reclaim_within_cohort = qset.reclaim_within_cohort;
            cq.preemption.within_cluster_queue = qset.within_cluster_queue;
            cq.resource_groups.push_back(ResourceGroupSpec{
                {"cpu"},
                {FlavorQuotasSpec{config_.resource_flavor,
                                  {ResourceQuotaSpec{"cpu", qset.nominal_quota_milli_cpu, qset.borrowing_limit_milli_cpu,
                                                     qset.lending_limit_milli_cpu}}}}});
            objects.emplace_back(std::move(cq));
            objects.emplace_back(NamespaceSpec{queue.name, {}});
            LocalQueueSpec lq;
            lq.namespace_ = queue.name;
            lq.name = queue.name;
            lq.cluster_queue = queue.name;
            objects.emplace_back(std::move(lq));
            const uint32_t queue_index = static_cast<uint32_t>(queues_.size());
            queues_.push_back(std::move(queue));
            AddWorkloads(qset, queue_index);
          }
        }
      }
    }
    summary_.cluster_queues = static_cast<int64_t>(queues_.size());
    summary_.workloads = static_cast<int64_t>(works_.size());
    // Arrivals fire by (creation time, generation order).
    std::stable_sort(arrivals_.begin(), arrivals_.end(),
                     [&](uint32_t a, uint32_t b) { return works_[a].created_ms < works_[b].created_ms; });
    if (absl::Status st = engine_.SetNow(kEpoch); !st.ok()) return st;
    const Clock::time_point t0 = Clock::now();
    absl::Status applied = engine_.Apply(objects);
    summary_.setup_engine_ms = MsSince(t0);
    return applied;
  }

  void AddWorkloads(const PerfQueuesSet& qset, uint32_t queue_index) {
    for (size_t s = 0; s < qset.workloads_sets.size(); ++s) {
      const PerfWorkloadsSet& wset = qset.workloads_sets[s];
      const int64_t n = static_cast<int64_t>(wset.workloads.size());
      for (int64_t round = 0; round < wset.count; ++round) {
        for (int64_t i = 0; i < n; ++i) {
          const PerfWorkloadTemplate& t = wset.workloads[static_cast<size_t>(i)];
          Work w;
          w.queue = queue_index;
          w.workload_class = ClassIndex(workload_class_names_, t.class_name);
          w.priority = t.priority;
          w.pods = t.pod_count;
          w.request = t.request_milli_cpu;
          w.created_ms = wset.initial_delay_ms + (round * n + i + 1) * wset.creation_interval_ms;
          w.runtime_ms = t.runtime_ms;
          w.name = fmt::format("{}-{}-{}-{}", t.class_name, s, round, i);
          arrivals_.push_back(static_cast<uint32_t>(works_.size()));
          works_.push_back(std::move(w));
        }
      }
    }
  }

  WorkloadSpec SpecFor(uint32_t index) const {
    const Work& w = works_[index];
    WorkloadSpec spec;
    spec.namespace_ = queues_[w.queue].name;
    spec.name = w.name;
    spec.uid = fmt::format("{:010d}", index);  // deterministic UIDs: generation order
    spec.queue_name = queues_[w.queue].name;
    spec.priority = w.priority;
    spec.creation_time = kEpoch + Duration::Milliseconds(w.created_ms);
    PodSetSpec ps;
    ps.count = w.pods;
    ps.requests.emplace_back("cpu", w.request);
    spec.pod_sets.push_back(std::move(ps));
    return spec;
  }

  absl::Status Loop() {
    size_t next = 0;
    finishes_.Reserve(works_.size());
    while (next < arrivals_.size() || !finishes_.empty()) {
      int64_t now = INT64_MAX;
      if (next < arrivals_.size()) now = works_[arrivals_[next]].created_ms;
      if (!finishes_.empty()) now = std::min(now, (finishes_.Top().time - kEpoch).us / 1000);
      ++summary_.instants;
      if (absl::Status st = InEngine([&] { return engine_.SetNow(kEpoch + Duration::Milliseconds(now)); }); !st.ok())
        return st;
      // 1. Finishes.
      while (!finishes_.empty() && finishes_.Top().time == kEpoch + Duration::Milliseconds(now)) {
        const FinishEvent ev = finishes_.Pop().payload;
        Work& w = works_[ev.work];
        if (ev.generation != w.generation || !w.holds_quota) continue;
        if (absl::Status st = InEngine([&] { return engine_.Finish(queues_[w.queue].name, w.name); }); !st.ok())
          return st;
        w.holds_quota = false;
        w.finished_ms = now;
        queues_[w.queue].Change(now, -Held(w));
        last_finish_ms_ = std::max(last_finish_ms_, now);
      }
      // 2. Creations.
      while (next < arrivals_.size() && works_[arrivals_[next]].created_ms == now) {
        const uint32_t index = arrivals_[next++];
        const WorkloadSpec spec = SpecFor(index);
        absl::StatusOr<WorkloadHandle> id = InEngine([&] { return engine_.Submit(spec); });
        if (!id.ok()) return id.status();
        if (id->index >= id_to_work_.size()) id_to_work_.resize(id->index + 1, UINT32_MAX);
        id_to_work_[id->index] = index;
      }
      // 3. Cycles until one considers nothing.
      if (absl::Status st = Cycles(now); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  static int64_t Held(const Work& w) { return w.request * w.pods; }


  absl::Status Cycles(int64_t now) {
    for (int64_t n = 0;; ++n) {
      if (n >= options_.max_cycles_per_instant)
        return absl::InternalError(fmt::format("no stable state after {} cycles at {} ms", n, now));
      const Clock::time_point t0 = Clock::now();
      const CycleResult& r = engine_.ScheduleCycle();
      const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
      schedule_ns_ += ns;
      engine_ns_ += ns;
      if (r.admitted == 0 && r.preempted == 0 && r.pending == 0 && r.decisions.empty()) {
        ++summary_.idle_cycles;
        return absl::OkStatus();
      }
      ++summary_.cycles;
      cycle_ns_.push_back(ns);
      victims_.clear();
      for (const Decision& d : r.decisions) {
        if (d.kind == Decision::Kind::kPending) continue;
        if (d.workload.index >= id_to_work_.size() || id_to_work_[d.workload.index] == UINT32_MAX)
          return absl::InternalError("decision for a workload the replay did not submit");
        const uint32_t index = id_to_work_[d.workload.index];
        Work& w = works_[index];
        if (d.kind == Decision::Kind::kAdmitted) {
          ++summary_.admissions;
          w.admitted_ms = now;
          w.holds_quota = true;
          queues_[w.queue].Change(now, Held(w));
          finishes_.Push(kEpoch + Duration::Milliseconds(now + w.runtime_ms), FinishEvent{index, w.generation});
        } else {
          ++summary_.preemptions;
          ++w.evictions;
          ++w.generation;
          victims_.push_back(index);
        }
      }
      // The runner stops preempted workloads at once; they go back to their queues.
      for (uint32_t index : victims_) {
        Work& w = works_[index];
        if (!w.holds_quota) continue;
        if (absl::Status st = InEngine([&] { return engine_.ConfirmEvicted(queues_[w.queue].name, w.name); });
            !st.ok())
          return st;
        w.holds_quota = false;
        queues_[w.queue].Change(now, -Held(w));
      }
    }
  }

  void Summarise() {
    const int64_t wall = last_finish_ms_;
    summary_.virtual_wall_ms = wall;
    for (Queue& q : queues_) q.Change(wall, 0);

    // Queue classes, sorted by name.
    std::vector<PerfQueueClassSummary> qc(queue_class_names_.size());
    int64_t used = 0, nominal = 0;
    for (size_t i = 0; i < qc.size(); ++i) qc[i].name = queue_class_names_[i];
    for (const Queue& q : queues_) {
      PerfQueueClassSummary& c = qc[q.queue_class];
      ++c.queues;
      c.nominal_milli_cpu += q.nominal;
      c.used_milli_cpu_ms += q.used;
      used += q.used;
      nominal += q.nominal;
    }
    auto percent = [wall](int64_t u, int64_t nom) {
      return nom > 0 && wall > 0 ? static_cast<double>(u) * 100.0 / (static_cast<double>(nom) * static_cast<double>(wall))
                                 : 0.0;
    };
    for (PerfQueueClassSummary& c : qc) c.avg_usage_percent = percent(c.used_milli_cpu_ms, c.nominal_milli_cpu);
    summary_.avg_cq_usage_percent = percent(used, nominal);
    std::sort(qc.begin(), qc.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    summary_.queue_classes = std::move(qc);

    // Workload classes, sorted by name.
    std::vector<PerfWorkloadClassSummary> wc(workload_class_names_.size());
    for (size_t i = 0; i < wc.size(); ++i) wc[i].name = workload_class_names_[i];
    for (const Work& w : works_) {
      PerfWorkloadClassSummary& c = wc[w.workload_class];
      ++c.count;
      c.evictions += w.evictions;
      if (w.admitted_ms >= 0) {
        ++c.admitted;
        c.total_time_to_admission_ms += w.admitted_ms - w.created_ms;
      }
      if (w.finished_ms >= 0) c.total_time_to_finish_ms += w.finished_ms - w.created_ms;
    }
    for (PerfWorkloadClassSummary& c : wc) {
      if (c.count == 0) continue;
      c.avg_time_to_admission_ms = static_cast<double>(c.total_time_to_admission_ms) / static_cast<double>(c.count);
      c.avg_time_to_finish_ms = static_cast<double>(c.total_time_to_finish_ms) / static_cast<double>(c.count);
    }
    std::sort(wc.begin(), wc.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    summary_.workload_classes = std::move(wc);

    // Host measurements.
    summary_.schedule_ms = static_cast<double>(schedule_ns_) / 1e6;
    summary_.engine_ms = static_cast<double>(engine_ns_) / 1e6;
    summary_.outside_engine_ms = std::max(0.0, summary_.real_ms - summary_.engine_ms);
    if (summary_.cpu_ms > 0)
      summary_.admissions_per_cpu_second = static_cast<double>(summary_.admissions) * 1e3 / summary_.cpu_ms;
    if (schedule_ns_ > 0)
      summary_.admissions_per_schedule_second =
          static_cast<double>(summary_.admissions) * 1e9 / static_cast<double>(schedule_ns_);
    if (!cycle_ns_.empty()) {
      auto pct = [&](double p) {
        const size_t k = std::min(cycle_ns_.size() - 1, static_cast<size_t>(p * static_cast<double>(cycle_ns_.size())));
        std::nth_element(cycle_ns_.begin(), cycle_ns_.begin() + static_cast<std::ptrdiff_t>(k), cycle_ns_.end());
        return static_cast<double>(cycle_ns_[k]) / 1e3;
      };
      summary_.cycle_p50_us = pct(0.50);
      summary_.cycle_p99_us = pct(0.99);
      summary_.cycle_max_us = static_cast<double>(*std::max_element(cycle_ns_.begin(), cycle_ns_.end())) / 1e3;
    }
    summary_.peak_rss_bytes = PeakRssBytes();
  }

  const PerfConfig& config_;
  const PerfReplayOptions& options_;
  Engine engine_;
  PerfSummary summary_;
  std::vector<std::string> queue_class_names_;
  std::vector<std::string> workload_class_names_;
  std::vector<Queue> queues_;
  std::vector<Work> works_;
  std::vector<uint32_t> arrivals_;    // indices into works_, by creation time
  std::vector<uint32_t> id_to_work_;  // WorkloadHandle.index → index into works_
  std::vector<uint32_t> victims_;
  EventQueue<FinishEvent> finishes_;
  std::vector<int64_t> cycle_ns_;
  int64_t schedule_ns_ = 0;
  int64_t engine_ns_ = 0;  // every Engine call of the loop, ScheduleCycle included
  int64_t last_finish_ms_ = 0;
};

}  // namespace

absl::StatusOr<PerfSummary> ReplayPerf(const PerfConfig& config, const PerfReplayOptions& options) {
  Replay replay(config, options);
  return replay.Run();
}

int64_t PeakRssBytes() {
  const int64_t kb = StatusFieldKb("VmHWM");
  if (kb >= 0) return kb * 1024;
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) return static_cast<int64_t>(ru.ru_maxrss) * 1024;
  return 0;
}

int64_t CurrentRssBytes() {
  const int64_t kb = StatusFieldKb("VmRSS");
  return kb >= 0 ? kb * 1024 : 0;
}

}  // namespace qm::sim
