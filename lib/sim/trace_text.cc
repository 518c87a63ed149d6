// Text helpers shared by the trace reader, writer and generator (trace_text.h).
#include "sim/trace_text.h"

#include <array>
#include <cstdint>

#include "fmt/format.h"

namespace qm::sim::internal {
namespace {

constexpr bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// The characters of names, by byte: kNameChar for letters, digits, '-', '.' and '_', kSlashChar
// for '/'. A table, not range tests: every imported job name is checked, and on ids of mixed hex
// digits and letters the tests' branches mispredict.
constexpr uint8_t kNameChar = 1, kSlashChar = 2;
constexpr std::array<uint8_t, 256> kNameChars = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (IsAlnum(static_cast<char>(c)) || c == '-' || c == '.' || c == '_') t[static_cast<size_t>(c)] = kNameChar;
  }
  t['/'] = kSlashChar;
  return t;
}();

std::string CharactersProblem(std::string_view name, size_t max_size, bool slash) {
  if (name.empty()) return "must not be empty";
  if (name.size() > max_size) return fmt::format("is {} characters long, at most {} are allowed", name.size(), max_size);
  const uint8_t allowed = slash ? kNameChar | kSlashChar : kNameChar;
  bool all_allowed = true;
  for (const char c : name) all_allowed &= (kNameChars[static_cast<unsigned char>(c)] & allowed) != 0;
  if (!all_allowed) {
    return slash ? "may contain only letters, digits, '-', '.', '_' and '/'"
                 : "may contain only letters, digits, '-', '.' and '_'";
  }
  if (!IsAlnum(name.front()) || !IsAlnum(name.back())) return "must start and end with a letter or digit";
  return "";
}

}  // namespace

std::string QuoteValue(std::string_view value) {
  constexpr size_t kShown = 40;
  std::string out = "\"";
  for (size_t i = 0; i < value.size() && i < kShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  if (value.size() > kShown) out += "...";
  out.push_back('"');
  return out;
}

std::string NameProblem(std::string_view name, size_t max_size) { return CharactersProblem(name, max_size, false); }

std::string ResourceNameProblem(std::string_view name) { return CharactersProblem(name, kMaxNameSize, true); }

}  // namespace qm::sim::internal
