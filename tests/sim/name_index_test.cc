// Names matched by sorting their hashes (lib/sim/name_index.h), under the PAI importer's join of
// task rows to job rows and its check for repeated job names.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "sim/name_index.h"

namespace qm::sim::internal {
namespace name_index_test {
namespace {

TEST_CASE("name index: bucket sort orders pairs as std::sort does", "[sim][import]") {
  for (const size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{5000}, size_t{70000}}) {
    INFO(n);
    // Setup: pseudo-random hashes, some repeated, including the extremes. Expect: std::sort's order.
    std::vector<HashedIndex> pairs;
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      const uint64_t hash = i % 7 == 0 ? x % 16 : (i % 11 == 0 ? ~uint64_t{0} - (x % 3) : x);
      pairs.emplace_back(hash, static_cast<uint32_t>(n - i));
    }
    std::vector<HashedIndex> want = pairs;
    std::sort(want.begin(), want.end());
    SortHashedIndices(pairs);
    CHECK(pairs == want);
  }
}

TEST_CASE("name index: finds each key's name", "[sim][import]") {
  // Storage for the names, which the index keeps as views.
  std::vector<std::string> jobs;
  for (int i = 0; i < 6000; ++i) jobs.push_back("job-" + std::to_string(i));
  NameIndex index;
  for (const std::string& j : jobs) index.Add(j);
  REQUIRE(!index.FirstRepeat());

  SECTION("keys before, after and between names, repeated keys, and keys of no name") {
    // Setup: keys in no particular order; copies, so equal names are not the same view. Expect:
    // each key's index, kNotFound for names not added, the empty key and near misses.
    std::vector<std::string> key_text = {"job-5999", "job-0", "job-17", "job-17", "nope", "", "job-", "job-00",
                                         "job-6000", "JOB-1", "job-3000"};
    std::vector<std::string_view> keys(key_text.begin(), key_text.end());
    const std::vector<uint32_t> got = index.Find(keys);
    const uint32_t none = NameIndex::kNotFound;
    CHECK(got == std::vector<uint32_t>{5999, 0, 17, 17, none, none, none, none, none, none, 3000});
  }
  SECTION("no keys") { CHECK(index.Find({}).empty()); }
  SECTION("many keys, each name once and every other key missing") {
    std::vector<std::string> key_text;
    for (int i = 11999; i >= 0; --i) key_text.push_back(i % 2 == 0 ? "job-" + std::to_string(i / 2) : "task-" + std::to_string(i));
    std::vector<std::string_view> keys(key_text.begin(), key_text.end());
    const std::vector<uint32_t> got = index.Find(keys);
    for (size_t k = 0; k < keys.size(); ++k) {
      const int i = 11999 - static_cast<int>(k);
      CHECK(got[k] == (i % 2 == 0 ? static_cast<uint32_t>(i / 2) : NameIndex::kNotFound));
    }
  }
}

TEST_CASE("name index: the first repeated name is the one added first", "[sim][import]") {
  SECTION("no names, one name, distinct names") {
    NameIndex empty;
    CHECK(!empty.FirstRepeat());
    NameIndex one;
    one.Add("a");
    CHECK(!one.FirstRepeat());
  }
  SECTION("of two repeats, the earlier second use wins, paired with the name's first use") {
    // Setup: b at 1, 3 and 5; a at 0 and 4. Expect: (1, 3): index 3 repeats before index 4 does.
    const std::string names[] = {"a", "b", "c", "b", "a", "b"};
    NameIndex index;
    for (const std::string& n : names) index.Add(n);
    const auto repeat = index.FirstRepeat();
    REQUIRE(repeat);
    CHECK(repeat->first == 1);
    CHECK(repeat->second == 3);
  }
  SECTION("a name repeated three times reports its first two uses") {
    const std::string names[] = {"x", "y", "y", "y"};
    NameIndex index;
    for (const std::string& n : names) index.Add(n);
    const auto repeat = index.FirstRepeat();
    REQUIRE(repeat);
    CHECK((repeat->first == 1 && repeat->second == 2));
  }
  SECTION("the empty name repeats like any other") {
    NameIndex index;
    index.Add("");
    index.Add("z");
    index.Add("");
    const auto repeat = index.FirstRepeat();
    REQUIRE(repeat);
    CHECK((repeat->first == 0 && repeat->second == 2));
  }
}

}  // namespace
}  // namespace name_index_test
}  // namespace qm::sim::internal
