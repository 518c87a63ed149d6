// A pull reader for JSON text (RFC 8259), private to lib/sim's importers: the caller walks the
// document it expects (Philly's job log is a list of job objects) and skips what it does not need,
// with the line of every value for error messages. Nothing is built: strings are views into the
// text, unless they hold escapes.
#ifndef QM_LIB_SIM_IMPORT_JSON_H_
#define QM_LIB_SIM_IMPORT_JSON_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace qm::sim::internal {

class JsonReader {
 public:
  explicit JsonReader(std::string_view text);

  /// The next value's first character ('{', '[', '"', 'n', ...; 0 at the end of the text), after
  /// white space. Its line is `line()`.
  char Peek() {
    // Inline for the common case, no white space before the value: called for every token.
    if (pos_ < text_.size() && text_[pos_] > ' ') return text_[pos_];
    return SkipSpace();
  }
  int64_t line() const { return line_; }

  /// Enters an object or a list: false (with `error()`) when the next value is not one.
  bool BeginObject();
  bool BeginList();
  /// The next member of the object entered last, its key in `key`: false after its '}' (or on
  /// an error).
  bool NextMember(std::string_view* key);
  /// Whether the list entered last has another item (its value is next): false after its ']'.
  bool NextItem();

  /// A string (`*out` is valid until the next call), or null (`*is_null`): false otherwise.
  bool ReadStringOrNull(std::string_view* out, bool* is_null);
  /// Skips the next value, whatever it is.
  bool Skip();
  /// When the next value is a list of strings without escapes, on one line (Philly's `gpus`
  /// lists), skips it and sets `*count` to its length. Else returns false and reads nothing, and
  /// the caller reads the value item by item, which reports any error.
  bool TrySkipPlainStringList(int64_t* count);

  /// After the top-level value: false unless only white space is left.
  bool AtEnd();

  /// Set when a call returned false because of malformed or unexpected text.
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  /// The line the error was found on.
  int64_t error_line() const { return error_line_; }

 private:
  bool Fail(std::string message);
  char SkipSpace();  // `Peek` past white space
  bool Begin(char open, const char* expected);  // enters an object or list opened by `open`
  bool ReadString(std::string_view* out);
  bool SkipScalar();
  // Separators: after a member or item, a ',' or the closing bracket.
  bool Continue(char close, bool* more);

  std::string_view text_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  // Per open container: whether its first member/item was read (a ',' is then expected).
  std::string started_;
  std::string unescaped_;
  std::string error_;
  int64_t error_line_ = 0;
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_IMPORT_JSON_H_
