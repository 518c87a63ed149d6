#include "text/yaml_load.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/parser.h"

namespace qm::internal {
namespace {

// yaml-cpp 0.7's LoadAll never ends on a stray flow indicator at document level (`{}, 1`, or a
// lone `,`): the parser reports a null document without consuming the token, forever, and each
// one is kept — over 1 GB within seconds (fixed upstream in 2024, jbeder/yaml-cpp#1319; Debian 12
// ships 0.7). The fuzzer found it through the HyperPod policy reader. This handler runs one
// parse that keeps nothing and stops with an error once a document starts where the previous
// one did, i.e. the parser made no progress; only input that passes it reaches LoadAll.
class ProgressGuard final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (seen_document_ && mark.pos <= last_start_) {
      throw YAML::ParserException(
          mark, "unexpected ',', ']' or '}' outside any flow collection ([...] or {...})");
    }
    seen_document_ = true;
    last_start_ = mark.pos;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  bool seen_document_ = false;
  int last_start_ = 0;
};

}  // namespace

absl::Status YamlExceptionStatus(const YAML::Exception& e, std::string_view file) {
  const std::string message = e.msg.empty() ? std::string(e.what()) : e.msg;
  if (e.mark.is_null()) return absl::InvalidArgumentError(fmt::format("{}: malformed YAML: {}", file, message));
  return absl::InvalidArgumentError(
      fmt::format("{}:{}: malformed YAML: {}", file, e.mark.line + 1, message));
}

absl::Status LoadYamlDocuments(std::string_view text, std::string_view file,
                               std::vector<YAML::Node>* docs) {
  try {
    const std::string owned(text);
    {
      std::istringstream in(owned);
      YAML::Parser parser(in);
      ProgressGuard guard;
      while (parser.HandleNextDocument(guard)) {
      }
    }
    for (YAML::Node& doc : YAML::LoadAll(owned)) {
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
