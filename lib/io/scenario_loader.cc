// Loading scenario files (docs/scenario-format.md). Unlike Kubernetes objects, the scenario format
// is ours, so unknown keys are errors (they are usually typos), and names used in steps and
// expectations must be defined by the scenario's objects or an earlier `apply` step.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "fmt/format.h"
#include "io/config_reader.h"
#include "io/hyperpod_expand.h"
#include "io/object_reader.h"
#include "io/quantity_fields.h"
#include "io/yaml_cursor.h"
#include "qm/core/status.h"
#include "qm/model/config_validation.h"
#include "qm/io/scenario.h"
#include "qm/text/time_text.h"
#include "qm/model/namespace_name.h"
#include "text/yaml_load.h"

namespace qm {
namespace {

using internal::Cursor;
using internal::LoadContext;

constexpr std::pair<std::string_view, MessageStyle> kMessageStyles[] = {
    {"Current", MessageStyle::kCurrent}, {"Legacy", MessageStyle::kLegacy}};

constexpr std::pair<std::string_view, PreemptionReason> kReasons[] = {
    {"InClusterQueue", PreemptionReason::kInClusterQueue},
    {"InCohortReclamation", PreemptionReason::kInCohortReclamation},
    {"InCohortFairSharing", PreemptionReason::kInCohortFairSharing},
    {"InCohortReclaimWhileBorrowing", PreemptionReason::kInCohortReclaimWhileBorrowing}};

constexpr std::pair<std::string_view, AssignmentMode> kModes[] = {
    {"Fit", AssignmentMode::kFit}, {"Preempt", AssignmentMode::kPreempt},
    {"NoFit", AssignmentMode::kNoFit}};

constexpr std::pair<std::string_view, AssignmentMode> kRequestModes[] = {
    {"Preempt", AssignmentMode::kPreempt}, {"Fit", AssignmentMode::kFit}};

constexpr std::pair<std::string_view, ObjectKind> kKinds[] = {
    {"Namespace", ObjectKind::kNamespace},
    {"ResourceFlavor", ObjectKind::kResourceFlavor},
    {"Cohort", ObjectKind::kCohort},
    {"ClusterQueue", ObjectKind::kClusterQueue},
    {"LocalQueue", ObjectKind::kLocalQueue},
    {"WorkloadPriorityClass", ObjectKind::kWorkloadPriorityClass},
    {"PriorityClass", ObjectKind::kPriorityClass},
    {"Workload", ObjectKind::kWorkload}};

constexpr std::string_view kActions[] = {"schedule", "apply",   "delete",
                                         "finish",   "evictionDone", "advance",
                                         "preemptionTargets", "assignFlavors", "submit",
                                         "evict", "deactivate", "activate", "reclaimablePods",
                                         "podsReady"};

// Reads a scenario document; names defined so far are tracked to validate references.
class ScenarioReader {
 public:
  explicit ScenarioReader(LoadContext* ctx) : ctx_(ctx) {}

  void Read(const Cursor& root, Scenario* s) {
    root.CheckKeys({"name", "source", "description", "skip", "config", "objects", "steps",
                    "expect"});
    if (!ctx_->ok()) return;
    s->name = root["name"].RequiredString();
    s->source = root["source"].String();
    s->description = root["description"].String();
    if (root.Has("skip")) {
      s->skip = root["skip"].String();
      if (s->skip->empty()) s->skip = "no reason given";
    }
    ReadConfig(root["config"], &s->config);
    if (!ctx_->ok()) return;
    config_ = &s->config;
    fair_sharing_cursor_ = root["config"]["fairSharing"]["enable"];
    ReadObjectList(root["objects"], &s->objects, &s->notes);
    if (!ctx_->ok()) return;
    const Cursor steps = root["steps"];
    const Cursor expect = root["expect"];
    if (steps.present()) {
      if (expect.present()) {
        expect.Fail("a top-level expect is only allowed without steps (put it in a step)");
        return;
      }
      for (const Cursor& step : steps.Items()) {
        s->steps.push_back(ReadStep(step));
        if (!ctx_->ok()) return;
      }
      if (s->steps.empty()) steps.Fail("must list at least one step");
    } else {
      ScenarioStep step{.action = ScheduleStep{},
                        .source = ctx_->Where(expect.present() ? expect.line() : root.line()),
                        .expect = std::nullopt};
      if (expect.present()) step.expect = ReadExpectations(expect, step.action);
      s->steps.push_back(std::move(step));
    }
  }

 private:
  void ReadConfig(const Cursor& c, ScenarioConfig* config) {
    if (!c.ExpectMap()) return;
    c.CheckKeys({"now", "fairSharing", "features", "releaseEvictedAtNextSchedule", "messageStyle",
                 "access", "antiThrash", "waitForPodsReady", "refill"});
    if (const std::optional<std::string> now = c["now"].OptString()) {
      absl::StatusOr<Time> t = ParseRfc3339(*now);
      if (!t.ok()) {
        c["now"].Fail(std::string(t.status().message()));
        return;
      }
      config->now = *t;
    }
    internal::ReadFairSharing(c["fairSharing"], &config->fair_sharing);
    internal::ReadFeatureGates(c["features"], &config->features);
    if (!ctx_->ok()) return;
    internal::ReadAntiThrash(c["antiThrash"], &config->anti_thrash);
    if (c["waitForPodsReady"].present()) internal::ReadWaitForPodsReady(c["waitForPodsReady"], &config->wait_for_pods_ready);
    if (c["refill"].present()) internal::ReadRefill(c["refill"], &config->refill);
    if (!ctx_->ok()) return;
    config->release_evicted_at_next_schedule =
        c["releaseEvictedAtNextSchedule"].OptBool().value_or(true);
    config->message_style = c["messageStyle"].OptEnum<MessageStyle>(kMessageStyles);
    if (const Cursor access = c["access"]; access.ExpectMap()) {
      access.CheckKeys({"members", "admins"});
      hyperpod::AccessTable table;
      for (const auto& [principal, teams] : access["members"].Entries()) {
        table.members.emplace_back(principal, teams.Strings());
      }
      table.admins = access["admins"].Strings();
      config->access = std::move(table);
    }
    CheckConfig(c, *config);
  }

  // Kueue's configuration validation (qm/model/config_validation.h, the same the Engine applies),
  // reported at the invalid field's key, or at the nearest key above it that the file has.
  void CheckConfig(const Cursor& c, const ScenarioConfig& config) {
    EngineConfig engine;
    engine.fair_sharing = config.fair_sharing;
    engine.features = config.features;
    engine.message_style = config.message_style.value_or(MessageStyle::kCurrent);
    engine.anti_thrash = config.anti_thrash;
    engine.wait_for_pods_ready = config.wait_for_pods_ready;
    engine.refill = config.refill;
    internal::CheckEngineConfig(c, engine, "config.");
  }

  void ReadObjectList(const Cursor& c, std::vector<ManifestObject>* objects,
                      std::vector<std::string>* notes) {
    if (!c.present()) return;
    if (!c.ExpectSequence()) return;
    const size_t first = objects->size();
    hyperpod::PolicySet policies;
    internal::ReadObjects(c, objects, notes, &policies);
    ctx_->set_object("");
    if (!ctx_->ok()) return;
    if (!policies.empty()) ExpandPolicies(c, std::move(policies), objects, first);
    if (!ctx_->ok()) return;
    if (!policies_.empty()) {
      ctx_->FailRaw(hyperpod::internal::CheckWorkloads(
          governance_, std::span<const ManifestObject>(objects->data() + first, objects->size() - first)));
      if (!ctx_->ok()) return;
    }
    std::vector<ManifestObject> batch(objects->begin() + static_cast<std::ptrdiff_t>(first),
                                      objects->end());
    internal::CheckDuplicates(*ctx_, batch);
    for (const ManifestObject& o : batch) Define(o.spec);
  }

  // HyperPod policies of an object list (docs/hyperpod.md): merged into the scenario's policies
  // so far (an allocation of the same name is an update), translated, and the Kueue objects placed
  // before the list's own objects. The first ClusterSchedulerConfig decides Kueue's fair sharing
  // unless `config.fairSharing.enable` says otherwise (then they must agree).
  void ExpandPolicies(const Cursor& c, hyperpod::PolicySet step, std::vector<ManifestObject>* objects,
                      size_t first) {
    const bool had_policies = !policies_.empty();
    const bool step_has_scheduler = step.scheduler.has_value();
    const bool step_fair_share = step_has_scheduler && step.scheduler->fair_share;
    hyperpod::internal::UpdatePolicies(policies_, std::move(step));
    absl::StatusOr<hyperpod::internal::Expansion> expansion = hyperpod::internal::Expand(policies_);
    if (!expansion.ok()) {
      ctx_->FailRaw(expansion.status());
      return;
    }
    governance_ = expansion->governance;
    const bool fair_share = expansion->fair_sharing.enabled;
    if (!had_policies) {
      if (fair_sharing_cursor_.present()) {
        if (config_->fair_sharing.enabled != fair_share) {
          fair_sharing_cursor_.Fail(fmt::format(
              "{} conflicts with the cluster policy's FairShare={}", config_->fair_sharing.enabled,
              fair_share ? "Enabled" : "Disabled"));
          return;
        }
      } else {
        config_->fair_sharing.enabled = fair_share;
      }
      if (!config_->message_style.has_value()) config_->message_style = expansion->message_style;
    } else if (step_has_scheduler && step_fair_share != config_->fair_sharing.enabled) {
      c.Fail("a ClusterSchedulerConfig cannot change FairShare during a scenario (Kueue reads its "
             "Configuration at start)");
      return;
    }
    objects->insert(objects->begin() + static_cast<std::ptrdiff_t>(first),
                    std::make_move_iterator(expansion->objects.begin()),
                    std::make_move_iterator(expansion->objects.end()));
  }

  void Define(const ObjectSpec& spec) {
    const ObjectRef ref = RefOf(spec);
    if (ref.kind == ObjectKind::kWorkload) workloads_.insert(ref.namespace_ + "/" + ref.name);
    if (ref.kind == ObjectKind::kClusterQueue) cluster_queues_.insert(ref.name);
    if (ref.kind == ObjectKind::kLocalQueue) local_queues_.insert(ref.namespace_ + "/" + ref.name);
  }

  // "ns/name" from "ns/name" or "name"; must name a workload the scenario defines.
  std::string WorkloadRef(const Cursor& c) {
    const std::string text = c.RequiredString();
    if (!ctx_->ok()) return "";
    return CheckWorkloadName(c, text);
  }

  std::string CheckWorkloadName(const Cursor& c, const std::string& text) {
    const size_t slash = text.find('/');
    std::string name = slash == std::string::npos ? "default/" + text : text;
    const size_t s = name.find('/');
    if (s == 0 || s + 1 == name.size() || name.find('/', s + 1) != std::string::npos) {
      c.Fail(fmt::format("\"{}\" is not a workload name (namespace/name or name)", text));
      return "";
    }
    if (!workloads_.contains(name)) {
      c.Fail(fmt::format("workload '{}' is not defined in this scenario", name));
      return "";
    }
    return name;
  }

  // "ns/name" from "ns/name" or "name"; must name a LocalQueue the scenario defines.
  std::string LocalQueueRef(const Cursor& c, const std::string& text) {
    const auto [ns, name] = SplitNamespacedName(text);
    const std::string full = std::string(ns) + "/" + std::string(name);
    if (name.empty() || name.find('/') != std::string_view::npos) {
      c.Fail(fmt::format("\"{}\" is not a LocalQueue name (namespace/name or name)", text));
      return "";
    }
    if (!local_queues_.contains(full)) {
      c.Fail(fmt::format("LocalQueue '{}' is not defined in this scenario", full));
      return "";
    }
    return full;
  }

  std::string ClusterQueueRef(const Cursor& c, const std::string& name) {
    if (!cluster_queues_.contains(name)) {
      c.Fail(fmt::format("ClusterQueue '{}' is not defined in this scenario", name));
      return "";
    }
    return name;
  }

  std::vector<std::string> WorkloadList(const Cursor& c) {
    std::vector<std::string> out;
    if (!c.present()) {
      c.Fail("expected a list of workloads");
      return out;
    }
    for (const Cursor& item : c.Items()) {
      out.push_back(WorkloadRef(item));
      if (!ctx_->ok()) break;
    }
    return out;
  }

  // `submit: {as: principal, objects: [workloads]}`. Unlike `apply`, the workloads are not held to
  // HyperPod's admission policy here: the engine's gate decides at run time, and a refusal is a
  // result the step's `refused:` expectation checks.
  SubmitStep ReadSubmit(const Cursor& c) {
    SubmitStep out;
    if (!c.ExpectMap()) {
      if (ctx_->ok()) c.Fail("expected {as: principal, objects: [workloads]}");
      return out;
    }
    c.CheckKeys({"as", "objects"});
    out.principal = c["as"].RequiredString();
    const Cursor objects = c["objects"];
    if (!objects.present()) objects.Fail("expected a list of workloads");
    if (!ctx_->ok() || !objects.ExpectSequence()) return out;
    std::vector<std::string> notes;
    hyperpod::PolicySet policies;
    internal::ReadObjects(objects, &out.objects, &notes, &policies);
    ctx_->set_object("");
    if (!ctx_->ok()) return out;
    if (!policies.empty()) {
      objects.Fail("submit takes Workloads only; put policies in objects or an apply step");
      return out;
    }
    for (const ManifestObject& o : out.objects) {
      if (!std::holds_alternative<WorkloadSpec>(o.spec)) {
        objects.Fail(fmt::format("submit takes Workloads only, got {}", ObjectDisplayName(o.spec)));
        return out;
      }
    }
    internal::CheckDuplicates(*ctx_, out.objects);
    for (const ManifestObject& o : out.objects) Define(o.spec);
    if (!policies_.empty() || config_->access.has_value()) {
      out.gate = hyperpod::MakeSubmissionGate(governance_, config_->access);
    }
    return out;
  }

  ScenarioStep ReadStep(const Cursor& c) {
    ScenarioStep step{.action = ScheduleStep{}, .source = ctx_->Where(c.line()), .expect = {}};
    if (!c.ExpectMap()) {
      if (ctx_->ok()) c.Fail("expected a step (a map with one action)");
      return step;
    }
    c.CheckKeys({"schedule", "apply", "delete", "finish", "evictionDone", "advance",
                 "preemptionTargets", "assignFlavors", "submit", "evict", "deactivate", "activate",
                 "reclaimablePods", "podsReady", "expect"});
    if (!ctx_->ok()) return step;
    std::vector<std::string_view> actions;
    for (std::string_view a : kActions) {
      if (c.Has(a)) actions.push_back(a);
    }
    if (actions.size() != 1) {
      std::string list;
      for (std::string_view a : (actions.empty() ? std::span<const std::string_view>(kActions)
                                                 : std::span<const std::string_view>(actions))) {
        list += list.empty() ? std::string(a) : ", " + std::string(a);
      }
      c.Fail(actions.empty() ? fmt::format("a step needs one action: {}", list)
                             : fmt::format("a step has exactly one action, got {}", list));
      return step;
    }
    const std::string_view action = actions.front();
    const Cursor v = c[action];
    if (action == "schedule") {
      step.action = ReadSchedule(v);
    } else if (action == "apply") {
      ApplyStep apply;
      if (!v.present()) v.Fail("expected a list of objects");
      std::vector<std::string> notes;
      ReadObjectList(v, &apply.objects, &notes);
      step.action = std::move(apply);
    } else if (action == "submit") {
      step.action = ReadSubmit(v);
    } else if (action == "delete") {
      step.action = ReadDelete(v);
    } else if (action == "finish") {
      step.action = FinishStep{WorkloadList(v)};
    } else if (action == "evictionDone") {
      step.action = EvictionDoneStep{WorkloadList(v)};
    } else if (action == "evict") {
      step.action = ReadEvict(v);
    } else if (action == "deactivate") {
      step.action = DeactivateStep{WorkloadList(v)};
    } else if (action == "activate") {
      step.action = ActivateStep{WorkloadList(v)};
    } else if (action == "reclaimablePods") {
      step.action = ReadReclaimablePods(v);
    } else if (action == "podsReady") {
      step.action = ReadPodsReady(v);
    } else if (action == "advance") {
      const std::string text = v.RequiredString();
      if (!ctx_->ok()) return step;
      absl::StatusOr<Duration> d = ParseGoDuration(text);
      if (!d.ok()) {
        v.Fail(std::string(d.status().message()));
      } else if (d->us < 0) {
        v.Fail(fmt::format("\"{}\" must not be negative (the clock only moves forward)", text));
      }
      step.action = AdvanceStep{d.ok() ? *d : Duration{}};
    } else if (action == "preemptionTargets") {
      step.action = ReadPreemptionTargets(v);
    } else {
      AssignFlavorsStep q;
      if (v.ExpectMap()) {
        v.CheckKeys({"workload", "clusterQueue"});
        q.workload = WorkloadRef(v["workload"]);
        if (const std::string cq = v["clusterQueue"].String(); !cq.empty()) {
          q.cluster_queue = ClusterQueueRef(v["clusterQueue"], cq);
        }
      } else if (ctx_->ok()) {
        v.Fail("expected {workload: ns/name, clusterQueue: name}");
      }
      step.action = q;
    }
    if (!ctx_->ok()) return step;
    if (c["expect"].present()) step.expect = ReadExpectations(c["expect"], step.action);
    return step;
  }

  ScheduleStep ReadSchedule(const Cursor& v) {
    ScheduleStep s;
    if (!v.present()) return s;
    if (!v.ExpectMap()) return s;
    v.CheckKeys({"cycles", "untilStable"});
    if (std::optional<int64_t> n = v["cycles"].OptInt(1, 10000)) s.cycles = static_cast<int>(*n);
    s.until_stable = v["untilStable"].OptBool().value_or(false);
    if (s.until_stable && v.Has("cycles")) v["cycles"].Fail("cannot be used with untilStable");
    return s;
  }

  // `evict: [{workload, reason, message}]`. The reason is checked here as the engine checks it
  // (a Kubernetes condition reason), so a bad one is reported at its line.
  EvictStep ReadEvict(const Cursor& v) {
    EvictStep out;
    if (!v.present() || !v.ExpectSequence()) {
      if (ctx_->ok()) v.Fail("expected a list of {workload, reason, message}");
      return out;
    }
    for (const Cursor& item : v.Items()) {
      if (!item.ExpectMap()) {
        if (ctx_->ok()) item.Fail("expected {workload, reason, message}");
        break;
      }
      item.CheckKeys({"workload", "reason", "message"});
      EvictStep::Item e;
      e.workload = WorkloadRef(item["workload"]);
      if (!ctx_->ok()) break;
      const Cursor reason = item["reason"];
      e.reason = reason.RequiredString();
      if (!ctx_->ok()) break;
      const std::string_view r = e.reason;
      const bool valid = r.size() <= 1024 && absl::ascii_isalpha(static_cast<unsigned char>(r.front())) &&
                         std::all_of(r.begin(), r.end(), [](char ch) {
                           return absl::ascii_isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == ',' ||
                                  ch == ':';
                         }) &&
                         r.back() != ',' && r.back() != ':';
      if (!valid) {
        reason.Fail(fmt::format("\"{}\" is not a condition reason (CamelCase, such as NodeFailures)", e.reason));
        break;
      }
      e.message = item["message"].String();
      if (!ctx_->ok()) break;
      out.items.push_back(std::move(e));
    }
    return out;
  }

  // `podsReady: [ns/name, {workload: ns/name, ready: false}]`; a bare name means ready.
  PodsReadyStep ReadPodsReady(const Cursor& v) {
    PodsReadyStep out;
    if (!v.present() || !v.ExpectSequence()) {
      if (ctx_->ok()) v.Fail("expected a list of workloads or {workload, ready}");
      return out;
    }
    for (const Cursor& item : v.Items()) {
      PodsReadyStep::Item p;
      if (item.is_map()) {
        item.CheckKeys({"workload", "ready"});
        p.workload = WorkloadRef(item["workload"]);
        p.ready = item["ready"].OptBool().value_or(true);
      } else {
        p.workload = WorkloadRef(item);
      }
      if (!ctx_->ok()) break;
      out.items.push_back(std::move(p));
    }
    return out;
  }

  // `reclaimablePods: [{workload, podSet, count}]`; the pod set is checked when the step runs.
  ReclaimablePodsStep ReadReclaimablePods(const Cursor& v) {
    ReclaimablePodsStep out;
    if (!v.present() || !v.ExpectSequence()) {
      if (ctx_->ok()) v.Fail("expected a list of {workload, podSet, count}");
      return out;
    }
    for (const Cursor& item : v.Items()) {
      if (!item.ExpectMap()) {
        if (ctx_->ok()) item.Fail("expected {workload, podSet, count}");
        break;
      }
      item.CheckKeys({"workload", "podSet", "count"});
      ReclaimablePodsStep::Item r;
      r.workload = WorkloadRef(item["workload"]);
      if (!ctx_->ok()) break;
      r.pod_set = item["podSet"].OptString().value_or("main");
      const Cursor count = item["count"];
      if (!count.present()) count.Fail("is required");
      if (!ctx_->ok()) break;
      const std::optional<int64_t> n = count.OptInt(0, std::numeric_limits<int32_t>::max());
      if (!ctx_->ok() || !n) break;
      r.count = static_cast<int32_t>(*n);
      out.items.push_back(std::move(r));
    }
    return out;
  }

  DeleteStep ReadDelete(const Cursor& v) {
    DeleteStep d;
    if (!v.present()) v.Fail("expected a list of {kind, namespace, name}");
    for (const Cursor& item : v.Items()) {
      if (!item.ExpectMap()) {
        if (ctx_->ok()) item.Fail("expected {kind, namespace, name}");
        break;
      }
      item.CheckKeys({"kind", "namespace", "name"});
      ObjectRef ref;
      const Cursor kind = item["kind"];
      if (!kind.present()) kind.Fail("is required");
      ref.kind = kind.OptEnum<ObjectKind>(kKinds).value_or(ObjectKind::kWorkload);
      ref.name = item["name"].RequiredString();
      if (!ctx_->ok()) break;
      if (ref.kind == ObjectKind::kWorkload || ref.kind == ObjectKind::kLocalQueue) {
        ref.namespace_ = item["namespace"].String();
        DefaultNamespace(ref.namespace_);
      }
      if (ref.kind == ObjectKind::kWorkload) {
        CheckWorkloadName(item["name"], ref.namespace_ + "/" + ref.name);
      }
      d.refs.push_back(std::move(ref));
    }
    return d;
  }

  PreemptionTargetsStep ReadPreemptionTargets(const Cursor& v) {
    PreemptionTargetsStep q;
    if (!v.ExpectMap()) {
      if (ctx_->ok()) v.Fail("expected {workload, clusterQueue, assignment}");
      return q;
    }
    v.CheckKeys({"workload", "clusterQueue", "assignment"});
    q.workload = WorkloadRef(v["workload"]);
    const Cursor cq = v["clusterQueue"];
    q.cluster_queue = ClusterQueueRef(cq, cq.RequiredString());
    const Cursor assignment = v["assignment"];
    if (!assignment.present()) assignment.Fail("is required");
    for (const auto& [pod_set, resources] : assignment.Entries()) {
      for (const auto& [resource, value] : resources.Entries()) {
        RequestedFlavor rf{.pod_set = pod_set, .resource = resource, .flavor = "",
                           .mode = AssignmentMode::kPreempt};
        if (value.is_map()) {
          value.CheckKeys({"flavor", "mode"});
          rf.flavor = value["flavor"].RequiredString();
          rf.mode = value["mode"].OptEnum<AssignmentMode>(kRequestModes).value_or(
              AssignmentMode::kPreempt);
        } else {
          rf.flavor = value.RequiredString();
        }
        q.assignment.push_back(std::move(rf));
      }
    }
    return q;
  }

  std::map<std::string, ExpectedAdmission> ReadAdmissions(const Cursor& c) {
    std::map<std::string, ExpectedAdmission> out;
    for (const auto& [workload, value] : c.Entries()) {
      const std::string name = CheckWorkloadName(value, workload);
      if (!value.ExpectMap()) {
        if (ctx_->ok()) value.Fail("expected {clusterQueue: name, podSets: {...}}");
        return out;
      }
      value.CheckKeys({"clusterQueue", "podSets"});
      ExpectedAdmission a;
      const Cursor cq = value["clusterQueue"];
      a.cluster_queue = ClusterQueueRef(cq, cq.RequiredString());
      for (const auto& [pod_set, ps] : value["podSets"].Entries()) {
        ExpectedPodSet eps;
        if (ps.is_map() && ps["flavors"].is_map()) {
          ps.CheckKeys({"flavors", "count"});
          for (const auto& [r, f] : ps["flavors"].StringMap()) eps.flavors[r] = f;
          if (std::optional<int64_t> n = ps["count"].OptInt(0, std::numeric_limits<int32_t>::max())) {
            eps.count = static_cast<int32_t>(*n);
          }
        } else {
          for (const auto& [r, f] : ps.StringMap()) eps.flavors[r] = f;
        }
        a.pod_sets[pod_set] = std::move(eps);
      }
      if (!ctx_->ok()) return out;
      out[name] = std::move(a);
    }
    return out;
  }

  ExpectedPreemptions ReadPreemptions(const Cursor& c) {
    ExpectedPreemptions out;
    if (c.is_map()) {
      out.with_reasons = true;
      for (const auto& [workload, reason] : c.Entries()) {
        const std::string name = CheckWorkloadName(reason, workload);
        if (!reason.present()) reason.Fail("expected a preemption reason");
        const std::optional<PreemptionReason> r = reason.OptEnum<PreemptionReason>(kReasons);
        if (!ctx_->ok()) return out;
        out.workloads[name] = *r;
      }
      return out;
    }
    if (!c.present()) return out;  // `preempted:` with no value: none
    if (!c.is_sequence()) {
      c.Fail(fmt::format("expected a list of workloads or a map workload: reason, got {}",
                         c.TypeName()));
      return out;
    }
    for (const Cursor& item : c.Items()) {
      const std::string name = WorkloadRef(item);
      if (!ctx_->ok()) return out;
      out.workloads[name] = PreemptionReason::kInClusterQueue;
    }
    return out;
  }

  std::map<std::string, std::vector<std::string>> ReadQueueLists(const Cursor& c) {
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& [cq, list] : c.Entries()) {
      ClusterQueueRef(list, cq);
      std::vector<std::string> names;
      if (list.present()) names = WorkloadList(list);
      if (!ctx_->ok()) return out;
      std::sort(names.begin(), names.end());
      if (!names.empty()) out[cq] = std::move(names);
    }
    return out;
  }

  Expectations ReadExpectations(const Cursor& c, const StepAction& action) {
    Expectations e;
    e.source = ctx_->Where(c.line());
    if (!c.ExpectMap()) return e;
    c.CheckKeys({"admitted", "admissions", "preempted", "pending", "inadmissible", "targets",
                 "assignment", "representativeMode", "borrowing", "messages", "reasons", "requeueState", "usage", "borrowed",
                 "weightedShares", "refused", "localQueues"});
    if (!ctx_->ok()) return e;
    if (c.Has("refused") && !std::holds_alternative<SubmitStep>(action)) {
      c["refused"].Fail("only a submit step has refused");
    }
    const bool targets_step = std::holds_alternative<PreemptionTargetsStep>(action);
    const bool assign_step = std::holds_alternative<AssignFlavorsStep>(action);
    if (!targets_step && c.Has("targets")) {
      c["targets"].Fail("only a preemptionTargets step has targets");
    }
    for (std::string_view key : {"assignment", "representativeMode", "borrowing"}) {
      if (!assign_step && c.Has(key)) {
        c[key].Fail(fmt::format("only an assignFlavors step has {}", key));
      }
    }
    if (!ctx_->ok()) return e;
    if (c.Has("admitted")) e.admitted = ReadAdmissions(c["admitted"]);
    if (c.Has("admissions")) e.admissions = ReadAdmissions(c["admissions"]);
    if (c.Has("preempted")) e.preempted = ReadPreemptions(c["preempted"]);
    if (c.Has("targets")) e.targets = ReadPreemptions(c["targets"]);
    if (c.Has("pending")) e.pending = ReadQueueLists(c["pending"]);
    if (c.Has("inadmissible")) e.inadmissible = ReadQueueLists(c["inadmissible"]);
    if (c.Has("assignment")) {
      e.assignment.emplace();
      for (const auto& [pod_set, resources] : c["assignment"].Entries()) {
        for (const auto& [resource, value] : resources.Entries()) {
          if (!value.ExpectMap()) {
            if (ctx_->ok()) value.Fail("expected {flavor: name, mode: Fit|Preempt|NoFit}");
            break;
          }
          value.CheckKeys({"flavor", "mode"});
          ExpectedResourceAssignment ra;
          ra.flavor = value["flavor"].String();
          if (!value["mode"].present()) value["mode"].Fail("is required");
          ra.mode = value["mode"].OptEnum<AssignmentMode>(kModes).value_or(AssignmentMode::kNoFit);
          (*e.assignment)[pod_set][resource] = ra;
        }
      }
    }
    if (c.Has("representativeMode")) {
      e.representative_mode = c["representativeMode"].OptEnum<AssignmentMode>(kModes);
      if (!e.representative_mode && ctx_->ok()) c["representativeMode"].Fail("is required");
    }
    if (c.Has("borrowing")) {
      e.borrowing = c["borrowing"].OptBool();
      if (!e.borrowing && ctx_->ok()) c["borrowing"].Fail("expected true or false");
    }
    if (std::holds_alternative<SubmitStep>(action)) e.refused.emplace();
    for (const auto& [workload, text] : c["refused"].Entries()) {
      const std::string name = CheckWorkloadName(text, workload);
      const std::string message = text.String();
      if (!ctx_->ok()) return e;
      (*e.refused)[name] = message;
    }
    for (const auto& [workload, text] : c["messages"].Entries()) {
      const std::string name = CheckWorkloadName(text, workload);
      const std::string message = text.RequiredString();
      if (!ctx_->ok()) return e;
      e.messages[name] = message;
    }
    for (const auto& [workload, text] : c["reasons"].Entries()) {
      const std::string name = CheckWorkloadName(text, workload);
      const std::string reason = text.RequiredString();
      if (!ctx_->ok()) return e;
      e.reasons[name] = reason;
    }
    for (const auto& [workload, v] : c["requeueState"].Entries()) {
      const std::string name = CheckWorkloadName(v, workload);
      if (!ctx_->ok() || !v.ExpectMap()) return e;
      v.CheckKeys({"count", "requeueAt"});
      Expectations::ExpectedRequeueState want;
      want.count = static_cast<int32_t>(v["count"].OptInt(0, std::numeric_limits<int32_t>::max()).value_or(0));
      if (v.Has("requeueAt")) {
        want.check_at = true;
        if (const std::optional<Time> at = ReadTime(v["requeueAt"])) want.at = *at;
      }
      if (!ctx_->ok()) return e;
      e.requeue_states[name] = want;
    }
    for (const auto& [name, value] : c["weightedShares"].Entries()) {
      const std::optional<std::string> text = value.OptString();
      if (text.has_value() && *text == "max") {
        e.weighted_shares[name] = std::numeric_limits<int64_t>::max();
        continue;
      }
      const std::optional<int64_t> v = value.OptInt(0, std::numeric_limits<int64_t>::max());
      if (!v.has_value()) {
        if (ctx_->ok()) value.Fail("expected a non-negative integer or \"max\"");
        return e;
      }
      e.weighted_shares[name] = *v;
    }
    for (const auto& [queue, v] : c["localQueues"].Entries()) {
      const std::string name = LocalQueueRef(v, queue);
      if (!ctx_->ok() || !v.ExpectMap()) return e;
      v.CheckKeys({"active", "reason", "message", "pendingWorkloads", "reservingWorkloads", "admittedWorkloads",
                   "flavorsReservation", "flavorsUsage"});
      Expectations::ExpectedLocalQueue want;
      if (v.Has("active")) {
        want.active = v["active"].OptBool();
        if (!want.active && ctx_->ok()) v["active"].Fail("expected true or false");
      }
      if (v.Has("reason")) want.reason = v["reason"].RequiredString();
      if (v.Has("message")) want.message = v["message"].RequiredString();
      constexpr int64_t kMaxCount = std::numeric_limits<int32_t>::max();
      if (v.Has("pendingWorkloads")) want.pending_workloads = v["pendingWorkloads"].OptInt(0, kMaxCount);
      if (v.Has("reservingWorkloads")) want.reserving_workloads = v["reservingWorkloads"].OptInt(0, kMaxCount);
      if (v.Has("admittedWorkloads")) want.admitted_workloads = v["admittedWorkloads"].OptInt(0, kMaxCount);
      if (v.Has("flavorsReservation")) want.flavors_reservation = ReadFlavorTotals(v["flavorsReservation"]);
      if (v.Has("flavorsUsage")) want.flavors_usage = ReadFlavorTotals(v["flavorsUsage"]);
      if (!ctx_->ok()) return e;
      e.local_queues[name] = std::move(want);
    }
    if (c.Has("usage")) e.usage = ReadUsage(c["usage"]);
    if (c.Has("borrowed")) e.borrowed = ReadUsage(c["borrowed"]);
    return e;
  }

  // A LocalQueue status's flavor list, `{flavor: {resource: qty}}` in Kueue's order; `{}` is empty.
  std::vector<LocalQueueFlavorTotals> ReadFlavorTotals(const Cursor& c) {
    std::vector<LocalQueueFlavorTotals> out;
    if (!c.ExpectMap()) return out;
    for (const auto& [flavor, resources] : c.Entries()) {
      LocalQueueFlavorTotals& totals = out.emplace_back();
      totals.flavor = flavor;
      if (!resources.ExpectMap()) return out;
      for (const auto& [resource, amount] : resources.Entries()) {
        const std::optional<int64_t> v = internal::ReadQuota(amount, resource);
        if (!v.has_value()) {
          if (ctx_->ok()) amount.Fail("a quantity is required");
          return out;
        }
        totals.resources.emplace_back(resource, *v);
      }
      std::sort(totals.resources.begin(), totals.resources.end());
    }
    return out;
  }

  // ClusterQueue → flavor → resource → quantity, zero amounts dropped (`usage:`, `borrowed:`).
  std::map<std::string, std::map<std::string, std::map<std::string, int64_t>>> ReadUsage(const Cursor& c) {
    std::map<std::string, std::map<std::string, std::map<std::string, int64_t>>> out;
    for (const auto& [cq, flavors] : c.Entries()) {
      ClusterQueueRef(flavors, cq);
      for (const auto& [flavor, resources] : flavors.Entries()) {
        for (const auto& [resource, amount] : resources.Entries()) {
          const std::optional<int64_t> v = internal::ReadQuota(amount, resource);
          if (!v.has_value()) {
            if (ctx_->ok()) amount.Fail("a quantity is required");
            return out;
          }
          if (*v != 0) out[cq][flavor][resource] = *v;
        }
      }
    }
    return out;
  }

  LoadContext* ctx_;
  ScenarioConfig* config_ = nullptr;
  Cursor fair_sharing_cursor_{nullptr, YAML::Node(), "", 0};
  hyperpod::PolicySet policies_;        // every HyperPod policy so far
  hyperpod::Governance governance_;     // and its submission rules
  std::set<std::string> workloads_;       // "ns/name" defined by objects and apply steps so far
  std::set<std::string> cluster_queues_;  // likewise
  std::set<std::string> local_queues_;    // "ns/name", likewise
};

}  // namespace

const char* StepActionName(const StepAction& action) {
  static constexpr const char* kNames[] = {"schedule", "apply",   "delete",
                                           "finish",   "evictionDone", "advance",
                                           "preemptionTargets", "assignFlavors", "submit",
                                           "evict", "deactivate", "activate", "reclaimablePods",
                                           "podsReady"};
  return kNames[action.index()];
}

absl::StatusOr<Scenario> LoadScenarioString(std::string_view yaml, std::string_view source_name) {
  LoadContext ctx{std::string(source_name)};
  std::vector<YAML::Node> docs;
  QM_RETURN_IF_ERROR(internal::LoadYamlDocuments(yaml, ctx.file(), &docs));
  if (docs.size() != 1) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: a scenario file holds exactly one YAML document, got {}", ctx.file(), docs.size()));
  }
  Scenario scenario;
  scenario.path = std::string(source_name);
  try {
    const Cursor root = Cursor::Root(&ctx, docs.front());
    if (!root.is_map()) {
      root.Fail(fmt::format("expected a scenario (a map with name, objects, steps), got {}",
                            root.TypeName()));
    } else {
      ScenarioReader(&ctx).Read(root, &scenario);
    }
  } catch (const YAML::Exception& e) {
    return internal::YamlExceptionStatus(e, ctx.file());
  }
  if (!ctx.ok()) return ctx.status();
  return scenario;
}

absl::StatusOr<Scenario> LoadScenarioFile(const std::string& path) {
  QM_ASSIGN_OR_RETURN(std::string text, internal::ReadTextFile(path));
  return LoadScenarioString(text, path);
}

}  // namespace qm
