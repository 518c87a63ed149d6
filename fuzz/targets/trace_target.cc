// Simulator traces (CSV): reading never crashes, and what reads writes back as text that reads
// back to the same trace (WriteTrace's promise), compared through its text.
#include <string>
#include <string_view>

#include "fuzz/targets/fuzz_check.h"
#include "fuzz/targets/targets.h"
#include "qm/sim/trace.h"

namespace qm::fuzz {

void TraceTarget(std::span<const uint8_t> data) {
  const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
  absl::StatusOr<sim::Trace> trace = sim::ReadTraceString(text, "fuzz.csv");
  if (!trace.ok()) return;
  const std::string written = sim::WriteTrace(*trace);
  absl::StatusOr<sim::Trace> reread = sim::ReadTraceString(written, "written.csv");
  QM_FUZZ_CHECK(reread.ok(), "WriteTrace output does not read back: ",
                reread.status().ToString(), "\n", written);
  QM_FUZZ_CHECK(sim::WriteTrace(*reread) == written, "a written trace reads back different:\n",
                written);
}

}  // namespace qm::fuzz
