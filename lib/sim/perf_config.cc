// Reading Kueue's performance generator configuration (perf_config.h).
#include "qm/sim/perf_config.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/core/quantity_text.h"
#include "text/yaml_load.h"
#include "yaml-cpp/yaml.h"

namespace qm::sim {
namespace {

using qm::internal::ReadTextFile;

// Reads one mapping; every method records the first error and turns later calls into no-ops.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  const absl::Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }

  void Fail(const std::string& path, const std::string& message) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(fmt::format("{}: {}: {}", file_, path, message));
  }

  // Checks that `node` is a mapping whose keys are all in `known` (keys in `unsupported` are named as
  // such). A null node is an empty mapping.
  bool Mapping(const YAML::Node& node, const std::string& path, std::initializer_list<const char*> known,
               std::initializer_list<const char*> unsupported = {}) {
    if (!ok()) return false;
    if (node.IsNull()) return true;
    if (!node.IsMap()) {
      Fail(path, "must be a mapping");
      return false;
    }
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      bool found = false;
      for (const char* k : known) found = found || key == k;
      if (found) continue;
      for (const char* k : unsupported) {
        if (key == k) {
          Fail(Join(path, key), "is not supported (topology-aware scheduling and DRA are not modelled)");
          return false;
        }
      }
      Fail(Join(path, key), "unknown field");
      return false;
    }
    return true;
  }

  std::string String(const YAML::Node& node, const std::string& path, const char* key,
                     std::string fallback = {}) {
    const YAML::Node v = node.IsMap() ? node[key] : YAML::Node();
    if (!ok() || !v || v.IsNull()) return fallback;
    if (!v.IsScalar()) {
      Fail(Join(path, key), "must be a string");
      return fallback;
    }
    return v.Scalar();
  }

  int64_t Int(const YAML::Node& node, const std::string& path, const char* key, int64_t fallback,
              int64_t min_value) {
    const YAML::Node v = node.IsMap() ? node[key] : YAML::Node();
    if (!ok() || !v || v.IsNull()) return fallback;
    int64_t out = 0;
    if (!v.IsScalar() || !ParseInt(v.Scalar(), &out)) {
      Fail(Join(path, key), "must be an integer");
      return fallback;
    }
    if (out < min_value) {
      Fail(Join(path, key), fmt::format("must be >= {}", min_value));
      return fallback;
    }
    return out;
  }

  // A cpu quantity ("1", "500m", 20) in millicores; nullopt when absent.
  std::optional<int64_t> Cpu(const YAML::Node& node, const std::string& path, const char* key) {
    const YAML::Node v = node.IsMap() ? node[key] : YAML::Node();
    if (!ok() || !v || v.IsNull()) return std::nullopt;
    if (!v.IsScalar()) {
      Fail(Join(path, key), "must be a quantity");
      return std::nullopt;
    }
    absl::StatusOr<int64_t> q = ParseQuantity(v.Scalar(), Unit::kMilli);
    if (!q.ok()) {
      Fail(Join(path, key), std::string(q.status().message()));
      return std::nullopt;
    }
    if (*q < 0) {
      Fail(Join(path, key), "must be >= 0");
      return std::nullopt;
    }
    return *q;
  }

  const YAML::Node Sequence(const YAML::Node& node, const std::string& path, const char* key) {
    const YAML::Node v = node.IsMap() ? node[key] : YAML::Node();
    if (!ok() || !v || v.IsNull()) return YAML::Node(YAML::NodeType::Sequence);
    if (!v.IsSequence()) {
      Fail(Join(path, key), "must be a list");
      return YAML::Node(YAML::NodeType::Sequence);
    }
    return v;
  }

  static std::string Join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  static bool ParseInt(const std::string& text, int64_t* out) {
    // YAML 1.1 readers (sigs.k8s.io/yaml) accept `_` digit separators, e.g. `425_000`.
    std::string digits;
    for (char c : text)
      if (c != '_') digits.push_back(c);
    if (digits.empty()) return false;
    size_t i = digits[0] == '-' || digits[0] == '+' ? 1 : 0;
    if (i == digits.size()) return false;
    int64_t v = 0;
    for (; i < digits.size(); ++i) {
      const char c = digits[i];
      if (c < '0' || c > '9') return false;
      if (v > (INT64_MAX - (c - '0')) / 10) return false;
      v = v * 10 + (c - '0');
    }
    *out = digits[0] == '-' ? -v : v;
    return true;
  }

  std::string file_;
  absl::Status status_;
};

template <class Policy>
bool ParsePolicy(const std::string& text, std::initializer_list<std::pair<const char*, Policy>> table, Policy* out) {
  for (const auto& [name, value] : table) {
    if (text == name) {
      *out = value;
      return true;
    }
  }
  return false;
}

void ReadWorkloadsSet(Reader& r, const YAML::Node& node, const std::string& path, PerfWorkloadsSet* out) {
  if (!r.Mapping(node, path, {"count", "creationIntervalMs", "initialDelayMs", "workloads"})) return;
  out->count = r.Int(node, path, "count", 0, 0);
  out->creation_interval_ms = r.Int(node, path, "creationIntervalMs", 0, 0);
  out->initial_delay_ms = r.Int(node, path, "initialDelayMs", 0, 0);
  const YAML::Node workloads = r.Sequence(node, path, "workloads");
  for (size_t i = 0; i < workloads.size() && r.ok(); ++i) {
    const std::string p = fmt::format("{}.workloads[{}]", path, i);
    const YAML::Node w = workloads[i];
    if (!r.Mapping(w, p, {"className", "runtimeMs", "priority", "request", "podCount"},
                   {"tasConstraint", "tasLevel", "sliceSize", "devices"}))
      return;
    PerfWorkloadTemplate t;
    t.class_name = r.String(w, p, "className");
    if (t.class_name.empty()) r.Fail(Reader::Join(p, "className"), "is required");
    t.runtime_ms = r.Int(w, p, "runtimeMs", 0, 0);
    t.priority = static_cast<int32_t>(r.Int(w, p, "priority", 0, INT32_MIN));
    if (t.priority != r.Int(w, p, "priority", 0, INT32_MIN)) r.Fail(Reader::Join(p, "priority"), "out of range");
    t.request_milli_cpu = r.Cpu(w, p, "request").value_or(0);
    const int64_t pods = r.Int(w, p, "podCount", 1, 0);
    t.pod_count = pods == 0 ? 1 : static_cast<int32_t>(std::min<int64_t>(pods, INT32_MAX));
    out->workloads.push_back(std::move(t));
  }
}

void ReadQueuesSet(Reader& r, const YAML::Node& node, const std::string& path, PerfQueuesSet* out) {
  if (!r.Mapping(node, path,
                 {"className", "count", "nominalQuota", "borrowingLimit", "lendingLimit", "reclaimWithinCohort",
                  "withinClusterQueue", "workloadsSets"},
                 {"deviceNominalQuota", "deviceBorrowingLimit"}))
    return;
  out->class_name = r.String(node, path, "className");
  if (out->class_name.empty() && r.ok()) r.Fail(Reader::Join(path, "className"), "is required");
  out->count = r.Int(node, path, "count", 0, 0);
  out->nominal_quota_milli_cpu = r.Cpu(node, path, "nominalQuota").value_or(0);
  out->borrowing_limit_milli_cpu = r.Cpu(node, path, "borrowingLimit");
  out->lending_limit_milli_cpu = r.Cpu(node, path, "lendingLimit");
  const std::string reclaim = r.String(node, path, "reclaimWithinCohort", "Never");
  if (r.ok() && !ParsePolicy<ReclaimWithinCohortPolicy>(reclaim,
                                                        {{"Never", ReclaimWithinCohortPolicy::kNever},
                                                         {"LowerPriority", ReclaimWithinCohortPolicy::kLowerPriority},
                                                         {"Any", ReclaimWithinCohortPolicy::kAny}},
                                                        &out->reclaim_within_cohort))
    r.Fail(Reader::Join(path, "reclaimWithinCohort"),
           fmt::format("unknown policy '{}' (Never, LowerPriority or Any)", reclaim));
  const std::string within = r.String(node, path, "withinClusterQueue", "Never");
  if (r.ok() && !ParsePolicy<WithinClusterQueuePolicy>(
                    within,
                    {{"Never", WithinClusterQueuePolicy::kNever},
                     {"LowerPriority", WithinClusterQueuePolicy::kLowerPriority},
                     {"LowerOrNewerEqualPriority", WithinClusterQueuePolicy::kLowerOrNewerEqualPriority}},
                    &out->within_cluster_queue))
    r.Fail(Reader::Join(path, "withinClusterQueue"),
           fmt::format("unknown policy '{}' (Never, LowerPriority or LowerOrNewerEqualPriority)", within));
  const YAML::Node sets = r.Sequence(node, path, "workloadsSets");
  for (size_t i = 0; i < sets.size() && r.ok(); ++i) {
    out->workloads_sets.emplace_back();
    ReadWorkloadsSet(r, sets[i], fmt::format("{}.workloadsSets[{}]", path, i), &out->workloads_sets.back());
  }
}

}  // namespace

int64_t PerfConfig::ClusterQueueCount() const {
  int64_t n = 0;
  for (const PerfCohortSet& c : cohorts)
    for (const PerfQueuesSet& q : c.queues_sets) n += c.count * q.count;
  return n;
}

int64_t PerfConfig::WorkloadCount() const {
  int64_t n = 0;
  for (const PerfCohortSet& c : cohorts)
    for (const PerfQueuesSet& q : c.queues_sets)
      for (const PerfWorkloadsSet& w : q.workloads_sets)
        n += c.count * q.count * w.count * static_cast<int64_t>(w.workloads.size());
  return n;
}

absl::StatusOr<PerfConfig> ParsePerfConfig(std::string_view yaml_text, std::string_view file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return qm::internal::YamlExceptionStatus(e, file);
  }
  Reader r{std::string(file)};
  PerfConfig config;
  if (!r.Mapping(root, "", {"cohorts", "resourceFlavor"}, {"topology", "dra"})) return r.status();
  if (root.IsMap() && root["resourceFlavor"]) {
    const YAML::Node rf = root["resourceFlavor"];
    if (!r.Mapping(rf, "resourceFlavor", {"name"}, {"nodeLabel"})) return r.status();
    config.resource_flavor = r.String(rf, "resourceFlavor", "name", config.resource_flavor);
  }
  const YAML::Node cohorts = r.Sequence(root, "", "cohorts");
  for (size_t i = 0; i < cohorts.size() && r.ok(); ++i) {
    const std::string path = fmt::format("cohorts[{}]", i);
    const YAML::Node c = cohorts[i];
    if (!r.Mapping(c, path, {"className", "count", "queuesSets"}, {"children"})) break;
    PerfCohortSet set;
    set.class_name = r.String(c, path, "className");
    if (set.class_name.empty() && r.ok()) r.Fail(Reader::Join(path, "className"), "is required");
    set.count = r.Int(c, path, "count", 0, 0);
    const YAML::Node queues = r.Sequence(c, path, "queuesSets");
    for (size_t j = 0; j < queues.size() && r.ok(); ++j) {
      set.queues_sets.emplace_back();
      ReadQueuesSet(r, queues[j], fmt::format("{}.queuesSets[{}]", path, j), &set.queues_sets.back());
    }
    config.cohorts.push_back(std::move(set));
  }
  if (!r.ok()) return r.status();
  if (config.cohorts.empty())
    return absl::InvalidArgumentError(fmt::format("{}: cohorts: must contain at least one cohort", file));
  return config;
}

absl::StatusOr<PerfConfig> LoadPerfConfigFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParsePerfConfig(*text, path);
}

}  // namespace qm::sim
