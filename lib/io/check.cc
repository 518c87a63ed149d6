#include "qm/io/check.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/io/scenario.h"
#include "text/yaml_load.h"

namespace qm {
namespace {

namespace fs = std::filesystem;

// An absolute, normalized spelling of `path` for comparisons (symlinks resolved where they exist).
std::string Normalize(const fs::path& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) abs = path;
  fs::path canonical = fs::weakly_canonical(abs, ec);
  if (ec) canonical = abs;
  return canonical.lexically_normal().generic_string();
}

bool IsUnder(const std::string& path, const std::string& root) {
  return path == root || (path.size() > root.size() && path.starts_with(root) &&
                          (root.ends_with("/") || path[root.size()] == '/'));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> FindScenarioFiles(std::span<const std::string> paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file() && it->path().extension() == ".yaml") {
          files.push_back(it->path().generic_string());
        }
      }
      if (ec) return absl::NotFoundError(fmt::format("cannot list '{}': {}", p, ec.message()));
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    } else {
      return absl::NotFoundError(fmt::format("'{}' does not exist", p));
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

absl::StatusOr<KnownFailures> ParseKnownFailures(std::string_view text,
                                                 const std::string& list_file) {
  KnownFailures list;
  list.file = list_file;
  const fs::path dir = fs::path(list_file).parent_path();
  int line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    std::string_view reason;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      reason = Trim(line.substr(hash + 1));
      line = line.substr(0, hash);
    }
    const std::string_view path = Trim(line);
    if (path.empty()) continue;
    const std::string key = Normalize(dir / fs::path(path));
    KnownFailures::Entry entry{std::string(path), std::string(reason), line_no};
    if (auto [it, inserted] = list.entries.emplace(key, entry); !inserted) {
      return absl::InvalidArgumentError(fmt::format("{}:{}: '{}' is already listed on line {}",
                                                    list_file, line_no, path, it->second.line));
    }
  }
  return list;
}

absl::StatusOr<KnownFailures> ReadKnownFailures(const std::string& list_file) {
  QM_ASSIGN_OR_RETURN(std::string text, internal::ReadTextFile(list_file));
  return ParseKnownFailures(text, list_file);
}

CheckSummary CheckScenarios(std::span<const std::string> files,
                            std::span<const std::string> roots, const CheckOptions& options,
                            std::ostream& out) {
  CheckSummary sum;
  const KnownFailures* known = options.known_failures;
  std::set<std::string> seen;
  for (const std::string& file : files) {
    const std::string key = Normalize(file);
    seen.insert(key);
    const KnownFailures::Entry* listed = nullptr;
    if (known != nullptr) {
      if (auto it = known->entries.find(key); it != known->entries.end()) listed = &it->second;
    }
    absl::StatusOr<Scenario> scenario = LoadScenarioFile(file);
    if (!scenario.ok()) {
      ++sum.failed;
      if (listed != nullptr) {
        ++sum.known_failures;
        out << "XFAIL " << file << "\n";
        if (options.verbose) out << "  " << scenario.status().message() << "\n";
      } else {
        ++sum.load_errors;
        out << "FAIL " << file << "\n  " << scenario.status().message() << "\n";
      }
      continue;
    }
    if (options.notes != nullptr) {
      for (const std::string& note : scenario->notes) *options.notes << "note: " << note << "\n";
    }
    if (scenario->skip.has_value()) {
      ++sum.skipped;
      out << "SKIP " << scenario->name << " (" << *scenario->skip << ")\n";
      if (listed != nullptr) {
        ++sum.unexpected;
        out << fmt::format("  file: {}: skipped, but listed as a known failure in {}:{} — remove "
                           "it from the list\n",
                           file, known->file, listed->line);
      }
      continue;
    }
    ScenarioRunOptions run_options;
    run_options.check_invariants = options.check_invariants;
    const ScenarioResult result = RunScenario(*scenario, run_options);
    if (result.passed()) {
      ++sum.passed;
      if (listed != nullptr) {
        ++sum.unexpected;
        out << "XPASS " << scenario->name << "\n"
            << fmt::format("  file: {}: unexpectedly passed — remove it from {} (line {})\n", file,
                           known->file, listed->line);
      } else {
        out << "PASS " << scenario->name << "\n";
      }
      continue;
    }
    ++sum.failed;
    if (listed != nullptr) {
      ++sum.known_failures;
      out << "XFAIL " << scenario->name << "\n";
      if (!options.verbose) continue;
    } else {
      out << "FAIL " << scenario->name << "\n";
    }
    out << "  file: " << file << "\n";
    for (const std::string& line : result.DiffLines()) out << line << "\n";
  }
  if (known != nullptr) {
    std::vector<std::string> root_keys;
    for (const std::string& r : roots) root_keys.push_back(Normalize(r));
    for (const auto& [key, entry] : known->entries) {
      if (seen.contains(key)) continue;
      const std::string& listed_key = key;  // clang 14 cannot capture a structured binding
      const bool under = std::any_of(root_keys.begin(), root_keys.end(),
                                     [&](const std::string& r) { return IsUnder(listed_key, r); });
      if (!under) continue;
      ++sum.unexpected;
      out << fmt::format("error: {}:{}: '{}' is listed as a known failure but does not exist\n",
                         known->file, entry.line, entry.listed);
    }
    const int unlisted = sum.failed - sum.known_failures;
    if (sum.known_failures > 0) {
      out << fmt::format("{} of the failures are known (listed in {})\n", sum.known_failures,
                         known->file);
    }
    if (unlisted > 0) {
      out << fmt::format("error: {} failing scenario(s) are not listed in {}\n", unlisted,
                         known->file);
    }
    if (sum.unexpected > 0) {
      out << fmt::format("error: {} entr{} of {} do not match the outcome (see above)\n",
                         sum.unexpected, sum.unexpected == 1 ? "y" : "ies", known->file);
    }
    sum.exit_code = unlisted > 0 || sum.unexpected > 0 ? 1 : 0;
  } else {
    sum.exit_code = sum.failed > 0 ? 1 : 0;
  }
  if (sum.load_errors > 0) sum.exit_code = 2;
  out << sum.passed << " passed, " << sum.failed << " failed";
  if (sum.skipped > 0) out << ", " << sum.skipped << " skipped";
  out << "\n";
  return sum;
}

}  // namespace qm
