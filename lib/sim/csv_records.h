// Splitting CSV text into records and values (RFC 4180), private to lib/sim.
//
// Values are separated by ',' and records by "\n" or "\r\n". A value may be quoted with '"'; inside
// quotes ',' and line breaks are plain characters and '""' stands for one '"'. Lines whose first
// character is '#' are comments and lines holding only spaces and tabs are blank: both are skipped
// between records (a quoted value may still span lines). Spaces and tabs around a value, outside
// its quotes, are dropped.
#ifndef QM_LIB_SIM_CSV_RECORDS_H_
#define QM_LIB_SIM_CSV_RECORDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace qm::sim::internal {

class CsvRecords {
 public:
  explicit CsvRecords(std::string_view text);

  /// Reads the next record into `values()`; false at the end of the text or on malformed text
  /// (then `error()` is set).
  bool Next();

  /// The values of the current record; valid until the next call of `Next`.
  const std::vector<std::string_view>& values() const { return values_; }
  /// The 1-based line the current record starts on.
  int64_t line() const { return record_line_; }

  /// Set when `Next` stopped on malformed text: the message, and the 0-based index of the value.
  const std::string& error() const { return error_; }
  size_t error_value() const { return error_value_; }

 private:
  // Where a value lies: in the text, or (when it held '""') in `unescaped_`.
  struct Span {
    size_t begin = 0;
    size_t end = 0;
    bool unescaped = false;
  };
  bool Fail(size_t value, std::string message);
  // The common record: one line of plain values, without quotes, spaces, tabs or '\r', not a
  // comment. Reads it and returns true; else returns false having changed nothing but `values_`,
  // and `Next` reads the record the general way.
  bool NextPlain();
  bool ReadQuoted(Span* span);
  void ReadUnquoted(Span* span);

  std::string_view text_;
  size_t pos_ = 0;
  int64_t line_ = 1;  // the line `pos_` is on
  int64_t record_line_ = 0;
  std::vector<Span> spans_;
  std::vector<std::string_view> values_;
  std::string unescaped_;
  std::string error_;
  size_t error_value_ = 0;
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_CSV_RECORDS_H_
