// Engine::Restore checks content, not only structure: a snapshot whose checksum was recomputed
// after an edit must still hold objects that Apply would accept and a quota tree that agrees with
// the specs (docs/snapshot-format.md, "What restore checks").
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "qm/adapter/engine.h"
#include "support/builders.h"

namespace qm {
namespace restore_content_test {
namespace {

using test::ClusterQueue;
using test::Q;
using test::Workload;

constexpr size_t kHeader = 32;

// Recomputes the header's FNV-1a checksum of the payload, as an editor of the file would.
void FixChecksum(std::string& snapshot) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = kHeader; i < snapshot.size(); ++i) {
    h ^= static_cast<unsigned char>(snapshot[i]);
    h *= 0x100000001b3ull;
  }
  for (int b = 0; b < 8; ++b) snapshot[24 + static_cast<size_t>(b)] = static_cast<char>((h >> (8 * b)) & 0xFF);
}

std::string I64Bytes(int64_t v) {
  std::string out(8, '\0');
  for (int b = 0; b < 8; ++b) out[static_cast<size_t>(b)] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * b)) & 0xFF);
  return out;
}

// An engine with ClusterQueue `eng` of 123457 millicores (a value no other field holds) and a
// pending workload `a/victim`.
std::string Saved() {
  Engine e = test::OneQueueEngine(123457);
  REQUIRE(e.Submit(Workload("a", "victim").Queue("q").Request("cpu", 1000)).ok());
  absl::StatusOr<std::string> s = e.Save();
  REQUIRE(s.ok());
  REQUIRE(Engine::Restore(*s).ok());
  return *s;
}

absl::Status RestoreEdited(std::string snapshot) {
  FixChecksum(snapshot);
  return Engine::Restore(snapshot).status();
}

TEST_CASE("Restore: a workload name with NUL and 0xFF is refused", "[adapter][snapshot][restore]") {
  // Setup: every "victim" in the payload becomes "vi\0t\xFFm" (same length), checksum fixed.
  // Expect: DataLoss naming metadata.name.
  std::string s = Saved();
  const std::string bad("vi\0t\xFFm", 6);
  size_t edits = 0;
  for (size_t at = s.find("victim", kHeader); at != std::string::npos; at = s.find("victim", at + 6), ++edits)
    s.replace(at, 6, bad);
  REQUIRE(edits > 0);
  const absl::Status st = RestoreEdited(s);
  REQUIRE(st.code() == absl::StatusCode::kDataLoss);
  CHECK_THAT(std::string(st.message()), Catch::Contains("metadata.name: must be UTF-8 text without control characters"));
}

TEST_CASE("Restore: a ClusterQueue spec that disagrees with the quota tree is refused", "[adapter][snapshot][restore]") {
  // Setup: the nominal quota in the ClusterQueue record (section CLQU, after the tree) is edited.
  std::string s = Saved();
  const size_t clqu = s.find("CLQU", kHeader);
  REQUIRE(clqu != std::string::npos);
  const size_t at = s.find(I64Bytes(123457), clqu);
  REQUIRE(at != std::string::npos);

  SECTION("a negative nominal quota fails the ClusterQueue validator") {
    // Expect: DataLoss with the validator's message.
    s.replace(at, 8, I64Bytes(-5));
    const absl::Status st = RestoreEdited(s);
    REQUIRE(st.code() == absl::StatusCode::kDataLoss);
    CHECK(std::string(st.message()) ==
          "snapshot: ClusterQueue 'eng': spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: must be >= 0");
  }
  SECTION("a valid but different nominal quota disagrees with the tree") {
    // Expect: DataLoss naming both values.
    s.replace(at, 8, I64Bytes(777));
    const absl::Status st = RestoreEdited(s);
    REQUIRE(st.code() == absl::StatusCode::kDataLoss);
    CHECK_THAT(std::string(st.message()), Catch::Contains("ClusterQueue 'eng': the quota of default/cpu in its tree node"));
  }
}

TEST_CASE("Restore: an admission whose stated usage is not what its pod sets give is refused",
          "[adapter][snapshot][restore]") {
  // Setup: `a/held` is admitted with one pod of 1237 millicores (a value no other field holds). An
  // admission's usage is derived from its pod sets, not stored (workload_record.h), so the usage a
  // snapshot states for it must be what the pod sets give. In the workload section the amount
  // appears twice: the pod set's usage, then the admission's usage per flavor-resource slot.
  Engine e = test::OneQueueEngine(123457);
  REQUIRE(e.Submit(Workload("a", "held").Queue("q").Request("cpu", 1237)).ok());
  e.ScheduleCycle();
  REQUIRE(e.GetWorkload("a", "held")->state == WorkloadState::kAdmitted);
  absl::StatusOr<std::string> saved = e.Save();
  REQUIRE(saved.ok());
  REQUIRE(Engine::Restore(*saved).ok());
  std::string s = *saved;
  const size_t wkld = s.find("WKLD", kHeader);
  REQUIRE(wkld != std::string::npos);
  const size_t pod_set_usage = s.find(I64Bytes(1237), wkld);
  REQUIRE(pod_set_usage != std::string::npos);
  const size_t slot_usage = s.find(I64Bytes(1237), pod_set_usage + 8);
  REQUIRE(slot_usage != std::string::npos);
  REQUIRE(slot_usage < s.find("PEND", wkld));

  // Expect: DataLoss naming the workload slot, whichever of the two disagrees.
  SECTION("the usage per slot") { s.replace(slot_usage, 8, I64Bytes(1236)); }
  SECTION("the pod set's usage") { s.replace(pod_set_usage, 8, I64Bytes(1236)); }
  const absl::Status st = RestoreEdited(s);
  REQUIRE(st.code() == absl::StatusCode::kDataLoss);
  CHECK(std::string(st.message()) ==
        "snapshot: workload slot 0: admission usage is not what its pod sets and counts give");
}

TEST_CASE("Submit: names must be printable UTF-8", "[adapter][validate]") {
  // Setup: names with NUL, 0xFF, a control character, a truncated sequence; one valid non-ASCII.
  // Expect: the bad ones refused naming metadata.name, the good one accepted.
  Engine e = test::OneQueueEngine(4000);
  for (const std::string& bad : {std::string("a\0b", 3), std::string("a\xFF"), std::string("tab\there"),
                                 std::string("cut\xC3")}) {
    const absl::Status st = e.Submit(Workload("a", bad).Queue("q").Request("cpu", 1)).status();
    CHECK(st.code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(st.message()), Catch::Contains("metadata.name: must be UTF-8 text without control characters"));
  }
  CHECK(e.Submit(Workload("a", "caf\xC3\xA9").Queue("q").Request("cpu", 1)).ok());
}

}  // namespace
}  // namespace restore_content_test
}  // namespace qm
