// Kubernetes quantity strings ("500m", "1.5", "3Gi", "1e3") to amounts and back.
//
// Parsing is exact: the value is computed with a small arbitrary-precision integer, then rounded up
// (away from zero) to the amount's unit, as Kubernetes' `Quantity.ScaledValue` does. Nothing here
// uses floating point, so "0.1" cpu is exactly 100 millicores and "1e-30" memory is exactly 1 byte.
// Formatting follows Kubernetes' canonical `Quantity.String()` (docs/semantics.md §1.1): CPU as a milli
// quantity in decimal SI, memory-like resources in binary SI when |value| ≥ 1024 (else decimal SI),
// everything else in decimal SI.
#ifndef QM_CORE_QUANTITY_TEXT_H_
#define QM_CORE_QUANTITY_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "qm/core/quantity.h"

namespace qm {
namespace quantity_internal {

/// An unsigned integer in base 10⁹ limbs, little-endian: just enough arithmetic for parsing.
class BigNat {
 public:
  void MulSmall(uint32_t m) {
    uint64_t carry = 0;
    for (uint32_t& limb : limbs_) {
      const uint64_t v = static_cast<uint64_t>(limb) * m + carry;
      limb = static_cast<uint32_t>(v % kBase);
      carry = v / kBase;
    }
    while (carry != 0) {
      limbs_.push_back(static_cast<uint32_t>(carry % kBase));
      carry /= kBase;
    }
  }
  void AddSmall(uint32_t a) {
    uint64_t carry = a;
    for (size_t i = 0; carry != 0; ++i) {
      if (i == limbs_.size()) limbs_.push_back(0);
      const uint64_t v = limbs_[i] + carry;
      limbs_[i] = static_cast<uint32_t>(v % kBase);
      carry = v / kBase;
    }
  }
  /// Divides in place and returns whether the remainder was non-zero.
  bool DivSmall(uint32_t d) {
    uint64_t rem = 0;
    for (size_t i = limbs_.size(); i-- > 0;) {
      const uint64_t v = rem * kBase + limbs_[i];
      limbs_[i] = static_cast<uint32_t>(v / d);
      rem = v % d;
    }
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
    return rem != 0;
  }
  /// The value if it is at most `limit`.
  bool ToUint64(uint64_t limit, uint64_t* out) const {
    uint64_t v = 0;
    for (size_t i = limbs_.size(); i-- > 0;) {
      if (__builtin_mul_overflow(v, kBase, &v) || __builtin_add_overflow(v, limbs_[i], &v) ||
          v > limit) {
        return false;
      }
    }
    *out = v;
    return true;
  }
  bool IsZero() const { return limbs_.empty(); }

 private:
  static constexpr uint64_t kBase = 1'000'000'000;
  std::vector<uint32_t> limbs_;
};

enum class ParseOutcome { kOk, kMalformed, kOverflow };

/// Parses `text` into a magnitude and sign in units of 10^`unit_exp10`; rounds up (away from 0).
inline ParseOutcome ParseMagnitude(std::string_view text, int unit_exp10, bool* negative,
                                   uint64_t* magnitude) {
  size_t i = 0;
  *negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) *negative = text[i++] == '-';
  std::string digits;  // significant digits, leading zeros dropped
  int64_t exp10 = 0;   // value = digits × 10^exp10 × 2^exp2
  int exp2 = 0;
  bool any_digit = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    any_digit = true;
    if (!digits.empty() || text[i] != '0') digits.push_back(text[i]);
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      any_digit = true;
      if (!digits.empty() || text[i] != '0') digits.push_back(text[i]);
      --exp10;
    }
  }
  if (!any_digit) return ParseOutcome::kMalformed;
  const std::string_view suffix = text.substr(i);
  if (suffix.empty()) {
  } else if (suffix.size() == 2 && suffix[1] == 'i') {
    constexpr std::string_view kBinary = "KMGTPE";
    const size_t pos = kBinary.find(suffix[0]);
    if (pos == std::string_view::npos) return ParseOutcome::kMalformed;
    exp2 = 10 * static_cast<int>(pos + 1);
  } else if (suffix.size() == 1 && suffix[0] != 'e') {  // a lone "E" is exa (10^18), as in Kubernetes
    switch (suffix[0]) {
      case 'n': exp10 -= 9; break;
      case 'u': exp10 -= 6; break;
      case 'm': exp10 -= 3; break;
      case 'k': exp10 += 3; break;
      case 'M': exp10 += 6; break;
      case 'G': exp10 += 9; break;
      case 'T': exp10 += 12; break;
      case 'P': exp10 += 15; break;
      case 'E': exp10 += 18; break;
      default: return ParseOutcome::kMalformed;
    }
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {
    size_t j = 1;
    bool exp_negative = false;
    if (j < suffix.size() && (suffix[j] == '+' || suffix[j] == '-')) exp_negative = suffix[j++] == '-';
    if (j == suffix.size()) return ParseOutcome::kMalformed;
    int64_t e = 0;
    for (; j < suffix.size(); ++j) {
      if (suffix[j] < '0' || suffix[j] > '9') return ParseOutcome::kMalformed;
      if (e < 1'000'000) e = e * 10 + (suffix[j] - '0');  // beyond this only the sign matters
    }
    exp10 += exp_negative ? -e : e;
  } else {
    return ParseOutcome::kMalformed;
  }
  exp10 -= unit_exp10;
  if (digits.empty()) {
    *magnitude = 0;
    return ParseOutcome::kOk;
  }
  const int64_t magnitude_exp = static_cast<int64_t>(digits.size()) + exp10;  // value < 10^this × 2^exp2
  if (magnitude_exp > 40) return ParseOutcome::kOverflow;
  if (magnitude_exp < -25) {  // below 10^-25 × 2^60 < 1: rounds up to one unit
    *magnitude = 1;
    return ParseOutcome::kOk;
  }
  // Digits far below the unit only decide the rounding: keep 80 and remember whether any dropped
  // digit was non-zero.
  bool sticky = false;
  if (digits.size() > 80) {
    for (size_t k = 80; k < digits.size(); ++k) sticky |= digits[k] != '0';
    exp10 += static_cast<int64_t>(digits.size()) - 80;
    digits.resize(80);
  }
  BigNat n;
  for (char c : digits) {
    n.MulSmall(10);
    n.AddSmall(static_cast<uint32_t>(c - '0'));
  }
  for (; exp2 >= 30; exp2 -= 30) n.MulSmall(1u << 30);
  if (exp2 > 0) n.MulSmall(1u << exp2);
  for (; exp10 > 0; --exp10) n.MulSmall(10);
  for (; exp10 < 0; ++exp10) sticky |= n.DivSmall(10);
  if (sticky) n.AddSmall(1);
  // INT64_MIN has one more unit of magnitude than INT64_MAX.
  const uint64_t limit = static_cast<uint64_t>(kUnlimited) + (*negative ? 1 : 0);
  if (!n.ToUint64(limit, magnitude)) return ParseOutcome::kOverflow;
  return ParseOutcome::kOk;
}

inline int UnitExp10(Unit unit) { return unit == Unit::kMilli ? -3 : 0; }

inline int64_t Signed(bool negative, uint64_t magnitude) {
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

/// `mantissa` × 10^`exp10` (exp10 ∈ {-3, 0}) in Kubernetes' canonical decimal-SI form.
inline std::string FormatDecimalSI(int64_t mantissa, int exp10) {
  if (mantissa == 0) return "0";
  while (mantissa % 1000 == 0 && exp10 < 18) {
    mantissa /= 1000;
    exp10 += 3;
  }
  const char* suffix = "";
  switch (exp10) {
    case -3: suffix = "m"; break;
    case 3: suffix = "k"; break;
    case 6: suffix = "M"; break;
    case 9: suffix = "G"; break;
    case 12: suffix = "T"; break;
    case 15: suffix = "P"; break;
    case 18: suffix = "E"; break;
    default: break;
  }
  return absl::StrCat(mantissa, suffix);
}

/// Kubernetes' canonical binary-SI form: decimal below 1024, else the largest exact power of 1024.
inline std::string FormatBinarySI(int64_t value) {
  if (value > -1024 && value < 1024) return FormatDecimalSI(value, 0);
  static constexpr const char* kSuffix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int exp = 0;
  while (exp < 6 && value % 1024 == 0) {
    value /= 1024;
    ++exp;
  }
  return absl::StrCat(value, kSuffix[exp]);
}

inline bool IsMemoryLike(std::string_view resource) {
  return resource == "memory" || resource == "ephemeral-storage" ||
         resource.substr(0, 10) == "hugepages-";
}

}  // namespace quantity_internal

/// Parses a Kubernetes quantity into an amount of `unit`, rounding up. Malformed text and values
/// outside the int64 range are errors.
inline absl::StatusOr<int64_t> ParseQuantity(std::string_view text, Unit unit) {
  bool negative = false;
  uint64_t magnitude = 0;
  switch (quantity_internal::ParseMagnitude(text, quantity_internal::UnitExp10(unit), &negative,
                                            &magnitude)) {
    case quantity_internal::ParseOutcome::kMalformed:
      return absl::InvalidArgumentError(absl::StrCat("\"", std::string(text), "\" is not a quantity"));
    case quantity_internal::ParseOutcome::kOverflow:
      return absl::OutOfRangeError(absl::StrCat("\"", std::string(text), "\" is out of range"));
    case quantity_internal::ParseOutcome::kOk:
      break;
  }
  return quantity_internal::Signed(negative, magnitude);
}

/// Like `ParseQuantity`, but values outside the int64 range clamp to its ends (Kueue's treatment
/// of requests; quotas then map the top end to `kUnlimited`). Only malformed text is an error.
inline absl::StatusOr<int64_t> ParseQuantityClamped(std::string_view text, Unit unit) {
  bool negative = false;
  uint64_t magnitude = 0;
  switch (quantity_internal::ParseMagnitude(text, quantity_internal::UnitExp10(unit), &negative,
                                            &magnitude)) {
    case quantity_internal::ParseOutcome::kMalformed:
      return absl::InvalidArgumentError(absl::StrCat("\"", std::string(text), "\" is not a quantity"));
    case quantity_internal::ParseOutcome::kOverflow:
      return negative ? kMinusUnlimited : kUnlimited;
    case quantity_internal::ParseOutcome::kOk:
      break;
  }
  return quantity_internal::Signed(negative, magnitude);
}

/// An amount of `resource` in Kubernetes' canonical text (`1500` cpu → "1500m", `5242880` memory →
/// "5Mi", `1000` gpus → "1k"). Always numeric, also for `kUnlimited`.
inline std::string FormatQuantityForManifest(std::string_view resource, int64_t amount) {
  if (UnitForResource(resource) == Unit::kMilli) {
    return quantity_internal::FormatDecimalSI(amount, -3);
  }
  if (quantity_internal::IsMemoryLike(resource)) return quantity_internal::FormatBinarySI(amount);
  return quantity_internal::FormatDecimalSI(amount, 0);
}

/// An amount for messages (docs/semantics.md §1.1 rendering).
inline std::string FormatAmount(std::string_view resource, int64_t amount) {
  return FormatQuantityForManifest(resource, amount);
}

/// A limit or capacity for messages: like `FormatAmount`, with `kUnlimited` as "<unlimited>".
inline std::string FormatLimit(std::string_view resource, int64_t amount) {
  if (amount == kUnlimited) return "<unlimited>";
  if (amount == kMinusUnlimited) return "-<unlimited>";
  return FormatAmount(resource, amount);
}

}  // namespace qm

#endif  // QM_CORE_QUANTITY_TEXT_H_
