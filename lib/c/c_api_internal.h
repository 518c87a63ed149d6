// What every C entry point shares: the engine handle's layout, the per-thread and per-engine error
// messages, input checks (NULL, UTF-8, size) and the one wrapper that turns C++ results and
// exceptions into a `qm_status`. Nothing here is visible outside libquartermaster_c.so.
#ifndef QM_LIB_C_C_API_INTERNAL_H_
#define QM_LIB_C_C_API_INTERNAL_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/adapter/engine.h"
#include "qm/c/quartermaster.h"
#include "qm/core/status.h"

// The handle behind `qm_engine*`.
struct qm_engine {
  // kLiveMagic while usable; kDeadMagic once destroyed (debug builds keep the shell, see
  // qm::c::Retire), so a call on a destroyed engine is caught instead of reading freed memory.
  uint64_t magic = 0;
  // Set for the duration of a call: a second call that overlaps it (another thread, no lock) is
  // refused rather than allowed to corrupt the engine.
  std::atomic<bool> busy{false};
  std::unique_ptr<qm::Engine> engine;  // null once destroyed
  std::string last_error;
  // Empty while usable. An exception out of a call may have left the engine half changed (the
  // header promises "on an error nothing changed"), so the handle refuses every later call: why.
  std::string poisoned;
  // Storage of the `qm_event` view `qm_engine_events` hands out; rebuilt by each such call. A deque
  // keeps the strings' addresses stable as it grows.
  std::deque<std::string> event_strings;
  std::vector<qm_flavor_choice> event_flavors;
  std::vector<qm_admitted_pod_set> event_pod_sets;
  std::vector<qm_event> events;
  // The pointer arrays the caller indexes (docs/c-api.md §ABI rules: never an array of structs
  // whose size the caller's header fixes): into `events`, `event_pod_sets` and `event_flavors`,
  // which are sized before being filled so the addresses hold.
  std::vector<const qm_event*> event_pointers;
  std::vector<const qm_admitted_pod_set*> event_pod_set_pointers;
  std::vector<const qm_flavor_choice*> event_flavor_pointers;
  // The "namespace/name" of each workload the latest delete call removed, by packed handle: once
  // deleted, the engine no longer resolves the handle, and QM_EVENT_DELETED must still name it.
  std::vector<std::pair<uint64_t, std::string>> deleted_names;
  // Per event of `events`: its cycle ClusterQueues (`qm_engine_event_cycle_queues`), a span of
  // `event_cycle_names` (offset, count); the names live in `event_strings`.
  std::vector<std::pair<size_t, size_t>> event_cycle_spans;
  std::vector<const char*> event_cycle_names;
};

namespace qm::c {

inline constexpr uint64_t kLiveMagic = 0x716d2d656e67696eULL;  // "qm-engin"
inline constexpr uint64_t kDeadMagic = 0x716d2d6465616421ULL;  // "qm-dead!"
/// The largest text input accepted (512 MiB): bigger inputs are QM_RESOURCE_EXHAUSTED, before
/// any parser sees them.
inline constexpr size_t kMaxInputBytes = size_t{512} << 20;

/// Sets this thread's message (what `qm_last_error` returns).
void SetThreadError(std::string message);
/// Destroys the engine's state; in debug builds keeps the handle as a tombstone (bounded).
void Retire(qm_engine* engine);

/// Whether `text` is valid UTF-8 (no overlongs, no surrogates, at most U+10FFFF).
bool IsValidUtf8(std::string_view text);
/// A required string argument: non-NULL, at most kMaxInputBytes, valid UTF-8.
absl::StatusOr<std::string_view> Text(const char* text, const char* what);
/// An optional string argument: NULL reads as "".
absl::StatusOr<std::string_view> OptionalText(const char* text, const char* what);
/// Copies `s` into memory from malloc (NUL-terminated), freed by `qm_free`.
char* CopyOut(std::string_view s);

/// Maps a status to its code (absl codes and qm_status share numbers).
inline qm_status ToCode(const absl::Status& status) {
  return static_cast<qm_status>(static_cast<int>(status.code()));
}

/// Runs `work` (returning absl::Status) with no engine: status into this thread's message.
template <class F>
qm_status Run(F&& work) noexcept {
  try {
    absl::Status status = work();
    SetThreadError(status.ok() ? std::string() : std::string(status.message()));
    return ToCode(status);
  } catch (const std::bad_alloc&) {
    SetThreadError("out of memory");
    return QM_RESOURCE_EXHAUSTED;
  } catch (const std::exception& e) {
    SetThreadError(std::string("internal error: ") + e.what());
    return QM_INTERNAL;
  } catch (...) {
    SetThreadError("internal error: unknown exception");
    return QM_INTERNAL;
  }
}

/// Runs `work(qm::Engine&, qm_engine&)` on a live engine, one call at a time: the status goes into
/// the engine's message. A NULL, destroyed or busy engine fails without running `work`.
template <class F>
qm_status RunOnEngine(qm_engine* handle, F&& work) noexcept {
  if (handle == nullptr) {
    SetThreadError("engine is NULL");
    return QM_INVALID_ARGUMENT;
  }
  if (handle->magic != kLiveMagic || handle->engine == nullptr) {
    SetThreadError("engine was destroyed (or is not an engine)");
    return QM_FAILED_PRECONDITION;
  }
  if (handle->busy.exchange(true, std::memory_order_acquire)) {
    // Do not touch last_error: the other call owns it.
    SetThreadError("engine is in use by another call (an engine is not thread-safe: serialize "
                   "calls with a lock)");
    return QM_FAILED_PRECONDITION;
  }
  if (!handle->poisoned.empty()) {
    handle->last_error = "engine is unusable: an earlier call failed with " + handle->poisoned +
                         " and may have left it half changed; destroy it (a snapshot saved before "
                         "then can be restored)";
    handle->busy.store(false, std::memory_order_release);
    return QM_FAILED_PRECONDITION;
  }
  qm_status code = QM_OK;
  // After an exception nothing says the call left the engine as it was: poison the handle.
  const auto poison = [&](std::string what, qm_status failed) noexcept {
    handle->poisoned = what;
    handle->last_error = std::move(what) + "; the engine is unusable from now on (destroy it)";
    code = failed;
  };
  try {
    absl::Status status = work(*handle->engine, *handle);
    handle->last_error = status.ok() ? std::string() : std::string(status.message());
    code = ToCode(status);
  } catch (const std::bad_alloc&) {
    poison("out of memory", QM_RESOURCE_EXHAUSTED);
  } catch (const std::exception& e) {
    poison(std::string("internal error: ") + e.what(), QM_INTERNAL);
  } catch (...) {
    poison("internal error: unknown exception", QM_INTERNAL);
  }
  handle->busy.store(false, std::memory_order_release);
  return code;
}

/// The engine configuration of `options` (NULL: the defaults).
absl::StatusOr<EngineConfig> ConfigFromOptions(const qm_engine_options* options);
/// Adds to `config` (made from `options`) the settings of the Kueue `Configuration` document in
/// `text`: fairSharing, featureGates, antiThrash. Anything else in the text, or a setting that
/// `options` gives too and differently, is InvalidArgument naming `source`.
absl::Status AddConfiguration(std::string_view text, std::string_view source,
                              const qm_engine_options* options, EngineConfig& config);
/// A new live handle owning `engine`; the caller passes it to the user, who destroys it.
qm_engine* NewHandle(Engine engine);

/// Checks the `version` member of a caller's struct (`type` is its C name, e.g. "qm_workload"):
/// 1 to `current`; 0 is a struct not made with its `QM_*_INIT` macro, and a larger value comes from
/// a header newer than this library. Either would make the library misread the caller's memory.
absl::Status CheckVersion(unsigned int version, unsigned int current, std::string_view type);

/// Checks an out-parameter pointer.
inline absl::Status NeedOut(const void* out, const char* what) {
  if (out == nullptr) return absl::InvalidArgumentError(std::string(what) + " is NULL");
  return absl::OkStatus();
}

}  // namespace qm::c

#endif  // QM_LIB_C_C_API_INTERNAL_H_
