// `Engine::Forecast` (qm/adapter/forecast.h): a restored copy of the engine driven forward in virtual
// time by a minimal host (finish on the estimate, stop evicted pods at once, pods ready at once),
// once with point estimates and then in seeded random runs for the bounds.
//
// Everything a run needs from the live engine is read first (positions, states, estimates); a run
// touches only its copy. Every order is explicit (finish time then insertion, the engine's own
// event order), so a forecast is as deterministic as the engine.
#include "qm/adapter/forecast.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "engine_state.h"
#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "qm/core/split_mix64.h"
#include "qm/core/status.h"
#include "qm/model/namespace_name.h"
#include "qm/solver/pods_ready.h"

namespace qm {

void internal::SilenceStatusTexts(Engine& engine) { engine.state_->s.quiet_status = true; }

namespace {

// A runtime distribution with its samples sorted, so a median and a draw above a floor are cheap.
struct Distribution {
  std::vector<Duration> sorted;

  // A whole runtime longer than `elapsed` (the time already run): the median of the samples above
  // it, or one of them at random. When none is longer, the estimate is spent: it ends now.
  Duration Draw(Duration elapsed, SplitMix64* random) const {
    const auto first = std::upper_bound(sorted.begin(), sorted.end(), elapsed);
    const size_t n = static_cast<size_t>(sorted.end() - first);
    if (n == 0) return elapsed;
    return random == nullptr ? first[(n - 1) / 2] : first[random->Below(n)];
  }
  bool uncertain() const { return sorted.size() > 1; }
};

// A run's slot of each workload it follows, by handle: a flat array over handle indices (they are
// dense), since every event of every cycle is looked up here.
class SlotIndex {
 public:
  void Set(WorkloadHandle h, uint32_t slot) {
    if (h.index >= by_index_.size()) by_index_.resize(h.index + 1, Entry{});
    by_index_[h.index] = Entry{h.generation, slot + 1};
  }
  int64_t Find(WorkloadHandle h) const {
    if (!h.valid() || h.index >= by_index_.size()) return -1;
    const Entry& e = by_index_[h.index];
    return e.slot_plus_one != 0 && e.generation == h.generation ? static_cast<int64_t>(e.slot_plus_one) - 1 : -1;
  }

 private:
  struct Entry {
    uint32_t generation = 0;
    uint32_t slot_plus_one = 0;  // 0: none
  };
  std::vector<Entry> by_index_;
};

// One workload of the live engine that holds quota or waits, as a run needs it.
struct LiveWorkload {
  WorkloadHandle handle;
  bool holding = false;       // admitted now: runs on, its estimate is what remains (own) or whole
  bool own_estimate = false;  // the estimate is the workload's own
  int distribution = -1;
  Duration elapsed;           // holding: time since its quota was reserved
  int64_t queue_position = 0;  // 1-based in its ClusterQueue; 0 when in no queue
  uint32_t root = 0;          // its cohort tree (a node index + 1; 0 = in no queue)
  ClusterQueueId cluster_queue;  // the queue it holds quota in or waits in; invalid when none
  int target = -1;            // index in the report, when asked for
};

struct Arrival {
  int stream = 0;
  uint32_t number = 0;
};

// A finish scheduled in a run; `attempt` must still match, or the workload was evicted meanwhile.
struct PlannedEnd {
  Time at;
  uint64_t seq;
  uint32_t slot;  // index in the run's records
  uint32_t attempt;
  bool operator>(const PlannedEnd& o) const { return at != o.at ? at > o.at : seq > o.seq; }
};

// What one run found for each workload that was pending at the start.
struct RunOutcome {
  std::vector<std::optional<Time>> admitted;  // by LiveWorkload index
  std::vector<uint64_t> order;                // admission order (1-based), by LiveWorkload index
  std::vector<std::vector<ForecastBlocker>> waits_for;  // by target, point run only
  int64_t cycles = 0;
  bool truncated = false;
};

class Forecaster {
 public:
  Forecaster(const ForecastOptions& options, const Engine& live_engine, const ClusterState& live_state, Time now,
             bool pods_ready, std::vector<LiveWorkload> live, std::vector<Distribution> distributions,
             std::vector<int> arrival_distribution, std::vector<int> queue_distribution, int default_distribution,
             std::vector<uint32_t> root_of_queue, size_t targets)
      : options_(options),
        live_engine_(live_engine),
        live_state_(live_state),
        now_(now),
        pods_ready_(pods_ready),
        live_(std::move(live)),
        distributions_(std::move(distributions)),
        arrival_distribution_(std::move(arrival_distribution)),
        queue_distribution_(std::move(queue_distribution)),
        default_distribution_(default_distribution),
        root_of_queue_(std::move(root_of_queue)),
        targets_(targets) {
    for (size_t i = 0; i < live_.size(); ++i) by_handle_.Set(live_[i].handle, static_cast<uint32_t>(i));
  }

  absl::StatusOr<RunOutcome> Run(SplitMix64* random) const;

 private:
  // Per-run record of a workload (live ones first, then arrivals as they come).
  struct Record {
    WorkloadHandle handle;
    int live = -1;  // LiveWorkload index, or -1 for an arrival
    int distribution = -1;
    Duration runtime{-1};  // whole runtime once drawn (a restart runs it again: work is lost)
    uint32_t attempt = 0;
    uint32_t root = 0;
    bool running = false;
    // Copied from its LiveWorkload (one cache line per admission instead of three):
    bool counts = false;  // waiting at the start and not yet admitted: its first admission is the forecast
    int target = -1;      // index in the report, when asked for
  };

  const ForecastOptions& options_;
  const Engine& live_engine_;       // copied by every run, never changed
  const ClusterState& live_state_;  // the live engine's, read only for ClusterQueue names
  Time now_;
  bool pods_ready_;
  std::vector<LiveWorkload> live_;
  std::vector<Distribution> distributions_;
  std::vector<int> arrival_distribution_;
  std::vector<int> queue_distribution_;  // by ClusterQueueId: its estimate, or -1
  int default_distribution_;
  std::vector<uint32_t> root_of_queue_;  // by ClusterQueueId: its cohort tree, or 0
  size_t targets_;
  SlotIndex by_handle_;
};

absl::StatusOr<RunOutcome> Forecaster::Run(SplitMix64* random) const {
  const bool point = random == nullptr;
  QM_ASSIGN_OR_RETURN(Engine engine, internal::CopyEngine(live_engine_));
  internal::SilenceStatusTexts(engine);  // a run reads events and admissions, never a status text
  QM_RETURN_IF_ERROR(engine.SetNow(now_));

  RunOutcome out;
  out.admitted.assign(live_.size(), std::nullopt);
  out.order.assign(live_.size(), 0);
  if (point) out.waits_for.assign(targets_, {});

  std::vector<Record> records(live_.size());
  SlotIndex slot_of = by_handle_;
  std::priority_queue<PlannedEnd, std::vector<PlannedEnd>, std::greater<>> ends;
  uint64_t seq = 0;
  for (size_t i = 0; i < live_.size(); ++i) {
    const LiveWorkload& lw = live_[i];
    Record& r = records[i];
    r.handle = lw.handle;
    r.live = static_cast<int>(i);
    r.distribution = lw.distribution;
    r.root = lw.root;
    r.counts = !lw.holding;
    r.target = lw.target;
    if (!lw.holding) continue;
    const Distribution& d = distributions_[lw.distribution];
    // An own estimate is the time remaining; a queue's or the default is a whole runtime.
    const Duration remaining = lw.own_estimate ? d.Draw(Duration{}, random) : d.Draw(lw.elapsed, random) - lw.elapsed;
    r.runtime = lw.elapsed + remaining;
    r.running = true;
    ends.push(PlannedEnd{now_ + remaining, seq++, static_cast<uint32_t>(i), r.attempt});
  }
  engine.ConfirmAllEvicted();  // evicting workloads are taken as stopped now

  // Arrival streams: the point run spaces them evenly, random runs draw exponential gaps.
  const Time horizon_end = now_ + options_.horizon;
  std::vector<Time> next_arrival(options_.arrivals.size());
  std::vector<uint32_t> arrival_count(options_.arrivals.size(), 0);
  auto gap = [&](size_t stream) {
    const double mean_us = 3600e6 / options_.arrivals[stream].per_hour;
    const double us = point ? mean_us : -std::log(random->Open01()) * mean_us;
    return Duration{static_cast<int64_t>(std::min(us, 9.0e18))};
  };
  for (size_t a = 0; a < next_arrival.size(); ++a) next_arrival[a] = now_ + gap(a);

  size_t targets_left = targets_;
  uint64_t admissions = 0;
  Time t = now_;
  struct Finished {
    uint32_t slot;
    Time at;
  };
  std::vector<Finished> finished_now;
  std::vector<std::vector<ForecastBlocker>> victims(point ? targets_ : 0);
  std::vector<WorkloadHandle> started;
  bool evicting = false;  // an eviction since the last confirmation: ConfirmAllEvicted has work
  constexpr int64_t kCyclesPerInstant = 10000;

  auto slot_for = [&](WorkloadHandle h) -> int64_t {
    return slot_of.Find(h);
  };
  auto absorb = [&](std::span<const Event> events) {
    started.clear();
    for (const Event& e : events) {
      const int64_t slot = slot_for(e.workload);
      if (slot < 0) continue;
      Record& r = records[static_cast<size_t>(slot)];
      if (e.kind == EventKind::kAdmitted) {
        if (r.runtime.us < 0) r.runtime = distributions_[r.distribution].Draw(Duration{}, random);
        ++r.attempt;
        r.running = true;
        ends.push(PlannedEnd{t + r.runtime, seq++, static_cast<uint32_t>(slot), r.attempt});
        started.push_back(e.workload);
        if (!r.counts) continue;
        r.counts = false;
        out.admitted[r.live] = t;
        out.order[r.live] = ++admissions;
        const int target = r.target;
        if (target < 0) continue;
        --targets_left;
        if (!point) continue;
        std::vector<ForecastBlocker>& why = out.waits_for[target];
        for (const Finished& f : finished_now) {
          const Record& fr = records[f.slot];
          if (fr.root != r.root || r.root == 0) continue;
          why.push_back(ForecastBlocker{fr.live >= 0 ? fr.handle : WorkloadHandle{}, engine.WorkloadName(fr.handle),
                                        ForecastBlocker::Kind::kFinishes, f.at});
        }
        for (const ForecastBlocker& v : victims[target])
          if (v.at == t) why.push_back(v);
      } else if (e.kind == EventKind::kPreempted || e.kind == EventKind::kEvicted) {
        ++r.attempt;  // its planned end no longer holds
        r.running = false;
        evicting = true;
        if (!point || e.kind != EventKind::kPreempted) continue;
        const int64_t by = slot_for(e.preemptor);
        if (by < 0 || records[by].target < 0) continue;
        victims[records[by].target].push_back(ForecastBlocker{
            r.live >= 0 ? r.handle : WorkloadHandle{}, engine.WorkloadName(r.handle), ForecastBlocker::Kind::kPreempted, t});
      }
    }
  };

  while (true) {
    // Cycles at this instant until settled and every eviction has stopped.
    int64_t at_instant = 0;
    while (true) {
      const int64_t budget = std::min(kCyclesPerInstant - at_instant, options_.max_cycles - out.cycles);
      if (budget <= 0) break;
      const StableRun run = engine.RunUntilSettled(static_cast<int>(std::min<int64_t>(budget, 1 << 30)));
      out.cycles += run.cycles;
      at_instant += run.cycles;
      absorb(engine.LastEvents());
      if (pods_ready_)
        for (WorkloadHandle h : started) QM_RETURN_IF_ERROR(engine.SetPodsReady(h, true));
      const int confirmed = evicting ? engine.ConfirmAllEvicted() : 0;
      evicting = false;
      if (confirmed == 0 && run.settled) break;
    }
    if (at_instant >= kCyclesPerInstant || out.cycles >= options_.max_cycles) {
      out.truncated = true;  // a preemption loop that never settles, or the budget is spent
      break;
    }
    if (targets_left == 0) break;

    // The next instant where something changes.
    while (!ends.empty() && ends.top().attempt != records[ends.top().slot].attempt) ends.pop();
    std::optional<Time> next;
    if (!ends.empty()) next = ends.top().at;
    for (const Time a : next_arrival)
      if (!next || a < *next) next = a;
    if (const std::optional<Time> timer = engine.NextTimedChange(); timer && *timer > t && (!next || *timer < *next))
      next = timer;
    if (!next || *next > horizon_end) break;
    t = *next;
    QM_RETURN_IF_ERROR(engine.SetNow(t));

    finished_now.clear();
    while (!ends.empty() && ends.top().at == t) {
      const PlannedEnd end = ends.top();
      ends.pop();
      Record& r = records[end.slot];
      if (end.attempt != r.attempt || !r.running) continue;
      QM_RETURN_IF_ERROR(engine.Finish(r.handle));
      r.running = false;
      finished_now.push_back(Finished{end.slot, t});
    }
    for (size_t a = 0; a < next_arrival.size(); ++a) {
      while (next_arrival[a] == t) {
        const ForecastArrivals& stream = options_.arrivals[a];
        WorkloadSpec spec = stream.workload;
        spec.name = fmt::format("{}-forecast-{}", stream.workload.name, ++arrival_count[a]);
        spec.creation_time = t;
        absl::StatusOr<WorkloadHandle> h = engine.Submit(spec);
        if (!h.ok())
          return absl::InvalidArgumentError(
              fmt::format("ForecastOptions.arrivals[{}]: cannot submit '{}': {}", a, spec.name, std::string(h.status().message())));
        Record r;
        r.handle = *h;
        const absl::StatusOr<WorkloadStatus> st = engine.GetWorkload(*h);
        // The copy's ClusterQueues are the live engine's (no call in a run applies objects).
        ClusterQueueId cq = st.ok() ? live_state_.cq_names.Find(st->cluster_queue) : ClusterQueueId();
        if (cq.valid() && cq.value >= root_of_queue_.size()) cq = ClusterQueueId();
        r.distribution = arrival_distribution_[a];
        if (r.distribution < 0 && st.ok()) {
          const int q = cq.valid() ? queue_distribution_[cq.value] : -1;
          r.distribution = q >= 0 ? q : default_distribution_;
        }
        if (r.distribution < 0)
          return absl::InvalidArgumentError(fmt::format(
              "ForecastOptions.arrivals[{}]: no runtime estimate (give its own, its ClusterQueue's or default_runtime)", a));
        if (cq.valid()) r.root = root_of_queue_[cq.value];
        slot_of.Set(*h, static_cast<uint32_t>(records.size()));
        records.push_back(r);
        next_arrival[a] = t + gap(a);
      }
    }
  }
  return out;
}

}  // namespace

namespace {

absl::StatusOr<int> AddDistribution(const RuntimeEstimate& e, const std::string& field, std::vector<Distribution>* out) {
  if (e.empty()) return -1;
  for (size_t i = 0; i < e.samples.size(); ++i)
    if (e.samples[i].us <= 0)
      return absl::InvalidArgumentError(fmt::format("{}.samples[{}]: must be more than 0", field, i));
  Distribution d{e.samples};
  std::sort(d.sorted.begin(), d.sorted.end());
  out->push_back(std::move(d));
  return static_cast<int>(out->size() - 1);
}

// Nearest-rank quantile of admission times; a run that did not admit counts as later than any.
std::optional<Time> Quantile(std::vector<std::optional<Time>>& values, double q) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end(), [](const std::optional<Time>& a, const std::optional<Time>& b) {
    if (!a || !b) return a.has_value() && !b.has_value();
    return *a < *b;
  });
  const size_t n = values.size();
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(n)));
  rank = std::clamp<size_t>(rank, 1, n);
  return values[rank - 1];
}

}  // namespace

absl::StatusOr<ForecastReport> Engine::Forecast(const ForecastOptions& options) const {
  QM_RETURN_IF_ERROR(Queryable("Forecast"));
  if (options.runs < 0) return absl::InvalidArgumentError("ForecastOptions.runs: must be >= 0");
  if (options.horizon.us <= 0) return absl::InvalidArgumentError("ForecastOptions.horizon: must be more than 0");
  if (options.max_cycles <= 0) return absl::InvalidArgumentError("ForecastOptions.max_cycles: must be more than 0");
  const ClusterState& s = state_->s;

  // Estimates.
  std::vector<Distribution> distributions;
  QM_ASSIGN_OR_RETURN(const int default_distribution,
                      AddDistribution(options.default_runtime, "ForecastOptions.default_runtime", &distributions));
  std::vector<int> queue_distribution(s.cqs.size(), -1);  // by ClusterQueueId
  for (size_t i = 0; i < options.queue_runtimes.size(); ++i) {
    const QueueRuntime& q = options.queue_runtimes[i];
    const std::string field = fmt::format("ForecastOptions.queue_runtimes[{}]", i);
    const ClusterQueueId id = s.cq_names.Find(q.cluster_queue);
    if (!id.valid() || !s.cq(id).exists)
      return absl::InvalidArgumentError(fmt::format("{}.cluster_queue: no ClusterQueue named '{}'", field, q.cluster_queue));
    if (q.runtime.empty()) return absl::InvalidArgumentError(fmt::format("{}.runtime: has no samples", field));
    QM_ASSIGN_OR_RETURN(queue_distribution[id.value], AddDistribution(q.runtime, field + ".runtime", &distributions));
  }
  absl::flat_hash_map<uint64_t, int> own_distribution;
  for (size_t i = 0; i < options.workload_runtimes.size(); ++i) {
    const WorkloadRuntime& w = options.workload_runtimes[i];
    const std::string field = fmt::format("ForecastOptions.workload_runtimes[{}]", i);
    if (!s.Resolve(w.workload).valid())
      return absl::InvalidArgumentError(
          fmt::format("{}.workload: no such workload (id {}/{})", field, w.workload.index, w.workload.generation));
    if (w.runtime.empty()) return absl::InvalidArgumentError(fmt::format("{}.runtime: has no samples", field));
    QM_ASSIGN_OR_RETURN(own_distribution[w.workload.Pack()], AddDistribution(w.runtime, field + ".runtime", &distributions));
  }
  std::vector<int> arrival_distribution;
  for (size_t i = 0; i < options.arrivals.size(); ++i) {
    const ForecastArrivals& a = options.arrivals[i];
    const std::string field = fmt::format("ForecastOptions.arrivals[{}]", i);
    if (!(a.per_hour > 0) || !std::isfinite(a.per_hour))
      return absl::InvalidArgumentError(fmt::format("{}.per_hour: must be a number more than 0", field));
    if (a.workload.name.empty()) return absl::InvalidArgumentError(fmt::format("{}.workload.name: must not be empty", field));
    if (a.workload.admission)
      return absl::InvalidArgumentError(fmt::format("{}.workload.admission: an arrival cannot hold quota", field));
    if (!GetLocalQueue(a.workload.namespace_, a.workload.queue_name).ok())
      return absl::InvalidArgumentError(fmt::format("{}.workload.queue_name: no LocalQueue '{}' in namespace '{}'", field,
                                                    a.workload.queue_name, NamespaceOrDefault(a.workload.namespace_)));
    QM_ASSIGN_OR_RETURN(const int d, AddDistribution(a.runtime, field + ".runtime", &distributions));
    arrival_distribution.push_back(d);
  }

  // Cohort trees, and the ClusterQueues' orders (sticky preemptor first, then the sort order over
  // active and parked workloads, as Kueue's visibility API ranks them).
  std::vector<uint32_t> root_of_queue(s.cqs.size(), 0);  // by ClusterQueueId
  std::vector<int64_t> queue_position(s.workloads.size(), 0);  // by WorkloadId
  std::vector<PendingKey> keys;
  for (size_t c = 0; c < s.cqs.size(); ++c) {
    const ClusterQueueState& cq = s.cqs[c];
    if (!cq.exists) continue;
    if (cq.node != kNoNode) root_of_queue[c] = static_cast<uint32_t>(s.tree.Root(cq.node)) + 1;
    keys.clear();
    for (const PendingKey& k : cq.heap) keys.push_back(k);
    for (const PendingKey& k : cq.inadmissible) keys.push_back(k);
    std::sort(keys.begin(), keys.end(), PendingOrder{});
    const WorkloadId sticky = cq.sticky_preemptor;
    int64_t position = 0;
    if (sticky.valid() && s.wl(sticky).queued_in == ClusterQueueId(c) && PlaceOf(s, sticky) == QueuePlace::kActive)
      queue_position[sticky.value] = ++position;
    for (const PendingKey& k : keys)
      if (k.id != sticky || position == 0) {
        ++position;
        if (queue_position[k.id.value] == 0) queue_position[k.id.value] = position;
      }
  }

  // The live workloads a run drives: those holding quota and those waiting.
  const Time now = Now();
  std::vector<LiveWorkload> live;
  std::vector<int32_t> live_index(s.workloads.size(), -1);  // by WorkloadId
  for (const WorkloadHandle h : Workloads()) {
    const WorkloadId id = s.Resolve(h);
    const WorkloadRecord& w = s.wl(id);
    if (w.state != WorkloadState::kAdmitted && w.state != WorkloadState::kPending && w.state != WorkloadState::kEvicting)
      continue;
    LiveWorkload lw;
    lw.handle = h;
    lw.holding = w.state == WorkloadState::kAdmitted;
    if (w.admission) {
      lw.cluster_queue = w.admission->cluster_queue;
      if (lw.holding) lw.elapsed = Duration{std::max<int64_t>(0, (now - w.admission->reserved_at).us)};
    } else if (w.place != QueuePlace::kNone && w.queued_in.valid()) {
      lw.cluster_queue = w.queued_in;
    }
    if (!lw.holding) lw.queue_position = queue_position[id.value];
    const bool in_queue = lw.cluster_queue.valid();
    if (in_queue && (lw.holding || lw.queue_position > 0)) lw.root = root_of_queue[lw.cluster_queue.value];
    if (const auto own = own_distribution.find(h.Pack()); own != own_distribution.end()) {
      lw.distribution = own->second;
      lw.own_estimate = true;
    } else if (in_queue && queue_distribution[lw.cluster_queue.value] >= 0) {
      lw.distribution = queue_distribution[lw.cluster_queue.value];
    } else {
      lw.distribution = default_distribution;
    }
    if (lw.distribution < 0)
      return absl::InvalidArgumentError(
          fmt::format("ForecastOptions: workload '{}' (ClusterQueue '{}') has no runtime estimate: give its own, its "
                      "ClusterQueue's or default_runtime",
                      s.WorkloadName(id), in_queue ? s.cq(lw.cluster_queue).name : std::string()));
    live_index[id.value] = static_cast<int32_t>(live.size());
    live.push_back(std::move(lw));
  }

  // The report's rows: the asked-for workloads in order, else every waiting one.
  ForecastReport report;
  report.now = now;
  report.horizon_end = now + options.horizon;
  std::vector<int> row_live;  // LiveWorkload index per row, -1 for one that does not wait
  if (options.workloads.empty()) {
    for (size_t i = 0; i < live.size(); ++i)
      if (!live[i].holding) row_live.push_back(static_cast<int>(i));
  } else {
    for (size_t i = 0; i < options.workloads.size(); ++i) {
      const WorkloadHandle h = options.workloads[i];
      if (!s.Resolve(h).valid())
        return absl::NotFoundError(
            fmt::format("ForecastOptions.workloads[{}]: no such workload (id {}/{})", i, h.index, h.generation));
      for (size_t j = 0; j < i; ++j)
        if (options.workloads[j] == h)
          return absl::InvalidArgumentError(fmt::format("ForecastOptions.workloads[{}]: listed twice", i));
      const int32_t l = live_index[s.Resolve(h).value];
      row_live.push_back(l >= 0 && !live[l].holding ? l : -1);
    }
  }
  size_t targets = 0;
  for (const int l : row_live)
    if (l >= 0) live[l].target = static_cast<int>(targets++);

  bool uncertain = !options.arrivals.empty();
  for (const LiveWorkload& lw : live) uncertain = uncertain || distributions[lw.distribution].uncertain();
  for (const int d : arrival_distribution) uncertain = uncertain || (d >= 0 && distributions[d].uncertain());

  const Forecaster forecaster(options, *this, s, now,
                              WaitForPodsReadyOn(s),
                              live, std::move(distributions), std::move(arrival_distribution),
                              std::move(queue_distribution), default_distribution, std::move(root_of_queue), targets);
  QM_ASSIGN_OR_RETURN(const RunOutcome point, forecaster.Run(nullptr));
  report.cycles = point.cycles;
  report.truncated = point.truncated;
  std::vector<std::vector<std::optional<Time>>> samples(targets);
  if (uncertain && options.runs > 0) {
    SplitMix64 seeds(options.seed);
    for (int k = 0; k < options.runs; ++k) {
      SplitMix64 random(seeds.Next());
      QM_ASSIGN_OR_RETURN(const RunOutcome run, forecaster.Run(&random));
      report.cycles += run.cycles;
      report.truncated = report.truncated || run.truncated;
      for (size_t i = 0; i < live.size(); ++i)
        if (live[i].target >= 0) samples[live[i].target].push_back(run.admitted[i]);
    }
    report.runs += options.runs;
  }

  // Cohort positions: admission order in the point run among the tree's waiting workloads, then the
  // ones it did not admit by queue position and ClusterQueue name.
  absl::flat_hash_map<uint32_t, std::vector<uint64_t>> admitted_orders;
  absl::flat_hash_map<uint32_t, std::vector<uint32_t>> not_admitted;
  for (size_t i = 0; i < live.size(); ++i) {
    if (live[i].holding || live[i].root == 0) continue;
    if (point.admitted[i]) admitted_orders[live[i].root].push_back(point.order[i]);
    else not_admitted[live[i].root].push_back(static_cast<uint32_t>(i));
  }
  for (auto& [root, orders] : admitted_orders) std::sort(orders.begin(), orders.end());
  for (auto& [root, rest] : not_admitted)
    std::sort(rest.begin(), rest.end(), [&](uint32_t a, uint32_t b) {
      if (live[a].queue_position != live[b].queue_position) return live[a].queue_position < live[b].queue_position;
      if (live[a].cluster_queue != live[b].cluster_queue)
        return s.cq(live[a].cluster_queue).name < s.cq(live[b].cluster_queue).name;
      return a < b;
    });

  for (size_t row = 0; row < row_live.size(); ++row) {
    const WorkloadHandle h = options.workloads.empty() ? live[row_live[row]].handle : options.workloads[row];
    const WorkloadId id = s.Resolve(h);
    const WorkloadRecord& w = s.wl(id);
    WorkloadForecast f;
    f.workload = h;
    f.namespace_ = s.namespaces_names.Name(w.ns);
    f.name = w.name;
    const int l = row_live[row];
    if (l < 0) {
      // Not waiting: one that holds quota was admitted when it reserved it; others never will be.
      if (w.admission) {
        f.cluster_queue = s.cq(w.admission->cluster_queue).name;
        f.admission = f.p10 = f.p50 = f.p90 = w.admission->reserved_at;
        f.admitted_fraction = 1;
      }
      report.workloads.push_back(std::move(f));
      continue;
    }
    const LiveWorkload& lw = live[l];
    if (lw.cluster_queue.valid()) f.cluster_queue = s.cq(lw.cluster_queue).name;
    f.position_in_cluster_queue = lw.queue_position;
    if (lw.root != 0) {
      const std::vector<uint64_t>& orders = admitted_orders[lw.root];
      if (point.admitted[l]) {
        f.position_in_cohort = 1 + (std::lower_bound(orders.begin(), orders.end(), point.order[l]) - orders.begin());
      } else {
        const std::vector<uint32_t>& rest = not_admitted[lw.root];
        f.position_in_cohort = static_cast<int64_t>(orders.size()) + 1 +
                               (std::find(rest.begin(), rest.end(), static_cast<uint32_t>(l)) - rest.begin());
      }
    }
    f.admission = point.admitted[l];
    f.waits_for = point.waits_for[lw.target];
    std::vector<std::optional<Time>>& runs = samples[lw.target];
    if (runs.empty()) {
      f.p10 = f.p50 = f.p90 = f.admission;
      f.admitted_fraction = f.admission ? 1 : 0;
    } else {
      f.admitted_fraction = static_cast<double>(std::count_if(runs.begin(), runs.end(),
                                                              [](const std::optional<Time>& t) { return t.has_value(); })) /
                            static_cast<double>(runs.size());
      f.p10 = Quantile(runs, 0.10);
      f.p50 = Quantile(runs, 0.50);
      f.p90 = Quantile(runs, 0.90);
    }
    report.workloads.push_back(std::move(f));
  }
  return report;
}

}  // namespace qm
