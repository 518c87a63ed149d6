// Fair sharing (docs/semantics.md §6): dominant resource shares, and fair-sharing preemption (§6.5).
//
// Shares are read from the quota tree, which keeps every node's borrowed amount per resource up to
// date as usage changes, so one share costs O(R) for R resources — nothing is recomputed from
// scratch. A fair preemption search costs O(T + k · (d·R + d·|W|)) for T queues in the cohort tree
// and k candidates examined.
#ifndef QM_SOLVER_FAIR_SHARING_H_
#define QM_SOLVER_FAIR_SHARING_H_

#include <algorithm>
#include <vector>

#include "qm/solver/preemption.h"
#include "qm/solver/removed_usage.h"
#include "qm/state/accounting.h"
#include "qm/state/cluster_state.h"
#include "qm/state/share.h"

namespace qm {

/// The dominant resource share of a tree node, ties between resources broken by name; the
/// historical share (docs/semantics.md §11.8) when that mode is on.
inline Share NodeShare(const ClusterState& s, NodeIndex n) {
  const auto names_less = [&](ResourceId a, ResourceId b) { return s.catalog.ResourceNameLess(a, b); };
  if (s.config.fair_sharing.historical.enabled) return HistoricalShare(s.tree, s.history, n, names_less);
  return s.tree.DominantShare(n, names_less);
}

/// Fair-sharing preemption search (docs/semantics.md §6.5).
class FairPreemption {
 public:
  explicit FairPreemption(ClusterState& s) : s_(s) {}
  /// The cycle the searches decide for: workloads it admitted are not candidates (§5.5).
  void SetCycle(uint64_t cycle) { cycle_ = cycle; }

  void Find(const PreemptionRequest& req, std::vector<PreemptionTarget>* out) {
    req_ = &req;
    p_ = &s_.wl(req.preemptor);
    cq_ = &s_.cq(req.cq);
    self_ = cq_->node;
    queues_.clear();
    targets_.clear();
    removed_.Clear();
    retry_.clear();
    within_nominal_ = WithinNominalWithPreemptor();
    Collect();
    if (queues_.empty()) return;
    IndexQueues();
    AddUsage(s_, req.cq, req.usage);  // every share below includes the incoming workload
    bool fits = RunFirstStrategy();
    if (!fits && s_.config.features.fair_sharing_reevaluate_preemption_candidates && TookFromOwnQueue()) {
      // FairSharingReevaluatePreemptionCandidates: the preemptor's own workloads taken above lowered
      // its share, so the candidates the first strategy rejected get a second pass of it, with a
      // fresh ordering (docs/semantics.md §6.5). All of the preemptor's own candidates were taken
      // already, so a third pass could not change anything.
      QueuesFromRetry();
      fits = RunFirstStrategy();
    }
    if (!fits && s_.config.fair_sharing.preemption_strategies.size() > 1) fits = RunSecondStrategy();
    if (fits) {
      // Fill back (docs/semantics.md §5.8, borrowing allowed); FitsNow() takes W out itself, so W stays added here.
      for (int i = static_cast<int>(targets_.size()) - 2; i >= 0; --i) {
        removed_.PutBack(s_, i);
        if (FitsNow()) {
          targets_[i] = targets_.back();
          targets_.pop_back();
          removed_.Erase(i);
        } else {
          removed_.TakeAgain(s_, i);
        }
      }
      if (s_.config.anti_thrash.loop_free_fair_sharing && !FairAfterFillBack()) fits = false;
    }
    RemoveUsage(s_, req.cq, req.usage);
    removed_.PutBackAll(s_);
    if (fits) out->insert(out->end(), targets_.begin(), targets_.end());
  }

 private:
  // Which workloads of a queue may be preempted, given the preemptor's policy.
  enum class Allow : uint8_t { kAll, kLowerPriority, kLowerOrNewerEqualPriority };

  // The remaining candidates of one ClusterQueue, in docs/semantics.md §5.5 order. A queue is read lazily from its
  // ordered candidate sets (evicting, then admitted), so a search touches only the candidates it
  // examines; the second strategy's queues are explicit lists.
  struct Queue {
    ClusterQueueId cq;
    NodeIndex node = kNoNode;
    Allow allow = Allow::kAll;
    bool lazy = true;
    bool pruned = false;
    // Lazy source.
    const CandidateSet* sets[2] = {nullptr, nullptr};
    int set = 0;
    CandidateSet::const_iterator it;
    bool peeked = false;
    WorkloadId head;
    // Explicit list.
    std::vector<WorkloadId> list;
    size_t next = 0;
  };

  bool Eligible(const Queue& q, WorkloadId id, bool* stop) const {
    const WorkloadRecord& c = s_.wl(id);
    // Candidates come lowest priority first: once one is too important, so are the rest of its set.
    switch (q.allow) {
      case Allow::kAll: break;
      case Allow::kLowerPriority:
        if (c.priority >= p_->priority) return *stop = true, false;
        break;
      case Allow::kLowerOrNewerEqualPriority:
        if (c.priority > p_->priority) return *stop = true, false;
        if (c.priority == p_->priority && !(p_->queue_time < c.queue_time)) return false;
        break;
    }
    if (c.admission->admitted_cycle != 0 && c.admission->admitted_cycle == cycle_) return false;
    if (s_.excluded_candidates.contains(id)) return false;
    if (!UsesAnyFr(*c.admission, req_->frs)) return false;
    // Anti-thrash minimum runtime: the reason this search would give the candidate.
    return !ProtectedByMinRuntime(s_, id,
                                  IsOwn(q.cq) ? PreemptionReason::kInClusterQueue
                                  : within_nominal_ ? PreemptionReason::kInCohortReclamation
                                                    : PreemptionReason::kInCohortFairSharing);
  }

  // Whether the preemptor, with W added, borrows on no contested FR (docs/semantics.md §6.5,
  // FairSharingPreemptWithinNominal): then it reclaims without the share test. For the minimum
  // runtime only (the reason a cohort candidate would get); RunFirstStrategy decides on its own.
  bool WithinNominalWithPreemptor() {
    if (s_.config.anti_thrash.min_runtime.empty()) return false;
    if (!s_.config.features.fair_sharing_preempt_within_nominal) return false;
    AddUsage(s_, req_->cq, req_->usage);
    bool within = true;
    for (FrId fr : req_->frs)
      if (s_.tree.Borrows(self_, fr)) within = false;
    RemoveUsage(s_, req_->cq, req_->usage);
    return within;
  }

  // Anti-thrash loop-free fair sharing (qm/model/anti_thrash.h): in the state after fill-back (W
  // added, the final targets removed), every InCohortFairSharing target must still pass one of the
  // configured strategies. Fill-back gives back targets of the preemptor's own queue, which raises
  // its share above what the strategy was checked against (kubernetes-sigs/kueue#14543).
  bool FairAfterFillBack() {
    for (size_t k = 0; k < targets_.size(); ++k) {
      const PreemptionTarget& t = targets_[k];
      if (t.reason != PreemptionReason::kInCohortFairSharing) continue;
      const NodeIndex t_node = s_.cq(s_.wl(t.workload).admission->cluster_queue).node;
      const Share p_final = NodeShare(s_, AlmostLca(self_, t_node));
      const NodeIndex t_top = AlmostLca(t_node, self_);
      const Share t_final = NodeShare(s_, t_top);
      removed_.PutBack(s_, k);
      const Share t_before = NodeShare(s_, t_top);
      removed_.TakeAgain(s_, k);
      bool passes = false;
      for (size_t i = 0; i < s_.config.fair_sharing.preemption_strategies.size() && !passes; ++i)
        passes = Strategy(i, p_final, t_before, t_final);
      if (!passes) return false;
    }
    return true;
  }

  // Positions the queue on its next eligible candidate; false when it has none left.
  bool HasNext(Queue& q) const {
    if (!q.lazy) return q.next < q.list.size();
    if (q.peeked) return true;
    while (q.set < 2) {
      if (q.sets[q.set] == nullptr || q.it == q.sets[q.set]->end()) {
        if (++q.set < 2 && q.sets[q.set] != nullptr) q.it = q.sets[q.set]->begin();
        continue;
      }
      const WorkloadId id = q.it->id;
      ++q.it;
      bool stop = false;
      if (Eligible(q, id, &stop)) {
        q.head = id;
        q.peeked = true;
        return true;
      }
      if (stop) q.it = q.sets[q.set]->end();
    }
    return false;
  }
  WorkloadId Peek(Queue& q) const { return q.lazy ? q.head : q.list[q.next]; }  // after HasNext
  WorkloadId Pop(Queue& q) const {
    if (!q.lazy) return q.list[q.next++];
    q.peeked = false;
    return q.head;
  }

  bool IsOwn(ClusterQueueId cq) const { return cq == req_->cq; }

  void Collect() {
    const auto& pol = cq_->spec.preemption;
    auto add_queue = [&](ClusterQueueId id, Allow allow) {
      const ClusterQueueState& q = s_.cq(id);
      Queue entry;
      entry.cq = id;
      entry.node = q.node;
      entry.allow = allow;
      entry.sets[0] = &q.evicting;
      entry.sets[1] = &q.admitted;
      entry.it = q.evicting.begin();
      if (HasNext(entry)) queues_.push_back(std::move(entry));
    };
    switch (pol.within_cluster_queue) {
      case WithinClusterQueuePolicy::kLowerPriority: add_queue(req_->cq, Allow::kLowerPriority); break;
      case WithinClusterQueuePolicy::kLowerOrNewerEqualPriority:
        add_queue(req_->cq, Allow::kLowerOrNewerEqualPriority);
        break;
      default: break;
    }
    if (s_.tree.parent(self_) == kNoNode || pol.reclaim_within_cohort == ReclaimWithinCohortPolicy::kNever) return;
    const Allow reclaim =
        pol.reclaim_within_cohort == ReclaimWithinCohortPolicy::kAny ? Allow::kAll : Allow::kLowerPriority;
    // Every other queue of the root tree that borrows on a contested FR.
    std::vector<NodeIndex> stack{s_.tree.Root(self_)};
    while (!stack.empty()) {
      const NodeIndex n = stack.back();
      stack.pop_back();
      const auto& node = s_.tree.node(n);
      if (!node.is_cluster_queue) {
        for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) stack.push_back(*it);
        continue;
      }
      const ClusterQueueId id(node.owner);
      if (id == req_->cq || !s_.cq(id).active) continue;
      bool borrows = false;
      for (FrId fr : req_->frs) borrows = borrows || s_.tree.Borrows(n, fr);
      if (borrows) add_queue(id, reclaim);
    }
  }

  // docs/semantics.md §5.5 candidateLess between the first remaining candidates of two queues.
  bool CandidateLess(WorkloadId a, WorkloadId b) const {
    const WorkloadRecord& wa = s_.wl(a);
    const WorkloadRecord& wb = s_.wl(b);
    const bool ea = wa.admission->evicted, eb = wb.admission->evicted;
    if (ea != eb) return ea;
    const bool oa = !IsOwn(wa.admission->cluster_queue), ob = !IsOwn(wb.admission->cluster_queue);
    if (oa != ob) return oa;
    return CandidateOrder()(CandidateKeyOf(s_, a), CandidateKeyOf(s_, b));
  }

  bool FitsNow() {
    RemoveUsage(s_, req_->cq, req_->usage);
    bool fits = true;
    for (const auto& [fr, w] : req_->usage)
      if (w > s_.tree.Available(self_, fr)) fits = false;
    AddUsage(s_, req_->cq, req_->usage);
    return fits;
  }

  // The child of the lowest common ancestor of the preemptor's and `t`'s queues on the way to `x`.
  NodeIndex AlmostLca(NodeIndex x, NodeIndex other) const {
    NodeIndex xs[QuotaTree::kMaxDepth], os[QuotaTree::kMaxDepth];
    int nx = 0, no = 0;
    for (NodeIndex i = x; i != kNoNode; i = s_.tree.parent(i)) xs[nx++] = i;
    for (NodeIndex i = other; i != kNoNode; i = s_.tree.parent(i)) os[no++] = i;
    // Walk down from the root while the paths agree.
    int i = nx - 1, j = no - 1;
    while (i > 0 && j > 0 && xs[i - 1] == os[j - 1]) {
      --i;
      --j;
    }
    return xs[i - 1 >= 0 ? i - 1 : 0];
  }

  bool IsAncestorOfSelf(NodeIndex n) const {
    for (NodeIndex i = s_.tree.parent(self_); i != kNoNode; i = s_.tree.parent(i))
      if (i == n) return true;
    return false;
  }

  Queue* FindQueue(NodeIndex n) {
    auto it = queue_of_node_.find(n);
    return it == queue_of_node_.end() ? nullptr : &queues_[it->second];
  }

  void IndexQueues() {
    queue_of_node_.clear();
    for (size_t i = 0; i < queues_.size(); ++i) queue_of_node_[queues_[i].node] = i;
  }

  // docs/semantics.md §6.5 target ordering: the next queue to take a victim from, or nullptr when exhausted.
  Queue* NextTarget() {
    if (s_.tree.parent(self_) == kNoNode) {
      Queue* own = FindQueue(self_);
      return own != nullptr && !own->pruned && HasNext(*own) ? own : nullptr;
    }
    const NodeIndex root = s_.tree.Root(self_);
    for (;;) {
      if (pruned_cohorts_.contains(root)) return nullptr;
      NodeIndex c = root;
      for (;;) {
        Queue* best_q = nullptr;
        Share best_q_share;
        NodeIndex best_cohort = kNoNode;
        Share best_cohort_share;
        for (NodeIndex child : s_.tree.node(c).children) {
          const auto& node = s_.tree.node(child);
          if (node.is_cluster_queue) {
            Queue* q = FindQueue(child);
            if (q == nullptr || q->pruned) continue;
            if (!HasNext(*q) || (!s_.tree.BorrowsAny(child) && child != self_)) {
              q->pruned = true;
              continue;
            }
            const Share sh = NodeShare(s_, child);
            if (best_q == nullptr) {
              best_q = q;
              best_q_share = sh;
              continue;
            }
            const auto cmp = CompareShare(sh, best_q_share);
            if (cmp > 0 || (cmp == 0 && CandidateLess(Peek(*q), Peek(*best_q)))) {
              best_q = q;
              best_q_share = sh;
            }
          } else {
            if (pruned_cohorts_.contains(child)) continue;
            if (!s_.tree.BorrowsAny(child) && !IsAncestorOfSelf(child)) {
              pruned_cohorts_.insert(child);
              continue;
            }
            const Share sh = NodeShare(s_, child);
            // Ties: the later-visited cohort wins (children are visited in a fixed order).
            if (best_cohort == kNoNode || CompareShare(sh, best_cohort_share) >= 0) {
              best_cohort = child;
              best_cohort_share = sh;
            }
          }
        }
        if (best_q == nullptr && best_cohort == kNoNode) {
          pruned_cohorts_.insert(c);
          break;  // restart from the root
        }
        if (best_cohort != kNoNode && (best_q == nullptr || CompareShare(best_cohort_share, best_q_share) >= 0)) {
          c = best_cohort;
          continue;
        }
        return best_q;
      }
    }
  }

  void Take(WorkloadId id, PreemptionReason reason) {
    removed_.Remove(s_, id);
    targets_.push_back({id, reason});
  }
  void Take(WorkloadId id, PreemptionReason reason, const FrUsage& usage) {
    removed_.Remove(s_, id, usage);
    targets_.push_back({id, reason});
  }

  bool Strategy(size_t index, const Share& p_new, const Share& t_old, const Share& t_new) const {
    switch (s_.config.fair_sharing.preemption_strategies[index]) {
      case FairSharingStrategy::kLessThanOrEqualToFinalShare: return CompareShare(p_new, t_new) <= 0;
      case FairSharingStrategy::kLessThanInitialShare: return CompareShare(p_new, t_old) < 0;
    }
    return false;
  }

  bool RunFirstStrategy() {
    pruned_cohorts_.clear();
    bool within_nominal = false;
    if (s_.config.features.fair_sharing_preempt_within_nominal) {
      within_nominal = true;
      for (FrId fr : req_->frs)
        if (s_.tree.Borrows(self_, fr)) within_nominal = false;
    }
    while (Queue* t = NextTarget()) {
      if (t->cq == req_->cq) {
        Take(Pop(*t), PreemptionReason::kInClusterQueue);
        if (FitsNow()) return true;
        continue;
      }
      if (within_nominal) {
        Take(Pop(*t), PreemptionReason::kInCohortReclamation);
        if (FitsNow()) return true;
        continue;
      }
      const Share p_new = NodeShare(s_, AlmostLca(self_, t->node));
      const NodeIndex t_top = AlmostLca(t->node, self_);
      const Share t_old = NodeShare(s_, t_top);
      if (p_new.is_infinite() && !t_old.is_infinite()) {
        while (HasNext(*t)) retry_.push_back(Pop(*t));
        continue;
      }
      while (HasNext(*t)) {
        const WorkloadId c = Pop(*t);
        const WorkloadRecord& cw = s_.wl(c);
        const FrUsage usage = AdmissionUsage(s_, cw);  // once for the trial and the take
        RemoveUsage(s_, cw.admission->cluster_queue, usage);
        const Share t_new = NodeShare(s_, t_top);
        AddUsage(s_, cw.admission->cluster_queue, usage);
        if (Strategy(0, p_new, t_old, t_new)) {
          Take(c, PreemptionReason::kInCohortFairSharing, usage);
          if (FitsNow()) return true;
          break;  // shares moved: choose the target again from the root
        }
        retry_.push_back(c);
      }
    }
    return false;
  }

  bool TookFromOwnQueue() const {
    for (const PreemptionTarget& t : targets_)
      if (IsOwn(s_.wl(t.workload).admission->cluster_queue)) return true;
    return false;
  }

  // Replaces the queues with a fresh ordering over the retry list (which is emptied), on top of
  // the removals so far.
  void QueuesFromRetry() {
    std::vector<Queue> retry_queues;
    for (WorkloadId id : retry_) {
      const ClusterQueueId cq = s_.wl(id).admission->cluster_queue;
      auto it = std::find_if(retry_queues.begin(), retry_queues.end(), [&](const Queue& q) { return q.cq == cq; });
      if (it == retry_queues.end()) {
        Queue q;
        q.cq = cq;
        q.node = s_.cq(cq).node;
        q.lazy = false;
        retry_queues.push_back(std::move(q));
        it = retry_queues.end() - 1;
      }
      it->list.push_back(id);
    }
    for (auto& q : retry_queues)
      std::stable_sort(q.list.begin(), q.list.end(),
                       [&](WorkloadId a, WorkloadId b) { return CandidateLess(a, b); });
    queues_ = std::move(retry_queues);
    IndexQueues();
    retry_.clear();
  }

  bool RunSecondStrategy() {
    QueuesFromRetry();
    pruned_cohorts_.clear();
    while (Queue* t = NextTarget()) {
      const Share p_new = NodeShare(s_, AlmostLca(self_, t->node));
      const Share t_old = NodeShare(s_, AlmostLca(t->node, self_));
      const WorkloadId c = Peek(*t);
      t->pruned = true;
      if (Strategy(1, p_new, t_old, t_old)) {
        Take(c, PreemptionReason::kInCohortFairSharing);
        if (FitsNow()) return true;
      }
    }
    return false;
  }

  ClusterState& s_;
  const PreemptionRequest* req_ = nullptr;
  const WorkloadRecord* p_ = nullptr;
  const ClusterQueueState* cq_ = nullptr;
  NodeIndex self_ = kNoNode;
  std::vector<Queue> queues_;
  absl::flat_hash_map<NodeIndex, size_t> queue_of_node_;  // lookup only
  absl::flat_hash_set<NodeIndex> pruned_cohorts_;          // lookup only
  std::vector<PreemptionTarget> targets_;
  RemovedUsage removed_;  ///< the targets' usage, entry i for targets_[i]
  std::vector<WorkloadId> retry_;
  bool within_nominal_ = false;  // WithinNominalWithPreemptor(), for the minimum runtime
  uint64_t cycle_ = 0;
};

/// Runs classical or fair-sharing preemption, as the configuration says.
class Preemptor {
 public:
  explicit Preemptor(ClusterState& s) : s_(s), classic_(s), fair_(s) {}
  /// The cycle the searches decide for: the running cycle, or the next one for a query.
  void SetCycle(uint64_t cycle) {
    classic_.SetCycle(cycle);
    fair_.SetCycle(cycle);
  }
  void Find(const PreemptionRequest& req, std::vector<PreemptionTarget>* out) {
    if (s_.config.fair_sharing.enabled) fair_.Find(req, out);
    else classic_.Find(req, out);
  }

 private:
  ClusterState& s_;
  ClassicPreemption classic_;
  FairPreemption fair_;
};

}  // namespace qm

#endif  // QM_SOLVER_FAIR_SHARING_H_
