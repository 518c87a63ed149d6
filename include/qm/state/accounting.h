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

/// Simulation: takes an admitted workload's usage out of the tree (it stays admitted).
inline void SimulateRemoval(ClusterState& s, WorkloadId id) {
  const AdmissionRecord& a = *s.wl(id).admission;
  RemoveUsage(s, a.cluster_queue, a.usage);
}
/// Simulation: puts back what SimulateRemoval took.
inline void UndoRemoval(ClusterState& s, WorkloadId id) {
  const AdmissionRecord& a = *s.wl(id).admission;
  AddUsage(s, a.cluster_queue, a.usage);
}

/// Starts accounting an admission that was just recorded in `w.admission`.
inline void AccountAdmission(ClusterState& s, WorkloadId id) {
  WorkloadRecord& w = s.wl(id);
  QM_DCHECK(w.admission != nullptr, "AccountAdmission needs an admission");
  AdmissionRecord& a = *w.admission;
  AddUsage(s, a.cluster_queue, a.usage);
  ClusterQueueState& cq = s.cq(a.cluster_queue);
  (a.evicted ? cq.evicting : cq.admitted).insert(CandidateKeyOf(s, id));
  w.state = a.evicted ? WorkloadState::kEvicting : WorkloadState::kAdmitted;
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
  RemoveUsage(s, a.cluster_queue, a.usage);
  ++cq.generation;
  w.admission.reset();
}

}  // namespace qm

#endif  // QM_STATE_ACCOUNTING_H_
