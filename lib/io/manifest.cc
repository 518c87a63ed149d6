#include "qm/io/manifest.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>

#include "fmt/format.h"
#include "io/hyperpod_expand.h"
#include "io/object_reader.h"
#include "io/yaml_cursor.h"
#include "qm/core/status.h"
#include "qm/model/namespace_name.h"
#include "text/yaml_load.h"

namespace qm {
namespace {

// The first node whose name an earlier node has, with both places.
absl::Status CheckDuplicateNodes(const std::vector<NodeSpec>& nodes) {
  std::vector<std::pair<std::string_view, size_t>> names;
  names.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) names.emplace_back(nodes[i].name, i);
  std::sort(names.begin(), names.end());
  size_t worst = nodes.size();
  size_t first = 0;
  for (size_t i = 1; i < names.size(); ++i) {
    if (names[i].first == names[i - 1].first && names[i].second < worst) {
      worst = names[i].second;
      first = names[i - 1].second;
    }
  }
  if (worst == nodes.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(fmt::format("{}: Node/{}: duplicate object (first defined at {})",
                                                nodes[worst].source, nodes[worst].name,
                                                nodes[first].source));
}

}  // namespace

absl::StatusOr<Manifest> ReadManifestString(std::string_view yaml, std::string_view source_name) {
  internal::LoadContext ctx{std::string(source_name)};
  Manifest manifest;
  hyperpod::PolicySet policies;
  internal::ConfigurationDoc configuration;
  std::vector<YAML::Node> docs;
  QM_RETURN_IF_ERROR(internal::LoadYamlDocuments(yaml, ctx.file(), &docs));
  try {
    for (const YAML::Node& doc : docs) {
      internal::ReadObjects(internal::Cursor::Root(&ctx, doc), &manifest.objects, &manifest.notes,
                            &policies, &manifest.nodes, &configuration);
      if (!ctx.ok()) return ctx.status();
    }
  } catch (const YAML::Exception& e) {
    return internal::YamlExceptionStatus(e, ctx.file());
  }
  if (!policies.empty()) {
    QM_ASSIGN_OR_RETURN(hyperpod::internal::Expansion expansion, hyperpod::internal::Expand(policies));
    QM_RETURN_IF_ERROR(hyperpod::internal::CheckWorkloads(expansion.governance, manifest.objects));
    manifest.objects.insert(manifest.objects.begin(),
                            std::make_move_iterator(expansion.objects.begin()),
                            std::make_move_iterator(expansion.objects.end()));
    manifest.fair_sharing = expansion.fair_sharing;
    manifest.message_style = expansion.message_style;
    manifest.inventory = policies.cluster;
  }
  if (configuration.fair_sharing) {
    if (manifest.fair_sharing && manifest.fair_sharing->enabled != configuration.fair_sharing->enabled) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: Configuration: fairSharing.enable: {} disagrees with the HyperPod ClusterSchedulerConfig's FairShare "
          "({}); set one of them",
          configuration.source, configuration.fair_sharing->enabled, manifest.fair_sharing->enabled ? "Enabled" : "Disabled"));
    }
    if (!manifest.fair_sharing) manifest.fair_sharing = configuration.fair_sharing;
    else manifest.fair_sharing->preemption_strategies = configuration.fair_sharing->preemption_strategies;
  }
  manifest.features = configuration.features;
  manifest.configuration_source = configuration.source;
  manifest.anti_thrash = std::move(configuration.anti_thrash);
  manifest.refill = configuration.refill;
  manifest.wait_for_pods_ready = configuration.wait_for_pods_ready;
  internal::CheckDuplicates(ctx, manifest.objects);
  if (!ctx.ok()) return ctx.status();
  QM_RETURN_IF_ERROR(CheckDuplicateNodes(manifest.nodes));
  return manifest;
}

absl::StatusOr<Manifest> ReadManifestFile(const std::string& path) {
  QM_ASSIGN_OR_RETURN(std::string text, internal::ReadTextFile(path));
  return ReadManifestString(text, path);
}

ObjectKind KindOf(const ObjectSpec& spec) {
  return std::visit(
      [](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, NamespaceSpec>) return ObjectKind::kNamespace;
        if constexpr (std::is_same_v<T, ResourceFlavorSpec>) return ObjectKind::kResourceFlavor;
        if constexpr (std::is_same_v<T, CohortSpec>) return ObjectKind::kCohort;
        if constexpr (std::is_same_v<T, ClusterQueueSpec>) return ObjectKind::kClusterQueue;
        if constexpr (std::is_same_v<T, LocalQueueSpec>) return ObjectKind::kLocalQueue;
        if constexpr (std::is_same_v<T, WorkloadPriorityClassSpec>) {
          return ObjectKind::kWorkloadPriorityClass;
        }
        if constexpr (std::is_same_v<T, PriorityClassSpec>) return ObjectKind::kPriorityClass;
        if constexpr (std::is_same_v<T, WorkloadSpec>) return ObjectKind::kWorkload;
      },
      spec);
}

ObjectRef RefOf(const ObjectSpec& spec) {
  ObjectRef ref;
  ref.kind = KindOf(spec);
  std::visit(
      [&](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        ref.name = s.name;
        if constexpr (std::is_same_v<T, LocalQueueSpec> || std::is_same_v<T, WorkloadSpec>) {
          ref.namespace_ = NamespaceOrDefault(s.namespace_);
        }
      },
      spec);
  return ref;
}

const char* KindName(ObjectKind kind) { return ObjectKindName(kind); }

std::string ObjectDisplayName(const ObjectSpec& spec) {
  const ObjectRef ref = RefOf(spec);
  if (!ref.namespace_.empty()) {
    return fmt::format("{}/{}/{}", KindName(ref.kind), ref.namespace_, ref.name);
  }
  return fmt::format("{}/{}", KindName(ref.kind), ref.name);
}

}  // namespace qm
