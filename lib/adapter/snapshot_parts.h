// The parts of the snapshot implementation that its units share (docs/snapshot-format.md). Not
// installed. The format's byte-level codec is snapshot_codec.h; the rest is split by what it does:
//
//   snapshot_specs.cc       the encoding of the specs and records every section reuses
//   snapshot_writer.cc      `Engine::Save`: every member of the state, section by section
//   snapshot_reader.cc      `Engine::Restore`: bounds-checked decoding into a fresh state
//   snapshot_validation.cc  every cross-reference of a decoded state, then the lookup structures
//                           rebuilt from the records and the quota tree checked against a
//                           recomputation
//
// Split so that no unit takes long to compile (issue 26); Save and Restore are not hot paths.
#ifndef QM_LIB_ADAPTER_SNAPSHOT_PARTS_H_
#define QM_LIB_ADAPTER_SNAPSHOT_PARTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "adapter/snapshot_codec.h"
#include "qm/state/cluster_state.h"

namespace qm::internal::snapshot {

// ---- Specs and records (snapshot_specs.cc) ---------------------------------------------------------
void PutLabels(Writer& w, const Labels& labels);
Labels GetLabels(Reader& r);
void PutStrings(Writer& w, const std::vector<std::string>& list);
std::vector<std::string> GetStrings(Reader& r, std::string_view what);
void PutOptI32(Writer& w, const std::optional<int32_t>& v);
std::optional<int32_t> GetOptI32(Reader& r);
void PutOptI64(Writer& w, const std::optional<int64_t>& v);
std::optional<int64_t> GetOptI64(Reader& r);
void PutSelector(Writer& w, const LabelSelector& s);
LabelSelector GetSelector(Reader& r);
void PutTerms(Writer& w, const std::vector<NodeSelectorTerm>& terms);
std::vector<NodeSelectorTerm> GetTerms(Reader& r);
void PutTolerations(Writer& w, const std::vector<Toleration>& list);
std::vector<Toleration> GetTolerations(Reader& r);
void PutFlavorSpec(Writer& w, const ResourceFlavorSpec& f);
ResourceFlavorSpec GetFlavorSpec(Reader& r);
void PutGroups(Writer& w, const std::vector<ResourceGroupSpec>& groups);
std::vector<ResourceGroupSpec> GetGroups(Reader& r);
void PutClusterQueueSpec(Writer& w, const ClusterQueueSpec& s);
ClusterQueueSpec GetClusterQueueSpec(Reader& r);
void PutPodSet(Writer& w, const PodSetShape& ps);
PodSetShape GetPodSet(Reader& r);
void PutWaitForPodsReady(Writer& w, const WaitForPodsReadyConfig& c);
WaitForPodsReadyConfig GetWaitForPodsReady(Reader& r);
void PutAntiThrash(Writer& w, const AntiThrashConfig& a);
AntiThrashConfig GetAntiThrash(Reader& r);
void PutHistory(Writer& w, const PreemptionHistory& h);
std::unique_ptr<PreemptionHistory> GetHistory(Reader& r);
void PutIds(Writer& w, const std::vector<uint32_t>& ids);
std::vector<uint32_t> GetIds(Reader& r, std::string_view what);

// ---- Save (snapshot_writer.cc) ----------------------------------------------------------------------
/// Every section of the payload, in the format's order.
void WriteState(const ClusterState& s, Writer& w);

// ---- Restore (snapshot_reader.cc, snapshot_validation.cc) -------------------------------------------
/// A DataLoss status "snapshot: <what>".
absl::Status Corrupt(std::string_view what);

// The parts decoded before they can be linked: node fields, queue memberships.
struct Decoded {
  std::vector<QuotaTree::Node> nodes;
  struct Queues {
    std::vector<uint32_t> heap, inadmissible, admitted, evicting;
  };
  std::vector<Queues> queues;
  std::vector<std::pair<uint64_t, std::vector<uint32_t>>> shape_index;
  /// Per admission, by workload slot in slot order: the usage per FR the snapshot states. It is
  /// derived, not stored, so ValidateWorkloads checks it against what the pod sets give.
  std::vector<std::pair<uint32_t, FrUsage>> admission_usage;
};

/// Run in this order once every section is decoded: each checks what the next relies on.
absl::Status ValidateTree(const ClusterState& s, const Decoded& p);
absl::Status ValidateObjects(const ClusterState& s, const Decoded& p);
absl::Status ValidateWorkloads(const ClusterState& s, const Decoded& p);
absl::Status ValidateThrash(const ClusterState& s);
absl::Status Link(ClusterState& s, Decoded& p);
absl::Status CheckTree(ClusterState& s);

}  // namespace qm::internal::snapshot

#endif  // QM_LIB_ADAPTER_SNAPSHOT_PARTS_H_
