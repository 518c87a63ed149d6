// Splitting CSV text into records and values (csv_records.h).
#include "sim/csv_records.h"

#include <bit>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace qm::sim::internal {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

}  // namespace

CsvRecords::CsvRecords(std::string_view text) : text_(text) {
  // A UTF-8 byte order mark, as some spreadsheets write, is not part of the first value.
  if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
}

bool CsvRecords::Fail(size_t value, std::string message) {
  error_ = std::move(message);
  error_value_ = value;
  pos_ = text_.size();
  return false;
}

bool CsvRecords::NextPlain() {
  const char* const text = text_.data();
  const size_t size = text_.size();
  size_t p = pos_;
  if (p >= size || text[p] == '#' || text[p] == '\n') return false;  // the end, a comment, a blank line
  values_.clear();
  size_t value_begin = p;
  const auto end_record = [&](size_t eol) {
    values_.push_back(text_.substr(value_begin, eol - value_begin));
    record_line_ = line_;
    if (eol < size) {
      pos_ = eol + 1;
      ++line_;
    } else {
      pos_ = size;
    }
    return true;
  };
#if defined(__SSE2__)
  // Sixteen bytes at a time: the separators' positions as bits, cut at the first line break.
  const __m128i commas = _mm_set1_epi8(','), breaks = _mm_set1_epi8('\n'), quotes = _mm_set1_epi8('"'),
                spaces = _mm_set1_epi8(' '), tabs = _mm_set1_epi8('\t'), returns = _mm_set1_epi8('\r');
  while (size - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + p));
    unsigned comma = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, commas)));
    const unsigned eol = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, breaks)));
    const __m128i odd = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quotes), _mm_cmpeq_epi8(v, spaces)),
                                     _mm_or_si128(_mm_cmpeq_epi8(v, tabs), _mm_cmpeq_epi8(v, returns)));
    unsigned unusual = static_cast<unsigned>(_mm_movemask_epi8(odd));
    const unsigned before_eol = eol == 0 ? 0xFFFFu : (eol & -eol) - 1;
    comma &= before_eol;
    unusual &= before_eol;
    if (unusual != 0) return false;
    for (; comma != 0; comma &= comma - 1) {
      const size_t at = p + static_cast<size_t>(std::countr_zero(comma));
      values_.push_back(text_.substr(value_begin, at - value_begin));
      value_begin = at + 1;
    }
    if (eol != 0) return end_record(p + static_cast<size_t>(std::countr_zero(eol)));
    p += 16;
  }
#endif
  for (; p < size; ++p) {
    const char c = text[p];
    if (c == ',') {
      values_.push_back(text_.substr(value_begin, p - value_begin));
      value_begin = p + 1;
    } else if (c == '\n') {
      return end_record(p);
    } else if (c == '"' || IsSpace(c) || c == '\r') {
      return false;
    }
  }
  return end_record(size);
}

bool CsvRecords::Next() {
  if (NextPlain()) return true;
  // Skip comment and blank lines.
  while (pos_ < text_.size()) {
    size_t p = pos_;
    if (text_[p] != '#') {
      while (p < text_.size() && (IsSpace(text_[p]) || text_[p] == '\r')) ++p;
      if (p < text_.size() && text_[p] != '\n') break;  // a record starts here
    }
    const size_t eol = text_.find('\n', pos_);
    pos_ = eol == std::string_view::npos ? text_.size() : eol + 1;
    ++line_;
  }
  if (pos_ >= text_.size()) return false;
  record_line_ = line_;
  spans_.clear();
  unescaped_.clear();
  while (true) {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
    Span span;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      if (!ReadQuoted(&span)) return false;
    } else {
      ReadUnquoted(&span);
      if (!error_.empty()) return false;
    }
    spans_.push_back(span);
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      continue;
    }
    if (pos_ < text_.size()) {  // '\n' (ReadQuoted/ReadUnquoted stop only at ',' '\n' or the end)
      ++pos_;
      ++line_;
    }
    break;
  }
  values_.clear();
  for (const Span& s : spans_) {
    const std::string_view base = s.unescaped ? std::string_view(unescaped_) : text_;
    values_.push_back(base.substr(s.begin, s.end - s.begin));
  }
  return true;
}

bool CsvRecords::ReadQuoted(Span* span) {
  const size_t value = spans_.size();
  ++pos_;  // the opening quote
  span->begin = pos_;
  bool escaped = false;
  size_t copied_from = pos_;  // with escapes: text not yet copied to `unescaped_`
  while (true) {
    const size_t quote = text_.find('"', pos_);
    if (quote == std::string_view::npos) return Fail(value, "unterminated quoted value");
    for (size_t i = pos_; i < quote; ++i) line_ += text_[i] == '\n';
    if (quote + 1 < text_.size() && text_[quote + 1] == '"') {  // '""': one literal quote
      if (!escaped) {
        escaped = true;
        span->unescaped = true;
        span->begin = unescaped_.size();
      }
      unescaped_.append(text_.substr(copied_from, quote + 1 - copied_from));
      pos_ = copied_from = quote + 2;
      continue;
    }
    if (escaped) {
      unescaped_.append(text_.substr(copied_from, quote - copied_from));
      span->end = unescaped_.size();
    } else {
      span->end = quote;
    }
    pos_ = quote + 1;
    break;
  }
  while (pos_ < text_.size() && (IsSpace(text_[pos_]) || text_[pos_] == '\r')) {
    if (text_[pos_] == '\r' && (pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n')) break;
    ++pos_;
  }
  if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n')
    return Fail(value, "text after the closing quote of a quoted value");
  return true;
}

void CsvRecords::ReadUnquoted(Span* span) {
  span->begin = pos_;
  size_t end = pos_;
  while (end < text_.size() && text_[end] != ',' && text_[end] != '\n') {
    if (text_[end] == '"') {
      Fail(spans_.size(), "a '\"' inside an unquoted value (quote the whole value and double the '\"')");
      return;
    }
    ++end;
  }
  pos_ = end;
  if (end < text_.size() ? text_[end] == '\n' : true) {
    if (end > span->begin && text_[end - 1] == '\r') --end;  // CRLF
  }
  while (end > span->begin && IsSpace(text_[end - 1])) --end;
  span->end = end;
}

}  // namespace qm::sim::internal
