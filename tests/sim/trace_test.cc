// Workload traces (qm/sim/trace.h): the CSV reader and its errors, the writer, the generator and the
// conversion of Kueue performance configurations.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "qm/sim/perf_config.h"
#include "qm/sim/trace.h"
#include "sim/portable_random.h"

namespace qm::sim {
namespace trace_test {
namespace {

// tests/sim/data (QM_TESTS_DIR is set by tests/CMakeLists.txt).
std::filesystem::path DataDir() { return std::filesystem::path(QM_TESTS_DIR) / "sim" / "data"; }

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The error message of reading `csv` (named "t.csv"); "" when it reads.
std::string ErrorOf(const std::string& csv) {
  absl::StatusOr<Trace> t = ReadTraceString(csv, "t.csv");
  if (t.ok()) return "";
  CHECK(t.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(t.status().message());
}

// One job's content, as text, for whole-trace comparisons (rows and lines aside: they depend on
// where the job sat in its file).
std::string Describe(const Trace& t, const TraceJob& j) {
  std::string out = FormatTraceTime(j.submit) + " " + FormatTraceTime(j.duration) + " ns=" + std::string(t.str(j.namespace_)) +
                    " team=" + std::string(t.str(j.team)) + " q=" + std::string(t.str(j.queue)) +
                    " class=" + std::string(t.str(j.priority_class)) +
                    " prio=" + (j.priority ? std::to_string(*j.priority) : "-") + " name=" + t.JobName(j);
  for (const TracePodSet& ps : t.PodSetsOf(j)) {
    out += " [" + std::string(t.str(ps.name)) + " " + std::to_string(ps.count) + " min " + std::to_string(ps.min_count);
    for (const TraceRequest& r : t.RequestsOf(ps)) out += " " + std::string(t.str(r.resource)) + "=" + std::to_string(r.amount);
    out += "]";
  }
  return out;
}

std::vector<std::string> DescribeAll(const Trace& t) {
  std::vector<std::string> out;
  for (const TraceJob& j : t.jobs) out.push_back(Describe(t, j));
  return out;
}

// `n` unnamed pod sets of one pod each, joined by '+'.
std::string PodSets(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? "+" : "") + std::string("1x{cpu=1}");
  return out;
}

constexpr const char* kHeader = "submit,namespace,team,queue,priority_class,priority,pod_sets,min_count,duration,name\n";

TEST_CASE("ParseTraceTime: seconds or units, exact to the microsecond", "[sim][trace]") {
  SECTION("valid forms") {
    // Setup: each syntax the format documents. Expect: the exact microsecond count.
    const std::pair<const char*, int64_t> cases[] = {
        {"0", 0},
        {"90", 90'000'000},
        {"1.5", 1'500'000},
        {"007", 7'000'000},
        {"0.000001", 1},
        {".5", 500'000},
        {"250ms", 250'000},
        {"1h30m", 5'400'000'000},
        {"2.5h", 9'000'000'000},
        {"1d2h3m4s5ms", ((26 * 60 + 3) * 60 + 4) * 1'000'000LL + 5'000},
        {"0.1s", 100'000},
        {"1.0000000000000000000000s", 1'000'000},
        {"36500d", kMaxTraceTime.us},
    };
    for (const auto& [text, us] : cases) {
      INFO(text);
      absl::StatusOr<Duration> d = ParseTraceTime(text);
      REQUIRE(d.ok());
      CHECK(d->us == us);
    }
  }
  SECTION("errors") {
    // Setup: malformed, negative, too fine and too large times. Expect: these exact messages.
    const std::string syntax = "is not a time (seconds, or numbers with units d, h, m, s, ms, e.g. 90, 1.5s, 1h30m)";
    const std::pair<const char*, std::string> cases[] = {
        {"", "\"\" is not a time: the value is empty"},
        {"-5", "\"-5\" must not be negative"},
        {"1.5x", "\"1.5x\" " + syntax},
        {"h", "\"h\" " + syntax},
        {"1..5", "\"1..5\" " + syntax},
        {"1h 30m", "\"1h 30m\" " + syntax},
        {"90s5", "\"90s5\" " + syntax},
        {"30m1h", "\"30m1h\" is not a time: units must go from largest to smallest, each at most once"},
        {"1h1h", "\"1h1h\" is not a time: units must go from largest to smallest, each at most once"},
        {"0.0000001", "\"0.0000001\" is finer than a microsecond"},
        {"0.0000000000000000001d", "\"0.0000000000000000001d\" is finer than a microsecond"},
        {"36500d1ms", "\"36500d1ms\" is more than 100 years"},
        {"99999999999999999999999999999999", "\"99999999999999999999999999999999\" is more than 100 years"},
    };
    for (const auto& [text, message] : cases) {
      INFO(text);
      absl::StatusOr<Duration> d = ParseTraceTime(text);
      REQUIRE_FALSE(d.ok());
      CHECK(d.status().message() == message);
    }
  }
  SECTION("formatting reads back exactly") {
    // Setup: times with and without fractions. Expect: the canonical text, read back unchanged.
    CHECK(FormatTraceTime(Duration::Seconds(90)) == "90");
    CHECK(FormatTraceTime(Duration::Milliseconds(1500)) == "1.5");
    CHECK(FormatTraceTime(Duration::Microseconds(1)) == "0.000001");
    for (int64_t us : {int64_t{0}, int64_t{1}, int64_t{999'999}, int64_t{123'456'789'012}, kMaxTraceTime.us}) {
      absl::StatusOr<Duration> d = ParseTraceTime(FormatTraceTime(Duration::Microseconds(us)));
      REQUIRE(d.ok());
      CHECK(d->us == us);
    }
  }
}

TEST_CASE("simulate options: ParseDurationText reads the trace's time syntax or a Go duration", "[sim][trace]") {
  // Setup: forms of either syntax, one of both, and text neither reads. Expect: the exact value, or
  // the trace syntax's message.
  const std::pair<const char*, int64_t> cases[] = {
      {"2d", 2 * 86'400'000'000LL},         // days: trace syntax only
      {"1d12h", 36 * 3'600'000'000LL},      // trace syntax only
      {"90", 90'000'000},                   // plain seconds: trace syntax only
      {"2.5h", 9'000'000'000},              // both
      {"720h", 720 * 3'600'000'000LL},      // both
      {"1h1h", 2 * 3'600'000'000LL},        // Go only (repeated unit)
      {"30m1h", 5'400'000'000},             // Go only (units in any order)
      {"1.5us", -1},                        // finer than a microsecond in both: an error
      {"-5s", -5'000'000},                  // Go only; the caller checks the sign
  };
  for (const auto& [text, us] : cases) {
    INFO(text);
    absl::StatusOr<Duration> d = ParseDurationText(text);
    if (us == -1) {
      CHECK_FALSE(d.ok());
      continue;
    }
    REQUIRE(d.ok());
    CHECK(d->us == us);
  }
  absl::StatusOr<Duration> bad = ParseDurationText("soon");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() ==
        "\"soon\" is not a time (seconds, or numbers with units d, h, m, s, ms, e.g. 90, 1.5s, 1h30m)");
}

TEST_CASE("ReadTraceFile: the shipped sample", "[sim][trace]") {
  // Setup: tests/sim/data/sample.csv (comments, a blank line, quotes, spaces, min_count, a team).
  // Expect: four jobs sorted by submit time, every field as written.
  absl::StatusOr<Trace> t = ReadTraceFile((DataDir() / "sample.csv").string());
  REQUIRE(t.ok());
  REQUIRE(t->jobs.size() == 4);
  CHECK(DescribeAll(*t) == std::vector<std::string>{
      "0 7200 ns=research team= q=gpu-queue class=high prio=- name=pretrain"
      " [main 8 min 0 cpu=4000 memory=34359738368 nvidia.com/gpu=1]",
      "30 45 ns=research team= q= class= prio=- name=job-4 [main 1 min 0 cpu=1000]",
      "90 5400 ns= team=ml q= class= prio=- name=job-2"
      " [launcher 1 min 0 cpu=1000] [worker 4 min 2 cpu=32000 memory=274877906944 nvidia.com/gpu=8]",
      "90 9000 ns=research team= q=gpu-queue class=low prio=-5 name=eval-1 [main 2 min 1 cpu=500]",
  });
  // Rows and lines point back into the file (row 3 is on line 7, after a comment); equal submit
  // times keep file order.
  CHECK(t->jobs[2].row == 2);
  CHECK(t->jobs[2].line == 5);
  CHECK(t->jobs[3].row == 3);
  CHECK(t->jobs[3].line == 7);
  CHECK(t->source.ends_with("sample.csv"));
  // Strings are interned in first-seen order, "" first.
  CHECK(t->strings[0] == "");
  CHECK(t->strings[1] == "research");
}

TEST_CASE("ReadTraceString: CSV syntax", "[sim][trace]") {
  SECTION("CRLF line ends, a byte order mark, and no final newline") {
    // Setup: Windows-style text. Expect: the same jobs as with LF.
    absl::StatusOr<Trace> t = ReadTraceString("\xEF\xBB\xBFsubmit,namespace,pod_sets,duration\r\n0,a,1x{cpu=1},1\r\n5,a,1x{cpu=2},2", "t.csv");
    REQUIRE(t.ok());
    CHECK(DescribeAll(*t) == std::vector<std::string>{"0 1 ns=a team= q= class= prio=- name=job-1 [main 1 min 0 cpu=1000]",
                                                      "5 2 ns=a team= q= class= prio=- name=job-2 [main 1 min 0 cpu=2000]"});
  }
  SECTION("quoted values may hold commas, doubled quotes and line breaks") {
    // Setup: quoted values that no column accepts. Expect: the unescaped value in the error, with
    // the line the record starts on.
    CHECK(ErrorOf("submit,namespace,pod_sets,duration,name\n0,a,1x{cpu=1},1,\"x\"\"y\"\n") ==
          "t.csv:2: name: \"x\\\"y\" may contain only letters, digits, '-', '.' and '_'");
    CHECK(ErrorOf("submit,namespace,pod_sets,duration,name\n0,a,1x{cpu=1},1,\"x,\ny\"\n") ==
          "t.csv:2: name: \"x,\\x0ay\" may contain only letters, digits, '-', '.' and '_'");
    // A value spanning lines moves the line count on.
    CHECK(ErrorOf("submit,namespace,pod_sets,duration,name\n0,a,1x{cpu=1},1,\"x\ny\"\n0,a,1x{cpu=1},0,\n")
              .starts_with("t.csv:2: name:"));
    absl::StatusOr<Trace> t = ReadTraceString(
        "submit,namespace,pod_sets,duration,name\n0,a,1x{cpu=1},1,\"n1\"\n\"1\",\"a\",\"1x{cpu=1}\",\"0\"\"\",n2\n", "t.csv");
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().message() == "t.csv:3: duration: \"0\\\"\" is not a time (seconds, or numbers with units d, h, m, s, ms, e.g. 90, 1.5s, 1h30m)");
  }
  SECTION("header only: an empty trace") {
    absl::StatusOr<Trace> t = ReadTraceString("# nothing yet\nsubmit,team,pod_sets,duration\n\n", "t.csv");
    REQUIRE(t.ok());
    CHECK(t->jobs.empty());
  }
}

TEST_CASE("ReadTraceString: every error names file, line and column", "[sim][trace]") {
  // Setup: one bad file per rule. Expect: the exact message, and nothing read.
  const std::string h = "submit,namespace,pod_sets,duration\n";
  const std::string hm = "submit,namespace,pod_sets,min_count,duration\n";
  const std::pair<std::string, std::string> cases[] = {
      // Header.
      {"", "t.csv:1: header: missing: the first line must name the columns, e.g. submit,namespace,pod_sets,duration"},
      {"# only a comment\n\n", "t.csv:1: header: missing: the first line must name the columns, e.g. submit,namespace,pod_sets,duration"},
      {"submit,namespace,pod_sets,duration,gpus\n",
       "t.csv:1: \"gpus\": unknown column (known: submit, namespace, team, queue, priority_class, priority, pod_sets, "
       "min_count, duration, name, checkpoint_interval, pod_startup, node_selector, node_affinity, tolerations)"},
      {"submit,namespace,pod_sets,duration,submit\n", "t.csv:1: submit: duplicate column"},
      {"submit,namespace,pod_sets\n", "t.csv:1: duration: missing column"},
      {"namespace,pod_sets,duration\n", "t.csv:1: submit: missing column"},
      {"submit,namespace,duration\n", "t.csv:1: pod_sets: missing column"},
      {"submit,pod_sets,duration\n", "t.csv:1: namespace: missing column: a trace needs a namespace or a team column"},
      {"submit,namespace,,pod_sets,duration\n", "t.csv:1: header: column 3 has no name"},
      // Record syntax.
      {h + "0,a,1x{cpu=1},1,\n", "t.csv:2: row: 5 values, but the header has 4 columns"},
      {h + "0,a,1x{cpu=1}\n", "t.csv:2: row: 3 values, but the header has 4 columns"},
      {h + "0,\"a,1x{cpu=1},1\n", "t.csv:2: namespace: unterminated quoted value"},
      {h + "0,\"a\"b,1x{cpu=1},1\n", "t.csv:2: namespace: text after the closing quote of a quoted value"},
      {h + "0,a\"b,1x{cpu=1},1\n",
       "t.csv:2: namespace: a '\"' inside an unquoted value (quote the whole value and double the '\"')"},
      {h + "0," + std::string(5000, 'a') + ",1x{cpu=1},1\n", "t.csv:2: namespace: the value is 5000 bytes long, at most 4096 are allowed"},
      // Times.
      {h + "soon,a,1x{cpu=1},1\n",
       "t.csv:2: submit: \"soon\" is not a time (seconds, or numbers with units d, h, m, s, ms, e.g. 90, 1.5s, 1h30m)"},
      {h + "-1,a,1x{cpu=1},1\n", "t.csv:2: submit: \"-1\" must not be negative"},
      {h + "0,a,1x{cpu=1},-3s\n", "t.csv:2: duration: \"-3s\" must be positive"},
      {h + "0,a,1x{cpu=1},0\n", "t.csv:2: duration: \"0\" must be positive"},
      {h + "0,a,1x{cpu=1},0ms\n", "t.csv:2: duration: \"0ms\" must be positive"},
      {h + "0,a,1x{cpu=1},\n", "t.csv:2: duration: \"\" is not a time: the value is empty"},
      {h + "0,a,1x{cpu=1},1e9d\n",
       "t.csv:2: duration: \"1e9d\" is not a time (seconds, or numbers with units d, h, m, s, ms, e.g. 90, 1.5s, 1h30m)"},
      {h + "0,a,1x{cpu=1},1000000d\n", "t.csv:2: duration: \"1000000d\" is more than 100 years"},
      // Namespace and team.
      {"submit,namespace,team,pod_sets,duration\n0,a,b,1x{cpu=1},1\n", "t.csv:2: team: give a namespace or a team, not both"},
      {"submit,namespace,team,pod_sets,duration\n0,,,1x{cpu=1},1\n", "t.csv:2: namespace: missing: a job needs a namespace or a team"},
      {"submit,team,pod_sets,duration\n0,,1x{cpu=1},1\n", "t.csv:2: team: missing: a job needs a namespace or a team"},
      {h + "0,Team A,1x{cpu=1},1\n", "t.csv:2: namespace: \"Team A\" may contain only letters, digits, '-', '.' and '_'"},
      {h + "0,-a,1x{cpu=1},1\n", "t.csv:2: namespace: \"-a\" must start and end with a letter or digit"},
      {h + "0," + std::string(64, 'a') + ",1x{cpu=1},1\n",
       "t.csv:2: namespace: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" is 64 characters long, at most 63 are allowed"},
      {"submit,team,pod_sets,duration\n0," + std::string(52, 'a') + ",1x{cpu=1},1\n",
       "t.csv:2: team: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" is 52 characters long, at most 51 are allowed"},
      {"submit,namespace,queue,pod_sets,duration\n0,a,q/1,1x{cpu=1},1\n",
       "t.csv:2: queue: \"q/1\" may contain only letters, digits, '-', '.' and '_'"},
      {"submit,namespace,priority_class,pod_sets,duration\n0,a,hi!,1x{cpu=1},1\n",
       "t.csv:2: priority_class: \"hi!\" may contain only letters, digits, '-', '.' and '_'"},
      {"submit,namespace,priority,pod_sets,duration\n0,a,high,1x{cpu=1},1\n", "t.csv:2: priority: \"high\" is not a 32-bit integer"},
      {"submit,namespace,priority,pod_sets,duration\n0,a,2147483648,1x{cpu=1},1\n",
       "t.csv:2: priority: \"2147483648\" is not a 32-bit integer"},
      // Pod sets.
      {h + "0,a,,1\n", "t.csv:2: pod_sets: missing: a job needs at least one pod set"},
      {h + "0,a,8{cpu=1},1\n",
       "t.csv:2: pod_sets: \"8{cpu=1}\" is not a pod-set list: expected [name:]<count>x{<resource>=<quantity>;...} "
       "joined by '+', e.g. 8x{nvidia.com/gpu=1;cpu=4}"},
      {h + "0,a,1x{cpu=1}+,1\n",
       "t.csv:2: pod_sets: \"1x{cpu=1}+\" is not a pod-set list: expected [name:]<count>x{<resource>=<quantity>;...} "
       "joined by '+', e.g. 8x{nvidia.com/gpu=1;cpu=4}"},
      {h + "0,a,\"1x{cpu=1\",1\n",
       "t.csv:2: pod_sets: \"1x{cpu=1\" is not a pod-set list: expected [name:]<count>x{<resource>=<quantity>;...} "
       "joined by '+', e.g. 8x{nvidia.com/gpu=1;cpu=4}"},
      {h + "0,a,0x{cpu=1},1\n", "t.csv:2: pod_sets: pod set 1: count \"0\" must be at least 1"},
      {h + "0,a,1x{cpu=1}+1000001x{cpu=1},1\n", "t.csv:2: pod_sets: pod set 2: count \"1000001\" is more than 1000000"},
      {h + "0,a,99999999999999999999x{cpu=1},1\n",
       "t.csv:2: pod_sets: pod set 1: count \"99999999999999999999\" is more than 1000000"},
      {h + "0,a,1x{cpu=-1},1\n", "t.csv:2: pod_sets: pod set 1: cpu: \"-1\" must not be negative"},
      {h + "0,a,1x{cpu=lots},1\n", "t.csv:2: pod_sets: pod set 1: cpu: \"lots\" is not a quantity"},
      {h + "0,a,1x{memory=1e100},1\n", "t.csv:2: pod_sets: pod set 1: memory: \"1e100\" is out of range"},
      {h + "0,a,1x{cpu=1;cpu=2},1\n", "t.csv:2: pod_sets: pod set 1: resource \"cpu\" appears twice"},
      {h + "0,a,1x{c pu=1},1\n",
       "t.csv:2: pod_sets: \"1x{c pu=1}\" is not a pod-set list: expected [name:]<count>x{<resource>=<quantity>;...} "
       "joined by '+', e.g. 8x{nvidia.com/gpu=1;cpu=4}"},
      {h + "0,a,1x{-gpu=1},1\n", "t.csv:2: pod_sets: pod set 1: resource \"-gpu\" must start and end with a letter or digit"},
      {h + "0,a,w:1x{cpu=1}+w:1x{cpu=1},1\n", "t.csv:2: pod_sets: pod set name \"w\" appears twice"},
      {h + "0,a,ps1:1x{cpu=1}+1x{cpu=1},1\n", "t.csv:2: pod_sets: pod set name \"ps1\" appears twice"},
      {h + "0,a," + PodSets(19) + ",1\n", "t.csv:2: pod_sets: more than 18 pod sets"},
      // min_count.
      {hm + "0,a,4x{cpu=1},5,1\n", "t.csv:2: min_count: \"5\" is outside 1..4 (pod set 1 has 4 pods)"},
      {hm + "0,a,4x{cpu=1},0,1\n", "t.csv:2: min_count: \"0\" is outside 1..4 (pod set 1 has 4 pods)"},
      {hm + "0,a,4x{cpu=1},two,1\n", "t.csv:2: min_count: \"two\" is not an integer"},
      {hm + "0,a,4x{cpu=1},1+1,1\n",
       "t.csv:2: min_count: 2 entries for 1 pod sets (join one entry per pod set with '+'; leave an entry empty for none)"},
      {hm + "0,a,4x{cpu=1}+2x{cpu=1},1,1\n",
       "t.csv:2: min_count: 1 entries for 2 pod sets (join one entry per pod set with '+'; leave an entry empty for none)"},
      // Names.
      {"submit,namespace,pod_sets,duration,name\n0,a,1x{cpu=1},1,x\n1,a,1x{cpu=1},1,x\n",
       "t.csv:3: name: job \"x\" appears twice in namespace \"a\" (first on line 2)"},
      {"submit,namespace,team,pod_sets,duration,name\n0,hyperpod-ns-ml,,1x{cpu=1},1,x\n1,,ml,1x{cpu=1},1,x\n",
       "t.csv:3: name: job \"x\" appears twice in namespace \"hyperpod-ns-ml\" (first on line 2)"},
      {"submit,namespace,pod_sets,duration,name\n0,a,1x{cpu=1},1,\n1,a,1x{cpu=1},1,job-1\n",
       "t.csv:3: name: job \"job-1\" appears twice in namespace \"a\" (first on line 2; an unnamed row is named job-<row>)"},
      {"submit,namespace,pod_sets,duration,name\n0,a,1x{cpu=1},1,job-2\n1,a,1x{cpu=1},1,\n",
       "t.csv:3: name: job \"job-2\" appears twice in namespace \"a\" (first on line 2; an unnamed row is named job-<row>)"},
      {"submit,namespace,pod_sets,duration,name\n0,a,1x{cpu=1},1,bad_\n", "t.csv:2: name: \"bad_\" must start and end with a letter or digit"},
  };
  for (const auto& [csv, message] : cases) {
    INFO(csv);
    CHECK(ErrorOf(csv) == message);
  }
  SECTION("the same names in different namespaces, and job-0N, are fine") {
    CHECK(ErrorOf("submit,namespace,pod_sets,duration,name\n0,a,1x{cpu=1},1,x\n1,b,1x{cpu=1},1,x\n"
                  "2,a,1x{cpu=1},1,job-03\n3,b,1x{cpu=1},1,job-3\n4,a,1x{cpu=1},1,\n") == "");
  }
  SECTION("a missing file is NotFound") {
    absl::StatusOr<Trace> t = ReadTraceFile((DataDir() / "no-such-trace.csv").string());
    CHECK(t.status().code() == absl::StatusCode::kNotFound);
  }
}

TEST_CASE("ReadTraceString: pod sets, names and shared storage", "[sim][trace]") {
  SECTION("unnamed pod sets are main alone, else ps<i>; requests sorted by resource") {
    absl::StatusOr<Trace> t = ReadTraceString(
        std::string(kHeader) + "0,a,,,,,2x{memory=1Gi;cpu=1}+head:1x{cpu=2}+1x{nvidia.com/gpu=1},+1+,1,\n", "t.csv");
    REQUIRE(t.ok());
    CHECK(Describe(*t, t->jobs[0]) ==
          "0 1 ns=a team= q= class= prio=- name=job-1 [ps0 2 min 0 cpu=1000 memory=1073741824] [head 1 min 1 cpu=2000]"
          " [ps2 1 min 0 nvidia.com/gpu=1]");
  }
  SECTION("jobs of one shape share their pod sets and requests") {
    // Setup: 1000 jobs of two shapes. Expect: two pod-set ranges and their requests, stored once.
    std::string csv = "submit,namespace,pod_sets,duration\n";
    for (int i = 0; i < 1000; ++i) csv += std::to_string(i) + ",a," + (i % 2 ? "4x{cpu=1;memory=1Gi}" : "1x{cpu=1}+2x{cpu=1}") + ",1\n";
    absl::StatusOr<Trace> t = ReadTraceString(csv, "t.csv");
    REQUIRE(t.ok());
    CHECK(t->jobs.size() == 1000);
    CHECK(t->pod_sets.size() == 3);  // [ps0, ps1] and [main]
    CHECK(t->requests.size() == 3);  // {cpu=1} shared by ps0 and ps1, {cpu, memory}
    CHECK(Describe(*t, t->jobs[999]) == "999 1 ns=a team= q= class= prio=- name=job-1000 [main 4 min 0 cpu=1000 memory=1073741824]");
  }
}

TEST_CASE("ReadTraceString: up to 18 pod sets, Kueue's limit", "[sim][trace]") {
  absl::StatusOr<Trace> t = ReadTraceString("submit,namespace,pod_sets,duration\n0,a," + PodSets(18) + ",1\n", "t.csv");
  REQUIRE(t.ok());
  CHECK(t->jobs[0].pod_set_count == 18);
}

TEST_CASE("ReadTraceString: fractional extended resources are an error unless rounded up", "[sim][trace]") {
  const std::string csv =
      "submit,namespace,pod_sets,duration\n"
      "0,a,1x{nvidia.com/gpu=0.46;cpu=0.5;memory=1.5}+2x{nvidia.com/gpu=2},1\n"  // line 2: rounded
      "1,a,1x{nvidia.com/gpu=0.46;cpu=0.5;memory=1.5}+2x{nvidia.com/gpu=2},1\n"  // the same shape (cached)
      "2,a,1x{example.com/fpga=1500m;kubernetes.io/batch=0.5},1\n"                // line 4: rounded
      "3,a,1x{nvidia.com/gpu=2000m;cpu=0.25;memory=0.5},1\n";                     // whole GPUs: not rounded
  CHECK(ErrorOf(csv) ==
        "t.csv:2: pod_sets: pod set 1: nvidia.com/gpu: \"0.46\" is not a whole number; Kubernetes takes whole "
        "quantities of extended resources (--round-fractional up rounds it up)");
  // Native resources keep their fractions (cpu in millicores; memory rounds up to whole bytes).
  CHECK(ErrorOf("submit,namespace,pod_sets,duration\n0,a,1x{cpu=0.5;memory=1.5;kubernetes.io/x=0.5},1\n").empty());
  TraceReadOptions round;
  round.round_fractional_up = true;
  absl::StatusOr<Trace> t = ReadTraceString(csv, "t.csv", round);
  REQUIRE(t.ok());
  CHECK(t->rounded_jobs == 3);
  CHECK(Describe(*t, t->jobs[0]) ==
        "0 1 ns=a team= q= class= prio=- name=job-1 [ps0 1 min 0 cpu=500 memory=2 nvidia.com/gpu=1] "
        "[ps1 2 min 0 nvidia.com/gpu=2]");
  CHECK(Describe(*t, t->jobs[2]) ==
        "2 1 ns=a team= q= class= prio=- name=job-3 [main 1 min 0 example.com/fpga=2 kubernetes.io/batch=1]");
}

TEST_CASE("ReadTraceString: node-constraint columns, read, shared, written and read back", "[sim][trace]") {
  const std::string csv =
      "submit,namespace,pod_sets,duration,node_selector,node_affinity,tolerations\n"
      "0,a,1x{cpu=1},1,,,\n"
      "1,a,1x{cpu=1},1,zone=b ; gpu-model=V100,gpu-model In V100|P100;rack DoesNotExist || x Gt 5,"
      "spot=true:NoSchedule;gpu:NoExecute;dedicated=ml;maintenance\n"
      "2,a,1x{cpu=1},1,gpu-model=V100;zone=b,gpu-model In V100|P100;rack DoesNotExist || x Gt 5,"
      "spot=true:NoSchedule;gpu:NoExecute;dedicated=ml;maintenance\n";
  absl::StatusOr<Trace> t = ReadTraceString(csv, "t.csv");
  REQUIRE(t.ok());
  CHECK(t->NodeConstraintsOf(t->jobs[0]) == nullptr);
  const TraceNodeConstraints* c = t->NodeConstraintsOf(t->jobs[1]);
  REQUIRE(c != nullptr);
  CHECK(c->node_selector == Labels{{"gpu-model", "V100"}, {"zone", "b"}});
  REQUIRE(c->node_affinity.size() == 2);
  CHECK(c->node_affinity[0].match_expressions.size() == 2);
  CHECK(c->node_affinity[0].match_expressions[0].values == std::vector<std::string>{"V100", "P100"});
  CHECK(c->node_affinity[1].match_expressions[0].op == NodeSelectorRequirement::Operator::kGt);
  REQUIRE(c->tolerations.size() == 4);
  CHECK(c->tolerations[0].op == Toleration::Operator::kEqual);
  CHECK(c->tolerations[1].op == Toleration::Operator::kExists);
  CHECK(*c->tolerations[1].effect == TaintEffect::kNoExecute);
  CHECK_FALSE(c->tolerations[2].effect.has_value());
  CHECK(c->tolerations[3].op == Toleration::Operator::kExists);
  // Rows 2 and 3 differ only in spacing and selector order: two cells, one meaning, stored twice
  // (the cache is by text), each written canonically.
  CHECK(t->node_constraints.size() == 3);
  const std::string written = WriteTrace(*t);
  CHECK_THAT(written, Catch::Contains("node_selector,node_affinity,tolerations\n"));
  CHECK_THAT(written, Catch::Contains(",gpu-model=V100;zone=b,gpu-model In V100|P100;rack DoesNotExist || x Gt 5,"
                                      "spot=true:NoSchedule;gpu:NoExecute;dedicated=ml;maintenance\n"));
  absl::StatusOr<Trace> again = ReadTraceString(written, "again.csv");
  REQUIRE(again.ok());
  CHECK(WriteTrace(*again) == written);
  // A trace without constraints keeps its columns (and bytes) as before.
  CHECK(WriteTrace(*ReadTraceString("submit,namespace,pod_sets,duration,node_selector\n0,a,1x{cpu=1},1,\n", "t.csv"))
            .find("node_selector") == std::string::npos);
}

TEST_CASE("ReadTraceString: bad node constraints name the column", "[sim][trace]") {
  const std::string h = "submit,namespace,pod_sets,duration,node_selector,node_affinity,tolerations\n0,a,1x{cpu=1},1,";
  CHECK(ErrorOf(h + "zone,,\n") == "t.csv:2: node_selector: \"zone\" is not key=value");
  CHECK(ErrorOf(h + "a=1;a=2,,\n") == "t.csv:2: node_selector: key \"a\" appears twice");
  CHECK(ErrorOf(h + ",zone Near a,\n") ==
        "t.csv:2: node_affinity: term 1: \"Near\" is not an operator (In, NotIn, Exists, DoesNotExist, Gt, Lt)");
  CHECK(ErrorOf(h + ",zone In,\n") == "t.csv:2: node_affinity: term 1: zone In needs values joined by |");
  CHECK(ErrorOf(h + ",x Gt five,\n") == "t.csv:2: node_affinity: term 1: x Gt takes one integer");
  CHECK(ErrorOf(h + ",a Exists || ,\n") == "t.csv:2: node_affinity: term 2 is empty");
  CHECK(ErrorOf(h + ",,spot=true:Sometimes\n") ==
        "t.csv:2: tolerations: \"spot=true:Sometimes\": \"Sometimes\" is not an effect (NoSchedule, "
        "PreferNoSchedule, NoExecute)");
  CHECK(ErrorOf(h + ",,=x\n") == "t.csv:2: tolerations: \"=x\": key must not be empty");
}

TEST_CASE("WriteTrace: canonical text that reads back equal", "[sim][trace]") {
  SECTION("the sample") {
    // Setup: the sample, written, read, written. Expect: equal jobs; identical text the second time.
    absl::StatusOr<Trace> t = ReadTraceFile((DataDir() / "sample.csv").string());
    REQUIRE(t.ok());
    const std::string text = WriteTrace(*t);
    CHECK(text == std::string(kHeader) +
                      "0,research,,gpu-queue,high,,8x{cpu=4;memory=32Gi;nvidia.com/gpu=1},,7200,pretrain\n"
                      "30,research,,,,,1x{cpu=1},,45,job-4\n"
                      "90,,ml,,,,launcher:1x{cpu=1}+worker:4x{cpu=32;memory=256Gi;nvidia.com/gpu=8},+2,5400,job-2\n"
                      "90,research,,gpu-queue,low,-5,2x{cpu=500m},1,9000,eval-1\n");
    absl::StatusOr<Trace> again = ReadTraceString(text, "again.csv");
    REQUIRE(again.ok());
    CHECK(DescribeAll(*again) == DescribeAll(*t));
    CHECK(WriteTrace(*again) == text);
  }
  SECTION("unnamed jobs in order keep an empty name") {
    absl::StatusOr<Trace> t = ReadTraceString("submit,namespace,pod_sets,duration\n0,a,1x{cpu=1},1.25\n0,a,1x{cpu=1},0.000001\n", "t.csv");
    REQUIRE(t.ok());
    CHECK(WriteTrace(*t) == std::string(kHeader) + "0,a,,,,,1x{cpu=1},,1.25,\n0,a,,,,,1x{cpu=1},,0.000001,\n");
  }
  SECTION("values the reader would misread are quoted") {
    // Setup: a hand-built trace with a comma and a quote in names. Expect: RFC 4180 quoting.
    Trace t;
    TraceJob j;
    j.row = 1;
    j.duration = Duration::Seconds(1);
    j.namespace_ = t.Intern("a,b");
    j.queue = t.Intern("say \"hi\"");
    t.jobs.push_back(j);
    CHECK(WriteTrace(t) == std::string(kHeader) + "0,\"a,b\",,\"say \"\"hi\"\"\",,,,,1,\n");
  }
}

TEST_CASE("simulate trace: checkpoint_interval, an optional per-job column, read, written and read back", "[sim][trace]") {
  SECTION("empty: the simulator's default; 0: none; else the interval, in the time syntax") {
    // Setup: three rows (empty, 0, 1h30m) written out of submit order. Expect: values by row, looked
    // up through the job; the column written last and only because a row gives a value.
    const std::string csv =
        "submit,namespace,pod_sets,duration,checkpoint_interval\n"
        "20,a,1x{cpu=1},10h,\n"
        "10,a,1x{cpu=1},10h,0\n"
        "0,a,1x{cpu=1},10h,1h30m\n";
    absl::StatusOr<Trace> t = ReadTraceString(csv, "t.csv");
    REQUIRE(t.ok());
    REQUIRE(t->checkpoint_intervals.size() == 3);
    const Duration fallback = Duration::Seconds(600);
    REQUIRE(t->jobs[0].row == 3);
    CHECK(t->CheckpointIntervalOf(t->jobs[0], fallback) == Duration::Seconds(5400));
    CHECK(t->CheckpointIntervalOf(t->jobs[1], fallback) == Duration{});
    CHECK(t->CheckpointIntervalOf(t->jobs[2], fallback) == fallback);
    const std::string text = WriteTrace(*t);
    CHECK(text ==
          "submit,namespace,team,queue,priority_class,priority,pod_sets,min_count,duration,name,checkpoint_interval\n"
          "0,a,,,,,1x{cpu=1},,36000,job-3,5400\n"
          "10,a,,,,,1x{cpu=1},,36000,,0\n"
          "20,a,,,,,1x{cpu=1},,36000,job-1,\n");
    absl::StatusOr<Trace> again = ReadTraceString(text, "again.csv");
    REQUIRE(again.ok());
    CHECK(WriteTrace(*again) == text);
    CHECK(again->CheckpointIntervalOf(again->jobs[0], fallback) == Duration::Seconds(5400));
    CHECK(again->CheckpointIntervalOf(again->jobs[2], fallback) == fallback);
  }
  SECTION("a column no row fills is dropped: no memory, and the trace writes without it") {
    absl::StatusOr<Trace> t = ReadTraceString("submit,namespace,pod_sets,duration,checkpoint_interval\n0,a,1x{cpu=1},1,\n", "t.csv");
    REQUIRE(t.ok());
    CHECK(t->checkpoint_intervals.empty());
    CHECK(WriteTrace(*t) == std::string(kHeader) + "0,a,,,,,1x{cpu=1},,1,\n");
  }
  SECTION("errors name the column") {
    CHECK(ErrorOf("submit,namespace,pod_sets,duration,checkpoint_interval\n0,a,1x{cpu=1},1,-1h\n") ==
          "t.csv:2: checkpoint_interval: \"-1h\" must not be negative");
    CHECK(ErrorOf("submit,namespace,pod_sets,duration,checkpoint_interval\n0,a,1x{cpu=1},1,often\n") ==
          "t.csv:2: checkpoint_interval: \"often\" is not a time (seconds, or numbers with units d, h, m, s, ms, "
          "e.g. 90, 1.5s, 1h30m)");
  }
}

TraceGeneratorOptions GoldenOptions() {
  // The options of tests/sim/data/generated-seed7-jobs20.csv, also written by the cli.trace_generate test:
  //   qm trace generate --seed 7 --jobs 20 --teams ml,nlp,vision --team-weights 3,1,1
  //                     --priority-mix high=0.2,low=0.8
  TraceGeneratorOptions o;
  o.seed = 7;
  o.jobs = 20;
  o.teams = {"ml", "nlp", "vision"};
  o.team_weights = {3, 1, 1};
  o.priority_mix = {{"high", 0.2}, {"low", 0.8}};
  return o;
}

TEST_CASE("GenerateTrace: same options, same bytes on every platform", "[sim][trace][generator]") {
  SECTION("golden file") {
    // Setup: 20 jobs from seed 7. Expect: byte for byte the shipped file (any compiler, any libc).
    absl::StatusOr<Trace> t = GenerateTrace(GoldenOptions());
    REQUIRE(t.ok());
    CHECK(WriteTrace(*t) == ReadFile(DataDir() / "generated-seed7-jobs20.csv"));
  }
  SECTION("determinism and seeds") {
    TraceGeneratorOptions o = GoldenOptions();
    o.jobs = 2000;
    const std::string a = WriteTrace(*GenerateTrace(o));
    CHECK(WriteTrace(*GenerateTrace(o)) == a);
    o.seed = 8;
    CHECK(WriteTrace(*GenerateTrace(o)) != a);
  }
  SECTION("generated → write → read → write is byte-identical") {
    TraceGeneratorOptions o = GoldenOptions();
    o.jobs = 5000;
    o.duration_sigma = 3;
    absl::StatusOr<Trace> t = GenerateTrace(o);
    REQUIRE(t.ok());
    const std::string text = WriteTrace(*t);
    absl::StatusOr<Trace> back = ReadTraceString(text, "gen.csv");
    REQUIRE(back.ok());
    CHECK(DescribeAll(*back) == DescribeAll(*t));
    CHECK(WriteTrace(*back) == text);
  }
}

TEST_CASE("GenerateTrace: the model's properties over 10⁴ jobs", "[sim][trace][generator]") {
  TraceGeneratorOptions o;
  o.seed = 42;
  o.jobs = 10'000;
  o.teams = {"a", "b", "c"};
  o.team_weights = {3, 1, 1};
  o.priority_mix = {{"high", 0.2}, {"low", 0.8}};
  o.diurnal_amplitude = 0.8;
  absl::StatusOr<Trace> t = GenerateTrace(o);
  REQUIRE(t.ok());
  REQUIRE(t->jobs.size() == 10'000);
  std::map<std::string, int> teams, classes, sizes;
  int64_t day = 0, night = 0;
  std::vector<int64_t> durations;
  for (const TraceJob& j : t->jobs) {
    ++teams[std::string(t->str(j.team))];
    ++classes[std::string(t->str(j.priority_class))];
    int64_t gpus = 0;
    for (const TracePodSet& ps : t->PodSetsOf(j))
      for (const TraceRequest& r : t->RequestsOf(ps))
        if (t->str(r.resource) == "nvidia.com/gpu") gpus += r.amount * ps.count;
    ++sizes[std::to_string(gpus)];
    const int64_t hour = j.submit.us / 3'600'000'000 % 24;
    (hour >= 6 && hour < 18 ? day : night) += 1;
    durations.push_back(j.duration.us);
    CHECK(j.duration >= o.min_duration);
    CHECK(j.duration <= o.max_duration);
  }
  SECTION("team and priority mixes are honoured") {
    // Expect: 60/20/20 % and 20/80 %, within 2 points.
    CHECK(std::abs(teams["a"] / 1e4 - 0.6) < 0.02);
    CHECK(std::abs(teams["b"] / 1e4 - 0.2) < 0.02);
    CHECK(std::abs(teams["c"] / 1e4 - 0.2) < 0.02);
    CHECK(std::abs(classes["high"] / 1e4 - 0.2) < 0.02);
    CHECK(std::abs(classes["low"] / 1e4 - 0.8) < 0.02);
  }
  SECTION("arrival rate and diurnal pattern") {
    // Expect: about 60 jobs per hour overall; daytime (6h–18h) gets (12 + 7.64·A)/(12 − 7.64·A) ≈ 3×
    // the night's arrivals for A = 0.8; a flat profile gets about the same.
    const double hours = static_cast<double>(t->jobs.back().submit.us) / 3.6e9;
    CHECK(std::abs(10'000 / hours - 60) < 3);
    CHECK(day > 2.5 * static_cast<double>(night));
    CHECK(day < 3.5 * static_cast<double>(night));
    TraceGeneratorOptions flat = o;
    flat.diurnal_amplitude = 0;
    absl::StatusOr<Trace> f = GenerateTrace(flat);
    REQUIRE(f.ok());
    int64_t fday = 0, fnight = 0;
    for (const TraceJob& j : f->jobs) (j.submit.us / 3'600'000'000 % 24 >= 6 && j.submit.us / 3'600'000'000 % 24 < 18 ? fday : fnight) += 1;
    CHECK(std::abs(static_cast<double>(fday) / static_cast<double>(fnight) - 1) < 0.1);
  }
  SECTION("sizes are powers of two with a Pareto tail") {
    // Expect: P(2s)/P(s) ≈ 2^-1.5 ≈ 0.354 at small sizes; the largest size (64) still occurs.
    int total = 0;
    for (const auto& [size, n] : sizes) {
      const int64_t s = std::stoll(size);
      CHECK((s & (s - 1)) == 0);
      CHECK(s <= 64);
      total += n;
    }
    CHECK(total == 10'000);
    CHECK(std::abs(static_cast<double>(sizes["2"]) / sizes["1"] - 0.354) < 0.04);
    CHECK(std::abs(static_cast<double>(sizes["4"]) / sizes["2"] - 0.354) < 0.06);
    CHECK(sizes["64"] > 0);
    // 64 GPUs at 8 per pod: 8 pods of 8.
    for (const TraceJob& j : t->jobs) {
      const TracePodSet& ps = t->PodSetsOf(j)[0];
      for (const TraceRequest& r : t->RequestsOf(ps))
        if (t->str(r.resource) == "nvidia.com/gpu") CHECK((r.amount * ps.count <= 8 ? ps.count == 1 : r.amount == 8));
    }
  }
  SECTION("durations are log-normal around the median") {
    // Expect: the median within 10 % of 30 min; a heavy upper tail (p90 > 5 × median).
    std::sort(durations.begin(), durations.end());
    const double median = static_cast<double>(durations[durations.size() / 2]) / 1e6;
    CHECK(std::abs(median / 1800 - 1) < 0.1);
    CHECK(static_cast<double>(durations[durations.size() * 9 / 10]) / 1e6 > 5 * median);
  }
}

TEST_CASE("GenerateTrace: options are validated", "[sim][trace][generator]") {
  // Setup: one bad option at a time. Expect: the exact message, no trace.
  struct Case {
    void (*change)(TraceGeneratorOptions&);
    std::string message;
  };
  const Case cases[] = {
      {[](TraceGeneratorOptions& o) { o.jobs = -1; }, "trace generator: jobs: -1 is outside 0..100000000"},
      {[](TraceGeneratorOptions& o) { o.teams = {}; }, "trace generator: teams: at least one team is needed"},
      {[](TraceGeneratorOptions& o) { o.teams = {"a", "a"}; }, "trace generator: teams: \"a\" appears twice"},
      {[](TraceGeneratorOptions& o) { o.teams = {"a b"}; },
       "trace generator: teams: \"a b\" may contain only letters, digits, '-', '.' and '_'"},
      {[](TraceGeneratorOptions& o) { o.team_weights = {1}; }, "trace generator: team_weights: 1 weights for 2 teams"},
      {[](TraceGeneratorOptions& o) { o.team_weights = {0, 0}; }, "trace generator: team_weights: the weights add up to 0"},
      {[](TraceGeneratorOptions& o) { o.team_weights = {1, -1}; }, "trace generator: team_weights: -1 is not a weight >= 0"},
      {[](TraceGeneratorOptions& o) { o.arrivals_per_hour = 0; }, "trace generator: arrivals_per_hour: 0 is outside (0, 1e9]"},
      {[](TraceGeneratorOptions& o) { o.arrivals_per_hour = NAN; }, "trace generator: arrivals_per_hour: nan is outside (0, 1e9]"},
      {[](TraceGeneratorOptions& o) { o.diurnal_amplitude = 1.5; }, "trace generator: diurnal_amplitude: 1.5 is outside [0, 1]"},
      {[](TraceGeneratorOptions& o) { o.max_gpus = 0; }, "trace generator: max_gpus: 0 is outside 1..65536"},
      {[](TraceGeneratorOptions& o) { o.size_alpha = 0; }, "trace generator: size_alpha: 0 is outside (0, 100]"},
      {[](TraceGeneratorOptions& o) { o.gpus_per_pod = 6; }, "trace generator: gpus_per_pod: 6 is not a power of two in 1..1024"},
      {[](TraceGeneratorOptions& o) { o.median_duration = Duration::Microseconds(1500); },
       "trace generator: median_duration: 0.0015s must be a whole number of milliseconds in (0, 100 years]"},
      {[](TraceGeneratorOptions& o) { o.min_duration = Duration::Seconds(0); },
       "trace generator: min_duration: 0s must be a whole number of milliseconds in (0, 100 years]"},
      {[](TraceGeneratorOptions& o) { o.min_duration = Duration::Seconds(100); o.max_duration = Duration::Seconds(10); },
       "trace generator: min_duration: 100s is above max_duration 10s"},
      {[](TraceGeneratorOptions& o) { o.duration_sigma = -1; }, "trace generator: duration_sigma: -1 is outside [0, 10]"},
      {[](TraceGeneratorOptions& o) { o.priority_mix = {{"high", 1}, {"high", 1}}; },
       "trace generator: priority_mix: \"high\" appears twice"},
      {[](TraceGeneratorOptions& o) { o.priority_mix = {{"high", 0}}; }, "trace generator: priority_mix: the weights add up to 0"},
      {[](TraceGeneratorOptions& o) { o.gpu_resource = "cpu"; }, "trace generator: gpu_resource: \"cpu\" is not a GPU resource"},
      {[](TraceGeneratorOptions& o) { o.jobs = 1'000'000; o.arrivals_per_hour = 1e-3; },
       "trace generator: arrivals_per_hour: 1000000 jobs at 0.001 per hour run past the 100-year limit"},
  };
  for (const Case& c : cases) {
    TraceGeneratorOptions o;
    c.change(o);
    absl::StatusOr<Trace> t = GenerateTrace(o);
    INFO(c.message);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().message() == c.message);
  }
}

TEST_CASE("Portable math: close to libm, and the same everywhere", "[sim][trace][generator]") {
  // Expect: within 1e-13 relative of the C library (accuracy; determinism is the golden file's).
  for (double x : {1e-300, 1e-5, 0.1, 0.5, 0.7071, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300}) {
    INFO(x);
    CHECK(std::abs(internal::PortableLog(x) - std::log(x)) <= 1e-13 * std::max(1.0, std::abs(std::log(x))));
  }
  for (double x : {-700.0, -20.0, -1.0, -1e-9, 0.0, 0.3, 1.0, 5.5, 100.0, 700.0}) {
    INFO(x);
    CHECK(std::abs(internal::PortableExp(x) / std::exp(x) - 1) <= 1e-13);
  }
  for (int i = 0; i < 64; ++i) {
    const double phase = i / 64.0;
    CHECK(std::abs(internal::PortableSinTwoPi(phase) - std::sin(2 * M_PI * phase)) <= 1e-13);
  }
  CHECK(internal::PortableExp(-800) == 0);
  CHECK(std::isinf(internal::PortableExp(800)));
}

TEST_CASE("TraceFromPerfConfig: workloads as perf_replay creates them", "[sim][trace][perf]") {
  // Setup: tests/sim/data/perf-small.yaml, 2 cohorts × 2 queues × 3 rounds × 2 templates.
  // Expect: 24 jobs; namespace = queue = the ClusterQueue's name; names `<class>-<set>-<round>-<i>`;
  // creation at (r·n + i + 1)·interval; runtime 0 becomes 1 ms; priorities kept.
  absl::StatusOr<Trace> t = ReadTraceOrPerfConfigFile((DataDir() / "perf-small.yaml").string());
  REQUIRE(t.ok());
  REQUIRE(t->jobs.size() == 24);
  CHECK(Describe(*t, t->jobs[0]) == "0.1 0.2 ns=cq-0-0-cohort-0 team= q=cq-0-0-cohort-0 class= prio=50 name=small-0-0-0 [main 1 min 0 cpu=1000]");
  CHECK(Describe(*t, t->jobs[1]) == "0.1 0.2 ns=cq-0-1-cohort-0 team= q=cq-0-1-cohort-0 class= prio=50 name=small-0-0-0 [main 1 min 0 cpu=1000]");
  CHECK(Describe(*t, t->jobs[23]) == "0.6 0.001 ns=cq-0-1-cohort-1 team= q=cq-0-1-cohort-1 class= prio=-1 name=large-0-2-1 [main 2 min 0 cpu=2000]");
  // The written trace reads back equal.
  absl::StatusOr<Trace> back = ReadTraceString(WriteTrace(*t), "perf.csv");
  REQUIRE(back.ok());
  CHECK(DescribeAll(*back) == DescribeAll(*t));
  SECTION("a configuration asking for too many workloads is refused before converting") {
    const std::string path = (std::filesystem::temp_directory_path() / "qm-trace-test-huge.yaml").string();
    std::ofstream(path) << "cohorts:\n- className: c\n  count: 100000\n  queuesSets:\n  - className: q\n    count: 100000\n"
                           "    workloadsSets:\n    - count: 100000\n      creationIntervalMs: 1\n"
                           "      workloads: [{className: w, runtimeMs: 1, request: 1}]\n";
    absl::StatusOr<Trace> huge = ReadTraceOrPerfConfigFile(path);
    std::filesystem::remove(path);
    REQUIRE_FALSE(huge.ok());
    CHECK(huge.status().message() == path + ": the configuration creates 1000000000000000 workloads, a trace holds at most 100000000");
  }
  SECTION("a CSV trace is read as a trace") {
    absl::StatusOr<Trace> csv = ReadTraceOrPerfConfigFile((DataDir() / "sample.csv").string());
    REQUIRE(csv.ok());
    CHECK(csv->jobs.size() == 4);
  }
}

}  // namespace
}  // namespace trace_test
}  // namespace qm::sim
