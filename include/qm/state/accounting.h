// Bookkeeping of workloads that hold quota: their usage in the quota tree and their place in the
// per-ClusterQueue preemption-candidate sets. Used for real admissions and for the solver's
// simulate-and-undo (removing a candidate's usage, then putting it back).
#ifndef QM_STATE_ACCOUNTING_H_
#define QM_STATE_ACCOUNTING_H_

#include "qm/core/assert.h"
#include "qm/state/cluster_state.h"

namespace qm {

inline const std::string& EmptyString() {
  static const std::string kEmpty;
  return kEmpty;
}

/// The key a workload holding quota has in its ClusterQueue's candidate set.
inline CandidateKey CandidateKeyOf(const ClusterState& s, WorkloadId id) {
  const WorkloadRecord& w = s.wl(id);
  return CandidateKey{w.priority, id, w.admission->reserved_at.us, &w.uid, w.seq};
}

/// Adds `usage` to ClusterQueue `cq` in the quota tree.
inline void AddUsage(ClusterState& s, ClusterQueueId cq, const FrUsage& usage) {
  const NodeIndex node = s.cq(cq).node;
  for (const auto& [fr, v] : usage) s.tree.AddUsage(node, fr, v);
}
/// Removes `usage` from ClusterQueue `cq` (the exact inverse of AddUsage).
inline void RemoveUsage(ClusterState& s, ClusterQueueId cq, const FrUsage& usage) {
  const NodeIndex node = s.cq(cq).node;
  for (const auto& [fr, v] : usage) s.tree.RemoveUsage(node, fr, v);
}

/// Adds admission `w.admission`'s usage (`AdmissionUsage`) to its ClusterQueue in the quota tree.
/// Entry by entry: the tree's sums are exact, so this is AddUsage of the whole list.
inline void AddAdmissionUsage(ClusterState& s, const WorkloadRecord& w) {
  const NodeIndex node = s.cq(w.admission->cluster_queue).node;
  ForEachAdmissionUsage(s, w, [&](FrId fr, int64_t v) { s.tree.AddUsage(node, fr, v); });
}
/// Removes admission `w.admission`'s usage from the quota tree (the exact inverse).
inline void RemoveAdmissionUsage(ClusterState& s, const WorkloadRecord& w) {
  const NodeIndex node = s.cq(w.admission->cluster_queue).node;
  ForEachAdmissionUsage(s, w, [&](FrId fr, int64_t v) { s.tree.RemoveUsage(node, fr, v); });
}

/// Simulation: takes an admitted workload's usage out of the tree (it stays admitted).
inline void SimulateRemoval(ClusterState& s, WorkloadId id) { RemoveAdmissionUsage(s, s.wl(id)); }
/// Simulation: puts back what SimulateRemoval took.
inline void UndoRemoval(ClusterState& s, WorkloadId id) { AddAdmissionUsage(s, s.wl(id)); }

/// The rest of accounting an admission once its usage is in the tree: it joins its ClusterQueue's
/// admitted (or evicting) candidates and its state follows.
inline void JoinCandidates(ClusterState& s, WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  ClusterQueueState& cq = s.cq(w.admission->cluster_queue);
  (w.admission->evicted ? cq.evicting : cq.admitted).insert(CandidateKeyOf(s, id));
  w.state = w.admission->evicted ? WorkloadState::kEvicting : WorkloadState::kAdmitted;
}

/// Starts accounting an admission that was just recorded in `w.admission`.
inline void AccountAdmission(ClusterState& s, WorkloadId id) {
  QM_DCHECK(s.wl(id).admission != nullptr, "AccountAdmission needs an admission");
  AddAdmissionUsage(s, s.wl(id));
  JoinCandidates(s, id);
}
/// The same, given the admission's usage (what `AdmissionUsage` derives: the scheduler passes its
/// assignment's, which is that, and saves deriving it again).
inline void AccountAdmission(ClusterState& s, WorkloadId id, const FrUsage& usage) {
  const WorkloadRecord& w = s.wl(id);
  QM_DCHECK(w.admission != nullptr, "AccountAdmission needs an admission");
  QM_DCHECK(usage == AdmissionUsage(s, w), "AccountAdmission: usage differs from what the admission derives");
  AddUsage(s, w.admission->cluster_queue, usage);
  JoinCandidates(s, id);
}

/// Marks an admitted workload as being evicted: it keeps its quota, moves to the evicting set.
inline void MarkEvicted(ClusterState& s, WorkloadId id, Time now) {
  WorkloadRecord& w = s.wl(id);
  AdmissionRecord& a = *w.admission;
  if (a.evicted) return;
  ClusterQueueState& cq = s.cq(a.cluster_queue);
  cq.admitted.erase(CandidateKeyOf(s, id));
  a.evicted = true;
  a.evicted_at = now;
  cq.evicting.insert(CandidateKeyOf(s, id));
  w.state = WorkloadState::kEvicting;
}

/// Stops accounting the workload's admission: its usage leaves the tree, it leaves the candidate
/// sets, the admission is dropped and the queue's allocatable generation moves on.
inline void ReleaseAdmission(ClusterState& s, WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  if (!w.admission) return;
  AdmissionRecord& a = *w.admission;
  ClusterQueueState& cq = s.cq(a.cluster_queue);
  (a.evicted ? cq.evicting : cq.admitted).erase(CandidateKeyOf(s, id));
  RemoveAdmissionUsage(s, w);
  ++cq.generation;
  w.admission.reset();
}

}  // namespace qm

#endif  // QM_STATE_ACCOUNTING_H_
