// Checks every fuzz target runs on an engine after it changed (or refused to change).
#ifndef QM_FUZZ_TARGETS_ENGINE_CHECKS_H_
#define QM_FUZZ_TARGETS_ENGINE_CHECKS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "fuzz/targets/fuzz_check.h"
#include "qm/adapter/engine.h"

namespace qm::fuzz {

/// The engine's snapshot bytes; a Save that fails is itself a broken promise.
inline std::string SaveOrDie(const Engine& engine, std::string_view when) {
  absl::StatusOr<std::string> bytes = engine.Save();
  QM_FUZZ_CHECK(bytes.ok(), "Save() failed ", when, ": ", bytes.status().ToString());
  return *std::move(bytes);
}

/// The engine's self-check (Engine::CheckInvariants) after `when`. Compiled out, with the rest
/// of the checks still running, until the library implements it (QM_FUZZ_HAVE_CHECK_INVARIANTS).
inline void CheckInvariantsOrDie(const Engine& engine, std::string_view when) {
#ifdef QM_FUZZ_HAVE_CHECK_INVARIANTS
  const absl::Status status = engine.CheckInvariants();
  QM_FUZZ_CHECK(status.ok(), "invariant violated after ", when, ": ", status.ToString());
#else
  (void)engine;
  (void)when;
#endif
}

/// The contract of a call that failed: nothing changed (same snapshot bytes) and no events.
inline void CheckRefusalChangedNothing(const Engine& engine, const std::string& saved_before,
                                       const absl::Status& status, std::string_view what) {
  QM_FUZZ_CHECK(engine.LastEvents().empty(), what, " failed (", status.ToString(),
                ") yet reported events");
  QM_FUZZ_CHECK(SaveOrDie(engine, what) == saved_before, what, " failed (", status.ToString(),
                ") yet changed the engine's snapshot");
}

}  // namespace qm::fuzz

#endif  // QM_FUZZ_TARGETS_ENGINE_CHECKS_H_
