// A pull reader for JSON text (import_json.h).
#include "sim/import_json.h"

#include <bit>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fmt/format.h"

namespace qm::sim::internal {
namespace {

constexpr size_t kMaxDepth = 64;  // deeper nesting is no trace we know; it would only burn stack

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The length of the run of plain string characters at `s` (none of '"', '\\' or a control
// character), up to `end`. Sixteen bytes at a time where SSE2 is (every x86-64), then eight: most
// strings in the traces are keys, dates and ids of 4 to 40 characters, which a byte loop with three
// tests per byte crawls through.
size_t PlainRun(const char* s, const char* end) {
  const char* p = s;
#if defined(__SSE2__)
  const __m128i quotes = _mm_set1_epi8('"'), slashes = _mm_set1_epi8('\\'), below_space = _mm_set1_epi8(0x1F);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // A control character is one whose unsigned maximum with 0x1F is 0x1F.
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quotes), _mm_cmpeq_epi8(v, slashes)),
                                     _mm_cmpeq_epi8(_mm_max_epu8(v, below_space), below_space));
    if (const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(hit)); mask != 0) {
      return static_cast<size_t>(p - s) + static_cast<size_t>(std::countr_zero(mask));
    }
    p += 16;
  }
#endif
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    while (end - p >= 8) {
      uint64_t w = 0;
      std::memcpy(&w, p, 8);
      // Per byte, the high bit is set for a zero byte (of w ^ '"', w ^ '\\') or one below 0x20;
      // the lowest such byte is exact (borrows only run upwards from it).
      const uint64_t quote = w ^ (kOnes * '"'), slash = w ^ (kOnes * '\\');
      const uint64_t hit = ((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash) | ((w - kOnes * 0x20) & ~w);
      if ((hit & kHigh) != 0) {
        return static_cast<size_t>(p - s) + static_cast<size_t>(std::countr_zero(hit & kHigh) / 8);
      }
      p += 8;
    }
  }
  while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
  return static_cast<size_t>(p - s);
}

bool IsScalarChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '+' ||
         c == '.';
}

}  // namespace

JsonReader::JsonReader(std::string_view text) : text_(text) {
  if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
}

bool JsonReader::Fail(std::string message) {
  if (error_.empty()) {
    error_ = std::move(message);
    error_line_ = line_;
  }
  pos_ = text_.size();
  return false;
}

char JsonReader::SkipSpace() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '\n') {
      ++line_;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return c;
    }
    ++pos_;
  }
  return 0;
}

bool JsonReader::Begin(char open, const char* expected) {
  if (Peek() != open) return Fail(expected);
  if (started_.size() == kMaxDepth) return Fail("values are nested too deeply");
  ++pos_;
  started_.push_back(0);
  return true;
}

bool JsonReader::BeginObject() { return Begin('{', "expected an object"); }

bool JsonReader::BeginList() { return Begin('[', "expected a list"); }

bool JsonReader::Continue(char close, bool* more) {
  *more = false;
  if (failed() || started_.empty()) return false;
  const char c = Peek();
  if (c == close) {
    ++pos_;
    started_.pop_back();
    return true;
  }
  if (started_.back() != 0) {
    if (c != ',') return Fail(fmt::format("expected ',' or '{}'", close));
    ++pos_;
  }
  started_.back() = 1;
  *more = true;
  return true;
}

bool JsonReader::NextMember(std::string_view* key) {
  bool more = false;
  if (!Continue('}', &more) || !more) return false;
  if (Peek() != '"') return Fail("expected a member name in quotes");
  if (!ReadString(key)) return false;
  if (Peek() != ':') return Fail("expected ':' after a member name");
  ++pos_;
  return true;
}

bool JsonReader::NextItem() {
  bool more = false;
  return Continue(']', &more) && more;
}

bool JsonReader::ReadString(std::string_view* out) {
  ++pos_;  // the opening quote
  const size_t begin = pos_;
  pos_ += PlainRun(text_.data() + pos_, text_.data() + text_.size());
  if (pos_ < text_.size() && text_[pos_] == '"') {  // the common case: no escapes
    *out = text_.substr(begin, pos_ - begin);
    ++pos_;
    return true;
  }
  unescaped_.assign(text_.substr(begin, pos_ - begin));
  while (pos_ < text_.size()) {
    const char c = text_[pos_++];
    if (c == '"') {
      *out = unescaped_;
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) return Fail("a control character inside a string");
    if (c != '\\') {
      unescaped_.push_back(c);
      continue;
    }
    if (pos_ >= text_.size()) break;
    const char e = text_[pos_++];
    switch (e) {
      case '"': case '\\': case '/': unescaped_.push_back(e); break;
      case 'b': unescaped_.push_back('\b'); break;
      case 'f': unescaped_.push_back('\f'); break;
      case 'n': unescaped_.push_back('\n'); break;
      case 'r': unescaped_.push_back('\r'); break;
      case 't': unescaped_.push_back('\t'); break;
      case 'u': {
        auto hex4 = [&](uint32_t* v) {
          if (pos_ + 4 > text_.size()) return false;
          *v = 0;
          for (int i = 0; i < 4; ++i) {
            const int h = HexValue(text_[pos_ + i]);
            if (h < 0) return false;
            *v = *v * 16 + static_cast<uint32_t>(h);
          }
          pos_ += 4;
          return true;
        };
        uint32_t cp = 0;
        if (!hex4(&cp)) return Fail("a \\u escape needs four hex digits");
        if (cp >= 0xD800 && cp < 0xDC00) {  // a high surrogate: its low half follows
          uint32_t low = 0;
          if (!text_.substr(pos_).starts_with("\\u")) return Fail("a lone UTF-16 surrogate in a \\u escape");
          pos_ += 2;
          if (!hex4(&low) || low < 0xDC00 || low >= 0xE000) return Fail("a lone UTF-16 surrogate in a \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          return Fail("a lone UTF-16 surrogate in a \\u escape");
        }
        AppendUtf8(unescaped_, cp);
        break;
      }
      default:
        return Fail(fmt::format("unknown escape '\\{}' in a string", e));
    }
  }
  return Fail("unterminated string");
}

bool JsonReader::ReadStringOrNull(std::string_view* out, bool* is_null) {
  *is_null = false;
  const char c = Peek();
  if (c == '"') return ReadString(out);
  if (text_.substr(pos_).starts_with("null") && (pos_ + 4 == text_.size() || !IsScalarChar(text_[pos_ + 4]))) {
    pos_ += 4;
    *is_null = true;
    return true;
  }
  return Fail("expected a string or null");
}

bool JsonReader::SkipScalar() {
  const size_t begin = pos_;
  while (pos_ < text_.size() && IsScalarChar(text_[pos_])) ++pos_;
  const std::string_view word = text_.substr(begin, pos_ - begin);
  if (word == "true" || word == "false" || word == "null") return true;
  // A number: an optional '-', digits, an optional fraction and exponent (checked loosely: the
  // importers never read numbers they skip).
  if (!word.empty() && (word[0] == '-' || (word[0] >= '0' && word[0] <= '9'))) return true;
  pos_ = begin;
  return Fail("expected a value");
}

bool JsonReader::Skip() {
  switch (Peek()) {
    case '{': {
      if (!BeginObject()) return false;
      std::string_view key;
      while (NextMember(&key)) {
        if (!Skip()) return false;
      }
      return !failed();
    }
    case '[': {
      if (!BeginList()) return false;
      while (NextItem()) {
        if (!Skip()) return false;
      }
      return !failed();
    }
    case '"': {
      std::string_view ignored;
      return ReadString(&ignored);
    }
    default:
      return SkipScalar();
  }
}

bool JsonReader::TrySkipPlainStringList(int64_t* count) {
  if (Peek() != '[' || started_.size() == kMaxDepth) return false;
  const char* p = text_.data() + pos_ + 1;
  const char* const end = text_.data() + text_.size();
  auto skip_blanks = [&] {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
  };
  int64_t n = 0;
  skip_blanks();
  if (p < end && *p == ']') {
    pos_ = static_cast<size_t>(p + 1 - text_.data());
    *count = 0;
    return true;
  }
  while (p < end && *p == '"') {
    p += 1 + PlainRun(p + 1, end);
    if (p == end || *p != '"') return false;  // an escape, a control character or no end
    ++p;
    ++n;
    skip_blanks();
    if (p == end) return false;
    if (*p == ']') {
      pos_ = static_cast<size_t>(p + 1 - text_.data());
      *count = n;
      return true;
    }
    if (*p != ',') return false;
    ++p;
    skip_blanks();
  }
  return false;
}

bool JsonReader::AtEnd() {
  Peek();
  if (pos_ < text_.size()) return Fail("unexpected text after the top-level value");
  return true;
}

}  // namespace qm::sim::internal
