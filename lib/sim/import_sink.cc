// Where the importers put the jobs they read (import_sink.h).
#include "sim/import_sink.h"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/sim/trace.h"
#include "sim/import_fields.h"
#include "sim/name_index.h"
#include "sim/trace_text.h"

namespace qm::sim::internal {
namespace {

// `v` in decimal, appended.
void AppendInt(std::string& out, int64_t v) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

// `us` ≥ 0 as the trace's canonical time (FormatTraceTime's text: seconds, and only the decimals
// needed), appended without a temporary string.
void AppendTime(std::string& out, int64_t us) {
  AppendInt(out, us / 1'000'000);
  int64_t micros = us % 1'000'000;
  if (micros == 0) return;
  int digits = 6;
  while (micros % 10 == 0) {
    micros /= 10;
    --digits;
  }
  char frac[7] = {'.', '0', '0', '0', '0', '0', '0'};
  for (int i = digits; i > 0; --i, micros /= 10) frac[i] = static_cast<char>('0' + micros % 10);
  out.append(frac, static_cast<size_t>(digits) + 1);
}

}  // namespace

ImportSink::ImportSink(std::span<const ImportInput> inputs, const TraceImportOptions& options,
                       TraceImportSummary* summary)
    : inputs_(inputs), options_(options), summary_(summary) {}

void ImportSink::SeeSubmit(int64_t us, std::string_view text, uint32_t input, int64_t line) {
  if (us < origin_us_) {
    origin_us_ = us;
    origin_text_.assign(text);
    origin_input_ = input;
    origin_line_ = line;
  }
  SeeTime(us, text);
}

void ImportSink::SeeTime(int64_t us, std::string_view text) {
  if (us > end_us_) {
    end_us_ = us;
    end_text_.assign(text);
  }
}

bool ImportSink::SetRun(ImportedJob& job, int64_t start, std::optional<int64_t> end) {
  if (!end) {
    job.open_run = true;
    job.mark_us = start;
    return true;
  }
  if (*end < start) {
    ++summary_->end_before_start;
    return false;
  }
  job.run_us = *end - start;
  job.mark_us = *end;
  return true;
}

absl::StatusOr<uint32_t> ImportSink::Owner(std::string_view name, uint32_t input, int64_t line,
                                           std::string_view column) {
  if (const uint32_t id = owners_.Find(name); id != InternedTexts::kNone) return id;
  const bool ns = options_.owner_as_namespace;
  if (const std::string problem = NameProblem(name, ns ? kMaxNamespaceSize : kMaxTeamSize); !problem.empty()) {
    return ImportError(file(input), line, column,
                       fmt::format("{} is not a valid {} name: it {}", QuoteValue(name), ns ? "namespace" : "team", problem));
  }
  return owners_.Intern(name);
}

std::string_view ImportSink::Stable(std::string_view s, uint32_t input) {
  const std::string_view text = inputs_[input].content();
  const bool inside = s.data() >= text.data() && s.data() + s.size() <= text.data() + text.size();
  return inside || s.empty() ? s : Keep(s);
}

absl::Status ImportSink::Add(const ImportedJob& new_job, std::string_view name_column) {
  ImportedJob job = new_job;
  job.name = Stable(job.name, job.input);
  if (const std::string problem = NameProblem(job.name, kMaxNameSize); !problem.empty()) {
    return ImportError(file(job.input), job.line, name_column,
                       fmt::format("{} is not a valid job name: it {}", QuoteValue(job.name), problem));
  }
  if (name_column_ != name_column) name_column_.assign(name_column);
  // Hashed now, while the name is in the cache; `Finish` would read it from memory.
  if (!names_unique_) job.name_hash = NameHash(job.name);
  jobs_.push_back(job);
  return absl::OkStatus();
}

void ImportSink::Reserve(size_t jobs) { jobs_.reserve(jobs_.size() + jobs); }

absl::Status ImportSink::CheckNamesUnique() const {
  // Sorting (hash, index) pairs is several times faster than a hash set of 10⁶ names, whose every
  // insert misses the cache; equal names then sit next to each other.
  std::vector<HashedIndex> keys(jobs_.size());
  for (size_t k = 0; k < jobs_.size(); ++k) keys[k] = {jobs_[k].name_hash, static_cast<uint32_t>(k)};
  SortHashedIndices(keys);
  // Of all repeats, report the one that comes first in the input, with the name's first use.
  size_t first = 0, second = jobs_.size();
  for (size_t i = 0; i < keys.size();) {
    size_t j = i + 1;
    while (j < keys.size() && keys[j].first == keys[i].first) ++j;
    for (size_t a = i; a < j; ++a) {  // a run of equal hashes: almost always one name
      for (size_t b = a + 1; b < j; ++b) {
        if (keys[b].second < second && jobs_[keys[a].second].name == jobs_[keys[b].second].name) {
          first = keys[a].second;  // keys in a run are sorted by index: a < b
          second = keys[b].second;
        }
      }
    }
    i = j;
  }
  if (second == jobs_.size()) return absl::OkStatus();
  const ImportedJob& one = jobs_[first];
  const ImportedJob& two = jobs_[second];
  const std::string where =
      one.input == two.input ? fmt::format("line {}", one.line) : fmt::format("{}:{}", file(one.input), one.line);
  return ImportError(file(two.input), two.line, name_column_,
                     fmt::format("job {} appears twice (first on {})", QuoteValue(two.name), where));
}

absl::StatusOr<std::string> ImportSink::Finish() {
  if (!names_unique_) QM_RETURN_IF_ERROR(CheckNamesUnique());
  TraceImportSummary& s = *summary_;
  const bool any_row = origin_us_ != std::numeric_limits<int64_t>::max();
  const int64_t origin = any_row ? origin_us_ : 0;
  const int64_t end = any_row ? end_us_ : 0;
  if (any_row) {
    s.origin = fmt::format("{} ({}:{})", origin_text_, file(origin_input_), origin_line_);
    s.trace_end = end_text_;
  }
  for (const int64_t deleted : pending_deletions_) {
    ++(deleted != kNoTime && deleted < end ? s.cancelled_pending : s.never_scheduled);
  }
  struct Row {
    int64_t submit_us;
    int64_t duration_us;
    size_t job;
  };
  std::vector<Row> rows;
  rows.reserve(jobs_.size());
  bool any_affinity = false;
  for (size_t k = 0; k < jobs_.size(); ++k) {
    const ImportedJob& job = jobs_[k];
    const bool running = job.open_run || (job.ends_with_trace && job.mark_us >= end);
    if (running) {
      if (!options_.keep_running) {
        ++s.running_skipped;
        continue;
      }
      ++s.running_kept;
    }
    int64_t run = job.run_us + (job.open_run ? end - job.mark_us : 0);
    if (run == 0) {
      ++s.zero_run;
      run = 1'000'000;  // the traces count whole seconds: a run shorter than one is written as one
    }
    if (run > kMaxTraceTime.us || job.submit_us - origin > kMaxTraceTime.us) {
      return ImportError(file(job.input), job.line, "",
                         "the job's submit or run time is more than 100 years from the trace's start");
    }
    if (job.fractional) ++s.fractional_gpu;
    if (job.affinity != 0) {
      ++s.constrained;
      any_affinity = true;
    }
    rows.push_back({job.submit_us - origin, run, k});
  }
  // Traces are mostly in submit order already; stable: equal submit times keep the input's order.
  const auto by_submit = [](const Row& a, const Row& b) { return a.submit_us < b.submit_us; };
  if (!std::is_sorted(rows.begin(), rows.end(), by_submit)) std::stable_sort(rows.begin(), rows.end(), by_submit);
  s.jobs = static_cast<int64_t>(rows.size());

  const std::string_view owner_column = options_.owner_as_namespace ? "namespace" : "team";
  std::string out = fmt::format("submit,{},pod_sets,duration,name{}\n", owner_column, any_affinity ? ",node_affinity" : "");
  size_t size = out.size();
  for (const Row& row : rows) {  // reserved exactly: a 10⁶-job trace is 100 MB, too much to regrow
    const ImportedJob& job = jobs_[row.job];
    size += owners_[job.owner].size() + pod_sets_[job.pod_sets].size() + job.name.size() +
            affinities_[job.affinity].size() + 2 * 28 + 5;
  }
  out.reserve(size);
  // No value needs quoting: names are checked, and pod sets and affinities hold no ',' or '"'.
  // A job's name lies in the input, read long ago, and its pod sets anywhere among 10⁵ texts: both
  // are fetched a few rows ahead, else every row waits for memory twice.
  constexpr size_t kAhead = 8;
  for (size_t r = 0; r < rows.size(); ++r) {
    if (r + kAhead < rows.size()) {
      const ImportedJob& ahead = jobs_[rows[r + kAhead].job];
      __builtin_prefetch(ahead.name.data());
      __builtin_prefetch(pod_sets_[ahead.pod_sets].data());
    }
    const Row& row = rows[r];
    const ImportedJob& job = jobs_[row.job];
    AppendTime(out, row.submit_us);
    out.push_back(',');
    out += owners_[job.owner];
    out.push_back(',');
    out += pod_sets_[job.pod_sets];
    out.push_back(',');
    AppendTime(out, row.duration_us);
    out.push_back(',');
    out += job.name;
    if (any_affinity) {
      out.push_back(',');
      out += affinities_[job.affinity];
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace qm::sim::internal
