// Core/v1 Node objects and the HyperPodCluster inventory in manifests (Manifest::nodes,
// Manifest::inventory): read for the simulator, never applied to the engine.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "qm/io/manifest.h"

namespace qm {
namespace manifest_nodes_test {
namespace {

Manifest Read(const std::string& yaml) {
  absl::StatusOr<Manifest> m = ReadManifestString(yaml, "nodes.yaml");
  if (!m.ok()) FAIL(m.status().message());
  return std::move(*m);
}

std::string ErrorOf(const std::string& yaml) {
  const absl::StatusOr<Manifest> m = ReadManifestString(yaml, "nodes.yaml");
  if (m.ok()) return "<no error>";
  CHECK(m.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(m.status().message());
}

// A Node as `kubectl get node -o yaml` shows it (trimmed), lines 1-24.
constexpr const char* kGpuNode = R"(apiVersion: v1
kind: Node
metadata:
  name: gpu-7
  labels:
    zone: us-east-1a
    node.kubernetes.io/instance-type: p4d.24xlarge
spec:
  unschedulable: true
  taints:
  - key: nvidia.com/gpu
    value: present
    effect: NoSchedule
  - key: spot
    effect: PreferNoSchedule
status:
  capacity:
    cpu: "96"
    nvidia.com/gpu: "8"
  allocatable:
    cpu: 95500m
    memory: 1119Gi
    nvidia.com/gpu: "8"
    pods: "110"
)";

TEST_CASE("Manifest: Node objects are read for the simulator", "[io][manifest][node]") {
  SECTION("name, labels, taints, cordon and allocatable") {
    // Expect: labels and allocatable sorted; cpu in millicores, memory in bytes; no note (Node is
    // read, not skipped); no engine object.
    const Manifest m = Read(kGpuNode);
    CHECK(m.objects.empty());
    CHECK(m.notes.empty());
    REQUIRE(m.nodes.size() == 1);
    const NodeSpec& n = m.nodes[0];
    CHECK(n.name == "gpu-7");
    CHECK(n.source == "nodes.yaml:1");
    CHECK(n.labels == Labels{{"node.kubernetes.io/instance-type", "p4d.24xlarge"}, {"zone", "us-east-1a"}});
    CHECK(n.unschedulable);
    REQUIRE(n.taints.size() == 2);
    CHECK(n.taints[0].key == "nvidia.com/gpu");
    CHECK(n.taints[0].value == "present");
    CHECK(n.taints[0].effect == TaintEffect::kNoSchedule);
    CHECK(n.taints[1].key == "spot");
    CHECK(n.taints[1].effect == TaintEffect::kPreferNoSchedule);
    CHECK(n.allocatable == std::vector<std::pair<std::string, int64_t>>{
                               {"cpu", 95'500},
                               {"memory", int64_t{1119} << 30},
                               {"nvidia.com/gpu", 8},
                               {"pods", 110}});
  }
  SECTION("capacity stands in for a missing allocatable; apiVersion may be omitted") {
    const Manifest m = Read(R"(
- kind: Node
  metadata: {name: cpu-1}
  status: {capacity: {cpu: "4", memory: 16Gi}}
- apiVersion: v1
  kind: Node
  metadata: {name: cpu-0}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ResourceFlavor
  metadata: {name: default}
)");
    REQUIRE(m.objects.size() == 1);
    REQUIRE(m.nodes.size() == 2);
    CHECK(m.nodes[0].name == "cpu-1");  // file order; placement sorts by name
    CHECK(m.nodes[0].source == "nodes.yaml:2");
    CHECK(m.nodes[0].allocatable ==
          std::vector<std::pair<std::string, int64_t>>{{"cpu", 4000}, {"memory", int64_t{16} << 30}});
    CHECK(m.nodes[1].allocatable.empty());
    CHECK_FALSE(m.nodes[1].unschedulable);
  }
  SECTION("other API versions of a kind named Node are foreign, and skipped with a note") {
    const Manifest m = Read("apiVersion: example.com/v1\nkind: Node\nmetadata: {name: x}\n");
    CHECK(m.nodes.empty());
    CHECK(m.notes.size() == 1);
  }
  SECTION("a HyperPodCluster's inventory is exposed") {
    const Manifest m = Read(R"(kind: HyperPodCluster
metadata: {name: prod}
instances: {ml.p5.48xlarge: 2, ml.g5.8xlarge: 4}
)");
    REQUIRE(m.inventory.has_value());
    CHECK(m.inventory->name == "prod");
    CHECK(m.inventory->instances ==
          std::vector<std::pair<std::string, int64_t>>{{"ml.g5.8xlarge", 4}, {"ml.p5.48xlarge", 2}});
    CHECK(Read(kGpuNode).inventory == std::nullopt);
  }
}

TEST_CASE("Manifest error: bad Node fields name the file, line, node and field", "[io][manifest][node][errors]") {
  CHECK(ErrorOf("kind: Node\nmetadata: {name: n-1}\nstatus:\n  allocatable:\n    cpu: 4x\n") ==
        "nodes.yaml:5: Node/n-1: status.allocatable[cpu]: \"4x\" is not a quantity");
  CHECK(ErrorOf("kind: Node\nmetadata: {name: n-1}\nstatus:\n  allocatable:\n    memory: -1Gi\n") ==
        "nodes.yaml:5: Node/n-1: status.allocatable[memory]: \"-1Gi\" must not be negative");
  CHECK(ErrorOf("kind: Node\nmetadata: {name: n-1}\nstatus:\n  capacity:\n    cpu: ~\n") ==
        "nodes.yaml:5: Node/n-1: status.capacity[cpu]: a quantity is required");
  CHECK(ErrorOf("kind: Node\nmetadata: {name: n-1}\nspec:\n  taints:\n  - key: k\n    effect: Sometimes\n") ==
        "nodes.yaml:6: Node/n-1: spec.taints[0].effect: \"Sometimes\" is not one of NoSchedule, "
        "PreferNoSchedule, NoExecute");
  CHECK(ErrorOf("kind: Node\nmetadata: {name: n-1}\nspec:\n  taints:\n  - key: k\n") ==
        "nodes.yaml:5: Node/n-1: spec.taints[0].effect: is required");
  CHECK(ErrorOf("kind: Node\nmetadata: {name: n-1}\nspec:\n  unschedulable: maybe\n") ==
        "nodes.yaml:4: Node/n-1: spec.unschedulable: \"maybe\" is not a boolean (true or false)");
  CHECK(ErrorOf("kind: Node\nmetadata: {labels: {a: b}}\n") ==
        "nodes.yaml:2: Node: metadata.name: is required");
  CHECK(ErrorOf("- {kind: Node, metadata: {name: n-1}}\n- {kind: Node, metadata: {name: n-2}}\n"
                "- {kind: Node, metadata: {name: n-1}}\n") ==
        "nodes.yaml:3: Node/n-1: duplicate object (first defined at nodes.yaml:1)");
}

}  // namespace
}  // namespace manifest_nodes_test
}  // namespace qm
