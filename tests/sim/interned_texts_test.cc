// Distinct texts numbered in order of first use (lib/sim/interned_texts.h), as the trace importers
// intern owners, pod-set texts and node affinities.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "sim/interned_texts.h"

namespace qm::sim::internal {
namespace interned_texts_test {
namespace {

TEST_CASE("interned texts: ids in order of first use, one per text", "[sim][import]") {
  InternedTexts texts;
  CHECK(texts.size() == 1);  // id 0: none
  CHECK(texts[0].empty());
  CHECK(texts.Find("a") == InternedTexts::kNone);
  CHECK(texts.Intern("a") == 1);
  CHECK(texts.Intern("bb") == 2);
  CHECK(texts.Intern("a") == 1);
  CHECK(texts.Find("bb") == 2);
  CHECK(texts.Find("b") == InternedTexts::kNone);
  CHECK(texts[1] == "a");
  CHECK(texts[2] == "bb");
  CHECK(texts.size() == 3);
  // "" is not id 0 (0 means none): interning it gives an id of its own, as a table would.
  CHECK(texts.Find("") == InternedTexts::kNone);
  CHECK(texts.Intern("") == 3);
  CHECK(texts.Find("") == 3);
}

TEST_CASE("interned texts: copies outlive the caller's text, across many blocks", "[sim][import]") {
  InternedTexts texts;
  std::vector<std::string> want = {""};
  std::string scratch;
  // 3 MiB of short texts (several blocks), then one longer than a block, then more short ones.
  for (int i = 0; i < 100'000; ++i) {
    scratch = "2x{cpu=" + std::to_string(i) + ";memory=30000Mi;nvidia.com/gpu=500m}";
    REQUIRE(texts.Intern(scratch) == want.size());
    want.push_back(scratch);
    if (i == 60'000) {
      scratch.assign(size_t{3} << 20, 'x');
      REQUIRE(texts.Intern(scratch) == want.size());
      want.push_back(scratch);
    }
  }
  scratch.clear();
  REQUIRE(texts.size() == want.size());
  for (size_t id = 1; id < want.size(); ++id) {
    REQUIRE(texts[static_cast<uint32_t>(id)] == want[id]);
    REQUIRE(texts.Find(want[id]) == id);
  }
}

}  // namespace
}  // namespace interned_texts_test
}  // namespace qm::sim::internal
