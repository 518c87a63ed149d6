// main() of every benchmark binary: google/benchmark's, plus a non-zero exit status when a benchmark
// reported a wrong result through `qm::bench::Fail` (the smoke tests rely on it).
#include "bench_util.h"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return qm::bench::Failed() ? 1 : 0;
}
