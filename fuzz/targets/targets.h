// The fuzz targets: one function per harness, shared by the libFuzzer harnesses (fuzz/*_fuzzer.cc)
// and the regression test of the normal build (tests/fuzz/fuzz_regressions_test.cc), so an input
// that once broke the library is replayed through exactly the code the fuzzer ran. Each target
// returns normally on any input the library handles correctly (rejecting it with an error is
// correct) and aborts, naming the broken promise, otherwise.
#ifndef QM_FUZZ_TARGETS_TARGETS_H_
#define QM_FUZZ_TARGETS_TARGETS_H_

#include <cstdint>
#include <span>

namespace qm::fuzz {

/// Kubernetes quantity text: parse, clamp, format and parse back.
void QuantityTarget(std::span<const uint8_t> data);
/// A Kueue manifest: read it, apply it to a fresh engine.
void ManifestTarget(std::span<const uint8_t> data);
/// A scenario file: load it and, when small enough to stay fast, run its steps.
void ScenarioTarget(std::span<const uint8_t> data);
/// A HyperPod policy: JSON/YAML documents, or CLI shorthand (the first byte chooses).
void HyperPodPolicyTarget(std::span<const uint8_t> data);
/// A simulator trace (CSV): read it, write it, read it back equal. Only built when the trace
/// reader is (QM_FUZZ_HAVE_TRACE_READER).
void TraceTarget(std::span<const uint8_t> data);
/// Bytes decoded into a sequence of host calls on a small generated cluster (see the .cc file).
void EngineEventsTarget(std::span<const uint8_t> data);
/// Edits of a valid snapshot (checksum fixed up after them) restored, then checked (see the .cc file).
void SnapshotRestoreTarget(std::span<const uint8_t> data);

}  // namespace qm::fuzz

#endif  // QM_FUZZ_TARGETS_TARGETS_H_
