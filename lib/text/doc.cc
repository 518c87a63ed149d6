#include "text/doc.h"

#include <cctype>
#include <string>

#include "fmt/format.h"

namespace qm::internal {

Doc Doc::Bool(bool v) {
  Doc d;
  d.type_ = Type::kBool;
  d.bool_ = v;
  return d;
}

Doc Doc::Int(int64_t v) {
  Doc d;
  d.type_ = Type::kInt;
  d.int_ = v;
  return d;
}

Doc Doc::Str(std::string v) {
  Doc d;
  d.type_ = Type::kString;
  d.string_ = std::move(v);
  return d;
}

Doc Doc::List() {
  Doc d;
  d.type_ = Type::kList;
  return d;
}

Doc Doc::Map() {
  Doc d;
  d.type_ = Type::kMap;
  return d;
}

Doc& Doc::Add(Doc item) {
  items_.push_back(std::move(item));
  return *this;
}

Doc& Doc::Set(std::string key, Doc value) {
  entries_.emplace_back(std::move(key), std::move(value));
  return *this;
}

Doc& Doc::Flow() {
  flow_ = true;
  return *this;
}

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Whether YAML (1.1 or 1.2 core schema) could read `s` as a number, so it must be quoted to stay a
// string. Errs on the side of "numeric": quoting a string is always safe.
bool LooksNumeric(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::string_view rest = s.substr(i);
  if (rest.size() > 2 && rest[0] == '0' &&
      (rest[1] == 'x' || rest[1] == 'o' || rest[1] == 'b' || rest[1] == 'X')) {
    return true;
  }
  if (rest == ".inf" || rest == ".Inf" || rest == ".INF" || rest == ".nan" || rest == ".NaN" ||
      rest == ".NAN") {
    return true;
  }
  bool digits = false;
  while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) digits |= IsDigit(s[i++]);
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) digits |= IsDigit(s[i++]);
  }
  if (!digits) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) return true;
  return i == s.size();
}

bool IsReservedWord(std::string_view s) {
  std::string lower;
  for (char c : s) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (std::string_view w : {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}) {
    if (lower == w) return true;
  }
  return false;
}

bool IsPlainSafe(std::string_view s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ') return false;
  if (IsReservedWord(s) || LooksNumeric(s)) return false;
  const char first = s.front();
  if (!(std::isalnum(static_cast<unsigned char>(first)) || first == '_' || first == '.' ||
        first == '/' || first == '(')) {
    return false;
  }
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '_' || c == '.' || c == '/' || c == '-' || c == '+' || c == '(' ||
        c == ')' || c == '@' || c == '=' || c == ' ' || c == ';') {
      continue;
    }
    return false;
  }
  return true;
}

void Indent(int n, std::string& out) { out.append(static_cast<size_t>(n), ' '); }

bool IsInline(const Doc& d) {
  return d.type() != Doc::Type::kList && d.type() != Doc::Type::kMap ? true
                                                                      : d.flow() || d.size() == 0;
}

void EmitFlowTo(const Doc& d, std::string& out) {
  switch (d.type()) {
    case Doc::Type::kNull: out += "null"; return;
    case Doc::Type::kBool: out += d.bool_value() ? "true" : "false"; return;
    case Doc::Type::kInt: out += std::to_string(d.int_value()); return;
    case Doc::Type::kString: out += YamlScalar(d.string_value()); return;
    case Doc::Type::kList: {
      out += '[';
      bool first = true;
      for (const Doc& item : d.items()) {
        if (!first) out += ", ";
        first = false;
        EmitFlowTo(item, out);
      }
      out += ']';
      return;
    }
    case Doc::Type::kMap: {
      out += '{';
      bool first = true;
      for (const auto& [k, v] : d.entries()) {
        if (!first) out += ", ";
        first = false;
        out += YamlScalar(k);
        out += ": ";
        EmitFlowTo(v, out);
      }
      out += '}';
      return;
    }
  }
}

void EmitList(const Doc& d, int indent, std::string& out);

// Writes the entries of a block map at `indent`. When `continue_line` is set the first key goes on
// the current line (after a list item's "- ").
void EmitMap(const Doc& d, int indent, bool continue_line, std::string& out) {
  for (const auto& [k, v] : d.entries()) {
    if (!continue_line) Indent(indent, out);
    continue_line = false;
    out += YamlScalar(k);
    out += ':';
    if (IsInline(v)) {
      out += ' ';
      EmitFlowTo(v, out);
      out += '\n';
    } else if (v.type() == Doc::Type::kMap) {
      out += '\n';
      EmitMap(v, indent + 2, false, out);
    } else {
      out += '\n';
      EmitList(v, indent, out);
    }
  }
}

void EmitList(const Doc& d, int indent, std::string& out) {
  for (const Doc& item : d.items()) {
    Indent(indent, out);
    out += '-';
    if (IsInline(item)) {
      out += ' ';
      EmitFlowTo(item, out);
      out += '\n';
    } else if (item.type() == Doc::Type::kMap) {
      out += ' ';
      EmitMap(item, indent + 2, true, out);
    } else {
      out += '\n';
      EmitList(item, indent + 2, out);
    }
  }
}

void EmitJsonTo(const Doc& d, int indent, std::string& out) {
  switch (d.type()) {
    case Doc::Type::kNull: out += "null"; return;
    case Doc::Type::kBool: out += d.bool_value() ? "true" : "false"; return;
    case Doc::Type::kInt: out += std::to_string(d.int_value()); return;
    case Doc::Type::kString: out += JsonString(d.string_value()); return;
    case Doc::Type::kList: {
      if (d.items().empty()) {
        out += "[]";
        return;
      }
      out += "[\n";
      bool first = true;
      for (const Doc& item : d.items()) {
        if (!first) out += ",\n";
        first = false;
        Indent(indent + 2, out);
        EmitJsonTo(item, indent + 2, out);
      }
      out += '\n';
      Indent(indent, out);
      out += ']';
      return;
    }
    case Doc::Type::kMap: {
      if (d.entries().empty()) {
        out += "{}";
        return;
      }
      out += "{\n";
      bool first = true;
      for (const auto& [k, v] : d.entries()) {
        if (!first) out += ",\n";
        first = false;
        Indent(indent + 2, out);
        out += JsonString(k);
        out += ": ";
        EmitJsonTo(v, indent + 2, out);
      }
      out += '\n';
      Indent(indent, out);
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string YamlScalar(std::string_view s) {
  if (IsPlainSafe(s)) return std::string(s);
  return JsonString(s);  // a JSON string is a valid YAML double-quoted scalar
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string EmitYaml(const Doc& doc) {
  std::string out;
  if (IsInline(doc)) {
    EmitFlowTo(doc, out);
    out += '\n';
  } else if (doc.type() == Doc::Type::kMap) {
    EmitMap(doc, 0, false, out);
  } else {
    EmitList(doc, 0, out);
  }
  return out;
}

std::string EmitFlow(const Doc& doc) {
  std::string out;
  EmitFlowTo(doc, out);
  return out;
}

std::string EmitJson(const Doc& doc) {
  std::string out;
  EmitJsonTo(doc, 0, out);
  out += '\n';
  return out;
}

}  // namespace qm::internal
