// A host loop on the engine alone (`quartermaster::engine`, no YAML): a toy cluster of GPU nodes
// runs jobs that the engine admits, stops the pods of the jobs it preempts and confirms them, and
// when a node fails evicts what ran there and takes the node's GPUs out of the quota.
//
// Two teams share 8 GPUs (two 4-GPU nodes) in one cohort. team-a's long training job borrows
// team-b's idle GPUs; team-b then reclaims them (the most recently admitted job is preempted);
// node-1 fails and its job is evicted and requeued, with no quota left to run on.
// The program prints the event stream and exits non-zero if it is not the one below.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"

namespace {

// The host's view: which node runs which job, GPUs per node.
struct Cluster {
  std::map<std::string, int> free_gpus = {{"node-1", 4}, {"node-2", 4}};
  std::map<uint64_t, std::string> node_of;  // WorkloadHandle::Pack() → node
};

qm::ClusterQueueSpec Team(const std::string& name, int64_t gpus) {
  qm::ClusterQueueSpec cq;
  cq.name = name;
  cq.cohort = "gpus";
  cq.namespace_selector = qm::LabelSelector{};
  cq.preemption.reclaim_within_cohort = qm::ReclaimWithinCohortPolicy::kAny;
  cq.resource_groups.push_back(
      qm::ResourceGroupSpec{{"nvidia.com/gpu"}, {qm::FlavorQuotasSpec{"a100", {qm::ResourceQuotaSpec{"nvidia.com/gpu", gpus, {}, {}}}}}});
  return cq;
}

qm::WorkloadSpec Job(const std::string& ns, const std::string& name, int32_t gpus) {
  qm::WorkloadSpec w;
  w.namespace_ = ns;
  w.name = name;
  w.queue_name = "jobs";
  qm::PodSetSpec ps;
  ps.name = "main";
  ps.count = 1;
  ps.requests = {{"nvidia.com/gpu", gpus}};
  w.pod_sets.push_back(ps);
  return w;
}

qm::LocalQueueSpec Queue(const std::string& ns, const std::string& cq) {
  qm::LocalQueueSpec lq;
  lq.namespace_ = ns;
  lq.name = "jobs";
  lq.cluster_queue = cq;
  return lq;
}

}  // namespace

int main() {
  std::vector<std::string> log;
  absl::StatusOr<qm::Engine> created = qm::Engine::Create(qm::EngineConfig{});
  if (!created.ok()) return 2;
  qm::Engine& engine = *created;
  const std::vector<qm::ObjectSpec> objects = {
      qm::NamespaceSpec{"team-a", {}}, qm::NamespaceSpec{"team-b", {}},
      qm::ResourceFlavorSpec{"a100", {}, {}, {}}, Team("team-a", 4), Team("team-b", 4),
      Queue("team-a", "team-a"), Queue("team-b", "team-b")};
  if (absl::Status st = engine.Apply(objects); !st.ok()) {
    std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
    return 2;
  }

  Cluster cluster;
  // The host acts on every event: place admitted pods, stop evicted ones and confirm at once.
  std::vector<qm::WorkloadHandle> to_confirm;
  auto act = [&](std::span<const qm::Event> events) {
    for (const qm::Event& e : events) {
      std::string line = std::string(qm::EventKindName(e.kind)) + " " + engine.WorkloadName(e.workload);
      switch (e.kind) {
        case qm::EventKind::kAdmitted: {
          const int gpus = static_cast<int>(engine.GetWorkload(e.workload)->admission->pod_sets[0].usage[0].second);
          for (auto& [node, free] : cluster.free_gpus) {
            if (free < gpus) continue;
            free -= gpus;
            cluster.node_of[e.workload.Pack()] = node;
            line += " on " + node;
            break;
          }
          break;
        }
        case qm::EventKind::kPreempted:
        case qm::EventKind::kEvicted: {
          line += std::string(" (") + e.reason + ")";
          auto it = cluster.node_of.find(e.workload.Pack());
          if (it != cluster.node_of.end()) {
            const int gpus = static_cast<int>(engine.GetWorkload(e.workload)->admission->pod_sets[0].usage[0].second);
            if (cluster.free_gpus.count(it->second)) cluster.free_gpus[it->second] += gpus;
            cluster.node_of.erase(it);
          }
          to_confirm.push_back(e.workload);  // confirmed after the call: not from the callback
          break;
        }
        default:
          break;
      }
      log.push_back(line);
    }
  };
  if (!engine.SetEventCallback(act).ok()) return 1;
  auto settle = [&] {
    engine.RunUntilStable();
    while (!to_confirm.empty()) {
      std::vector<qm::WorkloadHandle> now;
      now.swap(to_confirm);
      for (qm::WorkloadHandle w : now)
        if (!engine.ConfirmEvicted(w).ok()) log.push_back("confirm failed");
      engine.RunUntilStable();
    }
  };

  // team-a trains on 8 GPUs, the second job a minute later on 4 GPUs borrowed from idle team-b.
  if (!engine.Submit(Job("team-a", "train", 4)).ok()) return 2;
  settle();
  if (!engine.SetNow(engine.Now() + qm::Duration::Seconds(60)).ok()) return 2;
  if (!engine.Submit(Job("team-a", "train-2", 4)).ok()) return 2;
  settle();
  // team-b needs its GPUs back: the borrowed ones are reclaimed.
  if (!engine.Submit(Job("team-b", "eval", 4)).ok()) return 2;
  settle();
  // node-1 fails: evict what ran there, and take its 4 GPUs out of team-a's quota.
  cluster.free_gpus.erase("node-1");
  for (const auto& [packed, node] : std::map<uint64_t, std::string>(cluster.node_of))
    if (node == "node-1") (void)engine.Evict(qm::WorkloadHandle::Unpack(packed), "NodeFailures", "node-1 failed");
  (void)engine.Apply(Team("team-a", 0));
  settle();

  const std::vector<std::string> want = {
      "Admitted team-a/train on node-1",
      "Admitted team-a/train-2 on node-2",
      "Preempted team-a/train-2 (Preempted)",
      "Requeued team-a/train-2",
      "Admitted team-b/eval on node-2",
      "Evicted team-a/train (NodeFailures)",
      "Requeued team-a/train",
  };
  for (const std::string& line : log) std::printf("%s\n", line.c_str());
  if (log != want) {
    std::printf("unexpected event stream; expected:\n");
    for (const std::string& line : want) std::printf("  %s\n", line.c_str());
    return 1;
  }
  return 0;
}
