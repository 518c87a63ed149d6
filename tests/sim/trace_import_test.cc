// Importing public GPU-cluster traces (qm/sim/trace_import.h): each format's hand-written sample
// (tests/sim/data/import/<format>/) against its hand-computed trace and nodes, the counts of every
// skip rule, the options, and that the traces read back.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "qm/sim/trace.h"
#include "qm/sim/trace_import.h"
#include "sim/import_test_support.h"

namespace qm::sim {
namespace trace_import_test {
namespace {

using test::Import;
using test::ReadImportFile;
using test::Samples;

TEST_CASE("trace import: openb pod and node lists", "[sim][import]") {
  // Setup: 13 pods (time 0 is pod 0000's creation at 50; the trace ends at 1000, the latest
  // deletion), 4 nodes. Expect: expected.csv and expected-nodes.yaml, worked out by hand.
  const ImportedTrace t = Import(TraceFormat::kOpenb, Samples("openb", {"pods.csv", "nodes.csv"}));
  CHECK(t.trace_csv == ReadImportFile("openb", "expected.csv"));
  CHECK(t.nodes_yaml == ReadImportFile("openb", "expected-nodes.yaml"));
  const TraceImportSummary& s = t.summary;
  CHECK(s.rows == 13);
  CHECK(s.node_rows == 4);
  CHECK(s.nodes == 4);
  CHECK(s.jobs == 9);
  CHECK(s.cancelled_pending == 1);  // 0000: deleted at 80, before the trace's end
  CHECK(s.never_scheduled == 1);    // 0007: still pending at the trace's end
  CHECK(s.end_before_start == 1);   // 0008: deleted at 175, scheduled at 181
  CHECK(s.no_submit == 1);          // 0012
  CHECK(s.running_kept == 3);       // 0002 and 0005 (deleted at the trace's end), 0010 (no deletion)
  CHECK(s.zero_run == 1);           // 0006
  CHECK(s.fractional_gpu == 3);     // 0002 (460m), 0009 (220m), 0011 (500m)
  CHECK(s.constrained == 3);        // 0003, 0004, 0010
  CHECK(s.rows == s.jobs + s.cancelled_pending + s.never_scheduled + s.end_before_start + s.no_submit);
  CHECK(s.origin == "50 (pods.csv:2)");
  CHECK(s.trace_end == "1000");
  CHECK(FormatTraceImportSummary(TraceFormat::kOpenb, s) ==
        "openb: read 13 pod rows, 4 node rows\n"
        "jobs written: 9\n"
        "  still running at the trace's end, run time cut there: 3\n"
        "  ran 0 s, written as 1 s: 1\n"
        "  ask for a fraction of a GPU: 3 (read the trace with --round-fractional up)\n"
        "  with a GPU-model constraint (node_affinity): 3\n"
        "rows skipped: 4\n"
        "  never scheduled: 1\n"
        "  cancelled while pending: 1\n"
        "  end before start: 1\n"
        "  no submit time: 1\n"
        "nodes: 4\n"
        "time 0: 50 (pods.csv:2); trace end: 1000\n");
}

TEST_CASE("trace import: PAI 2020 job, task, group-tag and machine tables", "[sim][import]") {
  // Setup: headerless job, task and group-tag tables (recognised by name), a machine table with
  // its header. Expect: expected.csv and expected-nodes.yaml, worked out by hand.
  const ImportedTrace t =
      Import(TraceFormat::kPai2020, Samples("pai", {"pai_machine_spec.csv", "pai_task_table.csv", "pai_job_table.csv",
                                                    "pai_group_tag_table.csv"}));
  CHECK(t.trace_csv == ReadImportFile("pai", "expected.csv"));
  CHECK(t.nodes_yaml == ReadImportFile("pai", "expected-nodes.yaml"));
  const TraceImportSummary& s = t.summary;
  CHECK(s.rows == 11);
  CHECK(s.task_rows == 12);
  CHECK(s.jobs == 5);
  CHECK(s.cancelled_pending == 1);  // j02: Failed, no task started
  CHECK(s.never_scheduled == 1);    // j03: Waiting
  CHECK(s.no_owner == 1);           // j06
  CHECK(s.no_pods == 1);            // j07: its only task has 0 instances
  CHECK(s.no_submit == 1);          // j08
  CHECK(s.end_before_start == 1);   // j09
  CHECK(s.running_kept == 1);       // j04: its task has no end time
  CHECK(s.zero_run == 1);           // j05
  CHECK(s.fractional_gpu == 2);     // j01 (workers at 50 %), j05
  CHECK(s.constrained == 1);        // j10: V100M32 from the group-tag table (its first row)
  CHECK(s.orphan_tasks == 1);       // j99
  CHECK(s.nodes == 3);
  CHECK(s.origin == "1000.0 (pai_job_table.csv:1)");
  CHECK(s.trace_end == "2100.0");
}

TEST_CASE("trace import: Philly job log and machine list", "[sim][import]") {
  // Setup: 12 jobs in JSON, some with several attempts; a headerless machine list. Expect:
  // expected.csv and expected-nodes.yaml, worked out by hand (run time = the attempts' run times
  // added; pods from the first attempt with a start time).
  const ImportedTrace t = Import(TraceFormat::kPhilly, Samples("philly", {"cluster_job_log", "cluster_machine_list"}));
  CHECK(t.trace_csv == ReadImportFile("philly", "expected.csv"));
  CHECK(t.nodes_yaml == ReadImportFile("philly", "expected-nodes.yaml"));
  const TraceImportSummary& s = t.summary;
  CHECK(s.rows == 12);
  CHECK(s.jobs == 5);
  CHECK(s.cancelled_pending == 1);  // 0000: Killed, no attempt
  CHECK(s.never_scheduled == 1);    // 0003: Failed, no attempt
  CHECK(s.no_owner == 1);           // 0005: vc null
  CHECK(s.no_submit == 1);          // 0006
  CHECK(s.no_run_times == 1);       // 0007: its attempt has no start
  CHECK(s.end_before_start == 1);   // 0009: its attempt ends before it starts
  CHECK(s.no_pods == 1);            // 0011: no machine in its attempt
  CHECK(s.ignored_attempts == 3);   // 0007's, 0008's first (no end, not last), 0009's
  CHECK(s.running_kept == 1);       // 0004
  CHECK(s.zero_run == 1);           // 0010
  CHECK(s.origin == "2017-10-07 01:00:00 (cluster_job_log:2)");
  CHECK(s.trace_end == "2017-10-07 04:10:30");
}

TEST_CASE("trace import: Helios cluster log", "[sim][import]") {
  // Setup: 13 Slurm jobs. Expect: expected.csv, worked out by hand (a job on n nodes is n pods
  // sharing its GPUs and CPUs; the trace ends at 04:55:09 the next day).
  const ImportedTrace t = Import(TraceFormat::kHelios, Samples("helios", {"cluster_log.csv"}));
  CHECK(t.trace_csv == ReadImportFile("helios", "expected.csv"));
  CHECK(t.nodes_yaml.empty());
  const TraceImportSummary& s = t.summary;
  CHECK(s.rows == 13);
  CHECK(s.jobs == 7);
  CHECK(s.cancelled_pending == 2);  // 1425510 (no start), 1425515 (start == end)
  CHECK(s.never_scheduled == 1);    // 1425518
  CHECK(s.no_owner == 1);           // 1425517
  CHECK(s.end_before_start == 1);   // 1425519
  CHECK(s.no_submit == 1);          // 1425521
  CHECK(s.running_kept == 1);       // 1425516
  CHECK(s.zero_run == 1);           // 1425520
}

TEST_CASE("trace import: fractional seconds are exact to the microsecond", "[sim][import]") {
  // Setup: PAI times with decimals, as pandas writes them. Expect: submit 0.5 s after the first
  // job, run times 0.75 s and 0.000001 s, written with only the decimals needed.
  const std::vector<ImportInput> inputs = {
      {"pai_job_table.csv", "j1,i1,u1,Terminated,1000.0,1002.0\nj2,i2,u1,Terminated,1000.5,1003.0\n"},
      {"pai_task_table.csv", "j1,w,1.0,Terminated,1001.25,1002.0,100.0,1.0,100.0,T4\n"
                             "j2,w,1.0,Terminated,1002.0,1002.000001,100.0,1.0,100.0,T4\n"}};
  CHECK(Import(TraceFormat::kPai2020, inputs).trace_csv ==
        "submit,team,pod_sets,duration,name\n"
        "0,u1,w:1x{cpu=1;memory=1Gi;nvidia.com/gpu=1},0.75,j1\n"
        "0.5,u1,w:1x{cpu=1;memory=1Gi;nvidia.com/gpu=1},0.000001,j2\n");
}

TEST_CASE("trace import: a Helios job's nodes share its GPUs and cores", "[sim][import]") {
  // Setup: 10 GPUs and 8 cores on 3 nodes; 7 GPUs and 3 cores on 10⁶ nodes. Expect: pods of
  // 4+3+3 GPUs and 3+3+2 cores (three pod sets); 7 pods with a GPU (the first 3 with a core too),
  // then 999,993 empty ones.
  const std::string header = "job_id,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time\n";
  const ImportedTrace t = Import(
      TraceFormat::kHelios,
      {{"cluster_log.csv", header + "1,vc1,10,8,3,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 19:00:00\n"
                                    "2,vc1,7,3,1000000,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 19:00:00\n"}});
  CHECK(t.trace_csv ==
        "submit,team,pod_sets,duration,name\n"
        "0,vc1,1x{cpu=3;nvidia.com/gpu=4}+1x{cpu=3;nvidia.com/gpu=3}+1x{cpu=2;nvidia.com/gpu=3},3600,1\n"
        "0,vc1,3x{cpu=1;nvidia.com/gpu=1}+4x{nvidia.com/gpu=1}+999993x{},3600,2\n");
}

TEST_CASE("trace import: options", "[sim][import]") {
  SECTION("--running skip drops jobs still running at the trace's end, and counts them") {
    TraceImportOptions o;
    o.keep_running = false;
    const ImportedTrace t = Import(TraceFormat::kOpenb, Samples("openb", {"pods.csv"}), o);
    CHECK(t.summary.jobs == 6);
    CHECK(t.summary.running_skipped == 3);
    CHECK(t.summary.running_kept == 0);
    CHECK(t.trace_csv.find("openb-pod-0002") == std::string::npos);
    CHECK(t.trace_csv.find("openb-pod-0004") != std::string::npos);  // Running, but deleted before the end
  }
  SECTION("--gpu-only drops jobs without GPUs") {
    TraceImportOptions o;
    o.gpu_only = true;
    const ImportedTrace t = Import(TraceFormat::kHelios, Samples("helios", {"cluster_log.csv"}), o);
    CHECK(t.summary.cpu_only == 1);  // 1425520
    CHECK(t.summary.jobs == 6);
  }
  SECTION("owners as namespaces, or all under one owner") {
    TraceImportOptions o;
    o.owner_as_namespace = true;
    ImportedTrace t = Import(TraceFormat::kHelios, Samples("helios", {"cluster_log.csv"}), o);
    CHECK(t.trace_csv.starts_with("submit,namespace,pod_sets,duration,name\n2461,vcJkd,"));
    o.owner = "research";
    t = Import(TraceFormat::kHelios, Samples("helios", {"cluster_log.csv"}), o);
    CHECK(t.trace_csv.find(",research,") != std::string::npos);
    CHECK(t.trace_csv.find("vcJkd") == std::string::npos);
    CHECK(t.summary.no_owner == 0);  // 1425517's missing vc no longer matters
    CHECK(t.summary.jobs == 8);
  }
  SECTION("another GPU resource and model label") {
    TraceImportOptions o;
    o.gpu_resource = "alibaba.com/gpu";  // sorts before cpu
    o.model_label = "gpu-model";
    const ImportedTrace t = Import(TraceFormat::kOpenb, Samples("openb", {"pods.csv", "nodes.csv"}), o);
    CHECK(t.trace_csv.find(",1x{alibaba.com/gpu=8;cpu=88;memory=320Gi},600,openb-pod-0003,gpu-model In V100M16|V100M32\n") !=
          std::string::npos);
    CHECK(t.nodes_yaml.find("  labels:\n    gpu-model: \"G3\"\n") != std::string::npos);
    CHECK(t.nodes_yaml.find("    alibaba.com/gpu: \"8\"\n    cpu: \"128\"\n") != std::string::npos);
  }
  SECTION("bad options are errors naming the option") {
    TraceImportOptions o;
    o.gpu_resource = "nvidia gpu";
    CHECK(test::ImportError(TraceFormat::kOpenb, Samples("openb", {"pods.csv"}), o).starts_with("gpu resource \"nvidia gpu\": it "));
    o = {};
    o.model_label = "gpu/model/x";
    CHECK(test::ImportError(TraceFormat::kOpenb, Samples("openb", {"pods.csv"}), o).starts_with("model label \"gpu/model/x\": "));
    o = {};
    o.owner = "-team";
    CHECK(test::ImportError(TraceFormat::kOpenb, Samples("openb", {"pods.csv"}), o) ==
          "owner \"-team\": it must start and end with a letter or digit");
  }
}

TEST_CASE("trace import: the traces read back", "[sim][import]") {
  SECTION("formats without constraints read back job for job") {
    // Expect: as many jobs as written; the pod sets and run times as written.
    for (const auto& [format, folder, inputs] :
         std::vector<std::tuple<TraceFormat, std::string, std::vector<std::string>>>{
             {TraceFormat::kHelios, "helios", {"cluster_log.csv"}},
             {TraceFormat::kPhilly, "philly", {"cluster_job_log"}}}) {
      const ImportedTrace t = Import(format, Samples(folder, inputs));
      absl::StatusOr<Trace> back = ReadTraceString(t.trace_csv, "imported.csv");
      REQUIRE(back.ok());
      CHECK(static_cast<int64_t>(back->jobs.size()) == t.summary.jobs);
      CHECK(WriteTrace(*back).size() > 0);
    }
  }
  SECTION("fractional GPUs read back with --round-fractional up, and are counted") {
    // Setup: the openb pods without their GPU-model constraints (no node_affinity column).
    std::vector<ImportInput> inputs = Samples("openb", {"pods.csv"});
    for (const char* spec : {"V100M16|V100M32", "T4", "G2"}) {
      const size_t at = inputs[0].text.find(std::string(",") + spec + ",");
      REQUIRE(at != std::string::npos);
      inputs[0].text.erase(at + 1, std::string(spec).size());
    }
    const ImportedTrace t = Import(TraceFormat::kOpenb, inputs);
    REQUIRE(t.summary.constrained == 0);
    CHECK(!ReadTraceString(t.trace_csv, "imported.csv").ok());  // 460m of a GPU, as Kubernetes says
    TraceReadOptions read;
    read.round_fractional_up = true;
    absl::StatusOr<Trace> back = ReadTraceString(t.trace_csv, "imported.csv", read);
    REQUIRE(back.ok());
    CHECK(back->jobs.size() == 9);
    CHECK(back->rounded_jobs == t.summary.fractional_gpu);
  }
  SECTION("node_affinity reads back once the reader knows the column") {
    // The node_affinity column comes with the node-constraint columns of issue 25 item 3; until
    // the reader has them, this section only checks that the reader refuses the column by name.
    TraceReadOptions read;
    read.round_fractional_up = true;
    const bool reader_knows = ReadTraceString("submit,team,pod_sets,duration,node_affinity\n0,a,1x{},1,k In v\n", "probe.csv").ok();
    for (const auto& [format, folder, inputs] :
         std::vector<std::tuple<TraceFormat, std::string, std::vector<std::string>>>{
             {TraceFormat::kOpenb, "openb", {"pods.csv"}},
             {TraceFormat::kPai2020, "pai", {"pai_job_table.csv", "pai_task_table.csv", "pai_group_tag_table.csv"}}}) {
      const ImportedTrace t = Import(format, Samples(folder, inputs));
      absl::StatusOr<Trace> back = ReadTraceString(t.trace_csv, "imported.csv", read);
      if (reader_knows) {
        REQUIRE(back.ok());
        CHECK(static_cast<int64_t>(back->jobs.size()) == t.summary.jobs);
      } else {
        REQUIRE(!back.ok());
        CHECK(std::string(back.status().message()).starts_with("imported.csv:1: \"node_affinity\": unknown column"));
      }
    }
  }
}

TEST_CASE("trace import: format names", "[sim][import]") {
  for (const TraceFormat f : {TraceFormat::kOpenb, TraceFormat::kPai2020, TraceFormat::kPhilly, TraceFormat::kHelios}) {
    CHECK(ParseTraceFormat(TraceFormatName(f)) == f);
  }
  CHECK(!ParseTraceFormat("alibaba").has_value());
}

}  // namespace
}  // namespace trace_import_test
}  // namespace qm::sim
