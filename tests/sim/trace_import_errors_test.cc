// Malformed input to the trace importers (qm/sim/trace_import.h): each is an error naming the
// file, the line and the column, and nothing is produced.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "qm/sim/trace_import.h"
#include "sim/import_test_support.h"

namespace qm::sim {
namespace trace_import_errors_test {
namespace {

using test::ImportError;

constexpr const char* kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

std::string OpenbError(const std::string& rows) {
  return ImportError(TraceFormat::kOpenb, {{"pods.csv", kPodHeader + rows}});
}

TEST_CASE("trace import errors: openb", "[sim][import]") {
  const std::string good = "p1,8000,16384,1,1000,,LS,Succeeded,100,400,110\n";
  CHECK(OpenbError(good) == "<no error>");
  CHECK(OpenbError(good + "p2,abc,16384,1,1000,,LS,Succeeded,100,400,110\n") ==
        "pods.csv:3: cpu_milli: \"abc\" is not an integer");
  CHECK(OpenbError("p2,-8,16384,1,1000,,LS,Succeeded,100,400,110\n") == "pods.csv:2: cpu_milli: \"-8\" is less than 0");
  CHECK(OpenbError("p2,8000,16384,1,2000,,LS,Succeeded,100,400,110\n") ==
        "pods.csv:2: gpu_milli: \"2000\" is outside 0..1000");
  CHECK(OpenbError("p2,8000,16384,1,1000,,LS,Done,100,400,110\n") ==
        "pods.csv:2: pod_phase: \"Done\" is not Pending, Running, Succeeded or Failed");
  CHECK(OpenbError("p2,8000,16384,1,1000,,LS,Succeeded,soon,400,110\n") ==
        "pods.csv:2: creation_time: \"soon\" is not a number of seconds");
  CHECK(OpenbError(good + "p2,8000,16384,1,1000,LS,Succeeded,100,400,110\n") ==
        "pods.csv:3: row: 10 values, but the header has 11 columns");
  CHECK(OpenbError("p2,8000,16384,1,1000,V100 M16,LS,Succeeded,100,400,110\n") ==
        "pods.csv:2: gpu_spec: GPU model \"V100 M16\" is not a valid label value: it may contain only letters, "
        "digits, '-', '_' and '.'");
  CHECK(OpenbError(good + good) == "pods.csv:3: name: job \"p1\" appears twice (first on line 2)");
  CHECK(OpenbError("p/2,8000,16384,1,1000,,LS,Succeeded,100,400,110\n") ==
        "pods.csv:2: name: \"p/2\" is not a valid job name: it may contain only letters, digits, '-', '.' and '_'");
  CHECK(OpenbError(good + "\"p3,8000\n") == "pods.csv:3: name: unterminated quoted value");
  // A skipped row is still checked: a malformed value is an error wherever it is.
  CHECK(OpenbError("p2,8000,16384,1,1000,,LS,Pending,100,400,x\n") ==
        "pods.csv:2: scheduled_time: \"x\" is not a number of seconds");
  CHECK(ImportError(TraceFormat::kOpenb, {{"pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,pod_phase,creation_time,deletion_time\n"}}) ==
        "pods.csv:1: scheduled_time: missing column");
  CHECK(ImportError(TraceFormat::kOpenb, {{"nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,32000,262144,eight,T4\n"}}) ==
        "nodes.csv:2: gpu: \"eight\" is not an integer");
  CHECK(ImportError(TraceFormat::kOpenb, {{"nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,1,1,0,\nn1,1,1,0,\n"}}) ==
        "nodes.csv:3: sn: node \"n1\" appears twice (first on line 2)");
  CHECK(ImportError(TraceFormat::kOpenb, {{"nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,1,1,1,V100/32\n"}}) ==
        "nodes.csv:2: model: \"V100/32\" is not a valid label value: it may contain only letters, digits, '-', '_' and '.'");
  CHECK(ImportError(TraceFormat::kOpenb, {{"jobs.csv", "submit,team\n"}}).starts_with("jobs.csv:1: not an openb pod list"));
  CHECK(ImportError(TraceFormat::kOpenb, {{"empty.csv", ""}}) == "empty.csv:1: the file is empty");
}

TEST_CASE("trace import errors: PAI 2020", "[sim][import]") {
  const std::string job = "j01,i01,u1,Terminated,1000.0,1600.0\n";
  const std::string task = "j01,ps,1.0,Terminated,1005.0,1510.0,600.0,29.296875,,MISC\n";
  auto error = [](const std::string& jobs, const std::string& tasks) {
    return ImportError(TraceFormat::kPai2020, {{"pai_job_table.csv", jobs}, {"pai_task_table.csv", tasks}});
  };
  CHECK(error(job, task) == "<no error>");
  CHECK(error("j01,i01,u1,Done,1000.0,1600.0\n", task) ==
        "pai_job_table.csv:1: status: \"Done\" is not Terminated, Failed, Running or Waiting");
  CHECK(error(job + job, task) == "pai_job_table.csv:2: job_name: job \"j01\" appears twice (first at pai_job_table.csv:1)");
  // Repeats are found after the table is read, yet reported in row order: a repeat before a bad
  // row is the error, a bad row before a repeat is; of two repeats, the earlier second use.
  const std::string job2 = "j02,i02,u1,Terminated,1000.0,1600.0\n";
  const std::string bad = "j03,i03,u1,Done,1000.0,1600.0\n";
  CHECK(error(job + job2 + job + bad, task) ==
        "pai_job_table.csv:3: job_name: job \"j01\" appears twice (first at pai_job_table.csv:1)");
  CHECK(error(job + bad + job, task) ==
        "pai_job_table.csv:2: status: \"Done\" is not Terminated, Failed, Running or Waiting");
  CHECK(error(job + job2 + job2 + job, task) ==
        "pai_job_table.csv:3: job_name: job \"j02\" appears twice (first at pai_job_table.csv:2)");
  CHECK(error(job + job2 + job2 + "j01,i01,u1,Terminated,1000.0\n", task) ==
        "pai_job_table.csv:3: job_name: job \"j02\" appears twice (first at pai_job_table.csv:2)");
  CHECK(error("j01,i01,u1,Terminated,1000.0\n", task) == "pai_job_table.csv:1: row: 5 values, but the table has 6 columns");
  CHECK(error(job, "j01,ps,1.5,Terminated,1005.0,1510.0,600.0,29.296875,,MISC\n") ==
        "pai_task_table.csv:1: inst_num: \"1.5\" is not an integer");
  CHECK(error(job, task + "j01,worker,1.0,Terminated,1005.0,1510.0,six,29.296875,,MISC\n") ==
        "pai_task_table.csv:2: plan_cpu: \"six\" is not a number");
  CHECK(error(job, "j01,ps,1.0,Terminated,1005.0,1510.0,600.0,-1,,MISC\n") ==
        "pai_task_table.csv:1: plan_mem: \"-1\" is negative");
  CHECK(error(job, "j01,ps,1.0,Terminated,10e,1510.0,600.0,1,,MISC\n") ==
        "pai_task_table.csv:1: start_time: \"10e\" is not a number of seconds");
  CHECK(ImportError(TraceFormat::kPai2020, {{"pai_job_table.csv", job}}) ==
        "pai2020: give both pai_job_table.csv and pai_task_table.csv");
  CHECK(ImportError(TraceFormat::kPai2020, {{"tables.csv", job}}).starts_with("tables.csv:1: not a PAI table"));
  CHECK(ImportError(TraceFormat::kPai2020, {{"pai_job_table.csv", job},
                                            {"pai_task_table.csv", task},
                                            {"pai_group_tag_table.csv", "i01,u1,V100 M32,g,w\n"}}) ==
        "pai_group_tag_table.csv:1: gpu_type_spec: GPU model \"V100 M32\" is not a valid label value: it may contain "
        "only letters, digits, '-', '_' and '.'");
  CHECK(ImportError(TraceFormat::kPai2020, {{"pai_job_table.csv", job},
                                            {"pai_task_table.csv", task},
                                            {"machines.csv", "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\nm1,T4,96,512,two\n"}}) ==
        "machines.csv:2: cap_gpu: \"two\" is not an integer");
}

TEST_CASE("trace import errors: Philly", "[sim][import]") {
  auto error = [](const std::string& log) { return ImportError(TraceFormat::kPhilly, {{"cluster_job_log", log}}); };
  const std::string ok = R"([{"jobid": "a1", "vc": "v", "submitted_time": "2017-10-07 01:00:00", "attempts": []}])";
  CHECK(error(ok) == "<no error>");
  CHECK(error("[\n{\"jobid\": \"a1\", \"vc\": \"v\",\n \"submitted_time\": \"2017-13-07 01:00:00\"}]") ==
        "cluster_job_log:3: submitted_time: \"2017-13-07 01:00:00\" is not a date and time (YYYY-MM-DD HH:MM:SS)");
  CHECK(error("[\n{\"jobid\": \"a1\", \"attempts\": {}}]") == "cluster_job_log:2: attempts: expected a list");
  CHECK(error("[\n{\"jobid\": \"a1\"\n \"vc\": \"v\"}]") == "cluster_job_log:3: expected ',' or '}'");
  CHECK(error("[\n{\"vc\": \"v\"}]") == "cluster_job_log:2: jobid: missing: every job needs its id");
  CHECK(error("[\n{\"jobid\": 7}]") == "cluster_job_log:2: jobid: expected a string or null");
  CHECK(error("[\n{\"jobid\": \"a\\q\"}]") == "cluster_job_log:2: jobid: unknown escape '\\q' in a string");
  CHECK(error("[\n{\"jobid\": \"a1\", \"attempts\": [{\"detail\": [{\"gpus\": [\"g0\",]}]}]}]") ==
        "cluster_job_log:2: gpus: expected a value");
  CHECK(error(ok + " x") == "cluster_job_log:1: unexpected text after the top-level value");
  CHECK(error("[{\"jobid\": \"a1\"") == "cluster_job_log:1: expected ',' or '}'");
  // Repeated ids among jobs written (the sink hashes each name as it is added): the repeat that
  // comes first in the input is reported, within a file and across two.
  const auto job = [](const std::string& id) {
    return R"({"jobid": ")" + id +
           R"(", "vc": "v", "submitted_time": "2017-10-07 01:00:00", "attempts": [{"start_time": )"
           R"("2017-10-07 01:00:00", "end_time": "2017-10-07 02:00:00", "detail": [{"ip": "m1", "gpus": ["g0"]}]}]})";
  };
  CHECK(error("[\n" + job("a") + ",\n" + job("b") + ",\n" + job("b") + ",\n" + job("a") + "]") ==
        "cluster_job_log:4: jobid: job \"b\" appears twice (first on line 3)");
  CHECK(ImportError(TraceFormat::kPhilly, {{"log1", "[" + job("a") + "]"},
                                           {"log2", "[\n" + job("c") + ",\n" + job("a") + "]"}}) ==
        "log2:3: jobid: job \"a\" appears twice (first on log1:1)");
  CHECK(ImportError(TraceFormat::kPhilly, {{"cluster_machine_list", "m1,8, 24GB\nm2,x, 24GB\n"}}) ==
        "cluster_machine_list:2: number of GPUs: \"x\" is not an integer");
  CHECK(ImportError(TraceFormat::kPhilly, {{"cluster_machine_list", "m1,8\n"}}).starts_with(
      "cluster_machine_list:1: not a Philly job log"));
}

TEST_CASE("trace import errors: Helios", "[sim][import]") {
  const std::string header = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";
  auto error = [&](const std::string& rows) { return ImportError(TraceFormat::kHelios, {{"cluster_log.csv", header + rows}}); };
  CHECK(error("1,u,vc1,1,1,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 19:00:00,3600,0\n") == "<no error>");
  CHECK(error("1,u,vc1,one,1,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 19:00:00,3600,0\n") ==
        "cluster_log.csv:2: gpu_num: \"one\" is not an integer");
  CHECK(error("1,u,vc1,1,1,1,COMPLETED,2020/06/09 18:00,2020-06-09 18:00:00,2020-06-09 19:00:00,3600,0\n") ==
        "cluster_log.csv:2: submit_time: \"2020/06/09 18:00\" is not a date and time (YYYY-MM-DD HH:MM:SS)");
  CHECK(error("1,u,vc A,1,1,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 19:00:00,3600,0\n") ==
        "cluster_log.csv:2: vc: \"vc A\" is not a valid team name: it may contain only letters, digits, '-', '.' and '_'");
  CHECK(error("1,u,vc1,1,1,1,COMPLETED,2020-02-30 18:00:00,2020-06-09 18:00:00,2020-06-09 19:00:00,3600,0\n") ==
        "cluster_log.csv:2: submit_time: \"2020-02-30 18:00:00\" is not a date and time (YYYY-MM-DD HH:MM:SS)");
  CHECK(ImportError(TraceFormat::kHelios, {{"cluster_gpu_number.csv", "date,vcA,total\n2020-09-01,8,8\n"}}).starts_with(
      "cluster_gpu_number.csv:1: not a Helios cluster_log.csv"));
}

}  // namespace
}  // namespace trace_import_errors_test
}  // namespace qm::sim
