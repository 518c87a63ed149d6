// Reading typed values out of yaml-cpp nodes with errors that say where: every value is reached
// through a `Cursor` that knows its file line and field path, and the first error of a load is kept
// in its `LoadContext` ("sticky" error: later reads return neutral values and record nothing, and
// callers check `ok()` where it matters). Private to the I/O layer: the only place that sees yaml-cpp.
#ifndef QM_LIB_IO_YAML_CURSOR_H_
#define QM_LIB_IO_YAML_CURSOR_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "yaml-cpp/yaml.h"

namespace qm::internal {

/// The first error of one load, and what it is loading: the file (as the user named it) and the
/// object being read (`ClusterQueue/eng-alpha`), both prefixed to every message.
class LoadContext {
 public:
  explicit LoadContext(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  /// "file:line".
  std::string Where(int line) const;

  /// The object errors are attributed to ("" while no object is being read).
  void set_object(std::string object) { object_ = std::move(object); }
  const std::string& object() const { return object_; }

  bool ok() const { return status_.ok(); }
  const absl::Status& status() const { return status_; }
  /// Records `file:line: object: path: message` unless an error is already recorded.
  void Fail(int line, std::string_view path, std::string_view message);
  /// Records an already formatted message unless an error is already recorded.
  void FailRaw(absl::Status status);
  /// Records a warning `file:line: object: path: message` (the load goes on); the object reader
  /// moves them into the load's notes.
  void Note(int line, std::string_view path, std::string_view message);
  /// The warnings recorded so far, which are cleared.
  std::vector<std::string> TakeNotes() { return std::exchange(notes_, {}); }

 private:
  std::string file_;
  std::string object_;
  absl::Status status_;
  std::vector<std::string> notes_;
};

/// A position in a YAML document: a node (possibly absent), its field path (`spec.podSets[0]`) and
/// the 1-based line errors about it point at (the line of its key, or of its parent when absent).
class Cursor {
 public:
  Cursor(LoadContext* ctx, YAML::Node node, std::string path, int line)
      : ctx_(ctx), node_(std::move(node)), path_(std::move(path)), line_(line) {}
  /// A root cursor over a document, at the node's own line.
  static Cursor Root(LoadContext* ctx, const YAML::Node& node);

  LoadContext& ctx() const { return *ctx_; }
  const std::string& path() const { return path_; }
  int line() const { return line_; }
  const YAML::Node& node() const { return node_; }

  /// Defined and not null.
  bool present() const;
  bool is_map() const { return present() && node_.IsMap(); }
  bool is_sequence() const { return present() && node_.IsSequence(); }
  bool is_scalar() const { return present() && node_.IsScalar(); }
  /// "a map", "a list", "a string", "null" — for messages.
  std::string TypeName() const;

  /// The value of `key` in this map (absent when this is not a map or has no such key). A key that
  /// appears twice is an error.
  Cursor operator[](std::string_view key) const;
  /// Whether this map has `key` (with any value, null included).
  bool Has(std::string_view key) const;

  /// Records an error at this position: `file:line: object: path: message`.
  void Fail(std::string_view message) const;
  /// Records a warning at this position (LoadContext::Note).
  void Note(std::string_view message) const;

  /// Requires a map (absent is fine and returns false without error).
  bool ExpectMap() const;
  /// Requires a list (absent is fine and returns false without error).
  bool ExpectSequence() const;
  /// Items of a list; an error (and nothing) when this is present but not a list.
  std::vector<Cursor> Items() const;
  /// Entries of a map in file order, keys as strings; an error when this is present but not a
  /// map, or when a key repeats. `[key]` is appended to the path of each value.
  std::vector<std::pair<std::string, Cursor>> Entries() const;
  /// Like `Entries`, but each value's path is `path.key` (for maps whose keys are field names).
  std::vector<std::pair<std::string, Cursor>> Fields() const;
  /// Records an error for every key of this map that is not in `allowed` (for our own formats;
  /// Kubernetes objects ignore unknown fields).
  void CheckKeys(std::initializer_list<std::string_view> allowed) const;

  /// The scalar text; an error when present but not a scalar. Absent or null gives nullopt.
  std::optional<std::string> OptString() const;
  /// The scalar text, or "" when absent.
  std::string String() const;
  /// The scalar text; an error "is required" when absent, null or empty.
  std::string RequiredString() const;
  /// An integer in [min, max] (YAML int or a string holding one).
  std::optional<int64_t> OptInt(int64_t min, int64_t max) const;
  /// `true` / `false` (YAML bool or a string holding one).
  std::optional<bool> OptBool() const;
  /// A list of strings.
  std::vector<std::string> Strings() const;
  /// A map of string to string, sorted by key (labels, nodeSelector).
  std::vector<std::pair<std::string, std::string>> StringMap() const;

  /// One of the names in `table`; an error listing the allowed names otherwise.
  template <class E>
  std::optional<E> OptEnum(std::span<const std::pair<std::string_view, E>> table) const {
    std::optional<std::string> s = OptString();
    if (!s.has_value()) return std::nullopt;
    for (const auto& [name, value] : table) {
      if (name == *s) return value;
    }
    std::vector<std::string_view> names;
    for (const auto& entry : table) names.push_back(entry.first);
    FailNotOneOf(*s, names);
    return std::nullopt;
  }

  /// Records `"value" is not one of A, B, C`.
  void FailNotOneOf(std::string_view value, std::span<const std::string_view> allowed) const;

 private:
  Cursor Child(const YAML::Node& key, const YAML::Node& value, std::string path) const;

  LoadContext* ctx_;
  YAML::Node node_;
  std::string path_;
  int line_;
};

/// "path.key" (or "key" at the root).
std::string JoinPath(std::string_view path, std::string_view key);
/// The 1-based line of a node, or `fallback` when yaml-cpp has no mark for it.
int LineOf(const YAML::Node& node, int fallback);

}  // namespace qm::internal

#endif  // QM_LIB_IO_YAML_CURSOR_H_
