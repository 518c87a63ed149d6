// Extreme values through every entry point of the engine (Submit, Apply of quotas, loading of
// admitted workloads, SetNow, Restore): 0, 1, 2^62, INT64_MAX, INT64_MIN, unlimited quota. Valid
// ones are accounted exactly (usage returns to zero when the workloads leave); invalid ones are
// refused with an error naming the field and leave the engine untouched.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "qm/core/quantity.h"
#include "support/builders.h"

namespace qm {
namespace extreme_values_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t k2to62 = int64_t{1} << 62;

int64_t CpuUsage(const Engine& e, const std::string& cq = "eng") {
  absl::StatusOr<ClusterQueueStatus> st = e.GetClusterQueue(cq);
  REQUIRE(st.ok());
  int64_t total = 0;
  for (const FlavorResourceUsage& u : st->usage) total += u.usage;
  return total;
}

void RequireHealthy(const Engine& e) {
  const absl::Status inv = e.CheckInvariants();
  INFO(inv.ToString());
  REQUIRE(inv.ok());
  absl::StatusOr<std::string> saved = e.Save();
  REQUIRE(saved.ok());
  absl::StatusOr<Engine> back = Engine::Restore(*saved);
  INFO(back.status().ToString());
  REQUIRE(back.ok());
  REQUIRE(back->CheckInvariants().ok());
}

TEST_CASE("Usage: huge workloads in an unlimited queue can be undone", "[adapter][overflow]") {
  // Setup: ClusterQueue `eng` with unlimited cpu (Kueue reads an exa-scale quota so); two
  // workloads of 2^62 millicores each, admitted by the scheduler or loaded as admitted.
  // Expect: usage reads as unlimited while both run, is exactly 0 after both finish, the
  // invariants hold and Save/Restore work all along, and a 1-millicore workload is admitted after.
  Engine e = test::OneQueueEngine(kUnlimited);
  const bool loaded = GENERATE(false, true);
  for (const char* name : {"w1", "w2"}) {
    Workload w = Workload("a", name).Queue("q").Request("cpu", k2to62);
    if (loaded) w.AdmittedIn("eng", "default");
    REQUIRE(e.Submit(w).ok());
  }
  if (!loaded) e.RunUntilStable();
  REQUIRE(e.GetWorkload("a", "w2")->state == WorkloadState::kAdmitted);
  CHECK(CpuUsage(e) == kUnlimited);
  RequireHealthy(e);

  SECTION("finishing both releases everything") {
    REQUIRE(e.Finish("a", "w1").ok());
    CHECK(CpuUsage(e) == k2to62);
    REQUIRE(e.Finish("a", "w2").ok());
    CHECK(CpuUsage(e) == 0);
    RequireHealthy(e);
    REQUIRE(e.Submit(Workload("a", "tiny").Queue("q").Request("cpu", 1)).ok());
    e.ScheduleCycle();
    CHECK(e.GetWorkload("a", "tiny")->state == WorkloadState::kAdmitted);
    CHECK(CpuUsage(e) == 1);
  }
  SECTION("a restored engine keeps the exact sums") {
    // Setup: save while the sum is past INT64_MAX, restore, then finish both in the copy.
    absl::StatusOr<Engine> back = Engine::Restore(*e.Save());
    REQUIRE(back.ok());
    REQUIRE(back->Finish("a", "w1").ok());
    CHECK(CpuUsage(*back) == k2to62);
    REQUIRE(back->Finish("a", "w2").ok());
    CHECK(CpuUsage(*back) == 0);
    RequireHealthy(*back);
  }
}

TEST_CASE("Usage: a cohort over huge and unlimited members stays exact", "[adapter][overflow]") {
  // Setup: cohort `pool` with `big` (unlimited) and `small` (4 cpu); three INT64_MAX workloads
  // loaded into `big`, one 2-cpu workload into `small`. Expect: the invariants hold; deleting the
  // huge ones leaves exactly the small one's usage and lets `small` borrow again.
  Engine e;
  REQUIRE(e.Apply(std::vector<ObjectSpec>{
                      test::Namespace("a"), test::Flavor("default"),
                      ClusterQueue("big").Cohort("pool").Flavor("default", {Q("cpu", kUnlimited)}),
                      ClusterQueue("small").Cohort("pool").Flavor("default", {Q("cpu", 4000)}),
                      test::LocalQueue("a", "big", "big"), test::LocalQueue("a", "small", "small")})
              .ok());
  for (const char* name : {"h1", "h2", "h3"})
    REQUIRE(e.Submit(Workload("a", name).Queue("big").Request("cpu", kMax).AdmittedIn("big", "default")).ok());
  REQUIRE(e.Submit(Workload("a", "s").Queue("small").Request("cpu", 2000).AdmittedIn("small", "default")).ok());
  RequireHealthy(e);
  for (const char* name : {"h2", "h1", "h3"}) REQUIRE(e.Delete(ObjectRef{ObjectKind::kWorkload, "a", name}).ok());
  CHECK(CpuUsage(e, "big") == 0);
  CHECK(CpuUsage(e, "small") == 2000);
  RequireHealthy(e);
  REQUIRE(e.Submit(Workload("a", "borrow").Queue("small").Request("cpu", 5000)).ok());
  e.ScheduleCycle();
  CHECK(e.GetWorkload("a", "borrow")->state == WorkloadState::kAdmitted);
}

TEST_CASE("Entry points: extreme requests and quotas", "[adapter][overflow]") {
  Engine e = test::OneQueueEngine(4000);
  const std::string before = *e.Save();

  SECTION("negative requests and quotas are refused and change nothing") {
    // Setup: INT64_MIN and -1 as a request, a nominal quota and a borrowing limit.
    // Expect: InvalidArgument naming the field; the snapshot is unchanged.
    for (int64_t bad : {kMin, int64_t{-1}}) {
      const absl::Status w = e.Submit(Workload("a", "neg").Queue("q").Request("cpu", bad)).status();
      CHECK(w.code() == absl::StatusCode::kInvalidArgument);
      CHECK(std::string(w.message()) == "Workload 'a/neg': spec.podSets[0].requests.cpu: must be >= 0");
      const absl::Status q = e.Apply(ClusterQueue("eng").Flavor("default", {Q("cpu", bad)}));
      CHECK(q.code() == absl::StatusCode::kInvalidArgument);
      CHECK(std::string(q.message()) ==
            "ClusterQueue 'eng': spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: must be >= 0");
      CHECK(e.Apply(ClusterQueue("eng").Cohort("c").Flavor("default", {Q("cpu", 4000).Borrow(bad)})).code() ==
            absl::StatusCode::kInvalidArgument);
    }
    CHECK(*e.Save() == before);
  }
  SECTION("0, 1 and INT64_MAX requests are accepted; the impossible one stays pending") {
    // Setup: three workloads; INT64_MAX × 1000 pods saturates to unlimited. Expect: 0 and 1
    // admitted, the huge one pending, the invariants hold.
    REQUIRE(e.Submit(Workload("a", "zero").Queue("q").Request("cpu", 0)).ok());
    REQUIRE(e.Submit(Workload("a", "one").Queue("q").Request("cpu", 1)).ok());
    REQUIRE(e.Submit(Workload("a", "max").Queue("q").Request("cpu", kMax).Count(1000)).ok());
    e.RunUntilStable();
    CHECK(e.GetWorkload("a", "zero")->state == WorkloadState::kAdmitted);
    CHECK(e.GetWorkload("a", "one")->state == WorkloadState::kAdmitted);
    CHECK(e.GetWorkload("a", "max")->state == WorkloadState::kPending);
    RequireHealthy(e);
  }
  SECTION("quotas of 0, 1, INT64_MAX apply and hold") {
    for (int64_t q : {int64_t{0}, int64_t{1}, kMax}) {
      REQUIRE(e.Apply(ClusterQueue("eng").Flavor("default", {Q("cpu", q)})).ok());
      RequireHealthy(e);
    }
  }
}

TEST_CASE("SetNow: the ends of time", "[adapter][overflow][time]") {
  // Setup: the clock at INT64_MAX and INT64_MIN; a workload loaded as preempted for reclaim while
  // borrowing at the last instant (its queue time is that instant + 1 ms). Expect: no wrap (UBSan
  // would report it), the requeue time saturates, and the engine stays consistent.
  Engine e = test::OneQueueEngine(4000);
  for (int64_t t : {kMax, kMin, int64_t{0}, kMax}) {
    REQUIRE(e.SetNow(Time{t}).ok());
    CHECK(e.Now().us == t);
  }
  WorkloadSpec w = Workload("a", "late").Queue("q").Request("cpu", 1000).spec();
  w.conditions.push_back(ConditionSpec{"Preempted", true, "InCohortReclaimWhileBorrowing", "", Time{kMax}});
  REQUIRE(e.Submit(w).ok());
  REQUIRE(e.Submit(Workload("a", "held").Queue("q").Request("cpu", 1000).AdmittedIn("eng", "default", Time{kMax}))
              .ok());
  REQUIRE(e.Evict("a", "held", "PodsReadyTimeout", "timed out").ok());
  REQUIRE(e.ConfirmEvicted("a", "held").ok());
  e.ScheduleCycle();
  CHECK(e.GetWorkload("a", "late")->state == WorkloadState::kAdmitted);
  RequireHealthy(e);
}

}  // namespace
}  // namespace extreme_values_test
}  // namespace qm
