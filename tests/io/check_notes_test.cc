#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "qm/io/check.h"

namespace qm {
namespace check_notes_test {
namespace {

TEST_CASE("CheckScenarios: prints each scenario's load-time notes to the notes stream", "[io][check]") {
  const std::vector<std::string> files = {std::string(QM_TESTS_DIR) + "/io/data/check-unlimited-quota.yaml"};
  std::ostringstream out, notes;
  CheckOptions options;
  SECTION("with a notes stream the unlimited quota is reported, and the report stays clean") {
    // Setup: a scenario whose pods quota overflows int64. Expect: one `note:` line naming the file,
    // the line and "taken as unlimited"; the PASS report without it.
    options.notes = &notes;
    const CheckSummary sum = CheckScenarios(files, files, options, out);
    CHECK(sum.exit_code == 0);
    CHECK(sum.passed == 1);
    const std::string text = notes.str();
    CHECK(text.rfind("note: ", 0) == 0);
    CHECK(text.find("check-unlimited-quota.yaml:17") != std::string::npos);
    CHECK(text.find("taken as unlimited") != std::string::npos);
    CHECK(out.str().find("note:") == std::string::npos);
  }
  SECTION("without a notes stream nothing is printed") {
    // Setup: the same file, `notes` left null (library callers). Expect: no note anywhere.
    const CheckSummary sum = CheckScenarios(files, files, options, out);
    CHECK(sum.passed == 1);
    CHECK(out.str().find("note:") == std::string::npos);
  }
}

}  // namespace
}  // namespace check_notes_test
}  // namespace qm
