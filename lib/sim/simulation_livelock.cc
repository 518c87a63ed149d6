// The no-progress detector and the livelock diagnosis (simulation.h; docs/simulate.md §No
// progress). In O(1) amortised per event (a heap push of O(log running) per attempt of a job that
// checkpoints within a window aside) it keeps: the last progress instant (a completion, a
// checkpoint, the end of an attempt that ran a whole window), the earlier of the two interruptions
// of the latest job preempted or evicted again, the running jobs in start order (an intrusive
// list: starts only happen at the current instant, so the oldest is its head), a heap of the first
// checkpoint of running jobs that checkpoint within a window, and the preemptions of the last
// window for the diagnosis.
#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "qm/sim/sim_result.h"
#include "sim/simulation.h"

namespace qm::sim::internal {
namespace {

// Workloads a livelock diagnosis names (most preempted first).
constexpr size_t kLivelockWorkloads = 10;

// Heap order: `a` below `b` when it is later (a min-heap through std's max-heap functions).
bool SavesLater(const FirstSave& a, const FirstSave& b) {
  if (a.at_us != b.at_us) return a.at_us > b.at_us;
  return a.job > b.job;
}

}  // namespace

// Whether the run makes no progress at `t` (≥ now_, with the state of now_): over the window
// (t − W, t],
//   1. no job completed, kept a checkpoint, or ended an attempt that had run W uninterrupted
//      (all recorded in progress_us_);
//   2. no running job has run the whole window (the oldest start is the list's head);
//   3. no running job has taken a checkpoint yet (a job checkpointing every I < W keeps one in
//      every window from its first on; one with I ≥ W has run W before its first);
//   4. some job was preempted or evicted twice: it lost work, was admitted again and lost it
//      again (one preemption followed by quiet running is not a loop, however slow the run).
// Between instants only the clock moves: 1 turns true at progress_us_ + W, and 2 to 4 can only
// turn false, so checking each instant and progress_us_ + W finds the first stalled instant.
bool Simulation::StalledAt(int64_t t) {
  if (t - progress_us_ < window_us_) return false;
  if (repeated_since_us_ <= t - window_us_) return false;
  if (running_head_ != kNone && holdings_[jobs_[running_head_].holding].start_us <= t - window_us_) return false;
  while (!first_saves_.empty()) {
    const FirstSave& top = first_saves_.front();
    const Job& job = jobs_[top.job];
    if (job.phase == Phase::kRunning && job.generation == top.generation) return top.at_us > t;
    PopFirstSave();  // its attempt ended: its checkpoints, if any, are in progress_us_
  }
  return true;
}

void Simulation::PopFirstSave() {
  std::pop_heap(first_saves_.begin(), first_saves_.end(), SavesLater);
  first_saves_.pop_back();
}

// Appends job `j`, which starts now, to the running list (so the list stays in start order).
void Simulation::LinkRunning(uint32_t j) {
  Job& job = jobs_[j];
  job.run_prev = running_tail_;
  job.run_next = kNone;
  if (running_tail_ != kNone) jobs_[running_tail_].run_next = j; else running_head_ = j;
  running_tail_ = j;
}

// Takes job `j` out of the running list (its attempt ended).
void Simulation::UnlinkRunning(uint32_t j) {
  Job& job = jobs_[j];
  if (job.run_prev != kNone) jobs_[job.run_prev].run_next = job.run_next; else running_head_ = job.run_next;
  if (job.run_next != kNone) jobs_[job.run_next].run_prev = job.run_prev; else running_tail_ = job.run_prev;
  job.run_prev = job.run_next = kNone;
}

// Its first checkpoint is progress; one that comes after a whole window of run time, or never
// (the job ends first), cannot matter before the run time itself does. `remaining` is the run time
// the job `j`, started now, has left.
void Simulation::WatchFirstCheckpoint(uint32_t j, int64_t remaining) {
  const Job& job = jobs_[j];
  const int64_t interval = CheckpointIntervalUs(j);
  if (interval > 0 && interval < remaining && interval < window_us_) {
    while (!first_saves_.empty()) {  // drop ended attempts from the top, so the heap stays small
      const FirstSave& top = first_saves_.front();
      if (jobs_[top.job].phase == Phase::kRunning && jobs_[top.job].generation == top.generation) break;
      PopFirstSave();
    }
    first_saves_.push_back(FirstSave{now_ + holdings_[job.holding].startup_us + interval, j, job.generation});
    std::push_heap(first_saves_.begin(), first_saves_.end(), SavesLater);
  }
}

// `namespace/name` of trace job `j`, as the diagnosis names it.
std::string Simulation::WorkloadName(uint32_t j) const {
  return fmt::format("{}/{}", targets_[job_target_[j]].namespace_, trace_.JobName(trace_.jobs[j]));
}

// Stops the run at now_ and names what looped: the preemptions of the last window by queue pair
// and by workload.
void Simulation::DeclareLivelock(bool at_one_instant) {
  while (!recent_.empty() && recent_.front().at_us <= now_ - window_us_) recent_.pop_front();
  Livelock& l = livelock_;
  l.detected = true;
  l.at_one_instant = at_one_instant;
  l.stopped_s = static_cast<double>(now_) / 1e6;
  l.stalled_since_s = static_cast<double>(progress_us_) / 1e6;
  l.window_s = static_cast<double>(window_us_) / 1e6;
  l.preemptions = static_cast<int64_t>(recent_.size());
  absl::flat_hash_map<std::pair<uint32_t, uint32_t>, int64_t> by_pair;  // (by, victim queue)
  absl::flat_hash_map<uint32_t, int64_t> by_job;
  for (size_t i = 0; i < recent_.size(); ++i) {
    ++by_pair[std::make_pair(recent_[i].by, jobs_[recent_[i].job].queue)];
    ++by_job[recent_[i].job];
  }
  for (const auto& [pair, n] : by_pair) {
    l.pairs.push_back({QueueName(pair.first), QueueName(pair.second), n});
  }
  std::sort(l.pairs.begin(), l.pairs.end(), [](const Livelock::QueuePair& a, const Livelock::QueuePair& b) {
    if (a.count != b.count) return a.count > b.count;
    return std::tie(a.preemptor_queue, a.cluster_queue) < std::tie(b.preemptor_queue, b.cluster_queue);
  });
  std::vector<Livelock::Workload> workloads;
  for (const auto& [j, n] : by_job) workloads.push_back({WorkloadName(j), queues_[jobs_[j].queue].name, n});
  std::sort(workloads.begin(), workloads.end(), [](const Livelock::Workload& a, const Livelock::Workload& b) {
    if (a.count != b.count) return a.count > b.count;
    return a.workload < b.workload;  // unique: namespace/name
  });
  if (workloads.size() > kLivelockWorkloads) {
    l.workloads_left_out = static_cast<int64_t>(workloads.size() - kLivelockWorkloads);
    workloads.resize(kLivelockWorkloads);
  }
  l.workloads = std::move(workloads);
}

}  // namespace qm::sim::internal
