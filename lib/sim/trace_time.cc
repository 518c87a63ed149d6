// Trace times (trace.h): `90`, `1.5`, `1h30m`, `2.5h`, `250ms`, exact to the microsecond; and the
// durations of options and fault files, which also take Go durations.
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/text/time_text.h"
#include "qm/sim/trace.h"
#include "sim/trace_text.h"

namespace qm::sim {
namespace {

__extension__ typedef __int128 Int128;  // GCC/Clang extension

// One unit of the time syntax, in microseconds; listed from largest to smallest, the order in
// which a time's parts must appear.
struct TimeUnit {
  std::string_view suffix;
  int64_t us;
};
constexpr TimeUnit kUnits[] = {
    {"d", int64_t{86400} * 1'000'000}, {"h", int64_t{3600} * 1'000'000}, {"m", 60'000'000},
    {"s", 1'000'000},                  {"ms", 1'000},
};

// Digits beyond these cannot give a valid time: 10¹⁵ seconds is far above the limit, and a
// fraction needs at most 13 significant digits to be a whole number of microseconds of a day.
constexpr size_t kMaxIntegerDigits = 15;
constexpr size_t kMaxFractionDigits = 18;

absl::Status TimeError(std::string_view text, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("{} {}", internal::QuoteValue(text), what));
}

constexpr std::string_view kSyntax =
    "is not a time (seconds, or numbers with units d, h, m, s, ms, e.g. 90, 1.5s, 1h30m)";

}  // namespace

absl::StatusOr<Duration> ParseTraceTime(std::string_view text) {
  if (text.empty()) return TimeError(text, "is not a time: the value is empty");
  if (text[0] == '-') return TimeError(text, "must not be negative");
  Int128 total = 0;
  size_t next_unit = 0;  // units must appear from largest to smallest, each once
  size_t i = 0;
  while (i < text.size()) {
    // A decimal number: digits, optionally '.' and more digits; at least one digit in all.
    const size_t int_start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    std::string_view int_digits = text.substr(int_start, i - int_start);
    std::string_view frac_digits;
    if (i < text.size() && text[i] == '.') {
      const size_t frac_start = ++i;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
      frac_digits = text.substr(frac_start, i - frac_start);
    }
    if (int_digits.empty() && frac_digits.empty()) return TimeError(text, kSyntax);
    // The unit: letters up to the next digit or '.'.
    const size_t unit_start = i;
    while (i < text.size() && ((text[i] >= 'a' && text[i] <= 'z') || (text[i] >= 'A' && text[i] <= 'Z'))) ++i;
    const std::string_view suffix = text.substr(unit_start, i - unit_start);
    int64_t unit_us = 0;
    if (suffix.empty()) {
      // A plain number is seconds, and only allowed alone.
      if (int_start != 0 || i != text.size()) return TimeError(text, kSyntax);
      unit_us = 1'000'000;
    } else {
      size_t u = 0;
      while (u < std::size(kUnits) && kUnits[u].suffix != suffix) ++u;
      if (u == std::size(kUnits)) return TimeError(text, kSyntax);
      if (u < next_unit)
        return TimeError(text, "is not a time: units must go from largest to smallest, each at most once");
      next_unit = u + 1;
      unit_us = kUnits[u].us;
    }
    // Leading zeros of the integer part and trailing zeros of the fraction change nothing.
    while (int_digits.size() > 1 && int_digits[0] == '0') int_digits.remove_prefix(1);
    while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.remove_suffix(1);
    if (int_digits.size() > kMaxIntegerDigits) return TimeError(text, "is more than 100 years");
    if (frac_digits.size() > kMaxFractionDigits) return TimeError(text, "is finer than a microsecond");
    Int128 whole = 0;
    for (char c : int_digits) whole = whole * 10 + (c - '0');
    Int128 frac = 0, scale = 1;
    for (char c : frac_digits) {
      frac = frac * 10 + (c - '0');
      scale *= 10;
    }
    const Int128 frac_us = frac * unit_us;
    if (frac_us % scale != 0) return TimeError(text, "is finer than a microsecond");
    total += whole * unit_us + frac_us / scale;
    if (total > kMaxTraceTime.us) return TimeError(text, "is more than 100 years");
  }
  return Duration::Microseconds(static_cast<int64_t>(total));
}

absl::StatusOr<Duration> ParseDurationText(std::string_view text) {
  absl::StatusOr<Duration> trace_time = ParseTraceTime(text);
  if (trace_time.ok()) return trace_time;
  // Go durations: what the options and fault files took before they took the trace's syntax
  // (`1h1h`, `1.5us`, negative values, which the trace syntax refuses).
  absl::StatusOr<Duration> go = ParseGoDuration(text);
  if (go.ok()) return go;
  return trace_time.status();
}

std::string FormatTraceTime(Duration d) {
  if (d.us < 0) return "-" + FormatTraceTime(Duration::Microseconds(-d.us));
  const int64_t seconds = d.us / 1'000'000;
  int64_t micros = d.us % 1'000'000;
  if (micros == 0) return fmt::format("{}", seconds);
  std::string frac = fmt::format("{:06d}", micros);
  while (frac.back() == '0') frac.pop_back();
  return fmt::format("{}.{}", seconds, frac);
}

}  // namespace qm::sim
