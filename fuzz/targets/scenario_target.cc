// Scenario files: loading never crashes; a small loaded scenario runs to the end with the engine
// consistent after every step (expectation failures are results, not bugs).
#include <string_view>
#include <variant>

#include "absl/strings/str_cat.h"
#include "fuzz/targets/engine_checks.h"
#include "fuzz/targets/targets.h"
#include "qm/io/scenario.h"

namespace qm::fuzz {
namespace {

// Bounds that keep one input fast (libFuzzer flags a slow input as a hang): few steps, few cycles.
constexpr size_t kMaxScenarioSteps = 24;
constexpr int kMaxStepCycles = 64;

bool SmallEnoughToRun(const Scenario& scenario) {
  if (scenario.steps.size() > kMaxScenarioSteps || scenario.objects.size() > 64) return false;
  for (const ScenarioStep& step : scenario.steps) {
    if (const auto* s = std::get_if<ScheduleStep>(&step.action)) {
      if (s->until_stable || s->cycles > kMaxStepCycles) return false;
    }
  }
  return true;
}

}  // namespace

void ScenarioTarget(std::span<const uint8_t> data) {
  const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
  absl::StatusOr<Scenario> scenario = LoadScenarioString(text, "fuzz.yaml");
  if (!scenario.ok() || !SmallEnoughToRun(*scenario)) return;
  absl::StatusOr<Engine> engine = MakeScenarioEngine(*scenario);
  if (!engine.ok()) return;
  CheckInvariantsOrDie(*engine, "MakeScenarioEngine");
  for (size_t i = 0; i < scenario->steps.size(); ++i) {
    StepResult result;
    const absl::Status status = RunScenarioStep(*scenario, i, *engine, &result);
    CheckInvariantsOrDie(*engine, absl::StrCat("step ", i, " (", scenario->steps[i].source, ")"));
    if (!status.ok()) return;
  }
}

}  // namespace qm::fuzz
