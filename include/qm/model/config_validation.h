// Validation of an EngineConfig with the rules of Kueue's configuration validation
// (kubernetes-sigs/kueue pkg/config/validation.go `validateFairSharing`) and of its feature gates
// (pkg/features/kube_features.go: dependencies between gates, gates locked to their default).
//
// Every error is an InvalidArgument status that starts with the field in Kueue's configuration
// spelling, then ": " and what is wrong:
//   fairSharing.preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare] is not a
//   supported combination; supported: [LessThanOrEqualToFinalShare], [LessThanInitialShare], ...
// `FindConfigError` returns the field and the message apart, for callers that point at the field in
// a file (the scenario loader).
#ifndef QM_MODEL_CONFIG_VALIDATION_H_
#define QM_MODEL_CONFIG_VALIDATION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/model/config.h"

namespace qm {

/// One invalid field of an EngineConfig: `field` in Kueue's configuration spelling
/// (`fairSharing.preemptionStrategies`, `features.FlavorFungibilityPreserveScanProgress`,
/// `messageStyle`), `message` what is wrong with it.
struct ConfigFieldError {
  std::string field;
  std::string message;
};

namespace config_validation_internal {

inline std::optional<std::string_view> StrategyName(FairSharingStrategy s) {
  switch (s) {
    case FairSharingStrategy::kLessThanOrEqualToFinalShare: return "LessThanOrEqualToFinalShare";
    case FairSharingStrategy::kLessThanInitialShare: return "LessThanInitialShare";
  }
  return std::nullopt;
}

// Kueue `validStrategySets`: exactly these lists, in this order.
inline const std::vector<std::vector<FairSharingStrategy>>& ValidStrategySets() {
  using S = FairSharingStrategy;
  static const std::vector<std::vector<S>> kSets = {
      {S::kLessThanOrEqualToFinalShare},
      {S::kLessThanInitialShare},
      {S::kLessThanOrEqualToFinalShare, S::kLessThanInitialShare}};
  return kSets;
}

inline std::string StrategyList(const std::vector<FairSharingStrategy>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out += ", ";
    out += StrategyName(list[i]).value_or("?");
  }
  return out + "]";
}

inline std::optional<ConfigFieldError> CheckFairSharing(const FairSharingConfig& fs) {
  constexpr std::string_view kField = "fairSharing.preemptionStrategies";
  const std::vector<FairSharingStrategy>& list = fs.preemption_strategies;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!StrategyName(list[i]).has_value()) {
      return ConfigFieldError{fmt::format("{}[{}]", kField, i),
                              fmt::format("{} is not a FairSharingStrategy value",
                                          static_cast<int>(list[i]))};
    }
  }
  // Kueue defaults an empty list to [LessThanOrEqualToFinalShare, LessThanInitialShare] when fair
  // sharing is enabled (apis/config/v1beta1/defaults.go); an EngineConfig is taken as already
  // defaulted, so an empty list there would leave fair-sharing preemption without a strategy.
  if (list.empty()) {
    if (!fs.enabled) return std::nullopt;  // unused, and Kueue accepts it
    return ConfigFieldError{std::string(kField), "must not be empty"};
  }
  for (const auto& valid : ValidStrategySets()) {
    if (valid == list) return std::nullopt;
  }
  std::string supported;
  for (const auto& valid : ValidStrategySets()) {
    if (!supported.empty()) supported += ", ";
    supported += StrategyList(valid);
  }
  return ConfigFieldError{std::string(kField),
                          fmt::format("{} is not a supported combination; supported: {}",
                                      StrategyList(list), supported)};
}

// The historical share's half-life: positive, and at most 100 years (DecayQ32's range).
inline std::optional<ConfigFieldError> CheckHistoricalShare(const FairSharingConfig& fs) {
  const HistoricalShareConfig& h = fs.historical;
  if (!h.enabled) return std::nullopt;
  if (!fs.enabled)
    return ConfigFieldError{"fairSharing.historicalShare", "needs fair sharing: set fairSharing.enable: true"};
  if (h.half_life.us <= 0) return ConfigFieldError{"fairSharing.historicalShare.halfLife", "must be more than 0"};
  if (h.half_life > Duration::Seconds(int64_t{36'500} * 86'400))
    return ConfigFieldError{"fairSharing.historicalShare.halfLife", "must be at most 100 years"};
  return std::nullopt;
}

inline std::optional<ConfigFieldError> CheckMessageStyle(MessageStyle style) {
  switch (style) {
    case MessageStyle::kCurrent:
    case MessageStyle::kLegacy:
      return std::nullopt;
  }
  return ConfigFieldError{"messageStyle",
                          fmt::format("{} is not a MessageStyle value (Current or Legacy)",
                                      static_cast<int>(style))};
}

// Anti-thrash durations are added to instants: at most 100 years, so no sum can overflow.
inline constexpr Duration kMaxAntiThrashDuration = Duration::Seconds(int64_t{36'500} * 86'400);

inline std::optional<ConfigFieldError> CheckAntiThrash(const AntiThrashConfig& a) {
  for (size_t i = 0; i < a.min_runtime.size(); ++i) {
    const MinRuntimeRule& r = a.min_runtime[i];
    const std::string at = fmt::format("antiThrash.minRuntime[{}]", i);
    if (r.duration.us <= 0) return ConfigFieldError{at + ".duration", "must be more than 0"};
    if (r.duration > kMaxAntiThrashDuration) return ConfigFieldError{at + ".duration", "must be at most 100 years"};
    for (size_t j = 0; j < r.reasons.size(); ++j) {
      if (static_cast<int>(r.reasons[j]) >= kPreemptionReasons) {
        return ConfigFieldError{fmt::format("{}.reasons[{}]", at, j),
                                fmt::format("{} is not a preemption reason", static_cast<int>(r.reasons[j]))};
      }
    }
    for (size_t j = 0; j < r.priority_classes.size(); ++j) {
      if (r.priority_classes[j].empty()) {
        return ConfigFieldError{fmt::format("{}.priorityClasses[{}]", at, j), "must not be empty"};
      }
    }
    for (size_t j = 0; j < r.cluster_queues.size(); ++j) {
      if (r.cluster_queues[j].empty()) {
        return ConfigFieldError{fmt::format("{}.clusterQueues[{}]", at, j), "must not be empty"};
      }
    }
  }
  for (const auto& [name, b] : {std::pair<const char*, const BackoffConfig*>{"borrowBackoff", &a.borrow_backoff},
                                 {"requeueBackoff", &a.requeue_backoff},
                                 {"preemptionBackoff", &a.preemption_backoff}}) {
    const std::string at = fmt::format("antiThrash.{}", name);
    if (b->base.us < 0) return ConfigFieldError{at + ".base", "must be >= 0"};
    if (b->max.us < 0) return ConfigFieldError{at + ".max", "must be >= 0"};
    if (b->base > kMaxAntiThrashDuration) return ConfigFieldError{at + ".base", "must be at most 100 years"};
    if (b->max > kMaxAntiThrashDuration) return ConfigFieldError{at + ".max", "must be at most 100 years"};
    if (b->max.us > 0 && b->max < b->base) {
      return ConfigFieldError{at + ".max", "must be >= base (or 0 for a constant back-off)"};
    }
  }
  if (a.cycle_detection.window.us <= 0) {
    return ConfigFieldError{"antiThrash.cycleDetection.window", "must be more than 0"};
  }
  if (a.cycle_detection.window > kMaxAntiThrashDuration) {
    return ConfigFieldError{"antiThrash.cycleDetection.window", "must be at most 100 years"};
  }
  return std::nullopt;
}

// Kueue pkg/config/validation.go validateWaitForPodsReady, checked whether or not it is enabled
// (an EngineConfig is a defaulted configuration: its defaults are valid).
inline std::optional<ConfigFieldError> CheckWaitForPodsReady(const WaitForPodsReadyConfig& c) {
  if (c.timeout.us <= 0) return ConfigFieldError{"waitForPodsReady.timeout", "must be more than 0"};
  if (c.timeout > kMaxAntiThrashDuration) return ConfigFieldError{"waitForPodsReady.timeout", "must be at most 100 years"};
  if (c.recovery_timeout && c.recovery_timeout->us < 0)
    return ConfigFieldError{"waitForPodsReady.recoveryTimeout", "must be >= 0"};
  if (c.recovery_timeout && *c.recovery_timeout > kMaxAntiThrashDuration)
    return ConfigFieldError{"waitForPodsReady.recoveryTimeout", "must be at most 100 years"};
  if (c.block_admission)
    return ConfigFieldError{"waitForPodsReady.blockAdmission",
                            "true is not supported: the engine does not block admission until other workloads' pods are "
                            "ready (docs/semantics.md §1.7.2)"};
  switch (c.requeuing_timestamp) {
    case RequeuingTimestamp::kEviction:
    case RequeuingTimestamp::kCreation:
      break;
    default:
      return ConfigFieldError{"waitForPodsReady.requeuingStrategy.timestamp",
                              fmt::format("{} is not supported; supported: Creation, Eviction",
                                          static_cast<int>(c.requeuing_timestamp))};
  }
  constexpr std::string_view kAt = "waitForPodsReady.requeuingStrategy.";
  if (c.backoff_limit_count && *c.backoff_limit_count < 0)
    return ConfigFieldError{fmt::format("{}backoffLimitCount", kAt), "must be >= 0"};
  if (c.backoff_base_seconds < 0) return ConfigFieldError{fmt::format("{}backoffBaseSeconds", kAt), "must be >= 0"};
  if (c.backoff_max_seconds < 0) return ConfigFieldError{fmt::format("{}backoffMaxSeconds", kAt), "must be >= 0"};
  return std::nullopt;
}

}  // namespace config_validation_internal

/// The first invalid field of `config`, or nullopt when it is valid. Checked in this order:
/// fairSharing.preemptionStrategies, fairSharing.historicalShare, features (FeatureGates::Validate), messageStyle, antiThrash,
/// waitForPodsReady.
inline std::optional<ConfigFieldError> FindConfigError(const EngineConfig& config) {
  namespace in = config_validation_internal;
  if (auto e = in::CheckFairSharing(config.fair_sharing)) return e;
  if (auto e = in::CheckHistoricalShare(config.fair_sharing)) return e;
  if (absl::Status st = config.features.Validate(); !st.ok()) {
    // FeatureGates::Validate words its errors "<gate>: <what>".
    const std::string m(st.message());
    const size_t colon = m.find(": ");
    if (colon == std::string::npos) return ConfigFieldError{"features", m};
    return ConfigFieldError{"features." + m.substr(0, colon),
                            m.substr(colon + 2)};
  }
  if (auto e = in::CheckMessageStyle(config.message_style)) return e;
  if (auto e = in::CheckAntiThrash(config.anti_thrash)) return e;
  if (auto e = in::CheckWaitForPodsReady(config.wait_for_pods_ready)) return e;
  return std::nullopt;
}

/// OK, or InvalidArgument "<field>: <what is wrong>" for the first invalid field (FindConfigError).
inline absl::Status ValidateEngineConfig(const EngineConfig& config) {
  if (std::optional<ConfigFieldError> e = FindConfigError(config)) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", e->field, e->message));
  }
  return absl::OkStatus();
}

}  // namespace qm

#endif  // QM_MODEL_CONFIG_VALIDATION_H_
