// Loading YAML text and files with yaml-cpp's exceptions turned into statuses that name file:line.
// Private to the library (the text layer, below lib/io, lib/hyperpod and lib/sim).
#ifndef QM_LIB_TEXT_YAML_LOAD_H_
#define QM_LIB_TEXT_YAML_LOAD_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "yaml-cpp/yaml.h"

namespace qm::internal {

/// Parses every document of `text` (null documents, e.g. after a trailing `---`, are dropped).
/// Malformed YAML gives `file:line: malformed YAML: <yaml-cpp's message>`.
absl::Status LoadYamlDocuments(std::string_view text, std::string_view file,
                               std::vector<YAML::Node>* docs);

/// `file:line: malformed YAML: message` for an exception yaml-cpp threw while reading `file`.
absl::Status YamlExceptionStatus(const YAML::Exception& e, std::string_view file);

/// The whole content of a file; NotFound naming the path when it cannot be read.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

}  // namespace qm::internal

#endif  // QM_LIB_TEXT_YAML_LOAD_H_
