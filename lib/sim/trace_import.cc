// Importing public GPU-cluster traces (trace_import.h): options, dispatch to the format's importer,
// and the helpers the formats share.
#include "qm/sim/trace_import.h"

#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "qm/core/status.h"
#include "sim/import_fields.h"
#include "sim/import_file.h"
#include "sim/import_formats.h"
#include "sim/import_nodes.h"
#include "sim/import_sink.h"
#include "sim/trace_text.h"

namespace qm::sim {
namespace internal {

absl::StatusOr<bool> ResolveOwner(ImportSink& sink, std::string_view value, uint32_t input, int64_t line,
                                  std::string_view column, uint32_t* owner) {
  if (!sink.options().owner.empty()) value = sink.options().owner;
  if (IsMissing(value)) return false;
  QM_ASSIGN_OR_RETURN(*owner, sink.Owner(value, input, line, column));
  return true;
}

absl::Status ModelAffinity(const ImportSink& sink, std::string_view models, uint32_t input, int64_t line,
                           std::string_view column, std::string* out) {
  for (size_t begin = 0; begin <= models.size();) {
    const size_t bar = std::min(models.find('|', begin), models.size());
    const std::string_view model = models.substr(begin, bar - begin);
    if (const std::string problem = LabelValueProblem(model); !problem.empty()) {
      return ImportError(sink.file(input), line, column,
                         fmt::format("GPU model {} is not a valid label value: it {}", QuoteValue(model), problem));
    }
    begin = bar + 1;
  }
  out->assign(sink.options().model_label);
  out->append(" In ");
  out->append(models);
  return absl::OkStatus();
}

}  // namespace internal

namespace {

// Why `key` is not a label key (`[prefix/]name`: a DNS subdomain prefix, a name as a label value),
// or "".
std::string LabelKeyProblem(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (const std::string p = internal::NameProblem(key.substr(0, slash), 253); !p.empty()) return "its prefix " + p;
    key = key.substr(slash + 1);
  }
  if (const std::string p = internal::LabelValueProblem(key); !p.empty()) return "its name " + p;
  return "";
}

absl::Status CheckOptions(const TraceImportOptions& o) {
  if (const std::string p = internal::ResourceNameProblem(o.gpu_resource); !p.empty()) {
    return absl::InvalidArgumentError(fmt::format("gpu resource {}: it {}", internal::QuoteValue(o.gpu_resource), p));
  }
  if (const std::string p = LabelKeyProblem(o.model_label); !p.empty()) {
    return absl::InvalidArgumentError(fmt::format("model label {}: {}", internal::QuoteValue(o.model_label), p));
  }
  if (!o.owner.empty()) {
    const size_t max = o.owner_as_namespace ? internal::kMaxNamespaceSize : internal::kMaxTeamSize;
    if (const std::string p = internal::NameProblem(o.owner, max); !p.empty()) {
      return absl::InvalidArgumentError(fmt::format("owner {}: it {}", internal::QuoteValue(o.owner), p));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<TraceFormat> ParseTraceFormat(std::string_view name) {
  if (name == "openb") return TraceFormat::kOpenb;
  if (name == "pai2020") return TraceFormat::kPai2020;
  if (name == "philly") return TraceFormat::kPhilly;
  if (name == "helios") return TraceFormat::kHelios;
  return std::nullopt;
}

std::string_view TraceFormatName(TraceFormat format) {
  switch (format) {
    case TraceFormat::kOpenb: return "openb";
    case TraceFormat::kPai2020: return "pai2020";
    case TraceFormat::kPhilly: return "philly";
    case TraceFormat::kHelios: return "helios";
  }
  return "?";
}

absl::StatusOr<ImportedTrace> ImportTrace(TraceFormat format, std::span<const ImportInput> inputs,
                                          const TraceImportOptions& options) {
  QM_RETURN_IF_ERROR(CheckOptions(options));
  if (inputs.empty()) return absl::InvalidArgumentError("no input file");
  ImportedTrace out;
  internal::ImportSink sink(inputs, options, &out.summary);
  internal::NodeYaml nodes(options, TraceFormatName(format));
  switch (format) {
    case TraceFormat::kOpenb: QM_RETURN_IF_ERROR(internal::ImportOpenb(inputs, sink, nodes)); break;
    case TraceFormat::kPai2020: QM_RETURN_IF_ERROR(internal::ImportPai2020(inputs, sink, nodes)); break;
    case TraceFormat::kPhilly: QM_RETURN_IF_ERROR(internal::ImportPhilly(inputs, sink, nodes)); break;
    case TraceFormat::kHelios: QM_RETURN_IF_ERROR(internal::ImportHelios(inputs, sink, nodes)); break;
  }
  QM_ASSIGN_OR_RETURN(out.trace_csv, sink.Finish());
  out.summary.nodes = nodes.count();
  out.nodes_yaml = nodes.Take();
  return out;
}

absl::StatusOr<ImportedTrace> ImportTraceFiles(TraceFormat format, std::span<const std::string> paths,
                                               const TraceImportOptions& options) {
  std::vector<ImportInput> inputs;
  inputs.reserve(paths.size());
  for (const std::string& path : paths) {
    QM_ASSIGN_OR_RETURN(ImportInput input, internal::ReadImportFile(path));
    inputs.push_back(std::move(input));
  }
  return ImportTrace(format, inputs, options);
}

}  // namespace qm::sim
