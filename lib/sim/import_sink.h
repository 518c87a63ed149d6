// Where the importers put the jobs they read (private to lib/sim, trace_import.h). The trace's time
// 0 and its end are known only once every row has been read, so jobs are collected first and
// written by `Finish`: submit times relative to the earliest submit, run times of jobs still running
// cut at the trace's end, jobs in submit order.
#ifndef QM_LIB_SIM_IMPORT_SINK_H_
#define QM_LIB_SIM_IMPORT_SINK_H_

#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qm/sim/trace_import.h"
#include "sim/interned_texts.h"

namespace qm::sim::internal {

/// "No time": a value the input left empty.
inline constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

/// A job as read, in the input's clock (microseconds).
struct ImportedJob {
  int64_t submit_us = 0;
  int64_t run_us = 0;  ///< run time of the job's runs that ended
  /// With `open_run`: the start of a run the input gives no end for; it lasts until the trace's
  /// end. With `ends_with_trace`: the end of the job's run; the job is still running when that is
  /// the trace's end (openb writes the trace's end as a Running pod's deletion time).
  int64_t mark_us = kNoTime;
  bool open_run = false;
  bool ends_with_trace = false;
  bool fractional = false;  ///< asks for a fraction of a GPU
  uint32_t owner = 0;       ///< from `ImportSink::Owner`
  uint32_t pod_sets = 0;    ///< from `ImportSink::PodSets`
  uint32_t affinity = 0;    ///< from `ImportSink::Affinity`; 0: no constraint
  uint32_t input = 0;       ///< the input it came from, and its line there
  int64_t line = 0;
  std::string_view name;    ///< made stable by `ImportSink::Add`
  uint64_t name_hash = 0;   ///< set by `ImportSink::Add`, while the name is in the cache (unless
                            ///< `NamesAreUnique`: then nothing needs it)
};

class ImportSink {
 public:
  ImportSink(std::span<const ImportInput> inputs, const TraceImportOptions& options, TraceImportSummary* summary);
  ImportSink(const ImportSink&) = delete;
  ImportSink& operator=(const ImportSink&) = delete;

  const TraceImportOptions& options() const { return options_; }
  TraceImportSummary& summary() { return *summary_; }
  const std::string& file(uint32_t input) const { return inputs_[input].name; }

  /// Every row's submit time, written or skipped: the earliest is the trace's time 0, so that
  /// imports with different options share one time axis. `text` is the value as written.
  void SeeSubmit(int64_t us, std::string_view text, uint32_t input, int64_t line);
  /// Every other time in the input: the latest (or latest submit) is the trace's end.
  void SeeTime(int64_t us, std::string_view text);
  /// openb: a pod never scheduled, deleted at `deleted_us` (kNoTime: not deleted). It was
  /// cancelled while pending when that is before the trace's end, else it never got scheduled.
  void SkipPending(int64_t deleted_us) { pending_deletions_.push_back(deleted_us); }

  /// Sets `job`'s run: from `start` to `end`, or, with no end, from `start` until the trace's end.
  /// False, with the row counted as `end before start`, when `end` comes before `start`.
  bool SetRun(ImportedJob& job, int64_t start, std::optional<int64_t> end);

  /// The id of owner `name`, checked as a team or namespace name (the error names `column`).
  absl::StatusOr<uint32_t> Owner(std::string_view name, uint32_t input, int64_t line, std::string_view column);
  /// The id of a `pod_sets` value.
  uint32_t PodSets(std::string_view text) { return pod_sets_.Intern(text); }
  /// The id of a `node_affinity` value (not empty).
  uint32_t Affinity(std::string_view text) { return affinities_.Intern(text); }
  /// A copy of `s` that lives as long as the sink (for names the input does not hold as such).
  std::string_view Keep(std::string_view s) { return kept_.emplace_back(s); }
  /// `s` itself when it lies in input `input`'s text, else a kept copy: values unescaped by the
  /// CSV or JSON reader live in its buffer only until it reads on.
  std::string_view Stable(std::string_view s, uint32_t input);

  /// Adds a job named `job.name`; an error when the name is not a valid job name (`name_column` is
  /// where it came from). `Finish` checks that names do not repeat.
  absl::Status Add(const ImportedJob& job, std::string_view name_column);
  /// The importer has made sure that no two jobs it adds have one name (PAI checks every row of its
  /// job table), so `Finish` need not check again.
  void NamesAreUnique() { names_unique_ = true; }
  /// Makes room for about `jobs` jobs (the importers estimate them from the input's size), so that
  /// a large import does not grow its tables step by step.
  void Reserve(size_t jobs);

  /// The trace CSV; completes the summary (time origin and end, jobs written, adjustments). An
  /// error when two jobs have one name (the reader would refuse the trace; here the message can
  /// name the input's lines).
  absl::StatusOr<std::string> Finish();

 private:
  absl::Status CheckNamesUnique() const;

  std::span<const ImportInput> inputs_;
  const TraceImportOptions& options_;
  TraceImportSummary* summary_;
  std::vector<ImportedJob> jobs_;  // in input order
  std::string name_column_;  // where job names come from, for messages (one column per format)
  std::vector<int64_t> pending_deletions_;
  InternedTexts owners_, pod_sets_, affinities_;
  bool names_unique_ = false;
  std::deque<std::string> kept_;
  int64_t origin_us_ = std::numeric_limits<int64_t>::max();
  int64_t end_us_ = std::numeric_limits<int64_t>::min();
  std::string origin_text_, end_text_;
  uint32_t origin_input_ = 0;
  int64_t origin_line_ = 0;
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_IMPORT_SINK_H_
