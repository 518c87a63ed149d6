// Text helpers shared by the trace reader, writer and generator (private to lib/sim).
#ifndef QM_LIB_SIM_TRACE_TEXT_H_
#define QM_LIB_SIM_TRACE_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace qm::sim::internal {

/// `value` in double quotes for an error message: control characters, quotes and backslashes
/// escaped, and cut after 40 characters (`"aaaa..."`) so a huge value cannot flood the message.
std::string QuoteValue(std::string_view value);

/// Why `name` is not a valid object name (letters, digits, '-', '.' and '_', starting and ending
/// with a letter or digit, at most `max_size` characters), or "" when it is valid.
std::string NameProblem(std::string_view name, size_t max_size);

/// Why `name` is not a valid resource name (like `NameProblem`, '/' also allowed, at most 253
/// characters), or "" when it is valid.
std::string ResourceNameProblem(std::string_view name);

/// Longest names: a namespace is a DNS label; a team's namespace `hyperpod-ns-<team>` too.
inline constexpr size_t kMaxNamespaceSize = 63;
inline constexpr size_t kMaxTeamSize = 63 - 12;
inline constexpr size_t kMaxNameSize = 253;
inline constexpr std::string_view kTeamNamespacePrefix = "hyperpod-ns-";

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_TRACE_TEXT_H_
