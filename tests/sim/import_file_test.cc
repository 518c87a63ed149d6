// Reading the input files of a trace import (lib/sim/import_file.h, `ImportTraceFiles`): regular
// files are mapped, other files read to their end, and either way the import sees the same bytes
// and gives the same trace, nodes, summary and errors as inputs built in memory.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "qm/sim/trace_import.h"
#include "sim/import_file.h"
#include "sim/import_test_support.h"

namespace qm::sim {
namespace import_file_test {
namespace {

using internal::ReadImportFile;
using internal::ReadImportFileToString;

// A scratch folder of this test process (tests run in parallel processes), removed at the end.
class ScratchDir {
 public:
  ScratchDir()
      : path_(std::filesystem::temp_directory_path() / ("qm-import-file-test-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string Write(const std::string& name, const std::string& text) const {
    const std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string Path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The sample files of `folder`, by their paths in the source tree.
std::vector<std::string> SamplePaths(const std::string& folder, const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const std::string& name : names) paths.push_back((test::ImportDataDir(folder) / name).string());
  return paths;
}

// The same files as in-memory inputs named by those paths.
std::vector<ImportInput> InMemory(const std::vector<std::string>& paths) {
  std::vector<ImportInput> inputs;
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    inputs.push_back({path, std::string(std::istreambuf_iterator<char>(in), {})});
  }
  return inputs;
}

std::string Describe(const absl::StatusOr<ImportedTrace>& t, TraceFormat format) {
  if (!t.ok()) return "error: " + std::string(t.status().message());
  return t->trace_csv + "---\n" + t->nodes_yaml + "---\n" + FormatTraceImportSummary(format, t->summary);
}

TEST_CASE("import file: a regular file is mapped, and its bytes are the file's", "[sim][import]") {
  const ScratchDir dir;
  const std::string text = "job_name,inst_id\r\na,\"b\"\n\xEF\xBB\xBF tail without a newline";
  const std::string path = dir.Write("t.csv", text);
  absl::StatusOr<ImportInput> input = ReadImportFile(path);
  REQUIRE(input.ok());
  CHECK(input->name == path);
  CHECK(input->owner != nullptr);    // mapped: the mapping is shared, not copied
  CHECK(input->text.empty());
  CHECK(input->content() == text);
  CHECK(input->content().data() == input->borrowed.data());
  // A copy outlives the original: it shares the mapping.
  ImportInput copy = *input;
  input = absl::NotFoundError("gone");
  CHECK(copy.content() == text);
  // Read without mapping, the bytes are the same.
  absl::StatusOr<ImportInput> read = ReadImportFileToString(path);
  REQUIRE(read.ok());
  CHECK(read->owner == nullptr);
  CHECK(read->text == text);
  CHECK(read->content() == text);
}

TEST_CASE("import file: content() is the borrowed bytes when set, else the text", "[sim][import]") {
  ImportInput in{"a.csv", "in memory"};
  CHECK(in.content() == "in memory");
  const std::string elsewhere = "borrowed";
  in.borrowed = elsewhere;
  CHECK(in.content() == "borrowed");
  in.borrowed = std::string_view(elsewhere).substr(0, 0);  // borrowed and empty: still borrowed
  CHECK(in.content().empty());
}

TEST_CASE("import file: an empty file is read, not mapped, and is an empty input", "[sim][import]") {
  const ScratchDir dir;
  const std::string path = dir.Write("empty.csv", "");
  const absl::StatusOr<ImportInput> input = ReadImportFile(path);
  REQUIRE(input.ok());
  CHECK(input->owner == nullptr);
  CHECK(input->content().empty());
  const std::vector<std::string> paths = {path};
  const absl::StatusOr<ImportedTrace> t = ImportTraceFiles(TraceFormat::kHelios, paths, {});
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().message() == path + ":1: the file is empty");
  CHECK(Describe(ImportTrace(TraceFormat::kHelios, InMemory(paths), {}), TraceFormat::kHelios) ==
        "error: " + path + ":1: the file is empty");
}

TEST_CASE("import file: a file that cannot be opened or read is NotFound", "[sim][import]") {
  const ScratchDir dir;
  const std::string missing = dir.Path("missing.csv");
  absl::StatusOr<ImportInput> input = ReadImportFile(missing);
  REQUIRE_FALSE(input.ok());
  CHECK(input.status().code() == absl::StatusCode::kNotFound);
  CHECK(input.status().message() == "cannot read '" + missing + "': No such file or directory");
  // A folder opens but does not read.
  const std::string folder = dir.Path("");
  input = ReadImportFile(folder);
  REQUIRE_FALSE(input.ok());
  CHECK(input.status().code() == absl::StatusCode::kNotFound);
  CHECK(input.status().message() == "cannot read '" + folder + "': Is a directory");
  // ImportTraceFiles stops at the first file it cannot read.
  const std::vector<std::string> paths = {(test::ImportDataDir("helios") / "cluster_log.csv").string(), missing};
  const absl::StatusOr<ImportedTrace> t = ImportTraceFiles(TraceFormat::kHelios, paths, {});
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("import file: a pipe is read to its end", "[sim][import]") {
  const ScratchDir dir;
  const std::string fifo = dir.Path("log.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Longer than the first read buffer (64 KiB), so that it grows.
  std::string text;
  for (int i = 0; text.size() < (size_t{200} << 10); ++i) text += "line " + std::to_string(i) + "\n";
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  const absl::StatusOr<ImportInput> input = ReadImportFile(fifo);
  writer.join();
  REQUIRE(input.ok());
  CHECK(input->owner == nullptr);
  CHECK(input->content().size() == text.size());
  CHECK(input->content() == text);
}

TEST_CASE("import file: a trace read through a pipe imports as from its file", "[sim][import]") {
  const ScratchDir dir;
  const std::string fifo = dir.Path("cluster_log.csv");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string text = test::ReadImportFile("helios", "cluster_log.csv");
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  const std::vector<std::string> paths = {fifo};
  const absl::StatusOr<ImportedTrace> piped = ImportTraceFiles(TraceFormat::kHelios, paths, {});
  writer.join();
  REQUIRE(piped.ok());
  CHECK(piped->trace_csv == test::ReadImportFile("helios", "expected.csv"));
}

TEST_CASE("import file: mapped files import as in-memory inputs do", "[sim][import]") {
  struct Case {
    TraceFormat format;
    std::string folder;
    std::vector<std::string> names;
  };
  const std::vector<Case> cases = {
      {TraceFormat::kOpenb, "openb", {"pods.csv", "nodes.csv"}},
      {TraceFormat::kOpenb, "openb", {"bad-pods.csv"}},
      {TraceFormat::kPai2020, "pai",
       {"pai_job_table.csv", "pai_task_table.csv", "pai_group_tag_table.csv", "pai_machine_spec.csv"}},
      {TraceFormat::kPai2020, "pai", {"pai_job_table.csv", "bad-pai_task_table.csv"}},
      {TraceFormat::kPhilly, "philly", {"cluster_job_log", "cluster_machine_list"}},
      {TraceFormat::kPhilly, "philly", {"bad_cluster_job_log"}},
      {TraceFormat::kHelios, "helios", {"cluster_log.csv"}},
      {TraceFormat::kHelios, "helios", {"bad_cluster_log.csv"}},
  };
  for (const Case& c : cases) {
    const std::vector<std::string> paths = SamplePaths(c.folder, c.names);
    INFO(c.folder << ": " << c.names.front());
    const std::string mapped = Describe(ImportTraceFiles(c.format, paths, {}), c.format);
    CHECK(mapped == Describe(ImportTrace(c.format, InMemory(paths), {}), c.format));
    // Errors name the file as given, with its line.
    if (c.names.front().starts_with("bad") || c.names.back().starts_with("bad")) {
      CHECK(mapped.starts_with("error: " + paths.back() + ":"));
    } else {
      CHECK_FALSE(mapped.starts_with("error"));
    }
  }
}

}  // namespace
}  // namespace import_file_test
}  // namespace qm::sim
