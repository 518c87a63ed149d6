// Kueue manifests: reading never crashes, and applying what was read to a fresh engine either
// succeeds with the engine consistent or fails changing nothing.
#include <string_view>

#include "fuzz/targets/engine_checks.h"
#include "fuzz/targets/targets.h"
#include "qm/io/manifest.h"

namespace qm::fuzz {

void ManifestTarget(std::span<const uint8_t> data) {
  const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
  absl::StatusOr<Manifest> manifest = ReadManifestString(text, "fuzz.yaml");
  if (!manifest.ok()) return;

  EngineConfig config;
  if (manifest->fair_sharing) config.fair_sharing = *manifest->fair_sharing;
  absl::StatusOr<Engine> engine = Engine::Create(config);
  if (!engine.ok()) return;
  const std::string before = SaveOrDie(*engine, "creating the engine");
  const absl::Status applied = ApplyManifest(*engine, manifest->objects);
  if (!applied.ok()) {
    CheckRefusalChangedNothing(*engine, before, applied, "ApplyManifest");
    return;
  }
  CheckInvariantsOrDie(*engine, "ApplyManifest");
  engine->RunUntilStable(50);
  CheckInvariantsOrDie(*engine, "RunUntilStable after ApplyManifest");
}

}  // namespace qm::fuzz
