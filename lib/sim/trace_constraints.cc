// Node-constraint columns of a trace: see trace_constraints.h.
#include "sim/trace_constraints.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

#include "fmt/format.h"

namespace qm::sim::internal {
namespace {

// `text` cut at every `sep` (Debian's Abseil has its own string_view, so absl::StrSplit does not
// take std::string_view).
std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A label key or value as these columns may hold it: no separator of the syntax, no space. The
// engine checks the rest as it does for Kueue objects.
std::string WordProblem(std::string_view what, std::string_view word, bool may_be_empty) {
  if (word.empty()) return may_be_empty ? "" : fmt::format("{} must not be empty", what);
  if (word.size() > 317) return fmt::format("{} \"{}\" is longer than 317 characters", what, word);
  if (word.find_first_of(" \t=;|:") != std::string_view::npos)
    return fmt::format("{} \"{}\" must not contain spaces or any of = ; | :", what, word);
  return "";
}

constexpr std::array<std::pair<std::string_view, NodeSelectorRequirement::Operator>, 6> kOperators = {{
    {"In", NodeSelectorRequirement::Operator::kIn},
    {"NotIn", NodeSelectorRequirement::Operator::kNotIn},
    {"Exists", NodeSelectorRequirement::Operator::kExists},
    {"DoesNotExist", NodeSelectorRequirement::Operator::kDoesNotExist},
    {"Gt", NodeSelectorRequirement::Operator::kGt},
    {"Lt", NodeSelectorRequirement::Operator::kLt},
}};

constexpr std::array<std::pair<std::string_view, TaintEffect>, 3> kEffects = {{
    {"NoSchedule", TaintEffect::kNoSchedule},
    {"PreferNoSchedule", TaintEffect::kPreferNoSchedule},
    {"NoExecute", TaintEffect::kNoExecute},
}};

std::string_view OperatorName(NodeSelectorRequirement::Operator op) {
  for (const auto& [name, value] : kOperators)
    if (value == op) return name;
  return "In";
}

bool IsInteger(std::string_view v) {
  int64_t n = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  return !v.empty() && ec == std::errc() && ptr == v.data() + v.size();
}

// One `key Op v1|v2` expression.
std::string ParseExpression(std::string_view text, NodeSelectorRequirement* out) {
  std::vector<std::string_view> words;
  for (std::string_view w : Split(text, ' '))
    if (!Trim(w).empty()) words.push_back(Trim(w));
  if (words.size() < 2 || words.size() > 3)
    return fmt::format("\"{}\" is not an expression: expected <key> <In|NotIn|Exists|DoesNotExist|Gt|Lt> [values]",
                       text);
  if (std::string p = WordProblem("key", words[0], false); !p.empty()) return p;
  out->key = std::string(words[0]);
  const auto op = std::find_if(kOperators.begin(), kOperators.end(), [&](const auto& o) { return o.first == words[1]; });
  if (op == kOperators.end())
    return fmt::format("\"{}\" is not an operator (In, NotIn, Exists, DoesNotExist, Gt, Lt)", words[1]);
  out->op = op->second;
  out->values.clear();
  if (words.size() == 3)
    for (std::string_view v : Split(words[2], '|')) {
      if (std::string p = WordProblem("value", v, false); !p.empty()) return p;
      out->values.emplace_back(v);
    }
  using Op = NodeSelectorRequirement::Operator;
  switch (out->op) {
    case Op::kIn:
    case Op::kNotIn:
      if (out->values.empty()) return fmt::format("{} {} needs values joined by |", out->key, op->first);
      break;
    case Op::kExists:
    case Op::kDoesNotExist:
      if (!out->values.empty()) return fmt::format("{} {} takes no values", out->key, op->first);
      break;
    case Op::kGt:
    case Op::kLt:
      if (out->values.size() != 1 || !IsInteger(out->values[0]))
        return fmt::format("{} {} takes one integer", out->key, op->first);
      break;
  }
  return "";
}

}  // namespace

std::string ParseNodeSelector(std::string_view text, Labels* out) {
  out->clear();
  for (std::string_view pair : Split(text, ';')) {
    pair = Trim(pair);
    const size_t eq = pair.find('=');
    if (eq == std::string_view::npos) return fmt::format("\"{}\" is not key=value", pair);
    const std::string_view key = Trim(pair.substr(0, eq)), value = Trim(pair.substr(eq + 1));
    if (std::string p = WordProblem("key", key, false); !p.empty()) return p;
    if (std::string p = WordProblem("value", value, true); !p.empty()) return p;
    if (FindLabel(*out, key) != nullptr) return fmt::format("key \"{}\" appears twice", key);
    out->emplace_back(key, value);
  }
  std::sort(out->begin(), out->end());
  return "";
}

std::string ParseNodeAffinity(std::string_view text, std::vector<NodeSelectorTerm>* out) {
  out->clear();
  size_t start = 0;
  while (true) {
    const size_t bar = text.find("||", start);
    const std::string_view term_text = Trim(text.substr(start, bar == std::string_view::npos ? bar : bar - start));
    NodeSelectorTerm& term = out->emplace_back();
    if (term_text.empty()) return fmt::format("term {} is empty", out->size());
    for (std::string_view expression : Split(term_text, ';')) {
      if (std::string p = ParseExpression(Trim(expression), &term.match_expressions.emplace_back()); !p.empty())
        return fmt::format("term {}: {}", out->size(), p);
    }
    if (bar == std::string_view::npos) break;
    start = bar + 2;
  }
  return "";
}

std::string ParseTolerations(std::string_view text, std::vector<Toleration>* out) {
  out->clear();
  for (std::string_view item : Split(text, ';')) {
    item = Trim(item);
    Toleration t;
    std::string_view rest = item;
    if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
      const std::string_view effect = Trim(rest.substr(colon + 1));
      const auto e = std::find_if(kEffects.begin(), kEffects.end(), [&](const auto& x) { return x.first == effect; });
      if (e == kEffects.end())
        return fmt::format("\"{}\": \"{}\" is not an effect (NoSchedule, PreferNoSchedule, NoExecute)", item, effect);
      t.effect = e->second;
      rest = Trim(rest.substr(0, colon));
    }
    const size_t eq = rest.find('=');
    t.op = eq == std::string_view::npos ? Toleration::Operator::kExists : Toleration::Operator::kEqual;
    const std::string_view key = Trim(rest.substr(0, eq));
    if (std::string p = WordProblem("key", key, false); !p.empty()) return fmt::format("\"{}\": {}", item, p);
    t.key = std::string(key);
    if (eq != std::string_view::npos) {
      const std::string_view value = Trim(rest.substr(eq + 1));
      if (std::string p = WordProblem("value", value, true); !p.empty()) return fmt::format("\"{}\": {}", item, p);
      t.value = std::string(value);
    }
    out->push_back(std::move(t));
  }
  return "";
}

std::string FormatNodeSelector(const Labels& selector) {
  std::string out;
  for (const auto& [key, value] : selector) out += fmt::format("{}{}={}", out.empty() ? "" : ";", key, value);
  return out;
}

std::string FormatNodeAffinity(const std::vector<NodeSelectorTerm>& terms) {
  std::string out;
  for (size_t t = 0; t < terms.size(); ++t) {
    if (t > 0) out += " || ";
    for (size_t e = 0; e < terms[t].match_expressions.size(); ++e) {
      const NodeSelectorRequirement& r = terms[t].match_expressions[e];
      out += fmt::format("{}{} {}", e ? ";" : "", r.key, OperatorName(r.op));
      if (!r.values.empty()) out += " " + fmt::format("{}", fmt::join(r.values, "|"));
    }
  }
  return out;
}

std::string FormatTolerations(const std::vector<Toleration>& tolerations) {
  std::string out;
  for (const Toleration& t : tolerations) {
    if (!out.empty()) out += ";";
    out += t.key;
    if (t.op == Toleration::Operator::kEqual) out += "=" + t.value;
    if (t.effect.has_value()) out += std::string(":") + TaintEffectName(*t.effect);
  }
  return out;
}

}  // namespace qm::sim::internal
