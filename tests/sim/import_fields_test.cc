// The value readers under the trace importers (lib/sim/import_fields.h, import_json.h,
// import_pods.h): numbers and dates as the public traces write them, JSON, and pod-set text.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "sim/import_fields.h"
#include "sim/import_json.h"
#include "sim/import_pods.h"
#include "sim/portable_random.h"
#include "sim/trace_text.h"

namespace qm::sim::internal {
namespace import_fields_test {
namespace {

TEST_CASE("import fields: decimal numbers scaled exactly", "[sim][import]") {
  CHECK(ParseScaled("600", 1) == 6000);
  CHECK(ParseScaled("600.0", 1) == 6000);
  CHECK(ParseScaled("29.296875", 6) == 29'296'875);
  CHECK(ParseScaled("4550879.0", 6) == 4'550'879'000'000);
  CHECK(ParseScaled("1e-05", 6) == 10);
  CHECK(ParseScaled("2.5E3", 0) == 2500);
  CHECK(ParseScaled(".5", 3) == 500);
  CHECK(ParseScaled("33.3333", 1) == 334);  // rounded up, as Kubernetes rounds to the unit
  CHECK(ParseScaled("0.0000001", 6) == 1);
  CHECK(ParseScaled("-1.5", 1) == -15);
  CHECK(ParseScaled("1e20", 0) == std::nullopt);  // above 10^15
  for (const char* bad : {"", ".", "-", "1e", "1.2.3", "0x10", "1 ", "nan", "1e+"}) {
    INFO(bad);
    CHECK(ParseScaled(bad, 3) == std::nullopt);
  }
  CHECK(IsMissing(""));
  CHECK(IsMissing("NaN"));
  CHECK(IsMissing("None"));
  CHECK(IsMissing("null"));
  CHECK(!IsMissing("0"));
}

TEST_CASE("import fields: plain decimals read on the fast path as by the general loop", "[sim][import]") {
  // Setup: digits with at most one '.', up to 17 characters (past the fast path's 15 digits), at
  // every scale the importers use and more. The oracle is the same text after a '+': no sign is
  // plain, so it is read by the general loop.
  // Expect: the same value, rounding and overflow.
  SplitMix64 random(11);
  for (int round = 0; round < 200'000; ++round) {
    std::string v;
    const size_t n = 1 + random.Next() % 17;
    const size_t dot = random.Next() % (n + 2);  // n, n + 1: no '.'
    for (size_t i = 0; i < n; ++i) {
      if (i == dot) {
        v.push_back('.');
      } else {
        // Mostly zeros and nines, so that values sit at the rounding and overflow edges.
        const uint64_t r = random.Next() % 4;
        v.push_back(r == 0 ? '0' : r == 1 ? '9' : static_cast<char>('0' + random.Next() % 10));
      }
    }
    const int scale = static_cast<int>(random.Next() % 12);
    INFO(v << " scale " << scale);
    REQUIRE(ParseScaled(v, scale) == ParseScaled("+" + v, scale));
  }
  CHECK(ParseScaled("999999999999999", 0) == 999'999'999'999'999);
  CHECK(ParseScaled("1000000000000000", 0) == 1'000'000'000'000'000);  // 10^15 exactly: allowed
  CHECK(ParseScaled("1000000000.000001", 6) == std::nullopt);
  CHECK(ParseScaled("1000000000.000000", 6) == 1'000'000'000'000'000);
  CHECK(ParseScaled("0.0000001", 6) == 1);
  CHECK(ParseScaled("100002.3", 6) == 100'002'300'000);
  CHECK(ParseScaled(".", 3) == std::nullopt);
  CHECK(ParseScaled("1.2.3", 3) == std::nullopt);
}

TEST_CASE("import fields: dates without a time zone", "[sim][import]") {
  CHECK(ParseDateTime("1970-01-01 00:00:00") == 0);
  CHECK(ParseDateTime("2017-10-07 01:11:39") == 1'507'338'699);
  CHECK(ParseDateTime("2020-02-29T23:59:59") == 1'583'020'799);
  CHECK(ParseDateTime("2000-03-01 00:00:00") == 951'868'800);
  for (const char* bad : {"2019-02-29 00:00:00", "2020-13-01 00:00:00", "2020-06-09 24:00:00", "2020-06-09 18:00",
                          "2020/06/09 18:00:00", "2020-06-09 18:00:0x", ""}) {
    INFO(bad);
    CHECK(ParseDateTime(bad) == std::nullopt);
  }
}

TEST_CASE("import fields: dates read with the last days remembered", "[sim][import]") {
  // Setup: times over six days, in and out of order, with bad ones between, read by one parser;
  // more distinct days than it remembers. Expect: what ParseDateTime gives for each.
  DateTimeParser parse;
  std::vector<std::string> values;
  for (int i = 0; i < 400; ++i) {
    const int day = (i * 7) % 6 + 1;
    values.push_back(fmt::format("2020-02-{:02}{}{:02}:{:02}:{:02}", 24 + day, i % 5 == 0 ? 'T' : ' ', (i * 5) % 25,
                                 (i * 11) % 61, (i * 13) % 61));
  }
  for (const char* bad : {"2020-02-30 00:00:00", "2020-02-2x 00:00:00", "2020-02-25 24:00:00", "2020-02-25 00:60:00",
                          "2020-02-25 00:00:60", "2020-02-25_00:00:00", "2020-02-25 00:00", "2019-02-29 00:00:00"}) {
    values.insert(values.begin() + static_cast<long>(values.size() / 2), bad);
    values.emplace_back(bad);
  }
  for (const std::string& v : values) {
    INFO(v);
    CHECK(parse(v) == ParseDateTime(v));
  }
}

TEST_CASE("import fields: label values", "[sim][import]") {
  CHECK(LabelValueProblem("V100M32").empty());
  CHECK(LabelValueProblem("a_b.c-d").empty());
  CHECK(LabelValueProblem(std::string(64, 'a')) == "is 64 characters long, at most 63 are allowed");
  CHECK(LabelValueProblem("-a") == "must start and end with a letter or digit");
  CHECK(LabelValueProblem("") == "must not be empty");
}

TEST_CASE("import JSON: a pull reader", "[sim][import]") {
  SECTION("strings with escapes are unescaped; other values are skipped") {
    JsonReader r(R"( {"a": "x\u00e9\ud83d\ude00\n", "b": [1, -2.5e3, true, {"c": null}], "d": null} )");
    REQUIRE(r.BeginObject());
    std::string_view key, value;
    bool is_null = false;
    REQUIRE(r.NextMember(&key));
    CHECK(key == "a");
    REQUIRE(r.ReadStringOrNull(&value, &is_null));
    CHECK(value == "x\xc3\xa9\xf0\x9f\x98\x80\n");
    REQUIRE(r.NextMember(&key));
    CHECK(key == "b");
    REQUIRE(r.Skip());
    REQUIRE(r.NextMember(&key));
    CHECK(key == "d");
    REQUIRE(r.ReadStringOrNull(&value, &is_null));
    CHECK(is_null);
    CHECK(!r.NextMember(&key));
    CHECK(!r.failed());
    CHECK(r.AtEnd());
  }
  SECTION("errors carry their line") {
    JsonReader r("[\n1,\n\"open");
    REQUIRE(r.BeginList());
    REQUIRE(r.NextItem());
    REQUIRE(r.Skip());
    REQUIRE(r.NextItem());
    CHECK(!r.Skip());
    CHECK(r.error() == "unterminated string");
    CHECK(r.error_line() == 3);
  }
  SECTION("a lone surrogate and deep nesting are errors") {
    JsonReader lone(R"("\ud83d")");
    CHECK(!lone.Skip());
    CHECK(lone.error() == "a lone UTF-16 surrogate in a \\u escape");
    const std::string nested(100, '[');
    JsonReader deep(nested);
    CHECK(!deep.Skip());
    CHECK(deep.error() == "values are nested too deeply");
  }
}

TEST_CASE("import JSON: strings are scanned sixteen and eight bytes at a time, exactly", "[sim][import]") {
  // Setup: a plain run of every length 0..40 ended by each character that stops it: the closing
  // quote, an escape, a control character; then bytes above 0x7f, and text ending mid-string.
  // Expect: what a byte-by-byte scan gives: the value, the unescaped value, or the error.
  for (size_t n = 0; n <= 40; ++n) {
    INFO(n);
    const std::string run(n, 'a');
    std::string_view value;
    bool is_null = false;
    const std::string plain_text = "\"" + run + "\" ";  // the reader keeps views
    JsonReader plain(plain_text);
    REQUIRE(plain.ReadStringOrNull(&value, &is_null));
    CHECK(value == run);
    CHECK(plain.AtEnd());
    const std::string escaped_text = "\"" + run + "\\\"b\\\\\"";
    JsonReader escaped(escaped_text);
    REQUIRE(escaped.ReadStringOrNull(&value, &is_null));
    CHECK(value == run + "\"b\\");
    const std::string control_text = "\"" + run + "\tb\"";
    JsonReader control(control_text);
    CHECK(!control.ReadStringOrNull(&value, &is_null));
    CHECK(control.error() == "a control character inside a string");
    const std::string newline_text = "\"" + run + "\n\"";
    JsonReader newline(newline_text);
    CHECK(!newline.Skip());
    CHECK(newline.error() == "a control character inside a string");
    const std::string high = run + "\xc3\xa9\x7f\xff" + run;
    const std::string utf8_text = "\"" + high + "\"";
    JsonReader utf8(utf8_text);
    REQUIRE(utf8.ReadStringOrNull(&value, &is_null));
    CHECK(value == high);
    const std::string open_text = "\"" + run;
    JsonReader open(open_text);
    CHECK(!open.Skip());
    CHECK(open.error() == "unterminated string");
  }
}

TEST_CASE("import JSON: a list of plain strings is skipped at once, or not at all", "[sim][import]") {
  SECTION("lists it takes: counted, and the reader is after the list") {
    // Setup: lists of plain strings with blanks, each followed by a marker. Expect: the count, then
    // the marker is the next value, on the same line.
    const std::pair<std::string, int64_t> cases[] = {
        {R"([] 7)", 0}, {R"([ ] 7)", 0}, {R"(["gpu0"] 7)", 1}, {"[\"a\",\t\"b\" ,\r\"c\"] 7", 3},
        {R"([ "a" , "0123456789abcdefghij" ] 7)", 2}, {"[\"\xc3\xa9\"] 7", 1}, {R"(  ["", ""] 7)", 2}};
    for (const auto& [text, want] : cases) {
      INFO(text);
      JsonReader r(text);
      int64_t count = -1;
      REQUIRE(r.TrySkipPlainStringList(&count));
      CHECK(count == want);
      CHECK(r.Peek() == '7');
      CHECK(r.line() == 1);
      CHECK(!r.failed());
    }
  }
  SECTION("lists it leaves to the item-by-item reader: nothing read, no error") {
    // Setup: escapes, other values, nested values, newlines, a trailing comma, a missing comma,
    // control characters, text that ends inside the list, and a value that is no list. Expect:
    // false, no error, and the next value is still the '[' (or the other value).
    for (const std::string text :
         {R"(["a"b"])", R"(["a", 1])", R"([1])", R"([["a"]])", R"([{"a": 1}])", "[\"a\",\n\"b\"]", "[\n]",
          R"(["a",])", R"(["a" "b"])", "[\"a\tb\"]", R"(["a", "b)", R"(["a", )", R"([)", R"("a")", R"({})",
          R"(null)"}) {
      INFO(text);
      JsonReader r(text);
      const char first = r.Peek();
      int64_t count = -1;
      CHECK(!r.TrySkipPlainStringList(&count));
      CHECK(count == -1);
      CHECK(!r.failed());
      CHECK(r.Peek() == first);
    }
  }
  SECTION("a list nested as deeply as allowed is left to the item-by-item reader") {
    // Setup: 64 open lists (the most allowed), then a list of strings. Expect: left alone, and
    // the item-by-item reader then reports the depth.
    const std::string text = std::string(64, '[') + R"(["a"])" + std::string(64, ']');
    JsonReader r(text);
    for (int i = 0; i < 64; ++i) {
      REQUIRE(r.BeginList());
      REQUIRE(r.NextItem());
    }
    int64_t count = -1;
    CHECK(!r.TrySkipPlainStringList(&count));
    CHECK(!r.BeginList());
    CHECK(r.error() == "values are nested too deeply");
  }
}

TEST_CASE("import JSON: white space and lines between values", "[sim][import]") {
  // Setup: values with and without white space before them, newlines among it. Expect: each
  // value found, and the line of the last one.
  JsonReader r("[1,\t\"a\" ,\r\n\n  {\"k\":[]}\n,null]");
  REQUIRE(r.BeginList());
  int items = 0;
  while (r.NextItem()) {
    ++items;
    REQUIRE(r.Skip());
  }
  CHECK(!r.failed());
  CHECK(items == 4);
  CHECK(r.line() == 4);
  CHECK(r.AtEnd());
}

TEST_CASE("import names: every byte is checked as a name or resource-name character", "[sim][import]") {
  // Setup: "a<byte>b" for each of the 256 bytes. Expect: accepted exactly when the byte is a letter,
  // a digit, '-', '.' or '_' ('/' too for resource names), else the characters message.
  for (int c = 0; c < 256; ++c) {
    INFO(c);
    const std::string name = std::string("a") + static_cast<char>(c) + "b";
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '.' || c == '_';
    CHECK(NameProblem(name, kMaxNameSize) == (plain ? "" : "may contain only letters, digits, '-', '.' and '_'"));
    CHECK(ResourceNameProblem(name) ==
          (plain || c == '/' ? "" : "may contain only letters, digits, '-', '.', '_' and '/'"));
  }
  CHECK(NameProblem("", kMaxNameSize) == "must not be empty");
  CHECK(NameProblem("-a", kMaxNameSize) == "must start and end with a letter or digit");
  CHECK(NameProblem("a-", kMaxNameSize) == "must start and end with a letter or digit");
  CHECK(NameProblem("abc", 2) == "is 3 characters long, at most 2 are allowed");
  CHECK(NameProblem("-a$", kMaxNameSize) == "may contain only letters, digits, '-', '.' and '_'");
}

TEST_CASE("import pods: pod-set text in canonical form", "[sim][import]") {
  PodSetsText pods("nvidia.com/gpu");
  pods.Add("", 2, {.cpu_milli = 3152, .memory_bytes = int64_t{5600} << 20, .gpu_milli = 460});
  pods.Add("ps", 1, {});
  CHECK(pods.text() == "2x{cpu=3152m;memory=5600Mi;nvidia.com/gpu=460m}+ps:1x{}");
  CHECK(pods.fractional());
  CHECK(pods.any_gpu());
  CHECK(pods.pod_set_count() == 2);
  pods.Clear();
  pods.Add("", 1, {.memory_bytes = int64_t{1} << 30, .gpu_milli = 8000});
  CHECK(pods.text() == "1x{memory=1Gi;nvidia.com/gpu=8}");
  CHECK(!pods.fractional());
  // 10 GPUs on 3 nodes: 4, 3, 3.
  CHECK(EvenShare(10, 3, 0) == 4);
  CHECK(EvenShare(10, 3, 1) == 3);
  CHECK(EvenShare(10, 3, 2) == 3);
}

TEST_CASE("import fields: a request's text is made once and reused, the same as made afresh", "[sim][import]") {
  // Each request's text is kept; past kMaxKeptRequests distinct ones, texts are made each time.
  // Either way a job's text, and its flags, are those of a builder that has seen nothing before.
  PodSetsText reused("nvidia.com/gpu");
  const auto request = [](int64_t i) {
    return PodRequest{.cpu_milli = 500 * (i % 7), .memory_bytes = (i % 5) << 30, .gpu_milli = 250 * (i % 9)};
  };
  const int64_t n = static_cast<int64_t>(PodSetsText::kMaxKeptRequests) * 2;
  for (int64_t i = 0; i < n + 100; ++i) {
    // Distinct requests up to n, then ones seen before.
    const PodRequest a = i < n ? PodRequest{.cpu_milli = i + 1, .gpu_milli = 1000 * (i % 3)} : request(i);
    const PodRequest b = request(i + 1);
    reused.Clear();
    reused.Add("worker", i % 4 + 1, a);
    reused.Add("", 1, b);
    PodSetsText fresh("nvidia.com/gpu");
    fresh.Add("worker", i % 4 + 1, a);
    fresh.Add("", 1, b);
    REQUIRE(reused.text() == fresh.text());
    REQUIRE(reused.fractional() == fresh.fractional());
    REQUIRE(reused.any_gpu() == fresh.any_gpu());
  }
  // A GPU resource that sorts first or between cpu and memory.
  PodSetsText amd("amd.com/gpu");
  amd.Add("", 1, {.cpu_milli = 1000, .memory_bytes = int64_t{1} << 30, .gpu_milli = 500});
  amd.Add("", 2, {.cpu_milli = 1000, .memory_bytes = int64_t{1} << 30, .gpu_milli = 500});
  CHECK(amd.text() == "1x{amd.com/gpu=500m;cpu=1;memory=1Gi}+2x{amd.com/gpu=500m;cpu=1;memory=1Gi}");
  CHECK(amd.fractional());
  PodSetsText gpu_first("example.com/gpu");
  gpu_first.Add("", 1, {.cpu_milli = 1000, .memory_bytes = int64_t{1} << 30, .gpu_milli = 2000});
  CHECK(gpu_first.text() == "1x{cpu=1;example.com/gpu=2;memory=1Gi}");
  CHECK_FALSE(gpu_first.fractional());
  CHECK(gpu_first.any_gpu());
}

}  // namespace
}  // namespace import_fields_test
}  // namespace qm::sim::internal
