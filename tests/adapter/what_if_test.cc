// Engine::WhatIf (qm/adapter/what_if.h): hand-computed answers, each then applied to the live engine
// through the public API to see that it admits; the live engine untouched by the query; errors.
// And the property: on generated overloaded clusters, every answer admits when applied.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "qm/adapter/what_if.h"
#include "support/builders.h"
#include "support/random_cluster.h"
#include "support/slow_build.h"

namespace qm {
namespace what_if_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr int64_t kCpu = 1000;

// Cycles and confirmations at the current instant, as a host whose pods stop at once.
void SettleNow(Engine& e) {
  for (int round = 0; round < 100; ++round) {
    const StableRun run = e.RunUntilSettled(10000);
    if (e.ConfirmAllEvicted() == 0 && run.settled) return;
  }
}

bool IsAdmitted(const Engine& e, const std::string& ns, const std::string& name) {
  return e.GetWorkload(ns, name)->state == WorkloadState::kAdmitted;
}

// One queue `eng` (withinClusterQueue LowerPriority) of 4 cpu: `low` (priority 5) holds 3 cpu;
// `want` (priority 1) asks 2 and waits.
Engine Busy(int64_t cpu = 4 * kCpu) {
  Engine e = test::OneQueueEngine(cpu, ClusterQueue("eng").WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority));
  REQUIRE(e.Submit(Workload("a", "low").Queue("q").Request("cpu", 3 * kCpu).Priority(5)).ok());
  SettleNow(e);
  REQUIRE(e.Submit(Workload("a", "want").Queue("q").Request("cpu", 2 * kCpu).Priority(1)).ok());
  SettleNow(e);
  REQUIRE(e.GetWorkload("a", "want")->state == WorkloadState::kPending);
  return e;
}

TEST_CASE("WhatIf: 1 more cpu, or a priority above `low`'s; each admits when applied", "[adapter][what-if]") {
  Engine e = Busy();
  const std::string before = *e.Save();
  const absl::StatusOr<WhatIfReport> r = e.WhatIf(e.FindWorkload("a", "want"));
  REQUIRE(r.ok());
  CHECK(*e.Save() == before);  // the query changes nothing
  CHECK_FALSE(r->admitted_as_is);
  REQUIRE(r->answers.size() == 2);
  const WhatIfAnswer& quota = r->answers[0];
  CHECK(quota.kind == WhatIfAnswer::Kind::kQuota);
  CHECK(quota.text == "admitted if 1 cpu more were free in flavor default for ClusterQueue eng");
  REQUIRE(quota.quota.size() == 1);
  CHECK(quota.quota[0].amount == kCpu);
  const WhatIfAnswer& priority = r->answers[1];
  CHECK(priority.kind == WhatIfAnswer::Kind::kPriority);
  CHECK(priority.priority == 6);
  CHECK(priority.preempts == std::vector<std::string>{"a/low"});
  CHECK(priority.text == "admitted if its priority were at least 6 (preempts a/low)");

  SECTION("applied: 5 cpu of quota") {
    const std::vector<ObjectSpec> bigger = {
        ClusterQueue("eng").WithinClusterQueue(WithinClusterQueuePolicy::kLowerPriority).Flavor("default", {Q("cpu", 5 * kCpu)})};
    REQUIRE(e.Apply(bigger).ok());
    SettleNow(e);
    CHECK(IsAdmitted(e, "a", "want"));
    CHECK(IsAdmitted(e, "a", "low"));
  }
  SECTION("applied: priority 6") {
    REQUIRE(e.Apply(ObjectSpec(Workload("a", "want").Queue("q").Request("cpu", 2 * kCpu).Priority(6).spec())).ok());
    SettleNow(e);
    CHECK(IsAdmitted(e, "a", "want"));
    CHECK_FALSE(IsAdmitted(e, "a", "low"));
  }
}

TEST_CASE("WhatIf: a workload the next cycles admit needs no change", "[adapter][what-if]") {
  Engine e = test::OneQueueEngine(4 * kCpu);
  REQUIRE(e.Submit(Workload("a", "fits").Queue("q").Request("cpu", kCpu)).ok());
  const absl::StatusOr<WhatIfReport> r = e.WhatIf(e.FindWorkload("a", "fits"));
  REQUIRE(r.ok());
  CHECK(r->admitted_as_is);
  CHECK(r->answers.empty());
  CHECK(e.GetWorkload("a", "fits")->state == WorkloadState::kPending);  // still: nothing ran here
}

TEST_CASE("WhatIf: the borrowing limit that stops a borrower", "[adapter][what-if]") {
  Engine e;
  const std::vector<ObjectSpec> objects = {
      test::Namespace("a"), test::Flavor("default"), test::Cohort("all"),
      ClusterQueue("eng").Cohort("all").Flavor("default", {Q("cpu", 2 * kCpu).Borrow(kCpu)}),
      ClusterQueue("idle").Cohort("all").Flavor("default", {Q("cpu", 4 * kCpu)}), test::LocalQueue("a", "q", "eng")};
  REQUIRE(e.Apply(objects).ok());
  REQUIRE(e.Submit(Workload("a", "big").Queue("q").Request("cpu", 4 * kCpu)).ok());
  SettleNow(e);
  const absl::StatusOr<WhatIfReport> r = e.WhatIf(e.FindWorkload("a", "big"));
  REQUIRE(r.ok());
  bool limit = false;
  for (const WhatIfAnswer& a : r->answers) {
    if (a.kind != WhatIfAnswer::Kind::kBorrowingLimit) continue;
    limit = true;
    REQUIRE(a.quota.size() == 1);
    CHECK(a.quota[0].amount == 2 * kCpu);  // 0 used + 4 asked − 2 nominal
    CHECK(a.text == "admitted if ClusterQueue eng could borrow at least 2 for cpu in flavor default (borrowingLimit)");
  }
  CHECK(limit);
  const std::vector<ObjectSpec> raised = {
      ClusterQueue("eng").Cohort("all").Flavor("default", {Q("cpu", 2 * kCpu).Borrow(2 * kCpu)})};
  REQUIRE(e.Apply(raised).ok());
  SettleNow(e);
  CHECK(IsAdmitted(e, "a", "big"));
}

TEST_CASE("WhatIf: errors", "[adapter][what-if]") {
  Engine e = Busy();
  CHECK(e.WhatIf(e.FindWorkload("a", "low")).status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(e.WhatIf(WorkloadHandle{999, 1}).status().code() == absl::StatusCode::kNotFound);
}

// The property of issue 28: every what-if answer admits. On generated overloaded clusters
// (support/random_cluster.h), at an instant where workloads wait, each answer for each waiting
// workload is applied to a fresh restore through the public API (the ClusterQueue re-applied with
// the quota or limit, the workload re-applied with the priority), and the instant's cycles must
// admit it.
TEST_CASE("WhatIf property: every answer admits its workload when applied", "[adapter][what-if][property]") {
  int64_t answers = 0, by_kind[3] = {0, 0, 0};
  const uint64_t seeds = test::kSlowBuild ? 6 : 30;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    const test::ClusterDesc cluster = test::Generate(seed);
    test::HostScenario sc = test::BuildScenario(cluster);
    sc.stop_delay = Duration{};
    sc.max_preemptions_per_workload = 25;
    const Duration t = sc.arrivals[sc.arrivals.size() / 3].submit;
    std::erase_if(sc.arrivals, [&](const test::Arrival& a) { return a.submit > t; });
    sc.horizon = t;
    sc.save_at_end = true;
    const test::HostRun run = test::RunHost(sc);
    if (!run.errors.empty() || run.truncated) continue;
    const Engine at_t = *Engine::Restore(run.snapshot);
    int checked = 0;
    for (const test::Arrival& a : sc.arrivals) {
      const WorkloadHandle h = at_t.FindWorkload("ns", a.name);
      if (at_t.GetWorkload(h)->state != WorkloadState::kPending || ++checked > 4) continue;
      const absl::StatusOr<WhatIfReport> r = at_t.WhatIf(h);
      REQUIRE(r.ok());
      for (const WhatIfAnswer& answer : r->answers) {
        INFO("seed " << seed << " " << a.name << ": " << answer.text);
        Engine e = *Engine::Restore(run.snapshot);
        if (answer.kind == WhatIfAnswer::Kind::kPriority) {
          WorkloadSpec spec = test::thrash_host_internal::SpecOf(a);
          spec.priority = answer.priority;
          REQUIRE(e.Apply(ObjectSpec(spec)).ok());
        } else {
          // The ClusterQueue as the generator built it, with the answer's quota or limit.
          ClusterQueueSpec spec;
          for (const ObjectSpec& o : sc.objects)
            if (const auto* cq = std::get_if<ClusterQueueSpec>(&o); cq && cq->name == answer.cluster_queue) spec = *cq;
          for (const WhatIfAnswer::Quota& q : answer.quota)
            for (ResourceGroupSpec& g : spec.resource_groups)
              for (FlavorQuotasSpec& f : g.flavors)
                for (ResourceQuotaSpec& rq : f.resources)
                  if (f.name == q.flavor && rq.name == q.resource) {
                    if (answer.kind == WhatIfAnswer::Kind::kQuota) rq.nominal_quota += q.amount;
                    else rq.borrowing_limit = q.amount;
                  }
          REQUIRE(e.Apply(ObjectSpec(spec)).ok());
        }
        SettleNow(e);
        CHECK(IsAdmitted(e, "ns", a.name));
        ++answers;
        ++by_kind[static_cast<int>(answer.kind)];
      }
    }
  }
  CHECK(answers >= static_cast<int64_t>(seeds));  // the property has cases
  CHECK(by_kind[0] > 0);
  CHECK(by_kind[2] > 0);
}

}  // namespace
}  // namespace what_if_test
}  // namespace qm
