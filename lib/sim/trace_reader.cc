// Reading CSV traces (trace.h, docs/trace-format.md).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/core/quantity_text.h"
#include "sim/trace_constraints.h"
#include "qm/sim/trace.h"
#include "sim/csv_records.h"
#include "sim/trace_builder.h"
#include "sim/trace_text.h"
#include "text/yaml_load.h"

namespace qm::sim {
namespace {

using internal::NameProblem;
using internal::QuoteValue;

enum Column : int {
  kSubmit,
  kNamespace,
  kTeam,
  kQueue,
  kPriorityClass,
  kPriority,
  kPodSets,
  kMinCount,
  kDuration,
  kName,
  kCheckpointInterval,
  kPodStartup,
  kNodeSelector,
  kNodeAffinity,
  kTolerations,
  kColumnCount
};
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "submit", "namespace", "team", "queue", "priority_class", "priority", "pod_sets", "min_count", "duration", "name",
    "checkpoint_interval", "pod_startup", "node_selector", "node_affinity", "tolerations"};

// Distinct pod-set cells remembered; past this, new shapes are parsed every time (a trace of all
// different shapes must not grow the cache without bound).
constexpr size_t kShapeCacheLimit = 4096;

// A pod set while its cell is parsed.
struct ParsedPodSet {
  std::string_view name;
  int32_t count = 0;
  std::vector<std::pair<std::string_view, int64_t>> requests;
};

// Kubernetes' extended resources (a domain-qualified name outside kubernetes.io, e.g.
// nvidia.com/gpu) take whole quantities only; native ones (cpu, memory, ...) take fractions.
bool IsExtendedResource(std::string_view resource) {
  return resource.find('/') != std::string_view::npos && resource.find("kubernetes.io/") == std::string_view::npos;
}

// Parses a pod-set list into `out`; on error returns the message (without the column). A
// fractional amount of an extended resource is an error, or with `round_up` is rounded up and
// sets `*rounded`.
std::string ParsePodSetList(std::string_view text, bool round_up, std::vector<ParsedPodSet>* out, bool* rounded) {
  out->clear();
  *rounded = false;
  const std::string syntax = fmt::format(
      "{} is not a pod-set list: expected [name:]<count>x{{<resource>=<quantity>;...}} joined by '+', "
      "e.g. 8x{{nvidia.com/gpu=1;cpu=4}}",
      QuoteValue(text));
  size_t i = 0;
  auto skip_spaces = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  auto word = [&](auto allowed) {
    const size_t start = i;
    while (i < text.size() && allowed(text[i])) ++i;
    return text.substr(start, i - start);
  };
  auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_';
  };
  while (true) {
    if (out->size() == kMaxTracePodSets) return fmt::format("more than {} pod sets", kMaxTracePodSets);
    ParsedPodSet ps;
    const std::string label = fmt::format("pod set {}", out->size() + 1);
    skip_spaces();
    const size_t start = i;
    std::string_view first = word(name_char);
    skip_spaces();
    if (i < text.size() && text[i] == ':') {
      if (std::string p = NameProblem(first, internal::kMaxNameSize); !p.empty())
        return fmt::format("{}: name {} {}", label, QuoteValue(first), p);
      ps.name = first;
      ++i;
      skip_spaces();
    } else {
      i = start;
    }
    const std::string_view count_text = word([](char c) { return c >= '0' && c <= '9'; });
    if (count_text.empty() || i >= text.size() || text[i] != 'x') return syntax;
    ++i;
    {
      size_t k = 0;
      while (k + 1 < count_text.size() && count_text[k] == '0') ++k;
      const std::string_view digits = count_text.substr(k);
      int64_t count = 0;
      for (char c : digits.substr(0, 8)) count = count * 10 + (c - '0');
      if (digits.size() > 8 || count > kMaxTracePodCount)
        return fmt::format("{}: count {} is more than {}", label, QuoteValue(count_text), kMaxTracePodCount);
      if (count < 1) return fmt::format("{}: count {} must be at least 1", label, QuoteValue(count_text));
      ps.count = static_cast<int32_t>(count);
    }
    if (i >= text.size() || text[i] != '{') return syntax;
    ++i;
    skip_spaces();
    if (i < text.size() && text[i] == '}') {
      ++i;
    } else {
      while (true) {
        skip_spaces();
        const std::string_view resource = word([](char c) { return c != '=' && c != ';' && c != '}' && c != ' '; });
        skip_spaces();
        if (i >= text.size() || text[i] != '=') return syntax;
        ++i;
        if (std::string p = internal::ResourceNameProblem(resource); !p.empty())
          return fmt::format("{}: resource {} {}", label, QuoteValue(resource), p);
        skip_spaces();
        const size_t qstart = i;
        while (i < text.size() && text[i] != ';' && text[i] != '}') ++i;
        std::string_view qtext = text.substr(qstart, i - qstart);
        while (!qtext.empty() && (qtext.back() == ' ' || qtext.back() == '\t')) qtext.remove_suffix(1);
        if (i >= text.size()) return syntax;
        absl::StatusOr<int64_t> amount = ParseQuantity(qtext, UnitForResource(resource));
        if (!amount.ok()) return fmt::format("{}: {}: {}", label, resource, std::string(amount.status().message()));
        if (*amount < 0) return fmt::format("{}: {}: {} must not be negative", label, resource, QuoteValue(qtext));
        if (IsExtendedResource(resource)) {
          const absl::StatusOr<int64_t> milli = ParseQuantity(qtext, Unit::kMilli);
          if (milli.ok() && *milli % 1000 != 0) {
            if (!round_up)
              return fmt::format("{}: {}: {} is not a whole number; Kubernetes takes whole quantities of extended "
                                 "resources (--round-fractional up rounds it up)",
                                 label, resource, QuoteValue(qtext));
            *rounded = true;
          }
        }
        for (const auto& [r, a] : ps.requests)
          if (r == resource) return fmt::format("{}: resource {} appears twice", label, QuoteValue(resource));
        if (ps.requests.size() == kMaxTraceRequests)
          return fmt::format("{}: more than {} resources", label, kMaxTraceRequests);
        ps.requests.emplace_back(resource, *amount);
        if (text[i++] == '}') break;
      }
    }
    out->push_back(std::move(ps));
    skip_spaces();
    if (i == text.size()) break;
    if (text[i] != '+') return syntax;
    ++i;
  }
  // Names: as given, else "main" alone or ps<i>; each at most once.
  for (size_t a = 0; a < out->size(); ++a) {
    for (size_t b = 0; b < a; ++b) {
      if (!(*out)[a].name.empty() && (*out)[a].name == (*out)[b].name)
        return fmt::format("pod set name {} appears twice", QuoteValue((*out)[a].name));
    }
  }
  return "";
}

// Parses a 32-bit integer; false when `text` is not one or is out of range.
bool ParseInt32(std::string_view text, int32_t* out) {
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) i = 1;
  if (i == text.size()) return false;
  int64_t v = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    v = v * 10 + (text[i] - '0');
    if (v > int64_t{INT32_MAX} + 1) return false;
  }
  v = negative ? -v : v;
  if (v < INT32_MIN || v > INT32_MAX) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

class Reader {
 public:
  Reader(std::string_view csv, std::string_view source, const TraceReadOptions& options)
      : options_(options), csv_(csv), records_(csv), builder_(&trace_), names_seen_(0, NameHash{this}, NameEq{this}) {
    trace_.source = std::string(source);
  }

  absl::StatusOr<Trace> Read() {
    if (absl::Status st = Header(); !st.ok()) return st;
    // One job per line at most: reserving that many keeps the job array free of growth slack.
    const size_t lines = static_cast<size_t>(std::count(csv_.begin(), csv_.end(), '\n')) + 1;
    const size_t expected = std::min<size_t>(lines, static_cast<size_t>(kMaxTraceJobs));
    trace_.jobs.reserve(expected);
    job_namespaces_.reserve(expected);
    // Growing the name set rehashes every name read so far, each a random access: size it once.
    if (index_[kName] >= 0) names_seen_.reserve(expected);
    if (index_[kCheckpointInterval] >= 0) trace_.checkpoint_intervals.reserve(expected);
    if (index_[kPodStartup] >= 0) trace_.pod_startups.reserve(expected);
    while (records_.Next()) {
      if (absl::Status st = Row(); !st.ok()) return st;
    }
    if (!records_.error().empty()) return RecordError();
    // The reservation counted every line: give back the slack only when comments left much of it
    // unused (shrinking copies every job).
    if (trace_.jobs.capacity() - trace_.jobs.size() > trace_.jobs.size() / 8) trace_.jobs.shrink_to_fit();
    // A column no row fills costs nothing: the trace then has no checkpoint intervals at all.
    if (std::none_of(trace_.checkpoint_intervals.begin(), trace_.checkpoint_intervals.end(),
                     [](Duration d) { return d.us >= 0; })) {
      trace_.checkpoint_intervals = {};
    }
    if (std::none_of(trace_.pod_startups.begin(), trace_.pod_startups.end(), [](Duration d) { return d.us >= 0; })) {
      trace_.pod_startups = {};
    }
    trace_.Finish();
    return std::move(trace_);
  }

 private:
  absl::Status Error(std::string_view column, std::string_view message) const {
    return absl::InvalidArgumentError(fmt::format("{}:{}: {}: {}", trace_.source, line_, column, message));
  }

  absl::Status RecordError() {
    line_ = records_.line();
    const size_t v = records_.error_value();
    if (header_done_) return Error(v < columns_.size() ? kColumnNames[columns_[v]] : "row", records_.error());
    return Error("header", records_.error());
  }

  absl::Status Header() {
    if (!records_.Next()) {
      if (!records_.error().empty()) return RecordError();
      line_ = 1;
      return Error("header", "missing: the first line must name the columns, e.g. submit,namespace,pod_sets,duration");
    }
    line_ = records_.line();
    index_.fill(-1);
    for (std::string_view name : records_.values()) {
      if (name.size() > kMaxTraceValueSize) return Error("header", "a column name is longer than 4096 bytes");
      size_t c = 0;
      while (c < kColumnNames.size() && kColumnNames[c] != name) ++c;
      if (name.empty()) return Error("header", fmt::format("column {} has no name", columns_.size() + 1));
      if (c == kColumnNames.size()) {
        std::string known;
        for (std::string_view k : kColumnNames) known += (known.empty() ? "" : ", ") + std::string(k);
        return Error(QuoteValue(name), fmt::format("unknown column (known: {})", known));
      }
      if (index_[c] >= 0) return Error(name, "duplicate column");
      index_[c] = static_cast<int>(columns_.size());
      columns_.push_back(static_cast<Column>(c));
    }
    for (Column required : {kSubmit, kPodSets, kDuration}) {
      if (index_[required] < 0) return Error(kColumnNames[required], "missing column");
    }
    if (index_[kNamespace] < 0 && index_[kTeam] < 0)
      return Error("namespace", "missing column: a trace needs a namespace or a team column");
    header_done_ = true;
    return absl::OkStatus();
  }

  std::string_view Cell(Column c) const {
    return index_[c] < 0 ? std::string_view() : records_.values()[static_cast<size_t>(index_[c])];
  }

  absl::Status Row() {
    line_ = records_.line();
    const std::vector<std::string_view>& values = records_.values();
    if (values.size() != columns_.size())
      return Error("row", fmt::format("{} values, but the header has {} columns", values.size(), columns_.size()));
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i].size() > kMaxTraceValueSize)
        return Error(kColumnNames[columns_[i]],
                     fmt::format("the value is {} bytes long, at most {} are allowed", values[i].size(),
                                 kMaxTraceValueSize));
    }
    if (static_cast<int64_t>(trace_.jobs.size()) == kMaxTraceJobs)
      return Error("row", fmt::format("more than {} jobs", kMaxTraceJobs));
    TraceJob job;
    job.row = static_cast<int64_t>(trace_.jobs.size()) + 1;
    job.line = line_;

    absl::StatusOr<Duration> submit = ParseTraceTime(Cell(kSubmit));
    if (!submit.ok()) return Error("submit", std::string(submit.status().message()));
    job.submit = *submit;
    const std::string_view duration_text = Cell(kDuration);
    if (duration_text.starts_with('-')) return Error("duration", QuoteValue(duration_text) + " must be positive");
    absl::StatusOr<Duration> duration = ParseTraceTime(duration_text);
    if (!duration.ok()) return Error("duration", std::string(duration.status().message()));
    if (duration->us == 0) return Error("duration", QuoteValue(duration_text) + " must be positive");
    job.duration = *duration;
    if (index_[kCheckpointInterval] >= 0) {
      const std::string_view text = Cell(kCheckpointInterval);
      Duration interval = Duration::Microseconds(-1);  // not given
      if (!text.empty()) {
        absl::StatusOr<Duration> parsed = ParseTraceTime(text);
        if (!parsed.ok()) return Error("checkpoint_interval", std::string(parsed.status().message()));
        interval = *parsed;
      }
      trace_.checkpoint_intervals.push_back(interval);
    }
    if (index_[kPodStartup] >= 0) {
      const std::string_view text = Cell(kPodStartup);
      Duration startup = Duration::Microseconds(-1);  // not given
      if (!text.empty()) {
        absl::StatusOr<Duration> parsed = ParseTraceTime(text);
        if (!parsed.ok()) return Error("pod_startup", std::string(parsed.status().message()));
        startup = *parsed;
      }
      trace_.pod_startups.push_back(startup);
    }

    if (absl::Status st = NodeConstraints(job.row); !st.ok()) return st;
    if (absl::Status st = Owner(&job); !st.ok()) return st;
    if (absl::Status st = OptionalName(kQueue, &job.queue); !st.ok()) return st;
    if (absl::Status st = OptionalName(kPriorityClass, &job.priority_class); !st.ok()) return st;
    if (const std::string_view p = Cell(kPriority); !p.empty()) {
      int32_t priority = 0;
      if (!ParseInt32(p, &priority)) return Error("priority", QuoteValue(p) + " is not a 32-bit integer");
      job.priority = priority;
    }
    if (absl::Status st = PodSets(&job); !st.ok()) return st;
    trace_.jobs.push_back(job);
    return Name();
  }

  // namespace or team: exactly one.
  absl::Status Owner(TraceJob* job) {
    const std::string_view ns = Cell(kNamespace), team = Cell(kTeam);
    const std::string_view column = index_[kNamespace] >= 0 ? "namespace" : "team";
    if (!ns.empty() && !team.empty()) return Error("team", "give a namespace or a team, not both");
    if (ns.empty() && team.empty()) return Error(column, "missing: a job needs a namespace or a team");
    if (!ns.empty()) {
      if (std::string p = NameProblem(ns, internal::kMaxNamespaceSize); !p.empty())
        return Error("namespace", QuoteValue(ns) + " " + p);
      job->namespace_ = trace_.Intern(ns);
    } else {
      if (std::string p = NameProblem(team, internal::kMaxTeamSize); !p.empty())
        return Error("team", QuoteValue(team) + " " + p);
      job->team = trace_.Intern(team);
    }
    return absl::OkStatus();
  }

  // The node-constraint columns: each distinct combination is parsed and stored once.
  absl::Status NodeConstraints(int64_t row) {
    if (index_[kNodeSelector] < 0 && index_[kNodeAffinity] < 0 && index_[kTolerations] < 0) return absl::OkStatus();
    const std::string_view selector = Cell(kNodeSelector), affinity = Cell(kNodeAffinity),
                           tolerations = Cell(kTolerations);
    uint32_t index = 0;
    if (!selector.empty() || !affinity.empty() || !tolerations.empty()) {
      constraint_key_.assign(selector).append(1, '\0').append(affinity).append(1, '\0').append(tolerations);
      if (auto it = constraint_cache_.find(constraint_key_); it != constraint_cache_.end()) {
        index = it->second;
      } else {
        TraceNodeConstraints c;
        if (!selector.empty())
          if (std::string p = internal::ParseNodeSelector(selector, &c.node_selector); !p.empty())
            return Error("node_selector", p);
        if (!affinity.empty())
          if (std::string p = internal::ParseNodeAffinity(affinity, &c.node_affinity); !p.empty())
            return Error("node_affinity", p);
        if (!tolerations.empty())
          if (std::string p = internal::ParseTolerations(tolerations, &c.tolerations); !p.empty())
            return Error("tolerations", p);
        if (trace_.node_constraints.empty()) trace_.node_constraints.emplace_back();  // index 0: none
        index = static_cast<uint32_t>(trace_.node_constraints.size());
        trace_.node_constraints.push_back(std::move(c));
        constraint_cache_.emplace(constraint_key_, index);
      }
    }
    // Rows before the first constraint get 0 when it comes; a trace without any keeps no array.
    if (index != 0 || !trace_.job_node_constraints.empty()) {
      trace_.job_node_constraints.resize(static_cast<size_t>(row - 1), 0);  // no-op after the first
      trace_.job_node_constraints.push_back(index);
    }
    return absl::OkStatus();
  }

  absl::Status OptionalName(Column c, StringId* out) {
    const std::string_view v = Cell(c);
    if (v.empty()) return absl::OkStatus();
    if (std::string p = NameProblem(v, internal::kMaxNameSize); !p.empty())
      return Error(kColumnNames[c], QuoteValue(v) + " " + p);
    *out = trace_.Intern(v);
    return absl::OkStatus();
  }

  absl::Status PodSets(TraceJob* job) {
    const std::string_view text = Cell(kPodSets), min_text = Cell(kMinCount);
    // Traces repeat a few shapes: remember each (pod_sets, min_count) pair's interned range. A
    // valid pod-set cell holds no NUL, so the separator cannot make two pairs collide.
    shape_key_.assign(text);
    shape_key_.push_back('\0');
    shape_key_.append(min_text);
    if (auto it = shape_cache_.find(shape_key_); it != shape_cache_.end()) {
      job->first_pod_set = it->second.first_pod_set;
      job->pod_set_count = it->second.pod_set_count;
      trace_.rounded_jobs += it->second.rounded ? 1 : 0;
      return absl::OkStatus();
    }
    if (text.empty()) return Error("pod_sets", "missing: a job needs at least one pod set");
    bool rounded = false;
    if (std::string message = ParsePodSetList(text, options_.round_fractional_up, &parsed_, &rounded); !message.empty())
      return Error("pod_sets", message);
    std::vector<int32_t> min_counts(parsed_.size(), 0);
    if (!min_text.empty()) {
      const size_t entries = static_cast<size_t>(std::count(min_text.begin(), min_text.end(), '+')) + 1;
      if (entries != parsed_.size())
        return Error("min_count", fmt::format("{} entries for {} pod sets (join one entry per pod set with '+'; "
                                              "leave an entry empty for none)",
                                              entries, parsed_.size()));
      size_t start = 0;
      for (size_t k = 0; k < entries; ++k) {
        size_t end = min_text.find('+', start);
        if (end == std::string_view::npos) end = min_text.size();
        std::string_view entry = min_text.substr(start, end - start);
        start = end + 1;
        while (!entry.empty() && (entry.front() == ' ' || entry.front() == '\t')) entry.remove_prefix(1);
        while (!entry.empty() && (entry.back() == ' ' || entry.back() == '\t')) entry.remove_suffix(1);
        if (entry.empty()) continue;
        int32_t m = 0;
        if (!ParseInt32(entry, &m) || entry[0] == '+') return Error("min_count", QuoteValue(entry) + " is not an integer");
        if (m < 1 || m > parsed_[k].count)
          return Error("min_count", fmt::format("{} is outside 1..{} (pod set {} has {} pods)", QuoteValue(entry),
                                                parsed_[k].count, k + 1, parsed_[k].count));
        min_counts[k] = m;
      }
    }
    pod_sets_.clear();
    for (size_t k = 0; k < parsed_.size(); ++k) {
      ParsedPodSet& ps = parsed_[k];
      std::sort(ps.requests.begin(), ps.requests.end());
      requests_.clear();
      for (const auto& [resource, amount] : ps.requests) requests_.push_back({trace_.Intern(resource), amount});
      TracePodSet out;
      if (!ps.name.empty()) {
        out.name = trace_.Intern(ps.name);
      } else {
        out.name = trace_.Intern(parsed_.size() == 1 ? std::string("main") : fmt::format("ps{}", k));
      }
      out.count = ps.count;
      out.min_count = min_counts[k];
      out.first_request = builder_.AddRequests(requests_);
      out.request_count = static_cast<uint32_t>(requests_.size());
      pod_sets_.push_back(out);
    }
    // A default name may collide with an explicit one: `ps1+ps1:...`.
    for (size_t a = 0; a < pod_sets_.size(); ++a)
      for (size_t b = 0; b < a; ++b)
        if (pod_sets_[a].name == pod_sets_[b].name)
          return Error("pod_sets",
                       fmt::format("pod set name {} appears twice", QuoteValue(trace_.str(pod_sets_[a].name))));
    job->first_pod_set = builder_.AddPodSets(pod_sets_);
    job->pod_set_count = static_cast<uint32_t>(pod_sets_.size());
    trace_.rounded_jobs += rounded ? 1 : 0;
    if (shape_cache_.size() < kShapeCacheLimit)
      shape_cache_.emplace(shape_key_, CachedShape{job->first_pod_set, job->pod_set_count, rounded});
    return absl::OkStatus();
  }

  // The effective namespace of a job (a team's is `hyperpod-ns-<team>`), as a small number.
  uint32_t NamespaceKey(const TraceJob& job) {
    std::vector<uint32_t>& cache = job.team != 0 ? team_keys_ : namespace_keys_;
    const StringId id = job.team != 0 ? job.team : job.namespace_;
    if (id >= cache.size()) cache.resize(id + 1, UINT32_MAX);
    if (cache[id] == UINT32_MAX) {
      std::string ns = job.team != 0 ? std::string(internal::kTeamNamespacePrefix) + trace_.strings[id] : trace_.strings[id];
      auto [it, inserted] = effective_namespaces_.emplace(std::move(ns), static_cast<uint32_t>(namespace_names_.size()));
      if (inserted) namespace_names_.push_back(it->first);  // a copy: map keys move on rehash
      cache[id] = it->second;
    }
    return cache[id];
  }

  // The name of the job just appended, unique in its namespace; unnamed rows are `job-<row>`.
  absl::Status Name() {
    TraceJob& job = trace_.jobs.back();
    const std::string_view name = Cell(kName);
    const uint32_t ns = NamespaceKey(job);
    job_namespaces_.push_back(ns);  // index = row - 1
    if (name.empty()) {
      // `job-<row>`: only an explicit name of that form on an earlier row can collide.
      if (auto it = default_form_names_.find(std::make_pair(ns, job.row)); it != default_form_names_.end())
        return Duplicate(fmt::format("job-{}", job.row), ns, it->second, true);
      return absl::OkStatus();
    }
    if (std::string p = NameProblem(name, internal::kMaxNameSize); !p.empty())
      return Error("name", QuoteValue(name) + " " + p);
    if (trace_.names.size() + name.size() > UINT32_MAX)
      return Error("name", "the job names add up to more than 4 GiB");
    job.name_offset = static_cast<uint32_t>(trace_.names.size());
    job.name_size = static_cast<uint32_t>(name.size());
    trace_.names.append(name);
    const auto [it, inserted] = names_seen_.insert(static_cast<uint32_t>(trace_.jobs.size() - 1));
    if (!inserted) return Duplicate(name, ns, trace_.jobs[*it].line, false);
    // `job-<N>` with N an earlier unnamed row of the same namespace collides with its default name.
    if (name.starts_with("job-") && name.size() > 4 && name[4] != '0' && name.size() <= 4 + 18) {
      int64_t n = 0;
      bool digits = true;
      for (char c : name.substr(4)) {
        digits = digits && c >= '0' && c <= '9';
        n = n * 10 + (c - '0');
      }
      if (digits) {
        const size_t earlier = static_cast<size_t>(n - 1);
        if (n < job.row && trace_.jobs[earlier].name_size == 0 && job_namespaces_[earlier] == ns)
          return Duplicate(name, ns, trace_.jobs[earlier].line, true);
        if (n > job.row) default_form_names_.emplace(std::make_pair(ns, n), line_);
      }
    }
    return absl::OkStatus();
  }

  absl::Status Duplicate(std::string_view name, uint32_t ns, int64_t first_line, bool default_name) {
    return Error("name", fmt::format("job {} appears twice in namespace {} (first on line {}{})", QuoteValue(name),
                                     QuoteValue(namespace_names_[ns]), first_line,
                                     default_name ? "; an unnamed row is named job-<row>" : ""));
  }

  // Explicit job names read so far, as job indices; hashed by (effective namespace, name).
  struct NameHash {
    const Reader* r;
    size_t operator()(uint32_t job) const {
      const auto [ns, name] = r->NameKey(job);
      return absl::HashOf(ns, name);
    }
  };
  struct NameEq {
    const Reader* r;
    bool operator()(uint32_t a, uint32_t b) const { return r->NameKey(a) == r->NameKey(b); }
  };
  std::pair<uint32_t, std::string_view> NameKey(uint32_t index) const {
    const TraceJob& job = trace_.jobs[index];
    return {job_namespaces_[static_cast<size_t>(job.row - 1)],
            std::string_view(trace_.names).substr(job.name_offset, job.name_size)};
  }

  TraceReadOptions options_;
  std::string_view csv_;
  internal::CsvRecords records_;
  Trace trace_;
  internal::TraceBuilder builder_;
  int64_t line_ = 0;
  bool header_done_ = false;
  std::array<int, kColumnCount> index_{};  // column → value index, -1 when absent
  std::vector<Column> columns_;           // value index → column
  // Scratch buffers reused across rows.
  std::string shape_key_;
  std::vector<ParsedPodSet> parsed_;
  std::vector<TracePodSet> pod_sets_;
  std::vector<TraceRequest> requests_;
  struct CachedShape {
    uint32_t first_pod_set = 0;
    uint32_t pod_set_count = 0;
    bool rounded = false;  // a fractional extended resource was rounded up
  };
  absl::flat_hash_map<std::string, CachedShape> shape_cache_;
  std::string constraint_key_;
  absl::flat_hash_map<std::string, uint32_t> constraint_cache_;  // the three cells → node_constraints index
  // Effective namespaces, numbered in first-seen order.
  absl::flat_hash_map<std::string, uint32_t> effective_namespaces_;
  std::vector<std::string> namespace_names_;
  std::vector<uint32_t> namespace_keys_, team_keys_;  // StringId → effective namespace number
  std::vector<uint32_t> job_namespaces_;              // row - 1 → effective namespace number
  absl::flat_hash_set<uint32_t, NameHash, NameEq> names_seen_;
  // Explicit names `job-<N>` for rows N not read yet: (namespace, N) → line.
  absl::flat_hash_map<std::pair<uint32_t, int64_t>, int64_t> default_form_names_;
};

}  // namespace

absl::StatusOr<Trace> ReadTraceString(std::string_view csv, std::string_view source_name,
                                      const TraceReadOptions& options) {
  Reader reader(csv, source_name, options);
  return reader.Read();
}

absl::StatusOr<Trace> ReadTraceFile(const std::string& path, const TraceReadOptions& options) {
  absl::StatusOr<std::string> text = qm::internal::ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ReadTraceString(*text, path, options);
}

}  // namespace qm::sim
