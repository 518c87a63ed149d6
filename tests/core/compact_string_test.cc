// CompactString (compact_string.h): the 16-byte string of workload records. Every length class
// (empty, inline up to 15, owned heap text, borrowed static text) through every operation that
// moves or replaces a value, including assignment from a view of itself.
#include "qm/core/compact_string.h"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "fmt/format.h"

namespace qm {
namespace compact_string_test {
namespace {

const std::vector<std::string>& Samples() {
  static const std::vector<std::string> kSamples = {
      "",
      "a",
      std::string(14, 'x'),
      std::string(15, 'y'),  // the longest inline text: its last byte is the size tag, 0
      std::string(16, 'z'),  // the shortest heap text
      std::string("with\0nul", 8),
      std::string(300, 'q'),
  };
  return kSamples;
}

constexpr const char* kStaticText = "a static message longer than fifteen characters";

TEST_CASE("CompactString keeps every length, inline and on the heap", "[compact_string]") {
  STATIC_REQUIRE(sizeof(CompactString) == 16);
  for (const std::string& text : Samples()) {
    CAPTURE(text.size());
    const CompactString s(text);
    CHECK(s.size() == text.size());
    CHECK(s.empty() == text.empty());
    CHECK(s.view() == text);
    CHECK(s.str() == text);
    CHECK(s == text);
    CHECK(fmt::format("[{}]", s) == "[" + text + "]");
  }
}

TEST_CASE("CompactString copies, moves and assigns without sharing owned text", "[compact_string]") {
  for (const std::string& a : Samples()) {
    for (const std::string& b : Samples()) {
      CAPTURE(a.size(), b.size());
      CompactString x(a);
      CompactString y(b);
      CompactString copy(x);
      CHECK(copy == a);
      y = x;  // copy-assign over any previous content
      CHECK(y == a);
      CHECK(x == a);
      x = CompactString(b);  // move-assign
      CHECK(x == b);
      CHECK(y == a);  // the copy did not share x's old buffer
      CompactString moved(std::move(x));
      CHECK(moved == b);
      CHECK(x.empty());  // NOLINT: a moved-from value is empty by contract
      moved = std::string_view(moved).substr(moved.size() / 2);  // from a view of itself
      CHECK(moved == b.substr(b.size() / 2));
    }
  }
}

TEST_CASE("CompactString::Static refers to static text and survives copies", "[compact_string]") {
  CompactString s = CompactString::Static(kStaticText);
  CHECK(s.data() == kStaticText);  // not copied
  CHECK(s == std::string_view(kStaticText));
  CompactString copy = s;
  CHECK(copy.data() == kStaticText);
  CompactString owned("previously owned heap text, to be released");
  owned = s;
  CHECK(owned.data() == kStaticText);
  owned = "back to an owned value of some length";
  CHECK(owned.data() != kStaticText);
  CHECK(owned == "back to an owned value of some length");
  // Short static text is simply stored inline.
  const CompactString short_static = CompactString::Static("short");
  CHECK(short_static == "short");
  // A static and an owned string with the same text are equal and hash alike.
  const CompactString same_owned(kStaticText);
  CHECK(same_owned == s);
  CHECK(absl::Hash<CompactString>{}(same_owned) == absl::Hash<CompactString>{}(s));
}

TEST_CASE("CompactString orders and hashes by its text", "[compact_string]") {
  const CompactString a("alpha"), b("beta"), long_a(std::string(40, 'a'));
  CHECK(a.compare(b) < 0);
  CHECK(b.compare(a) > 0);
  CHECK(a.compare(CompactString("alpha")) == 0);
  const bool long_a_first = (long_a <=> a) < 0;  // "aaaa..." < "alpha"
  CHECK(long_a_first);
  absl::flat_hash_set<CompactString> set = {a, b, long_a};
  CHECK(set.contains(CompactString(std::string(40, 'a'))));
  CHECK(!set.contains(CompactString("gamma")));
}

}  // namespace
}  // namespace compact_string_test
}  // namespace qm
