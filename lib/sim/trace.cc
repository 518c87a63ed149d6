// The compact trace representation (trace.h).
#include "qm/sim/trace.h"

#include <algorithm>

#include "absl/strings/string_view.h"
#include "fmt/format.h"

namespace qm::sim {

Trace::Trace() {
  strings.emplace_back();
  index_.emplace("", 0);
}

StringId Trace::Intern(std::string_view s) {
  // The map is for lookup only; ids follow first appearance, so they never depend on hashing.
  if (auto it = index_.find(absl::string_view(s.data(), s.size())); it != index_.end()) return it->second;
  const StringId id = static_cast<StringId>(strings.size());
  strings.emplace_back(s);
  index_.emplace(std::string(s), id);
  return id;
}

std::string Trace::JobName(const TraceJob& job) const {
  if (job.name_size > 0) return names.substr(job.name_offset, job.name_size);
  return fmt::format("job-{}", job.row);
}

void Trace::Finish() {
  auto before = [](const TraceJob& a, const TraceJob& b) {
    return a.submit != b.submit ? a.submit < b.submit : a.row < b.row;
  };
  // Traces usually come in submission order: check before sorting.
  if (!std::is_sorted(jobs.begin(), jobs.end(), before)) std::stable_sort(jobs.begin(), jobs.end(), before);
}

}  // namespace qm::sim
