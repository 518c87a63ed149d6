// A consumer of the quartermaster package, using only the public API: one flavor, one ClusterQueue
// with 4 CPUs, one LocalQueue, one workload asking for 2 CPUs. One scheduling cycle must admit it.
// Built by the package tests (find_package, pkg-config, add_subdirectory); exits non-zero on failure.
// It uses only the Engine API, so the engine-only consumer (tests/package/engine/, linking just
// quartermaster::engine) builds it too: keep it to qm/adapter/ and qm/core/ headers.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "qm/adapter/engine.h"
#include "qm/core/quantity.h"

namespace {

int Fail(const std::string& what, const absl::Status& status = absl::OkStatus()) {
  std::fprintf(stderr, "package consumer: %s %s\n", what.c_str(), status.ToString().c_str());
  return 1;
}

}  // namespace

int main() {
  qm::Engine engine;

  qm::ResourceFlavorSpec flavor;
  flavor.name = "default-flavor";

  qm::ResourceQuotaSpec cpu_quota;
  cpu_quota.name = "cpu";
  cpu_quota.nominal_quota = 4000;  // milli-CPU: 4 CPUs
  qm::FlavorQuotasSpec flavor_quotas;
  flavor_quotas.name = flavor.name;
  flavor_quotas.resources = {cpu_quota};
  qm::ResourceGroupSpec group;
  group.covered_resources = {"cpu"};
  group.flavors = {flavor_quotas};
  qm::ClusterQueueSpec cluster_queue;
  cluster_queue.name = "team-a";
  cluster_queue.namespace_selector = qm::LabelSelector{};  // every namespace
  cluster_queue.resource_groups = {group};

  qm::LocalQueueSpec local_queue;
  local_queue.namespace_ = "default";
  local_queue.name = "team-a-queue";
  local_queue.cluster_queue = cluster_queue.name;

  qm::NamespaceSpec ns;
  ns.name = "default";

  for (const qm::ObjectSpec& object :
       {qm::ObjectSpec{ns}, qm::ObjectSpec{flavor}, qm::ObjectSpec{cluster_queue},
        qm::ObjectSpec{local_queue}}) {
    if (absl::Status s = engine.Apply(object); !s.ok()) return Fail("Apply failed:", s);
  }

  qm::PodSetSpec pods;
  pods.count = 1;
  pods.requests = {{"cpu", 2 * 1000}};
  static_assert(qm::UnitForResource("cpu") == qm::Unit::kMilli);
  qm::WorkloadSpec workload;
  workload.namespace_ = "default";
  workload.name = "job-1";
  workload.queue_name = local_queue.name;
  workload.pod_sets = {pods};
  if (auto id = engine.Submit(workload); !id.ok()) return Fail("Submit failed:", id.status());

  const qm::CycleResult& result = engine.ScheduleCycle();
  if (result.admitted != 1) {
    return Fail("expected 1 admitted workload, got " + std::to_string(result.admitted));
  }
  auto status = engine.GetWorkload("default", "job-1");
  if (!status.ok()) return Fail("GetWorkload failed:", status.status());
  if (status->state != qm::WorkloadState::kAdmitted || status->cluster_queue != "team-a") {
    return Fail(std::string("job-1 is ") + qm::WorkloadStateName(status->state) + " in '" +
                status->cluster_queue + "'");
  }
  std::printf("package consumer: admitted default/job-1 in team-a\n");
  return 0;
}
