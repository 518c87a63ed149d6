// Timestamps and durations as Kubernetes and Go write them.
#ifndef QM_TEXT_TIME_TEXT_H_
#define QM_TEXT_TIME_TEXT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "qm/core/time.h"

namespace qm {

/// Parses an RFC 3339 timestamp as Kubernetes writes `metav1.Time`: `2024-01-01T00:00:00Z`,
/// optionally with a fraction of a second (at most microseconds) and a `±HH:MM` offset. The zero
/// time `0001-01-01T00:00:00Z` is valid.
absl::StatusOr<Time> ParseRfc3339(std::string_view text);

/// Formats as RFC 3339 in UTC (`2024-01-01T00:00:00Z`), with a fraction only when non-zero.
std::string FormatRfc3339(Time t);

/// Parses a Go duration (`time.ParseDuration`): a sequence of decimal numbers with units `h`, `m`,
/// `s`, `ms`, `us` (or `µs`), `ns`, e.g. `30s`, `1m30s`, `1.5h`, `500ms`; `0` alone is zero. An
/// amount finer than a microsecond is an error.
absl::StatusOr<Duration> ParseGoDuration(std::string_view text);

/// Formats like Go's `Duration.String()` (`1h1m30s`, `500ms`, `0s`), with `us` for microseconds.
std::string FormatGoDuration(Duration d);

}  // namespace qm

#endif  // QM_TEXT_TIME_TEXT_H_
