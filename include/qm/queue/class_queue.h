// A ClusterQueue's pending queue (its active queue or its inadmissible set), grouped by
// equivalence class (docs/semantics.md §3.2, §3.7).
//
// Workloads of one ClusterQueue with the same pod sets (shape) and the same priority are one
// class: the scheduler treats them alike, and when the head of a class fails for lack of quota
// every member is parked with it; when quota is released every parked workload goes back.
// Keeping each class's members in their own ordered set makes both moves a hand-over of whole
// sets instead of a scan and rebuild of the whole queue, which is what a busy BestEffortFIFO
// queue used to cost per failed head and per release (docs/benchmarks.md).
//
// The queue's order is still one order over all members (`PendingOrder`): `heads_` holds the
// first member of every class, so the queue's head is the first of the heads. Iterating the
// queue merges the classes in that order.
//
// Costs for a queue of n workloads in C classes, m in the affected class:
//   insert / erase ........ O(log m + log C)
//   front ................. O(1)
//   TakeClass ............. O(log C)  (the members move as one set)
//   InsertSet ............. O(log C) into a class the queue lacks, else the smaller set inserted
//                           into the larger (or a linear merge when they are of similar size)
//   iteration ............. O(n log C)
#ifndef QM_QUEUE_CLASS_QUEUE_H_
#define QM_QUEUE_CLASS_QUEUE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "qm/queue/pending_key.h"

namespace qm {

/// An equivalence class inside one ClusterQueue: (shape id, priority). Exact, not a hash.
using PendingClassKey = uint64_t;

inline PendingClassKey PendingClassOf(uint32_t shape, int32_t priority) {
  return (static_cast<uint64_t>(shape) << 32) | static_cast<uint32_t>(priority);
}

class ClassQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  /// The first workload in queue order. Requires !empty().
  const PendingKey& front() const { return *heads_.begin(); }

  void insert(const PendingKey& k, PendingClassKey c) {
    PendingSet& members = classes_[c];
    if (!members.empty()) {
      const PendingKey& head = *members.begin();
      if (!PendingOrder()(k, head)) {
        if (members.insert(k).second) ++size_;
        return;
      }
      heads_.erase(head);
    }
    members.insert(k);
    heads_.insert(k);
    ++size_;
  }

  /// Removes `k` from class `c`; false when it is not there.
  bool erase(const PendingKey& k, PendingClassKey c) {
    auto it = classes_.find(c);
    if (it == classes_.end()) return false;
    PendingSet& members = it->second;
    auto pos = members.find(k);
    if (pos == members.end()) return false;
    const bool was_head = pos == members.begin();
    members.erase(pos);
    --size_;
    if (was_head) {
      heads_.erase(k);
      if (members.empty()) {
        classes_.erase(it);
      } else {
        heads_.insert(*members.begin());
      }
    }
    return true;
  }

  /// Takes every member of class `c` out of the queue, in queue order (empty when it has none).
  PendingSet TakeClass(PendingClassKey c) {
    auto it = classes_.find(c);
    if (it == classes_.end()) return PendingSet();
    PendingSet members = std::move(it->second);
    classes_.erase(it);
    heads_.erase(*members.begin());
    size_ -= members.size();
    return members;
  }

  /// Adds a whole class's members (a set in queue order) to class `c`.
  void InsertSet(PendingClassKey c, PendingSet&& members) {
    if (members.empty()) return;
    auto [it, fresh] = classes_.try_emplace(c);
    size_ += members.size();
    if (fresh) {
      heads_.insert(*members.begin());
      it->second = std::move(members);
      return;
    }
    heads_.erase(*it->second.begin());
    // The smaller set goes into the larger: a flush brings a parked class back to where a few new
    // arrivals of the class wait, and copying the few is cheaper than rebuilding the many.
    if (it->second.size() < members.size()) std::swap(it->second, members);
    std::vector<PendingKey> sorted(members.begin(), members.end());
    MergeInto(it->second, sorted);
    heads_.insert(*it->second.begin());
  }

  /// Empties the queue, handing over every class with its members (in no particular order).
  absl::flat_hash_map<PendingClassKey, PendingSet> TakeAll() {
    absl::flat_hash_map<PendingClassKey, PendingSet> all = std::move(classes_);
    classes_.clear();
    heads_.clear();
    size_ = 0;
    return all;
  }

  void clear() {
    classes_.clear();
    heads_.clear();
    size_ = 0;
  }

  /// Forward iteration over every member in queue order (merging the classes).
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = PendingKey;
    using difference_type = std::ptrdiff_t;
    using pointer = const PendingKey*;
    using reference = const PendingKey&;

    const_iterator() = default;
    reference operator*() const { return *cursors_.front().first; }
    pointer operator->() const { return &*cursors_.front().first; }
    const_iterator& operator++() {
      std::pop_heap(cursors_.begin(), cursors_.end(), Later);
      Cursor& c = cursors_.back();
      if (++c.first == c.second) {
        cursors_.pop_back();
      } else {
        std::push_heap(cursors_.begin(), cursors_.end(), Later);
      }
      return *this;
    }
    bool operator==(const const_iterator& o) const {
      if (cursors_.empty() || o.cursors_.empty()) return cursors_.empty() == o.cursors_.empty();
      return cursors_.front().first == o.cursors_.front().first;
    }
    bool operator!=(const const_iterator& o) const { return !(*this == o); }

   private:
    friend class ClassQueue;
    using Cursor = std::pair<PendingSet::const_iterator, PendingSet::const_iterator>;
    // std heaps keep the largest on top; here "largest" is the earliest in queue order.
    static bool Later(const Cursor& a, const Cursor& b) { return PendingOrder()(*b.first, *a.first); }
    std::vector<Cursor> cursors_;
  };

  const_iterator begin() const {
    const_iterator it;
    it.cursors_.reserve(classes_.size());
    for (const auto& [key, members] : classes_) it.cursors_.emplace_back(members.begin(), members.end());
    std::make_heap(it.cursors_.begin(), it.cursors_.end(), const_iterator::Later);
    return it;
  }
  const_iterator end() const { return const_iterator(); }

  /// Classes and their first members, for the invariant checker.
  const absl::flat_hash_map<PendingClassKey, PendingSet>& classes() const { return classes_; }
  const PendingSet& heads() const { return heads_; }

 private:
  // Adds keys sorted in queue order: many at once by one linear merge, a few one by one.
  static void MergeInto(PendingSet& dst, std::vector<PendingKey>& sorted) {
    if (dst.empty()) {
      dst = PendingSet(sorted.begin(), sorted.end());
    } else if (sorted.size() * 16 < dst.size()) {
      for (const PendingKey& k : sorted) dst.insert(k);
    } else {
      std::vector<PendingKey> merged;
      merged.reserve(dst.size() + sorted.size());
      std::merge(dst.begin(), dst.end(), sorted.begin(), sorted.end(), std::back_inserter(merged), PendingOrder());
      dst = PendingSet(merged.begin(), merged.end());
    }
  }

  // Lookup only: no decision reads this map's order (iteration merges by `PendingOrder`).
  absl::flat_hash_map<PendingClassKey, PendingSet> classes_;
  PendingSet heads_;
  size_t size_ = 0;
};

}  // namespace qm

#endif  // QM_QUEUE_CLASS_QUEUE_H_
