// Writes the HTML report of fixture runs to a file, for the headless-browser test
// (browser/report_in_chromium.py): `render_fixture_report OUT.html`.
//
// Two runs compared: one with preemptions over 12 queues (more than a legend shows by name), stopped
// as a livelock (its banner and diagnosis), one without preemptions; 3 resources each. Charts: run 1
// has 3 utilization + pending + CDF + timeline + preemptor → victim pairs + share + Jain = 9, run 2
// the same without the timeline and the pairs = 7; the comparison overlays the runs on 6 team wait
// CDFs, accelerators held and preemptions so far = 8; 24 in all.
#include <cstdio>
#include <fstream>
#include <vector>

#include "qm/sim/sim_result.h"
#include "sim/sim_result_fixture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.html\n", argv[0]);
    return 2;
  }
  using qm::sim::test::GeneratedShape;
  GeneratedShape busy;
  busy.label = "lend-and-borrow";
  busy.queues = 12;
  busy.buckets = 120;
  busy.preemptions = 300;
  busy.livelock = true;
  GeneratedShape calm;
  calm.label = "dont-lend";
  calm.queues = 5;
  calm.buckets = 120;
  calm.preemptions = 0;
  calm.variant = 1;
  const std::vector<qm::sim::SimulationResult> runs = {qm::sim::test::GeneratedResult(busy),
                                                       qm::sim::test::GeneratedResult(calm)};
  std::ofstream out(argv[1], std::ios::binary);
  out << qm::sim::RenderHtmlReport(runs);
  out.close();
  if (!out) {
    std::fprintf(stderr, "render_fixture_report: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
