// HyperPod policies, in each shape they are read from: JSON or YAML documents, and the AWS CLI
// shorthand of both kinds. A policy set that reads must translate into Kueue objects the engine
// accepts (the reader's and translator's validation together promise that) or be refused by
// Validate; Lint never crashes on it.
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/targets/engine_checks.h"
#include "fuzz/targets/targets.h"
#include "qm/hyperpod/policy_reader.h"
#include "qm/hyperpod/translate.h"

namespace qm::fuzz {
namespace {

// The shorthand readers take up to three strings; the input holds them separated by newlines.
std::vector<std::string_view> SplitLines(std::string_view text, size_t parts) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < parts) {
    const size_t nl = text.find('\n');
    if (nl == std::string_view::npos) break;
    out.push_back(text.substr(0, nl));
    text.remove_prefix(nl + 1);
  }
  out.push_back(text);
  out.resize(parts);
  return out;
}

void TranslateAndApply(const hyperpod::PolicySet& policies) {
  (void)hyperpod::Lint(policies);
  absl::StatusOr<hyperpod::Translation> translation = hyperpod::Translate(policies);
  if (!translation.ok()) return;
  EngineConfig config;
  config.fair_sharing = translation->fair_sharing;
  absl::StatusOr<Engine> engine = Engine::Create(config);
  QM_FUZZ_CHECK(engine.ok(), "a translated fair-sharing configuration is invalid: ",
                engine.status().ToString());
  const absl::Status applied = engine->Apply(translation->objects);
  QM_FUZZ_CHECK(applied.ok(), "the engine refuses a translated policy set: ", applied.ToString());
  CheckInvariantsOrDie(*engine, "applying a translated policy set");
}

}  // namespace

void HyperPodPolicyTarget(std::span<const uint8_t> data) {
  if (data.empty()) return;
  const std::string_view text(reinterpret_cast<const char*>(data.data()) + 1, data.size() - 1);
  hyperpod::PolicySet policies;
  switch (data[0] % 3) {
    case 0: {  // a policy file: JSON of the AWS API or YAML objects
      absl::StatusOr<hyperpod::PolicyDocument> doc = hyperpod::ReadPolicyString(text, "fuzz.json");
      if (!doc.ok()) return;
      policies = std::move(doc->policies);
      break;
    }
    case 1: {  // --scheduler-config shorthand
      absl::StatusOr<hyperpod::SchedulerConfigPolicy> scheduler =
          hyperpod::ParseSchedulerConfigShorthand(text);
      if (!scheduler.ok()) return;
      policies.scheduler = *std::move(scheduler);
      break;
    }
    default: {  // --compute-quota-config, --compute-quota-target, --activation-state
      const std::vector<std::string_view> parts = SplitLines(text, 3);
      absl::StatusOr<hyperpod::ComputeQuotaPolicy> quota =
          hyperpod::ParseComputeQuotaShorthand("fuzz-quota", parts[0], parts[1], parts[2]);
      if (!quota.ok()) return;
      policies.quotas.push_back(*std::move(quota));
      break;
    }
  }
  TranslateAndApply(policies);
}

}  // namespace qm::fuzz
