// Applying manifest objects to an engine, with engine errors traced back to file:line.
#include <cctype>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "qm/io/manifest.h"

namespace qm {
namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// Where `needle` first occurs in `text` as a whole name (not as the prefix of a longer one).
size_t FindWhole(std::string_view text, std::string_view needle) {
  for (size_t pos = text.find(needle); pos != std::string_view::npos;
       pos = text.find(needle, pos + 1)) {
    const size_t end = pos + needle.size();
    if (end >= text.size() || !IsNameChar(text[end])) return pos;
  }
  return std::string_view::npos;
}

// The spellings an engine message may use for an object: `ClusterQueue 'eng'`,
// `Workload 'ns/name'`, `ClusterQueue/eng`, `Workload/ns/name`.
std::vector<std::string> Spellings(const ObjectSpec& spec) {
  const ObjectRef ref = RefOf(spec);
  const char* kind = KindName(ref.kind);
  std::vector<std::string> out = {fmt::format("{} '{}'", kind, ref.name),
                                  fmt::format("{}/{}", kind, ref.name)};
  if (!ref.namespace_.empty()) {
    out.push_back(fmt::format("{} '{}/{}'", kind, ref.namespace_, ref.name));
    out.push_back(fmt::format("{}/{}/{}", kind, ref.namespace_, ref.name));
  }
  return out;
}

}  // namespace

absl::Status ApplyManifest(Engine& engine, std::span<const ManifestObject> objects) {
  std::vector<ObjectSpec> specs;
  specs.reserve(objects.size());
  for (const ManifestObject& o : objects) specs.push_back(o.spec);
  absl::Status status = engine.Apply(specs);
  if (status.ok()) return status;
  const std::string message(status.message());
  size_t best_pos = std::string_view::npos;
  const ManifestObject* best = nullptr;
  for (const ManifestObject& o : objects) {
    for (const std::string& spelling : Spellings(o.spec)) {
      const size_t pos = FindWhole(message, spelling);
      if (pos < best_pos) {
        best_pos = pos;
        best = &o;
      }
    }
  }
  if (best == nullptr) return status;
  return absl::Status(status.code(), fmt::format("{}: {}", best->source, message));
}

}  // namespace qm
