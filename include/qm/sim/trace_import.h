// Importing public GPU-cluster traces as simulator traces (docs/trace-import.md): Alibaba's openb
// pod and node lists (cluster-trace-gpu-v2023), Alibaba PAI's job and task tables
// (cluster-trace-gpu-v2020), Microsoft Philly's job log and SenseTime Helios' job log. The result
// is our trace CSV (docs/trace-format.md) and, for formats that list machines, Kubernetes `Node`
// objects labelled with their GPU model.
//
//   std::vector<std::string> paths = {"openb_pod_list_default.csv", "openb_node_list_all_node.csv"};
//   QM_ASSIGN_OR_RETURN(qm::sim::ImportedTrace t,
//                       qm::sim::ImportTraceFiles(qm::sim::TraceFormat::kOpenb, paths, {}));
//   // t.trace_csv, t.nodes_yaml, FormatTraceImportSummary(t.summary)
//
// Rows that never ran (pending, cancelled while pending), rows still running at the trace's end and
// rows with unusable times are handled by fixed, documented rules and counted in the summary.
// Malformed values are errors naming the file, line and column, and then nothing is produced:
// `pods.csv:14: cpu_milli: "abc" is not an integer`.
#ifndef QM_SIM_TRACE_IMPORT_H_
#define QM_SIM_TRACE_IMPORT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace qm::sim {

/// The trace formats `qm trace import --format` reads.
enum class TraceFormat {
  kOpenb,    ///< "openb": Alibaba cluster-trace-gpu-v2023 pod list and node list CSVs
  kPai2020,  ///< "pai2020": Alibaba cluster-trace-gpu-v2020 job, task, machine and group-tag tables
  kPhilly,   ///< "philly": Microsoft Philly `cluster_job_log` (JSON) and `cluster_machine_list`
  kHelios,   ///< "helios": SenseTime Helios `cluster_log.csv`
};

/// The format named `name` ("openb", "pai2020", "philly", "helios"), or nullopt.
std::optional<TraceFormat> ParseTraceFormat(std::string_view name);
/// The name `ParseTraceFormat` reads.
std::string_view TraceFormatName(TraceFormat format);

/// One input file: the name used in messages, and its whole content. Callers that build inputs in
/// memory fill `text` (`{"pods.csv", text}`, as before). An input may instead borrow its bytes:
/// `ImportTraceFiles` maps each regular file read-only rather than reading it into a string (a
/// fresh 200 MB string costs its zeroing, its page faults and a copy before any row is read), and
/// sets `borrowed` to the mapping and `owner` to what unmaps it. `content()` is what the importers
/// read: `borrowed` when it points somewhere, else `text`. Copies share the owner, so they stay
/// valid; `borrowed` must not point into the same input's `text`, which a copy would not follow.
struct ImportInput {
  std::string name;
  std::string text;
  std::string_view borrowed = {};
  std::shared_ptr<const void> owner = {};

  std::string_view content() const { return borrowed.data() != nullptr ? borrowed : std::string_view(text); }
};

/// Choices of the import; the defaults are what docs/trace-import.md describes.
struct TraceImportOptions {
  /// The extended resource GPUs are requested and offered as.
  std::string gpu_resource = "nvidia.com/gpu";
  /// The node label that carries the GPU model, on nodes and in `node_affinity`.
  std::string model_label = "nvidia.com/gpu.product";
  /// Whether owners (openb: none; PAI: user; Philly, Helios: virtual cluster) are written as
  /// HyperPod teams (`team`) or as namespaces (`namespace`).
  bool owner_as_namespace = false;
  /// Every job's team or namespace, instead of the trace's owner column ("": the trace's; openb,
  /// which has no owner column, then uses `default`).
  std::string owner;
  /// Jobs still running when the trace ends are kept with their run time cut at the trace's end
  /// (true) or skipped (false). Counted either way.
  bool keep_running = true;
  /// Skip jobs that request no GPU (counted).
  bool gpu_only = false;
};

/// What an import read, wrote, skipped and adjusted. Every row is counted once: `rows` equals
/// `jobs` plus the skipped counts.
struct TraceImportSummary {
  int64_t rows = 0;        ///< job rows read (openb pods, PAI jobs, Philly jobs, Helios jobs)
  int64_t task_rows = 0;   ///< PAI task rows read
  int64_t node_rows = 0;   ///< machine rows read
  int64_t jobs = 0;        ///< jobs written
  int64_t nodes = 0;       ///< nodes written
  // Skipped rows, by reason.
  int64_t never_scheduled = 0;    ///< never started, still waiting at the trace's end (or status says so)
  int64_t cancelled_pending = 0;  ///< ended (cancelled, killed, failed) before they started
  int64_t running_skipped = 0;    ///< still running at the trace's end, with `keep_running` false
  int64_t end_before_start = 0;   ///< a run that ends before it starts
  int64_t no_run_times = 0;       ///< Philly: attempts, but none with a usable start time
  int64_t no_submit = 0;          ///< no submit time
  int64_t no_owner = 0;           ///< no user or virtual cluster
  int64_t no_pods = 0;            ///< no pods (PAI: no task with instances; Philly: no machine)
  int64_t too_many_pod_sets = 0;  ///< more pod sets than a job may have (18)
  int64_t cpu_only = 0;           ///< no GPU, with `gpu_only`
  // Written, with a note.
  int64_t running_kept = 0;       ///< still running at the trace's end: run time cut there
  int64_t zero_run = 0;           ///< ran 0 s: written as 1 s (a trace job runs for a positive time)
  int64_t fractional_gpu = 0;     ///< ask for a fraction of a GPU: read with `--round-fractional up`
  int64_t constrained = 0;        ///< carry a GPU-model constraint (`node_affinity`)
  // Other counts.
  int64_t orphan_tasks = 0;       ///< PAI task rows whose job is not in the job table (ignored)
  int64_t ignored_attempts = 0;   ///< Philly attempts without a start, or with an end before it
  std::string origin;             ///< the earliest submit, as the input wrote it, and where
  std::string trace_end;          ///< the latest time in the input, as the input wrote it
};

/// The import's products.
struct ImportedTrace {
  std::string trace_csv;   ///< the trace (docs/trace-format.md), jobs in submit order
  std::string nodes_yaml;  ///< `Node` objects, one YAML document each; empty without a node list
  TraceImportSummary summary;
};

/// Imports `inputs` (each recognised by its header or, for headerless PAI tables, its file name).
/// InvalidArgument `file:line: column: message` on malformed input.
absl::StatusOr<ImportedTrace> ImportTrace(TraceFormat format, std::span<const ImportInput> inputs,
                                          const TraceImportOptions& options);
/// Reads the files, then imports them; NotFound when a file cannot be read. Regular files are mapped
/// (they must not shrink during the call); pipes and other files that cannot be mapped, such as
/// /dev/stdin, are read to their end.
absl::StatusOr<ImportedTrace> ImportTraceFiles(TraceFormat format, std::span<const std::string> paths,
                                               const TraceImportOptions& options);

/// The summary as `qm trace import` prints it on stderr: counts that are zero are left out.
std::string FormatTraceImportSummary(TraceFormat format, const TraceImportSummary& summary);

}  // namespace qm::sim

#endif  // QM_SIM_TRACE_IMPORT_H_
