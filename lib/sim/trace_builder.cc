// Appending jobs to a `Trace` compactly (trace_builder.h).
#include "sim/trace_builder.h"

#include <tuple>

namespace qm::sim::internal {
namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  // SplitMix64's finaliser over the running value: cheap and well spread.
  uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t HashOf(const TraceRequest& r) { return Mix(r.resource, static_cast<uint64_t>(r.amount)); }
uint64_t HashOf(const TracePodSet& p) {
  return Mix(Mix(Mix(p.name, static_cast<uint64_t>(p.count)), static_cast<uint64_t>(p.min_count)),
             (static_cast<uint64_t>(p.first_request) << 32) | p.request_count);
}
auto Key(const TraceRequest& r) { return std::tie(r.resource, r.amount); }
auto Key(const TracePodSet& p) { return std::tie(p.name, p.count, p.min_count, p.first_request, p.request_count); }

}  // namespace

template <class T>
size_t TraceBuilder::RangeHash<T>::operator()(const Range& r) const {
  uint64_t h = r.count;
  for (uint32_t i = 0; i < r.count; ++i) h = Mix(h, HashOf((*items)[r.first + i]));
  return static_cast<size_t>(h);
}

template <class T>
bool TraceBuilder::RangeEq<T>::operator()(const Range& a, const Range& b) const {
  if (a.count != b.count) return false;
  for (uint32_t i = 0; i < a.count; ++i)
    if (Key((*items)[a.first + i]) != Key((*items)[b.first + i])) return false;
  return true;
}

TraceBuilder::TraceBuilder(Trace* trace)
    : trace_(trace),
      request_ranges_(0, RangeHash<TraceRequest>{&trace->requests}, RangeEq<TraceRequest>{&trace->requests}),
      pod_set_ranges_(0, RangeHash<TracePodSet>{&trace->pod_sets}, RangeEq<TracePodSet>{&trace->pod_sets}) {}

template <class T>
uint32_t TraceBuilder::Add(std::vector<T>& items, RangeSet<T>& set, std::span<const T> values) {
  if (values.empty()) return 0;
  const uint32_t first = static_cast<uint32_t>(items.size());
  items.insert(items.end(), values.begin(), values.end());
  const auto [it, inserted] = set.insert(Range{first, static_cast<uint32_t>(values.size())});
  if (inserted) return first;
  items.resize(first);  // an equal range exists: share it
  return it->first;
}

uint32_t TraceBuilder::AddRequests(std::span<const TraceRequest> requests) {
  return Add(trace_->requests, request_ranges_, requests);
}

uint32_t TraceBuilder::AddPodSets(std::span<const TracePodSet> pod_sets) {
  return Add(trace_->pod_sets, pod_set_ranges_, pod_sets);
}

}  // namespace qm::sim::internal
