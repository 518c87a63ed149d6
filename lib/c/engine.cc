// Engine lifetime and configuration, clock and timers, YAML apply, workload operations and
// scheduling cycles.
#include <optional>
#include <string>
#include <vector>

#include "c/c_api_internal.h"
#include "fmt/format.h"
#include "qm/io/manifest.h"
#include "qm/model/namespace_name.h"

namespace qm::c {
namespace {

// "Gate=true,Other=false" (Kueue's --feature-gates) into `gates`.
absl::Status ParseFeatureGates(std::string_view text, FeatureGates& gates) {
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return absl::InvalidArgumentError(
          fmt::format("feature_gates: '{}' is not Gate=true or Gate=false", item));
    }
    const std::string_view name = item.substr(0, eq), value = item.substr(eq + 1);
    if (value != "true" && value != "false") {
      return absl::InvalidArgumentError(
          fmt::format("feature_gates: {}: value '{}' is not true or false", name, value));
    }
    if (absl::Status st = gates.Set(name, value == "true"); !st.ok()) {
      return absl::InvalidArgumentError(fmt::format("feature_gates: {}", std::string(st.message())));
    }
  }
  return gates.Validate();
}

}  // namespace

absl::StatusOr<EngineConfig> ConfigFromOptions(const qm_engine_options* options) {
  EngineConfig config;
  if (options == nullptr) return config;
  QM_RETURN_IF_ERROR(CheckVersion(options->version, QM_ENGINE_OPTIONS_VERSION, "qm_engine_options"));
  config.fair_sharing.enabled = options->fair_sharing != 0;
  if (options->legacy_messages != 0) config.message_style = MessageStyle::kLegacy;
  QM_ASSIGN_OR_RETURN(std::string_view gates, OptionalText(options->feature_gates, "feature_gates"));
  if (absl::Status st = ParseFeatureGates(gates, config.features); !st.ok()) return st;
  return config;
}

absl::Status AddConfiguration(std::string_view text, std::string_view source,
                              const qm_engine_options* options, EngineConfig& config) {
  // The manifest reader reads a Kueue Configuration document (fairSharing, featureGates,
  // antiThrash) and reports an invalid field at its line.
  QM_ASSIGN_OR_RETURN(Manifest manifest, ReadManifestString(text, source));
  const auto only_configuration = [&](std::string_view found) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: only a Kueue Configuration document (apiVersion config.kueue.x-k8s.io/v1beta1, kind "
        "Configuration) belongs here, found {}; apply objects with qm_engine_apply_yaml",
        source, found));
  };
  if (!manifest.objects.empty()) {
    const ManifestObject& o = manifest.objects.front();
    return only_configuration(fmt::format("{} at {}", ObjectDisplayName(o.spec), o.source));
  }
  if (!manifest.nodes.empty()) return only_configuration("a Node");
  if (!manifest.notes.empty()) {
    return only_configuration(fmt::format("other objects ({})", manifest.notes.front()));
  }
  if (manifest.inventory || manifest.message_style) return only_configuration("HyperPod policies");
  if (manifest.fair_sharing) {
    if (options != nullptr && options->fair_sharing != 0 && !manifest.fair_sharing->enabled) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: Configuration: fairSharing.enable: false disagrees with options fair_sharing = 1; "
          "set fair sharing in one place",
          source));
    }
    const bool enabled = config.fair_sharing.enabled || manifest.fair_sharing->enabled;
    config.fair_sharing = *manifest.fair_sharing;
    config.fair_sharing.enabled = enabled;
  }
  if (manifest.features) {
    const bool options_gates = options != nullptr && options->feature_gates != nullptr &&
                               options->feature_gates[0] != '\0';
    if (options_gates) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: Configuration: featureGates: options feature_gates is set too; set the gates in one "
          "place (as Kueue refuses --feature-gates together with a Configuration's featureGates)",
          source));
    }
    config.features = *manifest.features;
  }
  config.anti_thrash = std::move(manifest.anti_thrash);
  config.refill = manifest.refill;
  config.wait_for_pods_ready = manifest.wait_for_pods_ready;
  return absl::OkStatus();
}

// Wraps a created engine in a live handle.
qm_engine* NewHandle(Engine engine) {
  auto handle = std::make_unique<qm_engine>();
  handle->magic = kLiveMagic;
  handle->engine = std::make_unique<Engine>(std::move(engine));
  return handle.release();
}

}  // namespace qm::c

namespace qm::c {
namespace {

// Runs `op(engine, namespace, name)` after checking the name arguments.
template <class Op>
qm_status ByName(qm_engine* engine, const char* namespace_name, const char* name, Op&& op) {
  return qm::c::RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_ASSIGN_OR_RETURN(std::string_view ns, qm::c::OptionalText(namespace_name, "namespace"));
    QM_ASSIGN_OR_RETURN(std::string_view n, qm::c::Text(name, "name"));
    return op(e, qm::NamespaceOrDefault(ns), n);
  });
}

// Writes a cycle summary field by field, only the fields of the caller's version: assigning the
// whole struct would write past a smaller, older layout.
void FillSummary(uint64_t cycle, int64_t cycles, int64_t admitted, int64_t preempted,
                 int64_t pending, bool settled, qm_cycle_summary& out) {
  out.cycle = cycle;
  out.cycles = cycles;
  out.admitted = admitted;
  out.preempted = preempted;
  out.pending = pending;
  if (out.version >= 2) out.settled = settled ? 1 : 0;
}

template <class Op>
qm_status ByHandle(qm_engine* engine, uint64_t handle, Op&& op) {
  return qm::c::RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    return op(e, qm::WorkloadHandle::Unpack(handle));
  });
}

}  // namespace
}  // namespace qm::c

using qm::c::RunOnEngine;
using qm::c::ByHandle;
using qm::c::ByName;

extern "C" {

QM_C_EXPORT qm_status qm_engine_create(const qm_engine_options* options, qm_engine** out) {
  return qm_engine_create_with_config(options, nullptr, nullptr, out);
}

QM_C_EXPORT qm_status qm_engine_create_with_config(const qm_engine_options* options,
                                                   const char* configuration,
                                                   const char* source_name, qm_engine** out) {
  return qm::c::Run([&]() -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(out, "out"));
    *out = nullptr;
    QM_ASSIGN_OR_RETURN(qm::EngineConfig config, qm::c::ConfigFromOptions(options));
    QM_ASSIGN_OR_RETURN(std::string_view text, qm::c::OptionalText(configuration, "configuration"));
    QM_ASSIGN_OR_RETURN(std::string_view source, qm::c::OptionalText(source_name, "source_name"));
    if (!text.empty()) {
      QM_RETURN_IF_ERROR(qm::c::AddConfiguration(text, source.empty() ? "<configuration>" : source,
                                                 options, config));
    }
    QM_ASSIGN_OR_RETURN(qm::Engine engine, qm::Engine::Create(std::move(config)));
    if (options != nullptr && options->start_time_unix_micros != 0) {
      QM_RETURN_IF_ERROR(engine.SetNow(qm::Time::FromUnixMicros(options->start_time_unix_micros)));
    }
    *out = qm::c::NewHandle(std::move(engine));
    return absl::OkStatus();
  });
}

QM_C_EXPORT void qm_engine_destroy(qm_engine* engine) {
  if (engine == nullptr) return;
  try {
    if (engine->magic != qm::c::kLiveMagic) {
      qm::c::SetThreadError("qm_engine_destroy: engine was already destroyed");
      return;
    }
    // Claims the engine as a call would: a plain load could see it idle just before another
    // thread's call claims it, and free it under that call. Once claimed, no call can start.
    if (engine->busy.exchange(true, std::memory_order_acquire)) {
      // Freeing it under a running call would crash that call; refusing leaks it instead.
      qm::c::SetThreadError("qm_engine_destroy: engine is in use by another call; not destroyed");
      return;
    }
    qm::c::Retire(engine);
  } catch (...) {
    qm::c::SetThreadError("qm_engine_destroy: internal error");
  }
}

QM_C_EXPORT const char* qm_engine_last_error(const qm_engine* engine) {
  if (engine == nullptr || engine->magic != qm::c::kLiveMagic) return qm_last_error();
  return engine->last_error.c_str();
}

QM_C_EXPORT qm_status qm_engine_now(qm_engine* engine, int64_t* unix_micros) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(unix_micros, "unix_micros"));
    *unix_micros = e.Now().us;
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_set_now(qm_engine* engine, int64_t unix_micros) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    return e.SetNow(qm::Time::FromUnixMicros(unix_micros));
  });
}

QM_C_EXPORT qm_status qm_engine_reserve(qm_engine* engine, int64_t workloads) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status { return e.Reserve(workloads); });
}

QM_C_EXPORT qm_status qm_engine_next_timed_change(qm_engine* engine, int64_t* unix_micros,
                                                  int* has) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(unix_micros, "unix_micros"));
    QM_RETURN_IF_ERROR(qm::c::NeedOut(has, "has"));
    const std::optional<qm::Time> next = e.NextTimedChange();
    *has = next.has_value() ? 1 : 0;
    *unix_micros = next.has_value() ? next->us : 0;
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_apply_yaml(qm_engine* engine, const char* text,
                                           const char* source_name) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_ASSIGN_OR_RETURN(std::string_view yaml, qm::c::Text(text, "text"));
    QM_ASSIGN_OR_RETURN(std::string_view source, qm::c::OptionalText(source_name, "source_name"));
    if (source.empty()) source = "<input>";
    QM_ASSIGN_OR_RETURN(qm::Manifest manifest, qm::ReadManifestString(yaml, source));
    return qm::ApplyManifest(e, manifest.objects);
  });
}

// ---- Workloads ------------------------------------------------------------------------------------

QM_C_EXPORT qm_status qm_engine_find_workload(qm_engine* engine, const char* namespace_name,
                                              const char* name, uint64_t* handle) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_ASSIGN_OR_RETURN(std::string_view ns, qm::c::OptionalText(namespace_name, "namespace"));
    QM_ASSIGN_OR_RETURN(std::string_view n, qm::c::Text(name, "name"));
    QM_RETURN_IF_ERROR(qm::c::NeedOut(handle, "handle"));
    const qm::WorkloadHandle found = e.FindWorkload(qm::NamespaceOrDefault(ns), n);
    if (!found.valid()) {
      return absl::NotFoundError(
          fmt::format("workload '{}/{}' not found", qm::NamespaceOrDefault(ns), n));
    }
    *handle = found.Pack();
    return absl::OkStatus();
  });
}


QM_C_EXPORT qm_status qm_engine_finish(qm_engine* engine, const char* namespace_name,
                                       const char* name) {
  return ByName(engine, namespace_name, name,
                [](qm::Engine& e, std::string_view ns, std::string_view n) { return e.Finish(ns, n); });
}

QM_C_EXPORT qm_status qm_engine_finish_h(qm_engine* engine, uint64_t handle) {
  return ByHandle(engine, handle, [](qm::Engine& e, qm::WorkloadHandle w) { return e.Finish(w); });
}

QM_C_EXPORT qm_status qm_engine_evict(qm_engine* engine, const char* namespace_name,
                                      const char* name, const char* reason, const char* message) {
  return ByName(engine, namespace_name, name,
                [&](qm::Engine& e, std::string_view ns, std::string_view n) -> absl::Status {
                  QM_ASSIGN_OR_RETURN(std::string_view r, qm::c::Text(reason, "reason"));
                  QM_ASSIGN_OR_RETURN(std::string_view m, qm::c::OptionalText(message, "message"));
                  return e.Evict(ns, n, r, m);
                });
}

QM_C_EXPORT qm_status qm_engine_evict_h(qm_engine* engine, uint64_t handle, const char* reason,
                                        const char* message) {
  return ByHandle(engine, handle, [&](qm::Engine& e, qm::WorkloadHandle w) -> absl::Status {
    QM_ASSIGN_OR_RETURN(std::string_view r, qm::c::Text(reason, "reason"));
    QM_ASSIGN_OR_RETURN(std::string_view m, qm::c::OptionalText(message, "message"));
    return e.Evict(w, r, m);
  });
}

QM_C_EXPORT qm_status qm_engine_confirm_evicted(qm_engine* engine, const char* namespace_name,
                                                const char* name) {
  return ByName(engine, namespace_name, name,
                [](qm::Engine& e, std::string_view ns, std::string_view n) {
                  return e.ConfirmEvicted(ns, n);
                });
}

QM_C_EXPORT qm_status qm_engine_confirm_evicted_h(qm_engine* engine, uint64_t handle) {
  return ByHandle(engine, handle,
                  [](qm::Engine& e, qm::WorkloadHandle w) { return e.ConfirmEvicted(w); });
}

QM_C_EXPORT qm_status qm_engine_confirm_all_evicted(qm_engine* engine, int* count) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    const int confirmed = e.ConfirmAllEvicted();
    if (count != nullptr) *count = confirmed;
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_delete_workload(qm_engine* engine, const char* namespace_name,
                                                const char* name) {
  uint64_t handle = 0;
  if (const qm_status found = qm_engine_find_workload(engine, namespace_name, name, &handle);
      found != QM_OK) {
    return found;  // its message is the engine's (or the thread's) already
  }
  return qm_engine_delete_workload_h(engine, handle);
}

QM_C_EXPORT qm_status qm_engine_delete_workload_h(qm_engine* engine, uint64_t handle) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine& h) -> absl::Status {
    // The name first: after `Delete` the handle is stale and the QM_EVENT_DELETED event built
    // from it would have none.
    const qm::WorkloadHandle w = qm::WorkloadHandle::Unpack(handle);
    std::string name = e.WorkloadName(w);
    QM_RETURN_IF_ERROR(e.Delete(w));
    h.deleted_names.clear();
    h.deleted_names.emplace_back(handle, std::move(name));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_deactivate(qm_engine* engine, const char* namespace_name,
                                           const char* name) {
  return ByName(engine, namespace_name, name,
                [](qm::Engine& e, std::string_view ns, std::string_view n) {
                  return e.Deactivate(ns, n);
                });
}

QM_C_EXPORT qm_status qm_engine_deactivate_h(qm_engine* engine, uint64_t handle) {
  return ByHandle(engine, handle, [](qm::Engine& e, qm::WorkloadHandle w) { return e.Deactivate(w); });
}

QM_C_EXPORT qm_status qm_engine_activate(qm_engine* engine, const char* namespace_name,
                                         const char* name) {
  return ByName(engine, namespace_name, name,
                [](qm::Engine& e, std::string_view ns, std::string_view n) {
                  return e.Activate(ns, n);
                });
}

QM_C_EXPORT qm_status qm_engine_activate_h(qm_engine* engine, uint64_t handle) {
  return ByHandle(engine, handle, [](qm::Engine& e, qm::WorkloadHandle w) { return e.Activate(w); });
}

QM_C_EXPORT qm_status qm_engine_set_reclaimable_pods(qm_engine* engine, const char* namespace_name,
                                                     const char* name, const char* pod_set,
                                                     int32_t count) {
  return ByName(engine, namespace_name, name,
                [&](qm::Engine& e, std::string_view ns, std::string_view n) -> absl::Status {
                  QM_ASSIGN_OR_RETURN(std::string_view ps, qm::c::OptionalText(pod_set, "pod_set"));
                  return e.SetReclaimablePods(ns, n, ps.empty() ? "main" : ps, count);
                });
}

QM_C_EXPORT qm_status qm_engine_set_reclaimable_pods_h(qm_engine* engine, uint64_t handle,
                                                       const char* pod_set, int32_t count) {
  return ByHandle(engine, handle, [&](qm::Engine& e, qm::WorkloadHandle w) -> absl::Status {
    QM_ASSIGN_OR_RETURN(std::string_view ps, qm::c::OptionalText(pod_set, "pod_set"));
    return e.SetReclaimablePods(w, ps.empty() ? "main" : ps, count);
  });
}

QM_C_EXPORT qm_status qm_engine_set_pods_ready(qm_engine* engine, const char* namespace_name, const char* name,
                                              int ready) {
  return ByName(engine, namespace_name, name, [&](qm::Engine& e, std::string_view ns, std::string_view n) {
    return e.SetPodsReady(ns, n, ready != 0);
  });
}

QM_C_EXPORT qm_status qm_engine_set_pods_ready_h(qm_engine* engine, uint64_t handle, int ready) {
  return ByHandle(engine, handle, [&](qm::Engine& e, qm::WorkloadHandle w) { return e.SetPodsReady(w, ready != 0); });
}

// ---- Cycles ---------------------------------------------------------------------------------------

QM_C_EXPORT qm_status qm_engine_schedule_cycle(qm_engine* engine, qm_cycle_summary* summary) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    if (summary != nullptr) {
      QM_RETURN_IF_ERROR(
          qm::c::CheckVersion(summary->version, QM_CYCLE_SUMMARY_VERSION, "qm_cycle_summary"));
    }
    const qm::CycleResult& r = e.ScheduleCycle();
    QM_RETURN_IF_ERROR(r.status);
    if (summary != nullptr) {
      qm::c::FillSummary(r.cycle, 1, r.admitted, r.preempted, r.pending, r.settled(), *summary);
    }
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_run_until_stable(qm_engine* engine, int max_cycles, int* cycles) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    if (max_cycles <= 0) {
      return absl::InvalidArgumentError(fmt::format("max_cycles: {} must be > 0", max_cycles));
    }
    const int ran = e.RunUntilStable(max_cycles);
    if (cycles != nullptr) *cycles = ran;
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_engine_run_until_settled(qm_engine* engine, int max_cycles,
                                                  qm_cycle_summary* summary) {
  return RunOnEngine(engine, [&](qm::Engine& e, qm_engine&) -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(summary, "summary"));
    QM_RETURN_IF_ERROR(
        qm::c::CheckVersion(summary->version, QM_CYCLE_SUMMARY_VERSION, "qm_cycle_summary"));
    if (max_cycles <= 0) {
      return absl::InvalidArgumentError(fmt::format("max_cycles: {} must be > 0", max_cycles));
    }
    const qm::StableRun run = e.RunUntilSettled(max_cycles);
    if (run.cycles == 0) return absl::FailedPreconditionError("no cycle ran (the call was refused)");
    qm::c::FillSummary(run.last_cycle, run.cycles, run.admitted, run.preempted, run.pending,
                       run.settled, *summary);
    return absl::OkStatus();
  });
}

}  // extern "C"
