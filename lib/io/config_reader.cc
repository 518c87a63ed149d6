#include "io/config_reader.h"

#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "qm/text/time_text.h"
#include "qm/model/config_validation.h"

namespace qm::internal {
namespace {

constexpr std::pair<std::string_view, FairSharingStrategy> kStrategies[] = {
    {"LessThanOrEqualToFinalShare", FairSharingStrategy::kLessThanOrEqualToFinalShare},
    {"LessThanInitialShare", FairSharingStrategy::kLessThanInitialShare}};

constexpr std::pair<std::string_view, PreemptionReason> kReasons[] = {
    {"InClusterQueue", PreemptionReason::kInClusterQueue},
    {"InCohortReclamation", PreemptionReason::kInCohortReclamation},
    {"InCohortFairSharing", PreemptionReason::kInCohortFairSharing},
    {"InCohortReclaimWhileBorrowing", PreemptionReason::kInCohortReclaimWhileBorrowing}};

// A Go duration; `fallback` when absent; an error naming the field when malformed or negative.
Duration ReadDuration(const Cursor& c, Duration fallback) {
  const std::optional<std::string> text = c.OptString();
  if (!text.has_value()) return fallback;
  absl::StatusOr<Duration> d = ParseGoDuration(*text);
  if (!d.ok()) {
    c.Fail(std::string(d.status().message()));
    return fallback;
  }
  if (d->us < 0) {
    c.Fail(fmt::format("\"{}\" must not be negative", *text));
    return fallback;
  }
  return *d;
}

}  // namespace

void ReadFairSharing(const Cursor& c, FairSharingConfig* out) {
  if (!c.ExpectMap()) return;
  c.CheckKeys({"enable", "preemptionStrategies", "historicalShare"});
  out->enabled = c["enable"].OptBool().value_or(false);
  std::vector<FairSharingStrategy> list;
  for (const Cursor& item : c["preemptionStrategies"].Items()) {
    if (std::optional<FairSharingStrategy> st = item.OptEnum<FairSharingStrategy>(kStrategies)) list.push_back(*st);
  }
  if (!list.empty()) out->preemption_strategies = std::move(list);
  if (const Cursor h = c["historicalShare"]; h.present() && h.ExpectMap()) {
    h.CheckKeys({"enable", "halfLife"});
    out->historical.enabled = h["enable"].OptBool().value_or(true);
    out->historical.half_life = ReadDuration(h["halfLife"], out->historical.half_life);
  }
}

void ReadFeatureGates(const Cursor& c, FeatureGates* out) {
  for (const auto& [gate, value] : c.Fields()) {
    const std::optional<bool> on = value.OptBool();
    if (!on.has_value()) {
      if (c.ctx().ok()) value.Fail("expected true or false");
      return;
    }
    if (absl::Status st = out->Set(gate, *on); !st.ok()) {
      value.Fail(std::string(st.message()));
      return;
    }
  }
}

void ReadAntiThrash(const Cursor& c, AntiThrashConfig* out) {
  if (!c.ExpectMap()) return;
  c.CheckKeys({"minRuntime", "loopFreeFairSharing", "borrowBackoff", "requeueBackoff", "preemptionBackoff",
               "cycleDetection"});
  for (const Cursor& item : c["minRuntime"].Items()) {
    if (!item.is_map()) {
      item.Fail(fmt::format("expected a map {{duration, reasons, priorityClasses, clusterQueues}}, got {}",
                            item.TypeName()));
      return;
    }
    item.CheckKeys({"duration", "reasons", "priorityClasses", "clusterQueues"});
    MinRuntimeRule rule;
    if (!item["duration"].present()) {
      item["duration"].Fail("is required");
      return;
    }
    rule.duration = ReadDuration(item["duration"], Duration{});
    for (const Cursor& r : item["reasons"].Items()) {
      if (std::optional<PreemptionReason> reason = r.OptEnum<PreemptionReason>(kReasons)) rule.reasons.push_back(*reason);
    }
    rule.priority_classes = item["priorityClasses"].Strings();
    rule.cluster_queues = item["clusterQueues"].Strings();
    out->min_runtime.push_back(std::move(rule));
  }
  out->loop_free_fair_sharing = c["loopFreeFairSharing"].OptBool().value_or(false);
  for (const auto& [key, backoff] : {std::pair<const char*, BackoffConfig*>{"borrowBackoff", &out->borrow_backoff},
                                      {"requeueBackoff", &out->requeue_backoff},
                                      {"preemptionBackoff", &out->preemption_backoff}}) {
    if (const Cursor b = c[key]; b.ExpectMap()) {
      b.CheckKeys({"base", "max"});
      backoff->base = ReadDuration(b["base"], Duration{});
      backoff->max = ReadDuration(b["max"], Duration{});
    }
  }
  if (const Cursor d = c["cycleDetection"]; d.ExpectMap()) {
    d.CheckKeys({"enable", "window"});
    out->cycle_detection.enabled = d["enable"].OptBool().value_or(false);
    out->cycle_detection.window = ReadDuration(d["window"], out->cycle_detection.window);
  }
}

void ReadRefill(const Cursor& c, RefillConfig* out) {
  if (!c.ExpectMap()) return;
  c.CheckKeys({"enable"});
  out->enabled = c["enable"].OptBool().value_or(true);
}

void ReadWaitForPodsReady(const Cursor& c, WaitForPodsReadyConfig* out) {
  if (!c.ExpectMap()) return;
  c.CheckKeys({"enable", "timeout", "recoveryTimeout", "blockAdmission", "requeuingStrategy"});
  // Kueue v1beta2 enables waitForPodsReady by writing the block; v1beta1's `enable` is accepted too.
  out->enabled = c["enable"].OptBool().value_or(true);
  // A negative duration is refused by ReadDuration; 0 by the validation ("must be more than 0").
  if (c["timeout"].present()) out->timeout = ReadDuration(c["timeout"], out->timeout);
  if (c["recoveryTimeout"].present()) out->recovery_timeout = ReadDuration(c["recoveryTimeout"], Duration{});
  out->block_admission = c["blockAdmission"].OptBool().value_or(false);
  if (const Cursor r = c["requeuingStrategy"]; r.ExpectMap()) {
    r.CheckKeys({"timestamp", "backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"});
    static constexpr std::pair<std::string_view, RequeuingTimestamp> kTimestamps[] = {
        {"Eviction", RequeuingTimestamp::kEviction}, {"Creation", RequeuingTimestamp::kCreation}};
    out->requeuing_timestamp = r["timestamp"].OptEnum<RequeuingTimestamp>(kTimestamps).value_or(out->requeuing_timestamp);
    constexpr int64_t kMin = std::numeric_limits<int32_t>::min(), kMax = std::numeric_limits<int32_t>::max();
    if (std::optional<int64_t> n = r["backoffLimitCount"].OptInt(kMin, kMax)) out->backoff_limit_count = static_cast<int32_t>(*n);
    if (std::optional<int64_t> n = r["backoffBaseSeconds"].OptInt(kMin, kMax)) out->backoff_base_seconds = static_cast<int32_t>(*n);
    if (std::optional<int64_t> n = r["backoffMaxSeconds"].OptInt(kMin, kMax)) out->backoff_max_seconds = static_cast<int32_t>(*n);
  }
}

void CheckEngineConfig(const Cursor& c, const EngineConfig& config, std::string_view prefix) {
  if (!c.ctx().ok()) return;
  const std::optional<ConfigFieldError> e = FindConfigError(config);
  if (!e.has_value()) return;
  // Walk down the keys of the field ("antiThrash.minRuntime[1].duration") as far as the file has
  // them, so the error points at the offending line.
  Cursor at = c;
  size_t begin = 0;
  while (begin <= e->field.size()) {
    size_t end = e->field.find('.', begin);
    if (end == std::string::npos) end = e->field.size();
    std::string_view part = std::string_view(e->field).substr(begin, end - begin);
    const size_t bracket = part.find('[');
    Cursor next = at[part.substr(0, bracket)];
    if (next.present() && bracket != std::string_view::npos) {
      const size_t index = static_cast<size_t>(std::stoul(std::string(part.substr(bracket + 1))));
      const std::vector<Cursor> items = next.Items();
      if (index >= items.size()) break;
      next = items[index];
    }
    if (!next.present()) break;
    at = next;
    begin = end + 1;
  }
  c.ctx().Fail(at.line(), fmt::format("{}{}", prefix, e->field), e->message);
}

}  // namespace qm::internal
