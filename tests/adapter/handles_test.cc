// Workload handles carry a generation: a handle of a deleted workload is an error, never the
// workload that reuses its slot. And `Engine::Create` validates its configuration.
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace handles_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

Engine OneQueue() { return test::OneQueueEngine(4 * kCpu); }

TEST_CASE("Handles: a stale handle is an error after its slot is reused", "[adapter][handles]") {
  Engine e = OneQueue();
  auto old = e.Submit(Workload("a", "old").Queue("q").Request("cpu", kCpu));
  REQUIRE(old.ok());
  REQUIRE(e.Delete(*old).ok());
  auto fresh = e.Submit(Workload("a", "fresh").Queue("q").Request("cpu", kCpu));
  REQUIRE(fresh.ok());
  CHECK(fresh->index == old->index);  // the slot is reused ...
  CHECK(fresh->generation != old->generation);  // ... under a new generation

  const auto is_stale = [](const absl::Status& st) {
    return st.code() == absl::StatusCode::kNotFound && std::string(st.message()).find("stale") != std::string::npos;
  };
  CHECK(is_stale(e.GetWorkload(*old).status()));
  CHECK(is_stale(e.Finish(*old)));
  CHECK(is_stale(e.ConfirmEvicted(*old)));
  CHECK(is_stale(e.Evict(*old, "NodeFailures", "")));
  CHECK(is_stale(e.Deactivate(*old)));
  CHECK(is_stale(e.Activate(*old)));
  CHECK(is_stale(e.SetReclaimablePods(*old, "main", 1)));
  CHECK(is_stale(e.Delete(*old)));
  CHECK(is_stale(e.Explain(*old).status()));
  CHECK(is_stale(e.AssignFlavors(*old).status()));
  CHECK(e.WorkloadName(*old).empty());
  // The new workload was not touched by any of those calls.
  CHECK(e.GetWorkload(*fresh)->state == WorkloadState::kPending);
  CHECK(e.WorkloadName(*fresh) == "a/fresh");
  CHECK(e.GetWorkload(WorkloadHandle{}).status().code() == absl::StatusCode::kNotFound);
  CHECK(e.GetWorkload(WorkloadHandle{1000, 0}).status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("Handles: every workload call works by handle and by namespace/name alike", "[adapter][handles]") {
  Engine by_handle = OneQueue();
  Engine by_name = OneQueue();
  auto h = by_handle.Submit(Workload("a", "job").Queue("q").Request("cpu", kCpu).Count(2));
  REQUIRE(by_name.Submit(Workload("a", "job").Queue("q").Request("cpu", kCpu).Count(2)).ok());
  REQUIRE(h.ok());
  CHECK(by_handle.FindWorkload("a", "job") == *h);
  CHECK(by_handle.AssignFlavors(*h)->pod_sets[0].resources[0].flavor ==
        by_name.AssignFlavors("a", "job")->pod_sets[0].resources[0].flavor);
  CHECK(by_handle.Explain(*h)->status.name == by_name.Explain("a", "job")->status.name);
  by_handle.ScheduleCycle();
  by_name.ScheduleCycle();
  REQUIRE(by_handle.SetReclaimablePods(*h, "main", 1).ok());
  REQUIRE(by_name.SetReclaimablePods("a", "job", "main", 1).ok());
  REQUIRE(by_handle.Evict(*h, "NodeFailures", "x").ok());
  REQUIRE(by_name.Evict("a", "job", "NodeFailures", "x").ok());
  REQUIRE(by_handle.Deactivate(*h).ok());
  REQUIRE(by_name.Deactivate("a", "job").ok());
  REQUIRE(by_handle.ConfirmEvicted(*h).ok());
  REQUIRE(by_name.ConfirmEvicted("a", "job").ok());
  REQUIRE(by_handle.Activate(*h).ok());
  REQUIRE(by_name.Activate("a", "job").ok());
  by_handle.ScheduleCycle();
  by_name.ScheduleCycle();
  REQUIRE(by_handle.Finish(*h).ok());
  REQUIRE(by_name.Finish("a", "job").ok());
  CHECK(by_handle.GetWorkload(*h)->state == by_name.GetWorkload("a", "job")->state);
  REQUIRE(by_handle.Delete(*h).ok());
  REQUIRE(by_name.Delete(ObjectRef{ObjectKind::kWorkload, "a", "job"}).ok());
  CHECK(by_handle.Workloads().empty());
  CHECK(by_name.Workloads().empty());
}

TEST_CASE("Handles: pack into one integer and back", "[adapter][handles]") {
  const WorkloadHandle h{7, 3};
  CHECK(h.Pack() == (uint64_t{3} << 32 | 7));
  CHECK(WorkloadHandle::Unpack(h.Pack()) == h);
  CHECK_FALSE(WorkloadHandle{}.valid());
}

TEST_CASE("Engine::Create: an invalid configuration is an error naming the field", "[adapter][config]") {
  EngineConfig config;
  config.fair_sharing.enabled = true;
  config.fair_sharing.preemption_strategies.clear();
  const absl::StatusOr<Engine> e = Engine::Create(config);
  REQUIRE_FALSE(e.ok());
  CHECK(e.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(e.status().message()).find("fairSharing.preemptionStrategies") != std::string::npos);

  config.fair_sharing.preemption_strategies = {FairSharingStrategy::kLessThanInitialShare,
                                               FairSharingStrategy::kLessThanOrEqualToFinalShare};
  CHECK_FALSE(Engine::Create(config).ok());  // reversed pair
  config.fair_sharing.preemption_strategies = {FairSharingStrategy::kLessThanOrEqualToFinalShare,
                                               FairSharingStrategy::kLessThanInitialShare};
  CHECK(Engine::Create(config).ok());
}

TEST_CASE("Engine memory: created on one thread, driven on a second, destroyed on a third", "[adapter][threads]") {
  // The engine keeps no thread-local state: its admission records live in a pool it owns. Run
  // under ASan, a record reached from another thread's pool or freed with the wrong one fails.
  // Catch2's assertions are not thread-safe: the threads record, the test thread checks.
  std::unique_ptr<Engine> engine;
  bool submitted = true;
  std::thread([&] {
    engine = std::make_unique<Engine>(OneQueue());
    for (int i = 0; i < 200; ++i)
      submitted &= engine->Submit(Workload("a", "w" + std::to_string(i)).Queue("q").Request("cpu", 10)).ok();
    engine->RunUntilStable();  // admissions allocated on this thread
  }).join();
  CHECK(submitted);
  int64_t admitted = 0;
  bool driven = true;
  std::thread([&] {
    for (int i = 0; i < 200; i += 2) driven &= engine->Finish("a", "w" + std::to_string(i)).ok();
    for (int i = 200; i < 400; ++i)
      driven &= engine->Submit(Workload("a", "w" + std::to_string(i)).Queue("q").Request("cpu", 10)).ok();
    engine->RunUntilStable();
    admitted = static_cast<int64_t>(engine->GetClusterQueue("eng")->admitted.size());
  }).join();
  CHECK(driven);
  CHECK(admitted == 300);
  std::thread([&] { engine.reset(); }).join();
  CHECK(engine == nullptr);
}

}  // namespace
}  // namespace handles_test
}  // namespace qm

namespace qm {
namespace handles_test {
namespace {

TEST_CASE("Engine memory: the admission pool grows past its heap chunks into mapped regions", "[adapter][threads]") {
  // 3,000 admission records need more than the pool's first 512 KiB of heap chunks; the rest come
  // from 2 MiB mapped regions. Admit, release half, admit again: blocks are recycled, and ASan
  // checks every record stays inside memory the pool owns.
  Engine e = test::OneQueueEngine(3000 * 10);
  for (int i = 0; i < 3000; ++i)
    REQUIRE(e.Submit(test::Workload("a", "w" + std::to_string(i)).Queue("q").Request("cpu", 10)).ok());
  e.RunUntilStable(10000);
  CHECK(e.GetClusterQueue("eng")->admitted.size() == 3000);
  for (int i = 0; i < 3000; i += 2) REQUIRE(e.Finish("a", "w" + std::to_string(i)).ok());
  for (int i = 3000; i < 4500; ++i)
    REQUIRE(e.Submit(test::Workload("a", "w" + std::to_string(i)).Queue("q").Request("cpu", 10)).ok());
  e.RunUntilStable(10000);
  CHECK(e.GetClusterQueue("eng")->admitted.size() == 3000);
  CHECK(e.GetClusterQueue("eng")->usage[0].usage == 3000 * 10);
}

}  // namespace
}  // namespace handles_test
}  // namespace qm
