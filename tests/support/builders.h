// Fluent builders for test fixtures: specs read like the YAML they stand for.
#ifndef QM_TESTS_SUPPORT_BUILDERS_H_
#define QM_TESTS_SUPPORT_BUILDERS_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qm/adapter/engine.h"

namespace qm::test {

/// One resource's quota in a flavor: `Q("cpu", 10'000)`, `Q("cpu", 10'000).Borrow(2'000)`.
struct Q {
  std::string resource;
  int64_t nominal;
  std::optional<int64_t> borrowing_limit;
  std::optional<int64_t> lending_limit;
  Q(std::string r, int64_t n) : resource(std::move(r)), nominal(n) {}
  Q& Borrow(int64_t v) {
    borrowing_limit = v;
    return *this;
  }
  Q& Lend(int64_t v) {
    lending_limit = v;
    return *this;
  }
};

/// `ClusterQueue("a").Cohort("c").Flavor("default", {Q("cpu", 4000)})`.
class ClusterQueue {
 public:
  explicit ClusterQueue(std::string name) {
    spec_.name = std::move(name);
    spec_.namespace_selector = LabelSelector{};
  }
  ClusterQueue& Cohort(std::string c) {
    spec_.cohort = std::move(c);
    return *this;
  }
  /// Adds a flavor; its resources form (or join) the group covering exactly those resources.
  ClusterQueue& Flavor(std::string flavor, std::vector<Q> quotas) {
    std::vector<std::string> covered;
    for (const Q& q : quotas) covered.push_back(q.resource);
    ResourceGroupSpec* group = nullptr;
    for (auto& g : spec_.resource_groups)
      if (g.covered_resources == covered) group = &g;
    if (group == nullptr) {
      spec_.resource_groups.push_back(ResourceGroupSpec{covered, {}});
      group = &spec_.resource_groups.back();
    }
    FlavorQuotasSpec f{std::move(flavor), {}};
    for (const Q& q : quotas) f.resources.push_back(ResourceQuotaSpec{q.resource, q.nominal, q.borrowing_limit, q.lending_limit});
    group->flavors.push_back(std::move(f));
    return *this;
  }
  ClusterQueue& Strict() {
    spec_.queueing_strategy = QueueingStrategy::kStrictFIFO;
    return *this;
  }
  ClusterQueue& WithinClusterQueue(WithinClusterQueuePolicy p) {
    spec_.preemption.within_cluster_queue = p;
    return *this;
  }
  ClusterQueue& ReclaimWithinCohort(ReclaimWithinCohortPolicy p) {
    spec_.preemption.reclaim_within_cohort = p;
    return *this;
  }
  ClusterQueue& BorrowWithinCohort(BorrowWithinCohortPolicy p, std::optional<int32_t> threshold = {}) {
    spec_.preemption.borrow_within_cohort = {p, threshold};
    return *this;
  }
  ClusterQueue& Fungibility(FungibilityPolicy borrow, FungibilityPolicy preempt) {
    spec_.flavor_fungibility.when_can_borrow = borrow;
    spec_.flavor_fungibility.when_can_preempt = preempt;
    return *this;
  }
  ClusterQueue& Weight(int64_t milli) {
    spec_.fair_sharing_weight_milli = milli;
    return *this;
  }
  ClusterQueue& Stop(StopPolicy p) {
    spec_.stop_policy = p;
    return *this;
  }
  ClusterQueue& NoNamespaceSelector() {
    spec_.namespace_selector.reset();
    return *this;
  }
  const ClusterQueueSpec& spec() const { return spec_; }
  operator ObjectSpec() const { return spec_; }  // NOLINT: builders convert implicitly

 private:
  ClusterQueueSpec spec_;
};

/// `Workload("ns", "name").Queue("lq").Request("cpu", 1000).Count(3).Priority(5)`.
class Workload {
 public:
  Workload(std::string ns, std::string name) {
    spec_.namespace_ = std::move(ns);
    spec_.name = std::move(name);
    spec_.pod_sets.push_back(PodSetSpec{});
  }
  Workload& Queue(std::string q) {
    spec_.queue_name = std::move(q);
    return *this;
  }
  Workload& Request(std::string r, int64_t v) {
    auto& req = spec_.pod_sets.back().requests;
    req.emplace_back(std::move(r), v);
    std::sort(req.begin(), req.end());
    return *this;
  }
  Workload& Count(int32_t c) {
    spec_.pod_sets.back().count = c;
    return *this;
  }
  Workload& MinCount(int32_t c) {
    spec_.pod_sets.back().min_count = c;
    return *this;
  }
  Workload& PodSet(std::string name, int32_t count) {
    if (spec_.pod_sets.size() == 1 && spec_.pod_sets[0].requests.empty() && spec_.pod_sets[0].name == "main")
      spec_.pod_sets.clear();
    PodSetSpec ps;
    ps.name = std::move(name);
    ps.count = count;
    spec_.pod_sets.push_back(std::move(ps));
    return *this;
  }
  Workload& Priority(int32_t p) {
    spec_.priority = p;
    return *this;
  }
  Workload& Created(Time t) {
    spec_.creation_time = t;
    return *this;
  }
  Workload& Uid(std::string u) {
    spec_.uid = std::move(u);
    return *this;
  }
  /// Loads the workload as already holding quota: pod set `main` on `flavor` for every request.
  Workload& AdmittedIn(std::string cq, std::string flavor, Time reserved = Time{}) {
    AdmissionSpec a;
    a.cluster_queue = std::move(cq);
    for (const PodSetSpec& ps : spec_.pod_sets) {
      PodSetAssignmentSpec psa;
      psa.name = ps.name;
      for (const auto& [r, v] : ps.requests) psa.flavors.emplace_back(r, flavor);
      a.pod_set_assignments.push_back(std::move(psa));
    }
    spec_.admission = std::move(a);
    spec_.conditions.push_back(ConditionSpec{"QuotaReserved", true, "QuotaReserved", "", reserved});
    return *this;
  }
  const WorkloadSpec& spec() const { return spec_; }
  operator ObjectSpec() const { return spec_; }  // NOLINT
  operator const WorkloadSpec&() const { return spec_; }  // NOLINT

 private:
  WorkloadSpec spec_;
};

inline ObjectSpec Flavor(std::string name) { return ResourceFlavorSpec{std::move(name), {}, {}, {}}; }
inline ObjectSpec Namespace(std::string name, Labels labels = {}) { return NamespaceSpec{std::move(name), std::move(labels)}; }
inline ObjectSpec LocalQueue(std::string ns, std::string name, std::string cq) {
  LocalQueueSpec lq;
  lq.namespace_ = std::move(ns);
  lq.name = std::move(name);
  lq.cluster_queue = std::move(cq);
  return lq;
}
inline ObjectSpec Cohort(std::string name, std::string parent = {}) {
  CohortSpec c;
  c.name = std::move(name);
  c.parent = std::move(parent);
  return c;
}

/// An engine with one ClusterQueue (`cq`'s name and policies, `cpu_milli` of cpu in flavor
/// `default`), namespace `a` and its LocalQueue `q` pointing at the queue. Throws (which fails the
/// test) if the objects are refused.
inline Engine OneQueueEngine(int64_t cpu_milli, ClusterQueue cq = ClusterQueue("eng")) {
  Engine e;
  const std::string name = cq.spec().name;
  std::vector<ObjectSpec> objects = {Namespace("a"), Flavor("default"), cq.Flavor("default", {Q("cpu", cpu_milli)}),
                                     LocalQueue("a", "q", name)};
  if (absl::Status st = e.Apply(objects); !st.ok()) throw std::runtime_error(std::string(st.message()));
  return e;
}

/// Names of the workloads a cycle decided, by kind: "ns/name" (preempted ones with "<-preemptor").
struct CycleLog {
  std::vector<std::string> admitted, preempted, pending;
};
inline CycleLog Log(const Engine& e, const CycleResult& r) {
  CycleLog log;
  for (const Decision& d : r.decisions) {
    switch (d.kind) {
      case Decision::Kind::kAdmitted: log.admitted.push_back(e.WorkloadName(d.workload)); break;
      case Decision::Kind::kPreempted:
        log.preempted.push_back(e.WorkloadName(d.workload) + "<-" + e.WorkloadName(d.preemptor));
        break;
      case Decision::Kind::kPending: log.pending.push_back(e.WorkloadName(d.workload)); break;
    }
  }
  return log;
}

}  // namespace qm::test

#endif  // QM_TESTS_SUPPORT_BUILDERS_H_
