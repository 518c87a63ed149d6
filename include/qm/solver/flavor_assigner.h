// Flavor assignment (docs/semantics.md §4.3): for each pod set and resource group, the flavor to use and
// whether it fits now, needs preemption, or cannot fit, with Kueue's messages.
//
// Cost for one workload: O(P · G · F · (R_g · d + oracle)) for P pod sets, G resource groups, F
// flavors per group, R_g resources per group and tree depth d; the preemption oracle runs only for
// FRs that do not fit now and may be reclaimed or preempted.
#ifndef QM_SOLVER_FLAVOR_ASSIGNER_H_
#define QM_SOLVER_FLAVOR_ASSIGNER_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fmt/format.h"
#include "qm/core/quantity_text.h"
#include "qm/solver/assignment.h"
#include "qm/state/cluster_state.h"

namespace qm {

/// What the assigner asks preemption (docs/semantics.md §5.10): can `val` of `fr` be made room for in the
/// workload's queue, and at which borrowing level would it then sit?
class PreemptionOracle {
 public:
  virtual ~PreemptionOracle() = default;
  virtual std::pair<Granular, int> Simulate(FrId fr, int64_t val) = 0;
};

/// Flavors pinned by a nomination (docs/semantics.md §4.7): pod set index → resource → flavor.
using NominationMap = std::vector<boost::container::small_vector<std::pair<ResourceId, FlavorId>, 4>>;

/// Go's `%v` of a corev1.Taint: `{key value NoSchedule <nil>}`.
inline std::string TaintText(const Taint& t) {
  return fmt::format("{{{} {} {} <nil>}}", t.key, t.value, TaintEffectName(t.effect));
}

/// Why flavor `f` cannot host pod set `ps` (taints, node selector / affinity), or "" when it can.
inline std::string FlavorIneligibility(const ClusterState& s, FlavorId f, const PodSetShape& ps) {
  const std::string& name = s.FlavorName(f);
  if (!f.valid() || f.value >= s.flavors.size() || !s.flavors[f.value].exists)
    return fmt::format("flavor {} not found", name);
  const ResourceFlavorSpec& flavor = s.flavors[f.value].spec;
  for (const Taint& taint : flavor.node_taints) {
    if (taint.effect == TaintEffect::kPreferNoSchedule) continue;
    bool tolerated = false;
    for (const Toleration& t : ps.tolerations) tolerated = tolerated || Tolerates(t, taint);
    for (const Toleration& t : flavor.tolerations) tolerated = tolerated || Tolerates(t, taint);
    if (!tolerated) return fmt::format("untolerated taint {} in flavor {}", TaintText(taint), name);
  }
  // Only the flavor's own label keys are considered (a flavor without labels matches any pod).
  auto own_key = [&](const std::string& key) { return FindLabel(flavor.node_labels, key) != nullptr; };
  bool match = true;
  for (const auto& [k, v] : ps.node_selector) {
    if (!own_key(k)) continue;
    const std::string* have = FindLabel(flavor.node_labels, k);
    if (*have != v) match = false;
  }
  if (match && ps.required_node_affinity.has_value()) {
    bool ignore = false;
    bool any_term = false;
    for (const NodeSelectorTerm& term : *ps.required_node_affinity) {
      bool has_own = false, term_ok = true;
      for (const NodeSelectorRequirement& req : term.match_expressions) {
        if (!own_key(req.key)) continue;
        has_own = true;
        if (!MatchesRequirement(req, flavor.node_labels)) term_ok = false;
      }
      if (!has_own) {  // a term that loses every expression makes the whole affinity irrelevant
        ignore = true;
        break;
      }
      any_term = any_term || term_ok;
    }
    if (!ignore && !ps.required_node_affinity->empty() && !any_term) match = false;
  }
  if (!match) return fmt::format("flavor {} doesn't match node affinity", name);
  return std::string();
}

/// Computes flavor assignments.
class FlavorAssigner {
 public:
  struct Options {
    /// Counts per pod set (partial admission); empty = the spec counts less the reclaimable pods.
    const std::vector<int32_t>* counts = nullptr;
    /// Where the last scan stopped; null = start every search at the first flavor.
    const ScanProgress* scan = nullptr;
    /// Restrict each pod set / resource to the nominated flavor (docs/semantics.md §4.7 recompute).
    const NominationMap* nomination = nullptr;
    /// Fill `AssignmentResult::attempts` with every flavor examined and its numbers.
    bool record_attempts = false;
  };

  FlavorAssigner(ClusterState& s, PreemptionOracle* oracle) : s_(s), oracle_(oracle) {}

  void Assign(WorkloadId wl, ClusterQueueId cq_id, const Options& opt, AssignmentResult* out) {
    *out = AssignmentResult();
    w_ = &s_.wl(wl);
    cq_ = &s_.cq(cq_id);
    opt_ = &opt;
    out_ = out;
    const WorkloadShape& shape = s_.shapes[w_->shape];
    for (uint32_t i = 0; i < shape.pod_sets.size(); ++i) {
      const PodSetShape& ps = shape.pod_sets[i];
      PodSetResult& r = out->pod_sets.emplace_back();
      r.index = i;
      // Without explicit counts, the spec counts less the reclaimable pods (a pending workload's
      // request, docs/semantics.md §1.7.1); partial admission passes its own counts.
      r.count = opt.counts ? (*opt.counts)[i] : CountAfterReclaim(*w_, ps);
      for (const auto& [res, per_pod] : ps.per_pod) r.requests.emplace_back(res, MulAmount(per_pod, r.count));
      if (cq_->covers_pods) SetAmount(&r.requests, s_.catalog.PodsResource(), r.count);
      const bool failed = AssignPodSet(ps, &r);
      for (const ChosenFlavor& c : r.flavors) {
        out->borrow = std::max(out->borrow, c.borrow);
        const FrId fr = c.fr;
        AddTo(&out->usage, fr, AmountOf(r.requests, c.resource));
      }
      if (failed) break;
    }
    if (out->RepresentativeMode() == AssignmentMode::kNoFit) ResolveNoFitReason();
  }

 private:
  // The reason a quota check gives when nobody reads it (ClusterState::quiet_status): short enough
  // to live inside the string, so a quiet failure allocates nothing for its text.
  static constexpr const char* kQuietReason = "no quota";

  struct Mode {
    Granular g = Granular::kFit;
    int level = 0;
  };

  static int64_t AmountOf(const ResourceList& list, ResourceId r) {
    for (const auto& [res, v] : list)
      if (res == r) return v;
    return 0;
  }
  static void SetAmount(ResourceList* list, ResourceId r, int64_t v) {
    for (auto& [res, old] : *list)
      if (res == r) {
        old = v;
        return;
      }
    list->insert(std::lower_bound(list->begin(), list->end(), std::make_pair(r, int64_t{0}),
                                  [](const auto& a, const auto& b) { return a.first < b.first; }),
                 std::make_pair(r, v));
  }
  static int64_t UsageOf(const FrUsage& u, FrId fr) {
    for (const auto& [f, v] : u)
      if (f == fr) return v;
    return 0;
  }
  static void AddTo(FrUsage* u, FrId fr, int64_t v) {
    for (auto& [f, old] : *u)
      if (f == fr) {
        old = AddAmount(old, v);
        return;
      }
    u->insert(std::lower_bound(u->begin(), u->end(), std::make_pair(fr, int64_t{0}),
                               [](const auto& a, const auto& b) { return a.first < b.first; }),
              std::make_pair(fr, v));
  }

  // docs/semantics.md §4.3.6: is `a` better than `b` under the queue's fungibility preference?
  bool IsPreferred(const Mode& a, const Mode& b) const {
    if (a.g == Granular::kNoFit) return false;
    if (b.g == Granular::kNoFit) return true;
    const bool a_nc = a.g == Granular::kNoCandidates, b_nc = b.g == Granular::kNoCandidates;
    if (a_nc != b_nc) return !a_nc;
    const auto& pref = cq_->spec.flavor_fungibility.preference;
    if (pref.has_value() && *pref == FungibilityPreference::kPreemptionOverBorrowing) {
      if (a.level != b.level) return a.level < b.level;
      return a.g > b.g;
    }
    if (a.g != b.g) return a.g > b.g;
    return a.level < b.level;
  }

  bool ShouldTryNext(const Mode& m) const {
    if (m.g == Granular::kNoFit || m.g == Granular::kNoCandidates) return true;
    const auto& f = cq_->spec.flavor_fungibility;
    if ((m.g == Granular::kPreempt || m.g == Granular::kReclaim) &&
        f.when_can_preempt == FungibilityPolicy::kTryNextFlavor)
      return true;
    if (m.level > 0 && f.when_can_borrow == FungibilityPolicy::kTryNextFlavor) return true;
    return false;
  }

  bool CanPreemptWhileBorrowing() const {
    const auto& p = cq_->spec.preemption;
    return p.borrow_within_cohort.policy != BorrowWithinCohortPolicy::kNever ||
           (s_.config.fair_sharing.enabled && p.reclaim_within_cohort != ReclaimWithinCohortPolicy::kNever);
  }

  // docs/semantics.md §4.3.5 for one FR.
  Mode FitsResourceQuota(FrId fr, int64_t assumed, int64_t request, std::string* msg, NoFitReason* nofit,
                         FlavorAttempt::ResourceCheck* check) {
    const ResourceId r = s_.catalog.FrResource(fr);
    const std::string& rname = s_.ResourceName(r);
    const FlavorId f = s_.catalog.FrFlavor(fr);
    const int64_t available = s_.tree.Available(cq_->node, fr);
    const int64_t max_capacity = s_.tree.PotentialAvailable(cq_->node, fr);
    const int64_t val = AddAmount(assumed, request);
    const int64_t nominal = s_.tree.quota(cq_->node, fr).nominal;
    if (check) {
      check->resource = rname;
      check->requested = val;
      check->available = available;
      check->nominal = nominal;
      check->potential = max_capacity;
    }
    if (val > max_capacity) {
      if (s_.quiet_status) {
        *msg = kQuietReason;
      } else if (s_.config.message_style == MessageStyle::kLegacy) {
        *msg = LegacyQuotaMessage(fr, val, available, /*never_fits=*/true);
      } else {
        *msg = fmt::format(
            "insufficient quota for {} in flavor {}, previously considered podsets requests ({}) + "
            "current podset request ({}) > maximum capacity ({})",
            rname, s_.FlavorName(f), FormatLimit(rname, assumed), FormatAmount(rname, request),
            FormatLimit(rname, max_capacity));
      }
      *nofit = NoFitReason::kExceedsMaxQuota;
      return {Granular::kNoFit, 0};
    }
    const BorrowLevel bl = s_.tree.BorrowingLevel(cq_->node, fr, val);
    if (check) check->borrow_level = bl.level;
    if (val <= available) return {Granular::kFit, bl.level};
    if (s_.quiet_status) {
      *msg = kQuietReason;
    } else if (s_.config.message_style == MessageStyle::kLegacy) {
      *msg = LegacyQuotaMessage(fr, val, available, /*never_fits=*/false);
    } else {
      // Every head that waits for quota writes this: one concatenation, no format parsing.
      *msg = absl::StrCat("insufficient unused quota for ", rname, " in flavor ", s_.FlavorName(f), ", ",
                          FormatLimit(rname, SubAmount(val, available)), " more needed");
    }
    if (nominal >= val || bl.may_reclaim || CanPreemptWhileBorrowing()) {
      auto [g, level] = oracle_->Simulate(fr, val);
      *nofit = g == Granular::kNoFit ? NoFitReason::kWaitingForQuota : NoFitReason::kNone;
      return {g, level};
    }
    *nofit = NoFitReason::kWaitingForQuota;
    return {Granular::kNoFit, bl.level};
  }

  // The same finding in the words of flat-cohort Kueue releases (MessageStyle::kLegacy). Those
  // checked the queue's own borrowing limit against its current usage first, then the cohort, so
  // the first sentence that applies wins; `val` includes the earlier pod sets of the workload.
  std::string LegacyQuotaMessage(FrId fr, int64_t val, int64_t available, bool never_fits) const {
    const std::string& rname = s_.ResourceName(s_.catalog.FrResource(fr));
    const std::string& fname = s_.FlavorName(s_.catalog.FrFlavor(fr));
    const FrQuota& q = s_.tree.quota(cq_->node, fr);
    const bool in_cohort = s_.tree.parent(cq_->node) != kNoNode;
    if (in_cohort && q.borrowing_limit != kUnlimited &&
        AddAmount(q.usage, val) > AddAmount(q.nominal, q.borrowing_limit)) {
      return fmt::format("borrowing limit for {} in flavor {} exceeded", rname, fname);
    }
    if (!in_cohort && never_fits) {
      return fmt::format("insufficient quota for {} in flavor {} in ClusterQueue", rname, fname);
    }
    return fmt::format("insufficient unused quota {}for {} in flavor {}, {} more needed",
                       in_cohort ? "in cohort " : "", rname, fname,
                       FormatLimit(rname, SubAmount(val, available)));
  }

  // Resources of the pod set in Kueue's iteration order (FNV-1a hash of the name, then name).
  void OrderedResources(const ResourceList& requests, ResourceList* out) const {
    out->assign(requests.begin(), requests.end());
    std::sort(out->begin(), out->end(), [&](const auto& a, const auto& b) {
      const uint64_t ha = s_.catalog.ResourceHash(a.first), hb = s_.catalog.ResourceHash(b.first);
      if (ha != hb) return ha < hb;
      return s_.catalog.ResourceNameLess(a.first, b.first);
    });
  }

  // docs/semantics.md §4.3.2 for one pod set. Returns true when the pod set failed (no later pod set is evaluated).
  bool AssignPodSet(const PodSetShape& ps, PodSetResult* r) {
    ResourceList ordered;
    OrderedResources(r->requests, &ordered);
    for (const auto& [res, qty] : ordered) {
      const int g = cq_->FindGroup(res);
      if (g < 0) {
        if (qty == 0) continue;
        r->flavors.clear();
        r->reasons.assign(1, fmt::format("resource {} unavailable in ClusterQueue", s_.ResourceName(res)));
        r->status_nofit = NoFitReason::kNoMatchingFlavor;
        return true;
      }
      if (r->Find(res) != nullptr) continue;
      ReasonList reasons;
      const size_t before = r->flavors.size();
      FindFlavorForGroup(ps, r, res, g, &reasons);
      if (r->flavors.size() == before) {
        r->flavors.clear();
        r->reasons = std::move(reasons);
        return true;
      }
      for (auto& m : reasons) r->reasons.push_back(std::move(m));
    }
    return false;
  }

  // docs/semantics.md §4.3.3–4.3.6: chooses one flavor of group `g` for every requested resource of the group.
  void FindFlavorForGroup(const PodSetShape& ps, PodSetResult* r, ResourceId res, int g,
                          ReasonList* reasons) {
    const CqResourceGroup& group = cq_->groups[g];
    // The pod set's requests that this group covers, in covered order, with their FR index.
    boost::container::small_vector<std::pair<size_t, int64_t>, 4> reqs;
    for (size_t k = 0; k < group.covered.size(); ++k)
      for (const auto& [rr, q] : r->requests)
        if (rr == group.covered[k]) reqs.emplace_back(k, q);

    boost::container::small_vector<ChosenFlavor, 4> best, current;
    Mode best_mode{Granular::kNoFit, std::numeric_limits<int>::max()};
    bool have_best = false;
    int attempted = -1;
    const int n = static_cast<int>(group.flavors.size());
    int start = opt_->scan ? opt_->scan->NextFlavor(r->index, res) : 0;
    const bool fungibility = s_.config.features.flavor_fungibility;
    for (int idx = start; idx < n; ++idx) {
      attempted = idx;
      const CqFlavor& f = group.flavors[idx];
      if (opt_->nomination != nullptr && !Nominated(r->index, res, f.flavor)) {
        reasons->push_back(fmt::format("skipping flavor {} as it is not found in the nomination mapping for resource {}",
                                       s_.FlavorName(f.flavor), s_.ResourceName(res)));
        continue;
      }
      r->any_attempt = true;
      FlavorAttempt* attempt = nullptr;
      if (opt_->record_attempts) {
        attempt = &out_->attempts.emplace_back();
        attempt->pod_set = ps.name;
        attempt->flavor = s_.FlavorName(f.flavor);
      }
      if (std::string why = FlavorIneligibility(s_, f.flavor, ps); !why.empty()) {
        if (attempt) {
          attempt->verdict = "NoFit";
          attempt->reasons.push_back(why);
        }
        reasons->push_back(std::move(why));
        r->nofit_attempts.emplace_back(g, NoFitReason::kNoMatchingFlavor);
        continue;
      }
      Mode rep{Granular::kFit, 0};
      NoFitReason flavor_nofit = NoFitReason::kNone;
      current.clear();
      for (const auto& [k, qty] : reqs) {
        const FrId fr = f.frs[k];
        std::string msg;
        NoFitReason nofit = NoFitReason::kNone;
        FlavorAttempt::ResourceCheck* check = attempt ? &attempt->checks.emplace_back() : nullptr;
        const Mode m = FitsResourceQuota(fr, UsageOf(out_->usage, fr), qty, &msg, &nofit, check);
        if (!msg.empty()) {
          if (attempt) attempt->reasons.push_back(msg);
          reasons->push_back(std::move(msg));
          flavor_nofit = std::max(flavor_nofit, nofit);
        }
        if (IsPreferred(rep, m)) rep = m;
        if (rep.g == Granular::kNoFit) continue;
        current.push_back(ChosenFlavor{group.covered[k], f.flavor, ApiMode(m.g), m.level, -1, fr});
      }
      if (attempt) attempt->verdict = GranularName(rep.g);
      if (rep.g == Granular::kNoFit) r->nofit_attempts.emplace_back(g, flavor_nofit);
      if (fungibility) {
        if (!ShouldTryNext(rep)) {
          best = current;
          best_mode = rep;
          have_best = true;
          break;
        }
        if (IsPreferred(rep, best_mode)) {
          best = current;
          best_mode = rep;
          have_best = true;
        }
      } else if (rep.g > best_mode.g) {
        best = current;
        best_mode = rep;
        have_best = true;
        if (rep.g == Granular::kFit) break;
      }
    }
    if (!have_best) return;
    const int tried = fungibility ? (attempted == n - 1 ? -1 : attempted) : 0;
    for (ChosenFlavor& c : best) {
      c.tried_index = tried;
      r->flavors.insert(std::lower_bound(r->flavors.begin(), r->flavors.end(), c,
                                         [](const ChosenFlavor& a, const ChosenFlavor& b) { return a.resource < b.resource; }),
                        c);
    }
    if (opt_->record_attempts) {
      for (auto it = out_->attempts.rbegin(); it != out_->attempts.rend(); ++it)
        if (it->pod_set == ps.name && !best.empty() && it->flavor == s_.FlavorName(best.front().flavor)) {
          it->chosen = true;
          break;
        }
    }
    if (best_mode.g == Granular::kFit) reasons->clear();
  }

  bool Nominated(uint32_t ps, ResourceId res, FlavorId f) const {
    const auto& m = *opt_->nomination;
    if (ps >= m.size()) return false;
    for (const auto& [r, fl] : m[ps])
      if (r == res) return fl == f;
    return false;
  }

  // docs/semantics.md §4.3.9.
  void ResolveNoFitReason() {
    NoFitReason overall = NoFitReason::kNone;
    for (const PodSetResult& ps : out_->pod_sets) {
      if (ps.Mode() != AssignmentMode::kNoFit) continue;
      if (!ps.any_attempt) {
        overall = std::max(overall, NoFitReason::kNoMatchingFlavor);
        continue;
      }
      NoFitReason ps_reason = ps.status_nofit;
      // Least severe per group, then most severe across groups.
      boost::container::small_vector<std::pair<int, NoFitReason>, 4> group_min;
      for (const auto& [g, reason] : ps.nofit_attempts) {
        // A copy of the binding: clang 14 (the fuzz build) cannot capture structured bindings.
        const int group = g;
        auto it = std::find_if(group_min.begin(), group_min.end(), [&](const auto& e) { return e.first == group; });
        if (it == group_min.end()) group_min.emplace_back(g, reason);
        else it->second = std::min(it->second, reason);
      }
      for (const auto& [g, reason] : group_min) ps_reason = std::max(ps_reason, reason);
      overall = std::max(overall, ps_reason);
    }
    out_->nofit_reason = overall;
  }

  ClusterState& s_;
  PreemptionOracle* oracle_;
  const WorkloadRecord* w_ = nullptr;
  const ClusterQueueState* cq_ = nullptr;
  const Options* opt_ = nullptr;
  AssignmentResult* out_ = nullptr;
};

}  // namespace qm

#endif  // QM_SOLVER_FLAVOR_ASSIGNER_H_
