// Appending jobs to a `Trace` compactly (private to lib/sim): identical request lists and identical
// pod-set lists are stored once and shared, so a trace of 10⁶ jobs of a few shapes costs little
// more than its `TraceJob`s.
#ifndef QM_LIB_SIM_TRACE_BUILDER_H_
#define QM_LIB_SIM_TRACE_BUILDER_H_

#include <cstdint>
#include <span>

#include "absl/container/flat_hash_set.h"
#include "qm/sim/trace.h"

namespace qm::sim::internal {

class TraceBuilder {
 public:
  explicit TraceBuilder(Trace* trace);
  TraceBuilder(const TraceBuilder&) = delete;
  TraceBuilder& operator=(const TraceBuilder&) = delete;

  /// The index in `trace->requests` of a range equal to `requests` (appended when new).
  uint32_t AddRequests(std::span<const TraceRequest> requests);
  /// The index in `trace->pod_sets` of a range equal to `pod_sets` (appended when new).
  uint32_t AddPodSets(std::span<const TracePodSet> pod_sets);

 private:
  // A range of one of the trace's arrays; the hash and equality functors read the elements, so
  // the set stays valid when the arrays reallocate.
  struct Range {
    uint32_t first = 0;
    uint32_t count = 0;
  };
  template <class T>
  struct RangeHash {
    const std::vector<T>* items;
    size_t operator()(const Range& r) const;
  };
  template <class T>
  struct RangeEq {
    const std::vector<T>* items;
    bool operator()(const Range& a, const Range& b) const;
  };
  template <class T>
  using RangeSet = absl::flat_hash_set<Range, RangeHash<T>, RangeEq<T>>;

  template <class T>
  static uint32_t Add(std::vector<T>& items, RangeSet<T>& set, std::span<const T> values);

  Trace* trace_;
  RangeSet<TraceRequest> request_ranges_;
  RangeSet<TracePodSet> pod_set_ranges_;
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_TRACE_BUILDER_H_
