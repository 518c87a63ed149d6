// A small ordered document tree (null, bool, integer, string, list, map) and its YAML and JSON
// emitters. Everything the library prints (manifests, `qm run` reports, diffs, HyperPod renders,
// perf reports) is built as a `Doc` first, so YAML and JSON output share one shape and keys keep
// the order they were added in: output never depends on a hash order.
#ifndef QM_LIB_TEXT_DOC_H_
#define QM_LIB_TEXT_DOC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qm::internal {

/// A YAML/JSON value. Maps keep insertion order (callers add keys in a deterministic order).
class Doc {
 public:
  enum class Type { kNull, kBool, kInt, kString, kList, kMap };

  Doc() = default;  // null
  static Doc Bool(bool v);
  static Doc Int(int64_t v);
  static Doc Str(std::string v);
  static Doc List();
  static Doc Map();

  /// Appends to a list.
  Doc& Add(Doc item);
  /// Appends a key to a map (the caller keeps keys unique).
  Doc& Set(std::string key, Doc value);
  /// Marks a list or map to be written inline (`{a: 1}`, `[x, y]`) in YAML.
  Doc& Flow();

  Type type() const { return type_; }
  bool flow() const { return flow_; }
  bool bool_value() const { return bool_; }
  int64_t int_value() const { return int_; }
  const std::string& string_value() const { return string_; }
  const std::vector<Doc>& items() const { return items_; }
  const std::vector<std::pair<std::string, Doc>>& entries() const { return entries_; }
  /// Number of list items or map entries.
  size_t size() const { return type_ == Type::kMap ? entries_.size() : items_.size(); }

 private:
  Type type_ = Type::kNull;
  bool flow_ = false;
  bool bool_ = false;
  int64_t int_ = 0;
  std::string string_;
  std::vector<Doc> items_;
  std::vector<std::pair<std::string, Doc>> entries_;
};

/// Block-style YAML (kubectl's layout: list items at their key's indentation), ending in a newline.
std::string EmitYaml(const Doc& doc);
/// One-line YAML flow style, e.g. `{clusterQueue: a, podSets: {main: {cpu: spot}}}`.
std::string EmitFlow(const Doc& doc);
/// JSON, indented by two spaces, ending in a newline.
std::string EmitJson(const Doc& doc);
/// A string as a YAML scalar: plain when that reads back as the same string, else double-quoted.
std::string YamlScalar(std::string_view s);
/// A string as a JSON string literal.
std::string JsonString(std::string_view s);

}  // namespace qm::internal

#endif  // QM_LIB_TEXT_DOC_H_
