// libFuzzer entry point of SnapshotRestoreTarget (fuzz/targets/targets.h); run it as docs/fuzzing.md says.
#include <cstddef>
#include <cstdint>

#include "fuzz/targets/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qm::fuzz::SnapshotRestoreTarget({data, size});
  return 0;
}
