// Aligned plain-text rendering of a summary table (table.h).
#include <algorithm>
#include <string>
#include <vector>

#include "sim/table.h"

namespace qm::sim::internal {

namespace {

// Code points, not bytes: UTF-8 continuation bytes (10xxxxxx) do not start a character.
size_t DisplayWidth(const std::string& s) {
  size_t width = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

void AppendLine(const std::vector<std::string>& cells, const std::vector<size_t>& widths,
                size_t text_columns, std::string& out) {
  std::string line;
  for (size_t i = 0; i < widths.size(); ++i) {
    const std::string& cell = i < cells.size() ? cells[i] : std::string();
    const size_t pad = widths[i] - std::min(widths[i], DisplayWidth(cell));
    if (i > 0) line += "  ";
    if (i >= text_columns) line.append(pad, ' ');
    line += cell;
    if (i < text_columns) line.append(pad, ' ');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out += line;
  out += '\n';
}

}  // namespace

std::string RenderTableText(const Table& table) {
  std::vector<size_t> widths(table.header.size());
  for (size_t i = 0; i < widths.size(); ++i) {
    widths[i] = DisplayWidth(table.header[i]);
    for (const auto& row : table.rows) {
      if (i < row.size()) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
  }
  std::string out = table.title + "\n";
  AppendLine(table.header, widths, table.text_columns, out);
  std::vector<std::string> rule;
  for (size_t w : widths) rule.emplace_back(w, '-');
  AppendLine(rule, widths, table.text_columns, out);
  for (const auto& row : table.rows) AppendLine(row, widths, table.text_columns, out);
  if (!table.note.empty()) out += table.note + "\n";
  return out;
}

}  // namespace qm::sim::internal
