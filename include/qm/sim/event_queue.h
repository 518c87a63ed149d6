// A virtual-time event queue with a total order: events fire by (time, seq), where `seq` is stamped
// on insertion, so events at the same instant fire in the order they were scheduled, on every run
// (unlike a heap keyed on time only, which leaves same-time ties to chance).
#ifndef QM_SIM_EVENT_QUEUE_H_
#define QM_SIM_EVENT_QUEUE_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "qm/core/assert.h"
#include "qm/core/time.h"

namespace qm::sim {

/// A min-queue of `Payload`s keyed by virtual time.
template <class Payload>
class EventQueue {
 public:
  struct Event {
    Time time;
    uint64_t seq = 0;  ///< insertion order; unique
    Payload payload;
  };

  /// Schedules `payload` at `time`; returns its sequence number.
  uint64_t Push(Time time, Payload payload) {
    const uint64_t seq = next_seq_++;
    heap_.push_back(Event{time, seq, std::move(payload)});
    std::push_heap(heap_.begin(), heap_.end(), Later);
    return seq;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  /// The earliest event (by time, then seq). Requires `!empty()`.
  const Event& Top() const {
    QM_DCHECK(!heap_.empty(), "EventQueue::Top on an empty queue");
    return heap_.front();
  }
  /// Removes and returns the earliest event. Requires `!empty()`.
  Event Pop() {
    QM_DCHECK(!heap_.empty(), "EventQueue::Pop on an empty queue");
    std::pop_heap(heap_.begin(), heap_.end(), Later);
    Event e = std::move(heap_.back());
    heap_.pop_back();
    return e;
  }
  void Reserve(size_t n) { heap_.reserve(n); }

 private:
  // Heap order: `a` below `b` when `a` fires later (std heaps are max-heaps).
  static bool Later(const Event& a, const Event& b) {
    if (a.time != b.time) return a.time > b.time;
    return a.seq > b.seq;
  }
  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace qm::sim

#endif  // QM_SIM_EVENT_QUEUE_H_
