// ClassQueue (qm/queue/class_queue.h): one queue order over all members whatever the classes,
// class-wise take and re-insert, and bookkeeping that survives erasing heads and non-heads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "qm/queue/class_queue.h"

namespace class_queue_test {
namespace {

using qm::ClassQueue;
using qm::PendingClassKey;
using qm::PendingKey;

const qm::CompactString kNoUid;

PendingKey Key(uint32_t id, int32_t priority, int64_t time) {
  return PendingKey{priority, qm::WorkloadId(id), time, &kNoUid, id};
}

std::vector<uint32_t> Order(const ClassQueue& q) {
  std::vector<uint32_t> ids;
  for (const PendingKey& k : q) ids.push_back(k.id.value);
  return ids;
}

}  // namespace

TEST_CASE("ClassQueue: iterates and pops in one queue order across classes", "[queue][class_queue]") {
  // 200 workloads in 7 classes with random priorities and times; the merged order must equal a
  // plain sort, after every kind of removal.
  std::mt19937 rng(42);
  ClassQueue q;
  std::vector<std::pair<PendingKey, PendingClassKey>> all;
  for (uint32_t i = 0; i < 200; ++i) {
    const int32_t priority = static_cast<int32_t>(rng() % 3);
    const PendingKey k = Key(i, priority, static_cast<int64_t>(rng() % 50));
    const PendingClassKey c = qm::PendingClassOf(rng() % 7, priority);
    q.insert(k, c);
    all.emplace_back(k, c);
  }
  const auto expected = [&] {
    std::vector<PendingKey> keys;
    for (const auto& [k, c] : all) keys.push_back(k);
    std::sort(keys.begin(), keys.end(), qm::PendingOrder());
    std::vector<uint32_t> ids;
    for (const PendingKey& k : keys) ids.push_back(k.id.value);
    return ids;
  };
  CHECK(Order(q) == expected());
  CHECK(q.size() == 200);
  CHECK(q.front().id.value == expected().front());
  // Erase every third, heads included.
  for (size_t i = 0; i < all.size(); i += 3) REQUIRE(q.erase(all[i].first, all[i].second));
  std::vector<std::pair<PendingKey, PendingClassKey>> rest;
  for (size_t i = 0; i < all.size(); ++i)
    if (i % 3 != 0) rest.push_back(all[i]);
  all = rest;
  CHECK(Order(q) == expected());
  CHECK(q.size() == all.size());
  CHECK_FALSE(q.erase(Key(0, 0, 0), qm::PendingClassOf(0, 0)));  // already gone
  // Take one class out and put it back.
  const PendingClassKey c = all.front().second;
  qm::PendingSet taken = q.TakeClass(c);
  CHECK(!taken.empty());
  for (const PendingKey& k : taken) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& p) { return p.first.id == k.id; });
    REQUIRE(it != all.end());
    CHECK(it->second == c);
  }
  CHECK(q.size() == all.size() - taken.size());
  q.InsertSet(c, std::move(taken));
  CHECK(Order(q) == expected());
  // Pop everything from the front.
  std::vector<uint32_t> popped;
  while (!q.empty()) {
    const PendingKey head = q.front();
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& p) { return p.first.id == head.id; });
    REQUIRE(q.erase(head, it->second));
    popped.push_back(head.id.value);
  }
  CHECK(popped == expected());
  CHECK(q.heads().empty());
  CHECK(q.classes().empty());
}

}  // namespace class_queue_test
