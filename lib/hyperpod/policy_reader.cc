// Reading HyperPod policies (policy_reader.h). Every input form is first reduced to a `Node` tree
// (lib/text/node.h); `Reader` then reads the API members with the API model's validation (docs/hyperpod.md §1, §7), naming
// each member by its API path.
#include "qm/hyperpod/policy_reader.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/hyperpod/instance_catalog.h"
#include "qm/hyperpod/policy_object.h"
#include "qm/text/time_text.h"
#include "text/node.h"
#include "text/yaml_load.h"
#include "yaml-cpp/yaml.h"

namespace qm::hyperpod {
namespace internal {

using qm::internal::FromYaml;
using qm::internal::Node;
using qm::internal::ParseShorthand;

namespace {

constexpr int64_t kMaxAmount = 10'000'000;
constexpr size_t kMaxPriorityClasses = 10;
constexpr size_t kMaxQuotaEntries = 15;

constexpr std::string_view kStatuses[] = {
    "Creating", "CreateFailed", "CreateRollbackFailed", "Created",      "Updating",
    "UpdateFailed", "UpdateRollbackFailed", "Updated", "Deleting", "DeleteFailed",
    "DeleteRollbackFailed", "Deleted"};

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// `[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}`: 1–63 characters, letters, digits and dashes, starting and
// ending with a letter or digit.
bool ValidPolicyName(std::string_view s) {
  if (s.empty() || s.size() > 63 || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsAlnum(c) || c == '-'; });
}

// `[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}?` as the API model writes it for TeamName and PriorityClass
// Name; read as 1–40 characters of lower-case letters, digits and dashes, starting and ending with a
// letter or digit (the form Kubernetes needs for `hyperpod-ns-<team>`).
bool ValidLowerName(std::string_view s) {
  if (s.empty() || s.size() > 40 || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

// `arn:aws[a-z\-]*:sagemaker:[a-z0-9\-]*:[0-9]{12}:cluster/[a-z0-9]{12}`.
bool ValidClusterArn(std::string_view s) {
  auto take = [&s](std::string_view prefix) {
    if (!s.starts_with(prefix)) return false;
    s.remove_prefix(prefix.size());
    return true;
  };
  auto span = [&s](auto pred) {
    size_t n = 0;
    while (n < s.size() && pred(s[n])) ++n;
    std::string_view out = s.substr(0, n);
    s.remove_prefix(n);
    return out;
  };
  if (!take("arn:aws")) return false;
  span([](char c) { return (c >= 'a' && c <= 'z') || c == '-'; });
  if (!take(":sagemaker:")) return false;
  span([](char c) { return IsLowerAlnum(c) || c == '-'; });
  if (!take(":")) return false;
  const std::string_view account = span([](char c) { return c >= '0' && c <= '9'; });
  if (account.size() != 12 || !take(":cluster/")) return false;
  const std::string_view id = span(IsLowerAlnum);
  return id.size() == 12 && s.empty();
}

// An optionally signed run of digits. Values beyond ±10^18 saturate there (every range checked is far
// inside it), so `99999999999999999999` reads as out of range, not as "not an integer".
std::optional<int64_t> ParseInteger(std::string_view s) {
  constexpr int64_t kSaturated = 1'000'000'000'000'000'000;
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s.front() == '-' || s.front() == '+') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v >= kSaturated / 10 ? kSaturated : v * 10 + (c - '0');  // never above 10^18, no overflow
  }
  return negative ? -v : v;
}

// `12`, `48.0`, `5.25`: digits with an optional fraction (trailing zeros dropped, at most 6 left).
// Sets `negative` for a leading '-' and `too_large` (returning nullopt) for more than 12 integer
// digits, which is above every range the API allows.
std::optional<Decimal> ParseDecimalText(std::string_view s, bool* negative, bool* too_large = nullptr) {
  *negative = false;
  if (too_large != nullptr) *too_large = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    *negative = s.front() == '-';
    s.remove_prefix(1);
  }
  const size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
  auto digits = [](std::string_view t) {
    return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.size() > 12 && digits(whole) && digits(frac) && too_large != nullptr) {
    *too_large = true;
    return std::nullopt;
  }
  if ((whole.empty() && frac.empty() && dot == std::string_view::npos) || whole.size() > 12 ||
      frac.size() > 6) {
    return std::nullopt;
  }
  Decimal d;
  for (char c : whole) {
    if (c < '0' || c > '9') return std::nullopt;
    d.unscaled = d.unscaled * 10 + (c - '0');
  }
  for (char c : frac) {
    if (c < '0' || c > '9') return std::nullopt;
    d.unscaled = d.unscaled * 10 + (c - '0');
    ++d.scale;
  }
  return d;
}

// A non-negative JSON number: `int [frac] [exp]` (RFC 8259, section 6, without the minus sign).
bool IsEpochNumber(std::string_view s) {
  auto digits = [&s]() {
    size_t n = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
    s.remove_prefix(n);
    return n;
  };
  if (digits() == 0) return false;
  if (!s.empty() && s.front() == '.') {
    s.remove_prefix(1);
    if (digits() == 0) return false;
  }
  if (!s.empty() && (s.front() == 'e' || s.front() == 'E')) {
    s.remove_prefix(1);
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
    if (digits() == 0) return false;
  }
  return s.empty();
}

std::string JoinList(std::span<const std::string_view> names, std::string_view sep = ", ") {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += sep;
    out += n;
  }
  return out;
}

std::string Join(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

// Reads API members out of a `Node` tree; the first error is kept ("sticky").
class Reader {
 public:
  Reader(std::string_view file, std::string object) : file_(file), object_(std::move(object)) {}

  bool ok() const { return status_.ok(); }
  const absl::Status& status() const { return status_; }
  void set_object(std::string object) { object_ = std::move(object); }

  void Fail(const Node& at, std::string_view path, std::string_view message) {
    if (!status_.ok()) return;
    std::string text;
    if (!file_.empty()) text = at.line > 0 ? fmt::format("{}:{}: ", file_, at.line) : file_ + ": ";
    if (!object_.empty()) text += object_ + ": ";
    if (!path.empty()) text += fmt::format("{}: ", path);
    text += message;
    status_ = absl::InvalidArgumentError(text);
  }

  // A map of API members; unknown members are errors (as the AWS CLI's parameter validation).
  bool Members(const Node& n, std::string_view path, std::initializer_list<std::string_view> known) {
    if (!n.is_map()) {
      Fail(n, path, fmt::format("expected a structure, got {}", n.TypeName()));
      return false;
    }
    for (size_t i = 0; i < n.fields.size(); ++i) {
      const auto& [key, value] = n.fields[i];
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        Fail(value, Join(path, key),
             fmt::format("unknown member (expected one of {})",
                         JoinList(std::span<const std::string_view>(known.begin(), known.size()))));
        return false;
      }
      // JSON and YAML readers keep both copies of a repeated key and `Find` would silently take
      // the first; the value meant is ambiguous, so say so.
      for (size_t j = 0; j < i; ++j) {
        if (n.fields[j].first == key) {
          Fail(value, Join(path, key), fmt::format("is given twice (also at line {})", n.fields[j].second.line));
          return false;
        }
      }
    }
    return true;
  }

  const Node* Required(const Node& parent, std::string_view path, std::string_view key) {
    const Node* n = parent.Find(key);
    if (n == nullptr || n->is_null()) {
      Fail(parent, Join(path, key), "is required");
      return nullptr;
    }
    return n;
  }

  std::optional<std::string> String(const Node* n, std::string_view path) {
    if (n == nullptr || n->is_null()) return std::nullopt;
    if (!n->is_scalar()) {
      Fail(*n, path, fmt::format("expected a string, got {}", n->TypeName()));
      return std::nullopt;
    }
    return n->text;
  }

  std::optional<int64_t> Int(const Node* n, std::string_view path, int64_t min, int64_t max) {
    const std::optional<std::string> s = String(n, path);
    if (!s.has_value()) return std::nullopt;
    const std::optional<int64_t> v = ParseInteger(*s);
    if (!v.has_value()) {
      Fail(*n, path, fmt::format("\"{}\" is not an integer", *s));
      return std::nullopt;
    }
    if (*v < min || *v > max) {
      // The text as written: a saturated value would misstate it.
      Fail(*n, path, fmt::format("{} is outside {}–{}", *s, min, max));
      return std::nullopt;
    }
    return v;
  }

  std::optional<Decimal> Dec(const Node* n, std::string_view path, int64_t max) {
    const std::optional<std::string> s = String(n, path);
    if (!s.has_value()) return std::nullopt;
    bool negative = false;
    bool too_large = false;
    const std::optional<Decimal> d = ParseDecimalText(*s, &negative, &too_large);
    if (too_large) {
      Fail(*n, path, fmt::format("{} is outside 0–{}", *s, max));
      return std::nullopt;
    }
    if (!d.has_value()) {
      Fail(*n, path, fmt::format("\"{}\" is not a number with at most 6 decimals", *s));
      return std::nullopt;
    }
    const bool too_big = d->unscaled / Pow10(d->scale) > max ||
                         (d->unscaled / Pow10(d->scale) == max && d->unscaled % Pow10(d->scale) != 0);
    if ((negative && d->unscaled != 0) || too_big) {
      Fail(*n, path, fmt::format("{} is outside 0–{}", *s, max));
      return std::nullopt;
    }
    return d;
  }

  std::optional<std::string> Enum(const Node* n, std::string_view path,
                                  std::initializer_list<std::string_view> values) {
    const std::optional<std::string> s = String(n, path);
    if (!s.has_value()) return std::nullopt;
    if (std::find(values.begin(), values.end(), *s) == values.end()) {
      Fail(*n, path,
           fmt::format("\"{}\" is not one of {}", *s,
                       JoinList(std::span<const std::string_view>(values.begin(), values.size()))));
      return std::nullopt;
    }
    return s;
  }

  std::optional<bool> Toggle(const Node* n, std::string_view path) {
    const std::optional<std::string> s = Enum(n, path, {"Enabled", "Disabled"});
    if (!s.has_value()) return std::nullopt;
    return *s == "Enabled";
  }

  const std::vector<Node>* List(const Node* n, std::string_view path, size_t max_items) {
    if (n == nullptr || n->is_null()) return nullptr;
    if (!n->is_list()) {
      Fail(*n, path, fmt::format("expected a list, got {}", n->TypeName()));
      return nullptr;
    }
    if (n->items.size() > max_items) {
      Fail(*n, path, fmt::format("has {} entries, at most {} are allowed", n->items.size(), max_items));
      return nullptr;
    }
    return &n->items;
  }

  // ISO-8601 text (as the AWS CLI prints) or epoch seconds (the JSON wire form: any non-negative
  // JSON number, e.g. `1753380732.021` or, as Java-based AWS services write it, `1.753380732021E9`).
  void Timestamp(const Node* n, std::string_view path) {
    const std::optional<std::string> s = String(n, path);
    if (!s.has_value()) return;
    if (IsEpochNumber(*s)) return;
    if (!ParseRfc3339(*s).ok()) {
      Fail(*n, path, fmt::format("\"{}\" is neither an ISO-8601 timestamp nor epoch seconds", *s));
    }
  }

  void Description(const Node* n, std::string_view path, std::string* out) {
    if (std::optional<std::string> s = String(n, path)) {
      if (s->size() > 1024) {
        Fail(*n, path, fmt::format("is {} characters long, at most 1024 are allowed", s->size()));
      }
      *out = *s;
    }
  }

  void PolicyName(const Node* n, std::string_view path, std::string* out) {
    if (std::optional<std::string> s = String(n, path)) {
      if (!ValidPolicyName(*s)) {
        Fail(*n, path,
             fmt::format("\"{}\" must be 1–63 letters, digits or '-', starting and ending with a "
                         "letter or digit",
                         *s));
      }
      *out = *s;
    }
  }

  void ClusterArn(const Node* n, std::string_view path, bool validate, std::string* out) {
    if (std::optional<std::string> s = String(n, path)) {
      if (validate && !ValidClusterArn(*s)) {
        Fail(*n, path,
             fmt::format("\"{}\" is not a cluster ARN "
                         "(arn:aws:sagemaker:<region>:<12-digit account>:cluster/<12-character id>)",
                         *s));
      }
      *out = *s;
    }
  }

  // ---- Structures ------------------------------------------------------------------------------

  void QuotaResourceEntry(const Node& n, const std::string& path, QuotaResource* r) {
    if (!Members(n, path, {"InstanceType", "Count", "Accelerators", "VCpu", "MemoryInGiB",
                           "AcceleratorPartition"})) {
      return;
    }
    const Node* type_node = Required(n, path, "InstanceType");
    if (type_node == nullptr) return;
    const std::string type_path = Join(path, "InstanceType");
    r->instance_type = String(type_node, type_path).value_or("");
    if (!ok()) return;
    const InstanceType* type = FindInstanceType(r->instance_type);
    if (type == nullptr || !type->quota_allowed()) {
      Fail(*type_node, type_path,
           fmt::format("\"{}\" is not a HyperPod instance type (ClusterInstanceType)", r->instance_type));
      return;
    }
    r->count = Int(n.Find("Count"), Join(path, "Count"), 0, kMaxAmount);
    r->accelerators = Int(n.Find("Accelerators"), Join(path, "Accelerators"), 0, kMaxAmount);
    r->vcpu = Dec(n.Find("VCpu"), Join(path, "VCpu"), kMaxAmount);
    r->memory_gib = Dec(n.Find("MemoryInGiB"), Join(path, "MemoryInGiB"), kMaxAmount);
    if (const Node* p = n.Find("AcceleratorPartition"); p != nullptr && !p->is_null()) {
      const std::string ppath = Join(path, "AcceleratorPartition");
      if (!Members(*p, ppath, {"Type", "Count"})) return;
      AcceleratorPartition part;
      const Node* t = Required(*p, ppath, "Type");
      const Node* c = Required(*p, ppath, "Count");
      if (!ok()) return;
      part.type = String(t, Join(ppath, "Type")).value_or("");
      part.count = Int(c, Join(ppath, "Count"), 0, kMaxAmount).value_or(0);
      if (!ok()) return;
      const std::vector<std::string_view> profiles = MigProfilesOf(r->instance_type);
      if (profiles.empty()) {
        Fail(*t, Join(ppath, "Type"),
             fmt::format("\"{}\" is not allowed: {} does not support accelerator partitions (MIG)",
                         part.type, r->instance_type));
        return;
      }
      if (std::find(profiles.begin(), profiles.end(), part.type) == profiles.end()) {
        Fail(*t, Join(ppath, "Type"),
             fmt::format("\"{}\" is not a MIG profile of {} (allowed: {})", part.type,
                         r->instance_type, JoinList(profiles)));
        return;
      }
      r->partition = std::move(part);
    }
    if (!ok()) return;
    const bool granular = r->accelerators.has_value() || r->vcpu.has_value() ||
                          r->memory_gib.has_value() || r->partition.has_value();
    if (r->count.has_value() && granular) {
      std::string given;
      for (std::string_view member : {"Accelerators", "VCpu", "MemoryInGiB", "AcceleratorPartition"}) {
        if (const Node* m = n.Find(member); m != nullptr && !m->is_null()) {
          given += given.empty() ? "" : ", ";
          given += member;
        }
      }
      Fail(*n.Find("Count"), Join(path, "Count"),
           fmt::format("{} whole instances cannot be combined with {} in one entry (give Count, or "
                       "Accelerators/VCpu/MemoryInGiB/AcceleratorPartition)",
                       *r->count, given));
      return;
    }
    if (!r->count.has_value() && !granular) {
      Fail(n, path, "needs Count, or one of Accelerators, VCpu, MemoryInGiB, AcceleratorPartition");
      return;
    }
    if (r->accelerators.value_or(0) > 0 && type->accelerators == 0) {
      Fail(*n.Find("Accelerators"), Join(path, "Accelerators"),
           fmt::format("{} is not allowed: {} has no accelerators (CPU only)", *r->accelerators,
                       r->instance_type));
    }
  }

  // A list of `ComputeQuotaResourceConfig`, instance types unique.
  void QuotaResourceList(const Node* n, const std::string& path, std::vector<QuotaResource>* out) {
    const std::vector<Node>* items = List(n, path, kMaxQuotaEntries);
    if (items == nullptr) return;
    for (size_t i = 0; i < items->size() && ok(); ++i) {
      const std::string item_path = fmt::format("{}[{}]", path, i);
      QuotaResource r;
      QuotaResourceEntry((*items)[i], item_path, &r);
      if (!ok()) return;
      for (size_t j = 0; j < out->size(); ++j) {
        if ((*out)[j].instance_type == r.instance_type) {
          Fail(*(*items)[i].Find("InstanceType"), Join(item_path, "InstanceType"),
               fmt::format("{} is already listed in {}[{}]", r.instance_type, path, j));
          return;
        }
      }
      out->push_back(std::move(r));
    }
  }

  void ComputeQuotaConfig(const Node& n, const std::string& path, ComputeQuotaPolicy* q) {
    if (!Members(n, path, {"ComputeQuotaResources", "ResourceSharingConfig", "PreemptTeamTasks"})) {
      return;
    }
    QuotaResourceList(n.Find("ComputeQuotaResources"), Join(path, "ComputeQuotaResources"),
                      &q->resources);
    if (!ok()) return;
    if (const Node* rs = n.Find("ResourceSharingConfig"); rs != nullptr && !rs->is_null()) {
      const std::string rpath = Join(path, "ResourceSharingConfig");
      if (!Members(*rs, rpath, {"Strategy", "BorrowLimit", "AbsoluteBorrowLimits"})) return;
      ResourceSharing sharing;
      const Node* strategy = Required(*rs, rpath, "Strategy");
      const std::optional<std::string> s =
          Enum(strategy, Join(rpath, "Strategy"), {"Lend", "DontLend", "LendAndBorrow"});
      if (!s.has_value()) return;
      sharing.strategy = *s == "Lend"       ? SharingStrategy::kLend
                         : *s == "DontLend" ? SharingStrategy::kDontLend
                                            : SharingStrategy::kLendAndBorrow;
      sharing.borrow_limit = Int(rs->Find("BorrowLimit"), Join(rpath, "BorrowLimit"), 0, 10000);
      const std::string apath = Join(rpath, "AbsoluteBorrowLimits");
      QuotaResourceList(rs->Find("AbsoluteBorrowLimits"), apath, &sharing.absolute_borrow_limits);
      if (!ok()) return;
      for (size_t i = 0; i < sharing.absolute_borrow_limits.size(); ++i) {
        const std::string& type = sharing.absolute_borrow_limits[i].instance_type;
        const bool in_quota = std::any_of(q->resources.begin(), q->resources.end(),
                                          [&](const QuotaResource& r) { return r.instance_type == type; });
        if (!in_quota) {
          const Node& item = rs->Find("AbsoluteBorrowLimits")->items[i];
          Fail(*item.Find("InstanceType"), fmt::format("{}[{}].InstanceType", apath, i),
               fmt::format("{} is not in {}", type, Join(path, "ComputeQuotaResources")));
          return;
        }
      }
      q->sharing = std::move(sharing);
    }
    if (const std::optional<std::string> p =
            Enum(n.Find("PreemptTeamTasks"), Join(path, "PreemptTeamTasks"), {"Never", "LowerPriority"})) {
      q->preempt_team_tasks = *p == "Never" ? PreemptTeamTasks::kNever : PreemptTeamTasks::kLowerPriority;
    }
  }

  void ComputeQuotaTarget(const Node& n, const std::string& path, ComputeQuotaPolicy* q) {
    if (!Members(n, path, {"TeamName", "FairShareWeight"})) return;
    const Node* team = Required(n, path, "TeamName");
    if (team == nullptr) return;
    q->team = String(team, Join(path, "TeamName")).value_or("");
    if (!ok()) return;
    if (!ValidLowerName(q->team)) {
      Fail(*team, Join(path, "TeamName"),
           fmt::format("\"{}\" must be 1–40 lower-case letters, digits or '-', starting and ending "
                       "with a letter or digit",
                       q->team));
      return;
    }
    if (std::optional<int64_t> w = Int(n.Find("FairShareWeight"), Join(path, "FairShareWeight"), 0, 100)) {
      q->fair_share_weight = static_cast<int32_t>(*w);
    }
  }

  void ActivationState(const Node* n, std::string_view path, ComputeQuotaPolicy* q) {
    if (std::optional<bool> on = Toggle(n, path)) q->enabled = *on;
  }

  void SchedulerConfig(const Node& n, const std::string& path, SchedulerConfigPolicy* sc) {
    if (!Members(n, path, {"PriorityClasses", "FairShare", "IdleResourceSharing"})) return;
    const std::string ppath = Join(path, "PriorityClasses");
    if (const std::vector<Node>* items = List(n.Find("PriorityClasses"), ppath, kMaxPriorityClasses)) {
      for (size_t i = 0; i < items->size() && ok(); ++i) {
        const Node& item = (*items)[i];
        const std::string ipath = fmt::format("{}[{}]", ppath, i);
        if (!Members(item, ipath, {"Name", "Weight"})) return;
        PriorityClassPolicy pc;
        const Node* name = Required(item, ipath, "Name");
        const Node* weight = Required(item, ipath, "Weight");
        if (!ok()) return;
        pc.name = String(name, Join(ipath, "Name")).value_or("");
        if (ok() && !ValidLowerName(pc.name)) {
          Fail(*name, Join(ipath, "Name"),
               fmt::format("\"{}\" must be 1–40 lower-case letters, digits or '-', starting and "
                           "ending with a letter or digit",
                           pc.name));
        }
        pc.weight = static_cast<int32_t>(Int(weight, Join(ipath, "Weight"), 0, 100).value_or(0));
        if (!ok()) return;
        for (size_t j = 0; j < sc->priority_classes.size(); ++j) {
          if (sc->priority_classes[j].name == pc.name) {
            Fail(*name, Join(ipath, "Name"),
                 fmt::format("\"{}\" is already defined by {}[{}]", pc.name, ppath, j));
            return;
          }
        }
        sc->priority_classes.push_back(std::move(pc));
      }
    }
    if (std::optional<bool> v = Toggle(n.Find("FairShare"), Join(path, "FairShare"))) sc->fair_share = *v;
    if (std::optional<bool> v = Toggle(n.Find("IdleResourceSharing"), Join(path, "IdleResourceSharing"))) {
      sc->idle_resource_sharing = *v;
    }
  }

  // Parses a shorthand string member and reads it with `read`.
  template <class F>
  void Shorthand(const Node* n, const std::string& cli_path, F read) {
    const std::optional<std::string> text = String(n, cli_path);
    if (!text.has_value()) return;
    absl::StatusOr<Node> tree = ParseShorthand(*text, n->line);
    if (!tree.ok()) {
      Fail(*n, cli_path, fmt::format("not AWS CLI shorthand: {}", std::string(tree.status().message())));
      return;
    }
    read(*tree);
  }

 private:
  static int64_t Pow10(int32_t n) {
    int64_t v = 1;
    while (n-- > 0) v *= 10;
    return v;
  }

  std::string file_;
  std::string object_;
  absl::Status status_;
};

// ---- API documents (JSON) ----------------------------------------------------------------------

// Names the object `<kind>/<Name>` when `n` has a valid `Name`, else `<kind>`, so that errors found
// before the name is read (unknown members) still say which object they are in.
void NameObject(Reader& r, const Node& n, std::string_view kind) {
  const Node* name = n.is_map() ? n.Find("Name") : nullptr;
  if (name != nullptr && name->is_scalar() && ValidPolicyName(name->text)) {
    r.set_object(fmt::format("{}/{}", kind, name->text));
  } else {
    r.set_object(std::string(kind));
  }
}

void ReadDescribedQuota(Reader& r, const Node& n, const std::string& path, bool summary,
                        ComputeQuotaPolicy* q) {
  std::initializer_list<std::string_view> describe = {
      "ComputeQuotaArn", "ComputeQuotaId", "Name", "Description", "ComputeQuotaVersion", "Status",
      "FailureReason", "ClusterArn", "ComputeQuotaConfig", "ComputeQuotaTarget", "ActivationState",
      "CreationTime", "CreatedBy", "LastModifiedTime", "LastModifiedBy", "ResponseMetadata"};
  std::initializer_list<std::string_view> summary_members = {
      "ComputeQuotaArn", "ComputeQuotaId", "Name", "ComputeQuotaVersion", "Status", "ClusterArn",
      "ComputeQuotaConfig", "ComputeQuotaTarget", "ActivationState", "CreationTime",
      "LastModifiedTime"};
  NameObject(r, n, "ComputeQuota");
  if (!r.Members(n, path, summary ? summary_members : describe)) return;
  const Node* name = r.Required(n, path, "Name");
  if (name == nullptr) return;
  r.PolicyName(name, Join(path, "Name"), &q->name);
  r.set_object("ComputeQuota/" + q->name);
  r.Required(n, path, "ComputeQuotaTarget");
  r.Int(n.Find("ComputeQuotaVersion"), Join(path, "ComputeQuotaVersion"), 0, INT32_MAX);
  r.Enum(n.Find("Status"), Join(path, "Status"),
         {kStatuses[0], kStatuses[1], kStatuses[2], kStatuses[3], kStatuses[4], kStatuses[5],
          kStatuses[6], kStatuses[7], kStatuses[8], kStatuses[9], kStatuses[10], kStatuses[11]});
  r.Description(n.Find("Description"), Join(path, "Description"), &q->description);
  r.ClusterArn(n.Find("ClusterArn"), Join(path, "ClusterArn"), false, &q->cluster_arn);
  r.Timestamp(n.Find("CreationTime"), Join(path, "CreationTime"));
  r.Timestamp(n.Find("LastModifiedTime"), Join(path, "LastModifiedTime"));
  if (!r.ok()) return;
  if (const Node* c = n.Find("ComputeQuotaConfig"); c != nullptr && !c->is_null()) {
    r.ComputeQuotaConfig(*c, Join(path, "ComputeQuotaConfig"), q);
  }
  if (!r.ok()) return;
  r.ComputeQuotaTarget(*n.Find("ComputeQuotaTarget"), Join(path, "ComputeQuotaTarget"), q);
  r.ActivationState(n.Find("ActivationState"), Join(path, "ActivationState"), q);
}

void ReadCreateQuotaRequest(Reader& r, const Node& n, ComputeQuotaPolicy* q) {
  NameObject(r, n, "ComputeQuota");
  if (!r.Members(n, "", {"Name", "Description", "ClusterArn", "ComputeQuotaConfig",
                         "ComputeQuotaTarget", "ActivationState", "Tags"})) {
    return;
  }
  const Node* name = r.Required(n, "", "Name");
  if (name == nullptr) return;
  r.PolicyName(name, "Name", &q->name);
  r.set_object("ComputeQuota/" + q->name);
  const Node* arn = r.Required(n, "", "ClusterArn");
  const Node* config = r.Required(n, "", "ComputeQuotaConfig");
  const Node* target = r.Required(n, "", "ComputeQuotaTarget");
  if (!r.ok()) return;
  r.ClusterArn(arn, "ClusterArn", true, &q->cluster_arn);
  r.Description(n.Find("Description"), "Description", &q->description);
  if (!r.ok()) return;
  r.ComputeQuotaConfig(*config, "ComputeQuotaConfig", q);
  if (!r.ok()) return;
  r.ComputeQuotaTarget(*target, "ComputeQuotaTarget", q);
  r.ActivationState(n.Find("ActivationState"), "ActivationState", q);
}

void ReadSchedulerDocument(Reader& r, const Node& n, bool describe, SchedulerConfigPolicy* sc) {
  NameObject(r, n, "ClusterSchedulerConfig");
  if (describe) {
    if (!r.Members(n, "", {"ClusterSchedulerConfigArn", "ClusterSchedulerConfigId", "Name",
                           "ClusterSchedulerConfigVersion", "Status", "FailureReason",
                           "StatusDetails", "ClusterArn", "SchedulerConfig", "Description",
                           "CreationTime", "CreatedBy", "LastModifiedTime", "LastModifiedBy",
                           "ResponseMetadata"})) {
      return;
    }
  } else if (!r.Members(n, "", {"Name", "ClusterArn", "SchedulerConfig", "Description", "Tags"})) {
    return;
  }
  const Node* name = r.Required(n, "", "Name");
  if (name == nullptr) return;
  r.PolicyName(name, "Name", &sc->name);
  r.set_object("ClusterSchedulerConfig/" + sc->name);
  std::string description;
  r.Description(n.Find("Description"), "Description", &description);
  if (describe) {
    r.ClusterArn(n.Find("ClusterArn"), "ClusterArn", false, &sc->cluster_arn);
    r.Enum(n.Find("Status"), "Status",
           {kStatuses[0], kStatuses[1], kStatuses[2], kStatuses[3], kStatuses[4], kStatuses[5],
            kStatuses[6], kStatuses[7], kStatuses[8], kStatuses[9], kStatuses[10], kStatuses[11]});
    r.Int(n.Find("ClusterSchedulerConfigVersion"), "ClusterSchedulerConfigVersion", 0, INT32_MAX);
    r.Timestamp(n.Find("CreationTime"), "CreationTime");
    r.Timestamp(n.Find("LastModifiedTime"), "LastModifiedTime");
  } else {
    const Node* arn = r.Required(n, "", "ClusterArn");
    if (arn != nullptr) r.ClusterArn(arn, "ClusterArn", true, &sc->cluster_arn);
  }
  const Node* config = describe ? n.Find("SchedulerConfig") : r.Required(n, "", "SchedulerConfig");
  if (!r.ok() || config == nullptr || config->is_null()) return;
  r.SchedulerConfig(*config, "SchedulerConfig", sc);
}

// ---- Our YAML kinds ----------------------------------------------------------------------------

std::string ObjectName(Reader& r, const Node& n, std::string_view kind) {
  r.set_object(std::string(kind));
  const Node* metadata = r.Required(n, "", "metadata");
  if (metadata == nullptr) return "";
  if (!metadata->is_map()) {
    r.Fail(*metadata, "metadata", fmt::format("expected a map, got {}", metadata->TypeName()));
    return "";
  }
  const Node* name = r.Required(*metadata, "metadata", "name");
  if (name == nullptr) return "";
  std::string out;
  if (kind == "HyperPodCluster") {
    out = r.String(name, "metadata.name").value_or("");
  } else {
    // metadata.name is the policy's API `Name`, so it follows the API's pattern.
    r.PolicyName(name, "metadata.name", &out);
  }
  r.set_object(fmt::format("{}/{}", kind, out));
  return out;
}

void ReadSchedulerObject(Reader& r, const Node& n, SchedulerConfigPolicy* sc) {
  sc->name = ObjectName(r, n, "ClusterSchedulerConfig");
  if (!r.ok()) return;
  if (!r.Members(n, "", {"apiVersion", "kind", "metadata", "schedulerConfig", "cli", "clusterArn",
                         "description"})) {
    return;
  }
  r.ClusterArn(n.Find("clusterArn"), "clusterArn", true, &sc->cluster_arn);
  // The policy model keeps no description, but the API's length limit still applies.
  std::string description;
  r.Description(n.Find("description"), "description", &description);
  const Node* config = n.Find("schedulerConfig");
  const Node* cli = n.Find("cli");
  if (config != nullptr && cli != nullptr) {
    r.Fail(*cli, "cli", "give either schedulerConfig or cli, not both");
    return;
  }
  if (config == nullptr && cli == nullptr) {
    r.Fail(n, "schedulerConfig", "is required (or cli: \"PriorityClasses=[...],FairShare=...\")");
    return;
  }
  if (config != nullptr) {
    r.SchedulerConfig(*config, "SchedulerConfig", sc);
  } else {
    r.Shorthand(cli, "cli", [&](const Node& tree) { r.SchedulerConfig(tree, "SchedulerConfig", sc); });
  }
}

void ReadQuotaObject(Reader& r, const Node& n, ComputeQuotaPolicy* q) {
  q->name = ObjectName(r, n, "ComputeQuota");
  if (!r.ok()) return;
  if (!r.Members(n, "", {"apiVersion", "kind", "metadata", "computeQuotaConfig",
                         "computeQuotaTarget", "activationState", "description", "clusterArn",
                         "cli"})) {
    return;
  }
  r.Description(n.Find("description"), "description", &q->description);
  r.ClusterArn(n.Find("clusterArn"), "clusterArn", true, &q->cluster_arn);
  const Node* cli = n.Find("cli");
  if (cli != nullptr) {
    for (std::string_view key : {"computeQuotaConfig", "computeQuotaTarget", "activationState"}) {
      if (n.Find(key) != nullptr) {
        r.Fail(*n.Find(key), key, "give it inside cli, or drop cli");
        return;
      }
    }
    if (!r.Members(*cli, "cli", {"computeQuotaConfig", "computeQuotaTarget", "activationState"})) {
      return;
    }
    const Node* config = r.Required(*cli, "cli", "computeQuotaConfig");
    const Node* target = r.Required(*cli, "cli", "computeQuotaTarget");
    if (!r.ok()) return;
    r.Shorthand(config, "cli.computeQuotaConfig",
                [&](const Node& tree) { r.ComputeQuotaConfig(tree, "ComputeQuotaConfig", q); });
    if (!r.ok()) return;
    r.Shorthand(target, "cli.computeQuotaTarget",
                [&](const Node& tree) { r.ComputeQuotaTarget(tree, "ComputeQuotaTarget", q); });
    r.ActivationState(cli->Find("activationState"), "ActivationState", q);
    return;
  }
  const Node* config = r.Required(n, "", "computeQuotaConfig");
  const Node* target = r.Required(n, "", "computeQuotaTarget");
  if (!r.ok()) return;
  r.ComputeQuotaConfig(*config, "ComputeQuotaConfig", q);
  if (!r.ok()) return;
  r.ComputeQuotaTarget(*target, "ComputeQuotaTarget", q);
  r.ActivationState(n.Find("activationState"), "ActivationState", q);
}

void ReadClusterObject(Reader& r, const Node& n, ClusterInventory* c) {
  c->name = ObjectName(r, n, "HyperPodCluster");
  if (!r.ok()) return;
  if (!r.Members(n, "", {"apiVersion", "kind", "metadata", "instances"})) return;
  const Node* instances = r.Required(n, "", "instances");
  if (instances == nullptr) return;
  if (!instances->is_map()) {
    r.Fail(*instances, "instances",
           fmt::format("expected a map instance type → node count, got {}", instances->TypeName()));
    return;
  }
  for (const auto& [type, count] : instances->fields) {
    const std::string path = fmt::format("instances[{}]", type);
    if (FindInstanceType(type) == nullptr) {
      r.Fail(count, path, fmt::format("\"{}\" is not an instance type of the catalogue", type));
      return;
    }
    const std::optional<int64_t> n_nodes = r.Int(&count, path, 0, kMaxAmount);
    if (!r.ok()) return;
    c->instances.emplace_back(type, n_nodes.value_or(0));
  }
  std::sort(c->instances.begin(), c->instances.end());
}

}  // namespace

bool IsPolicyKind(std::string_view kind) {
  return kind == "ClusterSchedulerConfig" || kind == "ComputeQuota" || kind == "HyperPodCluster";
}

absl::Status ReadPolicyObject(const Node& object, std::string_view file, PolicySet* set) {
  const Node* kind = object.Find("kind");
  const std::string k = kind != nullptr ? kind->text : "";
  Reader r(file, k);
  if (const Node* v = object.Find("apiVersion"); v != nullptr && !v->is_null() &&
                                                  v->text != kPolicyApiVersion) {
    r.Fail(*v, "apiVersion",
           fmt::format("\"{}\" is not an API version of {} (expected {})", v->text, k,
                       kPolicyApiVersion));
    return r.status();
  }
  PolicySet one;
  if (k == "ClusterSchedulerConfig") {
    SchedulerConfigPolicy sc;
    sc.source = file.empty() ? "" : fmt::format("{}:{}", file, object.line);
    ReadSchedulerObject(r, object, &sc);
    one.scheduler = std::move(sc);
  } else if (k == "ComputeQuota") {
    ComputeQuotaPolicy q;
    q.source = file.empty() ? "" : fmt::format("{}:{}", file, object.line);
    ReadQuotaObject(r, object, &q);
    one.quotas.push_back(std::move(q));
  } else {
    ClusterInventory c;
    c.source = file.empty() ? "" : fmt::format("{}:{}", file, object.line);
    ReadClusterObject(r, object, &c);
    one.cluster = std::move(c);
  }
  if (!r.ok()) return r.status();
  return MergePolicies(*set, std::move(one));
}

namespace {

// Reads one document (JSON or YAML) into `doc`.
absl::Status ReadDocument(const Node& root, std::string_view file, PolicyDocument* doc);

absl::Status ReadObjectList(const std::vector<Node>& items, std::string_view file,
                            PolicyDocument* doc) {
  for (const Node& item : items) QM_RETURN_IF_ERROR(ReadDocument(item, file, doc));
  return absl::OkStatus();
}

absl::Status ReadDocument(const Node& root, std::string_view file, PolicyDocument* doc) {
  if (root.is_null()) return absl::OkStatus();
  if (root.is_list()) return ReadObjectList(root.items, file, doc);
  Reader r(file, "");
  if (!root.is_map()) {
    r.Fail(root, "", fmt::format("expected a HyperPod policy (a map), got {}", root.TypeName()));
    return r.status();
  }
  const std::string source = fmt::format("{}:{}", file, root.line);
  if (const Node* kind = root.Find("kind"); kind != nullptr && kind->is_scalar()) {
    if (kind->text == "List") {
      const Node* items = root.Find("items");
      return items != nullptr && items->is_list() ? ReadObjectList(items->items, file, doc)
                                                  : absl::OkStatus();
    }
    if (IsPolicyKind(kind->text)) return ReadPolicyObject(root, file, &doc->policies);
    std::string name;
    if (const Node* m = root.Find("metadata"); m != nullptr && m->is_map()) {
      if (const Node* ns = m->Find("namespace"); ns != nullptr && ns->is_scalar()) name = ns->text + "/";
      if (const Node* n = m->Find("name"); n != nullptr && n->is_scalar()) name += n->text;
    }
    doc->notes.push_back(
        fmt::format("{}: skipped {}/{} (not a HyperPod policy)", source, kind->text, name));
    return absl::OkStatus();
  }
  if (const Node* objects = root.Find("objects"); objects != nullptr && root.Find("name") != nullptr) {
    // A scenario file: its objects.
    return objects->is_list() ? ReadObjectList(objects->items, file, doc) : absl::OkStatus();
  }
  PolicySet one;
  if (const Node* summaries = root.Find("ComputeQuotaSummaries"); summaries != nullptr) {
    if (!r.Members(root, "", {"ComputeQuotaSummaries", "NextToken", "ResponseMetadata"})) {
      return r.status();
    }
    const std::vector<Node>* items = r.List(summaries, "ComputeQuotaSummaries", SIZE_MAX);
    if (items == nullptr) return r.status();
    for (size_t i = 0; i < items->size(); ++i) {
      ComputeQuotaPolicy q;
      q.source = fmt::format("{}:{}", file, (*items)[i].line);
      Reader item_reader(file, "");
      ReadDescribedQuota(item_reader, (*items)[i], fmt::format("ComputeQuotaSummaries[{}]", i),
                         /*summary=*/true, &q);
      if (!item_reader.ok()) return item_reader.status();
      one.quotas.push_back(std::move(q));
    }
  } else if (root.Find("ComputeQuotaConfig") != nullptr || root.Find("ComputeQuotaTarget") != nullptr ||
             root.Find("ComputeQuotaArn") != nullptr) {
    ComputeQuotaPolicy q;
    q.source = source;
    if (root.Find("ComputeQuotaArn") != nullptr || root.Find("ComputeQuotaId") != nullptr) {
      ReadDescribedQuota(r, root, "", /*summary=*/false, &q);
    } else {
      ReadCreateQuotaRequest(r, root, &q);
    }
    if (!r.ok()) return r.status();
    one.quotas.push_back(std::move(q));
  } else if (root.Find("SchedulerConfig") != nullptr ||
             root.Find("ClusterSchedulerConfigArn") != nullptr) {
    SchedulerConfigPolicy sc;
    sc.source = source;
    ReadSchedulerDocument(r, root, root.Find("ClusterSchedulerConfigArn") != nullptr, &sc);
    if (!r.ok()) return r.status();
    one.scheduler = std::move(sc);
  } else {
    r.Fail(root, "",
           "not a HyperPod policy: expected a DescribeComputeQuota, ListComputeQuotas, "
           "CreateComputeQuota, DescribeClusterSchedulerConfig or CreateClusterSchedulerConfig "
           "document, or objects of kind ClusterSchedulerConfig, ComputeQuota, HyperPodCluster");
    return r.status();
  }
  return MergePolicies(doc->policies, std::move(one));
}

}  // namespace
}  // namespace internal

absl::StatusOr<PolicyDocument> ReadPolicyString(std::string_view text, std::string_view source_name) {
  std::vector<YAML::Node> docs;
  QM_RETURN_IF_ERROR(qm::internal::LoadYamlDocuments(text, source_name, &docs));
  PolicyDocument out;
  try {
    for (const YAML::Node& doc : docs) {
      QM_RETURN_IF_ERROR(internal::ReadDocument(internal::FromYaml(doc, 1), source_name, &out));
    }
  } catch (const YAML::Exception& e) {
    return qm::internal::YamlExceptionStatus(e, source_name);
  }
  return out;
}

absl::StatusOr<PolicyDocument> ReadPolicyFile(const std::string& path) {
  QM_ASSIGN_OR_RETURN(std::string text, qm::internal::ReadTextFile(path));
  return ReadPolicyString(text, path);
}

absl::Status MergePolicies(PolicySet& into, PolicySet more) {
  // Every conflict is found before anything moves, so a refused merge leaves `into` as it was.
  if (more.scheduler.has_value() && into.scheduler.has_value()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: ClusterSchedulerConfig/{}: a cluster has one cluster policy, and {} already defines "
        "ClusterSchedulerConfig/{}",
        more.scheduler->source, more.scheduler->name, into.scheduler->source, into.scheduler->name));
  }
  if (more.cluster.has_value() && into.cluster.has_value()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: HyperPodCluster/{}: only one HyperPodCluster may be given ({} defines "
                    "HyperPodCluster/{})",
                    more.cluster->source, more.cluster->name, into.cluster->source, into.cluster->name));
  }
  if (more.scheduler.has_value()) into.scheduler = std::move(more.scheduler);
  if (more.cluster.has_value()) into.cluster = std::move(more.cluster);
  for (ComputeQuotaPolicy& q : more.quotas) into.quotas.push_back(std::move(q));
  return absl::OkStatus();
}

absl::StatusOr<SchedulerConfigPolicy> ParseSchedulerConfigShorthand(std::string_view text) {
  // Errors read like the file forms' ("<object>: <member path>: ..."), without a file.
  constexpr std::string_view kObject = "ClusterSchedulerConfig";
  absl::StatusOr<internal::Node> tree = internal::ParseShorthand(text, 0);
  if (!tree.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: SchedulerConfig: not AWS CLI shorthand: {}", kObject,
                                                  std::string(tree.status().message())));
  }
  internal::Reader r("", std::string(kObject));
  SchedulerConfigPolicy sc;
  r.SchedulerConfig(*tree, "SchedulerConfig", &sc);
  if (!r.ok()) return r.status();
  return sc;
}

absl::StatusOr<ComputeQuotaPolicy> ParseComputeQuotaShorthand(std::string_view name,
                                                              std::string_view config,
                                                              std::string_view target,
                                                              std::string_view activation_state) {
  auto scalar = [](std::string_view text) {
    internal::Node n;
    n.type = internal::Node::Type::kScalar;
    n.text = std::string(text);
    return n;
  };
  ComputeQuotaPolicy q;
  const std::string object = name.empty() ? "ComputeQuota" : fmt::format("ComputeQuota/{}", name);
  internal::Reader r("", object);
  if (!name.empty()) {
    const internal::Node name_node = scalar(name);
    r.PolicyName(&name_node, "Name", &q.name);
    if (!r.ok()) return r.status();
  }
  absl::StatusOr<internal::Node> config_tree = internal::ParseShorthand(config, 0);
  if (!config_tree.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: ComputeQuotaConfig: not AWS CLI shorthand: {}", object,
                                                  std::string(config_tree.status().message())));
  }
  r.ComputeQuotaConfig(*config_tree, "ComputeQuotaConfig", &q);
  if (!r.ok()) return r.status();
  absl::StatusOr<internal::Node> target_tree = internal::ParseShorthand(target, 0);
  if (!target_tree.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: ComputeQuotaTarget: not AWS CLI shorthand: {}", object,
                                                  std::string(target_tree.status().message())));
  }
  r.ComputeQuotaTarget(*target_tree, "ComputeQuotaTarget", &q);
  if (!activation_state.empty()) {
    const internal::Node state = scalar(activation_state);
    r.ActivationState(&state, "ActivationState", &q);
  }
  if (!r.ok()) return r.status();
  return q;
}

}  // namespace qm::hyperpod
