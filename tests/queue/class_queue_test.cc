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

// Members come from three namespaces, so classes count more than one.
qm::NamespaceId Ns(uint32_t id) { return qm::NamespaceId(id % 3); }

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
    q.insert(k, c, Ns(i));
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
  for (size_t i = 0; i < all.size(); i += 3) REQUIRE(q.erase(all[i].first, all[i].second, Ns(all[i].first.id.value)));
  std::vector<std::pair<PendingKey, PendingClassKey>> rest;
  for (size_t i = 0; i < all.size(); ++i)
    if (i % 3 != 0) rest.push_back(all[i]);
  all = rest;
  CHECK(Order(q) == expected());
  CHECK(q.size() == all.size());
  CHECK_FALSE(q.erase(Key(0, 0, 0), qm::PendingClassOf(0, 0), Ns(0)));  // already gone
  for (const auto& [k, c] : all) CHECK(q.contains(k, c));
  CHECK_FALSE(q.contains(Key(0, 0, 0), qm::PendingClassOf(0, 0)));
  // Every class counts its members per namespace.
  for (const auto& [c, cls] : q.classes()) {
    std::vector<std::pair<qm::NamespaceId, uint32_t>> want;
    for (const PendingKey& k : cls.members) {
      const auto it = std::find_if(want.begin(), want.end(), [&](const auto& p) { return p.first == Ns(k.id.value); });
      if (it == want.end()) want.emplace_back(Ns(k.id.value), 1);
      else ++it->second;
    }
    std::vector<std::pair<qm::NamespaceId, uint32_t>> got(cls.namespaces.begin(), cls.namespaces.end());
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    CHECK(got == want);
  }
  // Take one class out and put it back.
  const PendingClassKey c = all.front().second;
  qm::PendingClass taken = q.TakeClass(c);
  CHECK(!taken.members.empty());
  for (const PendingKey& k : taken.members) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& p) { return p.first.id == k.id; });
    REQUIRE(it != all.end());
    CHECK(it->second == c);
    CHECK_FALSE(q.contains(k, c));
  }
  CHECK(q.size() == all.size() - taken.members.size());
  // Back in two parts: the merge keeps one order and adds the namespace counts up.
  const size_t taken_size = taken.members.size();
  qm::PendingClass part;
  std::vector<PendingKey> moved;
  for (const PendingKey& k : taken.members)
    if (moved.size() * 2 < taken_size) moved.push_back(k);
  for (const PendingKey& k : moved) {
    taken.members.erase(k);
    taken.Uncount(Ns(k.id.value));
    part.members.insert(k);
    part.Count(Ns(k.id.value), 1);
  }
  // A stamp travels with its set; in a merge the smaller side is handed to `adopt` with its own.
  taken.stamp = qm::StatusStamp{5, "Stamped"};
  const size_t part_size = part.members.size();
  std::vector<std::pair<uint32_t, uint32_t>> adopted;  // (id, stamp epoch)
  const auto adopt = [&](const PendingKey& k, const qm::StatusStamp& st) { adopted.emplace_back(k.id.value, st.epoch); };
  q.InsertSet(c, std::move(taken), adopt);
  CHECK(adopted.empty());  // into an absent class: moved whole
  CHECK(q.classes().at(c).stamp.epoch == 5);
  q.InsertSet(c, std::move(part), adopt);
  CHECK(adopted.size() == std::min(part_size, taken_size - part_size));
  CHECK(q.classes().at(c).stamp.epoch == (part_size > taken_size - part_size ? 0u : 5u));
  for (const auto& [id, epoch] : adopted) CHECK(epoch == (part_size > taken_size - part_size ? 5u : 0u));
  CHECK(Order(q) == expected());
  // Erasing one member reports its class's stamp; clearing stamps visits every member once.
  qm::StatusStamp left;
  const PendingKey one = *q.classes().at(c).members.begin();
  const uint32_t expected_epoch = q.classes().at(c).stamp.epoch;
  REQUIRE(q.erase(one, c, Ns(one.id.value), &left));
  CHECK(left.epoch == expected_epoch);
  q.insert(one, c, Ns(one.id.value));
  size_t visited = 0;
  q.ClearStamps([&](const PendingKey&, const qm::StatusStamp&) { ++visited; });
  CHECK(visited == q.size());
  for (const auto& [cls_key, cls] : q.classes()) CHECK(cls.stamp.epoch == 0);
  uint32_t counted = 0;
  for (const auto& [ns, n] : q.classes().at(c).namespaces) counted += n;
  CHECK(counted == taken_size);
  // Pop everything from the front.
  std::vector<uint32_t> popped;
  while (!q.empty()) {
    const PendingKey head = q.front();
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& p) { return p.first.id == head.id; });
    REQUIRE(q.erase(head, it->second, Ns(head.id.value)));
    popped.push_back(head.id.value);
  }
  CHECK(popped == expected());
  CHECK(q.heads().empty());
  CHECK(q.classes().empty());
}

}  // namespace class_queue_test
