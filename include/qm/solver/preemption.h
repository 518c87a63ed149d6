// Classical preemption (docs/semantics.md §5): which admitted workloads to evict so a pending one fits.
//
// The search simulates on the live state and undoes every change before returning. Candidates are
// never collected from the whole cluster: the preemptor's own queue and the queues of its cohort
// tree that borrow on the contested resources are merged lazily from their per-queue orders
// (candidates.h). One search costs
//     O(T + k · (log Q + d·|W| + d·|FRs|))
// for T = queues in the cohort tree (the walk that finds the borrowing ones), k = candidates
// examined, Q = queues contributing candidates, d = tree depth, |W| = FRs the preemptor requests.
#ifndef QM_SOLVER_PREEMPTION_H_
#define QM_SOLVER_PREEMPTION_H_

#include <algorithm>
#include <string>
#include <vector>

#include "boost/container/small_vector.hpp"
#include "fmt/format.h"
#include "qm/solver/anti_thrash.h"
#include "qm/solver/candidates.h"
#include "qm/solver/removed_usage.h"
#include "qm/state/accounting.h"
#include "qm/state/cluster_state.h"

namespace qm {

/// One workload to evict and why.
struct PreemptionTarget {
  WorkloadId workload;
  PreemptionReason reason = PreemptionReason::kInClusterQueue;
};

/// FRs that need preemption, sorted by id.
using FrSet = boost::container::small_vector<FrId, 4>;

/// What a preemption search is asked.
struct PreemptionRequest {
  WorkloadId preemptor;  ///< the pending workload (its priority and timestamps are read)
  ClusterQueueId cq;     ///< the queue it wants to be admitted in
  FrSet frs;             ///< FRs chosen with mode Preempt
  FrUsage usage;         ///< W: the full usage of the assignment
};

/// Kueue's human-readable preemption reason.
inline const char* HumanPreemptionReason(PreemptionReason r) {
  switch (r) {
    case PreemptionReason::kInClusterQueue: return "prioritization in the ClusterQueue";
    case PreemptionReason::kInCohortReclamation: return "reclamation within the cohort";
    case PreemptionReason::kInCohortFairSharing: return "Fair Sharing within the cohort";
    case PreemptionReason::kInCohortReclaimWhileBorrowing:
      return "reclamation within the cohort while borrowing";
  }
  return "";
}

/// "/root/.../cq": the ClusterQueue's path in its cohort tree.
inline std::string QueuePath(const ClusterState& s, ClusterQueueId cq) {
  std::vector<const std::string*> parts;
  for (NodeIndex n = s.cq(cq).node; n != kNoNode; n = s.tree.parent(n)) {
    const auto& node = s.tree.node(n);
    parts.push_back(node.is_cluster_queue ? &s.cqs[node.owner].name : &s.cohorts[node.owner].name);
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    out += '/';
    out += **it;
  }
  return out;
}

/// The message Kueue writes on a preempted workload's Evicted and Preempted conditions.
inline std::string PreemptionMessage(const ClusterState& s, WorkloadId preemptor,
                                     ClusterQueueId preemptor_cq, WorkloadId victim,
                                     PreemptionReason reason) {
  const WorkloadRecord& p = s.wl(preemptor);
  const std::string_view uid = p.uid.view();
  const std::string& job_uid = p.extras ? p.extras->job_uid : EmptyString();
  if (s.config.message_style == MessageStyle::kLegacy) {
    // Flat-cohort Kueue releases named only the preemptor's UID.
    return fmt::format("Preempted to accommodate a workload (UID: {}) due to {}",
                       uid.empty() ? "UNKNOWN" : uid, HumanPreemptionReason(reason));
  }
  const WorkloadRecord& v = s.wl(victim);
  return fmt::format(
      "Preempted to accommodate a workload (UID: {}, JobUID: {}) due to {}; preemptor path: {}; "
      "preemptee path: {}",
      uid.empty() ? "UNKNOWN" : uid, job_uid.empty() ? "UNKNOWN" : job_uid,
      HumanPreemptionReason(reason), preemptor_cq.valid() ? QueuePath(s, preemptor_cq) : "UNKNOWN",
      v.admission ? QueuePath(s, v.admission->cluster_queue) : "UNKNOWN");
}

/// Whether admission `a` uses any FR of `frs` (sorted). Its usage (`AdmissionUsage`) has an entry
/// for every FR its pod sets name, so this asks the names and derives no amount.
inline bool UsesAnyFr(const AdmissionRecord& a, const FrSet& frs) {
  for (const AdmissionRecord::PodSet& ps : a.pod_sets)
    for (const FrId fr : ps.frs)
      if (std::binary_search(frs.begin(), frs.end(), fr)) return true;
  return false;
}

/// Classical preemption search.
class ClassicPreemption {
 public:
  explicit ClassicPreemption(ClusterState& s) : s_(s) {}
  /// The cycle the searches decide for: workloads it admitted are not candidates (§5.5).
  void SetCycle(uint64_t cycle) { cycle_ = cycle; }

  /// Appends to `out` the minimal set of workloads to evict so `req` fits, or nothing when
  /// preemption cannot make room. The state is unchanged on return.
  void Find(const PreemptionRequest& req, std::vector<PreemptionTarget>* out) {
    req_ = &req;
    p_ = &s_.wl(req.preemptor);
    cq_ = &s_.cq(req.cq);
    CollectCohortQueues();
    const bool bwc_forbidden =
        cq_->spec.preemption.borrow_within_cohort.policy == BorrowWithinCohortPolicy::kNever;
    bool under_nominal = true;
    for (FrId fr : req.frs) {
      const FrQuota& q = s_.tree.quota(cq_->node, fr);
      if (!(q.usage < q.nominal)) under_nominal = false;
    }
    const bool any_cohort = AnyCohortCandidate(/*hierarchical_only=*/false);
    bool attempts[2];
    int n_attempts = 0;
    if (!any_cohort || (bwc_forbidden && !under_nominal)) {
      attempts[n_attempts++] = true;
    } else if (bwc_forbidden && !AnyCohortCandidate(/*hierarchical_only=*/true)) {
      attempts[n_attempts++] = false;
      attempts[n_attempts++] = true;
    } else {
      attempts[n_attempts++] = true;
      attempts[n_attempts++] = false;
    }
    for (int i = 0; i < n_attempts; ++i)
      if (Attempt(attempts[i], out)) return;
  }

 private:
  enum class Variant : uint8_t { kWithinCq, kHierarchical, kWithoutBorrowing, kWhileBorrowing };

  struct CohortQueue {
    ClusterQueueId cq;
    NodeIndex lca;
    bool adv;
  };

  bool WithinNominalOnFrs(NodeIndex n) const {
    for (FrId fr : req_->frs)
      if (!s_.tree.WithinNominal(n, fr)) return false;
    return true;
  }

  // docs/semantics.md §5.3: walk from the preemptor's parent to the root, visiting each ancestor's subtree minus the
  // branch already visited; keep the queues (and cohorts) that borrow on the contested FRs.
  void CollectCohortQueues() {
    cohort_queues_.clear();
    const auto& pol = cq_->spec.preemption;
    const NodeIndex self = cq_->node;
    if (s_.tree.parent(self) == kNoNode || pol.reclaim_within_cohort == ReclaimWithinCohortPolicy::kNever)
      return;
    bool adv = true;
    rem_.clear();
    for (const auto& [fr, w] : req_->usage) {
      const FrQuota& q = s_.tree.quota(self, fr);
      if (AddAmount(q.usage, w) > q.nominal) adv = false;
      rem_.push_back(std::max<int64_t>(0, SubAmount(w, std::max<int64_t>(0, SubAmount(q.local_quota, q.usage)))));
    }
    NodeIndex prev = self;
    for (NodeIndex a = s_.tree.parent(self); a != kNoNode; prev = a, a = s_.tree.parent(a)) {
      for (NodeIndex c : s_.tree.node(a).children)
        if (c != prev) VisitSubtree(c, a, adv);
      bool fits = true;
      size_t i = 0;
      for (const auto& [fr, w] : req_->usage) {
        const FrQuota& q = s_.tree.quota(a, fr);
        if (AddAmount(q.usage, rem_[i]) > q.subtree_quota) fits = false;
        rem_[i] = std::max<int64_t>(0, SubAmount(rem_[i], std::max<int64_t>(0, SubAmount(q.local_quota, q.usage))));
        ++i;
      }
      adv = adv || fits;
    }
  }

  void VisitSubtree(NodeIndex n, NodeIndex lca, bool adv) {
    const auto& node = s_.tree.node(n);
    if (WithinNominalOnFrs(n)) return;
    if (node.is_cluster_queue) {
      const ClusterQueueId id(node.owner);
      if (id != req_->cq && s_.cq(id).active) cohort_queues_.push_back({id, lca, adv});
      return;
    }
    for (NodeIndex c : node.children) VisitSubtree(c, lca, adv);
  }

  static bool Allowed(WithinClusterQueuePolicy policy, const WorkloadRecord& p, const WorkloadRecord& c) {
    switch (policy) {
      case WithinClusterQueuePolicy::kNever: return false;
      case WithinClusterQueuePolicy::kLowerPriority: return c.priority < p.priority;
      case WithinClusterQueuePolicy::kLowerOrNewerEqualPriority:
        return c.priority < p.priority || (c.priority == p.priority && p.queue_time < c.queue_time);
    }
    return false;
  }
  static bool Allowed(ReclaimWithinCohortPolicy policy, const WorkloadRecord& p, const WorkloadRecord& c) {
    switch (policy) {
      case ReclaimWithinCohortPolicy::kNever: return false;
      case ReclaimWithinCohortPolicy::kLowerPriority: return c.priority < p.priority;
      case ReclaimWithinCohortPolicy::kAny: return true;
    }
    return false;
  }

  // Whether a candidate holding quota may be considered at all this cycle.
  bool Eligible(WorkloadId id) const {
    const WorkloadRecord& c = s_.wl(id);
    if (c.admission->admitted_cycle != 0 && c.admission->admitted_cycle == cycle_) return false;
    if (!s_.excluded_candidates.empty() && s_.excluded_candidates.contains(id)) return false;
    return UsesAnyFr(*c.admission, req_->frs);
  }

  Variant Classify(const WorkloadRecord& c, bool adv) const {
    if (adv) return Variant::kHierarchical;
    const auto& bwc = cq_->spec.preemption.borrow_within_cohort;
    if (bwc.policy == BorrowWithinCohortPolicy::kNever) return Variant::kWithoutBorrowing;
    if (c.priority >= p_->priority) return Variant::kWithoutBorrowing;
    if (bwc.max_priority_threshold.has_value() && c.priority > *bwc.max_priority_threshold)
      return Variant::kWithoutBorrowing;
    return Variant::kWhileBorrowing;
  }

  static PreemptionReason ReasonOf(Variant v) {
    return v == Variant::kWhileBorrowing ? PreemptionReason::kInCohortReclaimWhileBorrowing
                                         : PreemptionReason::kInCohortReclamation;
  }

  bool AnyCohortCandidate(bool hierarchical_only) {
    const auto policy = cq_->spec.preemption.reclaim_within_cohort;
    for (const CohortQueue& q : cohort_queues_) {
      if (hierarchical_only && !q.adv) continue;
      const ClusterQueueState& cq = s_.cq(q.cq);
      for (const CandidateSet* set : {&cq.evicting, &cq.admitted}) {
        for (const CandidateKey& k : *set) {
          const WorkloadRecord& c = s_.wl(k.id);
          if (policy == ReclaimWithinCohortPolicy::kLowerPriority && set == &cq.admitted &&
              c.priority >= p_->priority)
            break;  // ordered by priority: nothing further qualifies
          if (!Allowed(policy, *p_, c) || !Eligible(k.id)) continue;
          if (set == &cq.admitted && !s_.config.anti_thrash.min_runtime.empty() &&
              ProtectedByMinRuntime(s_, k.id, ReasonOf(Classify(c, q.adv))))
            continue;
          return true;
        }
      }
    }
    return false;
  }

  // docs/semantics.md §5.6: a cohort candidate is skipped once its queue, or a cohort between it and the LCA, no
  // longer borrows on the contested FRs.
  bool StillValid(const CohortQueue& q, Variant v, bool allow_borrowing) const {
    if (allow_borrowing && v == Variant::kWithoutBorrowing) return false;
    const NodeIndex node = s_.cq(q.cq).node;
    if (WithinNominalOnFrs(node)) return false;
    for (NodeIndex a = s_.tree.parent(node); a != kNoNode && a != q.lca; a = s_.tree.parent(a))
      if (WithinNominalOnFrs(a)) return false;
    return true;
  }

  bool FitsNow(bool allow_borrowing) const {
    const NodeIndex self = cq_->node;
    for (const auto& [fr, w] : req_->usage) {
      if (!allow_borrowing && AddAmount(s_.tree.quota(self, fr).usage, w) > s_.tree.quota(self, fr).nominal)
        return false;
      if (w > s_.tree.Available(self, fr)) return false;
    }
    return true;
  }

  // One attempt of docs/semantics.md §5.8. Returns true (and appends the targets) when the preemptor fits.
  bool Attempt(bool allow_borrowing, std::vector<PreemptionTarget>* out) {
    taken_.clear();
    removed_.Clear();
    bool fits = false;
    const auto within = cq_->spec.preemption.within_cluster_queue;
    const auto reclaim = cq_->spec.preemption.reclaim_within_cohort;
    // Phases: evicted hierarchical, evicted cohort, evicted same-queue, then the same three
    // among workloads not being evicted (docs/semantics.md §5.5).
    for (int phase = 0; phase < 6 && !fits; ++phase) {
      const bool evicted = phase < 3;
      const int kind = phase % 3;  // 0 hierarchical, 1 cohort, 2 same queue
      stream_.Clear();
      if (kind == 2) {
        if (within == WithinClusterQueuePolicy::kNever) continue;
        stream_.Add(evicted ? cq_->evicting : cq_->admitted, 0);
      } else {
        for (uint32_t i = 0; i < cohort_queues_.size(); ++i) {
          const CohortQueue& q = cohort_queues_[i];
          if (q.adv != (kind == 0)) continue;
          const ClusterQueueState& cq = s_.cq(q.cq);
          stream_.Add(evicted ? cq.evicting : cq.admitted, i);
        }
      }
      CandidateKey key;
      uint32_t from = 0;
      while (!fits && stream_.Next(&key, &from)) {
        const WorkloadRecord& c = s_.wl(key.id);
        PreemptionReason reason;
        if (kind == 2) {
          if (!Allowed(within, *p_, c)) {
            // Ordered by priority: once a same-priority-or-higher workload is reached, the rest of
            // the (non-evicted) queue cannot qualify either.
            if (!evicted && c.priority > p_->priority) stream_.DropLastQueue();
            else if (!evicted && c.priority == p_->priority &&
                     within == WithinClusterQueuePolicy::kLowerPriority)
              stream_.DropLastQueue();
            continue;
          }
          if (!Eligible(key.id)) continue;
          reason = PreemptionReason::kInClusterQueue;
          if (!evicted && ProtectedByMinRuntime(s_, key.id, reason)) continue;
        } else {
          if (!Allowed(reclaim, *p_, c)) {
            if (!evicted && reclaim == ReclaimWithinCohortPolicy::kLowerPriority) stream_.DropLastQueue();
            continue;
          }
          if (!Eligible(key.id)) continue;
          const CohortQueue& q = cohort_queues_[from];
          const Variant v = Classify(c, q.adv);
          if (!StillValid(q, v, allow_borrowing)) continue;
          reason = ReasonOf(v);
          if (!evicted && ProtectedByMinRuntime(s_, key.id, reason)) continue;
        }
        removed_.Remove(s_, key.id);
        taken_.push_back({key.id, reason});
        fits = FitsNow(allow_borrowing);
      }
    }
    if (!fits) {
      removed_.PutBackAll(s_);
      return false;
    }
    // Fill back (docs/semantics.md §5.8): from the second-to-last target down, give back every one not needed.
    for (int i = static_cast<int>(taken_.size()) - 2; i >= 0; --i) {
      removed_.PutBack(s_, i);
      if (FitsNow(allow_borrowing)) {
        taken_[i] = taken_.back();
        taken_.pop_back();
        removed_.Erase(i);
      } else {
        removed_.TakeAgain(s_, i);
      }
    }
    removed_.PutBackAll(s_);
    out->insert(out->end(), taken_.begin(), taken_.end());
    return true;
  }

  ClusterState& s_;
  const PreemptionRequest* req_ = nullptr;
  const WorkloadRecord* p_ = nullptr;
  const ClusterQueueState* cq_ = nullptr;
  std::vector<CohortQueue> cohort_queues_;
  std::vector<int64_t> rem_;
  std::vector<PreemptionTarget> taken_;
  RemovedUsage removed_;  ///< the targets' usage, entry i for taken_[i]
  CandidateStream stream_;
  uint64_t cycle_ = 0;
};

}  // namespace qm

#endif  // QM_SOLVER_PREEMPTION_H_
