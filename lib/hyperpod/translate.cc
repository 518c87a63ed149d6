// Policies → Kueue objects (docs/hyperpod.md §2–§6) and the §7 warnings. All derivations are
// exact rational arithmetic on the declared decimals; rounding happens once, at the end, by the
// units rule (docs/hyperpod.md §4.2 rule 6).
#include "qm/hyperpod/translate.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "fmt/format.h"
#include "qm/hyperpod/instance_catalog.h"

namespace qm::hyperpod {
namespace {

__extension__ typedef __int128 i128;
constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

/// A non-negative rational num/den, den > 0.
struct Rational {
  i128 num = 0;
  i128 den = 1;
};

Rational Mul(Rational a, Rational b) { return {a.num * b.num, a.den * b.den}; }
Rational Div(Rational a, i128 d) { return {a.num, a.den * d}; }
bool Less(Rational a, Rational b) { return a.num * b.den < b.num * a.den; }
i128 Floor(Rational a) { return a.num / a.den; }
i128 Ceil(Rational a) { return (a.num + a.den - 1) / a.den; }
Rational Int(i128 v) { return {v, 1}; }

Rational FromDecimal(const Decimal& d) {
  i128 den = 1;
  for (int32_t i = 0; i < d.scale; ++i) den *= 10;
  return {d.unscaled, den};
}

int64_t Clamp(i128 v) {
  constexpr i128 kMax = INT64_MAX / 2;  // far above any quota; keeps later sums safe
  return static_cast<int64_t>(v > kMax ? kMax : v);
}

// `a + b` for clamped amounts, clamped again: sums over many teams at the largest allowed quota
// (10,000,000 × 2 TiB of memory each) would otherwise overflow int64.
int64_t ClampedSum(int64_t a, int64_t b) { return Clamp(i128{a} + b); }

// Memory in bytes by the units rule: whole GiB when integral, else rounded down to MiB.
int64_t RoundMemory(Rational bytes) {
  if (bytes.num % (bytes.den * kGiB) == 0) return Clamp(bytes.num / bytes.den);
  return Clamp(Floor(Div(bytes, kMiB)) * kMiB);
}

int64_t RoundMemoryBytes(i128 bytes) { return RoundMemory(Int(bytes)); }

std::string MigResource(std::string_view profile) { return fmt::format("nvidia.com/{}", profile); }

// "mig-3g.40gb" → 3.
int64_t MigSlices(std::string_view profile) {
  int64_t g = 0;
  for (size_t i = 4; i < profile.size() && profile[i] >= '0' && profile[i] <= '9'; ++i) {
    g = g * 10 + (profile[i] - '0');
  }
  return g;
}

Labels SortedLabels(Labels labels) {
  std::sort(labels.begin(), labels.end());
  return labels;
}

std::string QuotaLabel(const ComputeQuotaPolicy& q) {
  return q.source.empty() ? fmt::format("ComputeQuota/{}", q.name)
                          : fmt::format("{}: ComputeQuota/{}", q.source, q.name);
}

std::string FormatCount(std::string_view resource, int64_t v) {
  if (resource == "cpu") {
    return v % 1000 == 0 ? std::to_string(v / 1000) : fmt::format("{}m", v);
  }
  if (resource == "memory") {
    if (v % kGiB == 0) return fmt::format("{}Gi", v / kGiB);
    if (v % kMiB == 0) return fmt::format("{}Mi", v / kMiB);
  }
  return std::to_string(v);
}

// Whether `d × per_unit` is a whole number (VCpu in millicores: 1000; MemoryInGiB in MiB: 1024).
bool DividesUnit(const Decimal& d, int64_t per_unit) {
  i128 den = 1;
  for (int32_t i = 0; i < d.scale; ++i) den *= 10;
  return (i128{d.unscaled} * per_unit) % den == 0;
}

// The decimal as written, without trailing zeros ("0.0001", "48").
std::string DecimalText(const Decimal& d) {
  std::string digits = std::to_string(d.unscaled);
  if (d.scale == 0) return digits;
  if (static_cast<int32_t>(digits.size()) <= d.scale) {
    digits.insert(0, static_cast<size_t>(d.scale) + 1 - digits.size(), '0');
  }
  std::string out = digits.substr(0, digits.size() - static_cast<size_t>(d.scale)) + "." +
                    digits.substr(digits.size() - static_cast<size_t>(d.scale));
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out;
}

}  // namespace

std::string TeamNamespace(std::string_view team) { return fmt::format("hyperpod-ns-{}", team); }
std::string TeamClusterQueue(std::string_view team) {
  return fmt::format("hyperpod-ns-{}-clusterqueue", team);
}
std::string TeamLocalQueue(std::string_view team) {
  return fmt::format("hyperpod-ns-{}-localqueue", team);
}
std::string PriorityClassName(std::string_view priority_class) {
  return fmt::format("{}-priority", priority_class);
}
std::string IdleClusterQueue(int n) { return fmt::format("hyperpod-ns-idle-resource-sharing-cq-{}", n); }

std::vector<std::pair<std::string, int64_t>> FlavorAmounts::Resources() const {
  std::vector<std::pair<std::string, int64_t>> out = {
      {std::string(kGpuResource), gpu},   {std::string(kNeuronResource), neuron},
      {"cpu", cpu_milli},                 {"memory", memory_bytes},
      {std::string(kEfaResource), efa}};
  for (const auto& m : mig) out.push_back(m);
  return out;
}

FlavorAmounts EffectiveAmounts(const QuotaResource& entry, const TranslateOptions& options) {
  FlavorAmounts out;
  out.instance_type = entry.instance_type;
  const InstanceType* t = FindInstanceType(entry.instance_type);
  if (t == nullptr) return out;
  const i128 A = t->accelerators;
  const i128 V = t->vcpu;
  const Rational M = {t->memory_mib, 1024};  // GiB
  const i128 E = t->efa;
  auto put_accelerators = [&](i128 a) {
    if (t->is_neuron()) {
      out.neuron = Clamp(a);
    } else {
      out.gpu = Clamp(a);
    }
  };
  if (entry.count.has_value()) {
    // Rule 1: whole instances.
    const i128 c = *entry.count;
    put_accelerators(c * A);
    out.cpu_milli = Clamp(c * V * 1000);
    out.memory_bytes = RoundMemoryBytes(c * t->memory_mib * kMiB);
    out.efa = Clamp(c * E);
    return out;
  }
  // Rule 2: fill the gaps (all ratios per instance).
  const bool has_a = entry.accelerators.has_value();
  const bool has_v = entry.vcpu.has_value();
  const bool has_m = entry.memory_gib.has_value();
  const Rational a_val = Int(entry.accelerators.value_or(0));
  const Rational v_given = has_v ? FromDecimal(*entry.vcpu) : Int(0);
  const Rational m_given = has_m ? FromDecimal(*entry.memory_gib) : Int(0);
  const bool has_partition = entry.partition.has_value() && A > 0;
  Rational partition_ratio = Int(0);  // n·g / (A·7)
  if (has_partition) {
    partition_ratio = Rational{i128{entry.partition->count} * MigSlices(entry.partition->type), A * 7};
  }
  Rational v = Int(0);
  Rational m = Int(0);
  if (has_v) {
    v = v_given;
  } else if (has_m && M.num > 0) {
    v = Rational{m_given.num * V * M.den, m_given.den * M.num};  // m·V/M
  } else if (has_a && A > 0) {
    v = Div(Mul(a_val, Int(V)), A);
  } else if (has_partition) {
    v = Int(Floor(Mul(partition_ratio, Int(V))));  // rule 5: ⌊r·V⌋
  }
  if (has_m) {
    m = m_given;
  } else if (has_v && V > 0) {
    m = Div(Mul(v_given, M), V);  // v·M/V
  } else if (has_a && A > 0) {
    m = Div(Mul(a_val, M), A);
  } else if (has_partition) {
    m = Int(Floor(Mul(partition_ratio, M)));  // rule 5: ⌊r·M⌋
  }
  put_accelerators(Floor(a_val));
  out.cpu_milli = Clamp(Floor(Mul(v, Int(1000))));
  out.memory_bytes = RoundMemory(Mul(m, Int(kGiB)));
  if (entry.partition.has_value()) {
    out.mig.emplace_back(MigResource(entry.partition->type), entry.partition->count);
  }
  // Rule 3: EFA from the largest share of an instance the entry takes.
  Rational r = Int(0);
  if (has_a && A > 0) r = std::max(r, Div(a_val, A), Less);
  if (V > 0) r = std::max(r, Div(v, V), Less);
  if (M.num > 0) r = std::max(r, Rational{m.num * M.den, m.den * M.num}, Less);
  if (has_partition) r = std::max(r, partition_ratio, Less);
  out.efa = options.efa == EfaRule::kWholeInstance ? Clamp(Ceil(r) * E) : Clamp(Ceil(Mul(r, Int(E))));
  return out;
}

FlavorAmounts ScaleAmounts(const FlavorAmounts& amounts, int64_t percent) {
  FlavorAmounts out;
  out.instance_type = amounts.instance_type;
  auto scale = [percent](int64_t v) { return Clamp(i128{v} * percent / 100); };
  out.gpu = scale(amounts.gpu);
  out.neuron = scale(amounts.neuron);
  out.cpu_milli = scale(amounts.cpu_milli);
  out.memory_bytes = RoundMemory(Rational{i128{amounts.memory_bytes} * percent, 100});
  out.efa = scale(amounts.efa);
  for (const auto& [name, v] : amounts.mig) out.mig.emplace_back(name, scale(v));
  return out;
}

namespace {

// The instance types of one list are catalogued quota types and unique: the reader checks this for
// everything it reads, but a PolicySet built in code has not been read, and `EffectiveAmounts`
// would silently give an unknown type zero quota.
absl::Status CheckInstanceTypes(const ComputeQuotaPolicy& q, const std::vector<QuotaResource>& list,
                                std::string_view path) {
  for (size_t i = 0; i < list.size(); ++i) {
    const InstanceType* t = FindInstanceType(list[i].instance_type);
    if (t == nullptr || !t->quota_allowed()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {}[{}].InstanceType: \"{}\" is not a HyperPod instance type (ClusterInstanceType)",
                      QuotaLabel(q), path, i, list[i].instance_type));
    }
    for (size_t j = 0; j < i; ++j) {
      if (list[j].instance_type == list[i].instance_type) {
        return absl::InvalidArgumentError(fmt::format("{}: {}[{}].InstanceType: {} is already listed in {}[{}]",
                                                      QuotaLabel(q), path, i, list[i].instance_type, path, j));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Validate(const PolicySet& policies) {
  std::map<std::string, const ComputeQuotaPolicy*> by_name;
  std::map<std::string, const ComputeQuotaPolicy*> by_team;
  for (const ComputeQuotaPolicy& q : policies.quotas) {
    if (absl::Status st = CheckInstanceTypes(q, q.resources, "ComputeQuotaConfig.ComputeQuotaResources");
        !st.ok()) {
      return st;
    }
    if (q.sharing.has_value()) {
      if (absl::Status st = CheckInstanceTypes(q, q.sharing->absolute_borrow_limits,
                                               "ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits");
          !st.ok()) {
        return st;
      }
    }
    if (auto [it, fresh] = by_name.emplace(q.name, &q); !fresh) {
      return absl::AlreadyExistsError(
          fmt::format("{}: Name: an allocation named '{}' is already defined{}", QuotaLabel(q), q.name,
                      it->second->source.empty() ? "" : " at " + it->second->source));
    }
    if (auto [it, fresh] = by_team.emplace(q.team, &q); !fresh) {
      return absl::AlreadyExistsError(fmt::format(
          "{}: ComputeQuotaTarget.TeamName: team '{}' already has an allocation, ComputeQuota/{}{} "
          "(ConflictException)",
          QuotaLabel(q), q.team, it->second->name,
          it->second->source.empty() ? "" : " at " + it->second->source));
    }
  }
  return absl::OkStatus();
}

namespace {

// The cluster policy in effect: the given one, or the API defaults.
SchedulerConfigPolicy EffectiveScheduler(const PolicySet& policies) {
  return policies.scheduler.value_or(SchedulerConfigPolicy{});
}

// Per flavor: the team nominal amounts (teams sorted by name).
struct TeamQuota {
  const ComputeQuotaPolicy* policy;
  std::vector<FlavorAmounts> nominal;    // in request order
  std::vector<FlavorAmounts> borrowing;  // parallel
  bool lend_nothing = false;
};

std::vector<TeamQuota> TeamQuotas(const PolicySet& policies, const TranslateOptions& options) {
  std::vector<TeamQuota> out;
  for (const ComputeQuotaPolicy& q : policies.quotas) {
    TeamQuota t{.policy = &q, .nominal = {}, .borrowing = {}, .lend_nothing = false};
    const ResourceSharing sharing = q.sharing.value_or(ResourceSharing{});
    for (const QuotaResource& r : q.resources) {
      FlavorAmounts nominal = EffectiveAmounts(r, options);
      FlavorAmounts borrowing;
      if (sharing.strategy == SharingStrategy::kLendAndBorrow) {
        borrowing = ScaleAmounts(nominal, sharing.borrow_limit.value_or(50));
        for (const QuotaResource& abs : sharing.absolute_borrow_limits) {
          if (abs.instance_type != r.instance_type) continue;
          borrowing = EffectiveAmounts(abs, options);
          // Keep the flavor's resource list aligned with the nominal one (MIG included).
          std::vector<std::pair<std::string, int64_t>> mig;
          for (const auto& [name, v] : nominal.mig) {
            int64_t limit = 0;
            for (const auto& [n2, v2] : borrowing.mig) {
              if (n2 == name) limit = v2;
            }
            mig.emplace_back(name, limit);
          }
          borrowing.mig = std::move(mig);
        }
      } else {
        borrowing = ScaleAmounts(nominal, 0);
      }
      t.nominal.push_back(std::move(nominal));
      t.borrowing.push_back(std::move(borrowing));
    }
    t.lend_nothing = sharing.strategy == SharingStrategy::kDontLend;
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(),
            [](const TeamQuota& a, const TeamQuota& b) { return a.policy->team < b.policy->team; });
  return out;
}

// Σ team nominal per (instance type, resource).
std::map<std::string, std::map<std::string, int64_t>> TotalNominal(const std::vector<TeamQuota>& teams) {
  std::map<std::string, std::map<std::string, int64_t>> out;
  for (const TeamQuota& t : teams) {
    for (const FlavorAmounts& f : t.nominal) {
      for (const auto& [resource, v] : f.Resources()) {
        int64_t& total = out[f.instance_type][resource];
        total = ClampedSum(total, v);
      }
    }
  }
  return out;
}

FlavorAmounts Capacity(const std::string& type, int64_t nodes) {
  QuotaResource r;
  r.instance_type = type;
  r.count = nodes;
  return EffectiveAmounts(r);
}

}  // namespace

absl::StatusOr<Translation> Translate(const PolicySet& policies, const TranslateOptions& options) {
  if (absl::Status st = Validate(policies); !st.ok()) return st;
  const SchedulerConfigPolicy scheduler = EffectiveScheduler(policies);
  const std::vector<TeamQuota> teams = TeamQuotas(policies, options);
  Translation out;
  out.fair_sharing.enabled = scheduler.fair_share;
  auto add = [&out](ObjectSpec spec, const std::string& source) {
    out.objects.push_back(std::move(spec));
    out.sources.push_back(source);
  };

  // Namespaces.
  for (const TeamQuota& t : teams) {
    const ComputeQuotaPolicy& q = *t.policy;
    add(NamespaceSpec{.name = TeamNamespace(q.team),
                      .labels = SortedLabels({
                          {std::string(kNamespaceNameLabel), TeamNamespace(q.team)},
                          {std::string(kManagedQueueLabel), "true"},
                          {std::string(kQuotaAllocationLabel), q.team},
                          {std::string(kActivateQuotaLabel), q.enabled ? "Enabled" : "Disabled"},
                      })},
        q.source);
  }

  // ResourceFlavors: every instance type a quota names, plus the inventory's types when idle
  // resource sharing publishes them.
  std::map<std::string, std::string> flavors;  // name → source
  for (const TeamQuota& t : teams) {
    for (const FlavorAmounts& f : t.nominal) flavors.emplace(f.instance_type, t.policy->source);
  }
  const bool idle_sharing = scheduler.idle_resource_sharing && policies.cluster.has_value();
  if (idle_sharing) {
    for (const auto& [type, nodes] : policies.cluster->instances) {
      if (nodes > 0) flavors.emplace(type, policies.cluster->source);
    }
  }
  for (const auto& [name, source] : flavors) {
    ResourceFlavorSpec rf;
    rf.name = name;
    rf.node_labels = {{std::string(kInstanceTypeLabel), name}};
    add(std::move(rf), source);
  }

  // WorkloadPriorityClasses.
  for (const PriorityClassPolicy& pc : scheduler.priority_classes) {
    WorkloadPriorityClassSpec spec;
    spec.name = PriorityClassName(pc.name);
    spec.value = pc.weight;
    out.priority_classes.push_back(spec.name);
    add(std::move(spec), scheduler.source);
  }

  // Team ClusterQueues.
  for (const TeamQuota& t : teams) {
    const ComputeQuotaPolicy& q = *t.policy;
    ClusterQueueSpec cq;
    cq.name = TeamClusterQueue(q.team);
    cq.cohort = std::string(kCohort);
    cq.labels = SortedLabels({{std::string(kQuotaAllocationLabel), q.team},
                              {std::string(kManagedQueueLabel), "true"}});
    cq.namespace_selector = LabelSelector{
        .match_labels = {{std::string(kNamespaceNameLabel), TeamNamespace(q.team)}},
        .match_expressions = {}};
    cq.queueing_strategy = QueueingStrategy::kBestEffortFIFO;
    cq.flavor_fungibility.when_can_borrow = FungibilityPolicy::kTryNextFlavor;
    cq.flavor_fungibility.when_can_preempt = FungibilityPolicy::kTryNextFlavor;
    cq.preemption.within_cluster_queue = q.preempt_team_tasks == PreemptTeamTasks::kLowerPriority
                                             ? WithinClusterQueuePolicy::kLowerPriority
                                             : WithinClusterQueuePolicy::kNever;
    cq.preemption.reclaim_within_cohort = ReclaimWithinCohortPolicy::kAny;
    cq.preemption.borrow_within_cohort.policy = BorrowWithinCohortPolicy::kLowerPriority;
    cq.fair_sharing_weight_milli = int64_t{q.fair_share_weight.value_or(0)} * 1000;
    cq.stop_policy = q.enabled ? StopPolicy::kNone : StopPolicy::kHold;
    if (!t.nominal.empty()) {
      ResourceGroupSpec group;
      std::set<std::string> mig;
      for (const FlavorAmounts& f : t.nominal) {
        for (const auto& m : f.mig) mig.insert(m.first);
      }
      for (const auto& [resource, v] : FlavorAmounts{}.Resources()) group.covered_resources.push_back(resource);
      for (const std::string& m : mig) group.covered_resources.push_back(m);
      for (size_t i = 0; i < t.nominal.size(); ++i) {
        FlavorQuotasSpec fq;
        fq.name = t.nominal[i].instance_type;
        auto nominal = t.nominal[i].Resources();
        auto borrowing = t.borrowing[i].Resources();
        for (const std::string& resource : group.covered_resources) {
          ResourceQuotaSpec rq;
          rq.name = resource;
          for (const auto& [n, v] : nominal) {
            if (n == resource) rq.nominal_quota = v;
          }
          rq.borrowing_limit = 0;
          for (const auto& [n, v] : borrowing) {
            if (n == resource) rq.borrowing_limit = v;
          }
          if (t.lend_nothing) rq.lending_limit = 0;
          fq.resources.push_back(std::move(rq));
        }
        group.flavors.push_back(std::move(fq));
      }
      cq.resource_groups.push_back(std::move(group));
    }
    add(std::move(cq), q.source);
  }

  // Idle (unallocated) resource sharing: per inventory type, capacity − Σ team nominal.
  if (idle_sharing) {
    const auto totals = TotalNominal(teams);
    int n = 0;
    for (const auto& [type, nodes] : policies.cluster->instances) {
      if (nodes <= 0) continue;
      const FlavorAmounts capacity = Capacity(type, nodes);
      FlavorQuotasSpec fq;
      fq.name = type;
      bool any = false;
      ResourceGroupSpec group;
      for (const auto& [resource, cap] : capacity.Resources()) {
        int64_t used = 0;
        if (auto it = totals.find(type); it != totals.end()) {
          if (auto r = it->second.find(resource); r != it->second.end()) used = r->second;
        }
        ResourceQuotaSpec rq;
        rq.name = resource;
        rq.nominal_quota = std::max<int64_t>(0, cap - used);
        rq.borrowing_limit = 0;
        any = any || rq.nominal_quota > 0;
        group.covered_resources.push_back(resource);
        fq.resources.push_back(std::move(rq));
      }
      if (!any) continue;
      group.flavors.push_back(std::move(fq));
      ClusterQueueSpec cq;
      cq.name = IdleClusterQueue(++n);
      cq.cohort = std::string(kCohort);
      cq.labels = {{std::string(kManagedQueueLabel), "true"}};
      cq.resource_groups.push_back(std::move(group));
      cq.fair_sharing_weight_milli = 0;
      add(std::move(cq), policies.cluster->source);
    }
  }

  // LocalQueues.
  for (const TeamQuota& t : teams) {
    const ComputeQuotaPolicy& q = *t.policy;
    LocalQueueSpec lq;
    lq.namespace_ = TeamNamespace(q.team);
    lq.name = TeamLocalQueue(q.team);
    lq.cluster_queue = TeamClusterQueue(q.team);
    lq.stop_policy = StopPolicy::kNone;
    lq.labels = SortedLabels({{std::string(kQuotaAllocationLabel), q.team},
                              {std::string(kManagedQueueLabel), "true"}});
    add(std::move(lq), q.source);
  }
  return out;
}

std::vector<Finding> Lint(const PolicySet& policies, const TranslateOptions& options) {
  std::vector<Finding> out;
  const std::vector<TeamQuota> teams = TeamQuotas(policies, options);
  const SchedulerConfigPolicy scheduler = EffectiveScheduler(policies);

  // Capacity: Σ nominal per (instance type, resource) against the inventory.
  if (policies.cluster.has_value()) {
    const ClusterInventory& cluster = *policies.cluster;
    auto nodes_of = [&cluster](const std::string& type) -> int64_t {
      for (const auto& [t, n] : cluster.instances) {
        if (t == type) return n;
      }
      return 0;
    };
    for (const auto& [type, resources] : TotalNominal(teams)) {
      const int64_t nodes = nodes_of(type);
      if (nodes == 0) continue;  // reported below, per allocation
      const FlavorAmounts capacity = Capacity(type, nodes);
      for (const auto& [resource, cap] : capacity.Resources()) {
        auto it = resources.find(resource);
        if (it == resources.end() || it->second <= cap) continue;
        out.push_back({cluster.source,
                       fmt::format("{} {}: the teams' quotas add up to {}, above the {} of the "
                                   "cluster's {} node{} (HyperPodCluster/{})",
                                   type, resource, FormatCount(resource, it->second),
                                   FormatCount(resource, cap), nodes, nodes == 1 ? "" : "s",
                                   cluster.name)});
      }
    }
    for (const TeamQuota& t : teams) {
      for (const FlavorAmounts& f : t.nominal) {
        if (nodes_of(f.instance_type) > 0) continue;
        out.push_back({t.policy->source,
                       fmt::format("ComputeQuota/{}: {} has no nodes in HyperPodCluster/{}; the "
                                   "quota is planned capacity until nodes join",
                                   t.policy->name, f.instance_type, cluster.name)});
      }
    }
  } else if (!policies.quotas.empty()) {
    out.push_back({"", "no HyperPodCluster inventory: quotas are not checked against capacity"});
  }

  if (policies.quotas.size() == 1) {
    out.push_back({policies.quotas.front().source,
                   fmt::format("ComputeQuota/{} is the only allocation: no borrowing or "
                               "cross-team preemption can happen",
                               policies.quotas.front().name)});
  }

  for (const ComputeQuotaPolicy& q : policies.quotas) {
    if (q.sharing.has_value() && q.sharing->strategy != SharingStrategy::kLendAndBorrow) {
      const char* strategy = q.sharing->strategy == SharingStrategy::kLend ? "Lend" : "DontLend";
      if (q.sharing->borrow_limit.has_value()) {
        out.push_back({q.source, fmt::format("ComputeQuota/{}: ComputeQuotaConfig.ResourceSharingConfig."
                                             "BorrowLimit is ignored with Strategy {}",
                                             q.name, strategy)});
      }
      if (!q.sharing->absolute_borrow_limits.empty()) {
        out.push_back({q.source, fmt::format("ComputeQuota/{}: ComputeQuotaConfig.ResourceSharingConfig."
                                             "AbsoluteBorrowLimits is ignored with Strategy {}",
                                             q.name, strategy)});
      }
    }
    if (q.fair_share_weight.has_value() && !scheduler.fair_share) {
      out.push_back({q.source, fmt::format("ComputeQuota/{}: ComputeQuotaTarget.FairShareWeight is "
                                           "ignored while FairShare=Disabled",
                                           q.name)});
    }
    for (size_t i = 0; i < q.resources.size(); ++i) {
      const QuotaResource& r = q.resources[i];
      const InstanceType* t = FindInstanceType(r.instance_type);
      if (t != nullptr && !t->efa_known) {
        out.push_back({q.source, fmt::format("ComputeQuota/{}: the catalogue has no EFA figure for "
                                             "{}; its EFA quota is 0",
                                             q.name, r.instance_type)});
      }
      // The API takes floats; Kubernetes quotas are whole millicores and (here) MiB, so finer
      // declared values are rounded down, which the administrator should know.
      const std::string member = fmt::format("ComputeQuotaConfig.ComputeQuotaResources[{}]", i);
      if (r.vcpu.has_value() && !DividesUnit(*r.vcpu, 1000)) {
        out.push_back({q.source, fmt::format("ComputeQuota/{}: {}.VCpu: {} is finer than a millicore; the "
                                             "quota uses {}",
                                             q.name, member, DecimalText(*r.vcpu),
                                             FormatCount("cpu", EffectiveAmounts(r, options).cpu_milli))});
      }
      if (r.memory_gib.has_value() && !DividesUnit(*r.memory_gib, 1024)) {
        out.push_back({q.source, fmt::format("ComputeQuota/{}: {}.MemoryInGiB: {} is finer than a MiB; the "
                                             "quota uses {}",
                                             q.name, member, DecimalText(*r.memory_gib),
                                             FormatCount("memory", EffectiveAmounts(r, options).memory_bytes))});
      }
    }
  }

  if (scheduler.idle_resource_sharing && !policies.cluster.has_value()) {
    out.push_back({scheduler.source,
                   "IdleResourceSharing=Enabled but no HyperPodCluster inventory: no "
                   "idle-resource-sharing ClusterQueues are generated"});
  }
  if (!policies.scheduler.has_value() && !policies.quotas.empty()) {
    out.push_back({"", "no ClusterSchedulerConfig: the API defaults apply (first-come first-serve "
                       "task prioritization, FairShare=Enabled)"});
  }
  return out;
}

}  // namespace qm::hyperpod
