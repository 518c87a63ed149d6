#include "io/yaml_cursor.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "fmt/format.h"

namespace qm::internal {

std::string LoadContext::Where(int line) const {
  return line > 0 ? fmt::format("{}:{}", file_, line) : file_;
}

void LoadContext::Fail(int line, std::string_view path, std::string_view message) {
  if (!status_.ok()) return;
  std::string text = Where(line);
  if (!object_.empty()) text += ": " + object_;
  if (!path.empty()) text += fmt::format(": {}", path);
  text += fmt::format(": {}", message);
  status_ = absl::InvalidArgumentError(text);
}

void LoadContext::Note(int line, std::string_view path, std::string_view message) {
  std::string text = Where(line);
  if (!object_.empty()) text += ": " + object_;
  if (!path.empty()) text += fmt::format(": {}", path);
  text += fmt::format(": {}", message);
  notes_.push_back(std::move(text));
}

void LoadContext::FailRaw(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
}

std::string JoinPath(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return fmt::format("{}.{}", path, key);
}

int LineOf(const YAML::Node& node, int fallback) {
  if (!node.IsDefined()) return fallback;
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? fallback : mark.line + 1;
}

Cursor Cursor::Root(LoadContext* ctx, const YAML::Node& node) {
  return Cursor(ctx, node, "", LineOf(node, 0));
}

bool Cursor::present() const { return node_.IsDefined() && !node_.IsNull(); }

std::string Cursor::TypeName() const {
  if (!node_.IsDefined()) return "nothing";
  switch (node_.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return fmt::format("the string \"{}\"", node_.Scalar());
    default: return "null";
  }
}

Cursor Cursor::Child(const YAML::Node& key, const YAML::Node& value, std::string path) const {
  return Cursor(ctx_, value, std::move(path), LineOf(key, line_));
}

Cursor Cursor::operator[](std::string_view key) const {
  const std::string path = JoinPath(path_, key);
  if (!is_map()) return Cursor(ctx_, YAML::Node(YAML::NodeType::Undefined), path, line_);
  std::optional<Cursor> found;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (!it->first.IsScalar() || it->first.Scalar() != key) continue;
    if (found.has_value()) {
      Child(it->first, it->second, path).Fail("duplicate key");
      break;
    }
    found = Child(it->first, it->second, path);
  }
  if (found.has_value()) return *found;
  return Cursor(ctx_, YAML::Node(YAML::NodeType::Undefined), path, line_);
}

bool Cursor::Has(std::string_view key) const {
  if (!is_map()) return false;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return true;
  }
  return false;
}

void Cursor::Fail(std::string_view message) const { ctx_->Fail(line_, path_, message); }

void Cursor::Note(std::string_view message) const { ctx_->Note(line_, path_, message); }

bool Cursor::ExpectMap() const {
  if (!present()) return false;
  if (!node_.IsMap()) {
    Fail(fmt::format("expected a map, got {}", TypeName()));
    return false;
  }
  return true;
}

bool Cursor::ExpectSequence() const {
  if (!present()) return false;
  if (!node_.IsSequence()) {
    Fail(fmt::format("expected a list, got {}", TypeName()));
    return false;
  }
  return true;
}

std::vector<Cursor> Cursor::Items() const {
  std::vector<Cursor> out;
  if (!ExpectSequence()) return out;
  size_t i = 0;
  for (auto it = node_.begin(); it != node_.end(); ++it, ++i) {
    const YAML::Node item = *it;
    out.emplace_back(ctx_, item, fmt::format("{}[{}]", path_, i), LineOf(item, line_));
  }
  return out;
}

namespace {

// Shared by `Entries` and `Fields`: map entries with a path built by `make_path`.
template <class MakePath>
std::vector<std::pair<std::string, Cursor>> MapEntries(const Cursor& c, MakePath make_path) {
  std::vector<std::pair<std::string, Cursor>> out;
  if (!c.ExpectMap()) return out;
  for (auto it = c.node().begin(); it != c.node().end(); ++it) {
    const int key_line = LineOf(it->first, c.line());
    if (!it->first.IsScalar()) {
      Cursor(&c.ctx(), it->first, c.path(), key_line).Fail("map keys must be strings");
      return {};
    }
    const std::string key = it->first.Scalar();
    Cursor value(&c.ctx(), it->second, make_path(key), key_line);
    for (const auto& [k, v] : out) {
      if (k == key) {
        value.Fail("duplicate key");
        return {};
      }
    }
    out.emplace_back(key, std::move(value));
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, Cursor>> Cursor::Entries() const {
  return MapEntries(*this, [&](const std::string& key) { return fmt::format("{}[{}]", path_, key); });
}

std::vector<std::pair<std::string, Cursor>> Cursor::Fields() const {
  return MapEntries(*this, [&](const std::string& key) { return JoinPath(path_, key); });
}

void Cursor::CheckKeys(std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, value] : Fields()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string list;
    for (std::string_view a : allowed) list += list.empty() ? std::string(a) : ", " + std::string(a);
    value.Fail(fmt::format("unknown field \"{}\" (expected one of: {})", key, list));
    return;
  }
}

std::optional<std::string> Cursor::OptString() const {
  if (!present()) return std::nullopt;
  if (!node_.IsScalar()) {
    Fail(fmt::format("expected a string, got {}", TypeName()));
    return std::nullopt;
  }
  return node_.Scalar();
}

std::string Cursor::String() const { return OptString().value_or(""); }

std::string Cursor::RequiredString() const {
  std::optional<std::string> s = OptString();
  if (ctx_->ok() && (!s.has_value() || s->empty())) Fail("is required");
  return s.value_or("");
}

std::optional<int64_t> Cursor::OptInt(int64_t min, int64_t max) const {
  std::optional<std::string> s = OptString();
  if (!s.has_value()) return std::nullopt;
  std::string_view text = *s;
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ptr != text.data() + text.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    Fail(fmt::format("\"{}\" is not an integer", *s));
    return std::nullopt;
  }
  if (ec == std::errc::result_out_of_range || v < min || v > max) {
    Fail(fmt::format("{} is out of range [{}, {}]", *s, min, max));
    return std::nullopt;
  }
  return v;
}

std::optional<bool> Cursor::OptBool() const {
  std::optional<std::string> s = OptString();
  if (!s.has_value()) return std::nullopt;
  if (*s == "true" || *s == "True" || *s == "TRUE") return true;
  if (*s == "false" || *s == "False" || *s == "FALSE") return false;
  Fail(fmt::format("\"{}\" is not a boolean (true or false)", *s));
  return std::nullopt;
}

std::vector<std::string> Cursor::Strings() const {
  std::vector<std::string> out;
  for (const Cursor& item : Items()) {
    if (!item.present()) {
      item.Fail("expected a string, got null");
      return {};
    }
    out.push_back(item.String());
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Cursor::StringMap() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : Entries()) out.emplace_back(key, value.String());
  std::sort(out.begin(), out.end());
  return out;
}

void Cursor::FailNotOneOf(std::string_view value, std::span<const std::string_view> allowed) const {
  std::string list;
  for (std::string_view a : allowed) list += list.empty() ? std::string(a) : ", " + std::string(a);
  Fail(fmt::format("\"{}\" is not one of {}", value, list));
}

}  // namespace qm::internal
