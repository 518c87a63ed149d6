// Alibaba PAI's trace (clusterdata cluster-trace-gpu-v2020; docs/trace-import.md §PAI): a job table,
// a task table (each task a pod set of `inst_num` instances), optionally the machine table (nodes)
// and the group-tag table (GPU-model constraints). The published tables have no header line: their
// columns come in `.header` files. A table is recognised by a header line, if it has one, or by its
// file name.
//
//   pai_job_table:  job_name,inst_id,user,status,start_time,end_time
//   pai_task_table: job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type
//   pai_machine_spec: machine,gpu_type,cap_cpu,cap_mem,cap_gpu
//   pai_group_tag_table: inst_id,user,gpu_type_spec,group,workload
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/sim/trace.h"
#include "sim/import_fields.h"
#include "sim/import_formats.h"
#include "sim/import_pods.h"
#include "sim/name_index.h"
#include "sim/trace_text.h"

namespace qm::sim::internal {
namespace {

enum class Table { kJob, kTask, kMachine, kGroupTag };

struct TableSpec {
  Table table;
  std::string_view file_hint;  // in the published file names: pai_job_table.csv, ...
  std::string_view key_column;  // a column only this table's header has
  std::span<const std::string_view> columns;
};

constexpr std::string_view kJobColumns[] = {"job_name", "inst_id", "user", "status", "start_time", "end_time"};
constexpr std::string_view kTaskColumns[] = {"job_name", "task_name", "inst_num", "status", "start_time",
                                             "end_time", "plan_cpu", "plan_mem", "plan_gpu", "gpu_type"};
constexpr std::string_view kMachineColumns[] = {"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"};
constexpr std::string_view kGroupTagColumns[] = {"inst_id", "user", "gpu_type_spec", "group", "workload"};
constexpr TableSpec kTables[] = {
    {Table::kJob, "job_table", "inst_id", kJobColumns},
    {Table::kTask, "task_table", "task_name", kTaskColumns},
    {Table::kMachine, "machine_spec", "cap_gpu", kMachineColumns},
    {Table::kGroupTag, "group_tag", "gpu_type_spec", kGroupTagColumns},
};

// PAI writes 0 for a time it does not have (the trace's analysis reads start_time 0 as NaN):
// kNoTime for both that and an empty value.
int64_t TimeOrNone(std::optional<int64_t> t) { return t && *t != 0 ? *t : kNoTime; }

// GiB (the tables' "GB": plan_mem 29.296875 is 30000 MiB) to bytes, rounded up to a whole MiB.
absl::StatusOr<int64_t> GibibytesColumn(const CsvTable& t, int column) {
  QM_ASSIGN_OR_RETURN(const int64_t micro_gib, t.Scaled(column, 6));
  const int64_t mib = (micro_gib * 1024 + 999'999) / 1'000'000;
  return mib << 20;
}

enum class JobStatus { kTerminated, kFailed, kRunning, kWaiting };

std::optional<JobStatus> ParseStatus(std::string_view v) {
  if (v == "Terminated") return JobStatus::kTerminated;
  if (v == "Failed") return JobStatus::kFailed;
  if (v == "Running") return JobStatus::kRunning;
  if (v == "Waiting") return JobStatus::kWaiting;
  return std::nullopt;
}

// Kept small (10⁶ of each): times as kNoTime when missing, the owner resolved when read. The
// name is in `PaiImporter::job_names_`, at the job's index.
struct PaiJob {
  std::string_view inst_id;
  int64_t submit_us = kNoTime;
  int64_t line = 0;
  uint32_t input = 0;
  uint32_t owner = 0;
  bool has_owner = false;
  JobStatus status = JobStatus::kWaiting;
};

struct PaiTask {
  std::string_view name;
  PodRequest request;
  int64_t start_us = kNoTime, end_us = kNoTime;
  int32_t count = 0;
  uint32_t job = NameIndex::kNotFound;  // set by `JoinTasks`; kNotFound: no such job
  // Whether `name` is a valid pod-set name: checked when read, while it is in the cache (tasks are
  // used in job order, which is not the file's).
  bool name_valid = false;
};

class PaiImporter {
 public:
  PaiImporter(ImportSink& sink, NodeYaml& nodes) : sink_(sink), nodes_(nodes), pods_(sink.options().gpu_resource) {}

  absl::Status Run(std::span<const ImportInput> inputs) {
    std::vector<std::unique_ptr<CsvTable>> tables[4];
    for (uint32_t i = 0; i < inputs.size(); ++i) {
      auto t = std::make_unique<CsvTable>(inputs[i], i);
      if (!t->ReadFirst()) return t->status();
      QM_ASSIGN_OR_RETURN(const Table kind, Recognise(*t));
      tables[static_cast<int>(kind)].push_back(std::move(t));
    }
    if (tables[static_cast<int>(Table::kJob)].empty() || tables[static_cast<int>(Table::kTask)].empty()) {
      return absl::InvalidArgumentError("pai2020: give both pai_job_table.csv and pai_task_table.csv");
    }
    // Jobs first (tasks join them by name), group tags before the jobs are written.
    for (auto& t : tables[static_cast<int>(Table::kJob)]) {
      const size_t rows = inputs[t->input_index()].content().size() / 96;  // a job row is 100 bytes or more
      sink_.Reserve(rows);
      jobs_.reserve(jobs_.size() + rows);
      job_names_.Reserve(jobs_.size() + rows);
      if (absl::Status s = ReadJobs(*t); !s.ok()) {
        // A name repeated before the bad row was the first error in the input.
        QM_RETURN_IF_ERROR(RepeatedJobError());
        return s;
      }
    }
    QM_RETURN_IF_ERROR(RepeatedJobError());
    for (auto& t : tables[static_cast<int>(Table::kGroupTag)]) QM_RETURN_IF_ERROR(ReadGroupTags(*t));
    for (auto& t : tables[static_cast<int>(Table::kTask)]) {
      const size_t rows = inputs[t->input_index()].content().size() / 64;  // 70 bytes or more a row
      tasks_.reserve(tasks_.size() + rows);
      task_jobs_.reserve(task_jobs_.size() + rows);
      QM_RETURN_IF_ERROR(ReadTasks(*t));
    }
    JoinTasks();
    for (auto& t : tables[static_cast<int>(Table::kMachine)]) QM_RETURN_IF_ERROR(ReadMachines(*t));
    sink_.NamesAreUnique();  // `RepeatedJobError` found no repeat among all the job rows
    return AddJobs();
  }

 private:
  // Which table `t` is: by its header line, else by its file name (then it has no header).
  static absl::StatusOr<Table> Recognise(CsvTable& t) {
    for (const TableSpec& spec : kTables) {
      for (const std::string& h : t.first()) {
        if (h == spec.key_column) {
          t.UseFirstAsHeader();
          return spec.table;
        }
      }
    }
    for (const TableSpec& spec : kTables) {
      if (t.file().find(spec.file_hint) != std::string::npos) {
        t.UseColumns(spec.columns);
        return spec.table;
      }
    }
    return ImportError(t.file(), t.first_line(), "",
                       "not a PAI table: give it its header line (from pai_job_table.header, ...) or keep its "
                       "published name (pai_job_table.csv, pai_task_table.csv, pai_machine_spec.csv, "
                       "pai_group_tag_table.csv)");
  }

  absl::Status ReadJobs(CsvTable& t) {
    QM_ASSIGN_OR_RETURN(const int name_col, t.Require("job_name"));
    QM_ASSIGN_OR_RETURN(const int inst_col, t.Require("inst_id"));
    QM_ASSIGN_OR_RETURN(const int user_col, t.Require("user"));
    QM_ASSIGN_OR_RETURN(const int status_col, t.Require("status"));
    QM_ASSIGN_OR_RETURN(const int start_col, t.Require("start_time"));
    QM_ASSIGN_OR_RETURN(const int end_col, t.Require("end_time"));
    while (t.Next()) {
      ++sink_.summary().rows;
      PaiJob job;
      // Kept as views: of the input, or copies when the CSV reader unescaped them.
      const std::string_view name = sink_.Stable(t[name_col], t.input_index());
      job.inst_id = sink_.Stable(t[inst_col], t.input_index());
      QM_ASSIGN_OR_RETURN(job.has_owner, ResolveOwner(sink_, t[user_col], t.input_index(), t.line(), "user", &job.owner));
      const std::optional<JobStatus> status = ParseStatus(t[status_col]);
      if (!status) {
        return t.Error(status_col, fmt::format("{} is not Terminated, Failed, Running or Waiting", QuoteValue(t[status_col])));
      }
      job.status = *status;
      // The job table's start_time is when the job was submitted; its end_time when it finished.
      QM_ASSIGN_OR_RETURN(const std::optional<int64_t> submitted, t.Seconds(start_col));
      QM_ASSIGN_OR_RETURN(const std::optional<int64_t> ended, t.Seconds(end_col));
      job.submit_us = TimeOrNone(submitted);
      if (const int64_t end = TimeOrNone(ended); end != kNoTime) sink_.SeeTime(end, t[end_col]);
      if (job.submit_us != kNoTime) sink_.SeeSubmit(job.submit_us, t[start_col], t.input_index(), t.line());
      job.input = t.input_index();
      job.line = t.line();
      if (IsMissing(name)) return t.Error(name_col, "missing: every job needs its name");
      // Repeated names are looked for once every job is read (`RepeatedJobError`).
      job_names_.Add(name);
      jobs_.push_back(job);
    }
    return t.status();
  }

  // The first job row whose name an earlier row has, as an error naming both rows.
  absl::Status RepeatedJobError() {
    const std::optional<NameRepeat> repeat = job_names_.FirstRepeat();
    if (!repeat) return absl::OkStatus();
    const PaiJob& first = jobs_[repeat->first];
    const PaiJob& second = jobs_[repeat->second];
    return ImportError(sink_.file(second.input), second.line, "job_name",
                       fmt::format("job {} appears twice (first at {}:{})", QuoteValue(job_names_.name(repeat->second)),
                                   sink_.file(first.input), first.line));
  }

  absl::Status ReadGroupTags(CsvTable& t) {
    QM_ASSIGN_OR_RETURN(const int inst_col, t.Require("inst_id"));
    QM_ASSIGN_OR_RETURN(const int spec_col, t.Require("gpu_type_spec"));
    while (t.Next()) {
      const std::string_view spec = t[spec_col];
      if (IsMissing(spec)) continue;
      // Checked here, where the line is known; the first row of an instance wins.
      QM_RETURN_IF_ERROR(ModelAffinity(sink_, spec, t.input_index(), t.line(), "gpu_type_spec", &scratch_));
      spec_of_.try_emplace(HashKey(sink_.Stable(t[inst_col], t.input_index())), sink_.Stable(spec, t.input_index()));
    }
    return t.status();
  }

  absl::Status ReadTasks(CsvTable& t) {
    QM_ASSIGN_OR_RETURN(const int job_col, t.Require("job_name"));
    QM_ASSIGN_OR_RETURN(const int name_col, t.Require("task_name"));
    QM_ASSIGN_OR_RETURN(const int count_col, t.Require("inst_num"));
    QM_ASSIGN_OR_RETURN(const int start_col, t.Require("start_time"));
    QM_ASSIGN_OR_RETURN(const int end_col, t.Require("end_time"));
    QM_ASSIGN_OR_RETURN(const int cpu_col, t.Require("plan_cpu"));
    QM_ASSIGN_OR_RETURN(const int mem_col, t.Require("plan_mem"));
    QM_ASSIGN_OR_RETURN(const int gpu_col, t.Require("plan_gpu"));
    while (t.Next()) {
      ++sink_.summary().task_rows;
      PaiTask task;
      task.name = sink_.Stable(t[name_col], t.input_index());
      task.name_valid = NameProblem(task.name, kMaxNameSize).empty();
      if (!IsMissing(t[count_col])) {
        QM_ASSIGN_OR_RETURN(const int64_t count, t.Integer(count_col, 0, kMaxTracePodCount));
        task.count = static_cast<int32_t>(count);
      }
      QM_ASSIGN_OR_RETURN(const std::optional<int64_t> start, t.Seconds(start_col));
      QM_ASSIGN_OR_RETURN(const std::optional<int64_t> end, t.Seconds(end_col));
      task.start_us = TimeOrNone(start);
      task.end_us = TimeOrNone(end);
      if (task.start_us != kNoTime) sink_.SeeTime(task.start_us, t[start_col]);
      if (task.end_us != kNoTime) sink_.SeeTime(task.end_us, t[end_col]);
      // Percent of a core is tenths of a millicore... of 1000: 600.0 is 6 cores, 6000m.
      QM_ASSIGN_OR_RETURN(task.request.cpu_milli, t.Scaled(cpu_col, 1));
      QM_ASSIGN_OR_RETURN(task.request.memory_bytes, GibibytesColumn(t, mem_col));
      QM_ASSIGN_OR_RETURN(task.request.gpu_milli, t.Scaled(gpu_col, 1));  // percent of a GPU: 50.0 is 500m
      task_jobs_.push_back(sink_.Stable(t[job_col], t.input_index()));
      tasks_.push_back(task);
    }
    return t.status();
  }

  absl::Status ReadMachines(CsvTable& t) {
    QM_ASSIGN_OR_RETURN(const int name_col, t.Require("machine"));
    QM_ASSIGN_OR_RETURN(const int type_col, t.Require("gpu_type"));
    QM_ASSIGN_OR_RETURN(const int cpu_col, t.Require("cap_cpu"));
    QM_ASSIGN_OR_RETURN(const int mem_col, t.Require("cap_mem"));
    QM_ASSIGN_OR_RETURN(const int gpu_col, t.Require("cap_gpu"));
    while (t.Next()) {
      ++sink_.summary().node_rows;
      QM_ASSIGN_OR_RETURN(const int64_t cpu_milli, t.Scaled(cpu_col, 3));
      QM_ASSIGN_OR_RETURN(const int64_t memory_bytes, GibibytesColumn(t, mem_col));
      QM_ASSIGN_OR_RETURN(const int64_t gpus, t.Integer(gpu_col, 0, 1'000'000));
      const std::string_view model = gpus == 0 || IsMissing(t[type_col]) ? std::string_view() : t[type_col];
      QM_RETURN_IF_ERROR(nodes_.Add({.name = t[name_col], .model = model, .cpu_milli = cpu_milli,
                                     .memory_bytes = memory_bytes, .gpus = gpus},
                                    t.file(), t.line(), "machine", "gpu_type"));
    }
    return t.status();
  }

  // Each task's job, by name; tasks of no job are counted and left out.
  void JoinTasks() {
    const std::vector<uint32_t> jobs = job_names_.Find(task_jobs_);
    for (size_t k = 0; k < tasks_.size(); ++k) {
      tasks_[k].job = jobs[k];
      if (jobs[k] == NameIndex::kNotFound) ++sink_.summary().orphan_tasks;
    }
    task_jobs_ = {};
  }

  // Tasks grouped by job, in file order within a job (a counting sort).
  void GroupTasks() {
    first_task_.assign(jobs_.size() + 1, 0);
    for (const PaiTask& task : tasks_) {
      if (task.job != NameIndex::kNotFound) ++first_task_[task.job + 1];
    }
    for (size_t j = 0; j < jobs_.size(); ++j) first_task_[j + 1] += first_task_[j];
    std::vector<uint32_t> next(first_task_.begin(), first_task_.end() - 1);
    order_.resize(first_task_.back());
    for (uint32_t k = 0; k < tasks_.size(); ++k) {
      if (tasks_[k].job != NameIndex::kNotFound) order_[next[tasks_[k].job]++] = k;
    }
  }

  // Task names become pod-set names when each is a valid name and no two are equal; else the
  // pod sets keep their default names (`main`, `ps<i>`).
  bool TaskNamesUsable(std::span<const uint32_t> tasks) const {
    for (size_t a = 0; a < tasks.size(); ++a) {
      if (!tasks_[tasks[a]].name_valid) return false;
      const std::string_view name = tasks_[tasks[a]].name;
      for (size_t b = 0; b < a; ++b) {
        if (tasks_[tasks[b]].name == name) return false;
      }
    }
    return true;
  }

  absl::Status AddJobs() {
    GroupTasks();
    TraceImportSummary& s = sink_.summary();
    std::vector<uint32_t> with_pods;
    // A job's tasks lie anywhere in the task table, and its name in the job table read long ago:
    // the tasks are fetched 8 jobs ahead, then their names (the pod sets' names) and the job's 4
    // ahead, when the tasks that point to them have arrived.
    constexpr uint32_t kTasksAhead = 8, kNamesAhead = 4;
    for (uint32_t j = 0; j < jobs_.size(); ++j) {
      if (j + kTasksAhead < jobs_.size()) {
        for (uint32_t k = first_task_[j + kTasksAhead]; k < first_task_[j + kTasksAhead + 1]; ++k) {
          __builtin_prefetch(&tasks_[order_[k]]);
        }
      }
      if (j + kNamesAhead < jobs_.size()) {
        __builtin_prefetch(job_names_.name(j + kNamesAhead).data());
        for (uint32_t k = first_task_[j + kNamesAhead]; k < first_task_[j + kNamesAhead + 1]; ++k) {
          __builtin_prefetch(tasks_[order_[k]].name.data());
        }
      }
      const PaiJob& p = jobs_[j];
      if (p.submit_us == kNoTime) {
        ++s.no_submit;
        continue;
      }
      if (!p.has_owner) {
        ++s.no_owner;
        continue;
      }
      with_pods.clear();
      int64_t start = kNoTime, end = kNoTime;
      bool open = false;
      for (uint32_t k = first_task_[j]; k < first_task_[j + 1]; ++k) {
        const PaiTask& task = tasks_[order_[k]];
        if (task.count > 0) with_pods.push_back(order_[k]);
        if (task.start_us == kNoTime) continue;
        if (start == kNoTime || task.start_us < start) start = task.start_us;
        if (task.end_us == kNoTime) {
          open = true;
        } else if (task.end_us > end) {
          end = task.end_us;
        }
      }
      if (with_pods.empty()) {
        ++s.no_pods;
        continue;
      }
      if (start == kNoTime) {
        const bool ended = p.status == JobStatus::kTerminated || p.status == JobStatus::kFailed;
        ++(ended ? s.cancelled_pending : s.never_scheduled);
        continue;
      }
      ImportedJob job;
      job.submit_us = p.submit_us;
      if (!sink_.SetRun(job, start, open ? std::nullopt : std::optional<int64_t>(end))) continue;
      if (with_pods.size() > kMaxTracePodSets) {
        ++s.too_many_pod_sets;
        continue;
      }
      const bool named = TaskNamesUsable(with_pods);
      pods_.Clear();
      for (const uint32_t k : with_pods) pods_.Add(named ? tasks_[k].name : "", tasks_[k].count, tasks_[k].request);
      if (sink_.options().gpu_only && !pods_.any_gpu()) {
        ++s.cpu_only;
        continue;
      }
      job.pod_sets = sink_.PodSets(pods_.text());
      job.fractional = pods_.fractional();
      // Without a group-tag table, no need to hash the 64-character instance ids.
      const auto spec = spec_of_.empty() ? spec_of_.end() : spec_of_.find(HashKey(p.inst_id));
      if (spec != spec_of_.end()) {
        QM_RETURN_IF_ERROR(ModelAffinity(sink_, spec->second, p.input, p.line, "gpu_type_spec", &scratch_));
        job.affinity = sink_.Affinity(scratch_);
      }
      job.owner = p.owner;
      job.input = p.input;
      job.line = p.line;
      job.name = job_names_.name(j);
      QM_RETURN_IF_ERROR(sink_.Add(job, "job_name"));
    }
    return absl::OkStatus();
  }

  ImportSink& sink_;
  NodeYaml& nodes_;
  PodSetsText pods_;
  std::vector<PaiJob> jobs_;
  NameIndex job_names_;  // jobs_[j]'s name is job_names_.name(j)
  std::vector<PaiTask> tasks_;
  std::vector<std::string_view> task_jobs_;  // tasks_[k]'s job_name, until `JoinTasks`
  std::vector<uint32_t> first_task_, order_;  // tasks_[order_[first_task_[j] ..]] are job j's
  absl::flat_hash_map<absl::string_view, std::string_view> spec_of_;  // inst_id → gpu_type_spec
  std::string scratch_;
};

}  // namespace

absl::Status ImportPai2020(std::span<const ImportInput> inputs, ImportSink& sink, NodeYaml& nodes) {
  PaiImporter importer(sink, nodes);
  return importer.Run(inputs);
}

}  // namespace qm::sim::internal
