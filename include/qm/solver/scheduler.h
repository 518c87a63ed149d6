// One scheduling cycle (docs/semantics.md §4): take a head from every active ClusterQueue, nominate each
// (flavor assignment + preemption targets), order the entries (classical docs/semantics.md §4.5 or the fair-sharing
// tournament docs/semantics.md §6.4), process them one by one against the live state, then requeue the rest.
//
// No copy of the state is made: admissions are applied to the live quota tree, "over-counting"
// (the usage of a workload waiting for its preemptions, capacity reserved for a blocked head) is
// applied tentatively and undone at the end of the cycle, and every simulation undoes itself.
//
// Cost of one cycle with Q active ClusterQueues (heads H ≤ Q), tree depth d, P pod sets, G groups
// and F flavors per group:
//   heads ........................ O(Q/64 + M + H log n) (n pending per queue; M ≥ H queues marked
//                                  as maybe having a head, ClusterState::head_candidates)
//   nomination ................... O(H · P·G·F·R·d) plus the preemption searches that are needed
//                                  (see preemption.h / fair_sharing.h)
//   ordering ..................... classical O(H log H); fair sharing O(H log H) to group the heads
//                                  by cohort tree, then per tree with H_T heads O(H_T² · d) to pick
//                                  them (a tournament per pick) plus O(V · d·(R+|W|)) for V view
//                                  computations: each head's once, and again only after a pick
//                                  changed the usage of a node on its path (in a flat cohort, only
//                                  its own queue's: usually V = H_T)
//   processing ................... O(H · (|P ∪ T|·|W|·d))
//   requeue ...................... O(H log n), plus O(log C) to park an equivalence class (C classes
//                                  in the queue; the members move as one set with one status stamp,
//                                  qm/queue/class_queue.h), plus the smaller side when it joins a
//                                  class already parked
//   historical share (opt-in) .... O(N·R) for N tree nodes: an evaluation when the instant moved,
//                                  and the commit of the cycle's changes (qm/state/usage_history.h);
//                                  0 when off
// The cost does not depend on how many workloads hold quota.
#ifndef QM_SOLVER_SCHEDULER_H_
#define QM_SOLVER_SCHEDULER_H_

#include <algorithm>
#include <bit>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "qm/model/decisions.h"
#include "qm/queue/pending_queue.h"
#include "qm/solver/anti_thrash.h"
#include "qm/solver/assignment.h"
#include "qm/solver/fair_sharing.h"
#include "qm/solver/flavor_assigner.h"
#include "qm/solver/pods_ready.h"
#include "qm/solver/preemption.h"
#include "qm/solver/removed_usage.h"
#include "qm/state/accounting.h"
#include "qm/state/cluster_state.h"

namespace qm {

/// The preemption oracle of docs/semantics.md §5.10: a full preemption search for one FR.
class SearchOracle final : public PreemptionOracle {
 public:
  SearchOracle(ClusterState& s, Preemptor& p) : s_(s), preemptor_(p) {}
  void Bind(WorkloadId wl, ClusterQueueId cq) {
    wl_ = wl;
    cq_ = cq;
  }
  std::pair<Granular, int> Simulate(FrId fr, int64_t val) override {
    PreemptionRequest req;
    req.preemptor = wl_;
    req.cq = cq_;
    req.frs.push_back(fr);
    req.usage.emplace_back(fr, val);
    targets_.clear();
    preemptor_.Find(req, &targets_);
    const NodeIndex node = s_.cq(cq_).node;
    if (targets_.empty()) return {Granular::kNoCandidates, s_.tree.BorrowingLevel(node, fr, val).level};
    removed_.Clear();
    for (const auto& t : targets_) removed_.Remove(s_, t.workload);
    const int level = s_.tree.BorrowingLevel(node, fr, val).level;
    removed_.PutBackAll(s_);
    for (const auto& t : targets_)
      if (s_.wl(t.workload).admission->cluster_queue == cq_) return {Granular::kPreempt, level};
    return {Granular::kReclaim, level};
  }

 private:
  ClusterState& s_;
  Preemptor& preemptor_;
  WorkloadId wl_;
  ClusterQueueId cq_;
  std::vector<PreemptionTarget> targets_;
  RemovedUsage removed_;  ///< the targets' usage while they are out of the tree
};

class Scheduler {
 public:
  explicit Scheduler(ClusterState& s) : s_(s), preemptor_(s), oracle_(s, preemptor_), assigner_(s, &oracle_) {}

  /// Runs one cycle; the result is valid until the next call.
  const CycleResult& Cycle() {
    ++s_.cycle;
    result_.decisions.clear();
    result_.events.clear();
    result_.admitted = result_.preempted = result_.pending = result_.parked = 0;
    result_.status = absl::OkStatus();
    result_.cycle = s_.cycle;
    preemptor_.SetCycle(s_.cycle);
    s_.EvaluateHistory();  // historical fair share (docs/semantics.md §11.8); a no-op when off
    if (!s_.thrash.timers.empty()) ExpireTimers(s_);
    if (WaitForPodsReadyOn(s_)) ExpirePodsReady(s_, result_.events);  // docs/semantics.md §1.7.2
    CollectHeads();
    for (Entry& e : entries_) Nominate(e);
    victims_.clear();
    victim_set_.clear();
    if (s_.config.fair_sharing.enabled) {
      remaining_.assign(entries_.size(), true);
      GroupByTree();
      for (size_t n = 0; n < entries_.size(); ++n) Process(entries_[NextFair()]);
    } else {
      std::vector<size_t> order(entries_.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ClassicalLess(entries_[a], entries_[b]); });
      for (size_t i : order) Process(entries_[i]);
    }
    if (s_.config.refill.enabled) Refill();
    for (const auto& [cq, usage] : tentative_) RemoveUsage(s_, cq, usage);
    tentative_.clear();
    for (Entry& e : entries_)
      if (!e.admitted) Requeue(e);
    s_.CommitHistory();
    return result_;
  }

  /// The latest cycle's result.
  const CycleResult& result() const { return result_; }
  /// Marks the latest cycle as failed (the engine's self-check found the state inconsistent).
  void FailCycle(absl::Status status) { result_.status = std::move(status); }

  /// What the next cycle's nomination (docs/semantics.md §4.4, §7) computes for `wl` at the head of `cq`: the
  /// flavor assignment (from where the scan stopped, as the cycle would resume it), partial counts
  /// and preemption targets. Leaves no trace: every simulation is undone and nothing is recorded.
  struct Preview {
    AssignmentResult assignment;
    std::vector<int32_t> counts;  ///< partial admission counts (empty = spec counts)
    std::vector<PreemptionTarget> targets;
    /// Set when the cycle would not assign flavors at all (`Refusal`): `assignment` is then only
    /// what the flavor assigner finds, and the next cycle admits nothing for this head.
    std::optional<std::string> refused;
  };
  void PreviewNomination(WorkloadId wl, ClusterQueueId cq, bool record_attempts, Preview* out) {
    *out = Preview();
    // A refused head is still given the flavor assigner's answer (what Kueue's flavorassigner
    // computes, and what the conformance cases check); `refused` says the cycle would not use it.
    if (std::optional<Refusal> refusal = RefuseNomination(wl, cq)) out->refused = std::move(refusal->message);
    const WorkloadRecord& w = s_.wl(wl);
    const ScanProgress* scan =
        w.scan && !ScanOutdated(*w.scan, w, s_.cq(cq), s_.cycle + 1) ? w.scan.get() : nullptr;
    Entry e;
    e.wl = wl;
    e.cq = cq;
    preemptor_.SetCycle(s_.cycle + 1);
    Compute(e, scan, record_attempts);
    out->assignment = std::move(e.assignment);
    out->counts = std::move(e.counts);
    out->targets = std::move(e.targets);
  }

  /// Preemption targets for an explicit request.
  void TargetsForQuery(const PreemptionRequest& req, std::vector<PreemptionTarget>* out) {
    preemptor_.SetCycle(s_.cycle + 1);
    preemptor_.Find(req, out);
  }

 private:
  struct Entry {
    WorkloadId wl;
    ClusterQueueId cq;
    uint32_t rank = 0;  ///< position of the queue in name order (deterministic tie-break)
    bool inadmissible = false;
    RequeueReason requeue = RequeueReason::kGeneric;
    AssignmentResult assignment;
    std::vector<int32_t> counts;  ///< partial admission counts (empty = spec counts)
    std::vector<PreemptionTarget> targets;
    bool deferred_fit = false;
    bool admitted = false;
  };

  // Visits only the queues marked in `head_candidates`, in name order, and unmarks those that have
  // no head: O(Q/64 + marked) instead of O(Q).
  void CollectHeads() {
    entries_.clear();
    std::vector<uint64_t>& marks = s_.head_candidates;
    for (size_t word = 0; word < marks.size(); ++word) {
      for (uint64_t bits = marks[word]; bits != 0; bits &= bits - 1) {
        const uint32_t rank = static_cast<uint32_t>(word * 64 + static_cast<size_t>(std::countr_zero(bits)));
        const ClusterQueueId id = s_.cqs_by_name[rank];
        const ClusterQueueState& cq = s_.cq(id);
        // A sticky preemptor is a head only while it waits in the active queue (PopHead).
        const WorkloadId head = cq.active && !cq.heap.empty() ? PopHead(s_, id) : WorkloadId();
        if (!head.valid()) {
          marks[word] &= ~(uint64_t{1} << (rank % 64));
          continue;
        }
        Entry& e = entries_.emplace_back();
        e.wl = head;
        e.cq = id;
        e.rank = rank;
      }
    }
  }

  PreemptionRequest RequestForEntry(const Entry& e, const AssignmentResult& a) const {
    return RequestFor(e.wl, e.cq, a);
  }

  // docs/semantics.md §4.4: FRs = every chosen (flavor, resource) with mode Preempt; W = the assignment's usage.
  PreemptionRequest RequestFor(WorkloadId wl, ClusterQueueId cq, const AssignmentResult& a) const {
    PreemptionRequest req;
    req.preemptor = wl;
    req.cq = cq;
    req.usage = a.usage;
    for (const PodSetResult& ps : a.pod_sets)
      for (const ChosenFlavor& c : ps.flavors)
        if (c.mode == AssignmentMode::kPreempt) {
          const FrId fr = c.fr;
          auto it = std::lower_bound(req.frs.begin(), req.frs.end(), fr);
          if (it == req.frs.end() || *it != fr) req.frs.insert(it, fr);
        }
    return req;
  }

  // `cycle`: the number of the cycle that would use the progress.
  bool ScanOutdated(const ScanProgress& sp, const WorkloadRecord& w, const ClusterQueueState& cq,
                    uint64_t cycle) const {
    if (s_.config.features.flavor_fungibility_preserve_scan_progress) {
      if (sp.equivalence != EquivalenceKey(s_, w)) return true;
      return sp.cycle + 1 < cycle && cq.generation > sp.generation;
    }
    return cq.generation > sp.generation;
  }

  void SetPending(WorkloadId id, const char* reason, std::string message) {
    WorkloadRecord& w = s_.wl(id);
    w.reason = reason;
    w.message = std::move(message);
  }

  // docs/semantics.md §4.2: why a head is parked before any flavor is tried. The one check both the
  // cycle (`Nominate`) and the queries (`PreviewNomination`) make, so they cannot disagree.
  struct Refusal {
    const char* reason;
    std::string message;
    RequeueReason requeue = RequeueReason::kGeneric;
  };
  std::optional<Refusal> RefuseNomination(WorkloadId wl, ClusterQueueId cq_id) const {
    const WorkloadRecord& w = s_.wl(wl);
    const ClusterQueueState& cq = s_.cq(cq_id);
    if (!cq.active) return Refusal{reason::kSuspended, fmt::format("ClusterQueue {} is inactive", cq.name)};
    const std::string& ns = s_.namespaces_names.Name(w.ns);
    if (!s_.namespaces[w.ns.value].exists)
      return Refusal{reason::kMisconfigured,
                     fmt::format("workload namespace \"{}\" does not exist: namespaces \"{}\" not found", ns, ns)};
    if (!NamespaceMatches(s_, cq, w.ns))
      return Refusal{reason::kMisconfigured, "workload namespace doesn't match ClusterQueue selector",
                     RequeueReason::kNamespaceMismatch};
    return std::nullopt;
  }

  // docs/semantics.md §4.2 + §4.4 + §7.
  void Nominate(Entry& e) {
    if (std::optional<Refusal> refusal = RefuseNomination(e.wl, e.cq)) {
      e.inadmissible = true;
      e.requeue = refusal->requeue;
      SetPending(e.wl, refusal->reason, std::move(refusal->message));
      return;
    }
    WorkloadRecord& w = s_.wl(e.wl);
    const ClusterQueueState& cq = s_.cq(e.cq);
    if (w.scan && ScanOutdated(*w.scan, w, cq, s_.cycle)) w.scan.reset();
    Compute(e, w.scan.get(), /*record_attempts=*/false);
    RecordScan(e);
    HoldBackRequeued(e);
    if (!e.inadmissible && e.assignment.borrow > 0) HoldBackBorrower(e);
    if (!e.inadmissible && !e.targets.empty()) HoldBackPreemptor(e);
  }

  // The anti-thrash preemption back-off (qm/solver/anti_thrash.h): a workload whose earlier
  // preemptions did not get it admitted issues no new ones until its back-off ends. Waiting for
  // victims already being evicted is not a new round.
  void HoldBackPreemptor(Entry& e) {
    const WorkloadRecord& w = s_.wl(e.wl);
    const std::optional<Time> until = PreemptionBackoffUntil(s_, w);
    if (!until) return;
    bool new_victims = false;
    for (const PreemptionTarget& t : e.targets) new_victims = new_victims || !s_.wl(t.workload).admission->evicted;
    if (!new_victims) return;
    e.inadmissible = true;
    e.requeue = RequeueReason::kBackoff;
    e.targets.clear();
    SetPending(e.wl, reason::kWaitingForQuota,
               fmt::format("{}; preemption back-off: {} round(s) of preemptions did not get the workload admitted, "
                           "it may preempt again in {}s",
                           e.assignment.Message([&](uint32_t i) { return s_.shape(w).pod_sets[i].name; }),
                           w.extras->preemptions->rounds_unadmitted, (*until - s_.Now()).us / 1000000));
  }

  // The anti-thrash requeue back-off (qm/solver/anti_thrash.h): a workload preempted recently is
  // not admitted until its back-off ends; a timer flushes it back then.
  void HoldBackRequeued(Entry& e) {
    const WorkloadRecord& w = s_.wl(e.wl);
    const std::optional<Time> until = RequeueBackoffUntil(s_, w);
    if (!until) return;
    e.inadmissible = true;
    e.requeue = RequeueReason::kBackoff;
    e.targets.clear();
    SetPending(e.wl, kBackoffReason,
               fmt::format("requeue back-off: the workload was preempted {} time(s); it may be admitted again in {}s",
                           w.extras->preemptions->preempted, (*until - s_.Now()).us / 1000000));
  }

  // The anti-thrash borrow back-off (qm/solver/anti_thrash.h): a workload reclaimed recently is
  // admitted only within nominal quota until its back-off ends; a timer flushes it back then.
  void HoldBackBorrower(Entry& e) {
    WorkloadRecord& w = s_.wl(e.wl);
    const std::optional<Time> until = BorrowBackoffUntil(s_, w);
    if (!until) return;
    e.inadmissible = true;
    e.requeue = RequeueReason::kBackoff;
    e.targets.clear();
    SetPending(e.wl, kBackoffReason,
               fmt::format("the workload would borrow, and it was preempted {} time(s) by the cohort; borrow "
                           "back-off: it may borrow again in {}s",
                           w.extras->preemptions->cohort_preemptions(), (*until - s_.Now()).us / 1000000));
  }

  // The state-free part of a nomination: assignment, preemption targets, partial admission.
  void Compute(Entry& e, const ScanProgress* scan, bool record_attempts) {
    FlavorAssigner::Options opt;
    opt.scan = scan;
    opt.record_attempts = record_attempts;
    oracle_.Bind(e.wl, e.cq);
    assigner_.Assign(e.wl, e.cq, opt, &e.assignment);
    e.counts.clear();
    e.targets.clear();
    AssignmentMode mode = e.assignment.RepresentativeMode();
    if (mode == AssignmentMode::kPreempt) preemptor_.Find(RequestForEntry(e, e.assignment), &e.targets);
    if (mode != AssignmentMode::kFit && e.targets.empty()) TryPartialAdmission(e, opt);
  }

  // docs/semantics.md §7: the largest counts (≥ minCount) that fit, by binary search on the reduction step.
  void TryPartialAdmission(Entry& e, const FlavorAssigner::Options& base) {
    if (!s_.config.features.partial_admission) return;
    const WorkloadShape& shape = s_.shape(s_.wl(e.wl));
    const auto reducible = [](const PodSetShape& ps) -> int64_t {
      return ps.min_count > 0 && ps.min_count < ps.count ? ps.count - ps.min_count : 0;
    };
    int64_t total = 0;
    for (const PodSetShape& ps : shape.pod_sets) total += reducible(ps);
    if (total == 0) return;  // most heads that do not fit: nothing to search, nothing to allocate
    std::vector<int64_t> delta(shape.pod_sets.size());
    for (size_t i = 0; i < shape.pod_sets.size(); ++i) delta[i] = reducible(shape.pod_sets[i]);
    struct Probe {
      AssignmentResult a;
      std::vector<PreemptionTarget> t;
      std::vector<int32_t> counts;
    };
    std::unique_ptr<Probe> best;
    auto acceptable = [&](int64_t k, Probe* p) {
      p->counts.resize(shape.pod_sets.size());
      for (size_t i = 0; i < shape.pod_sets.size(); ++i)
        p->counts[i] = static_cast<int32_t>(shape.pod_sets[i].count - (delta[i] * k) / total);
      FlavorAssigner::Options opt = base;
      opt.counts = &p->counts;
      assigner_.Assign(e.wl, e.cq, opt, &p->a);
      const AssignmentMode m = p->a.RepresentativeMode();
      p->t.clear();
      if (m == AssignmentMode::kPreempt) preemptor_.Find(RequestForEntry(e, p->a), &p->t);
      return m == AssignmentMode::kFit || (m == AssignmentMode::kPreempt && !p->t.empty());
    };
    // Smallest k in [1, total] that is acceptable, assuming acceptability grows with k.
    int64_t lo = 1, hi = total + 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      auto probe = std::make_unique<Probe>();
      if (acceptable(mid, probe.get())) {
        hi = mid;
        best = std::move(probe);
      } else {
        lo = mid + 1;
      }
    }
    if (!best) return;
    e.assignment = std::move(best->a);
    e.targets = std::move(best->t);
    e.counts = std::move(best->counts);
  }

  void RecordScan(Entry& e) {
    WorkloadRecord& w = s_.wl(e.wl);
    if (!w.scan) w.scan = std::make_unique<ScanProgress>();
    ScanProgress& sp = *w.scan;
    sp.last_tried.assign(e.assignment.pod_sets.size(), {});
    for (size_t i = 0; i < e.assignment.pod_sets.size(); ++i)
      for (const ChosenFlavor& c : e.assignment.pod_sets[i].flavors)
        sp.last_tried[i].emplace_back(c.resource, c.tried_index);
    sp.generation = s_.cq(e.cq).generation;
    sp.cycle = s_.cycle;
    sp.equivalence = EquivalenceKey(s_, w);
  }

  // docs/semantics.md §4.5: lower borrowing level, then higher priority, then earlier queue-order timestamp; then
  // (our tie-break, as Kueue leaves it to chance) the queue's name.
  bool ClassicalLess(const Entry& a, const Entry& b) const {
    const WorkloadRecord& wa = s_.wl(a.wl);
    const WorkloadRecord& wb = s_.wl(b.wl);
    if (s_.config.features.prioritize_preemptor_workloads) {
      const bool pa = s_.cq(a.cq).sticky_preemptor == a.wl, pb = s_.cq(b.cq).sticky_preemptor == b.wl;
      if (pa != pb) return pa;
    }
    if (a.assignment.borrow != b.assignment.borrow) return a.assignment.borrow < b.assignment.borrow;
    if (s_.config.features.priority_sorting_within_cohort && wa.priority != wb.priority)
      return wa.priority > wb.priority;
    if (wa.queue_time != wb.queue_time) return wa.queue_time < wb.queue_time;
    return a.rank < b.rank;
  }

  // ---- Fair-sharing tournament (docs/semantics.md §6.4) -------------------------------------------------------

  struct LevelView {
    Share share;
    bool borrowing = false;  ///< the node below the cohort borrows on an FR the entry requests
  };

  // The entries of each cohort tree, so that picking the next one costs O(H_T), not O(H): trees
  // never change within a cycle. Fills tree_of_ (per entry, its range in by_tree_), by_tree_ (entry
  // indices by tree, ascending within one) and sizes views_ and entry_at_node_.
  void GroupByTree() {
    const size_t n = entries_.size();
    tree_of_.resize(n);
    by_tree_.resize(n);
    for (size_t i = 0; i < n; ++i) by_tree_[i] = static_cast<uint32_t>(i);
    roots_.resize(n);
    entry_node_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      entry_node_[i] = s_.cq(entries_[i].cq).node;
      roots_[i] = s_.tree.Root(entry_node_[i]);
    }
    std::sort(by_tree_.begin(), by_tree_.end(), [&](uint32_t a, uint32_t b) {
      return roots_[a] != roots_[b] ? roots_[a] < roots_[b] : a < b;
    });
    for (size_t lo = 0; lo < n;) {
      size_t hi = lo + 1;
      while (hi < n && roots_[by_tree_[hi]] == roots_[by_tree_[lo]]) ++hi;
      for (size_t k = lo; k < hi; ++k) tree_of_[by_tree_[k]] = {static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)};
      lo = hi;
    }
    if (views_.size() < n) views_.resize(n);
    views_at_.assign(n, kNoViews);
    // NextFair leaves every slot SIZE_MAX again, so it is filled only when the tree grew or shrank
    // (not per cycle: that was a memset of every tree node, every cycle).
    if (entry_at_node_.size() != s_.tree.node_count()) entry_at_node_.assign(s_.tree.node_count(), SIZE_MAX);
    first_remaining_ = 0;
  }

  // Picks the next entry to process under fair sharing; marks it taken.
  size_t NextFair() {
    while (!remaining_[first_remaining_]) ++first_remaining_;  // entries are only ever taken
    const size_t first = first_remaining_;
    if (s_.tree.parent(entry_node_[first]) == kNoNode) {
      remaining_[first] = false;
      return first;
    }
    // Views of every remaining entry of this tree, at each depth of its path. In entry order, so a
    // ClusterQueue's candidate in the tournament is its last remaining entry, as it always was.
    // An entry's view at node n is a function of n's usage alone (n's borrowed amounts; quota,
    // weights and the historical share do not change within a cycle), so its views still hold
    // while no node on its path had its usage changed since they were computed: a pick that admits
    // or reserves in one ClusterQueue recomputes only the entries that share a cohort below the
    // root with it, not the whole tree (in a flat cohort, none).
    const auto [lo, hi] = tree_of_[first];
    for (uint32_t k = lo; k < hi; ++k) {
      const size_t i = by_tree_[k];
      if (!remaining_[i]) continue;
      const NodeIndex node = entry_node_[i];
      entry_at_node_[node] = i;
      if (ViewsHold(i)) continue;
      const Entry& e = entries_[i];
      views_[i].clear();
      AddUsage(s_, e.cq, e.assignment.usage);
      for (NodeIndex n = node; s_.tree.parent(n) != kNoNode; n = s_.tree.parent(n)) {
        LevelView v;
        v.share = NodeShare(s_, n);
        for (const auto& [fr, amount] : e.assignment.usage)
          if (amount > 0 && s_.tree.Borrows(n, fr)) v.borrowing = true;
        views_[i].push_back({n, v});
      }
      RemoveUsage(s_, e.cq, e.assignment.usage);
      views_at_[i] = s_.tree.usage_changes();
    }
    const size_t winner = Tournament(roots_[first]);
    remaining_[winner] = false;
    for (uint32_t k = lo; k < hi; ++k) entry_at_node_[entry_node_[by_tree_[k]]] = SIZE_MAX;
    return winner;
  }

  // Entry `i`'s views were computed, and no node they read changed usage since.
  bool ViewsHold(size_t i) const {
    const uint64_t at = views_at_[i];
    if (at == kNoViews) return false;
    for (const auto& [n, v] : views_[i])
      if (s_.tree.node(n).usage_changed_at > at) return false;
    return true;
  }

  // The view of entry `i` at cohort `c`: that of the child of `c` on the entry's path.
  const LevelView& ViewAt(size_t i, NodeIndex c) const {
    for (const auto& [n, v] : views_[i])
      if (s_.tree.parent(n) == c) return v;
    return views_[i].back().second;
  }

  bool FairLess(size_t a, size_t b, NodeIndex c) const {
    const Entry& ea = entries_[a];
    const Entry& eb = entries_[b];
    if (s_.config.features.prioritize_preemptor_workloads) {
      const bool pa = s_.cq(ea.cq).sticky_preemptor == ea.wl, pb = s_.cq(eb.cq).sticky_preemptor == eb.wl;
      if (pa != pb) return pa;
    }
    const LevelView& va = ViewAt(a, c);
    const LevelView& vb = ViewAt(b, c);
    if (s_.config.features.fair_sharing_prioritize_non_borrowing && va.borrowing != vb.borrowing)
      return !va.borrowing;
    if (auto cmp = CompareShare(va.share, vb.share); cmp != 0) return cmp < 0;
    const WorkloadRecord& wa = s_.wl(ea.wl);
    const WorkloadRecord& wb = s_.wl(eb.wl);
    if (s_.config.features.priority_sorting_within_cohort && wa.priority != wb.priority)
      return wa.priority > wb.priority;
    if (wa.queue_time != wb.queue_time) return wa.queue_time < wb.queue_time;
    return ea.rank < eb.rank;
  }

  // Winner of the subtree rooted at cohort `c`, or SIZE_MAX when it has no remaining entry.
  size_t Tournament(NodeIndex c) {
    size_t best = SIZE_MAX;
    for (NodeIndex child : s_.tree.node(c).children) {
      const auto& node = s_.tree.node(child);
      size_t candidate = SIZE_MAX;
      if (node.is_cluster_queue) {
        candidate = entry_at_node_[child];  // set by NextFair for this tree's remaining entries
      } else {
        candidate = Tournament(child);
      }
      if (candidate == SIZE_MAX) continue;
      if (best == SIZE_MAX || FairLess(candidate, best, c)) best = candidate;
    }
    return best;
  }

  // ---- Processing (docs/semantics.md §4.6) ---------------------------------------------------------------------

  bool Fits(const Entry& e) {
    seen_.clear();
    removed_.Clear();
    auto remove = [&](WorkloadId id) {
      if (seen_.insert(id).second) removed_.Remove(s_, id);
    };
    for (WorkloadId id : victims_) remove(id);
    for (const auto& t : e.targets) remove(t.workload);
    bool fits = true;
    const NodeIndex node = s_.cq(e.cq).node;
    for (const auto& [fr, v] : e.assignment.usage)
      if (v > s_.tree.Available(node, fr)) fits = false;
    removed_.PutBackAll(s_);
    return fits;
  }

  bool Overlaps(const Entry& e) const {
    for (const auto& t : e.targets)
      if (victim_set_.contains(t.workload)) return true;
    return false;
  }

  // docs/semantics.md §4.7: recompute the assignment with the earlier victims gone, pinned to the nominated flavors.
  void RecomputeForOverlap(Entry& e) {
    NominationMap pin(e.assignment.pod_sets.size());
    for (size_t i = 0; i < e.assignment.pod_sets.size(); ++i)
      for (const ChosenFlavor& c : e.assignment.pod_sets[i].flavors) pin[i].emplace_back(c.resource, c.flavor);
    for (WorkloadId id : victims_) {
      SimulateRemoval(s_, id);
      s_.excluded_candidates.insert(id);
    }
    FlavorAssigner::Options opt;
    opt.nomination = &pin;
    if (!e.counts.empty()) opt.counts = &e.counts;
    AssignmentResult fresh;
    oracle_.Bind(e.wl, e.cq);
    assigner_.Assign(e.wl, e.cq, opt, &fresh);
    std::vector<PreemptionTarget> targets;
    const AssignmentMode m = fresh.RepresentativeMode();
    if (m == AssignmentMode::kPreempt) preemptor_.Find(RequestForEntry(e, fresh), &targets);
    for (WorkloadId id : victims_) UndoRemoval(s_, id);
    s_.excluded_candidates.clear();
    if (m == AssignmentMode::kFit) {
      e.deferred_fit = true;
      return;
    }
    e.assignment = std::move(fresh);
    e.targets = std::move(targets);
  }

  void Process(Entry& e) {
    WorkloadRecord& w = s_.wl(e.wl);
    if (e.inadmissible) {
      Pending(e);
      return;
    }
    if (!e.targets.empty() && Overlaps(e) &&
        s_.config.features.recompute_assignment_upon_preemption_targets_overlap) {
      RecomputeForOverlap(e);
      // The recomputed targets may be new victims, which the preemption back-off must see too.
      if (!e.targets.empty()) HoldBackPreemptor(e);
      if (e.inadmissible) {
        Pending(e);
        return;
      }
    }
    const AssignmentMode mode = e.assignment.RepresentativeMode();
    // Formatted only where a status keeps it: an admission writes none, a quiet engine none at all.
    const auto message = [&] {
      return s_.quiet_status ? std::string() : e.assignment.Message([&](uint32_t i) { return s_.shape(w).pod_sets[i].name; });
    };
    if (e.deferred_fit) {
      tentative_.emplace_back(e.cq, e.assignment.usage);
      AddUsage(s_, e.cq, e.assignment.usage);
      e.requeue = RequeueReason::kPendingPreemption;
      w.scan.reset();
      SetPending(e.wl, reason::kWaitingForPreemptedWorkloads,
                 "Workload has overlapping preemption targets with another workload, but will fit after these "
                 "preemptions complete");
      Pending(e);
      return;
    }
    if (mode == AssignmentMode::kNoFit) {
      e.requeue = RequeueReason::kNoFit;
      const char* r = e.assignment.nofit_reason == NoFitReason::kNone ? reason::kPending
                                                                        : NoFitReasonName(e.assignment.nofit_reason);
      SetPending(e.wl, r, message());
      Pending(e);
      return;
    }
    if (mode == AssignmentMode::kPreempt && e.targets.empty()) {
      e.requeue = RequeueReason::kPreemptionNoCandidates;
      SetPending(e.wl, reason::kWaitingForQuota, message());
      if (s_.cq(e.cq).spec.preemption.reclaim_within_cohort != ReclaimWithinCohortPolicy::kAny) ReserveCapacity(e);
      Pending(e);
      return;
    }
    if (Overlaps(e)) {
      e.requeue = RequeueReason::kFailedAfterNomination;
      SkipScan(w);
      SetPending(e.wl, reason::kWaitingForQuota, "Workload has overlapping preemption targets with another workload");
      Pending(e);
      return;
    }
    if (!Fits(e)) {
      e.requeue = RequeueReason::kFailedAfterNomination;
      SkipScan(w);
      SetPending(e.wl, reason::kWaitingForQuota, "Workload no longer fits after processing another workload");
      Pending(e);
      return;
    }
    for (const auto& t : e.targets) {
      if (victim_set_.insert(t.workload).second) victims_.push_back(t.workload);
    }
    if (mode == AssignmentMode::kPreempt) {
      tentative_.emplace_back(e.cq, e.assignment.usage);
      AddUsage(s_, e.cq, e.assignment.usage);
      IssuePreemptions(e);
      e.requeue = RequeueReason::kPendingPreemption;
      w.scan.reset();
      SetPending(e.wl, reason::kWaitingForPreemptedWorkloads,
                 fmt::format("{}. Pending the preemption of {} workload(s)", message(), e.targets.size()));
      Pending(e);
      return;
    }
    Admit(e);
  }

  // Refill mode (docs/semantics.md §11.7, not Kueue): once every head was processed, each ClusterQueue
  // whose head was admitted, in name order, admits its next heads while each fits within the queue's
  // own quota: no preemption, no borrowing, no partial admission, no back-off holding it. Capacity
  // reserved this cycle (a preemptor's, a blocked head's) is still counted, so a refill never takes
  // it. The first head that does not qualify goes back to the queue untouched (no status, no scan
  // progress, no decision): the next cycle nominates it as Kueue would.
  // Cost: O(refilled · nomination) on top of the cycle.
  void Refill() {
    const size_t heads = entries_.size();
    for (size_t i = 0; i < heads; ++i) {
      if (!entries_[i].admitted) continue;
      const ClusterQueueId cq = entries_[i].cq;
      while (RefillOne(cq, entries_[i].rank)) {
      }
    }
  }

  bool RefillOne(ClusterQueueId cq_id, uint32_t rank) {
    ClusterQueueState& cq = s_.cq(cq_id);
    if (!cq.active || cq.heap.empty() || cq.sticky_preemptor.valid()) return false;
    Entry e;
    e.wl = cq.heap.front().id;
    e.cq = cq_id;
    e.rank = rank;
    const WorkloadRecord& w = s_.wl(e.wl);
    if (RefuseNomination(e.wl, cq_id) || RequeueBackoffUntil(s_, w)) return false;
    const ScanProgress* scan = w.scan && !ScanOutdated(*w.scan, w, cq, s_.cycle) ? w.scan.get() : nullptr;
    Compute(e, scan, /*record_attempts=*/false);
    if (e.assignment.RepresentativeMode() != AssignmentMode::kFit || e.assignment.borrow > 0 || !e.targets.empty() ||
        !e.counts.empty())
      return false;
    const NodeIndex node = cq.node;
    for (const auto& [fr, v] : e.assignment.usage)
      if (v > s_.tree.Available(node, fr)) return false;
    PopHead(s_, cq_id);
    Admit(e);
    return true;
  }

  void SkipScan(WorkloadRecord& w) {
    if (!s_.config.features.flavor_fungibility_preserve_scan_progress) w.scan.reset();
  }

  void Pending(const Entry& e) {
    ++result_.pending;
    Emit(Decision::Kind::kPending, e.wl, e.cq);
  }

  void Emit(Decision::Kind kind, WorkloadId wl, ClusterQueueId cq, WorkloadId preemptor = WorkloadId(),
            PreemptionReason reason = PreemptionReason::kInClusterQueue) {
    result_.decisions.push_back(Decision{kind, s_.Handle(wl), cq,
                                         preemptor.valid() ? s_.Handle(preemptor) : WorkloadHandle(), reason});
  }
  // docs/semantics.md §4.8.
  void ReserveCapacity(const Entry& e) {
    const NodeIndex node = s_.cq(e.cq).node;
    FrUsage reserve;
    for (const auto& [fr, usage] : e.assignment.usage) {
      const FrQuota& q = s_.tree.quota(node, fr);
      int64_t amount;
      if (e.assignment.borrow > 0) {
        amount = q.borrowing_limit == kUnlimited
                     ? usage
                     : std::min(usage, SubAmount(AddAmount(q.nominal, q.borrowing_limit), q.usage));
      } else {
        amount = std::min(usage, SubAmount(q.nominal, q.usage));
      }
      if (amount > 0) reserve.emplace_back(fr, amount);
    }
    if (reserve.empty()) return;
    AddUsage(s_, e.cq, reserve);
    tentative_.emplace_back(e.cq, std::move(reserve));
  }

  // docs/semantics.md §5.11: mark the targets evicted (two-phase: they keep their quota until the host confirms).
  void IssuePreemptions(const Entry& e) {
    const Time now = s_.Now();
    const int64_t before = result_.preempted;
    for (const auto& t : e.targets) {
      WorkloadRecord& v = s_.wl(t.workload);
      if (v.admission->evicted) continue;  // already being evicted: counted, no new write
      const ClusterQueueId victim_cq = v.admission->cluster_queue;
      v.message = PreemptionMessage(s_, e.wl, e.cq, t.workload, t.reason);
      if (!v.extras) v.extras = std::make_unique<WorkloadExtras>();  // preemptions are rare
      v.extras->preemption_message = v.message;
      v.reason = reason::kPreempted;
      v.preemption_reason = t.reason;
      v.preempted_by = e.wl;
      MarkEvicted(s_, t.workload, now);
      ++result_.preempted;
      Emit(Decision::Kind::kPreempted, t.workload, victim_cq, e.wl, t.reason);
      Event& ev = s_.NewEvent(result_.events, EventKind::kPreempted, t.workload, victim_cq);
      ev.reason = eviction_reason::kPreempted;
      ev.preemption_reason = t.reason;
      ev.preemptor = s_.Handle(e.wl);
      ev.message = v.message;
      RecordPreemption(s_, t.workload, e.wl, e.cq, t.reason, result_.events);
    }
    if (result_.preempted > before) RecordPreemptionRound(s_, e.wl);
  }

  // docs/semantics.md §4.9.
  void Admit(Entry& e) {
    WorkloadRecord& w = s_.wl(e.wl);
    const WorkloadShape& shape = s_.shape(w);
    auto a = s_.NewAdmission();
    a->cluster_queue = e.cq;
    a->borrow_level = e.assignment.borrow;
    a->reserved_at = s_.Now();
    a->admitted_cycle = s_.cycle;
    a->pod_sets.resize(shape.pod_sets.size());
    // A pod set's usage is what its shape and count give, and is not stored, unless the assignment
    // charged otherwise (a queue covering `pods` charges one per pod whatever the shape requests).
    const auto requested = [](const PodSetResult& ps, ResourceId r) -> const int64_t* {
      for (const auto& [res, v] : ps.requests)
        if (res == r) return &v;
      return nullptr;
    };
    bool derived = true;
    for (const PodSetResult& ps : e.assignment.pod_sets) {
      AdmissionRecord::PodSet& out = a->pod_sets[ps.index];
      out.count = ps.count;
      for (const ChosenFlavor& c : ps.flavors) {
        out.frs.push_back(c.fr);
        const int64_t* v = requested(ps, c.resource);
        derived = derived && v != nullptr &&
                  *v == DerivedPodSetUsage(s_.catalog, shape.pod_sets[ps.index], ps.count, c.resource);
      }
    }
    if (!derived) {
      auto usage = std::make_unique<std::vector<ResourceList>>(shape.pod_sets.size());
      for (const PodSetResult& ps : e.assignment.pod_sets)
        for (const ChosenFlavor& c : ps.flavors)
          if (const int64_t* v = requested(ps, c.resource)) (*usage)[ps.index].emplace_back(c.resource, *v);
      a->explicit_usage = std::move(usage);
    }
    w.place = QueuePlace::kNone;
    w.queued_in = ClusterQueueId();
    w.admission = std::move(a);
    w.scan.reset();
    // The assignment's usage is what the record derives (CheckInvariants holds the tree to it).
    AccountAdmission(s_, e.wl, e.assignment.usage);
    ScheduleProtectionEnds(s_, e.wl);
    ResetPreemptionRounds(w);
    w.reason = reason::kQuotaReserved;
    w.message.clear();  // formatted on demand (AdmittedMessage): admissions allocate no string
    e.admitted = true;
    ++result_.admitted;
    Emit(Decision::Kind::kAdmitted, e.wl, e.cq);
    Event& ev = s_.NewEvent(result_.events, EventKind::kAdmitted, e.wl, e.cq);
    AdmittedPodSets(s_.catalog, *w.admission, &ev.pod_sets);
  }

  // docs/semantics.md §3.6.
  void Requeue(const Entry& e) {
    WorkloadRecord& w = s_.wl(e.wl);
    if (w.place != QueuePlace::kInflight) return;
    ClusterQueueState& cq = s_.cq(e.cq);
    w.place = QueuePlace::kNone;
    const bool strict = cq.spec.queueing_strategy == QueueingStrategy::kStrictFIFO;
    bool to_heap;
    if (strict) {
      to_heap = e.requeue != RequeueReason::kNamespaceMismatch;
    } else if (e.requeue == RequeueReason::kBackoff) {
      to_heap = false;
    } else {
      to_heap = e.requeue == RequeueReason::kFailedAfterNomination ||
                e.requeue == RequeueReason::kPendingPreemption ||
                (w.scan && w.scan->has_pending_flavors());
    }
    w.queued_in = e.cq;
    w.place = QueuePlace::kQueued;
    if (to_heap) {
      InsertPending(s_, cq.heap, e.wl);
      s_.MayHaveHead(e.cq);
    } else {
      // Its equivalents first: the head then joins their parked class by one insert, instead of
      // making a class of its own that the equivalents' set is merged with.
      if (!strict && s_.config.features.scheduling_equivalence_hashing &&
          (e.requeue == RequeueReason::kNoFit || e.requeue == RequeueReason::kPreemptionNoCandidates))
        ParkEquivalent(cq, e.wl);
      InsertPending(s_, cq.inadmissible, e.wl);
      ++result_.parked;
    }
    if (e.requeue == RequeueReason::kPendingPreemption && !strict) cq.sticky_preemptor = e.wl;
  }

  // docs/semantics.md §3.7: park every queued workload equivalent to `wl` and remember the class.
  // The class's members leave the active queue as one set (qm/queue/class_queue.h): their place
  // follows the set, and their status (the failed head's reason, "Bypassed ...") is one stamp on
  // it. No member's record is written: O(log C), not O(members).
  void ParkEquivalent(ClusterQueueState& cq, WorkloadId wl) {
    const WorkloadRecord& w = s_.wl(wl);
    cq.blocked.insert(EquivalenceKey(s_, w));
    if (!cq.heap.empty() && s_.status_epoch == UINT32_MAX) RestartStatusEpochs(s_);
    PendingClass same = cq.heap.TakeClass(PendingClassOf(w));
    if (same.members.empty()) return;
    same.stamp = StatusStamp{++s_.status_epoch, w.reason};
    result_.parked += static_cast<int64_t>(same.members.size());
    cq.inadmissible.InsertSet(PendingClassOf(w), std::move(same), AdoptStamp(s_));
  }

  ClusterState& s_;
  Preemptor preemptor_;
  SearchOracle oracle_;
  FlavorAssigner assigner_;
  CycleResult result_;
  std::vector<Entry> entries_;
  std::vector<bool> remaining_;
  // Fair sharing's per-cycle grouping (GroupByTree): reused across cycles, so no allocation once warm.
  std::vector<std::pair<uint32_t, uint32_t>> tree_of_;  // per entry: its tree's range in by_tree_
  std::vector<uint32_t> by_tree_;
  std::vector<NodeIndex> roots_;
  std::vector<NodeIndex> entry_node_;  // per entry: its ClusterQueue's tree node (read on every pick)
  std::vector<size_t> entry_at_node_;  // per tree node: the remaining entry of that ClusterQueue, or SIZE_MAX
  size_t first_remaining_ = 0;
  std::vector<std::vector<std::pair<NodeIndex, LevelView>>> views_;
  // Per entry: the usage count its views were computed at (kNoViews: not yet this cycle).
  static constexpr uint64_t kNoViews = UINT64_MAX;
  std::vector<uint64_t> views_at_;
  std::vector<WorkloadId> victims_;
  absl::flat_hash_set<WorkloadId> victim_set_;  // lookup only
  absl::flat_hash_set<WorkloadId> seen_;        // lookup only
  RemovedUsage removed_;  ///< Fits(): the victims' and targets' usage while out of the tree
  std::vector<std::pair<ClusterQueueId, FrUsage>> tentative_;
};

}  // namespace qm

#endif  // QM_SOLVER_SCHEDULER_H_
