// Splitting CSV text into records (lib/sim/csv_records.h): a record of plain values on one line is
// split sixteen bytes at a time; any other is read the general way. Both must give the same values,
// lines and errors, wherever a record falls against the sixteen-byte steps.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/csv_records.h"
#include "sim/portable_random.h"

namespace qm::sim::internal {
namespace csv_records_test {
namespace {

// Every record of `text`, values joined by '|' and each prefixed by its line; the error last.
std::string Records(std::string_view text) {
  CsvRecords records(text);
  std::string out;
  while (records.Next()) {
    out += std::to_string(records.line()) + ":";
    for (size_t i = 0; i < records.values().size(); ++i) {
      if (i > 0) out += '|';
      out += records.values()[i];
    }
    out += '\n';
  }
  if (!records.error().empty()) {
    out += "error at " + std::to_string(records.line()) + " value " + std::to_string(records.error_value()) + ": " +
           records.error();
  }
  return out;
}

TEST_CASE("csv records: plain records, split in steps, as written", "[sim][import]") {
  CHECK(Records("a,b,c\n1,22,333\n") == "1:a|b|c\n2:1|22|333\n");
  CHECK(Records("a,b,c\n1,22,333") == "1:a|b|c\n2:1|22|333\n");  // no line break at the end
  CHECK(Records(",\n,,\n") == "1:|\n2:||\n");                    // empty values
  CHECK(Records("0123456789abcdef,0123456789abcdef0123\n0123456789abcde,\n") ==
        "1:0123456789abcdef|0123456789abcdef0123\n2:0123456789abcde|\n");
  CHECK(Records("\xEF\xBB\xBFh1,h2\nv1,v2\n") == "1:h1|h2\n2:v1|v2\n");  // a byte order mark
  // Lines a plain record cannot be: comments, blank lines, quotes, spaces, CRLF.
  CHECK(Records("# note\n\n  \nx,\"y,\"\"z\"\"\"\n a , b \r\nc,d\r\n") == "4:x|y,\"z\"\n5:a|b\n6:c|d\n");
  CHECK(Records("0123456789abcdef0,x\"y\n") ==
        "error at 1 value 1: a '\"' inside an unquoted value (quote the whole value and double the '\"')");
}

// A value of one of the shapes a record may hold; never a line break outside quotes.
std::string RandomValue(SplitMix64& random) {
  const uint64_t kind = random.Next() % 10;
  std::string v;
  const size_t n = random.Next() % 24;
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<char>('a' + random.Next() % 26));
  switch (kind) {
    case 0: return "";
    case 1: return "\"" + v + ",\"\"q\"\"\"";      // quoted, with a comma and escaped quotes
    case 2: return " " + v + "\t";                 // spaces around a value
    case 3: return v.empty() ? v : v + "\"x";      // a stray quote: an error
    case 4: return "\"" + v + "\"  ";              // quoted, spaces after
    default: return v;
  }
}

TEST_CASE("csv records: the plain split agrees with the general reader", "[sim][import]") {
  // Setup: random texts of records of mixed values, line ends and comments. The oracle is the
  // same text with a space before each record's line: spaces before a value are dropped, and a
  // line starting with a space is never a plain record, so it is read the general way. (Comment
  // lines are kept as they are: a space would make them records.)
  // Expect: the same records, lines and errors.
  SplitMix64 random(7);
  for (int round = 0; round < 3000; ++round) {
    std::string text, oracle;
    const size_t lines = 1 + random.Next() % 8;
    for (size_t l = 0; l < lines; ++l) {
      const uint64_t kind = random.Next() % 12;
      if (kind == 0) {
        text += "# comment, \"x\"\n";
        oracle += "# comment, \"x\"\n";
        continue;
      }
      if (kind == 1) {
        text += "\n";
        oracle += " \n";
        continue;
      }
      std::string line;
      const size_t values = 1 + random.Next() % 6;
      for (size_t v = 0; v < values; ++v) {
        if (v > 0) line += ',';
        line += random.Next() % 4 == 0 ? RandomValue(random) : std::string(random.Next() % 20, 'v');
      }
      const bool last = l + 1 == lines;
      const char* end = kind == 2 ? "\r\n" : (last && kind == 3 ? "" : "\n");
      text += line + end;
      oracle += " " + line + end;
    }
    INFO(text);
    REQUIRE(Records(text) == Records(oracle));
  }
}

}  // namespace
}  // namespace csv_records_test
}  // namespace qm::sim::internal
