// `qm hyperpod render|lint` over in-memory documents: the same steps as tools/qm/cmd_hyperpod.cc
// (read each document, merge, translate or lint), with errors returned instead of printed.
#include <string>
#include <vector>

#include "c/c_api_internal.h"
#include "fmt/format.h"
#include "qm/hyperpod/policy_reader.h"
#include "qm/hyperpod/render.h"
#include "qm/hyperpod/translate.h"

namespace qm::c {
namespace {

// Reads every document; a bad argument (NULL, UTF-8) fails the call, a bad policy is kept as the
// document's error (lint reports it; render fails on it).
absl::StatusOr<std::vector<absl::StatusOr<hyperpod::PolicyDocument>>> ReadDocuments(
    const qm_document* documents, size_t count) {
  if (documents == nullptr && count != 0) return absl::InvalidArgumentError("documents is NULL");
  if (count == 0) return absl::InvalidArgumentError("no documents given");
  std::vector<absl::StatusOr<hyperpod::PolicyDocument>> out;
  for (size_t i = 0; i < count; ++i) {
    const std::string what = fmt::format("documents[{}]", i);
    QM_ASSIGN_OR_RETURN(std::string_view name, OptionalText(documents[i].name, (what + ".name").c_str()));
    QM_ASSIGN_OR_RETURN(std::string_view text, Text(documents[i].text, (what + ".text").c_str()));
    const std::string source = name.empty() ? fmt::format("<input {}>", i + 1) : std::string(name);
    out.push_back(hyperpod::ReadPolicyString(text, source));
  }
  return out;
}

}  // namespace
}  // namespace qm::c

extern "C" {

QM_C_EXPORT qm_status qm_hyperpod_render(const qm_document* documents, size_t count, int json,
                                         int kueue_config, char** out) {
  return qm::c::Run([&]() -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(out, "out"));
    *out = nullptr;
    QM_ASSIGN_OR_RETURN(auto docs, qm::c::ReadDocuments(documents, count));
    qm::hyperpod::PolicySet policies;
    for (auto& doc : docs) {
      QM_RETURN_IF_ERROR(doc.status());
      QM_RETURN_IF_ERROR(qm::hyperpod::MergePolicies(policies, std::move(doc->policies)));
    }
    if (policies.empty()) {
      return absl::InvalidArgumentError(
          "no HyperPod policy in the input (expected ClusterSchedulerConfig, ComputeQuota or "
          "HyperPodCluster objects, or AWS API JSON documents)");
    }
    QM_ASSIGN_OR_RETURN(qm::hyperpod::Translation translation, qm::hyperpod::Translate(policies));
    const qm::OutputFormat format = json != 0 ? qm::OutputFormat::kJson : qm::OutputFormat::kYaml;
    *out = qm::c::CopyOut(kueue_config != 0
                              ? qm::hyperpod::RenderKueueConfiguration(translation.fair_sharing, format)
                              : qm::hyperpod::RenderKueueObjects(translation, {.format = format}));
    return absl::OkStatus();
  });
}

QM_C_EXPORT qm_status qm_hyperpod_lint(const qm_document* documents, size_t count, char** report,
                                       int* exit_code) {
  return qm::c::Run([&]() -> absl::Status {
    QM_RETURN_IF_ERROR(qm::c::NeedOut(report, "report"));
    QM_RETURN_IF_ERROR(qm::c::NeedOut(exit_code, "exit_code"));
    *report = nullptr;
    QM_ASSIGN_OR_RETURN(auto docs, qm::c::ReadDocuments(documents, count));
    const qm::hyperpod::LintReport lint = qm::hyperpod::LintDocuments(docs);
    *report = qm::c::CopyOut(qm::hyperpod::FormatLintReport(lint));
    *exit_code = lint.ExitCode();
    return absl::OkStatus();
  });
}

}  // extern "C"
