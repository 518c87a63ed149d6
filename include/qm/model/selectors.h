// Kubernetes matching vocabulary used by the model: label selectors (ClusterQueue namespaceSelector),
// node selector terms (pod required node affinity), taints and tolerations.
#ifndef QM_MODEL_SELECTORS_H_
#define QM_MODEL_SELECTORS_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qm {

/// Labels as (key, value) pairs. Specs keep them sorted by key with unique keys (Validate checks).
using Labels = std::vector<std::pair<std::string, std::string>>;

/// Returns the value of `key` in `labels`, or nullptr.
inline const std::string* FindLabel(const Labels& labels, std::string_view key) {
  for (const auto& [k, v] : labels)
    if (k == key) return &v;
  return nullptr;
}

/// `metav1.LabelSelectorRequirement`.
struct LabelSelectorRequirement {
  enum class Operator { kIn, kNotIn, kExists, kDoesNotExist };
  std::string key;
  Operator op = Operator::kIn;
  std::vector<std::string> values;
};

/// `metav1.LabelSelector`: every matchLabels entry and every expression must hold. The empty
/// selector matches everything. (An *absent* namespaceSelector matching nothing is modelled by
/// `std::optional` on the ClusterQueue.)
struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
};

/// Whether `labels` satisfy `selector`, with Kubernetes semantics.
inline bool Matches(const LabelSelector& selector, const Labels& labels) {
  for (const auto& [k, v] : selector.match_labels) {
    const std::string* got = FindLabel(labels, k);
    if (got == nullptr || *got != v) return false;
  }
  for (const auto& req : selector.match_expressions) {
    const std::string* got = FindLabel(labels, req.key);
    auto in_values = [&] {
      for (const auto& v : req.values)
        if (got != nullptr && *got == v) return true;
      return false;
    };
    switch (req.op) {
      case LabelSelectorRequirement::Operator::kIn:
        if (got == nullptr || !in_values()) return false;
        break;
      case LabelSelectorRequirement::Operator::kNotIn:
        if (got != nullptr && in_values()) return false;
        break;
      case LabelSelectorRequirement::Operator::kExists:
        if (got == nullptr) return false;
        break;
      case LabelSelectorRequirement::Operator::kDoesNotExist:
        if (got != nullptr) return false;
        break;
    }
  }
  return true;
}

/// `corev1.NodeSelectorRequirement` (node affinity `matchExpressions`).
struct NodeSelectorRequirement {
  enum class Operator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
  std::string key;
  Operator op = Operator::kIn;
  std::vector<std::string> values;
};

/// `corev1.NodeSelectorTerm`: expressions ANDed (`matchFields` is not read, as in Kueue).
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
};

/// Kubernetes node-selector requirement against a node's labels.
inline bool MatchesRequirement(const NodeSelectorRequirement& req, const Labels& labels) {
  const std::string* v = FindLabel(labels, req.key);
  auto in = [&] {
    return v != nullptr && std::find(req.values.begin(), req.values.end(), *v) != req.values.end();
  };
  auto as_int = [](const std::string& text, int64_t* out) {
    if (text.empty()) return false;
    size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
    if (i == text.size()) return false;
    int64_t r = 0;
    for (; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      if (__builtin_mul_overflow(r, 10, &r) || __builtin_add_overflow(r, text[i] - '0', &r)) return false;
    }
    *out = text[0] == '-' ? -r : r;
    return true;
  };
  switch (req.op) {
    case NodeSelectorRequirement::Operator::kIn: return in();
    case NodeSelectorRequirement::Operator::kNotIn: return !in();
    case NodeSelectorRequirement::Operator::kExists: return v != nullptr;
    case NodeSelectorRequirement::Operator::kDoesNotExist: return v == nullptr;
    case NodeSelectorRequirement::Operator::kGt:
    case NodeSelectorRequirement::Operator::kLt: {
      int64_t have = 0, want = 0;
      if (v == nullptr || req.values.size() != 1 || !as_int(*v, &have) || !as_int(req.values[0], &want))
        return false;
      return req.op == NodeSelectorRequirement::Operator::kGt ? have > want : have < want;
    }
  }
  return false;
}

/// Whether `labels` satisfy one of `terms` (required node affinity; an empty list matches, an
/// empty term matches nothing, as in Kubernetes).
inline bool MatchesAnyTerm(const std::vector<NodeSelectorTerm>& terms, const Labels& labels) {
  if (terms.empty()) return true;
  for (const NodeSelectorTerm& term : terms) {
    if (term.match_expressions.empty()) continue;
    bool all = true;
    for (const NodeSelectorRequirement& req : term.match_expressions) all = all && MatchesRequirement(req, labels);
    if (all) return true;
  }
  return false;
}

/// Whether a node's `labels` satisfy a pod's nodeSelector (every pair present) and required node
/// affinity (one term); either may be absent (nullptr).
inline bool NodeAccepts(const Labels& labels, const Labels* node_selector,
                        const std::vector<NodeSelectorTerm>* node_affinity) {
  if (node_selector != nullptr)
    for (const auto& [key, value] : *node_selector) {
      const std::string* have = FindLabel(labels, key);
      if (have == nullptr || *have != value) return false;
    }
  return node_affinity == nullptr || MatchesAnyTerm(*node_affinity, labels);
}

enum class TaintEffect { kNoSchedule, kPreferNoSchedule, kNoExecute };

/// `corev1.Taint` on a ResourceFlavor.
struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
};

/// `corev1.Toleration`. An empty `effect` (nullopt) matches every effect; an empty key with
/// `kExists` tolerates every taint.
struct Toleration {
  enum class Operator { kEqual, kExists };
  std::string key;
  Operator op = Operator::kEqual;
  std::string value;
  std::optional<TaintEffect> effect;
};

/// Kubernetes `Toleration.ToleratesTaint`.
inline bool Tolerates(const Toleration& t, const Taint& taint) {
  if (t.effect.has_value() && *t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.op == Toleration::Operator::kExists) return true;
  return t.value == taint.value;
}

/// The Kubernetes spelling of a taint effect.
inline const char* TaintEffectName(TaintEffect e) {
  switch (e) {
    case TaintEffect::kNoSchedule: return "NoSchedule";
    case TaintEffect::kPreferNoSchedule: return "PreferNoSchedule";
    case TaintEffect::kNoExecute: return "NoExecute";
  }
  return "NoSchedule";
}

}  // namespace qm

#endif  // QM_MODEL_SELECTORS_H_
