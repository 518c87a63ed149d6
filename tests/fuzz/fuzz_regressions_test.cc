// Replays, in the normal build (any compiler, no libFuzzer), every input the fuzzers ever broke
// the library with (tests/fuzz_regressions/<harness>/) and their seed corpora (fuzz/corpus/<harness>/)
// through the same fuzz targets the harnesses call (fuzz/targets/). A target aborts when a promise
// breaks, so a regression fails this test's process with the target's message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/targets/targets.h"

namespace fuzz_regressions_test {
namespace {

namespace fs = std::filesystem;
using Target = void (*)(std::span<const uint8_t>);

fs::path TestsDir() { return fs::path(QM_TESTS_DIR); }

std::vector<uint8_t> ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The files of a folder, sorted (directory order is not deterministic); none when it is absent.
std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Runs `target` on every regression input and seed of `harness`; returns how many ran.
size_t Replay(const std::string& harness, Target target) {
  size_t ran = 0;
  for (const fs::path& dir : {TestsDir() / "fuzz_regressions" / harness,
                              TestsDir().parent_path() / "fuzz" / "corpus" / harness}) {
    for (const fs::path& file : FilesIn(dir)) {
      INFO("input " << file.string());
      const std::vector<uint8_t> bytes = ReadBytes(file);
      target(bytes);
      ++ran;
    }
  }
  return ran;
}

}  // namespace

TEST_CASE("fuzz regressions and seeds: quantity parser", "[fuzz]") {
  CHECK(Replay("quantity", qm::fuzz::QuantityTarget) > 0);
}

TEST_CASE("fuzz regressions and seeds: manifest reader", "[fuzz]") {
  CHECK(Replay("manifest", qm::fuzz::ManifestTarget) > 0);
}

TEST_CASE("fuzz regressions and seeds: scenario loader", "[fuzz]") {
  CHECK(Replay("scenario", qm::fuzz::ScenarioTarget) > 0);
}

TEST_CASE("fuzz regressions and seeds: HyperPod policy reader", "[fuzz]") {
  CHECK(Replay("hyperpod_policy", qm::fuzz::HyperPodPolicyTarget) > 0);
}

TEST_CASE("fuzz regressions and seeds: engine event sequences", "[fuzz]") {
  CHECK(Replay("engine_event", qm::fuzz::EngineEventsTarget) > 0);
}

TEST_CASE("fuzz regressions and seeds: edited snapshots", "[fuzz]") {
  CHECK(Replay("snapshot", qm::fuzz::SnapshotRestoreTarget) > 0);
}

#ifdef QM_FUZZ_HAVE_TRACE_READER
TEST_CASE("fuzz regressions and seeds: trace reader", "[fuzz]") {
  CHECK(Replay("trace", qm::fuzz::TraceTarget) > 0);
}
#endif

}  // namespace fuzz_regressions_test
