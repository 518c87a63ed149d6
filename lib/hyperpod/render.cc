// A translation as HyperPod's objects, the Kueue Configuration fragment, and lint reports.
#include "qm/hyperpod/render.h"

#include <string>
#include <utility>

#include "fmt/format.h"
#include "qm/text/manifest_writer.h"
#include "text/doc.h"

namespace qm::hyperpod {
namespace {

using qm::internal::Doc;

const char* StrategyName(FairSharingStrategy s) {
  switch (s) {
    case FairSharingStrategy::kLessThanOrEqualToFinalShare: return "LessThanOrEqualToFinalShare";
    case FairSharingStrategy::kLessThanInitialShare: return "LessThanInitialShare";
  }
  return "LessThanOrEqualToFinalShare";
}

Doc FairSharingDoc(const FairSharingConfig& fair_sharing) {
  Doc fs = Doc::Map();
  fs.Set("enable", Doc::Bool(fair_sharing.enabled));
  // Strategies only matter, and Kueue only reads them, when fair sharing is on.
  if (fair_sharing.enabled) {
    Doc strategies = Doc::List();
    for (FairSharingStrategy s : fair_sharing.preemption_strategies) {
      strategies.Add(Doc::Str(StrategyName(s)));
    }
    fs.Set("preemptionStrategies", std::move(strategies.Flow()));
  }
  Doc d = Doc::Map();
  d.Set("fairSharing", std::move(fs));
  return d;
}

// Every line of `text` as a YAML comment line ("#" alone for an empty line).
std::string Commented(std::string_view text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    out += line.empty() ? "#\n" : fmt::format("# {}\n", line);
    start = end + 1;
  }
  return out;
}

std::string ConfigurationComment(const FairSharingConfig& fair_sharing) {
  return fmt::format(
      "\n"
      "# Kueue Configuration for this cluster policy. It is not a Kubernetes object, so kubectl\n"
      "# apply skips it: HyperPod keeps Kueue's Configuration in ConfigMap\n"
      "# {}/{} (key {}).\n"
      "# Merge these members into it, then restart the Kueue controller manager.\n"
      "#\n{}",
      kKueueConfigNamespace, kKueueConfigMap, kKueueConfigKey,
      Commented(RenderKueueConfiguration(fair_sharing, OutputFormat::kYaml)));
}

std::string Plural(size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

}  // namespace

std::string RenderKueueObjects(const Translation& translation, const RenderOptions& options) {
  const ManifestWriteOptions write{.api_version = KueueApiVersion::kV1beta1,
                                   .format = options.format,
                                   .explicit_defaults = true};
  std::string out = WriteManifest(translation.objects, write);
  if (options.format == OutputFormat::kYaml && options.kueue_config_comment) {
    out += ConfigurationComment(translation.fair_sharing);
  }
  return out;
}

std::string RenderKueueConfiguration(const FairSharingConfig& fair_sharing, OutputFormat format) {
  const Doc d = FairSharingDoc(fair_sharing);
  return format == OutputFormat::kJson ? qm::internal::EmitJson(d) : qm::internal::EmitYaml(d);
}

LintReport LintDocuments(std::span<const absl::StatusOr<PolicyDocument>> documents,
                         const TranslateOptions& options) {
  LintReport report;
  PolicySet merged;
  for (const absl::StatusOr<PolicyDocument>& doc : documents) {
    if (!doc.ok()) {
      report.errors.emplace_back(doc.status().message());
      continue;
    }
    // Merge into a copy: a conflict must not leave half of this file's policies merged.
    PolicySet next = merged;
    if (absl::Status st = MergePolicies(next, doc->policies); !st.ok()) {
      report.errors.emplace_back(st.message());
      continue;
    }
    merged = std::move(next);
  }
  if (absl::Status st = Validate(merged); !st.ok()) report.errors.emplace_back(st.message());
  if (report.errors.empty() && merged.empty()) {
    report.errors.emplace_back(
        "no HyperPod policy in the input: expected ClusterSchedulerConfig, ComputeQuota or "
        "HyperPodCluster objects, or AWS API JSON documents");
  }
  if (report.errors.empty()) report.warnings = Lint(merged, options);
  return report;
}

std::string FormatLintReport(const LintReport& report) {
  std::string out;
  for (const std::string& e : report.errors) out += fmt::format("error: {}\n", e);
  for (const Finding& w : report.warnings) {
    out += w.source.empty() ? fmt::format("warning: {}\n", w.message)
                            : fmt::format("warning: {}: {}\n", w.source, w.message);
  }
  out += fmt::format("{}, {}\n", Plural(report.errors.size(), "error"),
                     Plural(report.warnings.size(), "warning"));
  return out;
}

}  // namespace qm::hyperpod
