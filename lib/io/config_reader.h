// Reading the parts of an engine configuration that scenario files (`config:`) and manifests
// (Kueue's `Configuration` kind) share: fair sharing, feature gates, and Quartermaster's
// `antiThrash` block (qm/model/anti_thrash.h). Private to the I/O layer.
#ifndef QM_LIB_IO_CONFIG_READER_H_
#define QM_LIB_IO_CONFIG_READER_H_

#include <string_view>

#include "io/yaml_cursor.h"
#include "qm/model/config.h"

namespace qm::internal {

/// `fairSharing: {enable, preemptionStrategies, historicalShare: {enable, halfLife}}`; an absent or
/// empty strategy list keeps the default, as Kueue defaults it. `historicalShare` is ours
/// (docs/semantics.md §11.8): present means enabled unless `enable: false`.
void ReadFairSharing(const Cursor& c, FairSharingConfig* out);
/// A map of Kueue feature-gate names to true/false.
void ReadFeatureGates(const Cursor& c, FeatureGates* out);
/// `antiThrash: {minRuntime: [{duration, reasons, priorityClasses, clusterQueues}],
/// loopFreeFairSharing, borrowBackoff: {base, max}, requeueBackoff: {base, max},
/// preemptionBackoff: {base, max}, cycleDetection: {enable, window}}`; durations
/// are Go durations ("90s", "2h30m").
void ReadAntiThrash(const Cursor& c, AntiThrashConfig* out);
/// `waitForPodsReady: {enable, timeout, recoveryTimeout, blockAdmission, requeuingStrategy:
/// {timestamp, backoffLimitCount, backoffBaseSeconds, backoffMaxSeconds}}` (Kueue's
/// Configuration.waitForPodsReady); present means enabled unless `enable: false`.
void ReadWaitForPodsReady(const Cursor& c, WaitForPodsReadyConfig* out);
/// `refill: {enable}` (ours, docs/semantics.md §11.7); present means enabled unless `enable: false`.
void ReadRefill(const Cursor& c, RefillConfig* out);
/// Reports the first invalid field of `config` (qm/model/config_validation.h) at the key it names
/// under `c`, or at the nearest key above it that the file has; `prefix` is prepended to the field
/// in the message ("config." in scenarios).
void CheckEngineConfig(const Cursor& c, const EngineConfig& config, std::string_view prefix);

}  // namespace qm::internal

#endif  // QM_LIB_IO_CONFIG_READER_H_
