// Reading node-failure plans (simulator.h, docs/simulate.md §Faults).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/sim/simulator.h"
#include "qm/sim/trace.h"
#include "text/node.h"
#include "text/yaml_load.h"

namespace qm::sim {
namespace {

using qm::internal::Node;

// Durations longer than this are refused: they would only make a run end at its horizon.
constexpr Duration kMaxFaultTime = Duration::Seconds(100LL * 366 * 24 * 3600);

absl::Status FieldError(std::string_view file, const Node& at, std::string_view field,
                        std::string_view message) {
  return absl::InvalidArgumentError(fmt::format("{}:{}: {}: {}", file, at.line, field, message));
}

absl::StatusOr<Duration> DurationField(std::string_view file, const Node& map, std::string_view key,
                                       std::string_view path, bool allow_zero) {
  const Node* v = map.Find(key);
  if (v == nullptr) return FieldError(file, map, path, "required");
  if (!v->is_scalar()) return FieldError(file, *v, path, fmt::format("expected a duration, got {}", v->TypeName()));
  absl::StatusOr<Duration> d = ParseDurationText(v->text);
  if (!d.ok()) {
    return FieldError(file, *v, path,
                      fmt::format("\"{}\" is not a duration (e.g. 90s, 30m, 2h45m, 1d12h, 2.5h)", v->text));
  }
  if (d->us < 0 || (!allow_zero && d->us == 0)) {
    return FieldError(file, *v, path, fmt::format("\"{}\" must be {}", v->text, allow_zero ? ">= 0" : "> 0"));
  }
  if (*d > kMaxFaultTime) return FieldError(file, *v, path, fmt::format("\"{}\" is longer than 100 years", v->text));
  return *d;
}

absl::Status CheckKeys(std::string_view file, const Node& map, std::string_view where,
                       std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : map.fields) {
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == key;
    if (!ok) {
      return FieldError(file, value, fmt::format("{}{}", where, key),
                        fmt::format("unknown field (known: {})", fmt::join(known, ", ")));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<FaultPlan> ReadPlan(const Node& doc, std::string_view file) {
  FaultPlan plan;
  if (!doc.is_map()) return FieldError(file, doc, "faults", "expected a map with failures: and/or random:");
  QM_RETURN_IF_ERROR(CheckKeys(file, doc, "", {"failures", "random"}));
  if (const Node* list = doc.Find("failures")) {
    if (!list->is_list()) return FieldError(file, *list, "failures", "expected a list");
    for (size_t i = 0; i < list->items.size(); ++i) {
      const Node& item = list->items[i];
      const std::string path = fmt::format("failures[{}]", i);
      if (!item.is_map()) return FieldError(file, item, path, "expected {node, at, repair}");
      QM_RETURN_IF_ERROR(CheckKeys(file, item, path + ".", {"node", "at", "repair"}));
      FaultPlan::Failure f;
      const Node* node = item.Find("node");
      if (node == nullptr || !node->is_scalar() || node->text.empty()) {
        return FieldError(file, node ? *node : item, path + ".node", "required: the name of a node");
      }
      f.node = node->text;
      QM_ASSIGN_OR_RETURN(f.at, DurationField(file, item, "at", path + ".at", /*allow_zero=*/true));
      if (item.Find("repair") != nullptr) {
        QM_ASSIGN_OR_RETURN(f.repair, DurationField(file, item, "repair", path + ".repair", true));
      }
      plan.failures.push_back(std::move(f));
    }
  }
  if (const Node* random = doc.Find("random")) {
    if (!random->is_map()) return FieldError(file, *random, "random", "expected {mtbf, repair, seed}");
    QM_RETURN_IF_ERROR(CheckKeys(file, *random, "random.", {"mtbf", "repair", "seed"}));
    QM_ASSIGN_OR_RETURN(plan.mtbf, DurationField(file, *random, "mtbf", "random.mtbf", false));
    QM_ASSIGN_OR_RETURN(plan.repair_time, DurationField(file, *random, "repair", "random.repair", false));
    if (const Node* seed = random->Find("seed")) {
      uint64_t v = 0;
      const std::string& t = seed->text;
      bool ok = seed->is_scalar() && !t.empty() && t.size() <= 19;
      for (char c : t) ok = ok && c >= '0' && c <= '9';
      if (ok) v = std::stoull(t);
      if (!ok) return FieldError(file, *seed, "random.seed", fmt::format("\"{}\" is not a non-negative integer", t));
      plan.seed = v;
    }
  }
  return plan;
}

}  // namespace

absl::StatusOr<FaultPlan> ReadFaultString(std::string_view yaml, std::string_view source_name) {
  std::vector<YAML::Node> docs;
  QM_RETURN_IF_ERROR(qm::internal::LoadYamlDocuments(yaml, source_name, &docs));
  if (docs.size() != 1) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expected one YAML document with failures: and/or random:, found {}",
                    source_name, docs.size()));
  }
  try {
    return ReadPlan(qm::internal::FromYaml(docs[0], 1), source_name);
  } catch (const YAML::Exception& e) {
    return qm::internal::YamlExceptionStatus(e, source_name);
  }
}

absl::StatusOr<FaultPlan> ReadFaultFile(const std::string& path) {
  QM_ASSIGN_OR_RETURN(std::string text, qm::internal::ReadTextFile(path));
  return ReadFaultString(text, path);
}

}  // namespace qm::sim
