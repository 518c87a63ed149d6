// The simulator refuses a job whose pods' total request does not fit int64, naming the row and
// the field, before anything runs (it used to multiply unchecked at admission).
#include <string>

#include "catch2/catch.hpp"
#include "qm/sim/simulator.h"
#include "qm/sim/trace.h"
#include "sim/sim_test_support.h"

namespace qm::sim {
namespace trace_overflow_test {
namespace {

TEST_CASE("simulate: count × request past int64 is refused naming the row", "[sim][overflow]") {
  // Setup: 2 pods of 5·10^18 GPUs each (10^19 in all). Expect: InvalidArgument at jobs.csv:3,
  // column pod_sets. A job of 1 such pod alone is fine (it just never fits).
  const SimulationInput cluster = test::Cluster(test::kOneGpuQueue);
  const Trace trace = test::Jobs("submit,namespace,pod_sets,duration\n"
                                 "0,team-a,1x{nvidia.com/gpu=1},10s\n"
                                 "0,team-a,2x{nvidia.com/gpu=5000000000000000000},10s\n");
  const absl::StatusOr<SimulationResult> r = Simulate(cluster, trace, {});
  REQUIRE(r.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(r.status().message()) ==
        "jobs.csv:3: pod_sets: pod set \"main\": 2 pods of 5000000000000000000 nvidia.com/gpu overflow a 64-bit total");
}

}  // namespace
}  // namespace trace_overflow_test
}  // namespace qm::sim
