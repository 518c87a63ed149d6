#include "text/node.h"

#include <string>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "yaml-cpp/yaml.h"

namespace qm::internal {

const Node* Node::Find(std::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string Node::TypeName() const {
  switch (type) {
    case Type::kNull: return "null";
    case Type::kScalar: return fmt::format("the value \"{}\"", text);
    case Type::kMap: return "a map";
    case Type::kList: return "a list";
  }
  return "null";
}

Node FromYaml(const YAML::Node& node, int fallback_line) {
  Node out;
  out.line = fallback_line;
  if (!node.IsDefined()) return out;
  if (!node.Mark().is_null()) out.line = node.Mark().line + 1;
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      out.type = Node::Type::kScalar;
      out.text = node.Scalar();
      break;
    case YAML::NodeType::Sequence:
      out.type = Node::Type::kList;
      for (const YAML::Node& item : node) out.items.push_back(FromYaml(item, out.line));
      break;
    case YAML::NodeType::Map:
      out.type = Node::Type::kMap;
      for (const auto& kv : node) {
        const int key_line = kv.first.Mark().is_null() ? out.line : kv.first.Mark().line + 1;
        Node value = FromYaml(kv.second, key_line);
        // Errors about a value point at its key's line (where a YAML reader looks for it).
        value.line = key_line;
        out.fields.emplace_back(kv.first.IsScalar() ? kv.first.Scalar() : std::string("?"),
                                std::move(value));
      }
      break;
    default: break;
  }
  return out;
}

namespace {

class ShorthandParser {
 public:
  ShorthandParser(std::string_view text, int line) : text_(text), line_(line) {}

  absl::StatusOr<Node> Parse() {
    Node root = Pairs('\0');
    if (!error_.empty()) return absl::InvalidArgumentError(error_);
    SkipSpace();
    if (pos_ < text_.size()) {
      Fail(fmt::format("unexpected '{}'", text_[pos_]));
      return absl::InvalidArgumentError(error_);
    }
    return root;
  }

 private:
  void Fail(std::string message) {
    if (error_.empty()) error_ = fmt::format("{} at character {}", message, pos_ + 1);
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool At(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  // key=value[,key=value...] up to `close` ('}' or end of text).
  Node Pairs(char close) {
    Node map;
    map.type = Node::Type::kMap;
    map.line = line_;
    SkipSpace();
    if (close != '\0' && At(close)) return map;
    while (error_.empty()) {
      SkipSpace();
      const size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] != '=' && text_[pos_] != ',' &&
             text_[pos_] != '{' && text_[pos_] != '}' && text_[pos_] != '[' &&
             text_[pos_] != ']') {
        ++pos_;
      }
      std::string key(text_.substr(start, pos_ - start));
      while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
      if (key.empty()) {
        Fail("expected a member name");
        return map;
      }
      if (!At('=')) {
        Fail(fmt::format("expected '=' after \"{}\"", key));
        return map;
      }
      ++pos_;
      Node value = Value();
      if (!error_.empty()) return map;
      if (map.Find(key) != nullptr) {
        Fail(fmt::format("\"{}\" is given twice", key));
        return map;
      }
      map.fields.emplace_back(std::move(key), std::move(value));
      if (At(',')) {
        ++pos_;
        continue;
      }
      if (close == '\0') {
        SkipSpace();
        if (pos_ < text_.size()) Fail(fmt::format("unexpected '{}'", text_[pos_]));
      } else if (!At(close)) {
        Fail(fmt::format("expected ',' or '{}'", close));
      }
      return map;
    }
    return map;
  }

  Node Value() {
    if (At('{')) {
      ++pos_;
      Node map = Pairs('}');
      if (error_.empty()) ++pos_;  // '}'
      return map;
    }
    if (At('[')) {
      ++pos_;
      Node list;
      list.type = Node::Type::kList;
      list.line = line_;
      if (At(']')) {
        ++pos_;
        return list;
      }
      while (error_.empty()) {
        list.items.push_back(Value());
        if (!error_.empty()) return list;
        if (At(',')) {
          ++pos_;
          continue;
        }
        if (!At(']')) {
          Fail("expected ',' or ']'");
          return list;
        }
        ++pos_;
        return list;
      }
      return list;
    }
    Node scalar;
    scalar.type = Node::Type::kScalar;
    scalar.line = line_;
    SkipSpace();
    if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'')) {
      const char quote = text_[pos_++];
      const size_t end = text_.find(quote, pos_);
      if (end == std::string_view::npos) {
        Fail(fmt::format("unterminated {}", quote));
        return scalar;
      }
      scalar.text = std::string(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
      return scalar;
    }
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}' && text_[pos_] != ']' &&
           text_[pos_] != '{' && text_[pos_] != '[' && text_[pos_] != '=') {
      ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == '{' || text_[pos_] == '[' || text_[pos_] == '=')) {
      Fail(fmt::format("unexpected '{}' in a value", text_[pos_]));
      return scalar;
    }
    std::string value(text_.substr(start, pos_ - start));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
    if (value.empty()) {
      Fail("expected a value");
      return scalar;
    }
    scalar.text = std::move(value);
    return scalar;
  }

  std::string_view text_;
  int line_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

absl::StatusOr<Node> ParseShorthand(std::string_view text, int line) {
  return ShorthandParser(text, line).Parse();
}

}  // namespace qm::internal
