// Reading the values of public trace files (private to lib/sim's importers, trace_import.h): numbers,
// times and dates as the traces write them, and CSV tables whose columns are found by name. Every
// error names the file, the line and the column: `pods.csv:14: cpu_milli: "abc" is not an integer`.
#ifndef QM_LIB_SIM_IMPORT_FIELDS_H_
#define QM_LIB_SIM_IMPORT_FIELDS_H_

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "qm/sim/trace_import.h"
#include "sim/csv_records.h"

namespace qm::sim::internal {

/// Times in the traces are at most this far from 1970 (about 3,000 years), so microseconds never
/// overflow.
inline constexpr int64_t kMaxImportSeconds = 100'000'000'000;

/// `s` as the key type of absl's hash maps: this Abseil keeps absl::string_view apart from
/// std::string_view, and its string hash is much faster than std::hash's.
inline absl::string_view HashKey(std::string_view s) { return absl::string_view(s.data(), s.size()); }

/// `file:line: column: message` (or `file:line: message` when `column` is empty).
absl::Status ImportError(std::string_view file, int64_t line, std::string_view column, std::string_view message);

/// Whether a value stands for "no value": empty, or `nan`, `none` or `null` in any case (pandas
/// writes NaN, Python writes None).
bool IsMissing(std::string_view value);
/// A decimal integer with an optional '-' sign and nothing else.
std::optional<int64_t> ParseInteger(std::string_view value);
/// A decimal number (`4550879.0`, `29.296875`, `1e-05`) times 10^`scale`, rounded up to an
/// integer; nullopt when it is not a number or its magnitude is above 10^15 after scaling.
std::optional<int64_t> ParseScaled(std::string_view value, int scale);
/// `YYYY-MM-DD HH:MM:SS` as seconds since 1970-01-01 00:00:00. The traces give no time zone, so
/// none is applied: differences between two such times are what matters.
std::optional<int64_t> ParseDateTime(std::string_view value);

/// `ParseDateTime`, remembering the last few dates' days: a trace's times come in rough time order,
/// so most fall on a date just seen (a Philly job's submit, start and end span one or two), and
/// only their time of day is left to read.
class DateTimeParser {
 public:
  std::optional<int64_t> operator()(std::string_view value);

 private:
  static constexpr int64_t kNoDay = std::numeric_limits<int64_t>::min();
  struct Day {
    char date[10] = {};  // YYYY-MM-DD
    int64_t start = kNoDay;  // seconds from 1970 to its midnight
  };
  std::array<Day, 4> days_;
  size_t next_ = 0;  // the one replaced next
};

/// Why `value` is not a Kubernetes label value (at most 63 letters, digits, '-', '_' and '.',
/// starting and ending with a letter or digit), or "".
std::string LabelValueProblem(std::string_view value);

/// A CSV table of one input, read record by record; columns are found by the header's names, or
/// given by the caller for the headerless PAI tables. Values are valid until the next `Next`.
class CsvTable {
 public:
  CsvTable(const ImportInput& input, uint32_t input_index);
  CsvTable(const CsvTable&) = delete;
  CsvTable& operator=(const CsvTable&) = delete;

  /// Reads the first record; false (with `status()` set) for an empty or malformed file.
  bool ReadFirst();
  /// The first record's values (after `ReadFirst`).
  const std::vector<std::string>& first() const { return first_; }
  int64_t first_line() const { return first_line_; }
  /// Takes the first record as the header.
  void UseFirstAsHeader();
  /// The file has no header: `names` are its columns and the first record is data.
  void UseColumns(std::span<const std::string_view> names);

  /// The position of column `name`, or -1.
  int Find(std::string_view name) const;
  /// The position of column `name`; an error naming the header line when it is missing.
  absl::StatusOr<int> Require(std::string_view name) const;

  /// Reads the next data row: false at the end, or on malformed CSV or a row whose value count
  /// differs from the header's (then `status()` says why).
  bool Next();
  const absl::Status& status() const { return status_; }

  std::string_view operator[](int column) const { return column < 0 ? std::string_view() : (*values_)[column]; }
  int64_t line() const { return line_; }
  const std::string& file() const { return file_; }
  uint32_t input_index() const { return input_index_; }

  /// `file:line: column: message` for the current row.
  absl::Status Error(int column, std::string_view message) const;

  /// A required integer in [lo, hi].
  absl::StatusOr<int64_t> Integer(int column, int64_t lo = 0, int64_t hi = std::numeric_limits<int64_t>::max()) const;
  /// A whole number of seconds or a decimal one (`4550879.0`) as microseconds; nullopt when missing.
  absl::StatusOr<std::optional<int64_t>> Seconds(int column) const;
  /// A `YYYY-MM-DD HH:MM:SS` date as microseconds; nullopt when missing.
  absl::StatusOr<std::optional<int64_t>> DateTime(int column) const;
  /// A decimal number ≥ 0 times 10^`scale`, rounded up; 0 when missing.
  absl::StatusOr<int64_t> Scaled(int column, int scale) const;

 private:
  std::string file_;
  uint32_t input_index_;
  CsvRecords records_;
  std::vector<std::string> first_;
  std::vector<std::string> columns_;
  bool replay_first_ = false;          // the first record is data, not yet returned by `Next`
  bool header_in_file_ = false;
  const std::vector<std::string_view>* values_ = nullptr;
  std::vector<std::string_view> first_views_;
  int64_t first_line_ = 0;
  int64_t line_ = 0;
  absl::Status status_;
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_IMPORT_FIELDS_H_
