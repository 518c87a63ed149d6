// `qm hyperpod render|lint FILE...`: SageMaker HyperPod policies as the Kueue objects HyperPod
// creates, and their validation errors and warnings (docs/hyperpod.md §2, §7).
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "qm/hyperpod/policy_reader.h"
#include "qm/hyperpod/render.h"
#include "qm/hyperpod/translate.h"

namespace qm::cli {
namespace {

constexpr OptionSpec kRenderOptions[] = {{"output", true}, {"kueue-config", false}, {"efa", true}};
constexpr OptionSpec kLintOptions[] = {{"efa", true}};

// What both actions share once the command line is parsed.
struct Input {
  std::vector<std::string> files;
  hyperpod::TranslateOptions translate;
};

// Parses the action's arguments; returns the exit code to stop with (help or usage error), or
// nullopt to go on.
std::optional<int> ParseInput(std::span<const std::string> argv, std::span<const OptionSpec> spec,
                              Args* args, Input* input) {
  absl::StatusOr<Args> parsed = ParseArgs(argv, spec);
  if (!parsed.ok()) return UsageError(kHyperpodCommand, std::string(parsed.status().message()));
  *args = *std::move(parsed);
  if (args->help) {
    std::cout << kHyperpodCommand.help;
    return 0;
  }
  if (args->positional.empty()) return UsageError(kHyperpodCommand, "no policy files given");
  input->files = args->positional;
  const std::string efa = args->Value("efa").value_or("whole-instance");
  if (efa == "proportional") {
    input->translate.efa = hyperpod::EfaRule::kProportional;
  } else if (efa != "whole-instance") {
    return UsageError(kHyperpodCommand, "--efa must be whole-instance or proportional");
  }
  return std::nullopt;
}

// Reads every file, printing the reader's notes (skipped non-policy objects) to stderr. A file that
// cannot be read at all is a load error like a bad argument: returns 2 after saying so.
std::optional<int> ReadAll(const std::vector<std::string>& files,
                           std::vector<absl::StatusOr<hyperpod::PolicyDocument>>* out) {
  for (const std::string& file : files) {
    absl::StatusOr<hyperpod::PolicyDocument> doc = hyperpod::ReadPolicyFile(file);
    if (absl::IsNotFound(doc.status())) {
      std::cerr << "qm hyperpod: " << doc.status().message() << "\n";
      return 2;
    }
    if (doc.ok()) {
      for (const std::string& note : doc->notes) std::cerr << "note: " << note << "\n";
    }
    out->push_back(std::move(doc));
  }
  return std::nullopt;
}

// Merges and translates; on an error prints it and returns 1.
std::optional<int> TranslateAll(std::vector<absl::StatusOr<hyperpod::PolicyDocument>>& docs,
                                const hyperpod::TranslateOptions& options,
                                hyperpod::Translation* out) {
  hyperpod::PolicySet policies;
  bool failed = false;
  for (absl::StatusOr<hyperpod::PolicyDocument>& doc : docs) {
    absl::Status st = doc.ok() ? hyperpod::MergePolicies(policies, std::move(doc->policies))
                               : doc.status();
    if (!st.ok()) {
      std::cerr << "error: " << st.message() << "\n";
      failed = true;
    }
  }
  if (failed) return 1;
  if (policies.empty()) {
    std::cerr << "error: no HyperPod policy in the input (expected ClusterSchedulerConfig, "
                 "ComputeQuota or HyperPodCluster objects, or AWS API JSON documents)\n";
    return 1;
  }
  absl::StatusOr<hyperpod::Translation> translation = hyperpod::Translate(policies, options);
  if (!translation.ok()) {
    std::cerr << "error: " << translation.status().message() << "\n";
    return 1;
  }
  *out = *std::move(translation);
  return std::nullopt;
}

int RunRender(std::span<const std::string> argv) {
  Args args;
  Input input;
  if (std::optional<int> stop = ParseInput(argv, kRenderOptions, &args, &input)) return *stop;
  const std::optional<OutputFormat> format =
      ParseOutputFormat(args.Value("output").value_or("yaml"));
  if (!format.has_value()) return UsageError(kHyperpodCommand, "--output must be yaml or json");
  std::vector<absl::StatusOr<hyperpod::PolicyDocument>> docs;
  if (std::optional<int> stop = ReadAll(input.files, &docs)) return *stop;
  hyperpod::Translation translation;
  if (std::optional<int> stop = TranslateAll(docs, input.translate, &translation)) return *stop;
  if (args.Flag("kueue-config")) {
    std::cout << hyperpod::RenderKueueConfiguration(translation.fair_sharing, *format);
  } else {
    std::cout << hyperpod::RenderKueueObjects(translation, {.format = *format});
    // JSON cannot carry the Configuration as a comment; say where to get it instead of dropping it.
    if (*format == OutputFormat::kJson) {
      std::cerr << "note: the Kueue Configuration (fairSharing) is not part of the JSON output; "
                   "print it with --kueue-config\n";
    }
  }
  return 0;
}

int RunLint(std::span<const std::string> argv) {
  Args args;
  Input input;
  if (std::optional<int> stop = ParseInput(argv, kLintOptions, &args, &input)) return *stop;
  std::vector<absl::StatusOr<hyperpod::PolicyDocument>> docs;
  if (std::optional<int> stop = ReadAll(input.files, &docs)) return *stop;
  const hyperpod::LintReport report = hyperpod::LintDocuments(docs, input.translate);
  std::cout << hyperpod::FormatLintReport(report);
  return report.ExitCode();
}

int RunHyperpod(std::span<const std::string> argv) {
  if (argv.empty()) return UsageError(kHyperpodCommand, "expected 'render' or 'lint'");
  const std::string& action = argv[0];
  const std::span<const std::string> rest = argv.subspan(1);
  if (action == "-h" || action == "--help") {
    std::cout << kHyperpodCommand.help;
    return 0;
  }
  if (action == "render") return RunRender(rest);
  if (action == "lint") return RunLint(rest);
  return UsageError(kHyperpodCommand,
                    "unknown action '" + action + "' (expected 'render' or 'lint')");
}

}  // namespace

const Command kHyperpodCommand = {
    "hyperpod",
    "Render or lint SageMaker HyperPod task-governance policies",
    R"(Usage: qm hyperpod render FILE... [--output yaml|json] [--kueue-config] [--efa RULE]
       qm hyperpod lint FILE... [--efa RULE]

Reads SageMaker HyperPod task-governance policies, all FILEs together describing one cluster:
AWS API JSON (DescribeComputeQuota, ListComputeQuotas, DescribeClusterSchedulerConfig output, or
CreateComputeQuota / CreateClusterSchedulerConfig request bodies) or YAML objects of kinds
ClusterSchedulerConfig, ComputeQuota and HyperPodCluster (the node inventory), alone, as a stream or
list, or in a scenario file's `objects:`. Objects of other kinds are skipped with a note on stderr.

render  prints the Kueue objects HyperPod creates for the policies, for `kubectl apply -f -`:
        v1 Namespaces, then kueue.x-k8s.io/v1beta1 ResourceFlavors, WorkloadPriorityClasses,
        ClusterQueues (cohort shared-pool) and LocalQueues. The Kueue Configuration the cluster
        policy implies (fairSharing, from FairShare) is not a Kubernetes object: the YAML output
        ends with it as a comment block saying where it belongs (ConfigMap
        kueue-system/kueue-manager-config).

lint    checks the policies and prints one line per finding, then a summary:
          error: <file:line>: <object>: <member>: <what is wrong>
          warning: <file:line>: <what to look at>
          N errors, M warnings
        Errors: invalid members, duplicate teams or allocation names, two cluster policies or
        inventories. Warnings (only looked for once there are no errors): quota above the
        HyperPodCluster inventory per instance type and resource, instance types without nodes,
        a single allocation, settings that are ignored, defaults assumed.

Options:
  --output yaml|json  render: output format (default yaml). JSON is one v1 List, without the
                      Kueue Configuration comment.
  --kueue-config      render: print only the Kueue Configuration fragment, as plain YAML (or
                      JSON), e.g.
                        fairSharing:
                          enable: true
                          preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
  --efa RULE          how EFA quota is derived from a partial instance: whole-instance (default;
                      every instance an allocation touches brings all its EFA interfaces) or
                      proportional

Exit status: 0 rendered, or no errors (warnings only); 1 a policy is invalid (lint: errors were
reported); 2 bad arguments or a file cannot be read.
)",
    RunHyperpod,
};

}  // namespace qm::cli
