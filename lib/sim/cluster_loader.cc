// Reading the cluster a simulation runs on (simulator.h `LoadCluster`): queueing objects from a
// Kueue manifest or HyperPod policies, and nodes from `Node` objects or a `HyperPodCluster`.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/io/manifest.h"
#include "qm/sim/placement.h"
#include "qm/sim/simulator.h"

namespace qm::sim {
namespace {

absl::StatusOr<SimulationInput> FromManifest(Manifest manifest, std::string_view label) {
  SimulationInput input;
  input.label = std::string(label);
  if (manifest.fair_sharing) input.config.fair_sharing = *manifest.fair_sharing;
  if (manifest.message_style) input.config.message_style = *manifest.message_style;
  if (manifest.features) input.config.features = *manifest.features;
  input.config.anti_thrash = manifest.anti_thrash;
  input.config.refill = manifest.refill;
  input.config.wait_for_pods_ready = manifest.wait_for_pods_ready;
  input.objects.reserve(manifest.objects.size());
  for (ManifestObject& o : manifest.objects) input.objects.push_back(std::move(o.spec));
  input.nodes = std::move(manifest.nodes);
  if (manifest.inventory.has_value()) {
    if (!input.nodes.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: HyperPodCluster/{}: the cluster has both Node objects and a HyperPodCluster inventory; "
          "give one of them",
          manifest.inventory->source, manifest.inventory->name));
    }
    absl::StatusOr<std::vector<NodeSpec>> nodes = NodesFromInventory(manifest.inventory->instances);
    if (!nodes.ok()) {
      return absl::InvalidArgumentError(fmt::format("{}: HyperPodCluster/{}: {}", manifest.inventory->source,
                                                    manifest.inventory->name, std::string(nodes.status().message())));
    }
    input.nodes = *std::move(nodes);
  }
  return input;
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

absl::StatusOr<SimulationInput> LoadCluster(const std::string& path) {
  QM_ASSIGN_OR_RETURN(Manifest manifest, ReadManifestFile(path));
  return FromManifest(std::move(manifest), BaseName(path));
}

absl::StatusOr<SimulationInput> LoadCluster(std::span<const std::string> paths) {
  if (paths.size() == 1) return LoadCluster(paths.front());
  if (paths.empty()) return absl::InvalidArgumentError("no cluster file");
  Manifest merged;
  std::string label;
  for (const std::string& path : paths) {
    QM_ASSIGN_OR_RETURN(Manifest m, ReadManifestFile(path));
    label += (label.empty() ? "" : "+") + std::string(BaseName(path));
    for (ManifestObject& o : m.objects) merged.objects.push_back(std::move(o));
    for (NodeSpec& n : m.nodes) merged.nodes.push_back(std::move(n));
    if (m.inventory) {
      if (merged.inventory) {
        return absl::InvalidArgumentError(fmt::format("{}: HyperPodCluster/{}: a second inventory (the first is at {})",
                                                      m.inventory->source, m.inventory->name, merged.inventory->source));
      }
      merged.inventory = std::move(m.inventory);
    }
    if (!m.configuration_source.empty()) {
      if (!merged.configuration_source.empty()) {
        return absl::InvalidArgumentError(fmt::format("{}: Configuration: a second Configuration (the first is at {})",
                                                      m.configuration_source, merged.configuration_source));
      }
      merged.configuration_source = m.configuration_source;
      merged.features = m.features;
      merged.anti_thrash = std::move(m.anti_thrash);
      merged.refill = m.refill;
      merged.wait_for_pods_ready = m.wait_for_pods_ready;
    }
    if (m.fair_sharing) {
      if (merged.fair_sharing && merged.fair_sharing->enabled != m.fair_sharing->enabled) {
        return absl::InvalidArgumentError(
            fmt::format("{}: fair sharing is {} there and {} in an earlier file of the cluster", path,
                        m.fair_sharing->enabled ? "on" : "off", merged.fair_sharing->enabled ? "on" : "off"));
      }
      if (!merged.fair_sharing || !m.configuration_source.empty()) merged.fair_sharing = m.fair_sharing;
    }
    if (m.message_style) merged.message_style = m.message_style;
  }
  return FromManifest(std::move(merged), label);
}

absl::StatusOr<SimulationInput> LoadClusterString(std::string_view yaml, std::string_view source_name) {
  QM_ASSIGN_OR_RETURN(Manifest manifest, ReadManifestString(yaml, source_name));
  return FromManifest(std::move(manifest), BaseName(source_name));
}

}  // namespace qm::sim
