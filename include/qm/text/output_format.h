// The formats `qm` and the I/O layer's reports are written in.
#ifndef QM_TEXT_OUTPUT_FORMAT_H_
#define QM_TEXT_OUTPUT_FORMAT_H_

#include <optional>
#include <string_view>

namespace qm {

/// YAML (block style, for people) or JSON (indented, for programs).
enum class OutputFormat { kYaml, kJson };

/// "yaml" or "json"; nullopt otherwise.
inline std::optional<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "yaml") return OutputFormat::kYaml;
  if (name == "json") return OutputFormat::kJson;
  return std::nullopt;
}

}  // namespace qm

#endif  // QM_TEXT_OUTPUT_FORMAT_H_
