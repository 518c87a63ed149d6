// Setting up a simulation (simulation.h): the options checked, the engine created with the
// cluster's objects, and those objects numbered densely (resources, flavors, ClusterQueues, quota
// triples and the cohort pools they lend to), in name order so that no figure depends on the order
// of the files.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/model/namespace_name.h"
#include "sim/simulation.h"

namespace qm::sim::internal {
namespace {

// The HyperPod team of a ClusterQueue named `hyperpod-ns-<team>-clusterqueue`; "" for any other.
std::string TeamOf(std::string_view cluster_queue) {
  constexpr std::string_view kPrefix = "hyperpod-ns-";
  constexpr std::string_view kSuffix = "-clusterqueue";
  if (cluster_queue.size() > kPrefix.size() + kSuffix.size() && cluster_queue.starts_with(kPrefix) &&
      cluster_queue.ends_with(kSuffix)) {
    return std::string(cluster_queue.substr(kPrefix.size(), cluster_queue.size() - kPrefix.size() - kSuffix.size()));
  }
  return "";
}

}  // namespace

// Checks the options, creates the engine with the cluster's objects, and builds every index,
// node and fault the run needs; nothing is simulated yet.
absl::Status Simulation::Setup() {
  if (options_.window_start.us < 0 || options_.window_end.us < 0 ||
      (options_.window_end.us > 0 && options_.window_end.us <= options_.window_start.us)) {
    return absl::InvalidArgumentError("metrics window: must be START..END with 0 <= START < END (END 0: the end of the run)");
  }
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
  CheckNodeFit();
  QM_RETURN_IF_ERROR(PlanFaults());
  BuildSeries();
  return absl::OkStatus();
}

// The index of resource `name`, added at the end when new.
uint32_t Simulation::ResourceIndex(std::string_view name) {
  auto [it, inserted] = resource_index_.try_emplace(std::string(name), static_cast<uint32_t>(resources_.size()));
  if (inserted) resources_.emplace_back(name);
  return it->second;
}

// Queues, flavors, quotas, cohorts, LocalQueues and priority classes from the cluster's objects.
void Simulation::CollectObjects() {
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
  absl::flat_hash_map<std::string, uint32_t> root_index;
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
    queues_[q].root = root_index.try_emplace(root, static_cast<uint32_t>(root_index.size())).first->second;
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

// The index of a (flavor, resource) pair, with its figures, added when new.
uint32_t Simulation::FrIndex(uint32_t flavor, uint32_t resource) {
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

}  // namespace qm::sim::internal
