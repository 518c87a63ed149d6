// The simulation summary's text, JSON and HTML forms (sim_result.h) on hand-built results.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include "fmt/format.h"
#include "qm/sim/sim_result.h"
#include "sim/sim_result_fixture.h"

namespace qm::sim {
namespace sim_output_test {
namespace {

// A strict recursive reader of RFC 8259 JSON that only checks the syntax: one value, then nothing
// but the final newline.
class JsonChecker {
 public:
  explicit JsonChecker(std::string_view text) : s_(text) {}

  bool Valid() {
    SkipSpace();
    if (!Value(0)) return false;
    SkipSpace();
    return pos_ == s_.size();
  }
  size_t error_at() const { return pos_; }

 private:
  bool Value(int depth) {
    if (depth > 64 || pos_ >= s_.size()) return false;
    switch (s_[pos_]) {
      case '{': return Object(depth);
      case '[': return Array(depth);
      case '"': return String();
      case 't': return Literal("true");
      case 'f': return Literal("false");
      case 'n': return Literal("null");
      default: return Number();
    }
  }
  bool Object(int depth) {
    ++pos_;
    SkipSpace();
    if (Eat('}')) return true;
    do {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"' || !String()) return false;
      SkipSpace();
      if (!Eat(':')) return false;
      SkipSpace();
      if (!Value(depth + 1)) return false;
      SkipSpace();
    } while (Eat(','));
    return Eat('}');
  }
  bool Array(int depth) {
    ++pos_;
    SkipSpace();
    if (Eat(']')) return true;
    do {
      SkipSpace();
      if (!Value(depth + 1)) return false;
      SkipSpace();
    } while (Eat(','));
    return Eat(']');
  }
  bool String() {
    ++pos_;
    while (pos_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[pos_++]);
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c != '\\') continue;
      if (pos_ >= s_.size()) return false;
      const char e = s_[pos_++];
      if (e == 'u') {
        for (int i = 0; i < 4; ++i) {
          if (pos_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[pos_++]))) return false;
        }
      } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        return false;
      }
    }
    return false;
  }
  bool Number() {
    Eat('-');
    if (Eat('0')) {
    } else if (!Digits()) {
      return false;
    }
    if (Eat('.') && !Digits()) return false;
    if (Eat('e') || Eat('E')) {
      if (!Eat('+')) Eat('-');
      if (!Digits()) return false;
    }
    return true;
  }
  bool Digits() {
    const size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    return pos_ > start;
  }
  bool Literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool Eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void SkipSpace() {
    while (pos_ < s_.size() && std::string_view(" \t\r\n").find(s_[pos_]) != std::string_view::npos) ++pos_;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

bool ValidJson(const std::string& text) {
  JsonChecker checker(text);
  const bool ok = checker.Valid();
  if (!ok) UNSCOPED_INFO("invalid JSON at byte " << checker.error_at());
  return ok && !text.empty() && text.back() == '\n';
}

// Every element the report opens is closed in order, void elements aside; returns "" or the
// first problem.
std::string TagBalanceProblem(const std::string& html) {
  static const std::vector<std::string> kVoid = {"meta", "br", "img", "input", "hr", "link"};
  std::vector<std::string> open;
  size_t pos = 0;
  while ((pos = html.find('<', pos)) != std::string::npos) {
    if (html.compare(pos, 9, "<!DOCTYPE") == 0) {
      pos = html.find('>', pos);
      continue;
    }
    const size_t end = html.find('>', pos);
    if (end == std::string::npos) return "unterminated tag";
    std::string tag = html.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    const bool closing = !tag.empty() && tag[0] == '/';
    const bool self_closing = !tag.empty() && tag.back() == '/';
    if (closing) tag.erase(0, 1);
    const std::string name = tag.substr(0, tag.find_first_of(" \n/"));
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return "bad tag <" + tag + ">";
    if (closing) {
      if (open.empty() || open.back() != name) {
        return "</" + name + "> closes <" + (open.empty() ? std::string("nothing") : open.back()) + ">";
      }
      open.pop_back();
    } else if (!self_closing && std::find(kVoid.begin(), kVoid.end(), name) == kVoid.end()) {
      open.push_back(name);
    }
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

size_t Count(const std::string& text, std::string_view needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

// Tags (from '<' to '>') that contain `needle`; escaped text has no '<', so this sees markup only.
size_t TagsWith(const std::string& html, std::string_view needle) {
  size_t n = 0;
  for (size_t pos = html.find('<'); pos != std::string::npos; pos = html.find('<', pos + 1)) {
    const size_t end = html.find('>', pos);
    if (end == std::string::npos) break;
    if (std::string_view(html).substr(pos, end - pos).find(needle) != std::string_view::npos) ++n;
  }
  return n;
}

// The report is self-contained: no reference leaves the page but the SVG namespace name.
void CheckSelfContained(const std::string& html) {
  CHECK(Count(html, "http://") == Count(html, "http://www.w3.org/2000/svg"));
  CHECK(Count(html, "https://") == 0);
  CHECK(TagsWith(html, " src=") == 0);
  CHECK(TagsWith(html, " href=\"http") == 0);
  CHECK(Count(html, "<script") == 0);
  CHECK(Count(html, "<link") == 0);
  CHECK(Count(html, "url(") == 0);
}

// The first line of `text` that starts with `start`, its runs of spaces collapsed to one; "" if none.
std::string Line(const std::string& text, std::string_view start) {
  size_t pos = text.rfind(start, 0) == 0 ? 0 : text.find("\n" + std::string(start));
  if (pos == std::string::npos) return "";
  if (text[pos] == '\n') ++pos;
  const std::string line = text.substr(pos, text.find('\n', pos) - pos);
  std::string out;
  for (char c : line) {
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  }
  return out;
}

test::GeneratedShape Shape(std::string label, int queues, int buckets, int preemptions, int variant) {
  test::GeneratedShape shape;
  shape.label = std::move(label);
  shape.queues = queues;
  shape.buckets = buckets;
  shape.preemptions = preemptions;
  shape.variant = variant;
  return shape;
}

TEST_CASE("DisplayAmount: cores, GiB or counted", "[sim][output]") {
  CHECK(DisplayAmount("cpu", 1500) == 1.5);
  CHECK(DisplayAmount("memory", int64_t{3} << 30) == 3.0);
  CHECK(DisplayAmount("hugepages-2Mi", int64_t{1} << 29) == 0.5);
  CHECK(DisplayAmount("nvidia.com/gpu", 8) == 8.0);
  CHECK(std::string(DisplayUnit("cpu")) == "cores");
  CHECK(std::string(DisplayUnit("ephemeral-storage")) == "GiB");
  CHECK(std::string(DisplayUnit("pods")).empty());
}

TEST_CASE("FormatSimulationText: the tiny run's exact tables", "[sim][output]") {
  const std::string expected = R"(Run tiny
measure                                       value
--------------------------------------------  -----
jobs submitted                                    2
admissions (readmissions included)                3
jobs admitted (at least once)                     2
jobs started (placed on nodes at least once)      2
jobs completed                                    1
jobs never admitted                               0
  of which can never be (too large)               0
preemptions                                       1
preemptions per completed job                 1.000
node-failure evictions                            0
node failures                                     0
scheduling cycles                                 4
virtual instants                                  3
makespan (s)                                  120.0
admitted but unplaced (job-hours)              0.50
Jain's index (time average)                   1.000
GPU-hours completed (requests x duration)      0.00
GPU-hours lost (goodput lost)                  0.00
GPU-hours lost per GPU-hour completed         0.000
checkpoints kept by preempted jobs                0
stall window (h)                              24.00
livelock (run stopped: no progress)              no
)";
  const std::string text = FormatSimulationText(test::TinyResult());
  CHECK(text.substr(0, expected.size()) == expected);
  const std::string jobs = R"(Jobs by ClusterQueue and priority class (times in s)
cluster queue  team  class  jobs  admitted  started  completed  pending  preempted  evicted  wait (admitted) p50   p90   p99   max  done p50   p90   p99   max  unplaced h
-------------  ----  -----  ----  --------  -------  ---------  -------  ---------  -------  -------------------  ----  ----  ----  --------  ----  ----  ----  ----------
team-a-cq      a     (all)     2         2        2          1        0          1        0                 10.0  20.0  20.0  20.0      90.0  90.0  90.0  90.0        0.50
team-a-cq      a     high      2         2        2          1        0          1        0                 10.0  20.0  20.0  20.0      90.0  90.0  90.0  90.0        0.50
completed <= started <= admitted: a job admitted but never placed on nodes has not run; waits here are over admitted jobs (next table: all jobs)

Wait (all, censored at end): submission to first admission, or to the end of the run for jobs never admitted (s)
cluster queue  team  class  jobs waited  never admitted  wait (all) p50   p90   p99   max  mean
-------------  ----  -----  -----------  --------------  --------------  ----  ----  ----  ----
team-a-cq      a     (all)            2               0            10.0  20.0  20.0  20.0  15.0
team-a-cq      a     high             2               0            10.0  20.0  20.0  20.0  15.0
)";
  CHECK(text.find(jobs) != std::string::npos);
  const std::string hours = R"(Resource-hours by ClusterQueue and priority class
cluster queue  class  resource     used  borrowed  lent  goodput lost
-------------  -----  -----------  ----  --------  ----  ------------
(all queues)   (all)  cpu (cores)  1.50      0.25  0.00          0.12
team-a-cq      (all)  cpu (cores)  1.50      0.25  0.00          0.12
team-a-cq      high   cpu (cores)  1.50      0.25  0.00          0.12
)";
  CHECK(text.find(hours) != std::string::npos);
  const std::string rest = R"(Cluster utilization (time averages over the run)
flavor   resource     capacity  nominal  avg used  avg admitted  utilization %
-------  -----------  --------  -------  --------  ------------  -------------
default  cpu (cores)      4.00     4.00      1.50          2.00           37.5

Weighted share by ClusterQueue (over the time buckets)
cluster queue  mean share  max share  preemptions of its jobs
-------------  ----------  ---------  -----------------------
team-a-cq           0.375      0.500                        1

Jain's index over time (mean over buckets with demand)
from (s)  to (s)  Jain's index
--------  ------  ------------
     0.0    60.0         1.000
    60.0   120.0         1.000

Preemptions and evictions by victim ClusterQueue and reason
cluster queue  reason          by         count
-------------  --------------  ---------  -----
team-a-cq      InClusterQueue  team-a-cq      1
)";
  CHECK(text.substr(text.size() - std::min(text.size(), rest.size())) == rest);
  // 0.125 h of goodput lost prints as 0.12: fmt rounds the exact binary value half to even.

}

TEST_CASE("FormatSimulationJson: the tiny run's exact object", "[sim][output]") {
  const std::string expected =
      R"({"label":"tiny","jobs":2,"admissions":3,"admitted":2,"started":2,"completed":1,"never_admitted":0,"never_admittable":0,)"
      R"("preemptions":1,"fault_evictions":0,"node_failures":0,"cycles":4,"instants":3,"makespan_s":120,)"
      R"("unplaced_hours":0.5,"avg_jain":1,"preemptions_per_completed_job":1,"gpu_hours_completed":0,)"
      R"("gpu_hours_lost":0,"gpu_hours_lost_per_completed":0,"checkpoints_kept":0,"stall_window_s":86400,)"
      R"("livelock":{"detected":false,"at_one_instant":false,"stopped_s":0,"stalled_since_s":0,"window_s":0,)"
      R"("preemptions":0,"pairs":[],"workloads":[],"workloads_left_out":0},)"
      R"("resource_hours":[{"resource":"cpu","unit":"cores","used":1.5,"borrowed":0.25,"lent":0,"goodput_lost":0.125}],)"
      R"("groups":[{"cluster_queue":"team-a-cq","team":"a","priority_class":"","jobs":2,"admitted":2,"started":2,)"
      R"("completed":1,"never_admitted":0,"preemptions":1,"evictions":0,)"
      R"("wait":{"count":2,"mean_s":15,"p50_s":10,"p90_s":20,"p99_s":20,"max_s":20},)"
      R"("wait_all":{"count":2,"mean_s":15,"p50_s":10,"p90_s":20,"p99_s":20,"max_s":20},)"
      R"("completion":{"count":1,"mean_s":90,"p50_s":90,"p90_s":90,"p99_s":90,"max_s":90},)"
      R"("unplaced_hours":0.5,"resource_hours":[{"resource":"cpu","unit":"cores","used":1.5,)"
      R"("borrowed":0.25,"lent":0,"goodput_lost":0.125}],"wait_quantiles_s":[)";
  const std::string json = FormatSimulationJson(test::TinyResult());
  CHECK(json.substr(0, expected.size()) == expected);
  const std::string tail =
      R"("utilization":[{"flavor":"default","resource":"cpu","unit":"cores","capacity":4,"nominal":4,)"
      R"("avg_used":1.5,"avg_admitted":2,"utilization":0.375}],)"
      R"("series":{"bucket_seconds":60,"start_s":[0,60],"queues":["team-a-cq"],"resources":["cpu"],)"
      R"("used":{"cpu":{"team-a-cq":[1,2]}},"capacity":{"cpu":[4,4]},"pending":{"team-a-cq":[1,0]},)"
      R"("share":{"team-a-cq":[0.5,0.25]},"jain":[1,1],"preemptions":{"team-a-cq":[1,0]},)"
      R"("pair_preemptions":[{"preemptor_queue":"team-a-cq","cluster_queue":"team-a-cq","counts":[1,0]}]},)"
      R"("preemption_log":[{"time_s":30,"workload":"team-a/job-1","cluster_queue":"team-a-cq",)"
      R"("preemptor_queue":"team-a-cq","reason":"InClusterQueue"}],"preemption_log_dropped":0,)"
      R"("preemption_counts":[{"cluster_queue":"team-a-cq","reason":"InClusterQueue","preemptor_queue":"team-a-cq",)"
      R"("count":1}],"preemptions_by_reason":[{"cluster_queue":"team-a-cq","reason":"InClusterQueue","count":1}]})"
      "\n";
  CHECK(json.substr(json.size() - std::min(json.size(), tail.size())) == tail);
  CHECK(Count(json, "\"wait_quantiles_s\":[10,10,") == 2);
  CHECK(Count(json, "\"wait_all_quantiles_s\":[10,10,") == 2);
  CHECK(ValidJson(json));
}

TEST_CASE("Simulation outputs: valid JSON and balanced, self-contained HTML for every fixture",
          "[sim][output]") {
  const std::vector<SimulationResult> fixtures = {
      test::TinyResult(), test::EmptyResult(), test::HostileResult(),
      test::GeneratedResult(Shape("four", 4, 48, 40, 0)),
      test::GeneratedResult(Shape("calm", 3, 10, 0, 1)),
      test::GeneratedResult(Shape("hundred", 100, 120, 2000, 2))};
  for (const SimulationResult& r : fixtures) {
    INFO("fixture " << r.label);
    CHECK(ValidJson(FormatSimulationJson(r)));
    const std::string html = RenderHtmlReport(std::span(&r, 1));
    CHECK(TagBalanceProblem(html).empty());
    INFO(TagBalanceProblem(html));
    CheckSelfContained(html);
    CHECK(!FormatSimulationText(r).empty());
  }
  CHECK(ValidJson(FormatComparisonJson(fixtures)));
  const std::string html = RenderHtmlReport(fixtures);
  CHECK(TagBalanceProblem(html) == "");
  CheckSelfContained(html);
  CHECK(ValidJson(FormatComparisonJson({})));
}

TEST_CASE("Simulation outputs: equal input gives byte-identical output", "[sim][output]") {
  const std::vector<SimulationResult> a = {test::GeneratedResult(Shape("x", 6, 30, 50, 0)),
                                           test::GeneratedResult(Shape("y", 6, 30, 0, 3))};
  const std::vector<SimulationResult> b = a;
  CHECK(FormatComparisonText(a) == FormatComparisonText(b));
  CHECK(FormatComparisonJson(a) == FormatComparisonJson(b));
  CHECK(RenderHtmlReport(a) == RenderHtmlReport(b));
  CHECK(FormatSimulationText(a[0]) == FormatSimulationText(test::GeneratedResult(Shape("x", 6, 30, 50, 0))));
  // Different input must show: the outputs are not constant.
  CHECK(FormatSimulationJson(a[0]) != FormatSimulationJson(a[1]));
}

TEST_CASE("Simulation outputs: hostile names are escaped", "[sim][output]") {
  const SimulationResult r = test::HostileResult();
  SECTION("HTML: no markup from names") {
    // Setup: the label is a script element, a class closes a cell, a reason is an image.
    // Expect: each appears only as text (entities), never as markup.
    const std::string html = RenderHtmlReport(std::span(&r, 1));
    CHECK(Count(html, "<script") == 0);
    CHECK(Count(html, "<img") == 0);
    CHECK(Count(html, "</td><script>") == 0);
    CHECK(Count(html, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") >= 2);
    CHECK(Count(html, "q&amp;&quot;a&#39;&lt;b&gt;") >= 1);
    CHECK(Count(html, "&lt;img src=x onerror=alert(1)&gt;") >= 1);
    CHECK(TagBalanceProblem(html).empty());
  }
  SECTION("JSON: quotes, backslashes and control characters escaped, UTF-8 passed through") {
    const std::string json = FormatSimulationJson(r);
    CHECK(ValidJson(json));
    CHECK(Count(json, R"("label":"<script>alert(\"x\")</script>")") == 1);
    CHECK(Count(json, "\"q&\\\"a'<b>\\u0001\xc3\xa9\"") >= 3);
    CHECK(Count(json, R"("flavor":"fl\\avor\n\"x\"")") == 1);
  }
}

TEST_CASE("RenderHtmlReport: empty runs and runs without preemptions say so", "[sim][output]") {
  SECTION("a run without jobs has no charts and a message") {
    const SimulationResult r = test::EmptyResult();
    const std::string html = RenderHtmlReport(std::span(&r, 1));
    CHECK(Count(html, "<svg") == 0);
    CHECK(Count(html, "No jobs were submitted") == 1);
    CHECK(Count(html, "No preemptions or evictions in this run.") == 1);
  }
  SECTION("a run without preemptions has its other charts and no timeline") {
    // Setup: 3 resources. Expect: 3 utilization, pending, CDF, share and Jain charts = 7.
    const SimulationResult r = test::GeneratedResult(Shape("calm", 3, 10, 0, 1));
    const std::string html = RenderHtmlReport(std::span(&r, 1));
    CHECK(Count(html, "<svg") == 7);
    CHECK(Count(html, "No preemptions or evictions in this run.") == 1);
    // The wait CDF is over every job, never-admitted ones censored, and says so.
    CHECK(Count(html, "Wait-time CDF per team and priority class, all jobs, never admitted censored at the end of the run") >= 1);
  }
  SECTION("a run with preemptions draws the timeline and the preemptor → victim chart") {
    // Setup: 40 preemptions, 30 of them by another queue. Expect: 7 charts + timeline + pairs = 9.
    const SimulationResult r = test::GeneratedResult(Shape("four", 4, 48, 40, 0));
    const std::string html = RenderHtmlReport(std::span(&r, 1));
    CHECK(Count(html, "<svg") == 9);
    CHECK(Count(html, "id=\"run1-preemptions\"><figcaption>") == 1);
    CHECK(Count(html, "id=\"run1-pair-preemptions\"><figcaption>") == 1);
    CHECK(Count(html, "team-01 \u2192 team-00") >= 1);
  }
}

TEST_CASE("RenderHtmlReport: 100 queues keep a short legend and a small file", "[sim][output]") {
  // Setup: 100 queues × 120 buckets, 2,000 preemptions, six runs compared.
  // Expect: the top 10 teams by name and "other (90)" in the stacked charts; a few MB at most.
  std::vector<SimulationResult> runs;
  for (int v = 0; v < 6; ++v) runs.push_back(test::GeneratedResult(Shape(fmt::format("run-{}", v), 100, 120, 2000, v)));
  const std::string one = RenderHtmlReport(std::span(runs.data(), 1));
  // 3 resources + pending, each naming "other" in its legend and on its area or line; and the 75
  // preemptor → victim pairs (queue q+1 preempts queue q), of which 65 are "other".
  CHECK(Count(one, "<title>other (90)</title>") == 8);
  CHECK(Count(one, "<title>other (65)</title>") == 2);
  CHECK(one.size() < 1'000'000);
  const std::string six = RenderHtmlReport(runs);
  CHECK(six.size() < 6'000'000);
  CHECK(Count(six, "<section id=\"run") == 6);
  CHECK(Count(six, "<section id=\"comparison\">") == 1);
}

TEST_CASE("simulate output: a livelocked run says so first, with its diagnosis", "[sim][output]") {
  test::GeneratedShape shape = Shape("stuck", 4, 48, 40, 0);
  shape.livelock = true;
  const SimulationResult stuck = test::GeneratedResult(shape);
  const Livelock& l = stuck.livelock;
  REQUIRE(l.pairs.size() == 3);
  SECTION("text: a headline, the pairs and the workloads before the tables") {
    // Setup: stopped at 14400 s after a 1 h window. Expect: the headline first, then the tables.
    const std::string text = FormatSimulationText(stuck);
    CHECK(text.rfind("LIVELOCK: no progress since t=10800.0 s (3.00 h): for 1.00 h no job completed, kept a "
                     "checkpoint or ran uninterrupted, while 99 preemptions and evictions went on; the run was "
                     "stopped at t=14400.0 s (4.00 h).\n\n", 0) == 0);
    CHECK(text.find("Livelock: preemptions in the last 1.00 h by preemptor -> victim ClusterQueue\n"
                    "preemptor queue  victim queue  preemptions\n") != std::string::npos);
    CHECK(text.find("Livelock: most-preempted workloads in the last 1.00 h\n") != std::string::npos);
    CHECK(text.find("2 more workloads were preempted in the window\n") != std::string::npos);
    CHECK(Line(text, "livelock (run") == "livelock (run stopped: no progress) yes");
    CHECK(text.find("LIVELOCK") < text.find("Run stuck"));
  }
  SECTION("JSON: the livelock object") {
    const std::string json = FormatSimulationJson(stuck);
    CHECK(ValidJson(json));
    CHECK(Count(json, R"("livelock":{"detected":true,"at_one_instant":false,"stopped_s":14400,)"
                      R"("stalled_since_s":10800,"window_s":3600,"preemptions":99,"pairs":[{)") == 1);
    CHECK(Count(json, R"("workloads_left_out":2})") == 1);
  }
  SECTION("HTML: a banner at the top of the run, and a note in the comparison") {
    const std::vector<SimulationResult> runs = {test::GeneratedResult(Shape("fine", 4, 48, 40, 1)), stuck};
    const std::string html = RenderHtmlReport(runs);
    CHECK(TagBalanceProblem(html).empty());
    CHECK(Count(html, "<div class=\"livelock\" id=\"run2-livelock\" role=\"alert\">") == 1);
    CHECK(Count(html, "<div class=\"livelock\" id=\"run1-livelock\"") == 0);
    CHECK(Count(html, "<h3>Livelock: the run was stopped at 4.00 h</h3>") == 1);
    CHECK(Count(html, "<a href=\"#run2-livelock\">Diagnosis</a>") == 1);
    CHECK(Count(html, "Run 2: stuck</a> <strong>(livelock: stopped)</strong>") == 1);
    // The banner comes before the run's overview table.
    CHECK(html.find("id=\"run2-livelock\"") < html.find("id=\"run2-overview\""));
    const std::string text = FormatComparisonText(runs);
    CHECK(text.rfind("stuck: LIVELOCK: no progress since", 0) == 0);
    CHECK(Line(text, "livelock (stopped") == "livelock (stopped at, h) no yes, 4.00");
  }
}

TEST_CASE("simulate output: the preemption table comes from the complete counters, not the capped log", "[sim][output]") {
  // Setup: the tiny run whose log kept 1 of 5002 preemptions; the counters hold all of them.
  // Expect: the counts in the table, and no note about records left out.
  SimulationResult r = test::TinyResult();
  r.preemption_log_dropped = 5001;
  r.preemption_counts = {{.cluster_queue = "team-a-cq", .reason = "InClusterQueue", .preemptor_queue = "team-a-cq", .count = 5000},
                         {.cluster_queue = "team-a-cq", .reason = "NodeFailures", .preemptor_queue = "", .count = 2}};
  const std::string text = FormatSimulationText(r);
  const std::string table = R"(Preemptions and evictions by victim ClusterQueue and reason
cluster queue  reason          by          count
-------------  --------------  ----------  -----
team-a-cq      InClusterQueue  team-a-cq    5000
team-a-cq      NodeFailures    (eviction)      2
)";
  CHECK(text.substr(text.size() - std::min(text.size(), table.size())) == table);
}

TEST_CASE("FormatComparisonText: one column per run, '-' where a run lacks a row", "[sim][output]") {
  // Setup: run "a" has 2 queues, run "b" 3. Expect: the third queue's rows show "-" under "a";
  // team-02-cq in b admitted 25 + 30 of 27 + 32 jobs.
  const std::vector<SimulationResult> runs = {test::GeneratedResult(Shape("a", 2, 8, 4, 0)),
                                              test::GeneratedResult(Shape("b", 3, 8, 4, 1))};
  const std::string text = FormatComparisonText(runs);
  // Jobs: run a = (20 + 25) + (23 + 28) = 96; run b (variant 1) = 47 + 53 + 59 = 159.
  CHECK(text.find("measure                                     a       b\n") != std::string::npos);
  CHECK(text.find("jobs submitted                             96     159\n") != std::string::npos);
  CHECK(text.find("jobs started (placed at least once)        92     150\n") != std::string::npos);
  CHECK(text.find("livelock (stopped at, h)                   no      no\n") != std::string::npos);
  CHECK(text.find("team-02-cq     (all)      -  55/59\n") != std::string::npos);
}

}  // namespace
}  // namespace sim_output_test
}  // namespace qm::sim
