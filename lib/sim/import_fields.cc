// Reading the values of public trace files (import_fields.h).
#include "sim/import_fields.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <utility>

#include "fmt/format.h"
#include "sim/trace_text.h"

namespace qm::sim::internal {
namespace {

constexpr int64_t kMaxScaled = 1'000'000'000'000'000;  // 10^15

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool EqualsLower(std::string_view value, std::string_view lower) {
  if (value.size() != lower.size()) return false;
  for (size_t i = 0; i < value.size(); ++i) {
    const char c = (value[i] >= 'A' && value[i] <= 'Z') ? static_cast<char>(value[i] - 'A' + 'a') : value[i];
    if (c != lower[i]) return false;
  }
  return true;
}

// Days from 1970-01-01 to the given civil date (proleptic Gregorian calendar), after Howard
// Hinnant's `days_from_civil`.
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int64_t DaysInMonth(int64_t y, int64_t m) {
  constexpr int64_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// The digits text[pos, pos + n) as a number, or -1.
int64_t Digits(std::string_view text, size_t pos, size_t n) {
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!IsDigit(text[i])) return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

}  // namespace

absl::Status ImportError(std::string_view file, int64_t line, std::string_view column, std::string_view message) {
  if (column.empty()) return absl::InvalidArgumentError(fmt::format("{}:{}: {}", file, line, message));
  return absl::InvalidArgumentError(fmt::format("{}:{}: {}: {}", file, line, column, message));
}

bool IsMissing(std::string_view value) {
  return value.empty() || EqualsLower(value, "nan") || EqualsLower(value, "none") || EqualsLower(value, "null");
}

std::optional<int64_t> ParseInteger(std::string_view value) {
  int64_t v = 0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (ec != std::errc() || ptr != end || value.empty()) return std::nullopt;
  return v;
}

namespace {

// ParseScaled for the shapes the traces write nearly always, "600", "600.0", "29.296875": digits
// with at most one '.', 15 digits at most (so nothing is lost), no sign or exponent, `scale` in
// [0, 9]. False for any other value, which the general loop reads.
bool ParsePlainDecimal(std::string_view value, int scale, std::optional<int64_t>* out) {
  constexpr int64_t kPow10[] = {1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000,
                                1'000'000'000};
  if (value.size() > 16 || scale < 0 || scale > 9) return false;
  int64_t mantissa = 0;
  int digits = 0;
  int fraction_digits = -1;  // -1: no '.' yet
  for (const char c : value) {
    if (IsDigit(c)) {
      mantissa = mantissa * 10 + (c - '0');
      ++digits;
      if (fraction_digits >= 0) ++fraction_digits;
    } else if (c == '.' && fraction_digits < 0) {
      fraction_digits = 0;
    } else {
      return false;
    }
  }
  if (digits == 0 || digits > 15) return false;
  const int dropped = std::max(fraction_digits, 0) - scale;  // digits below 10^-scale
  if (dropped <= 0) {
    const int64_t factor = kPow10[-dropped];
    *out = mantissa > kMaxScaled / factor ? std::nullopt : std::optional<int64_t>(mantissa * factor);
    return true;
  }
  // Rounded up, as Kubernetes rounds a quantity to its unit (at most 15 digits: dropped ≤ 15).
  int64_t divisor = 1;
  for (int i = 0; i < dropped; ++i) divisor *= 10;
  *out = mantissa / divisor + (mantissa % divisor != 0 ? 1 : 0);
  return true;
}

}  // namespace

std::optional<int64_t> ParseScaled(std::string_view value, int scale) {
  if (std::optional<int64_t> v; ParsePlainDecimal(value, scale, &v)) return v;
  if (const std::optional<int64_t> whole = ParseInteger(value)) {  // "600" of more than 15 digits
    int64_t v = *whole;
    for (int i = 0; i < scale; ++i) {
      if (v > kMaxScaled || v < -kMaxScaled) return std::nullopt;
      v *= 10;
    }
    if (v > kMaxScaled || v < -kMaxScaled) return std::nullopt;
    return v;
  }
  size_t i = 0;
  const bool negative = i < value.size() && value[i] == '-';
  if (negative || (i < value.size() && value[i] == '+')) ++i;
  // Mantissa: at most 17 significant digits are kept; a non-zero digit dropped makes it inexact.
  int64_t mantissa = 0;
  int64_t exp10 = 0;
  bool inexact = false;
  bool any_digit = false;
  bool in_fraction = false;
  for (; i < value.size(); ++i) {
    const char c = value[i];
    if (c == '.' && !in_fraction) {
      in_fraction = true;
      continue;
    }
    if (!IsDigit(c)) break;
    any_digit = true;
    if (mantissa < 10'000'000'000'000'000) {
      mantissa = mantissa * 10 + (c - '0');
      if (in_fraction) --exp10;
    } else {
      if (c != '0') inexact = true;
      if (!in_fraction) ++exp10;
    }
  }
  if (!any_digit) return std::nullopt;
  if (i < value.size() && (value[i] == 'e' || value[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < value.size() && (value[i] == '-' || value[i] == '+')) exp_negative = value[i++] == '-';
    if (i == value.size()) return std::nullopt;
    int64_t e = 0;
    for (; i < value.size(); ++i) {
      if (!IsDigit(value[i])) return std::nullopt;
      if (e < 10'000) e = e * 10 + (value[i] - '0');
    }
    exp10 += exp_negative ? -e : e;
  }
  if (i != value.size()) return std::nullopt;
  exp10 += scale;
  int64_t v = mantissa;
  if (exp10 >= 0) {
    for (int64_t k = 0; k < exp10 && v != 0; ++k) {
      if (v > kMaxScaled) return std::nullopt;
      v *= 10;
    }
  } else {
    for (int64_t k = 0; k < -exp10 && v != 0; ++k) {
      if (v % 10 != 0) inexact = true;
      v /= 10;
    }
  }
  if (inexact && !negative) ++v;  // round up, as Kubernetes rounds a quantity to its unit
  if (v > kMaxScaled) return std::nullopt;
  return negative ? -v : v;
}

namespace {

// 0123456789012345678
// YYYY-MM-DD HH:MM:SS
bool HasDateTimeShape(std::string_view value) {
  return value.size() == 19 && value[4] == '-' && value[7] == '-' && (value[10] == ' ' || value[10] == 'T') &&
         value[13] == ':' && value[16] == ':';
}

// Seconds from 1970 to the midnight that starts the date of `value` (shaped as a date and time).
std::optional<int64_t> DayStart(std::string_view value) {
  const int64_t y = Digits(value, 0, 4), mo = Digits(value, 5, 2), d = Digits(value, 8, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > DaysInMonth(y, mo)) return std::nullopt;
  return DaysFromCivil(y, mo, d) * 86'400;
}

// Seconds from midnight of the time of day of `value` (shaped as a date and time).
std::optional<int64_t> TimeOfDay(std::string_view value) {
  const int64_t h = Digits(value, 11, 2), mi = Digits(value, 14, 2), s = Digits(value, 17, 2);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) return std::nullopt;
  return h * 3'600 + mi * 60 + s;
}

}  // namespace

std::optional<int64_t> ParseDateTime(std::string_view value) {
  if (!HasDateTimeShape(value)) return std::nullopt;
  const std::optional<int64_t> day = DayStart(value);
  const std::optional<int64_t> time = TimeOfDay(value);
  if (!day || !time) return std::nullopt;
  return *day + *time;
}

std::optional<int64_t> DateTimeParser::operator()(std::string_view value) {
  if (!HasDateTimeShape(value)) return std::nullopt;
  Day* day = nullptr;
  for (Day& d : days_) {
    if (d.start != kNoDay && std::memcmp(d.date, value.data(), sizeof d.date) == 0) day = &d;
  }
  if (day == nullptr) {
    const std::optional<int64_t> start = DayStart(value);
    if (!start) return std::nullopt;
    day = &days_[next_];
    next_ = (next_ + 1) % days_.size();
    std::memcpy(day->date, value.data(), sizeof day->date);
    day->start = *start;
  }
  const std::optional<int64_t> time = TimeOfDay(value);
  if (!time) return std::nullopt;
  return day->start + *time;
}

std::string LabelValueProblem(std::string_view value) {
  if (value.empty()) return "must not be empty";
  if (value.size() > 63) return fmt::format("is {} characters long, at most 63 are allowed", value.size());
  for (char c : value) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return "may contain only letters, digits, '-', '_' and '.'";
  }
  if (!IsAlnum(value.front()) || !IsAlnum(value.back())) return "must start and end with a letter or digit";
  return "";
}

CsvTable::CsvTable(const ImportInput& input, uint32_t input_index)
    : file_(input.name), input_index_(input_index), records_(input.content()) {}

bool CsvTable::ReadFirst() {
  if (!records_.Next()) {
    status_ = records_.error().empty() ? ImportError(file_, 1, "", "the file is empty")
                                       : ImportError(file_, records_.line(), "", records_.error());
    return false;
  }
  first_line_ = records_.line();
  first_.assign(records_.values().begin(), records_.values().end());
  return true;
}

void CsvTable::UseFirstAsHeader() {
  columns_ = first_;
  replay_first_ = false;
  header_in_file_ = true;
}

void CsvTable::UseColumns(std::span<const std::string_view> names) {
  columns_.assign(names.begin(), names.end());
  first_views_.assign(first_.begin(), first_.end());
  replay_first_ = true;
}

int CsvTable::Find(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<int> CsvTable::Require(std::string_view name) const {
  const int column = Find(name);
  if (column < 0) return ImportError(file_, first_line_, name, "missing column");
  return column;
}

bool CsvTable::Next() {
  if (replay_first_) {
    replay_first_ = false;
    values_ = &first_views_;
    line_ = first_line_;
  } else {
    if (!records_.Next()) {
      if (!records_.error().empty()) {
        const size_t v = records_.error_value();
        status_ = ImportError(file_, records_.line(), v < columns_.size() ? std::string_view(columns_[v]) : "",
                              records_.error());
      }
      return false;
    }
    values_ = &records_.values();
    line_ = records_.line();
  }
  if (values_->size() != columns_.size()) {
    status_ = ImportError(file_, line_, "row",
                          fmt::format("{} values, but the {} has {} columns", values_->size(),
                                      header_in_file_ ? "header" : "table", columns_.size()));
    return false;
  }
  return true;
}

absl::Status CsvTable::Error(int column, std::string_view message) const {
  return ImportError(file_, line_, column < 0 ? std::string_view() : std::string_view(columns_[column]), message);
}

absl::StatusOr<int64_t> CsvTable::Integer(int column, int64_t lo, int64_t hi) const {
  const std::string_view text = (*this)[column];
  std::optional<int64_t> v = ParseInteger(text);
  if (!v) {
    // pandas writes integer columns that hold a NaN as floats: "8.0" is 8.
    const std::optional<int64_t> scaled = ParseScaled(text, 3);
    if (scaled && *scaled % 1000 == 0) v = *scaled / 1000;
  }
  if (!v) return Error(column, fmt::format("{} is not an integer", QuoteValue(text)));
  if (*v < lo || *v > hi) {
    if (hi == std::numeric_limits<int64_t>::max()) return Error(column, fmt::format("{} is less than {}", QuoteValue(text), lo));
    return Error(column, fmt::format("{} is outside {}..{}", QuoteValue(text), lo, hi));
  }
  return *v;
}

absl::StatusOr<std::optional<int64_t>> CsvTable::Seconds(int column) const {
  const std::string_view text = (*this)[column];
  if (IsMissing(text)) return std::optional<int64_t>();
  const std::optional<int64_t> us = ParseScaled(text, 6);
  if (!us) return Error(column, fmt::format("{} is not a number of seconds", QuoteValue(text)));
  if (*us < -kMaxImportSeconds * 1'000'000 || *us > kMaxImportSeconds * 1'000'000) {
    return Error(column, fmt::format("{} is out of range", QuoteValue(text)));
  }
  return us;
}

absl::StatusOr<std::optional<int64_t>> CsvTable::DateTime(int column) const {
  const std::string_view text = (*this)[column];
  if (IsMissing(text)) return std::optional<int64_t>();
  const std::optional<int64_t> s = ParseDateTime(text);
  if (!s) return Error(column, fmt::format("{} is not a date and time (YYYY-MM-DD HH:MM:SS)", QuoteValue(text)));
  return *s * 1'000'000;
}

absl::StatusOr<int64_t> CsvTable::Scaled(int column, int scale) const {
  const std::string_view text = (*this)[column];
  if (IsMissing(text)) return 0;
  const std::optional<int64_t> v = ParseScaled(text, scale);
  if (!v) return Error(column, fmt::format("{} is not a number", QuoteValue(text)));
  if (*v < 0) return Error(column, fmt::format("{} is negative", QuoteValue(text)));
  return *v;
}

}  // namespace qm::sim::internal
