// Kind dispatch, object headers, and the small kinds (Namespace, ResourceFlavor, LocalQueue,
// priority classes). ClusterQueue and Cohort are in quota_reader.cc, Workload in workload_reader.cc.
#include "io/object_reader.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "fmt/format.h"
#include "io/config_reader.h"
#include "qm/hyperpod/policy_object.h"
#include "qm/model/namespace_name.h"
#include "text/node.h"

namespace qm::internal {
namespace {

constexpr std::string_view kKueueGroup = "kueue.x-k8s.io";
constexpr std::string_view kSchedulingGroup = "scheduling.k8s.io";

struct KindInfo {
  std::string_view kind;
  ObjectKind object_kind;
  bool namespaced;
  // API versions this kind is read in; the first is the one shown in errors.
  std::array<std::string_view, 3> versions;
};

constexpr KindInfo kKinds[] = {
    {"Namespace", ObjectKind::kNamespace, false, {"v1", "", ""}},
    {"ResourceFlavor", ObjectKind::kResourceFlavor, false,
     {"kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1", ""}},
    {"Cohort", ObjectKind::kCohort, false,
     {"kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1alpha1"}},
    {"ClusterQueue", ObjectKind::kClusterQueue, false,
     {"kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1", ""}},
    {"LocalQueue", ObjectKind::kLocalQueue, true,
     {"kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1", ""}},
    {"WorkloadPriorityClass", ObjectKind::kWorkloadPriorityClass, false,
     {"kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1", ""}},
    {"PriorityClass", ObjectKind::kPriorityClass, false,
     {"scheduling.k8s.io/v1", "scheduling.k8s.io/v1beta1", ""}},
    {"Workload", ObjectKind::kWorkload, true,
     {"kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1", ""}},
};

// Core/v1 Node: not an engine object (Kueue does not read nodes); read for the simulator only.
// `object_kind` is unused: only `kind` and `namespaced` matter to `ReadHeader`.
constexpr KindInfo kNodeKind = {"Node", ObjectKind::kNamespace, false, {"v1", "", ""}};

// Kueue kinds that configure features qm does not model; skipped with a note like foreign kinds.
constexpr std::string_view kSkippedKueueKinds[] = {
    "AdmissionCheck", "MultiKueueCluster", "MultiKueueConfig", "ProvisioningRequestConfig",
    "Topology",
};

const KindInfo* FindKind(std::string_view kind) {
  for (const KindInfo& k : kKinds) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

ApiVersion VersionOf(std::string_view api_version) {
  if (api_version.empty()) return ApiVersion::kUnspecified;
  if (api_version == "v1") return ApiVersion::kCore;
  if (api_version.starts_with(kSchedulingGroup)) return ApiVersion::kScheduling;
  if (api_version == "kueue.x-k8s.io/v1alpha1") return ApiVersion::kKueueV1alpha1;
  if (api_version == "kueue.x-k8s.io/v1beta1") return ApiVersion::kKueueV1beta1;
  return ApiVersion::kKueueV1beta2;
}

constexpr std::pair<std::string_view, LabelSelectorRequirement::Operator> kSelectorOps[] = {
    {"In", LabelSelectorRequirement::Operator::kIn},
    {"NotIn", LabelSelectorRequirement::Operator::kNotIn},
    {"Exists", LabelSelectorRequirement::Operator::kExists},
    {"DoesNotExist", LabelSelectorRequirement::Operator::kDoesNotExist}};

constexpr std::pair<std::string_view, TaintEffect> kTaintEffects[] = {
    {"NoSchedule", TaintEffect::kNoSchedule},
    {"PreferNoSchedule", TaintEffect::kPreferNoSchedule},
    {"NoExecute", TaintEffect::kNoExecute}};

constexpr std::pair<std::string_view, Toleration::Operator> kTolerationOps[] = {
    {"Equal", Toleration::Operator::kEqual}, {"Exists", Toleration::Operator::kExists}};


// Reads `metadata` and names the object in the context. Returns false on error.
bool ReadHeader(const Cursor& c, const KindInfo& kind, ApiVersion version, ObjectHeader* h) {
  h->version = version;
  c.ctx().set_object(std::string(kind.kind));
  const Cursor metadata = c["metadata"];
  if (!metadata.present()) {
    metadata.Fail("is required");
    return false;
  }
  if (!metadata.ExpectMap()) return false;
  const Cursor name = metadata["name"];
  h->name = name.RequiredString();
  if (!c.ctx().ok()) return false;
  if (h->name.find('/') != std::string::npos) {
    name.Fail(fmt::format("\"{}\" must not contain '/'", h->name));
    return false;
  }
  if (kind.namespaced) {
    const Cursor ns = metadata["namespace"];
    h->namespace_ = ns.String();
    DefaultNamespace(h->namespace_);
    if (h->namespace_.find('/') != std::string::npos) {
      ns.Fail(fmt::format("\"{}\" must not contain '/'", h->namespace_));
      return false;
    }
    c.ctx().set_object(fmt::format("{}/{}/{}", kind.kind, h->namespace_, h->name));
  } else {
    c.ctx().set_object(fmt::format("{}/{}", kind.kind, h->name));
  }
  h->labels = metadata["labels"].StringMap();
  return c.ctx().ok();
}

NamespaceSpec ReadNamespace(const ObjectHeader& h) { return {.name = h.name, .labels = h.labels}; }

LocalQueueSpec ReadLocalQueue(const Cursor& c, const ObjectHeader& h) {
  LocalQueueSpec lq;
  lq.namespace_ = h.namespace_;
  lq.name = h.name;
  lq.labels = h.labels;
  const Cursor spec = c["spec"];
  if (!spec.present()) {
    spec.Fail("is required");
    return lq;
  }
  if (!spec.ExpectMap()) return lq;
  lq.cluster_queue = spec["clusterQueue"].RequiredString();
  lq.stop_policy = spec["stopPolicy"].OptEnum<StopPolicy>(kStopPolicies).value_or(StopPolicy::kNone);
  return lq;
}

WorkloadPriorityClassSpec ReadWorkloadPriorityClass(const Cursor& c, const ObjectHeader& h) {
  WorkloadPriorityClassSpec pc;
  pc.name = h.name;
  const Cursor value = c["value"];
  if (!value.present()) value.Fail("is required");
  pc.value = static_cast<int32_t>(value.OptInt(kInt32Min, kInt32Max).value_or(0));
  pc.description = c["description"].String();
  return pc;
}

PriorityClassSpec ReadPriorityClass(const Cursor& c, const ObjectHeader& h) {
  PriorityClassSpec pc;
  pc.name = h.name;
  const Cursor value = c["value"];
  if (!value.present()) value.Fail("is required");
  pc.value = static_cast<int32_t>(value.OptInt(kInt32Min, kInt32Max).value_or(0));
  pc.global_default = c["globalDefault"].OptBool().value_or(false);
  pc.description = c["description"].String();
  return pc;
}

// Reads one object map (not a List) and appends it. Field paths in errors are relative to the
// object (`spec.queueName`), which the error names anyway.
// Kueue's `Configuration` (config.kueue.x-k8s.io/v1beta1 or v1beta2): the fields that change
// decisions, and our antiThrash block.
void ReadConfiguration(const Cursor& c, std::string_view api_version, ConfigurationDoc* out) {
  LoadContext& ctx = c.ctx();
  ctx.set_object("Configuration");
  if (!out->source.empty()) {
    c.Fail(fmt::format("a second Configuration (the first is at {}); give one", out->source));
    return;
  }
  out->source = ctx.Where(c.line());
  if (const Cursor fs = c["fairSharing"]; fs.present()) {
    FairSharingConfig config;
    ReadFairSharing(fs, &config);
    // v1beta1 has `enable` (default false); v1beta2 dropped it: there the block's presence turns
    // fair sharing on. An explicit false there would be silently contradicted, so it is refused.
    if (api_version.ends_with("/v1beta2")) {
      if (fs.Has("enable") && !config.enabled) {
        fs["enable"].Fail("v1beta2 has no fairSharing.enable: fair sharing is on when fairSharing is present "
                          "(remove the block to turn it off)");
        return;
      }
      config.enabled = true;
    }
    out->fair_sharing = config;
  }
  if (const Cursor gates = c["featureGates"]; gates.present()) {
    FeatureGates features;
    ReadFeatureGates(gates, &features);
    out->features = features;
  }
  ReadAntiThrash(c["antiThrash"], &out->anti_thrash);
  if (c["waitForPodsReady"].present()) ReadWaitForPodsReady(c["waitForPodsReady"], &out->wait_for_pods_ready);
  if (c["refill"].present()) ReadRefill(c["refill"], &out->refill);
  EngineConfig config;
  if (out->fair_sharing) config.fair_sharing = *out->fair_sharing;
  if (out->features) config.features = *out->features;
  config.anti_thrash = out->anti_thrash;
  config.wait_for_pods_ready = out->wait_for_pods_ready;
  config.refill = out->refill;
  CheckEngineConfig(c, config, "");
}

void ReadOne(const Cursor& at, std::vector<ManifestObject>* objects,
             std::vector<std::string>* notes, hyperpod::PolicySet* policies,
             std::vector<NodeSpec>* nodes, ConfigurationDoc* configuration) {
  const Cursor c(&at.ctx(), at.node(), "", at.line());
  LoadContext& ctx = c.ctx();
  ctx.set_object("");
  if (!c.present()) return;  // an empty document or `- ~` item
  if (!c.is_map()) {
    c.Fail(fmt::format("expected an object (a map with kind and metadata), got {}", c.TypeName()));
    return;
  }
  const std::string api_version = c["apiVersion"].String();
  const Cursor kind_cursor = c["kind"];
  const std::string kind = kind_cursor.RequiredString();
  if (!ctx.ok()) return;
  if (hyperpod::internal::IsPolicyKind(kind)) {
    // HyperPod policies expand into Kueue objects once the whole list is read.
    ctx.FailRaw(hyperpod::internal::ReadPolicyObject(FromYaml(c.node(), c.line()), ctx.file(),
                                                     policies));
    return;
  }
  if (kind == "Configuration" && api_version.starts_with("config.kueue.x-k8s.io/")) {
    if (configuration == nullptr) {
      ctx.set_object("Configuration");
      kind_cursor.Fail("a Kueue Configuration belongs in a cluster file; a scenario sets the engine's "
                       "configuration in its config: block");
      return;
    }
    ReadConfiguration(c, api_version, configuration);
    return;
  }
  if (nodes != nullptr && kind == kNodeKind.kind && (api_version.empty() || api_version == "v1")) {
    ObjectHeader h;
    if (!ReadHeader(c, kNodeKind, ApiVersion::kCore, &h)) return;
    NodeSpec node = ReadNode(c, h, ctx.Where(c.line()));
    if (ctx.ok()) nodes->push_back(std::move(node));
    return;
  }
  const KindInfo* info = FindKind(kind);
  const bool kueue_group = api_version.starts_with(kKueueGroup);
  if (info == nullptr) {
    const bool skipped_kueue_kind =
        std::find(std::begin(kSkippedKueueKinds), std::end(kSkippedKueueKinds), kind) !=
        std::end(kSkippedKueueKinds);
    if (api_version.empty() || (kueue_group && !skipped_kueue_kind)) {
      std::string known;
      for (const KindInfo& k : kKinds) known += known.empty() ? k.kind : fmt::format(", {}", k.kind);
      kind_cursor.Fail(fmt::format("unknown kind \"{}\" (qm reads {})", kind, known));
      return;
    }
    const Cursor metadata = c["metadata"];
    std::string name = metadata.is_map() ? metadata["name"].String() : "";
    const std::string ns = metadata.is_map() ? metadata["namespace"].String() : "";
    if (!ns.empty()) name = ns + "/" + name;
    notes->push_back(fmt::format("{}: skipped {} {}/{} (qm reads only Kueue's queueing objects)",
                                 ctx.Where(c.line()), api_version, kind, name));
    return;
  }
  if (!api_version.empty() &&
      std::find(info->versions.begin(), info->versions.end(), api_version) ==
          info->versions.end()) {
    std::string allowed;
    for (std::string_view v : info->versions) {
      if (!v.empty()) allowed += allowed.empty() ? std::string(v) : fmt::format(" or {}", v);
    }
    ctx.set_object(std::string(kind));
    c["apiVersion"].Fail(
        fmt::format("\"{}\" is not an API version of {} (expected {})", api_version, kind, allowed));
    return;
  }
  ObjectHeader h;
  if (!ReadHeader(c, *info, VersionOf(api_version), &h)) return;
  ManifestObject obj{.spec = NamespaceSpec{}, .source = ctx.Where(c.line())};
  switch (info->object_kind) {
    case ObjectKind::kNamespace: obj.spec = ReadNamespace(h); break;
    case ObjectKind::kResourceFlavor: obj.spec = ReadResourceFlavor(c, h); break;
    case ObjectKind::kCohort: obj.spec = ReadCohort(c, h); break;
    case ObjectKind::kClusterQueue: obj.spec = ReadClusterQueue(c, h); break;
    case ObjectKind::kLocalQueue: obj.spec = ReadLocalQueue(c, h); break;
    case ObjectKind::kWorkloadPriorityClass: obj.spec = ReadWorkloadPriorityClass(c, h); break;
    case ObjectKind::kPriorityClass: obj.spec = ReadPriorityClass(c, h); break;
    case ObjectKind::kWorkload: obj.spec = ReadWorkload(c, h); break;
  }
  for (std::string& note : ctx.TakeNotes()) notes->push_back(std::move(note));
  if (ctx.ok()) objects->push_back(std::move(obj));
}

}  // namespace

void ReadObjects(const Cursor& node, std::vector<ManifestObject>* objects,
                 std::vector<std::string>* notes, hyperpod::PolicySet* policies,
                 std::vector<NodeSpec>* nodes, ConfigurationDoc* configuration) {
  if (node.is_sequence()) {
    for (const Cursor& item : node.Items()) {
      ReadObjects(item, objects, notes, policies, nodes, configuration);
      if (!node.ctx().ok()) return;
    }
    return;
  }
  if (node.is_map() && node["kind"].is_scalar() && node["kind"].String() == "List") {
    node.ctx().set_object("List");
    const Cursor items = node["items"];
    if (!items.present()) return;
    if (!items.ExpectSequence()) return;
    for (const Cursor& item : items.Items()) {
      ReadOne(item, objects, notes, policies, nodes, configuration);
      if (!node.ctx().ok()) return;
    }
    return;
  }
  ReadOne(node, objects, notes, policies, nodes, configuration);
}

void CheckDuplicates(LoadContext& ctx, const std::vector<ManifestObject>& objects) {
  // Sorting a copy of the names keeps this O(n log n) for large manifests.
  std::vector<std::pair<std::string, size_t>> names;
  names.reserve(objects.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    names.emplace_back(ObjectDisplayName(objects[i].spec), i);
  }
  std::sort(names.begin(), names.end());
  const ManifestObject* worst_first = nullptr;
  const ManifestObject* worst_second = nullptr;
  for (size_t i = 1; i < names.size(); ++i) {
    if (names[i].first != names[i - 1].first) continue;
    // Report the duplicate that appears earliest in the file.
    const ManifestObject& second = objects[names[i].second];
    if (worst_second == nullptr ||
        names[i].second < static_cast<size_t>(worst_second - objects.data())) {
      worst_first = &objects[names[i - 1].second];
      worst_second = &second;
    }
  }
  if (worst_second == nullptr) return;
  ctx.FailRaw(absl::InvalidArgumentError(
      fmt::format("{}: {}: duplicate object (first defined at {})", worst_second->source,
                  ObjectDisplayName(worst_second->spec), worst_first->source)));
}

ResourceFlavorSpec ReadResourceFlavor(const Cursor& c, const ObjectHeader& h) {
  ResourceFlavorSpec rf;
  rf.name = h.name;
  const Cursor spec = c["spec"];
  if (!spec.present()) return rf;
  if (!spec.ExpectMap()) return rf;
  rf.node_labels = spec["nodeLabels"].StringMap();
  rf.node_taints = ReadTaints(spec["nodeTaints"]);
  rf.tolerations = ReadTolerations(spec["tolerations"]);
  return rf;
}

std::vector<Taint> ReadTaints(const Cursor& c) {
  std::vector<Taint> out;
  for (const Cursor& t : c.Items()) {
    if (!t.ExpectMap()) break;
    Taint taint;
    taint.key = t["key"].RequiredString();
    taint.value = t["value"].String();
    const Cursor effect = t["effect"];
    if (!effect.present()) effect.Fail("is required");
    taint.effect = effect.OptEnum<TaintEffect>(kTaintEffects).value_or(TaintEffect::kNoSchedule);
    out.push_back(std::move(taint));
  }
  return out;
}

LabelSelector ReadLabelSelector(const Cursor& c) {
  LabelSelector selector;
  if (!c.ExpectMap()) return selector;
  selector.match_labels = c["matchLabels"].StringMap();
  for (const Cursor& e : c["matchExpressions"].Items()) {
    if (!e.ExpectMap()) break;
    LabelSelectorRequirement req;
    req.key = e["key"].RequiredString();
    const Cursor op = e["operator"];
    if (!op.present()) op.Fail("is required");
    req.op = op.OptEnum<LabelSelectorRequirement::Operator>(kSelectorOps)
                 .value_or(LabelSelectorRequirement::Operator::kIn);
    req.values = e["values"].Strings();
    selector.match_expressions.push_back(std::move(req));
  }
  return selector;
}

std::vector<Toleration> ReadTolerations(const Cursor& c) {
  std::vector<Toleration> out;
  for (const Cursor& t : c.Items()) {
    if (!t.ExpectMap()) break;
    Toleration tol;
    tol.key = t["key"].String();
    tol.op = t["operator"].OptEnum<Toleration::Operator>(kTolerationOps)
                 .value_or(Toleration::Operator::kEqual);
    tol.value = t["value"].String();
    const std::string effect = t["effect"].String();
    if (!effect.empty()) tol.effect = t["effect"].OptEnum<TaintEffect>(kTaintEffects);
    out.push_back(std::move(tol));
  }
  return out;
}

}  // namespace qm::internal
