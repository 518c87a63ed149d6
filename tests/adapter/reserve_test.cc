// Engine::Reserve (issue 27): room taken up front for N workloads. What it must do: the records,
// name index and admission pool take no more memory from the system while the engine holds up to N
// workloads; what it must not do: change any decision or any byte `Save()` writes.
#include <catch2/catch.hpp>
#include <string>

#include "adapter/engine_state.h"
#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace {

using test::Workload;

constexpr int64_t kCpu = 1000;
constexpr int kWorkloads = 3000;  // three record chunks (1,024 each) and many pool chunks

// Submits `count` one-cpu workloads, admits what fits (half of them), finishes a few and deletes a
// few more, so every structure Reserve prepares is used and some slots are reused.
void Drive(Engine& e, int count) {
  for (int i = 0; i < count; ++i)
    REQUIRE(e.Submit(Workload("a", "w" + std::to_string(i)).Queue("q").Request("cpu", kCpu).Priority(i % 3)).ok());
  REQUIRE(e.RunUntilSettled(10 * count).settled);  // one head per cycle
  for (int i = 0; i < count; i += 7) REQUIRE(e.Finish("a", "w" + std::to_string(i)).ok());
  for (int i = 1; i < count; i += 11) REQUIRE(e.Delete(e.FindWorkload("a", "w" + std::to_string(i))).ok());
  REQUIRE(e.RunUntilSettled(10 * count).settled);  // one head per cycle
}

TEST_CASE("Reserve: up to the reserved count, records and admission records take no more memory") {
  Engine e = test::OneQueueEngine(kWorkloads / 2 * kCpu);
  REQUIRE(e.Reserve(kWorkloads).ok());
  ClusterState& s = internal::EngineStateForTesting(e).s;
  const size_t records = s.workloads.capacity();
  const size_t pool_chunks = s.admission_pool.obtained_chunks();
  CHECK(records >= static_cast<size_t>(kWorkloads));
  CHECK(s.admission_pool.chunk_count() == 0);  // obtained, none carved yet
  CHECK(pool_chunks * 65536 >= kWorkloads * sizeof(AdmissionRecord));
  Drive(e, kWorkloads);
  CHECK(s.workloads.size() == static_cast<size_t>(kWorkloads));
  CHECK(s.workloads.capacity() == records);
  CHECK(s.admission_pool.obtained_chunks() == pool_chunks);
  CHECK(s.admission_pool.chunk_count() > 0);
  CHECK(e.CheckInvariants().ok());

  SECTION("a smaller or equal count later takes nothing more") {
    REQUIRE(e.Reserve(kWorkloads / 2).ok());
    REQUIRE(e.Reserve(0).ok());
    CHECK(s.workloads.capacity() == records);
    CHECK(s.admission_pool.obtained_chunks() == pool_chunks);
  }
  SECTION("a larger count grows the room from what is there") {
    REQUIRE(e.Reserve(2 * kWorkloads).ok());
    CHECK(s.workloads.capacity() >= static_cast<size_t>(2 * kWorkloads));
    CHECK(s.admission_pool.obtained_chunks() > pool_chunks);
  }
}

TEST_CASE("Reserve: decisions, events and the snapshot are those of an engine that did not reserve") {
  Engine plain = test::OneQueueEngine(kWorkloads / 2 * kCpu);
  Engine reserved = test::OneQueueEngine(kWorkloads / 2 * kCpu);
  REQUIRE(reserved.Reserve(kWorkloads).ok());
  Drive(plain, kWorkloads);
  Drive(reserved, kWorkloads);
  auto a = plain.Save();
  auto b = reserved.Save();
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == *b);
  // The reserve survives nothing it should not: a restored engine starts without one and equals both.
  auto restored = Engine::Restore(*b);
  REQUIRE(restored.ok());
  CHECK(*restored->Save() == *a);
}

TEST_CASE("Reserve: bad counts are refused naming the argument, and leave the engine as it was") {
  Engine e = test::OneQueueEngine(4 * kCpu);
  ClusterState& s = internal::EngineStateForTesting(e).s;
  const size_t records = s.workloads.capacity();

  absl::Status negative = e.Reserve(-1);
  CHECK(negative.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(negative.message()), Catch::Contains("workloads is -1"));

  absl::Status too_many = e.Reserve(int64_t{1} << 33);
  CHECK(too_many.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(too_many.message()), Catch::Contains("at most 4294967294"));

  // 2^32 − 2 workloads need about 1.2 TB: more than any machine this runs on (checked before any
  // allocation, so nothing is taken).
  absl::Status too_big = e.Reserve((int64_t{1} << 32) - 2);
  CHECK(too_big.code() == absl::StatusCode::kResourceExhausted);
  CHECK_THAT(std::string(too_big.message()), Catch::Contains("MiB; this machine has"));

  CHECK(s.workloads.capacity() == records);
  CHECK(s.admission_pool.obtained_chunks() == 0);
  REQUIRE(e.Submit(Workload("a", "after").Queue("q").Request("cpu", kCpu)).ok());
  CHECK(e.RunUntilSettled(10).admitted == 1);
}

TEST_CASE("Reserve: a moved-from engine answers FailedPrecondition") {
  Engine e = test::OneQueueEngine(kCpu);
  Engine other = std::move(e);
  CHECK(e.Reserve(10).code() == absl::StatusCode::kFailedPrecondition);  // NOLINT(bugprone-use-after-move)
  CHECK(other.Reserve(10).ok());
}

}  // namespace
}  // namespace qm
