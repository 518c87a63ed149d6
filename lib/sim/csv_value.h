// Writing one CSV value the way the trace reader (csv_records.h) reads it back.
#ifndef QM_LIB_SIM_CSV_VALUE_H_
#define QM_LIB_SIM_CSV_VALUE_H_

#include <string>
#include <string_view>

namespace qm::sim::internal {

/// Appends `value`, quoted (with `""` for `"`) when the reader would otherwise split, trim or
/// misread it: a separator, quote or line break inside, spaces or tabs around it, or a leading `#`.
inline void AppendCsvValue(std::string& out, std::string_view value) {
  const bool quote = value.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!value.empty() && (value.front() == ' ' || value.front() == '\t' || value.back() == ' ' ||
                                         value.back() == '\t' || value.front() == '#'));
  if (!quote) {
    out.append(value);
    return;
  }
  out.push_back('"');
  for (char c : value) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_CSV_VALUE_H_
