// A small value tree that every policy input is reduced to before it is read: YAML and JSON
// documents (through yaml-cpp) and the AWS CLI shorthand (`ComputeQuotaResources=[{...}],...`).
// One reader (lib/hyperpod/policy_reader.cc) then serves every input form; lib/io builds it from
// the HyperPod objects of a manifest or scenario. Private to the library (the text layer).
#ifndef QM_LIB_TEXT_NODE_H_
#define QM_LIB_TEXT_NODE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace YAML {
class Node;
}

namespace qm::internal {

struct NodeField;

/// A null, a scalar (its text), a map (keys in input order) or a list; with the input line.
struct Node {
  enum class Type { kNull, kScalar, kMap, kList };
  Type type = Type::kNull;
  std::string text;  ///< scalar text
  int line = 0;      ///< 1-based; 0 when unknown
  std::vector<NodeField> fields;  ///< a map's (key, value) pairs
  std::vector<Node> items;

  bool is_null() const { return type == Type::kNull; }
  bool is_scalar() const { return type == Type::kScalar; }
  bool is_map() const { return type == Type::kMap; }
  bool is_list() const { return type == Type::kList; }
  /// The value of `key` in a map, or nullptr.
  const Node* Find(std::string_view key) const;
  /// "a map", "a list", "null", `the value "x"` — for messages.
  std::string TypeName() const;
};

/// One (key, value) of a map. Not a std::pair: a pair of an incomplete `Node` inside `Node`'s own
/// definition is rejected by clang with libstdc++ (the fuzzing build), a forward-declared struct
/// is not.
struct NodeField {
  NodeField(std::string key, Node value) : first(std::move(key)), second(std::move(value)) {}
  std::string first;
  Node second;
};

/// Converts a yaml-cpp node (lines from its marks, `fallback_line` where it has none).
Node FromYaml(const YAML::Node& node, int fallback_line);

/// Parses AWS CLI shorthand: `key=value` pairs separated by `,`; a value is `{pairs}`, `[values]`
/// or a scalar (unquoted, or in '…' / "…"). Every node gets `line`. Errors say what was expected
/// at which character, e.g. `expected '=' after "Count" at character 12`.
absl::StatusOr<Node> ParseShorthand(std::string_view text, int line);

}  // namespace qm::internal

#endif  // QM_LIB_TEXT_NODE_H_
