#include "io/quantity_fields.h"

#include <algorithm>
#include <map>
#include <string>

#include "fmt/format.h"
#include "qm/core/quantity.h"
#include "qm/core/quantity_text.h"

namespace qm::internal {
namespace {

__extension__ typedef __int128 Int128;

// The scalar text of a quantity field (YAML int, float or string); an error for maps and lists.
std::optional<std::string> QuantityText(const Cursor& c) {
  if (!c.present()) return std::nullopt;
  if (!c.is_scalar()) {
    c.Fail(fmt::format("expected a quantity, got {}", c.TypeName()));
    return std::nullopt;
  }
  return c.node().Scalar();
}

// Parses a fair-sharing weight exactly into thousandths; nullopt when `text` is not a quantity.
// Supports decimal numbers with an optional exponent and the decimal (n, u, m, k, M, G, T, P, E)
// and binary (Ki ... Ei) suffixes of Kubernetes quantities.
std::optional<Int128> ParseWeightThousandths(std::string_view text, bool* exact) {
  size_t i = 0;
  if (i < text.size() && text[i] == '+') ++i;
  Int128 mantissa = 0;
  int digits = 0;
  int frac_digits = 0;
  bool dot = false;
  for (; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '.' && !dot) {
      dot = true;
      continue;
    }
    if (ch < '0' || ch > '9') break;
    if (digits >= 30) return std::nullopt;  // far beyond any representable weight
    mantissa = mantissa * 10 + (ch - '0');
    ++digits;
    if (dot) ++frac_digits;
  }
  if (digits == 0) return std::nullopt;
  int exp10 = -frac_digits + 3;  // thousandths
  int64_t binary = 1;
  std::string_view suffix = text.substr(i);
  if (!suffix.empty() && (suffix[0] == 'e' || suffix[0] == 'E') && suffix.size() > 1) {
    size_t j = 1;
    int sign = 1;
    if (suffix[j] == '+' || suffix[j] == '-') sign = suffix[j++] == '-' ? -1 : 1;
    int e = 0;
    if (j >= suffix.size()) return std::nullopt;
    for (; j < suffix.size(); ++j) {
      if (suffix[j] < '0' || suffix[j] > '9' || e > 100) return std::nullopt;
      e = e * 10 + (suffix[j] - '0');
    }
    exp10 += sign * e;
  } else if (!suffix.empty()) {
    static constexpr std::pair<std::string_view, int> kDecimal[] = {
        {"n", -9}, {"u", -6}, {"m", -3}, {"k", 3}, {"M", 6}, {"G", 9}, {"T", 12}, {"P", 15}, {"E", 18}};
    static constexpr std::pair<std::string_view, int64_t> kBinary[] = {
        {"Ki", int64_t{1} << 10}, {"Mi", int64_t{1} << 20}, {"Gi", int64_t{1} << 30},
        {"Ti", int64_t{1} << 40}, {"Pi", int64_t{1} << 50}, {"Ei", int64_t{1} << 60}};
    bool known = false;
    for (const auto& [s, e] : kDecimal) {
      if (suffix == s) {
        exp10 += e;
        known = true;
      }
    }
    for (const auto& [s, m] : kBinary) {
      if (suffix == s) {
        binary = m;
        known = true;
      }
    }
    if (!known) return std::nullopt;
  }
  const Int128 limit = static_cast<Int128>(kUnlimited);
  Int128 value = mantissa * binary;
  *exact = true;
  for (; exp10 > 0; --exp10) {
    value *= 10;
    if (value > limit) return limit + 1;
  }
  for (; exp10 < 0; ++exp10) {
    if (value % 10 != 0) *exact = false;
    value /= 10;
  }
  return value;
}

}  // namespace

std::optional<int64_t> ReadQuota(const Cursor& c, std::string_view resource) {
  const std::optional<std::string> text = QuantityText(c);
  if (!text.has_value()) return std::nullopt;
  absl::StatusOr<int64_t> v = ParseQuantity(*text, UnitForResource(resource));
  if (!v.ok()) {
    // A text the clamping parser accepts is a quantity out of range, not a typo.
    v = ParseQuantityClamped(*text, UnitForResource(resource));
    if (!v.ok()) {
      c.Fail(fmt::format("\"{}\" is not a quantity", *text));
      return std::nullopt;
    }
    if (*v >= 0) *v = kUnlimited;
  }
  if (*v < 0) {
    c.Fail(fmt::format("\"{}\" must not be negative", *text));
    return std::nullopt;
  }
  if (*v == kUnlimited) {
    c.Fail(fmt::format("\"{}\" is too large (the largest quota is {})", *text,
                       FormatAmount(resource, kUnlimited - 1)));
    return std::nullopt;
  }
  return *v;
}

std::optional<int64_t> ReadQuotaLimit(const Cursor& c, std::string_view resource) {
  const std::optional<std::string> text = QuantityText(c);
  if (!text.has_value()) return std::nullopt;
  const Unit unit = UnitForResource(resource);
  const absl::StatusOr<int64_t> v = ParseQuantityClamped(*text, unit);
  if (!v.ok()) {
    c.Fail(fmt::format("\"{}\" is not a quantity", *text));
    return std::nullopt;
  }
  if (*v < 0) {
    c.Fail(fmt::format("\"{}\" must not be negative", *text));
    return std::nullopt;
  }
  // Kueue compares the quantity with MaxInt64/1000 cores for cpu and MaxInt64 otherwise.
  const int64_t unlimited_from = unit == Unit::kMilli ? kUnlimited / 1000 * 1000 : kUnlimited;
  if (*v < unlimited_from) return *v;
  c.Note(fmt::format("\"{}\" is too large for an int64 count of {} ({}); taken as unlimited, as "
                     "Kueue does",
                     *text, resource, unit == Unit::kMilli ? "millicores" : "base units"));
  return kUnlimited;
}

std::optional<int64_t> ReadRequest(const Cursor& c, std::string_view resource) {
  const std::optional<std::string> text = QuantityText(c);
  if (!text.has_value()) return std::nullopt;
  absl::StatusOr<int64_t> v = ParseQuantityClamped(*text, UnitForResource(resource));
  if (!v.ok()) {
    c.Fail(fmt::format("\"{}\" is not a quantity", *text));
    return std::nullopt;
  }
  return std::max<int64_t>(*v, 0);
}

ResourceAmounts ReadRequestMap(const Cursor& c) {
  std::map<std::string, int64_t> amounts;
  for (const auto& [resource, value] : c.Entries()) {
    if (resource.empty()) {
      value.Fail("resource names must not be empty");
      return {};
    }
    const std::optional<int64_t> v = ReadRequest(value, resource);
    if (!v.has_value()) {
      if (c.ctx().ok()) value.Fail("a quantity is required");
      return {};
    }
    amounts[resource] = *v;
  }
  return {amounts.begin(), amounts.end()};
}

std::optional<int64_t> ReadWeightMilli(const Cursor& c) {
  const std::optional<std::string> text = QuantityText(c);
  if (!text.has_value()) return std::nullopt;
  if (!text->empty() && text->front() == '-') {
    c.Fail(fmt::format("\"{}\" must not be negative", *text));
    return std::nullopt;
  }
  bool exact = true;
  const std::optional<Int128> v = ParseWeightThousandths(*text, &exact);
  if (!v.has_value()) {
    c.Fail(fmt::format("\"{}\" is not a quantity", *text));
    return std::nullopt;
  }
  if (*v > static_cast<Int128>(kUnlimited)) {
    c.Fail(fmt::format("\"{}\" is too large", *text));
    return std::nullopt;
  }
  if (!exact) {
    c.Fail(*v == 0 ? fmt::format("\"{}\" must be 0 or at least 0.001", *text)
                   : fmt::format("\"{}\" is finer than 0.001", *text));
    return std::nullopt;
  }
  return static_cast<int64_t>(*v);
}

}  // namespace qm::internal
