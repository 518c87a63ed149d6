#include "text/yaml_load.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "fmt/format.h"

namespace qm::internal {

absl::Status YamlExceptionStatus(const YAML::Exception& e, std::string_view file) {
  const std::string message = e.msg.empty() ? std::string(e.what()) : e.msg;
  if (e.mark.is_null()) return absl::InvalidArgumentError(fmt::format("{}: malformed YAML: {}", file, message));
  return absl::InvalidArgumentError(
      fmt::format("{}:{}: malformed YAML: {}", file, e.mark.line + 1, message));
}

absl::Status LoadYamlDocuments(std::string_view text, std::string_view file,
                               std::vector<YAML::Node>* docs) {
  try {
    for (YAML::Node& doc : YAML::LoadAll(std::string(text))) {
      if (!doc.IsNull()) docs->push_back(std::move(doc));
    }
  } catch (const YAML::Exception& e) {
    docs->clear();
    return YamlExceptionStatus(e, file);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return absl::NotFoundError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  }
  return buffer.str();
}

}  // namespace qm::internal
