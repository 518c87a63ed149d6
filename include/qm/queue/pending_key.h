// The key and order of pending workloads in a ClusterQueue's queues (docs/semantics.md §3.2).
#ifndef QM_QUEUE_PENDING_KEY_H_
#define QM_QUEUE_PENDING_KEY_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/container/btree_set.h"
#include "qm/core/compact_string.h"
#include "qm/core/ids.h"

namespace qm {

/// Order of a ClusterQueue's active queue (docs/semantics.md §3.2):
///   1. higher priority first;  2. earlier queue-order timestamp;  3. smaller UID;
///   4. earlier submission (`seq`, unique).
/// The sticky preemptor is handled outside the set (it is taken first when present).
// Keys are packed to 32 bytes (priority and id share a word) so a 256-byte btree node holds more.
struct PendingKey {
  int32_t priority;
  WorkloadId id;
  int64_t queue_time_us;
  const CompactString* uid;  ///< the workload record's (records never move)
  uint64_t seq;
};
struct PendingOrder {
  bool operator()(const PendingKey& a, const PendingKey& b) const {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.queue_time_us != b.queue_time_us) return a.queue_time_us < b.queue_time_us;
    if (a.uid != b.uid) {
      if (int c = a.uid->compare(*b.uid); c != 0) return c < 0;
    }
    return a.seq < b.seq;
  }
};
using PendingSet = absl::btree_set<PendingKey, PendingOrder>;

/// Points the `uid` of every key in `set` (of `PendingKey`s or `CandidateKey`s) at `uid_of(key.id)`.
/// For a set copied into another engine (lib/adapter/engine_copy.cc), whose records hold the same
/// uids at other addresses: the texts are equal, so the order holds and the keys are rewritten in
/// place (a set's elements are not const objects; only its iterators are const).
template <class Set, class UidOf>
void RebindUids(Set& set, UidOf&& uid_of) {
  for (const auto& k : set) const_cast<std::remove_const_t<std::remove_reference_t<decltype(k)>>&>(k).uid = uid_of(k.id);
}

}  // namespace qm

#endif  // QM_QUEUE_PENDING_KEY_H_
