// Microsoft's Philly trace (msr-fiddle/philly-traces; docs/trace-import.md §Philly): the job log,
// a JSON list of jobs with their scheduling attempts, and the machine list.
//
//   [{"status": "Pass", "vc": "ee9e8c", "jobid": "application_1506638472019_14199",
//     "submitted_time": "2017-10-07 01:11:39", "user": "ce2f4c",
//     "attempts": [{"start_time": "2017-10-07 01:13:30", "end_time": "2017-10-09 06:53:12",
//                   "detail": [{"ip": "m412", "gpus": ["gpu0", "gpu1"]}]}]}, ...]
//
//   m31,8, 24GB        (machine id, GPUs, memory of one GPU)
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "sim/import_fields.h"
#include "sim/import_formats.h"
#include "sim/import_json.h"
#include "sim/import_pods.h"
#include "sim/trace_text.h"

namespace qm::sim::internal {
namespace {

// One job of the log as read.
struct PhillyJob {
  std::string_view jobid, vc, status;
  bool has_jobid = false;
  int64_t submitted = kNoTime;  // as written: `LogReader::submitted_text_`
  bool any_attempt = false;
  bool any_start = false;      // some attempt has a start time
  bool any_run = false;        // some attempt ran: it ended after its start, or it is still open
  int64_t run_us = 0;          // the attempts that ended
  int64_t open_since = kNoTime;  // the last attempt, which has no end
};

class LogReader {
 public:
  LogReader(const ImportInput& input, uint32_t index, ImportSink& sink)
      : input_(input), index_(index), sink_(sink), json_(input.content()) {}

  absl::Status Read() {
    if (!json_.BeginList()) return JsonError("");
    while (json_.NextItem()) {
      ++sink_.summary().rows;
      json_.Peek();  // to the job's '{', so that `line()` is its line
      const int64_t line = json_.line();
      QM_RETURN_IF_ERROR(ReadJob(line));
    }
    if (json_.failed() || !json_.AtEnd()) return JsonError("");
    return absl::OkStatus();
  }

 private:
  absl::Status JsonError(std::string_view key) {
    return ImportError(input_.name, json_.error_line(), key, json_.error());
  }
  absl::Status Error(int64_t line, std::string_view key, std::string_view message) {
    return ImportError(input_.name, line, key, message);
  }

  // A string that outlives the reader's next call: escaped strings live in the reader's buffer.
  std::string_view Persist(std::string_view s) { return sink_.Stable(s, index_); }

  // A time value: a date and time, or null/"None"/"" for none (kNoTime).
  absl::Status ReadTime(std::string_view key, int64_t* out, std::string* text = nullptr) {
    std::string_view v;
    bool is_null = false;
    if (!json_.ReadStringOrNull(&v, &is_null)) return JsonError(key);
    *out = kNoTime;
    if (is_null || IsMissing(v)) return absl::OkStatus();
    const std::optional<int64_t> s = parse_date_time_(v);
    if (!s) {
      return Error(json_.line(), key, fmt::format("{} is not a date and time (YYYY-MM-DD HH:MM:SS)", QuoteValue(v)));
    }
    *out = *s * 1'000'000;
    sink_.SeeTime(*out, v);
    if (text != nullptr) text->assign(v);
    return absl::OkStatus();
  }

  absl::Status ReadString(std::string_view key, std::string_view* out) {
    bool is_null = false;
    if (!json_.ReadStringOrNull(out, &is_null)) return JsonError(key);
    if (is_null) *out = {};
    *out = Persist(*out);
    return absl::OkStatus();
  }

  // Each machine's GPU count, from an attempt's `detail`.
  absl::Status ReadDetail(std::vector<int64_t>* gpus) {
    gpus->clear();
    if (!json_.BeginList()) return JsonError("detail");
    while (json_.NextItem()) {
      if (!json_.BeginObject()) return JsonError("detail");
      int64_t count = 0;
      std::string_view key;
      while (json_.NextMember(&key)) {
        if (key == "gpus") {
          if (int64_t n = 0; json_.TrySkipPlainStringList(&n)) {  // the common case, read at once
            count += n;
            continue;
          }
          if (!json_.BeginList()) return JsonError("gpus");
          while (json_.NextItem()) {
            if (!json_.Skip()) return JsonError("gpus");
            ++count;
          }
        } else if (!json_.Skip()) {
          return JsonError("detail");
        }
      }
      if (json_.failed()) return JsonError("detail");
      gpus->push_back(count);
    }
    if (json_.failed()) return JsonError("detail");
    return absl::OkStatus();
  }

  absl::Status ReadAttempts(PhillyJob& job) {
    if (!json_.BeginList()) return JsonError("attempts");
    bool previous_open = false;
    while (json_.NextItem()) {
      job.any_attempt = true;
      if (!json_.BeginObject()) return JsonError("attempts");
      int64_t start = kNoTime, end = kNoTime;
      std::string_view key;
      while (json_.NextMember(&key)) {
        if (key == "start_time") {
          QM_RETURN_IF_ERROR(ReadTime("start_time", &start));
        } else if (key == "end_time") {
          QM_RETURN_IF_ERROR(ReadTime("end_time", &end));
        } else if (key == "detail") {
          QM_RETURN_IF_ERROR(ReadDetail(&detail_));
        } else if (!json_.Skip()) {
          return JsonError("attempts");
        }
      }
      if (json_.failed()) return JsonError("attempts");
      // Only the last attempt may lack an end (the job was running when the log was taken); an
      // earlier one without an end, or one without a start, is a logging error and is ignored.
      if (previous_open) {
        ++sink_.summary().ignored_attempts;
        previous_open = false;
      }
      if (start == kNoTime) {
        ++sink_.summary().ignored_attempts;
        continue;
      }
      if (!job.any_start) {
        job.any_start = true;
        first_gpus_ = detail_;
      }
      if (end == kNoTime) {
        previous_open = true;
        job.open_since = start;
        continue;
      }
      if (end < start) {
        ++sink_.summary().ignored_attempts;
        continue;
      }
      job.run_us += end - start;
      job.any_run = true;
    }
    if (json_.failed()) return JsonError("attempts");
    if (previous_open) {
      job.any_run = true;
    } else {
      job.open_since = kNoTime;
    }
    return absl::OkStatus();
  }

  absl::Status ReadJob(int64_t line) {
    PhillyJob job;
    first_gpus_.clear();
    if (!json_.BeginObject()) return JsonError("");
    std::string_view key;
    while (json_.NextMember(&key)) {
      if (key == "jobid") {
        QM_RETURN_IF_ERROR(ReadString("jobid", &job.jobid));
        job.has_jobid = !job.jobid.empty();
      } else if (key == "vc") {
        QM_RETURN_IF_ERROR(ReadString("vc", &job.vc));
      } else if (key == "status") {
        QM_RETURN_IF_ERROR(ReadString("status", &job.status));
      } else if (key == "submitted_time") {
        QM_RETURN_IF_ERROR(ReadTime("submitted_time", &job.submitted, &submitted_text_));
      } else if (key == "attempts") {
        QM_RETURN_IF_ERROR(ReadAttempts(job));
      } else if (!json_.Skip()) {
        return JsonError(key);
      }
    }
    if (json_.failed()) return JsonError("");
    if (!job.has_jobid) return Error(line, "jobid", "missing: every job needs its id");
    return AddJob(job, line);
  }

  absl::Status AddJob(const PhillyJob& p, int64_t line) {
    TraceImportSummary& s = sink_.summary();
    if (p.submitted == kNoTime) {
      ++s.no_submit;
      return absl::OkStatus();
    }
    sink_.SeeSubmit(p.submitted, submitted_text_, index_, line);
    uint32_t owner = 0;
    QM_ASSIGN_OR_RETURN(const bool has_owner, ResolveOwner(sink_, p.vc, index_, line, "vc", &owner));
    if (!has_owner) {
      ++s.no_owner;
      return absl::OkStatus();
    }
    if (!p.any_attempt) {
      ++(p.status == "Killed" ? s.cancelled_pending : s.never_scheduled);
      return absl::OkStatus();
    }
    if (!p.any_start) {
      ++s.no_run_times;
      return absl::OkStatus();
    }
    if (!p.any_run) {
      ++s.end_before_start;
      return absl::OkStatus();
    }
    if (first_gpus_.empty()) {
      ++s.no_pods;
      return absl::OkStatus();
    }
    // One pod per machine; machines with as many GPUs form one pod set, larger pods first.
    sorted_ = first_gpus_;
    std::sort(sorted_.begin(), sorted_.end(), std::greater<>());
    if (sink_.options().gpu_only && sorted_.front() == 0) {
      ++s.cpu_only;
      return absl::OkStatus();
    }
    ImportedJob job;
    job.pod_sets = PodSetsOf(sorted_);
    job.submit_us = p.submitted;
    job.run_us = p.run_us;
    if (p.open_since != kNoTime) {
      job.open_run = true;
      job.mark_us = p.open_since;
    }
    job.owner = owner;
    job.input = index_;
    job.line = line;
    job.name = p.jobid;
    return sink_.Add(job, "jobid");
  }

  // The pod sets of machines with `gpus` GPUs each, largest first: one pod per machine; machines
  // with as many GPUs form one pod set. Jobs come in a few shapes (one machine of 1 to 8 GPUs,
  // n machines of 8), so each shape's text is made and interned once.
  uint32_t PodSetsOf(const std::vector<int64_t>& gpus) {
    if (const auto it = pod_sets_of_.find(gpus); it != pod_sets_of_.end()) return it->second;
    pods_.Clear();
    for (size_t i = 0; i < gpus.size();) {
      size_t j = i + 1;
      while (j < gpus.size() && gpus[j] == gpus[i]) ++j;
      pods_.Add("", static_cast<int64_t>(j - i), {.gpu_milli = gpus[i] * 1000});
      i = j;
    }
    const uint32_t id = sink_.PodSets(pods_.text());
    pod_sets_of_.emplace(gpus, id);
    return id;
  }

  const ImportInput& input_;
  uint32_t index_;
  ImportSink& sink_;
  JsonReader json_;
  PodSetsText pods_{sink_.options().gpu_resource};
  // Scratch, reused across jobs: the machines' GPUs of the attempt being read, of the job's first
  // attempt with a start time (its pods), and the latter sorted.
  std::vector<int64_t> detail_, first_gpus_, sorted_;
  std::string submitted_text_;  // the job's submit time as written (a string per job was a malloc)
  DateTimeParser parse_date_time_;
  absl::flat_hash_map<std::vector<int64_t>, uint32_t> pod_sets_of_;  // for lookups only
};

// `cluster_machine_list`: machine id, number of GPUs, memory of one GPU; with or without a header.
absl::Status ReadMachines(CsvTable& t, ImportSink& sink, NodeYaml& nodes) {
  constexpr std::string_view kColumns[] = {"machineId", "number of GPUs", "single GPU mem"};
  if (t.first().size() != 3) {
    return ImportError(t.file(), t.first_line(), "",
                       "not a Philly job log (a JSON list) or machine list (machineId, number of GPUs, single GPU mem)");
  }
  const bool header = !ParseInteger(t.first()[1]).has_value();
  if (header) {
    t.UseFirstAsHeader();
  } else {
    t.UseColumns(kColumns);
  }
  while (t.Next()) {
    ++sink.summary().node_rows;
    QM_ASSIGN_OR_RETURN(const int64_t gpus, t.Integer(1, 0, 1'000'000));
    // The GPU memory (" 24GB") stands for the model: the trace names no model.
    std::string model;
    for (const char c : t[2]) {
      if (c != ' ') model.push_back(c);
    }
    QM_RETURN_IF_ERROR(nodes.Add({.name = t[0], .model = model, .gpus = gpus}, t.file(), t.line(),
                                 header ? std::string_view(t.first()[0]) : kColumns[0],
                                 header ? std::string_view(t.first()[2]) : kColumns[2]));
  }
  return t.status();
}

}  // namespace

absl::Status ImportPhilly(std::span<const ImportInput> inputs, ImportSink& sink, NodeYaml& nodes) {
  for (uint32_t i = 0; i < inputs.size(); ++i) {
    const std::string_view text = inputs[i].content();
    const size_t first = text.find_first_not_of(" \t\r\n", text.starts_with("\xEF\xBB\xBF") ? 3 : 0);
    if (first != std::string_view::npos && text[first] == '[') {
      sink.Reserve(text.size() / 256);  // a job is 300 bytes of JSON or more
      LogReader reader(inputs[i], i, sink);
      QM_RETURN_IF_ERROR(reader.Read());
      continue;
    }
    CsvTable t(inputs[i], i);
    if (!t.ReadFirst()) return t.status();
    QM_RETURN_IF_ERROR(ReadMachines(t, sink, nodes));
  }
  return absl::OkStatus();
}

}  // namespace qm::sim::internal
