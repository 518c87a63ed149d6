// The trace-driven simulator (simulator.h; model and metrics in docs/simulate.md).
//
// The simulator is an Engine host: it submits the trace's jobs, runs cycles until settled, reads
// the event stream, places admitted pods on nodes, confirms evictions (at once, or after the
// preempted pods' grace period), evicts the workloads of failed nodes, and finishes jobs after
// their run time. Metrics are accumulated as the run goes: exact integrals of held quota, placed
// pods and pending jobs between event instants, and per-job waits sorted once at the end.
//
// The no-progress detector (docs/simulate.md §No progress) keeps, in O(1) amortised per event (a
// heap push of O(log running) per attempt of a job that checkpoints within a window aside): the
// last progress instant (a completion, a checkpoint, the end of an attempt that ran a whole
// window), the earlier of the two interruptions of the latest job preempted or evicted again, the
// running jobs in start order (an intrusive list: starts only happen at the current instant, so
// the oldest is its head), a heap of the first checkpoint of running jobs that checkpoint within a
// window, and the preemptions of the last window for the diagnosis.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/adapter/engine.h"
#include "qm/core/status.h"
#include "qm/model/namespace_name.h"
#include "qm/sim/event_queue.h"
#include "qm/sim/placement.h"
#include "qm/sim/simulator.h"
#include "sim/time_buckets.h"

namespace qm::sim {
namespace {

// Virtual time 0 of a run: any fixed instant works; this one keeps timestamps readable.
constexpr Time kEpoch = Time::FromUnixSeconds(1'700'000'000);
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr double kUsPerHour = 3.6e9;
constexpr int64_t kNever = std::numeric_limits<int64_t>::min() / 2;  // before any instant
// Settling rounds at one instant before a loop of confirmed evictions is called a livelock.
constexpr int64_t kMaxSettleRounds = 1'000;
// Workloads a livelock diagnosis names (most preempted first).
constexpr size_t kLivelockWorkloads = 10;

// SplitMix64: a small PRNG with a fixed, documented output (random faults must not depend on the
// standard library's distributions).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1].
  double Open01() { return (static_cast<double>(Next() >> 11) + 1.0) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

enum class Phase : uint8_t { kPending, kAdmitted, kRunning, kEvicting, kDone };

struct Job {
  WorkloadHandle handle;
  uint32_t group = 0;
  uint32_t queue = 0;
  uint32_t holding = kNone;  // slot in `holdings_` while the job holds quota
  uint32_t generation = 0;   // a finish event of an earlier run is stale
  // Neighbours in the list of running jobs (phase kRunning), oldest start first.
  uint32_t run_prev = kNone;
  uint32_t run_next = kNone;
  Phase phase = Phase::kPending;
  bool submitted = false;
  bool started = false;  // placed on nodes at least once
  int64_t first_admitted_us = -1;
  int64_t saved_us = 0;  // run time kept by checkpoints of earlier attempts (< duration)
  int64_t interrupted_us = kNever;  // its last preemption or eviction
};

// What a job holds while admitted: quota, and, once placed, pods on nodes.
struct Holding {
  std::vector<std::pair<uint32_t, int64_t>> quota;  // (triple, amount)
  std::vector<PodSetDemand> demand;
  // Per pod set: (sim resource, flavor index in the result's flavor list, per-pod amount).
  std::vector<std::vector<std::pair<uint32_t, int64_t>>> pod_amounts;  // (fr index, per-pod amount)
  Placement placement;
  bool placed = false;
  int64_t admitted_us = 0;
  int64_t start_us = 0;
  int64_t startup_us = 0;  // pod start-up of this attempt: its run time starts at start_us + startup_us
  int64_t saved_us = 0;  // run time of this attempt kept by its checkpoints (set when it ends)
  uint64_t failed_epoch = std::numeric_limits<uint64_t>::max();  // capacity epoch of the last miss
};

// One (ClusterQueue, flavor, resource) with a nominal quota.
struct Triple {
  uint32_t queue = 0;
  uint32_t fr = 0;    // (flavor, resource) index
  uint32_t pool = 0;  // (root cohort, flavor, resource) index
  uint32_t resource = 0;
  int64_t nominal = 0;
  int64_t held = 0;
};

struct Pool {
  int64_t borrowed = 0;  // Σ max(0, held − nominal) over its triples
  int64_t idle = 0;      // Σ max(0, nominal − held)
};

struct QueueInfo {
  std::string name;
  std::string team;
  double weight = 1;
  int64_t pending = 0;
  std::vector<int64_t> held;    // [resource] Σ over flavors
  std::vector<int64_t> placed;  // [resource]
  std::vector<double> borrowed_us;  // [resource] ∫ borrowed dt
  std::vector<double> lent_us;      // [resource] ∫ lent dt
};

struct GroupAcc {
  uint32_t queue = 0;
  std::string priority_class;
  int64_t jobs = 0;
  int64_t admitted = 0;
  int64_t started = 0;
  int64_t completed = 0;
  int64_t preemptions = 0;
  int64_t evictions = 0;
  int64_t unplaced_us = 0;
  std::vector<int64_t> waits_us;
  std::vector<int64_t> waits_all_us;  // filled at the end: admitted jobs' waits and censored ones
  std::vector<int64_t> completions_us;
  std::vector<double> used_us;      // [resource] ∫ placed amount dt
  std::vector<double> goodput_lost_us;  // [resource]
};

struct NodeEvent {
  int32_t node = 0;
  bool fail = true;
  bool random = false;
};

struct FinishEvent {
  uint32_t job = 0;
  uint32_t generation = 0;
};

// A running job's first checkpoint (the detector's heap; stale once the attempt ended).
struct FirstSave {
  int64_t at_us = 0;
  uint32_t job = 0;
  uint32_t generation = 0;
};
// Heap order: `a` below `b` when it is later (a min-heap through std's max-heap functions).
bool SavesLater(const FirstSave& a, const FirstSave& b) {
  if (a.at_us != b.at_us) return a.at_us > b.at_us;
  return a.job > b.job;
}

// A preemption or eviction, kept for the window the detector looks back over.
struct Interruption {
  int64_t at_us = 0;
  uint32_t job = 0;
  uint32_t by = kNone;  // the preemptor's queue; kNone for an eviction
};

// A FIFO that reuses its storage: pushing never allocates once it has grown to the most entries
// it held at once.
template <class T>
class Ring {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  const T& front() const { return items_[head_]; }
  const T& operator[](size_t i) const { return items_[(head_ + i) % items_.size()]; }
  void pop_front() {
    head_ = (head_ + 1) % items_.size();
    --size_;
  }
  void push_back(const T& v) {
    if (size_ == items_.size()) {
      std::vector<T> grown;
      grown.reserve(std::max<size_t>(16, 2 * items_.size()));
      for (size_t i = 0; i < size_; ++i) grown.push_back((*this)[i]);
      grown.resize(grown.capacity());
      items_ = std::move(grown);
      head_ = 0;
    }
    items_[(head_ + size_) % items_.size()] = v;
    ++size_;
  }

 private:
  std::vector<T> items_;
  size_t head_ = 0;
  size_t size_ = 0;
};

// Resolved (namespace, LocalQueue) of a trace row.
struct Target {
  std::string namespace_;
  std::string local_queue;
  uint32_t queue = 0;
};

std::string TeamOf(std::string_view cluster_queue) {
  constexpr std::string_view kPrefix = "hyperpod-ns-";
  constexpr std::string_view kSuffix = "-clusterqueue";
  if (cluster_queue.size() > kPrefix.size() + kSuffix.size() && cluster_queue.starts_with(kPrefix) &&
      cluster_queue.ends_with(kSuffix)) {
    return std::string(cluster_queue.substr(kPrefix.size(), cluster_queue.size() - kPrefix.size() - kSuffix.size()));
  }
  return "";
}

Percentiles Summarise(std::vector<int64_t>& us, std::vector<double>* quantiles) {
  Percentiles p;
  if (us.empty()) return p;
  std::sort(us.begin(), us.end());
  const size_t n = us.size();
  auto rank = [&](double pct) {
    const size_t k = static_cast<size_t>(std::ceil(pct / 100.0 * static_cast<double>(n)));
    return static_cast<double>(us[k == 0 ? 0 : k - 1]) / 1e6;
  };
  double sum = 0;
  for (int64_t v : us) sum += static_cast<double>(v);
  p.count = static_cast<int64_t>(n);
  p.mean = sum / static_cast<double>(n) / 1e6;
  p.p50 = rank(50);
  p.p90 = rank(90);
  p.p99 = rank(99);
  p.max = static_cast<double>(us.back()) / 1e6;
  if (quantiles != nullptr) {
    quantiles->resize(101);
    for (int q = 0; q <= 100; ++q) (*quantiles)[static_cast<size_t>(q)] = rank(q);
  }
  return p;
}

class Simulation {
 public:
  Simulation(const SimulationInput& cluster, const Trace& trace, const FaultPlan& faults,
             const SimulationOptions& options)
      : cluster_(cluster), trace_(trace), faults_(faults), options_(options) {}

  absl::StatusOr<SimulationResult> Run() {
    QM_RETURN_IF_ERROR(Setup());
    QM_RETURN_IF_ERROR(Loop());
    return Result();
  }

 private:
  // ---- Setup ---------------------------------------------------------------------------------

  absl::Status Setup() {
    if (options_.stall_window.us <= 0) {
      return absl::InvalidArgumentError("stall window: must be positive (the no-progress detector is always on)");
    }
    if (options_.checkpoint_interval.us < 0) {
      return absl::InvalidArgumentError("checkpoint interval: must not be negative (0 = no checkpoints)");
    }
    if (options_.pod_startup_default.us < 0) {
      return absl::InvalidArgumentError("pod start-up: must not be negative");
    }
    for (const auto& [flavor, d] : options_.pod_startup) {
      if (d.us < 0) return absl::InvalidArgumentError(fmt::format("pod start-up of flavor '{}': must not be negative", flavor));
    }
    // Kueue's waitForPodsReady in the cluster's Configuration (and not switched off by its gate):
    // the simulator then reports pod readiness to the engine.
    report_ready_ = cluster_.config.wait_for_pods_ready.enabled &&
                    !cluster_.config.features.disable_wait_for_pods_ready;
    window_us_ = options_.stall_window.us;
    EngineConfig config = cluster_.config;
    config.clock = nullptr;
    QM_ASSIGN_OR_RETURN(engine_, Engine::Create(std::move(config)));
    QM_RETURN_IF_ERROR(engine_.SetNow(kEpoch));
    absl::Status applied = engine_.Apply(cluster_.objects);
    if (!applied.ok()) {
      return absl::Status(applied.code(), fmt::format("{}: {}", cluster_.label, std::string(applied.message())));
    }
    CollectObjects();
    if (!cluster_.nodes.empty()) {
      QM_ASSIGN_OR_RETURN(NodePool pool, NodePool::Create(cluster_.nodes, flavor_specs_));
      pool_.emplace(std::move(pool));
      jobs_on_node_.resize(static_cast<size_t>(pool_->node_count()));
      node_up_.assign(static_cast<size_t>(pool_->node_count()), true);
    }
    QM_RETURN_IF_ERROR(ResolveJobs());
    QM_RETURN_IF_ERROR(PlanFaults());
    BuildSeries();
    return absl::OkStatus();
  }

  uint32_t ResourceIndex(std::string_view name) {
    auto [it, inserted] = resource_index_.try_emplace(std::string(name), static_cast<uint32_t>(resources_.size()));
    if (inserted) resources_.emplace_back(name);
    return it->second;
  }

  // Queues, flavors, quotas, cohorts, LocalQueues and priority classes from the cluster's objects.
  void CollectObjects() {
    absl::flat_hash_map<std::string, std::string> cohort_parent;
    std::vector<const ClusterQueueSpec*> cqs;
    for (const ObjectSpec& o : cluster_.objects) {
      if (const auto* f = std::get_if<ResourceFlavorSpec>(&o)) {
        flavor_specs_.push_back(*f);
      } else if (const auto* c = std::get_if<CohortSpec>(&o)) {
        cohort_parent[c->name] = c->parent;
      } else if (const auto* cq = std::get_if<ClusterQueueSpec>(&o)) {
        cqs.push_back(cq);
      } else if (const auto* lq = std::get_if<LocalQueueSpec>(&o)) {
        local_queues_[fmt::format("{}/{}", NamespaceOrDefault(lq->namespace_), lq->name)] =
            lq->cluster_queue;
        queues_of_namespace_[std::string(NamespaceOrDefault(lq->namespace_))].push_back(lq->name);
      } else if (const auto* wpc = std::get_if<WorkloadPriorityClassSpec>(&o)) {
        workload_classes_.emplace(wpc->name, true);
      } else if (const auto* pc = std::get_if<PriorityClassSpec>(&o)) {
        pod_classes_.emplace(pc->name, true);
      }
    }
    std::sort(flavor_specs_.begin(), flavor_specs_.end(),
              [](const ResourceFlavorSpec& a, const ResourceFlavorSpec& b) { return a.name < b.name; });
    for (const ResourceFlavorSpec& f : flavor_specs_) {
      flavor_index_.emplace(f.name, static_cast<uint32_t>(flavors_.size()));
      flavors_.push_back(f.name);
    }
    startup_of_flavor_.assign(flavors_.size(), options_.pod_startup_default.us);
    for (const auto& [flavor, d] : options_.pod_startup) {
      if (auto it = flavor_index_.find(flavor); it != flavor_index_.end()) startup_of_flavor_[it->second] = d.us;
    }
    for (auto& [ns, names] : queues_of_namespace_) std::sort(names.begin(), names.end());
    std::sort(cqs.begin(), cqs.end(), [](const ClusterQueueSpec* a, const ClusterQueueSpec* b) { return a->name < b->name; });
    // Resources: every quota's, sorted by name, so that result order does not depend on files.
    std::vector<std::string> names;
    for (const ClusterQueueSpec* cq : cqs) {
      for (const ResourceGroupSpec& g : cq->resource_groups) {
        for (const FlavorQuotasSpec& fq : g.flavors) {
          for (const ResourceQuotaSpec& r : fq.resources) names.push_back(r.name);
        }
      }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const std::string& n : names) ResourceIndex(n);
    quota_resources_ = resources_.size();

    absl::flat_hash_map<std::string, uint32_t> pool_index;
    for (const ClusterQueueSpec* cq : cqs) {
      const uint32_t q = static_cast<uint32_t>(queues_.size());
      queue_index_.emplace(cq->name, q);
      QueueInfo info;
      info.name = cq->name;
      info.team = TeamOf(cq->name);
      info.weight = std::max(0.001, static_cast<double>(cq->fair_sharing_weight_milli) / 1000.0);
      queues_.push_back(std::move(info));
      // The root of the queue's cohort tree pools what its queues lend (cycles were rejected by
      // Apply; the depth guard only keeps a bad tree from hanging this loop).
      std::string root = cq->cohort.empty() ? "/" + cq->name : cq->cohort;
      for (int depth = 0; depth < 1000; ++depth) {
        auto it = cohort_parent.find(root);
        if (it == cohort_parent.end() || it->second.empty()) break;
        root = it->second;
      }
      for (const ResourceGroupSpec& g : cq->resource_groups) {
        for (const FlavorQuotasSpec& fq : g.flavors) {
          auto f = flavor_index_.find(fq.name);
          if (f == flavor_index_.end()) continue;  // Apply checked references; keep going regardless
          for (const ResourceQuotaSpec& r : fq.resources) {
            Triple t;
            t.queue = q;
            t.resource = ResourceIndex(r.name);
            t.fr = FrIndex(f->second, t.resource);
            auto [pit, fresh] = pool_index.try_emplace(fmt::format("{}\x1f{}\x1f{}", root, fq.name, r.name),
                                                       static_cast<uint32_t>(pools_.size()));
            if (fresh) pools_.emplace_back();
            t.pool = pit->second;
            t.nominal = r.nominal_quota;
            pools_[t.pool].idle += t.nominal;
            triple_index_[TripleKey(q, f->second, t.resource)] = static_cast<uint32_t>(triples_.size());
            triples_.push_back(t);
            fr_nominal_[t.fr] += t.nominal;
          }
        }
      }
    }
  }

  static uint64_t TripleKey(uint32_t queue, uint32_t flavor, uint32_t resource) {
    return (static_cast<uint64_t>(queue) << 40) | (static_cast<uint64_t>(flavor) << 20) | resource;
  }
  uint32_t FrIndex(uint32_t flavor, uint32_t resource) {
    const uint64_t key = (static_cast<uint64_t>(flavor) << 32) | resource;
    auto [it, fresh] = fr_index_.try_emplace(key, static_cast<uint32_t>(frs_.size()));
    if (fresh) {
      frs_.emplace_back(flavor, resource);
      fr_nominal_.push_back(0);
      fr_admitted_us_.push_back(0);
      fr_used_us_.push_back(0);
      fr_capacity_.push_back(0);
      fr_capacity_us_.push_back(0);
    }
    return it->second;
  }

  absl::Status RowError(const TraceJob& job, std::string_view column, std::string_view message) const {
    return absl::InvalidArgumentError(
        fmt::format("{}:{}: {}: {}", trace_.source, job.line, column, message));
  }

  // Every job's namespace, LocalQueue, ClusterQueue and priority class, checked before anything runs.
  absl::Status ResolveJobs() {
    jobs_.resize(trace_.jobs.size());
    absl::flat_hash_map<uint64_t, uint32_t> target_of;  // (namespace/team, queue) ids → target
    absl::flat_hash_map<uint64_t, uint32_t> group_of;   // (queue, class id) → group
    class_ref_.assign(trace_.strings.size(), PriorityClassRef{});
    std::vector<int8_t> class_checked(trace_.strings.size(), 0);
    for (size_t i = 0; i < trace_.jobs.size(); ++i) {
      const TraceJob& tj = trace_.jobs[i];
      const bool by_team = tj.team != 0;
      const uint64_t key = (static_cast<uint64_t>(by_team ? tj.team : tj.namespace_) << 33) |
                           (static_cast<uint64_t>(by_team) << 32) | tj.queue;
      auto found = target_of.find(key);
      if (found == target_of.end()) {
        QM_ASSIGN_OR_RETURN(Target target, Resolve(tj));
        found = target_of.emplace(key, static_cast<uint32_t>(targets_.size())).first;
        targets_.push_back(std::move(target));
      }
      if (tj.priority_class != 0 && !class_checked[tj.priority_class]) {
        QM_RETURN_IF_ERROR(ResolveClass(tj));
        class_checked[tj.priority_class] = 1;
      }
      job_target_.push_back(found->second);
      const uint32_t queue = targets_[found->second].queue;
      const uint64_t gkey = (static_cast<uint64_t>(queue) << 32) | tj.priority_class;
      auto [g, fresh] = group_of.try_emplace(gkey, static_cast<uint32_t>(groups_.size()));
      if (fresh) {
        GroupAcc acc;
        acc.queue = queue;
        acc.priority_class = tj.priority_class == 0 ? "(none)" : std::string(trace_.str(tj.priority_class));
        acc.used_us.assign(quota_resources_, 0);
        acc.goodput_lost_us.assign(quota_resources_, 0);
        groups_.push_back(std::move(acc));
      }
      jobs_[i].group = g->second;
      jobs_[i].queue = queue;
      ++groups_[g->second].jobs;
      for (const TracePodSet& ps : trace_.PodSetsOf(tj)) {
        for (const TraceRequest& r : trace_.RequestsOf(ps)) {
          // Admission multiplies the request by the count (`Admit`): refuse a product past int64
          // here, naming the row, rather than wrap there.
          int64_t total = 0;
          if (__builtin_mul_overflow(r.amount, int64_t{ps.count}, &total))
            return RowError(tj, "pod_sets",
                            fmt::format("pod set \"{}\": {} pods of {} {} overflow a 64-bit total", trace_.str(ps.name),
                                        ps.count, r.amount, trace_.str(r.resource)));
          if (resource_of_string_.size() <= r.resource) resource_of_string_.resize(trace_.strings.size(), kNone);
          if (resource_of_string_[r.resource] == kNone) {
            resource_of_string_[r.resource] = ResourceIndex(trace_.str(r.resource));
          }
        }
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Target> Resolve(const TraceJob& tj) const {
    Target t;
    std::string_view column = "namespace";
    if (tj.team != 0) {
      column = "team";
      t.namespace_ = fmt::format("hyperpod-ns-{}", trace_.str(tj.team));
    } else {
      t.namespace_ = std::string(trace_.str(tj.namespace_));
      DefaultNamespace(t.namespace_);
    }
    auto ns = queues_of_namespace_.find(t.namespace_);
    if (ns == queues_of_namespace_.end()) {
      return RowError(tj, column, fmt::format("no LocalQueue in namespace \"{}\"{}", t.namespace_,
                                              tj.team != 0 ? " (is the team's ComputeQuota defined?)" : ""));
    }
    if (tj.queue != 0) {
      t.local_queue = std::string(trace_.str(tj.queue));
      if (!std::binary_search(ns->second.begin(), ns->second.end(), t.local_queue)) {
        return RowError(tj, "queue", fmt::format("LocalQueue \"{}\" not found in namespace \"{}\" (it has: {})",
                                                 t.local_queue, t.namespace_, fmt::join(ns->second, ", ")));
      }
    } else if (ns->second.size() == 1) {
      t.local_queue = ns->second.front();
    } else {
      return RowError(tj, "queue", fmt::format("namespace \"{}\" has {} LocalQueues ({}); name one",
                                               t.namespace_, ns->second.size(), fmt::join(ns->second, ", ")));
    }
    const std::string& cq = local_queues_.at(fmt::format("{}/{}", t.namespace_, t.local_queue));
    auto q = queue_index_.find(cq);
    if (q == queue_index_.end()) {
      return RowError(tj, "queue", fmt::format("LocalQueue \"{}/{}\" points to ClusterQueue \"{}\", which does not exist",
                                               t.namespace_, t.local_queue, cq));
    }
    t.queue = q->second;
    return t;
  }

  // A class is a WorkloadPriorityClass, else a PriorityClass; HyperPod's `<name>-priority` classes
  // may be named without the suffix.
  absl::Status ResolveClass(const TraceJob& tj) {
    const std::string name(trace_.str(tj.priority_class));
    PriorityClassRef& ref = class_ref_[tj.priority_class];
    if (workload_classes_.contains(name)) {
      ref = {PriorityClassSource::kWorkloadPriorityClass, name};
    } else if (workload_classes_.contains(name + "-priority")) {
      ref = {PriorityClassSource::kWorkloadPriorityClass, name + "-priority"};
    } else if (pod_classes_.contains(name)) {
      ref = {PriorityClassSource::kPriorityClass, name};
    } else {
      std::vector<std::string> known;
      for (const auto& [k, v] : workload_classes_) known.push_back(k);
      for (const auto& [k, v] : pod_classes_) known.push_back(k);
      std::sort(known.begin(), known.end());
      return RowError(tj, "priority_class",
                      fmt::format("\"{}\" is neither a WorkloadPriorityClass nor a PriorityClass of the cluster{}",
                                  name, known.empty() ? std::string(" (it defines none)")
                                                      : fmt::format(" (defined: {})", fmt::join(known, ", "))));
    }
    return absl::OkStatus();
  }

  absl::Status PlanFaults() {
    if (!faults_.failures.empty() || faults_.mtbf.us > 0) {
      if (!pool_.has_value()) {
        return absl::InvalidArgumentError(
            "faults: the cluster has no nodes (no Node objects and no HyperPodCluster), so no node can fail");
      }
    }
    for (size_t i = 0; i < faults_.failures.size(); ++i) {
      const FaultPlan::Failure& f = faults_.failures[i];
      const int32_t node = FindNode(f.node);
      if (node < 0) {
        return absl::InvalidArgumentError(fmt::format("faults: failures[{}].node: no node \"{}\" in the cluster", i, f.node));
      }
      node_events_.Push(Time{f.at.us}, NodeEvent{node, true, false});
      if (f.repair.us > 0) node_events_.Push(Time{f.at.us + f.repair.us}, NodeEvent{node, false, false});
    }
    if (faults_.mtbf.us > 0) {
      for (int32_t n = 0; n < pool_->node_count(); ++n) {
        rngs_.emplace_back(faults_.seed * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(n) + 1);
      }
      for (int32_t n = 0; n < pool_->node_count(); ++n) ScheduleRandomFailure(n, 0);
    }
    return absl::OkStatus();
  }

  int32_t FindNode(std::string_view name) const {
    int32_t lo = 0, hi = pool_->node_count();
    while (lo < hi) {
      const int32_t mid = (lo + hi) / 2;
      if (pool_->node(mid).name < name) lo = mid + 1; else hi = mid;
    }
    return lo < pool_->node_count() && pool_->node(lo).name == name ? lo : -1;
  }

  void ScheduleRandomFailure(int32_t node, int64_t from_us) {
    const double gap = -std::log(rngs_[static_cast<size_t>(node)].Open01()) * static_cast<double>(faults_.mtbf.us);
    const int64_t at = from_us + static_cast<int64_t>(std::min(gap, 4e18 - static_cast<double>(from_us)));
    node_events_.Push(Time{at}, NodeEvent{node, true, true});
  }

  // Series layout: used[resource][queue], capacity[resource], pending[queue], share[queue],
  // preemptions[queue], then the Jain sum.
  void BuildSeries() {
    const int r = static_cast<int>(quota_resources_), q = static_cast<int>(queues_.size());
    s_used_ = 0;
    s_capacity_ = r * q;
    s_pending_ = s_capacity_ + r;
    s_share_ = s_pending_ + q;
    s_preempt_ = s_share_ + q;
    s_jain_ = s_preempt_ + q;
    buckets_.emplace(s_jain_ + 1, options_.buckets);
    for (QueueInfo& info : queues_) {
      info.held.assign(quota_resources_, 0);
      info.placed.assign(quota_resources_, 0);
      info.borrowed_us.assign(quota_resources_, 0);
      info.lent_us.assign(quota_resources_, 0);
    }
    capacity_.assign(quota_resources_, 0);
    total_nominal_.assign(quota_resources_, 0);
    accelerator_.assign(quota_resources_, false);
    for (size_t res = 0; res < quota_resources_; ++res) accelerator_[res] = IsAcceleratorResource(resources_[res]);
    for (const Triple& t : triples_) total_nominal_[t.resource] += t.nominal;
    if (pool_.has_value()) {
      for (int32_t n = 0; n < pool_->node_count(); ++n) ChangeNodeCapacity(n, +1);
    }
  }

  // Adds (+1) or removes (−1) a node's allocatable from the capacity figures.
  void ChangeNodeCapacity(int32_t node, int sign) {
    for (size_t r = 0; r < quota_resources_; ++r) {
      const int32_t pr = pool_->ResourceIndex(resources_[r]);
      if (pr >= 0) capacity_[r] += sign * pool_->Allocatable(node, pr);
    }
    for (size_t fr = 0; fr < frs_.size(); ++fr) {
      const auto [flavor, resource] = frs_[fr];
      const int32_t pf = pool_->FlavorIndex(flavors_[flavor]);
      const int32_t pr = pool_->ResourceIndex(resources_[resource]);
      if (pf < 0 || pr < 0) continue;
      const auto nodes = pool_->NodesOfFlavor(pf);
      if (std::binary_search(nodes.begin(), nodes.end(), node)) {
        fr_capacity_[fr] += sign * pool_->Allocatable(node, pr);
      }
    }
  }

  // ---- The loop ------------------------------------------------------------------------------

  absl::Status Loop() {
    const int64_t horizon = options_.horizon.us > 0 ? options_.horizon.us : std::numeric_limits<int64_t>::max();
    const size_t n = trace_.jobs.size();
    while (true) {
      int64_t t = std::numeric_limits<int64_t>::max();
      if (next_submit_ < n) t = trace_.jobs[next_submit_].submit.us;
      if (!finishes_.empty()) t = std::min(t, finishes_.Top().time.us);
      if (!confirms_.empty()) t = std::min(t, confirms_.Top().time.us);
      if (!readies_.empty()) t = std::min(t, readies_.Top().time.us);
      const bool work_left = next_submit_ < n || !finishes_.empty() || !confirms_.empty();
      // Node events matter while jobs run, or while admitted jobs wait for a failed node to come
      // back. A run whose only remaining events are faults is over: jobs still pending can never
      // be admitted, and admitted ones waiting with every node up can never be placed.
      if (!node_events_.empty() && (work_left || (!waiting_.empty() && nodes_down_ > 0))) {
        t = std::min(t, node_events_.Top().time.us);
      }
      // An anti-thrash timer (a minimum runtime or a borrow back-off running out) may let a parked
      // job in: an instant of its own, while there is anything left to admit.
      if (const std::optional<Time> timer = engine_.NextTimedChange(); timer && (work_left || HasPending())) {
        t = std::min(t, std::max(timer->us - kEpoch.us, now_ + 1));
      }
      if (t == std::numeric_limits<int64_t>::max()) break;
      // Between instants nothing changes but the clock, so the stall can only begin at the
      // instant the last progress falls out of the window (StalledAt explains why).
      const int64_t stall = progress_us_ + window_us_;
      if (stall > now_ && stall < t && stall <= horizon && StalledAt(stall)) {
        Advance(stall);
        DeclareLivelock(/*at_one_instant=*/false);
        break;
      }
      if (t > horizon) {
        Advance(horizon);
        break;
      }
      Advance(t);
      QM_RETURN_IF_ERROR(engine_.SetNow(kEpoch + Duration{t}));
      ++instants_;
      while (!finishes_.empty() && finishes_.Top().time.us == t) {
        const FinishEvent f = finishes_.Pop().payload;
        QM_RETURN_IF_ERROR(FinishJob(f));
      }
      while (!confirms_.empty() && confirms_.Top().time.us == t) {
        const FinishEvent f = confirms_.Pop().payload;
        QM_RETURN_IF_ERROR(ConfirmStopped(f));
      }
      while (!readies_.empty() && readies_.Top().time.us == t) {
        const FinishEvent f = readies_.Pop().payload;
        // Stale when the attempt ended (the job was evicted or finished) before its pods were up.
        if (jobs_[f.job].phase == Phase::kRunning && jobs_[f.job].generation == f.generation)
          QM_RETURN_IF_ERROR(engine_.SetPodsReady(jobs_[f.job].handle, true));
      }
      while (!node_events_.empty() && node_events_.Top().time.us == t) {
        const NodeEvent e = node_events_.Pop().payload;
        QM_RETURN_IF_ERROR(e.fail ? FailNode(e) : RepairNode(e.node));
      }
      while (next_submit_ < n && trace_.jobs[next_submit_].submit.us == t) {
        QM_RETURN_IF_ERROR(SubmitJob(static_cast<uint32_t>(next_submit_)));
        ++next_submit_;
      }
      QM_RETURN_IF_ERROR(Settle());
      if (instant_loop_) {
        DeclareLivelock(/*at_one_instant=*/true);
        break;
      }
      PlaceWaiting();
      if (StalledAt(now_)) {
        DeclareLivelock(/*at_one_instant=*/false);
        break;
      }
    }
    return absl::OkStatus();
  }

  // ---- The no-progress detector -------------------------------------------------------------

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
  bool StalledAt(int64_t t) {
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

  void PopFirstSave() {
    std::pop_heap(first_saves_.begin(), first_saves_.end(), SavesLater);
    first_saves_.pop_back();
  }

  void LinkRunning(uint32_t j) {
    Job& job = jobs_[j];
    job.run_prev = running_tail_;
    job.run_next = kNone;
    if (running_tail_ != kNone) jobs_[running_tail_].run_next = j; else running_head_ = j;
    running_tail_ = j;
  }

  void UnlinkRunning(uint32_t j) {
    Job& job = jobs_[j];
    if (job.run_prev != kNone) jobs_[job.run_prev].run_next = job.run_next; else running_head_ = job.run_next;
    if (job.run_next != kNone) jobs_[job.run_next].run_prev = job.run_prev; else running_tail_ = job.run_prev;
    job.run_prev = job.run_next = kNone;
  }

  int64_t CheckpointIntervalUs(uint32_t j) const {
    return trace_.CheckpointIntervalOf(trace_.jobs[j], options_.checkpoint_interval).us;
  }

  // A running job's attempt ends now (preempted or evicted): keeps the run time up to its last
  // checkpoint, and records the progress the attempt made.
  void EndAttempt(uint32_t j) {
    Job& job = jobs_[j];
    Holding& h = holdings_[job.holding];
    UnlinkRunning(j);
    const int64_t ran = std::max<int64_t>(0, now_ - h.start_us - h.startup_us);
    if (ran >= window_us_) progress_us_ = std::max(progress_us_, now_);
    const int64_t interval = CheckpointIntervalUs(j);
    if (interval <= 0) return;
    // Checkpoints come every `interval` of the attempt's run time, strictly before its end (the
    // last one would be the completion): k·interval < remaining.
    const int64_t remaining = trace_.jobs[j].duration.us - job.saved_us;
    const int64_t kept = std::min(ran / interval, (remaining - 1) / interval);
    if (kept <= 0) return;
    h.saved_us = kept * interval;
    job.saved_us += h.saved_us;
    checkpoints_kept_ += kept;
    progress_us_ = std::max(progress_us_, h.start_us + h.startup_us + h.saved_us);
  }

  // A preemption or eviction of job `j` by a job of queue `by` (kNone: an eviction) for `reason`.
  void CountInterruption(uint32_t j, uint32_t by, const char* reason) {
    const uint32_t victim = jobs_[j].queue;
    // A repeat: both interruptions lie in every window that holds the earlier one.
    repeated_since_us_ = std::max(repeated_since_us_, jobs_[j].interrupted_us);
    jobs_[j].interrupted_us = now_;
    while (!recent_.empty() && recent_.front().at_us <= now_ - window_us_) recent_.pop_front();
    recent_.push_back(Interruption{now_, j, by});
    ++preemption_counts_[std::make_tuple(victim, ReasonId(reason), by)];
    if (by == kNone) return;
    auto [it, fresh] = pair_series_.try_emplace(std::make_pair(by, victim), 0);
    if (fresh) {
      it->second = buckets_->AddSeries();
      pairs_.emplace_back(by, victim);
    }
    buckets_->Count(it->second, now_, 1);
  }

  uint32_t ReasonId(const char* reason) {
    for (uint32_t i = 0; i < reasons_.size(); ++i) {
      if (std::strcmp(reasons_[i].c_str(), reason) == 0) return i;
    }
    reasons_.emplace_back(reason);
    return static_cast<uint32_t>(reasons_.size() - 1);
  }

  std::string WorkloadName(uint32_t j) const {
    return fmt::format("{}/{}", targets_[job_target_[j]].namespace_, trace_.JobName(trace_.jobs[j]));
  }

  std::string QueueName(uint32_t q) const { return q == kNone ? std::string() : queues_[q].name; }

  // Stops the run at now_ and names what looped: the preemptions of the last window by queue pair
  // and by workload.
  void DeclareLivelock(bool at_one_instant) {
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

  bool HasPending() const {
    for (const QueueInfo& q : queues_)
      if (q.pending > 0) return true;
    return false;
  }

  // Moves the clock to `t`, integrating everything held since the previous instant.
  void Advance(int64_t t) {
    const int64_t t0 = now_;
    if (t <= t0) return;
    const double dt = static_cast<double>(t - t0);
    for (Triple& tr : triples_) {
      if (tr.held == 0 && tr.nominal == 0) continue;
      fr_admitted_us_[tr.fr] += static_cast<double>(tr.held) * dt;
      QueueInfo& q = queues_[tr.queue];
      if (tr.held > tr.nominal) q.borrowed_us[tr.resource] += static_cast<double>(tr.held - tr.nominal) * dt;
      const Pool& p = pools_[tr.pool];
      if (tr.held < tr.nominal && p.borrowed > 0 && p.idle > 0) {
        const double lent_share = static_cast<double>(std::min(p.borrowed, p.idle)) / static_cast<double>(p.idle);
        q.lent_us[tr.resource] += static_cast<double>(tr.nominal - tr.held) * lent_share * dt;
      }
    }
    for (size_t fr = 0; fr < frs_.size(); ++fr) fr_capacity_us_[fr] += static_cast<double>(fr_capacity_[fr]) * dt;
    const int nq = static_cast<int>(queues_.size());
    for (size_t r = 0; r < quota_resources_; ++r) {
      buckets_->Add(s_capacity_ + static_cast<int>(r), t0, t,
                    pool_.has_value() ? static_cast<double>(capacity_[r]) : static_cast<double>(total_nominal_[r]));
    }
    double sum = 0, sum_sq = 0;
    int demand = 0;
    for (int q = 0; q < nq; ++q) {
      const QueueInfo& info = queues_[static_cast<size_t>(q)];
      bool holds = false;
      double dominant = 0;
      for (size_t r = 0; r < quota_resources_; ++r) {
        buckets_->Add(s_used_ + static_cast<int>(r) * nq + q, t0, t, static_cast<double>(info.placed[r]));
        if (info.held[r] > 0) {
          holds = true;
          if (total_nominal_[r] > 0) {
            dominant = std::max(dominant, static_cast<double>(info.held[r]) / static_cast<double>(total_nominal_[r]));
          }
        }
      }
      buckets_->Add(s_pending_ + q, t0, t, static_cast<double>(info.pending));
      if (info.pending > 0 || holds) {
        const double x = dominant / info.weight;
        buckets_->Add(s_share_ + q, t0, t, x);
        sum += x;
        sum_sq += x * x;
        ++demand;
      }
    }
    // Jain's index over the queues with demand. An idle cluster counts as fair (1); queues with
    // demand of which none holds anything count as 0, the index's floor: starvation, not fairness.
    const double jain = demand == 0 ? 1.0 : sum_sq == 0 ? 0.0 : sum * sum / (demand * sum_sq);
    buckets_->Add(s_jain_, t0, t, jain);
    if (demand > 0) {
      demand_us_ += dt;
      jain_us_ += jain * dt;
    }
    now_ = t;
  }

  absl::Status SubmitJob(uint32_t index) {
    const TraceJob& tj = trace_.jobs[index];
    const Target& target = targets_[job_target_[index]];
    spec_.namespace_ = target.namespace_;
    spec_.name = trace_.JobName(tj);
    spec_.uid = fmt::format("{:010d}", tj.row);
    spec_.queue_name = target.local_queue;
    spec_.priority_class = tj.priority_class == 0 ? PriorityClassRef{} : class_ref_[tj.priority_class];
    spec_.priority = tj.priority;
    spec_.creation_time = kEpoch + Duration{now_};
    const auto pod_sets = trace_.PodSetsOf(tj);
    spec_.pod_sets.resize(pod_sets.size());
    for (size_t p = 0; p < pod_sets.size(); ++p) {
      const TracePodSet& ps = pod_sets[p];
      PodSetSpec& out = spec_.pod_sets[p];
      out.name = std::string(trace_.str(ps.name));
      out.count = ps.count;
      out.min_count = ps.min_count > 0 ? std::optional<int32_t>(ps.min_count) : std::nullopt;
      out.requests.clear();
      for (const TraceRequest& r : trace_.RequestsOf(ps)) out.requests.emplace_back(trace_.str(r.resource), r.amount);
    }
    absl::StatusOr<WorkloadHandle> handle = engine_.Submit(spec_);
    if (!handle.ok()) {
      return absl::Status(handle.status().code(),
                          fmt::format("{}:{}: {}", trace_.source, tj.line, std::string(handle.status().message())));
    }
    Job& job = jobs_[index];
    job.handle = *handle;
    job.submitted = true;
    job.phase = Phase::kPending;
    if (job_of_slot_.size() <= handle->index) job_of_slot_.resize(handle->index + 1, kNone);
    job_of_slot_[handle->index] = index;
    ++queues_[job.queue].pending;
    return absl::OkStatus();
  }

  // Runs cycles until settled, confirming at once the evictions whose pods stopped at once (those
  // on failed nodes, and every preemption when the eviction delay is 0), until a round confirms
  // nothing. With a zero delay a preemption loop (A preempts B, B's queue takes the room back
  // first, ...) can repeat forever at one instant: after kMaxSettleRounds rounds `instant_loop_`
  // is set and the run stops there as a livelock rather than hang.
  absl::Status Settle() {
    for (int64_t round = 0;; ++round) {
      if (round > kMaxSettleRounds) {
        instant_loop_ = true;  // the loop stops the run as a livelock at this instant
        return absl::OkStatus();
      }
      cycles_ += engine_.RunUntilStable(static_cast<int>(std::min<int64_t>(options_.max_cycles_per_instant, 1'000'000)));
      QM_RETURN_IF_ERROR(HandleEvents(engine_.LastEvents()));
      if (to_confirm_.empty()) return absl::OkStatus();
      std::vector<uint32_t> confirm;
      confirm.swap(to_confirm_);
      for (uint32_t j : confirm) {
        QM_RETURN_IF_ERROR(engine_.ConfirmEvicted(jobs_[j].handle));
        QM_RETURN_IF_ERROR(HandleEvents(engine_.LastEvents()));
      }
    }
  }

  uint32_t JobOf(WorkloadHandle h) const {
    if (h.index >= job_of_slot_.size()) return kNone;
    const uint32_t j = job_of_slot_[h.index];
    return j != kNone && jobs_[j].handle == h ? j : kNone;
  }

  absl::Status HandleEvents(std::span<const Event> events) {
    for (const Event& e : events) {
      const uint32_t j = JobOf(e.workload);
      if (j == kNone) continue;  // a workload of the cluster file, not of the trace
      switch (e.kind) {
        case EventKind::kAdmitted: Admitted(j, e); break;
        case EventKind::kPreempted:
        case EventKind::kEvicted: Stopped(j, e); break;
        case EventKind::kRequeued:
        case EventKind::kDeactivated: Requeued(j, e.kind == EventKind::kRequeued); break;
        default: break;
      }
    }
    return absl::OkStatus();
  }

  void Admitted(uint32_t j, const Event& e) {
    Job& job = jobs_[j];
    GroupAcc& g = groups_[job.group];
    const TraceJob& tj = trace_.jobs[j];
    --queues_[job.queue].pending;
    ++admissions_;
    if (job.first_admitted_us < 0) {
      job.first_admitted_us = now_;
      ++g.admitted;
      g.waits_us.push_back(now_ - tj.submit.us);
    }
    job.phase = Phase::kAdmitted;
    job.holding = NewHolding();
    Holding& h = holdings_[job.holding];
    h.admitted_us = now_;
    const auto pod_sets = trace_.PodSetsOf(tj);
    h.demand.resize(e.pod_sets.size());
    h.pod_amounts.resize(e.pod_sets.size());
    for (size_t i = 0; i < e.pod_sets.size(); ++i) {
      const AdmittedPodSet& aps = e.pod_sets[i];
      const TracePodSet& ps = pod_sets[aps.index];
      PodSetDemand& d = h.demand[i];
      d.count = aps.count;
      d.min_count = ps.min_count > 0 ? std::min(ps.min_count, aps.count) : aps.count;
      d.flavors.clear();
      d.requests.clear();
      h.pod_amounts[i].clear();
      for (const TraceRequest& r : trace_.RequestsOf(ps)) {
        const uint32_t res = resource_of_string_[r.resource];
        const uint32_t flavor = FlavorOfResource(aps, res);
        if (pool_.has_value()) d.requests.emplace_back(pool_->ResourceIndex(resources_[res]), r.amount);
        if (flavor == kNone || res >= quota_resources_) continue;  // no quota for it: not counted
        if (pool_.has_value()) d.flavors.push_back(pool_->FlavorIndex(flavors_[flavor]));
        const int64_t amount = r.amount * aps.count;  // no overflow: ResolveJobs checked count × amount
        h.pod_amounts[i].emplace_back(FrIndex(flavor, res), r.amount);
        auto t = triple_index_.find(TripleKey(job.queue, flavor, res));
        if (t == triple_index_.end()) continue;
        h.quota.emplace_back(t->second, amount);
        ChangeHeld(t->second, amount);
      }
      std::sort(d.flavors.begin(), d.flavors.end());
      d.flavors.erase(std::unique(d.flavors.begin(), d.flavors.end()), d.flavors.end());
    }
    waiting_.push_back(j);
  }

  uint32_t FlavorOfResource(const AdmittedPodSet& aps, uint32_t res) {
    for (const auto& [rid, fid] : aps.flavors) {
      if (ResourceOfEngine(rid) == res) return FlavorOfEngine(fid);
    }
    return kNone;
  }
  uint32_t ResourceOfEngine(ResourceId id) {
    const size_t i = id.value;
    if (engine_resource_.size() <= i) engine_resource_.resize(i + 1, kNone);
    if (engine_resource_[i] == kNone) engine_resource_[i] = ResourceIndex(engine_.ResourceName(id));
    return engine_resource_[i];
  }
  uint32_t FlavorOfEngine(FlavorId id) {
    const size_t i = id.value;
    if (engine_flavor_.size() <= i) engine_flavor_.resize(i + 1, kNone);
    if (engine_flavor_[i] == kNone) {
      auto it = flavor_index_.find(engine_.FlavorName(id));
      engine_flavor_[i] = it == flavor_index_.end() ? kNone : it->second;
    }
    return engine_flavor_[i];
  }

  void ChangeHeld(uint32_t triple, int64_t delta) {
    Triple& t = triples_[triple];
    Pool& p = pools_[t.pool];
    p.borrowed -= std::max<int64_t>(0, t.held - t.nominal);
    p.idle -= std::max<int64_t>(0, t.nominal - t.held);
    t.held += delta;
    p.borrowed += std::max<int64_t>(0, t.held - t.nominal);
    p.idle += std::max<int64_t>(0, t.nominal - t.held);
    queues_[t.queue].held[t.resource] += delta;
  }

  uint32_t NewHolding() {
    if (!free_holdings_.empty()) {
      const uint32_t h = free_holdings_.back();
      free_holdings_.pop_back();
      holdings_[h].quota.clear();
      holdings_[h].placement.clear();
      holdings_[h].placed = false;
      holdings_[h].saved_us = 0;
      holdings_[h].startup_us = 0;
      holdings_[h].failed_epoch = std::numeric_limits<uint64_t>::max();
      return h;
    }
    holdings_.emplace_back();
    return static_cast<uint32_t>(holdings_.size() - 1);
  }

  // Places the admitted-but-unplaced jobs, oldest admission first, skipping those that already
  // failed against the same free capacity.
  void PlaceWaiting() {
    size_t keep = 0;
    for (size_t i = 0; i < waiting_.size(); ++i) {
      const uint32_t j = waiting_[i];
      Job& job = jobs_[j];
      if (job.phase != Phase::kAdmitted) continue;  // evicted or finished while waiting
      Holding& h = holdings_[job.holding];
      bool placed = true;
      if (pool_.has_value()) {
        placed = h.failed_epoch != capacity_epoch_ && pool_->TryPlace(h.demand, &h.placement);
        if (!placed) h.failed_epoch = capacity_epoch_;
      }
      if (placed) {
        Start(j);
      } else {
        waiting_[keep++] = j;
      }
    }
    waiting_.resize(keep);
  }

  void Start(uint32_t j) {
    Job& job = jobs_[j];
    Holding& h = holdings_[job.holding];
    GroupAcc& g = groups_[job.group];
    g.unplaced_us += now_ - h.admitted_us;
    h.placed = true;
    h.start_us = now_;
    h.saved_us = 0;
    // Pod start-up: the longest of the flavors the pods use; the run time starts after it.
    h.startup_us = 0;
    if (const std::optional<Duration> own = trace_.PodStartupOf(trace_.jobs[j])) {
      h.startup_us = own->us;  // the trace's pod_startup column overrides the flavors'
    } else {
      ForEachPlacedAmount(h, [&](uint32_t fr, int64_t) {
        h.startup_us = std::max(h.startup_us, startup_of_flavor_[frs_[fr].first]);
      });
    }
    job.phase = Phase::kRunning;
    if (!job.started) {
      job.started = true;
      ++g.started;
      ++started_;
    }
    ForEachPlacedAmount(h, [&](uint32_t fr, int64_t amount) {
      queues_[job.queue].placed[frs_[fr].second] += amount;
    });
    if (pool_.has_value()) {
      for (const Placement::Slot& s : h.placement.slots) {
        auto& on = jobs_on_node_[static_cast<size_t>(s.node)];
        if (std::find(on.begin(), on.end(), j) == on.end()) on.push_back(j);
      }
    }
    // A readmitted job runs only what its checkpoints did not keep.
    const int64_t remaining = trace_.jobs[j].duration.us - job.saved_us;
    finishes_.Push(Time{now_ + h.startup_us + remaining}, FinishEvent{j, job.generation});
    if (report_ready_) {
      if (h.startup_us > 0) {
        readies_.Push(Time{now_ + h.startup_us}, FinishEvent{j, job.generation});
      } else {
        // Placed and up at once. Cannot fail: the job holds quota (it was just admitted or placed).
        engine_.SetPodsReady(job.handle, true).IgnoreError();
      }
    }
    LinkRunning(j);
    // Its first checkpoint is progress; one that comes after a whole window of run time, or never
    // (the job ends first), cannot matter before the run time itself does.
    const int64_t interval = CheckpointIntervalUs(j);
    if (interval > 0 && interval < remaining && interval < window_us_) {
      while (!first_saves_.empty()) {  // drop ended attempts from the top, so the heap stays small
        const FirstSave& top = first_saves_.front();
        if (jobs_[top.job].phase == Phase::kRunning && jobs_[top.job].generation == top.generation) break;
        PopFirstSave();
      }
      first_saves_.push_back(FirstSave{now_ + h.startup_us + interval, j, job.generation});
      std::push_heap(first_saves_.begin(), first_saves_.end(), SavesLater);
    }
  }

  // Calls fn(fr, amount) for every (flavor, resource) amount the job's placed pods hold.
  template <class F>
  void ForEachPlacedAmount(const Holding& h, F&& fn) const {
    for (size_t i = 0; i < h.pod_amounts.size(); ++i) {
      const int32_t pods = pool_.has_value() && i < h.placement.placed.size() ? h.placement.placed[i] : h.demand[i].count;
      for (const auto& [fr, per_pod] : h.pod_amounts[i]) fn(fr, per_pod * pods);
    }
  }

  // The job's pods stop (finished or evicted): gives back their nodes and books their run time;
  // when `lost`, the part its checkpoints did not keep is goodput lost.
  void StopPods(uint32_t j, bool lost) {
    Job& job = jobs_[j];
    Holding& h = holdings_[job.holding];
    GroupAcc& g = groups_[job.group];
    if (!h.placed) {
      g.unplaced_us += now_ - h.admitted_us;
      return;
    }
    // Nodes are held from placement (start-up included); work is done only after start-up.
    const double ran = static_cast<double>(now_ - h.start_us);
    const double thrown_away = static_cast<double>(std::max<int64_t>(0, now_ - h.start_us - h.startup_us - h.saved_us));
    ForEachPlacedAmount(h, [&](uint32_t fr, int64_t amount) {
      const uint32_t res = frs_[fr].second;
      queues_[job.queue].placed[res] -= amount;
      g.used_us[res] += static_cast<double>(amount) * ran;
      fr_used_us_[fr] += static_cast<double>(amount) * ran;
      if (lost) g.goodput_lost_us[res] += static_cast<double>(amount) * thrown_away;
    });
    if (pool_.has_value()) {
      pool_->Release(h.placement);
      ++capacity_epoch_;
      for (const Placement::Slot& s : h.placement.slots) {
        auto& on = jobs_on_node_[static_cast<size_t>(s.node)];
        on.erase(std::remove(on.begin(), on.end(), j), on.end());
      }
    }
    h.placed = false;
  }

  void ReleaseQuota(uint32_t j) {
    Job& job = jobs_[j];
    Holding& h = holdings_[job.holding];
    for (const auto& [triple, amount] : h.quota) ChangeHeld(triple, -amount);
    free_holdings_.push_back(job.holding);
    job.holding = kNone;
  }

  void Stopped(uint32_t j, const Event& e) {
    Job& job = jobs_[j];
    if (job.phase != Phase::kAdmitted && job.phase != Phase::kRunning) return;
    const bool preempted = e.kind == EventKind::kPreempted;
    if (job.phase == Phase::kRunning) EndAttempt(j);
    ++job.generation;  // its finish event is now stale
    job.phase = Phase::kEvicting;
    // A preempted job takes `eviction_delay` to stop (its pods' grace period, or the controller
    // deleting pods that were never placed); it keeps its nodes and quota until then, and the
    // preemptor waits, as in Kueue. Pods the host evicted (their node failed) stop at once.
    if (preempted && options_.eviction_delay.us > 0) {
      confirms_.Push(Time{now_ + options_.eviction_delay.us}, FinishEvent{j, job.generation});
    } else {
      StopPods(j, /*lost=*/true);
      to_confirm_.push_back(j);
    }
    GroupAcc& g = groups_[job.group];
    if (preempted) {
      ++g.preemptions;
      ++preemptions_;
    } else if (std::string_view(e.reason) == "NodeFailures") {
      ++g.evictions;
    }
    buckets_->Count(s_preempt_ + static_cast<int>(job.queue), now_, 1);
    uint32_t by = kNone;
    const char* reason = e.reason;
    if (preempted) {
      const uint32_t preemptor = JobOf(e.preemptor);
      if (preemptor != kNone) by = jobs_[preemptor].queue;
      reason = PreemptionReasonName(e.preemption_reason);
    }
    CountInterruption(j, by, reason);
    if (preemption_log_.size() < options_.preemption_log_limit) {
      PreemptionRecord rec;
      rec.time_s = static_cast<double>(now_) / 1e6;
      rec.workload = engine_.WorkloadName(job.handle);
      rec.cluster_queue = queues_[job.queue].name;
      rec.preemptor_queue = QueueName(by);
      rec.reason = reason;
      preemption_log_.push_back(std::move(rec));
    } else {
      ++preemption_log_dropped_;
    }
  }

  // A preempted job's pods stopped at the end of their grace period.
  absl::Status ConfirmStopped(const FinishEvent& f) {
    Job& job = jobs_[f.job];
    if (job.generation != f.generation || job.phase != Phase::kEvicting) return absl::OkStatus();
    return StopAndConfirm(f.job);
  }

  absl::Status StopAndConfirm(uint32_t j) {
    StopPods(j, /*lost=*/true);
    QM_RETURN_IF_ERROR(engine_.ConfirmEvicted(jobs_[j].handle));
    return HandleEvents(engine_.LastEvents());
  }

  void Requeued(uint32_t j, bool pending) {
    Job& job = jobs_[j];
    if (job.phase != Phase::kEvicting) return;
    ReleaseQuota(j);
    job.phase = Phase::kPending;
    if (pending) ++queues_[job.queue].pending;
  }

  absl::Status FinishJob(const FinishEvent& f) {
    Job& job = jobs_[f.job];
    if (job.generation != f.generation || job.phase != Phase::kRunning) return absl::OkStatus();
    // GPU-hours of completed work: what the job's pods request, over its whole duration.
    const double duration = static_cast<double>(trace_.jobs[f.job].duration.us);
    ForEachPlacedAmount(holdings_[job.holding], [&](uint32_t fr, int64_t amount) {
      if (accelerator_[frs_[fr].second]) completed_gpu_us_ += static_cast<double>(amount) * duration;
    });
    UnlinkRunning(f.job);
    StopPods(f.job, /*lost=*/false);
    ReleaseQuota(f.job);
    job.phase = Phase::kDone;
    GroupAcc& g = groups_[job.group];
    ++g.completed;
    g.completions_us.push_back(now_ - trace_.jobs[f.job].submit.us);
    ++completed_;
    last_finish_us_ = now_;
    progress_us_ = now_;
    QM_RETURN_IF_ERROR(engine_.Finish(job.handle));
    // Deleting the finished workload keeps the engine's memory proportional to live jobs.
    QM_RETURN_IF_ERROR(engine_.Delete(job.handle));
    job_of_slot_[job.handle.index] = kNone;
    if (options_.progress && options_.progress_every > 0 && completed_ % options_.progress_every == 0) {
      options_.progress(SimulationProgress{static_cast<double>(now_) / 1e6, completed_,
                                           static_cast<int64_t>(trace_.jobs.size())});
    }
    return absl::OkStatus();
  }

  absl::Status FailNode(const NodeEvent& e) {
    const size_t n = static_cast<size_t>(e.node);
    if (node_up_[n]) {
      node_up_[n] = false;
      ++nodes_down_;
      ++node_failures_;
      pool_->SetUp(e.node, false);
      ChangeNodeCapacity(e.node, -1);
      const std::vector<uint32_t> victims = jobs_on_node_[n];
      const std::string message = fmt::format("node {} failed", pool_->node(e.node).name);
      for (uint32_t j : victims) {
        if (jobs_[j].phase == Phase::kEvicting) {
          // Preempted, stopping within its grace period: its pods died with the node.
          ++jobs_[j].generation;  // its pending stop is now stale
          QM_RETURN_IF_ERROR(StopAndConfirm(j));
          continue;
        }
        if (jobs_[j].phase != Phase::kRunning) continue;
        QM_RETURN_IF_ERROR(engine_.Evict(jobs_[j].handle, "NodeFailures", message));
        ++fault_evictions_;
        QM_RETURN_IF_ERROR(HandleEvents(engine_.LastEvents()));
      }
      const int64_t repair = e.random ? faults_.repair_time.us : 0;
      if (repair > 0) node_events_.Push(Time{now_ + repair}, NodeEvent{e.node, false, true});
    }
    return absl::OkStatus();
  }

  absl::Status RepairNode(int32_t node) {
    const size_t n = static_cast<size_t>(node);
    if (node_up_[n]) return absl::OkStatus();
    node_up_[n] = true;
    --nodes_down_;
    pool_->SetUp(node, true);
    ChangeNodeCapacity(node, +1);
    ++capacity_epoch_;
    if (faults_.mtbf.us > 0) ScheduleRandomFailure(node, now_);
    return absl::OkStatus();
  }

  // ---- The result ----------------------------------------------------------------------------

  double Factor(uint32_t res) const {
    constexpr int64_t kProbe = int64_t{1} << 30;
    return DisplayAmount(resources_[res], kProbe) / static_cast<double>(kProbe);
  }

  SimulationResult Result() {
    // Jobs still running or waiting at the end (a horizon, or jobs that can never be placed).
    for (uint32_t j = 0; j < jobs_.size(); ++j) {
      if (jobs_[j].phase == Phase::kRunning || jobs_[j].phase == Phase::kAdmitted) StopPods(j, false);
      if (jobs_[j].phase == Phase::kEvicting && jobs_[j].holding != kNone && holdings_[jobs_[j].holding].placed) {
        StopPods(j, true);
      }
    }
    // Jobs never admitted that can never be: the engine's pending reason says they exceed their
    // queue's maximum, or fit no flavor (docs/semantics.md §4.3.9).
    int64_t never_admittable = 0;
    for (const Job& job : jobs_) {
      if (!job.submitted || job.first_admitted_us >= 0) continue;
      const absl::StatusOr<WorkloadStatus> st = engine_.GetWorkload(job.handle);
      if (st.ok() && (st->reason == "ExceedsMaxQuota" || st->reason == "NoMatchingFlavor")) ++never_admittable;
    }
    // Censored waits: a job submitted but never admitted has waited until the end of the run.
    for (uint32_t j = 0; j < jobs_.size(); ++j) {
      const Job& job = jobs_[j];
      if (!job.submitted) continue;
      const int64_t until = job.first_admitted_us >= 0 ? job.first_admitted_us : now_;
      groups_[job.group].waits_all_us.push_back(until - trace_.jobs[j].submit.us);
    }
    SimulationResult r;
    r.label = cluster_.label;
    r.jobs = static_cast<int64_t>(trace_.jobs.size());
    r.admissions = admissions_;
    r.started = started_;
    r.completed = completed_;
    r.never_admittable = never_admittable;
    r.preemptions = preemptions_;
    r.fault_evictions = fault_evictions_;
    r.node_failures = node_failures_;
    r.cycles = cycles_;
    r.instants = instants_;
    r.makespan_s = static_cast<double>(completed_ > 0 ? last_finish_us_ : now_) / 1e6;
    r.avg_jain = demand_us_ > 0 ? jain_us_ / demand_us_ : 1.0;
    r.checkpoints_kept = checkpoints_kept_;
    r.stall_window_s = static_cast<double>(window_us_) / 1e6;
    r.livelock = std::move(livelock_);
    const double run_us = std::max<double>(1.0, static_cast<double>(now_));

    // Groups: per queue (by name), its total row, then its classes by name.
    std::vector<uint32_t> order(groups_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (groups_[a].queue != groups_[b].queue) return queues_[groups_[a].queue].name < queues_[groups_[b].queue].name;
      return groups_[a].priority_class < groups_[b].priority_class;
    });
    std::vector<ResourceHours> totals(quota_resources_);
    for (size_t res = 0; res < quota_resources_; ++res) totals[res].resource = resources_[res];
    std::vector<uint32_t> queue_order(queues_.size());
    for (uint32_t i = 0; i < queue_order.size(); ++i) queue_order[i] = i;
    std::sort(queue_order.begin(), queue_order.end(), [&](uint32_t a, uint32_t b) { return queues_[a].name < queues_[b].name; });
    size_t next = 0;
    for (uint32_t q : queue_order) {
      const QueueInfo& info = queues_[q];
      GroupSummary total;
      total.cluster_queue = info.name;
      total.team = info.team;
      total.resources.resize(quota_resources_);
      for (size_t res = 0; res < quota_resources_; ++res) {
        total.resources[res].resource = resources_[res];
        total.resources[res].borrowed = info.borrowed_us[res] * Factor(static_cast<uint32_t>(res)) / kUsPerHour;
        total.resources[res].lent = info.lent_us[res] * Factor(static_cast<uint32_t>(res)) / kUsPerHour;
      }
      std::vector<int64_t> all_waits, all_waits_censored, all_completions;
      std::vector<GroupSummary> rows;
      for (; next < order.size() && groups_[order[next]].queue == q; ++next) {
        GroupAcc& g = groups_[order[next]];
        GroupSummary row;
        row.cluster_queue = info.name;
        row.team = info.team;
        row.priority_class = g.priority_class;
        row.jobs = g.jobs;
        row.admitted = g.admitted;
        row.started = g.started;
        row.completed = g.completed;
        row.never_admitted = g.jobs - g.admitted;
        row.preemptions = g.preemptions;
        row.evictions = g.evictions;
        row.unplaced_hours = static_cast<double>(g.unplaced_us) / kUsPerHour;
        all_waits.insert(all_waits.end(), g.waits_us.begin(), g.waits_us.end());
        all_waits_censored.insert(all_waits_censored.end(), g.waits_all_us.begin(), g.waits_all_us.end());
        all_completions.insert(all_completions.end(), g.completions_us.begin(), g.completions_us.end());
        row.wait = Summarise(g.waits_us, &row.wait_quantiles);
        row.wait_all = Summarise(g.waits_all_us, &row.wait_all_quantiles);
        row.completion = Summarise(g.completions_us, nullptr);
        row.resources.resize(quota_resources_);
        for (size_t res = 0; res < quota_resources_; ++res) {
          const double f = Factor(static_cast<uint32_t>(res)) / kUsPerHour;
          row.resources[res].resource = resources_[res];
          row.resources[res].used = g.used_us[res] * f;
          row.resources[res].goodput_lost = g.goodput_lost_us[res] * f;
          total.resources[res].used += row.resources[res].used;
          total.resources[res].goodput_lost += row.resources[res].goodput_lost;
        }
        total.jobs += row.jobs;
        total.admitted += row.admitted;
        total.started += row.started;
        total.completed += row.completed;
        total.never_admitted += row.never_admitted;
        total.preemptions += row.preemptions;
        total.evictions += row.evictions;
        total.unplaced_hours += row.unplaced_hours;
        rows.push_back(std::move(row));
      }
      total.wait = Summarise(all_waits, &total.wait_quantiles);
      total.wait_all = Summarise(all_waits_censored, &total.wait_all_quantiles);
      total.completion = Summarise(all_completions, nullptr);
      for (size_t res = 0; res < quota_resources_; ++res) {
        totals[res].used += total.resources[res].used;
        totals[res].borrowed += total.resources[res].borrowed;
        totals[res].lent += total.resources[res].lent;
        totals[res].goodput_lost += total.resources[res].goodput_lost;
      }
      r.admitted += total.admitted;
      r.never_admitted += total.never_admitted;
      r.unplaced_hours += total.unplaced_hours;
      r.groups.push_back(std::move(total));
      for (GroupSummary& row : rows) r.groups.push_back(std::move(row));
    }
    r.totals = std::move(totals);
    r.gpu_hours_completed = completed_gpu_us_ / kUsPerHour;
    for (const ResourceHours& h : r.totals) {
      if (IsAcceleratorResource(h.resource)) r.gpu_hours_lost += h.goodput_lost;
    }
    // Ratios: +∞ when there is something to divide but no completion, 0 when there is nothing.
    auto ratio = [](double num, double den) {
      if (den > 0) return num / den;
      return num > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    };
    r.preemptions_per_completed_job = ratio(static_cast<double>(preemptions_), static_cast<double>(completed_));
    r.gpu_hours_lost_per_completed = ratio(r.gpu_hours_lost, r.gpu_hours_completed);

    std::vector<uint32_t> fr_order(frs_.size());
    for (uint32_t i = 0; i < fr_order.size(); ++i) fr_order[i] = i;
    std::sort(fr_order.begin(), fr_order.end(), [&](uint32_t a, uint32_t b) {
      if (flavors_[frs_[a].first] != flavors_[frs_[b].first]) return flavors_[frs_[a].first] < flavors_[frs_[b].first];
      return resources_[frs_[a].second] < resources_[frs_[b].second];
    });
    for (uint32_t fr : fr_order) {
      const uint32_t res = frs_[fr].second;
      const double f = Factor(res);
      FlavorUtilization u;
      u.flavor = flavors_[frs_[fr].first];
      u.resource = resources_[res];
      u.capacity = fr_capacity_us_[fr] / run_us * f;
      u.nominal = static_cast<double>(fr_nominal_[fr]) * f;
      u.avg_used = fr_used_us_[fr] / run_us * f;
      u.avg_admitted = fr_admitted_us_[fr] / run_us * f;
      if (pool_.has_value()) {
        u.utilization = u.capacity > 0 ? u.avg_used / u.capacity : 0;
      } else {
        u.utilization = u.nominal > 0 ? u.avg_admitted / u.nominal : 0;
      }
      r.utilization.push_back(std::move(u));
    }
    FillSeries(r, queue_order);
    r.preemption_log = std::move(preemption_log_);
    r.preemption_log_dropped = preemption_log_dropped_;
    FillPreemptionCounts(r);
    return r;
  }

  // The complete counters, by (victim queue, reason, preemptor queue) and by (victim, reason),
  // sorted by names ("" first: evictions).
  void FillPreemptionCounts(SimulationResult& r) const {
    for (const auto& [key, n] : preemption_counts_) {
      const auto& [victim, reason, by] = key;
      r.preemption_counts.push_back({queues_[victim].name, reasons_[reason], QueueName(by), n});
    }
    std::sort(r.preemption_counts.begin(), r.preemption_counts.end(), [](const PreemptionCount& a, const PreemptionCount& b) {
      return std::tie(a.cluster_queue, a.reason, a.preemptor_queue) < std::tie(b.cluster_queue, b.reason, b.preemptor_queue);
    });
    for (const PreemptionCount& c : r.preemption_counts) {
      if (!r.preemptions_by_reason.empty() && r.preemptions_by_reason.back().cluster_queue == c.cluster_queue &&
          r.preemptions_by_reason.back().reason == c.reason) {
        r.preemptions_by_reason.back().count += c.count;
      } else {
        r.preemptions_by_reason.push_back({c.cluster_queue, c.reason, c.count});
      }
    }
  }

  void FillSeries(SimulationResult& r, const std::vector<uint32_t>& queue_order) {
    const internal::TimeBuckets::Rebinned b = buckets_->Rebin(std::max<int64_t>(now_, 1));
    TimeSeries& s = r.series;
    const int nq = static_cast<int>(queues_.size());
    const size_t nb = static_cast<size_t>(b.buckets);
    s.bucket_seconds = static_cast<double>(b.width_us) / 1e6;
    for (size_t i = 0; i < nb; ++i) s.start_s.push_back(static_cast<double>(b.width_us) * static_cast<double>(i) / 1e6);
    for (uint32_t q : queue_order) s.queues.push_back(queues_[q].name);
    auto avg = [&](int series) {
      std::vector<double> v(nb);
      for (size_t i = 0; i < nb; ++i) v[i] = b.covered_us[i] > 0 ? b.sums[static_cast<size_t>(series)][i] / b.covered_us[i] : 0;
      return v;
    };
    for (size_t res = 0; res < quota_resources_; ++res) {
      const double f = Factor(static_cast<uint32_t>(res));
      s.resources.push_back(resources_[res]);
      std::vector<std::vector<double>> per_queue;
      for (uint32_t q : queue_order) {
        std::vector<double> v = avg(s_used_ + static_cast<int>(res) * nq + static_cast<int>(q));
        for (double& x : v) x *= f;
        per_queue.push_back(std::move(v));
      }
      s.used.push_back(std::move(per_queue));
      std::vector<double> cap = avg(s_capacity_ + static_cast<int>(res));
      for (double& x : cap) x *= f;
      s.capacity.push_back(std::move(cap));
    }
    for (uint32_t q : queue_order) {
      s.pending.push_back(avg(s_pending_ + static_cast<int>(q)));
      s.share.push_back(avg(s_share_ + static_cast<int>(q)));
      std::vector<int64_t> counts(nb);
      for (size_t i = 0; i < nb; ++i) counts[i] = std::llround(b.sums[static_cast<size_t>(s_preempt_ + static_cast<int>(q))][i]);
      s.preemptions.push_back(std::move(counts));
    }
    s.jain = avg(s_jain_);
    std::vector<size_t> pair_order(pairs_.size());
    for (size_t i = 0; i < pair_order.size(); ++i) pair_order[i] = i;
    std::sort(pair_order.begin(), pair_order.end(), [&](size_t x, size_t y) {
      return std::make_pair(QueueName(pairs_[x].first), queues_[pairs_[x].second].name) <
             std::make_pair(QueueName(pairs_[y].first), queues_[pairs_[y].second].name);
    });
    for (size_t i : pair_order) {
      TimeSeries::PairSeries p;
      p.preemptor_queue = QueueName(pairs_[i].first);
      p.cluster_queue = queues_[pairs_[i].second].name;
      const int series = pair_series_.at(pairs_[i]);
      p.counts.resize(nb);
      for (size_t k = 0; k < nb; ++k) p.counts[k] = std::llround(b.sums[static_cast<size_t>(series)][k]);
      s.pair_preemptions.push_back(std::move(p));
    }
  }

  const SimulationInput& cluster_;
  const Trace& trace_;
  const FaultPlan& faults_;
  const SimulationOptions& options_;

  Engine engine_;
  std::optional<NodePool> pool_;
  std::vector<ResourceFlavorSpec> flavor_specs_;

  // Names and indices.
  std::vector<std::string> resources_;
  absl::flat_hash_map<std::string, uint32_t> resource_index_;
  size_t quota_resources_ = 0;  // resources [0, quota_resources_) appear in some quota
  std::vector<std::string> flavors_;
  absl::flat_hash_map<std::string, uint32_t> flavor_index_;
  std::vector<QueueInfo> queues_;
  absl::flat_hash_map<std::string, uint32_t> queue_index_;
  absl::flat_hash_map<std::string, std::string> local_queues_;  // "ns/name" → ClusterQueue
  absl::flat_hash_map<std::string, std::vector<std::string>> queues_of_namespace_;
  absl::flat_hash_map<std::string, bool> workload_classes_;
  absl::flat_hash_map<std::string, bool> pod_classes_;
  std::vector<PriorityClassRef> class_ref_;    // [trace string id]
  std::vector<uint32_t> resource_of_string_;   // [trace string id] → resource
  std::vector<uint32_t> engine_resource_;      // [engine ResourceId] → resource
  std::vector<uint32_t> engine_flavor_;        // [engine FlavorId] → flavor

  // Quota accounting.
  std::vector<Triple> triples_;
  absl::flat_hash_map<uint64_t, uint32_t> triple_index_;
  std::vector<Pool> pools_;
  std::vector<std::pair<uint32_t, uint32_t>> frs_;  // (flavor, resource)
  absl::flat_hash_map<uint64_t, uint32_t> fr_index_;
  std::vector<int64_t> fr_nominal_;
  std::vector<double> fr_admitted_us_;
  std::vector<double> fr_used_us_;
  std::vector<int64_t> fr_capacity_;
  std::vector<double> fr_capacity_us_;
  std::vector<int64_t> capacity_;       // [resource] Σ allocatable of up nodes
  std::vector<int64_t> total_nominal_;  // [resource]

  // Jobs.
  std::vector<Job> jobs_;
  std::vector<Target> targets_;
  std::vector<uint32_t> job_target_;
  std::vector<GroupAcc> groups_;
  std::vector<uint32_t> job_of_slot_;  // [engine workload slot] → job
  std::vector<Holding> holdings_;
  std::vector<uint32_t> free_holdings_;
  std::vector<uint32_t> waiting_;      // admitted, not placed, in admission order
  std::vector<uint32_t> to_confirm_;
  std::vector<std::vector<uint32_t>> jobs_on_node_;
  std::vector<bool> node_up_;
  std::vector<bool> accelerator_;  // [resource] counted in GPU-hours
  uint64_t capacity_epoch_ = 0;
  int64_t nodes_down_ = 0;
  WorkloadSpec spec_;  // reused for every submission

  // Time.
  int64_t now_ = 0;
  size_t next_submit_ = 0;
  EventQueue<FinishEvent> finishes_;
  EventQueue<FinishEvent> confirms_;  // preempted jobs whose pods stop at the end of their grace period
  EventQueue<FinishEvent> readies_;   // placed jobs whose pods finish starting (pod start-up)
  std::vector<int64_t> startup_of_flavor_;  // pod start-up (µs) by flavor index
  bool report_ready_ = false;  // waitForPodsReady: tell the engine when pods are ready
  EventQueue<NodeEvent> node_events_;
  std::vector<SplitMix64> rngs_;

  // Figures.
  std::optional<internal::TimeBuckets> buckets_;
  int s_used_ = 0, s_capacity_ = 0, s_pending_ = 0, s_share_ = 0, s_preempt_ = 0, s_jain_ = 0;
  double demand_us_ = 0;
  double jain_us_ = 0;
  int64_t admissions_ = 0;
  int64_t completed_ = 0;
  int64_t preemptions_ = 0;
  int64_t fault_evictions_ = 0;
  int64_t node_failures_ = 0;
  int64_t cycles_ = 0;
  int64_t instants_ = 0;
  int64_t last_finish_us_ = 0;
  int64_t started_ = 0;
  int64_t checkpoints_kept_ = 0;
  double completed_gpu_us_ = 0;
  std::vector<PreemptionRecord> preemption_log_;
  int64_t preemption_log_dropped_ = 0;
  // Complete counters: (victim queue, reason, preemptor queue or kNone) → preemptions; for lookup
  // only, sorted by name when the result is built.
  absl::flat_hash_map<std::tuple<uint32_t, uint32_t, uint32_t>, int64_t> preemption_counts_;
  std::vector<std::string> reasons_;  // reason ids, in first-seen order
  // (preemptor queue, victim queue) → its series in `buckets_`; `pairs_` in creation order.
  absl::flat_hash_map<std::pair<uint32_t, uint32_t>, int> pair_series_;
  std::vector<std::pair<uint32_t, uint32_t>> pairs_;

  // The no-progress detector (StalledAt).
  int64_t window_us_ = 0;
  int64_t progress_us_ = 0;  // the last progress instant (the trace start counts as one)
  // The latest first-of-two interruptions of one job (condition 4 holds while it is in the window).
  int64_t repeated_since_us_ = kNever;
  uint32_t running_head_ = kNone;  // running jobs, oldest start first
  uint32_t running_tail_ = kNone;
  std::vector<FirstSave> first_saves_;  // heap; entries of ended attempts are dropped lazily
  Ring<Interruption> recent_;           // preemptions and evictions of the last window
  bool instant_loop_ = false;
  Livelock livelock_;
};

}  // namespace

absl::StatusOr<SimulationResult> Simulate(const SimulationInput& cluster, const Trace& trace,
                                          const FaultPlan& faults, const SimulationOptions& options) {
  Simulation sim(cluster, trace, faults, options);
  return sim.Run();
}

}  // namespace qm::sim
