#include "qm/text/time_text.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace qm {
namespace {

// 128-bit headroom for duration arithmetic (`__extension__` keeps -Wpedantic quiet).
__extension__ typedef __int128 Int128;

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level
// Date Algorithms").
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, int64_t* m, int64_t* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp + (mp < 10 ? 3 : -9);
  *y = yoe + era * 400 + (*m <= 2);
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int64_t DaysInMonth(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Reads exactly `n` digits at `*pos`.
bool Digits(std::string_view s, size_t* pos, int n, int64_t* out) {
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    if (*pos >= s.size() || s[*pos] < '0' || s[*pos] > '9') return false;
    v = v * 10 + (s[(*pos)++] - '0');
  }
  *out = v;
  return true;
}

bool Expect(std::string_view s, size_t* pos, char c) {
  if (*pos >= s.size() || s[*pos] != c) return false;
  ++*pos;
  return true;
}

absl::Status BadTime(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(
      fmt::format("\"{}\" is not an RFC 3339 timestamp ({})", text, why));
}

absl::Status BadDuration(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(fmt::format("\"{}\" is not a duration ({})", text, why));
}

}  // namespace

absl::StatusOr<Time> ParseRfc3339(std::string_view text) {
  size_t pos = 0;
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!Digits(text, &pos, 4, &year) || !Expect(text, &pos, '-') ||
      !Digits(text, &pos, 2, &month) || !Expect(text, &pos, '-') ||
      !Digits(text, &pos, 2, &day)) {
    return BadTime(text, "want YYYY-MM-DDTHH:MM:SSZ");
  }
  if (pos >= text.size() || (text[pos] != 'T' && text[pos] != 't')) {
    return BadTime(text, "want YYYY-MM-DDTHH:MM:SSZ");
  }
  ++pos;
  if (!Digits(text, &pos, 2, &hour) || !Expect(text, &pos, ':') ||
      !Digits(text, &pos, 2, &minute) || !Expect(text, &pos, ':') ||
      !Digits(text, &pos, 2, &second)) {
    return BadTime(text, "want YYYY-MM-DDTHH:MM:SSZ");
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return BadTime(text, "date or time out of range");
  }
  int64_t micros = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int n = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      const int digit = text[pos++] - '0';
      if (n < 6) {
        micros = micros * 10 + digit;
      } else if (digit != 0) {
        return BadTime(text, "finer than a microsecond");
      }
      ++n;
    }
    if (n == 0) return BadTime(text, "empty fraction of a second");
    for (; n < 6; ++n) micros *= 10;
  }
  int64_t offset_seconds = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int64_t sign = text[pos++] == '-' ? -1 : 1;
    int64_t oh = 0, om = 0;
    if (!Digits(text, &pos, 2, &oh) || !Expect(text, &pos, ':') || !Digits(text, &pos, 2, &om) ||
        oh > 23 || om > 59) {
      return BadTime(text, "bad UTC offset");
    }
    offset_seconds = sign * (oh * 3600 + om * 60);
  } else {
    return BadTime(text, "missing time zone, e.g. Z");
  }
  if (pos != text.size()) return BadTime(text, "trailing characters");
  const int64_t seconds =
      DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  return Time::FromUnixMicros(seconds * 1000000 + micros);
}

std::string FormatRfc3339(Time t) {
  int64_t seconds = t.us / 1000000;
  int64_t micros = t.us % 1000000;
  if (micros < 0) {
    micros += 1000000;
    seconds -= 1;
  }
  int64_t days = seconds / 86400;
  int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  int64_t y = 0, m = 0, d = 0;
  CivilFromDays(days, &y, &m, &d);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", y, m, d, rem / 3600,
                                (rem / 60) % 60, rem % 60);
  if (micros != 0) {
    std::string frac = fmt::format("{:06}", micros);
    while (frac.back() == '0') frac.pop_back();
    out += '.';
    out += frac;
  }
  out += 'Z';
  return out;
}

absl::StatusOr<Duration> ParseGoDuration(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration{};
  if (s.empty()) return BadDuration(text, "empty");
  // Accumulate in nanoseconds with 128-bit headroom, then require whole microseconds.
  Int128 total_ns = 0;
  while (!s.empty()) {
    Int128 whole = 0;
    Int128 frac = 0;
    Int128 frac_scale = 1;
    bool any_digit = false;
    while (!s.empty() && s[0] >= '0' && s[0] <= '9') {
      whole = whole * 10 + (s[0] - '0');
      if (whole > static_cast<Int128>(INT64_MAX)) return BadDuration(text, "overflow");
      any_digit = true;
      s.remove_prefix(1);
    }
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      while (!s.empty() && s[0] >= '0' && s[0] <= '9') {
        if (frac_scale < static_cast<Int128>(1000000000000000000LL)) {
          frac = frac * 10 + (s[0] - '0');
          frac_scale *= 10;
        }
        any_digit = true;
        s.remove_prefix(1);
      }
    }
    if (!any_digit) return BadDuration(text, "expected a number");
    size_t unit_len = 0;
    while (unit_len < s.size() && !(s[unit_len] >= '0' && s[unit_len] <= '9') &&
           s[unit_len] != '.') {
      ++unit_len;
    }
    const std::string_view unit = s.substr(0, unit_len);
    s.remove_prefix(unit_len);
    int64_t unit_ns = 0;
    if (unit == "ns") {
      unit_ns = 1;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      unit_ns = 1000;
    } else if (unit == "ms") {
      unit_ns = 1000000;
    } else if (unit == "s") {
      unit_ns = 1000000000;
    } else if (unit == "m") {
      unit_ns = 60LL * 1000000000;
    } else if (unit == "h") {
      unit_ns = 3600LL * 1000000000;
    } else if (unit.empty()) {
      return BadDuration(text, "missing unit, one of h, m, s, ms, us, ns");
    } else {
      return BadDuration(text, fmt::format("unknown unit \"{}\", want one of h, m, s, ms, us, ns",
                                           unit));
    }
    const Int128 frac_ns = frac * unit_ns;
    if (frac_ns % frac_scale != 0) return BadDuration(text, "finer than a nanosecond");
    total_ns += whole * unit_ns + frac_ns / frac_scale;
    if (total_ns > static_cast<Int128>(INT64_MAX)) return BadDuration(text, "overflow");
  }
  if (total_ns % 1000 != 0) return BadDuration(text, "finer than a microsecond");
  const auto us = static_cast<int64_t>(total_ns / 1000);
  return Duration::Microseconds(negative ? -us : us);
}

std::string FormatGoDuration(Duration d) {
  if (d.us == 0) return "0s";
  std::string sign = d.us < 0 ? "-" : "";
  // Negating INT64_MIN is impossible; such a duration cannot come from ParseGoDuration anyway.
  const uint64_t us = d.us < 0 ? static_cast<uint64_t>(-(d.us + 1)) + 1 : static_cast<uint64_t>(d.us);
  auto fraction = [](uint64_t value, uint64_t scale, int width) {
    const uint64_t whole = value / scale;
    const uint64_t rest = value % scale;
    std::string out = std::to_string(whole);
    if (rest != 0) {
      std::string frac = fmt::format("{:0{}}", rest, width);
      while (frac.back() == '0') frac.pop_back();
      out += '.';
      out += frac;
    }
    return out;
  };
  if (us < 1000) return sign + std::to_string(us) + "us";
  if (us < 1000000) return sign + fraction(us, 1000, 3) + "ms";
  const uint64_t hours = us / 3600000000ULL;
  const uint64_t minutes = (us / 60000000ULL) % 60;
  const uint64_t rest_us = us % 60000000ULL;
  std::string out = sign;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  out += fraction(rest_us, 1000000, 6) + "s";
  return out;
}

}  // namespace qm
