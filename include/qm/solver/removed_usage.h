// The usage a preemption search has taken out of the quota tree, kept while the search runs.
//
// An admission's usage is derived from its pod sets and shape (`AdmissionUsage`), not stored. A
// search takes a target's usage out, then its fill-back puts it back and may take it out again,
// and the search ends by putting every one back: deriving each time cost a simulation with heavy
// preemption about a tenth of its run. Kept here, each target's usage is derived once per search.
#ifndef QM_SOLVER_REMOVED_USAGE_H_
#define QM_SOLVER_REMOVED_USAGE_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "qm/state/accounting.h"
#include "qm/state/cluster_state.h"

namespace qm {

/// Entry i is the i-th target of the search that owns it, and follows its list: `Erase(i)` moves
/// the last entry into i, as the searches do with their targets. The storage is reused from one
/// search to the next, so a warm search allocates nothing here.
class RemovedUsage {
 public:
  void Clear() { size_ = 0; }
  size_t size() const { return size_; }

  /// Takes admitted workload `id`'s usage out of the tree, as entry `size()`.
  void Remove(ClusterState& s, WorkloadId id) { Remove(s, id, AdmissionUsage(s, s.wl(id))); }
  /// The same with its usage already derived.
  void Remove(ClusterState& s, WorkloadId id, const FrUsage& usage) {
    if (size_ == entries_.size()) entries_.emplace_back();
    Entry& e = entries_[size_++];
    e.cq = s.wl(id).admission->cluster_queue;
    e.usage = usage;
    RemoveUsage(s, e.cq, e.usage);
  }
  /// Puts entry i's usage back (it stays an entry).
  void PutBack(ClusterState& s, size_t i) const { AddUsage(s, entries_[i].cq, entries_[i].usage); }
  /// Takes entry i's usage out again after `PutBack`.
  void TakeAgain(ClusterState& s, size_t i) const { RemoveUsage(s, entries_[i].cq, entries_[i].usage); }
  /// Forgets entry i (its usage is in the tree): the last entry takes its place.
  void Erase(size_t i) {
    std::swap(entries_[i], entries_[size_ - 1]);
    --size_;
  }
  /// Puts every entry's usage back, in order, and forgets them.
  void PutBackAll(ClusterState& s) {
    for (size_t i = 0; i < size_; ++i) PutBack(s, i);
    size_ = 0;
  }

 private:
  struct Entry {
    ClusterQueueId cq;
    FrUsage usage;
  };
  std::vector<Entry> entries_;
  size_t size_ = 0;
};

}  // namespace qm

#endif  // QM_SOLVER_REMOVED_USAGE_H_
