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
//   contains .............. O(1) + O(log m)
//   iteration ............. O(n log C)
//
// Each class also counts its members per namespace. A flush (qm/queue/pending_queue.h) asks
// whether a parked class may go back by asking about its few namespaces, so it moves the class
// without reading a single member's record. And a class may carry a status stamp: parking a whole
// class as equivalents of a failed head stamps the set once instead of writing every member's
// status (`StatusStamp`; the records' side is in qm/queue/pending_queue.h).
#ifndef QM_QUEUE_CLASS_QUEUE_H_
#define QM_QUEUE_CLASS_QUEUE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "qm/core/ids.h"
#include "qm/queue/pending_key.h"

namespace qm {

/// An equivalence class inside one ClusterQueue: (shape id, priority). Exact, not a hash.
using PendingClassKey = uint64_t;

inline PendingClassKey PendingClassOf(uint32_t shape, int32_t priority) {
  return (static_cast<uint64_t>(shape) << 32) | static_cast<uint32_t>(priority);
}

/// The status a bulk park gave a whole class (docs/semantics.md §3.7: every member reads the
/// failed head's reason and the "Bypassed ..." message). It covers the members whose own status
/// is older: a member's record keeps the status epoch it joined the set at or last wrote its own
/// status at, and the stamp applies while its epoch is greater (qm/queue/pending_queue.h).
struct StatusStamp {
  uint32_t epoch = 0;  ///< 0: no stamp
  const char* reason = nullptr;
};

/// The members of one class in one queue, with how many come from each namespace (almost always
/// one namespace: a team's ClusterQueue is fed by its own LocalQueues), and its status stamp.
struct PendingClass {
  PendingSet members;
  absl::InlinedVector<std::pair<NamespaceId, uint32_t>, 1> namespaces;  ///< no order, no zero counts
  StatusStamp stamp;

  void Count(NamespaceId ns, uint32_t n) {
    for (auto& [id, count] : namespaces)
      if (id == ns) {
        count += n;
        return;
      }
    namespaces.emplace_back(ns, n);
  }
  void Uncount(NamespaceId ns) {
    for (size_t i = 0; i < namespaces.size(); ++i)
      if (namespaces[i].first == ns) {
        if (--namespaces[i].second == 0) {
          namespaces[i] = namespaces.back();
          namespaces.pop_back();
        }
        return;
      }
  }
};

class ClassQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  /// The first workload in queue order. Requires !empty().
  const PendingKey& front() const { return *heads_.begin(); }

  /// Adds `k`, a workload of namespace `ns`, to class `c`.
  void insert(const PendingKey& k, PendingClassKey c, NamespaceId ns) {
    PendingClass& cls = classes_[c];
    if (!cls.members.empty()) {
      const PendingKey& head = *cls.members.begin();
      if (!PendingOrder()(k, head)) {
        if (cls.members.insert(k).second) {
          ++size_;
          cls.Count(ns, 1);
        }
        return;
      }
      heads_.erase(head);
    }
    cls.members.insert(k);
    cls.Count(ns, 1);
    heads_.insert(k);
    ++size_;
  }

  /// Removes `k` (of namespace `ns`) from class `c`; false when it is not there. `stamp`, when
  /// given, receives the class's status stamp (the member leaves it).
  bool erase(const PendingKey& k, PendingClassKey c, NamespaceId ns, StatusStamp* stamp = nullptr) {
    auto it = classes_.find(c);
    if (it == classes_.end()) return false;
    PendingSet& members = it->second.members;
    auto pos = members.find(k);
    if (pos == members.end()) return false;
    if (stamp != nullptr) *stamp = it->second.stamp;
    const bool was_head = pos == members.begin();
    members.erase(pos);
    it->second.Uncount(ns);
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

  /// Whether `k` is a member of class `c`.
  bool contains(const PendingKey& k, PendingClassKey c) const { return Find(k, c) != nullptr; }
  /// The class `c` when `k` is one of its members, else nullptr.
  const PendingClass* Find(const PendingKey& k, PendingClassKey c) const {
    const auto it = classes_.find(c);
    return it != classes_.end() && it->second.members.contains(k) ? &it->second : nullptr;
  }

  /// Takes every member of class `c` out of the queue, in queue order (empty when it has none).
  PendingClass TakeClass(PendingClassKey c) {
    auto it = classes_.find(c);
    if (it == classes_.end()) return PendingClass();
    PendingClass cls = std::move(it->second);
    classes_.erase(it);
    heads_.erase(*cls.members.begin());
    size_ -= cls.members.size();
    return cls;
  }

  /// Adds a whole class's members (a set in queue order, with its namespace counts and stamp) to
  /// class `c`. When the queue already has members of `c`, the merged set keeps the larger side's
  /// stamp, and `adopt(key, stamp)` is called for each member of the smaller side with that side's
  /// stamp, so that its record can take the status the stamp gave it.
  template <class Adopt>
  void InsertSet(PendingClassKey c, PendingClass&& cls, Adopt&& adopt) {
    if (cls.members.empty()) return;
    auto [it, fresh] = classes_.try_emplace(c);
    size_ += cls.members.size();
    if (fresh) {
      heads_.insert(*cls.members.begin());
      it->second = std::move(cls);
      return;
    }
    PendingClass& into = it->second;
    heads_.erase(*into.members.begin());
    // The smaller set goes into the larger: a flush brings a parked class back to where a few new
    // arrivals of the class wait, and copying the few is cheaper than rebuilding the many.
    if (into.members.size() < cls.members.size()) std::swap(into, cls);
    for (const PendingKey& k : cls.members) adopt(k, cls.stamp);
    if (cls.members.size() <= kInsertOneByOne) {
      for (const PendingKey& k : cls.members) into.members.insert(k);  // no list to merge from
    } else {
      std::vector<PendingKey> sorted(cls.members.begin(), cls.members.end());
      MergeInto(into.members, sorted);
    }
    for (const auto& [ns, n] : cls.namespaces) into.Count(ns, n);
    heads_.insert(*into.members.begin());
  }

  /// Calls `f(key, stamp)` for every member with its class's stamp, then removes every stamp.
  template <class F>
  void ClearStamps(F&& f) {
    for (auto& [c, cls] : classes_) {
      for (const PendingKey& k : cls.members) f(k, cls.stamp);
      cls.stamp = StatusStamp();
    }
  }

  using ClassMap = absl::flat_hash_map<PendingClassKey, PendingClass>;

  /// Empties the queue into `out` (which must be empty), handing over every class with its members
  /// (in no particular order). The two tables are swapped: a queue that every flush empties and
  /// refills keeps a table with room, and so does the caller's, so neither allocates again.
  void TakeAllInto(ClassMap& out) {
    classes_.swap(out);
    heads_.clear();
    size_ = 0;
  }

  /// After a copy of this queue was made for another engine (lib/adapter/engine_copy.cc): points
  /// every key's uid at `uid_of(id)` (qm/queue/pending_key.h, `RebindUids`) and every status
  /// stamp's reason at `reason_of(reason)`, that engine's copies of the same texts.
  template <class UidOf, class ReasonOf>
  void Rebind(UidOf&& uid_of, ReasonOf&& reason_of) {
    RebindUids(heads_, uid_of);
    for (auto& [c, cls] : classes_) {
      RebindUids(cls.members, uid_of);
      if (cls.stamp.reason != nullptr) cls.stamp.reason = reason_of(cls.stamp.reason);
    }
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
    for (const auto& [key, cls] : classes_) it.cursors_.emplace_back(cls.members.begin(), cls.members.end());
    std::make_heap(it.cursors_.begin(), it.cursors_.end(), const_iterator::Later);
    return it;
  }
  const_iterator end() const { return const_iterator(); }

  /// Classes and their first members, for the invariant checker.
  const absl::flat_hash_map<PendingClassKey, PendingClass>& classes() const { return classes_; }
  const PendingSet& heads() const { return heads_; }

 private:
  static constexpr size_t kInsertOneByOne = 4;

  // Adds keys sorted in queue order: many at once by one linear merge, a few one by one (a failed
  // head rejoining its parked class is one key: rebuilding the class for it would cost a new tree).
  static void MergeInto(PendingSet& dst, std::vector<PendingKey>& sorted) {
    if (dst.empty()) {
      dst = PendingSet(sorted.begin(), sorted.end());
    } else if (sorted.size() <= kInsertOneByOne || sorted.size() * 16 < dst.size()) {
      for (const PendingKey& k : sorted) dst.insert(k);
    } else {
      std::vector<PendingKey> merged;
      merged.reserve(dst.size() + sorted.size());
      std::merge(dst.begin(), dst.end(), sorted.begin(), sorted.end(), std::back_inserter(merged), PendingOrder());
      dst = PendingSet(merged.begin(), merged.end());
    }
  }

  // Lookup only: no decision reads this map's order (iteration merges by `PendingOrder`).
  ClassMap classes_;
  PendingSet heads_;
  size_t size_ = 0;
};

}  // namespace qm

#endif  // QM_QUEUE_CLASS_QUEUE_H_
