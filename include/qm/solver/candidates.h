// Lazy, merged iteration over the preemption candidates of several ClusterQueues.
//
// Each ClusterQueue keeps its workloads holding quota in `CandidateOrder` (lower priority, more
// recent reservation, UID, submission). A `CandidateStream` merges any number of those ordered sets
// with a small heap, so a preemption search that stops after k candidates costs O(k log Q) for Q
// queues instead of collecting and sorting every candidate.
#ifndef QM_SOLVER_CANDIDATES_H_
#define QM_SOLVER_CANDIDATES_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "qm/state/cluster_state.h"

namespace qm {

class CandidateStream {
 public:
  void Clear() {
    heads_.clear();
    has_last_ = false;
  }

  /// Adds the ordered set `set` to the merge; candidates drawn from it report `tag`.
  void Add(const CandidateSet& set, uint32_t tag) {
    Settle();
    if (set.empty()) return;
    heads_.push_back(Head{set.begin(), set.end(), tag});
    std::push_heap(heads_.begin(), heads_.end(), Later);
  }

  /// The next candidate in merged order; `tag` receives its set's tag. Returns false when done.
  bool Next(CandidateKey* key, uint32_t* tag) {
    Settle();
    if (heads_.empty()) return false;
    std::pop_heap(heads_.begin(), heads_.end(), Later);
    const Head& h = heads_.back();
    *key = *h.it;
    *tag = h.tag;
    has_last_ = true;
    return true;
  }

  /// Stops drawing from the ClusterQueue of the candidate `Next` returned last (its remaining
  /// candidates are known not to qualify, e.g. all of higher priority).
  void DropLastQueue() {
    if (!has_last_) return;
    heads_.pop_back();
    has_last_ = false;
  }

 private:
  struct Head {
    CandidateSet::const_iterator it;
    CandidateSet::const_iterator end;
    uint32_t tag;
  };
  // std heaps keep the largest on top; "largest" here means "earliest in candidate order".
  static bool Later(const Head& a, const Head& b) { return CandidateOrder()(*b.it, *a.it); }

  // Advances the head that produced the last candidate and puts it back into the heap.
  void Settle() {
    if (!has_last_) return;
    has_last_ = false;
    Head& h = heads_.back();
    if (++h.it == h.end) {
      heads_.pop_back();
    } else {
      std::push_heap(heads_.begin(), heads_.end(), Later);
    }
  }

  std::vector<Head> heads_;
  bool has_last_ = false;
};

}  // namespace qm

#endif  // QM_SOLVER_CANDIDATES_H_
