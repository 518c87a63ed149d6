// Number and name helpers shared by the simulation summary's text, JSON and HTML forms.
//
// Every number goes through fmt with an explicit precision, never through iostreams or the C
// locale, so the same result gives the same bytes on every machine.
#ifndef QM_LIB_SIM_SIM_FORMAT_H_
#define QM_LIB_SIM_SIM_FORMAT_H_

#include <cmath>
#include <string>
#include <string_view>

#include "fmt/format.h"

namespace qm::sim::internal {

/// `v` with `decimals` digits after the point; "-0.0" prints as "0.0" and a non-finite value as
/// "-" (the summaries never divide by zero, but a caller's hand-built result might).
inline std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  std::string text = fmt::format("{:.{}f}", v + 0.0, decimals);
  if (text.size() > 1 && text[0] == '-' && text.find_first_not_of("-0.") == std::string::npos) {
    text.erase(0, 1);
  }
  return text;
}

/// A JSON number: nine significant digits (exponent form only far from 1), `null` when not finite.
inline std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == 0) return "0";
  return fmt::format("{:.9g}", v);
}

/// The unit in brackets for a table heading ("cpu (cores)"), or the bare resource when counted.
inline std::string ResourceWithUnit(std::string_view resource, const char* unit) {
  if (unit[0] == '\0') return std::string(resource);
  return fmt::format("{} ({})", resource, unit);
}

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_SIM_FORMAT_H_
