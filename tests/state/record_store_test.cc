// RecordStore (qm/state/record_store.h): records keep their address while the store grows, slots
// index and iterate in order, and clear destroys every record.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "qm/state/record_store.h"

namespace record_store_test {
namespace {

struct Counted {
  static inline int live = 0;
  Counted() { ++live; }
  ~Counted() { --live; }
  std::string text;
  int value = 0;
};

}  // namespace

TEST_CASE("RecordStore: records never move while it grows across chunks", "[state][record_store]") {
  qm::RecordStore<Counted, 3> store;  // 8 records per chunk
  std::vector<const Counted*> addresses;
  for (int i = 0; i < 100; ++i) {
    Counted& c = store.emplace_back();
    c.value = i;
    c.text = std::string(40, static_cast<char>('a' + i % 26));  // heap-allocated: a moved string would show
    addresses.push_back(&c);
  }
  REQUIRE(store.size() == 100);
  for (int i = 0; i < 100; ++i) {
    CHECK(&store[static_cast<size_t>(i)] == addresses[static_cast<size_t>(i)]);
    CHECK(store[static_cast<size_t>(i)].value == i);
  }
  int expect = 0;
  for (const Counted& c : store) CHECK(c.value == expect++);
  CHECK(expect == 100);
  CHECK(Counted::live == 100);
  store.clear();
  CHECK(Counted::live == 0);
  CHECK(store.empty());
  store.emplace_back().value = 7;  // usable again after clear
  CHECK(store[0].value == 7);
}

TEST_CASE("RecordStore: new records are value-initialised", "[state][record_store]") {
  qm::RecordStore<int, 2> store;
  for (int i = 0; i < 9; ++i) CHECK(store.emplace_back() == 0);
}

}  // namespace record_store_test
