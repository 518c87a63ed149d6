// The Engine facade: argument checking and name lookups around EngineState.
#include "qm/adapter/engine.h"

#include <unistd.h>

#include <algorithm>
#include <type_traits>
#include <utility>
#include <variant>

#include "adapter/engine_state.h"
#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/model/config_validation.h"
#include "qm/model/namespace_name.h"
#include "qm/model/validate.h"
#include "qm/solver/fair_sharing.h"
#include "qm/solver/pods_ready.h"

namespace qm {

const char* ObjectKindName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kNamespace: return "Namespace";
    case ObjectKind::kResourceFlavor: return "ResourceFlavor";
    case ObjectKind::kCohort: return "Cohort";
    case ObjectKind::kClusterQueue: return "ClusterQueue";
    case ObjectKind::kLocalQueue: return "LocalQueue";
    case ObjectKind::kWorkloadPriorityClass: return "WorkloadPriorityClass";
    case ObjectKind::kPriorityClass: return "PriorityClass";
    case ObjectKind::kWorkload: return "Workload";
  }
  return "Unknown";
}

absl::StatusOr<ObjectKind> ParseObjectKind(std::string_view kind) {
  for (ObjectKind k : {ObjectKind::kNamespace, ObjectKind::kResourceFlavor, ObjectKind::kCohort,
                       ObjectKind::kClusterQueue, ObjectKind::kLocalQueue, ObjectKind::kWorkloadPriorityClass,
                       ObjectKind::kPriorityClass, ObjectKind::kWorkload})
    if (kind == ObjectKindName(k)) return k;
  return absl::InvalidArgumentError(fmt::format("unknown kind '{}'", kind));
}

namespace internal {
EngineState::EngineState(EngineConfig config) : scheduler(s) { s.config = std::move(config); }
EngineState::~EngineState() = default;
}  // namespace internal

Engine::Engine() : state_(std::make_unique<internal::EngineState>(EngineConfig())) {}
Engine::Engine(std::unique_ptr<internal::EngineState> state) : state_(std::move(state)) {}
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

absl::StatusOr<Engine> Engine::Create(EngineConfig config) {
  QM_RETURN_IF_ERROR(ValidateEngineConfig(config));
  return Engine(std::make_unique<internal::EngineState>(std::move(config)));
}

const EngineConfig& Engine::config() const {
  static const EngineConfig kMovedFrom;  // what a moved-from engine reports: the defaults
  return state_ ? state_->s.config : kMovedFrom;
}

absl::Status Engine::Usable(const char* what) const {
  if (!state_)
    return absl::FailedPreconditionError(fmt::format("Engine::{}: the engine was moved from", what));
  return state_->CheckUsable(what);
}

bool Engine::Readable() const { return state_ && state_->poisoned.empty(); }

absl::Status Engine::Queryable(const char* what) const {
  if (!state_)
    return absl::FailedPreconditionError(fmt::format("Engine::{}: the engine was moved from", what));
  return state_->poisoned.empty() ? absl::OkStatus() : state_->PoisonedStatus();
}

namespace {
// Every workload of the batch must pass the gate before the batch is applied: Apply is one
// transaction, so a refusal must leave the engine as it was.
absl::Status CheckGate(internal::EngineState& st, std::string_view principal, std::span<const ObjectSpec> objects) {
  if (!st.s.config.submission_gate) return absl::OkStatus();
  for (const ObjectSpec& o : objects) {
    if (const auto* w = std::get_if<WorkloadSpec>(&o)) QM_RETURN_IF_ERROR(st.RunGate(principal, *w));
  }
  return absl::OkStatus();
}

absl::StatusOr<WorkloadId> Lookup(const internal::EngineState& st, std::string_view ns, std::string_view name) {
  const std::string_view n = NamespaceOrDefault(ns);
  const NamespaceId nid = st.s.namespaces_names.Find(n);
  const WorkloadId id = nid.valid() ? st.s.FindWorkload(nid, name) : WorkloadId();
  if (!id.valid()) return absl::NotFoundError(fmt::format("{}: not found", ObjectLabel("Workload", n, name)));
  return id;
}

absl::StatusOr<WorkloadId> Lookup(const internal::EngineState& st, WorkloadHandle h) {
  const WorkloadId id = st.s.Resolve(h);
  if (!id.valid()) {
    if (h.valid() && h.index < st.s.workloads.size())
      return absl::NotFoundError(fmt::format("workload id {}/{}: stale: that workload was deleted", h.index, h.generation));
    return absl::NotFoundError(fmt::format("workload id {}/{}: no such workload", h.index, h.generation));
  }
  return id;
}
}  // namespace

// Every call that can change the engine runs inside `Call`: refused when the engine is poisoned or
// from inside a host function, its events collected, then delivered once the work is complete. An
// exception in the work is a rollback when the code that saw it knows nothing changed yet
// (`RolledBack`); any other leaves the state half changed, so it poisons the engine.
template <class F>
auto Engine::Call(const char* what, F&& work) -> decltype(work()) {
  if (absl::Status st = Usable(what); !st.ok()) return st;
  if (absl::Status st = state_->BeginCall(what); !st.ok()) return st;
  decltype(work()) result = absl::UnknownError("not run");
  try {
    // The historical share's history (docs/semantics.md §11.8) is evaluated at the call's instant
    // before the call changes anything: the clock is read first, so a clock that throws changes
    // nothing. What the call changed is committed once it has succeeded.
    state_->s.EvaluateHistory();
  } catch (...) {
    return absl::FailedPreconditionError(
        fmt::format("Engine::{}: the clock threw {}; nothing changed", what, internal::DescribeCurrentException()));
  }
  try {
    result = work();
  } catch (internal::RolledBack& rolled_back) {
    state_->events.clear();
    return std::move(rolled_back.status);
  } catch (...) {
    state_->events.clear();
    state_->Poison(what, internal::DescribeCurrentException());
    return state_->PoisonedStatus();
  }
  if (!result.ok()) state_->events.clear();  // a failed call changed nothing
  else state_->s.CommitHistory();
  QM_RETURN_IF_ERROR(state_->Deliver(what));
  return result;
}

absl::Status Engine::Apply(std::span<const ObjectSpec> objects) { return ApplyAs({}, objects); }
absl::Status Engine::Apply(const ObjectSpec& object) { return ApplyAs({}, std::span<const ObjectSpec>(&object, 1)); }
absl::Status Engine::ApplyAs(std::string_view principal, std::span<const ObjectSpec> objects) {
  return Call("Apply", [&]() -> absl::Status {
    QM_RETURN_IF_ERROR(CheckGate(*state_, principal, objects));
    return state_->Apply(objects);
  });
}
absl::Status Engine::SetSubmissionGate(SubmissionGate gate) {
  QM_RETURN_IF_ERROR(Usable("SetSubmissionGate"));
  state_->s.config.submission_gate = std::move(gate);
  return absl::OkStatus();
}
absl::Status Engine::Delete(const ObjectRef& ref) {
  return Call("Delete", [&] { return state_->Delete(ref); });
}
absl::Status Engine::Delete(WorkloadHandle workload) {
  return Call("Delete", [&]() -> absl::Status {
    QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, workload));
    state_->DeleteWorkload(id);
    state_->Settle();
    return absl::OkStatus();
  });
}

absl::StatusOr<WorkloadHandle> Engine::Submit(const WorkloadSpec& spec) { return SubmitAs({}, spec); }

absl::StatusOr<WorkloadHandle> Engine::SubmitAs(std::string_view principal, const WorkloadSpec& spec) {
  return Call("Submit", [&]() -> absl::StatusOr<WorkloadHandle> {
    const std::string_view ns = internal::NamespaceOf(spec.namespace_);
    if (FindWorkload(ns, spec.name).valid())
      return absl::AlreadyExistsError(fmt::format("{}: already exists", ObjectLabel("Workload", ns, spec.name)));
    if (config().submission_gate) QM_RETURN_IF_ERROR(state_->RunGate(principal, spec));
    ObjectSpec object = spec;
    if (auto st = state_->Apply(std::span<const ObjectSpec>(&object, 1)); !st.ok()) return st;
    return FindWorkload(ns, spec.name);
  });
}

// The by-name form of each workload call resolves the name, then does what the by-handle form does.
#define QM_WORKLOAD_CALL(Name, Body)                                                        \
  absl::Status Engine::Name(WorkloadHandle workload) {                                      \
    return Call(#Name, [&]() -> absl::Status {                                              \
      QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, workload));                  \
      return Body;                                                                          \
    });                                                                                     \
  }                                                                                         \
  absl::Status Engine::Name(std::string_view ns, std::string_view name) {                   \
    return Call(#Name, [&]() -> absl::Status {                                              \
      QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, ns, name));                  \
      return Body;                                                                          \
    });                                                                                     \
  }
QM_WORKLOAD_CALL(Finish, state_->Finish(id))
QM_WORKLOAD_CALL(ConfirmEvicted, state_->ConfirmEvicted(id))
QM_WORKLOAD_CALL(Deactivate, state_->SetActive(id, false))
QM_WORKLOAD_CALL(Activate, state_->SetActive(id, true))
#undef QM_WORKLOAD_CALL

absl::Status Engine::Evict(WorkloadHandle workload, std::string_view reason, std::string_view message) {
  return Call("Evict", [&]() -> absl::Status {
    QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, workload));
    return state_->Evict(id, reason, message);
  });
}
absl::Status Engine::Evict(std::string_view ns, std::string_view name, std::string_view reason,
                           std::string_view message) {
  return Call("Evict", [&]() -> absl::Status {
    QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, ns, name));
    return state_->Evict(id, reason, message);
  });
}

absl::Status Engine::SetReclaimablePods(WorkloadHandle workload, std::string_view pod_set, int32_t count) {
  return Call("SetReclaimablePods", [&]() -> absl::Status {
    QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, workload));
    return state_->SetReclaimablePods(id, pod_set, count);
  });
}
absl::Status Engine::SetReclaimablePods(std::string_view ns, std::string_view name, std::string_view pod_set,
                                        int32_t count) {
  return Call("SetReclaimablePods", [&]() -> absl::Status {
    QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, ns, name));
    return state_->SetReclaimablePods(id, pod_set, count);
  });
}

absl::Status Engine::SetPodsReady(WorkloadHandle workload, bool ready) {
  return Call("SetPodsReady", [&]() -> absl::Status {
    QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, workload));
    return state_->SetPodsReady(id, ready);
  });
}
absl::Status Engine::SetPodsReady(std::string_view ns, std::string_view name, bool ready) {
  return Call("SetPodsReady", [&]() -> absl::Status {
    QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, ns, name));
    return state_->SetPodsReady(id, ready);
  });
}

int Engine::ConfirmAllEvicted() {
  if (!Usable("ConfirmAllEvicted").ok()) return 0;
  absl::StatusOr<int> n = Call("ConfirmAllEvicted", [&]() -> absl::StatusOr<int> { return state_->ConfirmAllEvicted(); });
  return n.ok() ? *n : 0;
}

const CycleResult& Engine::ScheduleCycle() {
  static_assert(std::is_same_v<decltype(state_->scheduler.result()), const CycleResult&>);
  if (absl::Status st = Usable("ScheduleCycle"); !st.ok()) {
    if (!state_) {
      // A moved-from engine has nowhere to keep a result: one constant answer serves them all.
      static const CycleResult kMovedFrom = [] {
        CycleResult r;
        r.status = absl::FailedPreconditionError("Engine::ScheduleCycle: the engine was moved from");
        return r;
      }();
      return kMovedFrom;
    }
    state_->refused.status = std::move(st);
    return state_->refused;
  }
  state_->BeginCall("ScheduleCycle").IgnoreError();  // cannot fail: Usable checked the same
  try {
    state_->scheduler.Cycle();
  } catch (...) {
    // A clock that throws (or memory running out) mid-cycle: the cycle's changes are half made.
    state_->Poison("ScheduleCycle", internal::DescribeCurrentException());
    state_->refused.status = state_->PoisonedStatus();
    return state_->refused;
  }
  if (config().check_invariants) {
    if (absl::Status st = CheckInvariants(); !st.ok()) state_->scheduler.FailCycle(std::move(st));
  }
  state_->events_in_cycle = true;
  // The cycle's decisions stand; a callback that threw is reported in the result's status.
  if (absl::Status st = state_->Deliver("ScheduleCycle"); !st.ok()) state_->scheduler.FailCycle(std::move(st));
  return state_->scheduler.result();
}

int Engine::RunUntilStable(int max_cycles) { return RunUntilSettled(max_cycles).cycles; }

StableRun Engine::RunUntilSettled(int max_cycles) {
  StableRun run;
  if (!Usable("RunUntilStable").ok()) return run;
  state_->BeginCall("RunUntilStable").IgnoreError();  // cannot fail: Usable checked the same
  try {
    while (run.cycles < max_cycles) {
      const CycleResult& r = state_->scheduler.Cycle();
      ++run.cycles;
      run.last_cycle = r.cycle;
      run.admitted += r.admitted;
      run.preempted += r.preempted;
      run.pending = r.pending;
      run.settled = r.settled();
      state_->events.insert(state_->events.end(), r.events.begin(), r.events.end());
      if (config().check_invariants && !CheckInvariants().ok()) {
        run.settled = false;  // stopped early: the state is suspect, not stable
        break;  // the host asks CheckInvariants why
      }
      if (run.settled) break;
    }
  } catch (...) {
    state_->events.clear();
    state_->Poison("RunUntilStable", internal::DescribeCurrentException());
    run.settled = false;
    return run;
  }
  state_->Deliver("RunUntilStable").IgnoreError();  // poisons the engine when the callback threw
  return run;
}

std::span<const Event> Engine::LastEvents() const {
  return state_ ? state_->LastEvents() : std::span<const Event>();
}

// Replacing the callback from inside it would destroy the function that is running.
absl::Status Engine::SetEventCallback(EventCallback callback) {
  QM_RETURN_IF_ERROR(Usable("SetEventCallback"));
  state_->callback = std::move(callback);
  return absl::OkStatus();
}

Time Engine::Now() const { return Readable() ? state_->s.Now() : Time(); }

absl::Status Engine::SetNow(Time now) {
  QM_RETURN_IF_ERROR(Usable("SetNow"));
  if (state_->s.config.clock)
    return absl::FailedPreconditionError("the engine was given a clock; SetNow moves only the manual clock");
  state_->s.manual_now = now;
  return absl::OkStatus();
}

absl::Status Engine::Reserve(int64_t workloads) {
  QM_RETURN_IF_ERROR(Usable("Reserve"));
  constexpr int64_t kMaxWorkloads = int64_t{UINT32_MAX} - 1;  // a WorkloadId is 32 bits, one value means none
  if (workloads < 0)
    return absl::InvalidArgumentError(fmt::format("Engine::Reserve: workloads is {}; it must not be negative", workloads));
  if (workloads > kMaxWorkloads)
    return absl::InvalidArgumentError(
        fmt::format("Engine::Reserve: workloads is {}; an engine holds at most {}", workloads, kMaxWorkloads));
  ClusterState& s = state_->s;
  // What one reserved workload takes: its record, its admission record and a name-index slot.
  const int64_t per_workload = static_cast<int64_t>(sizeof(WorkloadRecord) + sizeof(AdmissionRecord) + 16);
  const int64_t needed = workloads * per_workload;
#if defined(_SC_PHYS_PAGES)
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
#else
  const long pages = 0, page_size = 0;  // unknown: the allocations below say
#endif
  if (pages > 0 && page_size > 0 && needed / page_size > pages)
    return absl::ResourceExhaustedError(fmt::format(
        "Engine::Reserve: {} workloads need about {} MiB; this machine has {} MiB", workloads, needed >> 20,
        (static_cast<int64_t>(pages) * page_size) >> 20));
  const auto n = static_cast<size_t>(workloads);
  try {
    s.workloads.reserve(n);
    s.workload_index.reserve(n);
    s.admission_pool.Reserve(n);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        fmt::format("Engine::Reserve: out of memory reserving room for {} workloads", workloads));
  }
  return absl::OkStatus();
}

std::optional<Time> Engine::NextTimedChange() const {
  if (!Readable()) return std::nullopt;
  std::optional<Time> next = NextTimer(state_->s);
  if (std::optional<Time> p = NextPodsReadyChange(state_->s); p && (!next || *p < *next)) next = p;
  return next;
}

namespace {
// Runs a query that reads the clock or runs the solver on the live state (docs/engine.md,
// "Exceptions and re-entrancy"). The host's clock is read once, first: if it throws, the query
// fails with FailedPrecondition and nothing was touched; the rest of the query sees that reading.
// A query the clock itself makes is refused (it would call the clock inside the clock). Any other
// exception may leave a simulation half undone, so it poisons the engine.
template <class F>
auto GuardedQuery(internal::EngineState& st, const char* what, F&& work) -> decltype(work()) {
  ClusterState& s = st.s;
  if (s.pinned_now) return work();  // nested in a guarded query: already pinned and guarded
  if (s.config.clock) {
    if (s.host_running != nullptr && std::string_view(s.host_running) == "clock")
      return absl::FailedPreconditionError(
          fmt::format("Engine::{} called from the clock: it reads the clock", what));
    try {
      s.pinned_now = s.Now();
    } catch (...) {
      return absl::FailedPreconditionError(
          fmt::format("Engine::{}: the clock threw {}; nothing changed", what, internal::DescribeCurrentException()));
    }
  }
  struct Unpin {
    ClusterState& s;
    ~Unpin() { s.pinned_now.reset(); }
  } unpin{s};
  try {
    s.EvaluateHistory();  // reads the pinned clock; a query commits nothing
    return work();
  } catch (...) {
    st.Poison(what, internal::DescribeCurrentException());
    return st.PoisonedStatus();
  }
}
// Status reads report shares: with the historical share on, its history is brought to now first.
absl::Status RefreshHistory(internal::EngineState& st, const char* what) {
  if (!st.s.config.fair_sharing.historical.enabled) return absl::OkStatus();
  return GuardedQuery(st, what, [] { return absl::OkStatus(); });
}
}  // namespace

// The queries below answer nothing (empty, or FailedPrecondition) on a moved-from or poisoned
// engine: a poisoned state may be half changed, and reading it could mislead or crash.
WorkloadHandle Engine::FindWorkload(std::string_view ns, std::string_view name) const {
  if (!Readable()) return WorkloadHandle();
  auto id = Lookup(*state_, ns, name);
  return id.ok() ? state_->s.Handle(*id) : WorkloadHandle();
}

absl::StatusOr<WorkloadStatus> Engine::GetWorkload(std::string_view ns, std::string_view name) const {
  QM_RETURN_IF_ERROR(Queryable("GetWorkload"));
  QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, ns, name));
  return GuardedQuery(*state_, "GetWorkload", [&]() -> absl::StatusOr<WorkloadStatus> { return state_->Status(id); });
}

absl::StatusOr<WorkloadStatus> Engine::GetWorkload(WorkloadHandle workload) const {
  QM_RETURN_IF_ERROR(Queryable("GetWorkload"));
  QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, workload));
  return GuardedQuery(*state_, "GetWorkload", [&]() -> absl::StatusOr<WorkloadStatus> { return state_->Status(id); });
}

std::string Engine::WorkloadName(WorkloadHandle workload) const {
  if (!Readable()) return std::string();
  const WorkloadId id = state_->s.Resolve(workload);
  return id.valid() ? state_->s.WorkloadName(id) : std::string();
}

std::vector<WorkloadHandle> Engine::Workloads() const {
  if (!Readable()) return {};
  const ClusterState& s = state_->s;
  // Namespaces are few: rank them by name once, so the sort compares a number before a name
  // (the forecast lists every workload, and comparing two strings per step was a tenth of it).
  std::vector<uint32_t> by_name(s.namespaces_names.size());
  for (uint32_t i = 0; i < by_name.size(); ++i) by_name[i] = i;
  std::sort(by_name.begin(), by_name.end(), [&](uint32_t a, uint32_t b) {
    return s.namespaces_names.Name(NamespaceId(a)) < s.namespaces_names.Name(NamespaceId(b));
  });
  std::vector<uint32_t> ns_rank(by_name.size());
  for (uint32_t r = 0; r < by_name.size(); ++r) ns_rank[by_name[r]] = r;
  struct Entry {
    uint32_t ns_rank;
    uint32_t id;
    std::string_view name;
  };
  std::vector<Entry> entries;
  for (uint32_t i = 0; i < s.workloads.size(); ++i) {
    const WorkloadRecord& w = s.workloads[i];
    if (!w.deleted && !w.name.empty()) entries.push_back(Entry{ns_rank[w.ns.value], i, w.name.view()});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.ns_rank != b.ns_rank ? a.ns_rank < b.ns_rank : a.name < b.name;
  });
  std::vector<WorkloadHandle> out;
  out.reserve(entries.size());
  for (const Entry& e : entries) out.push_back(s.Handle(WorkloadId(e.id)));
  return out;
}

absl::StatusOr<ClusterQueueStatus> Engine::GetClusterQueue(std::string_view name) const {
  QM_RETURN_IF_ERROR(Queryable("GetClusterQueue"));
  const ClusterQueueId id = state_->s.cq_names.Find(name);
  if (!id.valid() || !state_->s.cq(id).exists)
    return absl::NotFoundError(fmt::format("{}: not found", ObjectLabel("ClusterQueue", "", name)));
  QM_RETURN_IF_ERROR(RefreshHistory(*state_, "GetClusterQueue"));
  return state_->QueueStatus(id);
}

std::string Engine::ClusterQueueName(ClusterQueueId id) const {
  if (!Readable()) return std::string();
  return id.valid() && id.value < state_->s.cqs.size() ? state_->s.cq(id).name : std::string();
}
std::string Engine::ResourceName(ResourceId id) const {
  if (!Readable()) return std::string();
  return id.valid() && id.value < state_->s.catalog.resource_count() ? state_->s.ResourceName(id) : std::string();
}
std::string Engine::FlavorName(FlavorId id) const {
  if (!Readable()) return std::string();
  return id.valid() && id.value < state_->s.catalog.flavor_count() ? state_->s.FlavorName(id) : std::string();
}

std::vector<std::string> Engine::ClusterQueues() const {
  std::vector<std::string> out;
  if (!Readable()) return out;
  for (ClusterQueueId id : state_->s.cqs_by_name) out.push_back(state_->s.cq(id).name);
  return out;
}

absl::StatusOr<LocalQueueStatus> Engine::GetLocalQueue(std::string_view namespace_, std::string_view name) const {
  QM_RETURN_IF_ERROR(Queryable("GetLocalQueue"));
  const ClusterState& s = state_->s;
  const std::string_view ns = NamespaceOrDefault(namespace_);
  const NamespaceId ns_id = s.namespaces_names.Find(ns);
  const LocalQueueId id = ns_id.valid() ? s.FindLocalQueue(ns_id, name) : LocalQueueId();
  if (!id.valid() || !s.local_queues[id.value].exists)
    return absl::NotFoundError(fmt::format("{}: not found", ObjectLabel("LocalQueue", ns, name)));
  return state_->LocalQueueStatusOf(id);
}

std::vector<std::string> Engine::LocalQueues() const {
  std::vector<std::pair<std::string, std::string>> names;
  if (!Readable()) return {};
  const ClusterState& s = state_->s;
  for (const LocalQueueState& lq : s.local_queues)
    if (lq.exists) names.emplace_back(s.namespaces_names.Name(lq.ns), lq.spec.name);
  std::sort(names.begin(), names.end());
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const auto& [ns, name] : names) out.push_back(ns + "/" + name);
  return out;
}

absl::StatusOr<CohortStatus> Engine::GetCohort(std::string_view name) const {
  QM_RETURN_IF_ERROR(Queryable("GetCohort"));
  const ClusterState& s = state_->s;
  const CohortId id = s.cohort_names.Find(name);
  if (!id.valid() || (!s.cohorts[id.value].exists && s.cohorts[id.value].refs == 0))
    return absl::NotFoundError(fmt::format("{}: not found", ObjectLabel("Cohort", "", name)));
  QM_RETURN_IF_ERROR(RefreshHistory(*state_, "GetCohort"));
  const CohortState& c = s.cohorts[id.value];
  CohortStatus st;
  st.name = c.name;
  const NodeIndex parent = s.tree.parent(c.node);
  st.parent = parent == kNoNode ? std::string() : s.cohorts[s.tree.node(parent).owner].name;
  st.implicit = !c.exists;
  st.weighted_share = NodeShare(s, c.node).WeightedShareCeil();
  return st;
}

std::vector<std::string> Engine::Cohorts() const {
  std::vector<std::string> out;
  if (!Readable()) return out;
  for (const CohortState& c : state_->s.cohorts)
    if (c.exists || c.refs > 0) out.push_back(c.name);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
absl::StatusOr<ClusterQueueId> QueueFor(const internal::EngineState& st, WorkloadId id, std::string_view cq_name) {
  const ClusterState& s = st.s;
  if (cq_name.empty()) {
    const WorkloadRecord& w = s.wl(id);
    std::string why;
    const ClusterQueueId cq = ResolveQueue(s, w, &why);
    if (!cq.valid())
      return absl::FailedPreconditionError(fmt::format("Workload '{}': {}", s.WorkloadName(id), why));
    return cq;
  }
  const ClusterQueueId cq = s.cq_names.Find(cq_name);
  if (!cq.valid() || !s.cq(cq).exists)
    return absl::NotFoundError(fmt::format("{}: not found", ObjectLabel("ClusterQueue", "", cq_name)));
  return cq;
}

// A refused nomination (stopped queue, missing namespace, selector mismatch): the flavor
// assigner's answer, and the message the cycle would set in `refused`.
Assignment PreviewToApi(const internal::EngineState& st, WorkloadId id, const Scheduler::Preview& preview) {
  Assignment out = st.ToApi(id, preview.assignment);
  if (preview.refused) out.refused = *preview.refused;
  return out;
}

std::vector<Preemption> ToPreemptions(const ClusterState& s, WorkloadId preemptor, ClusterQueueId cq,
                                      const std::vector<PreemptionTarget>& targets) {
  std::vector<Preemption> out;
  for (const PreemptionTarget& t : targets)
    out.push_back(Preemption{s.Handle(t.workload), s.Handle(preemptor), t.reason,
                             PreemptionMessage(s, preemptor, cq, t.workload, t.reason)});
  return out;
}
}  // namespace

// The queries below run the solver on the live state: every simulation undoes itself exactly
// (integer usage added and removed again) and nothing is recorded, so they are const in effect.
absl::StatusOr<Assignment> Engine::AssignFlavors(WorkloadHandle workload, std::string_view cluster_queue) const {
  QM_RETURN_IF_ERROR(Queryable("AssignFlavors"));
  return GuardedQuery(*state_, "AssignFlavors", [&]() -> absl::StatusOr<Assignment> {
    QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, workload));
    if (state_->s.wl(id).admission)
      return absl::FailedPreconditionError(
          fmt::format("Workload '{}': holds quota already; flavors are assigned to pending workloads",
                      state_->s.WorkloadName(id)));
    QM_ASSIGN_OR_RETURN(const ClusterQueueId cq, QueueFor(*state_, id, cluster_queue));
    Scheduler::Preview preview;
    state_->scheduler.PreviewNomination(id, cq, /*record_attempts=*/true, &preview);
    return PreviewToApi(*state_, id, preview);
  });
}
absl::StatusOr<Assignment> Engine::AssignFlavors(std::string_view ns, std::string_view name,
                                                 std::string_view cluster_queue) const {
  QM_RETURN_IF_ERROR(Queryable("AssignFlavors"));
  QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, ns, name));
  return AssignFlavors(state_->s.Handle(id), cluster_queue);
}

absl::StatusOr<std::vector<Preemption>> Engine::PreemptionTargets(WorkloadHandle workload,
                                                                  std::string_view cluster_queue,
                                                                  std::span<const RequestedFlavor> assignment) const {
  QM_RETURN_IF_ERROR(Queryable("PreemptionTargets"));
  return GuardedQuery(*state_, "PreemptionTargets", [&]() -> absl::StatusOr<std::vector<Preemption>> {
    QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, workload));
    QM_ASSIGN_OR_RETURN(const ClusterQueueId cq, QueueFor(*state_, id, cluster_queue));
    const ClusterState& s = state_->s;
    const WorkloadRecord& w = s.wl(id);
    if (w.admission)
      return absl::FailedPreconditionError(
          fmt::format("Workload '{}': holds quota already; preemption is computed for pending workloads",
                      s.WorkloadName(id)));
    const WorkloadShape& shape = s.shape(w);
    PreemptionRequest req;
    req.preemptor = id;
    req.cq = cq;
    for (const RequestedFlavor& rf : assignment) {
      const auto ps = std::find_if(shape.pod_sets.begin(), shape.pod_sets.end(),
                                   [&](const PodSetShape& p) { return p.name == rf.pod_set; });
      if (ps == shape.pod_sets.end())
        return absl::InvalidArgumentError(
            fmt::format("Workload '{}': assignment: no pod set named '{}'", s.WorkloadName(id), rf.pod_set));
      const ResourceId r = s.catalog.FindResource(rf.resource);
      const FlavorId f = s.catalog.FindFlavor(rf.flavor);
      const FrId fr = r.valid() && f.valid() ? s.catalog.FindFr(f, r) : FrId();
      if (!fr.valid())
        return absl::InvalidArgumentError(fmt::format("Workload '{}': assignment: ClusterQueue '{}' has no quota for "
                                                      "resource '{}' in flavor '{}'",
                                                      s.WorkloadName(id), s.cq(cq).name, rf.resource, rf.flavor));
      int64_t per_pod = 0;
      for (const auto& [res, v] : ps->per_pod)
        if (res == r) per_pod = v;
      const int64_t total = MulAmount(per_pod, ps->count);
      auto it = std::lower_bound(req.usage.begin(), req.usage.end(), std::make_pair(fr, int64_t{0}),
                                 [](const auto& a, const auto& b) { return a.first < b.first; });
      if (it != req.usage.end() && it->first == fr) it->second = AddAmount(it->second, total);
      else req.usage.insert(it, std::make_pair(fr, total));
      if (rf.mode == AssignmentMode::kPreempt) {
        auto fit = std::lower_bound(req.frs.begin(), req.frs.end(), fr);
        if (fit == req.frs.end() || *fit != fr) req.frs.insert(fit, fr);
      }
    }
    std::vector<PreemptionTarget> targets;
    state_->scheduler.TargetsForQuery(req, &targets);
    return ToPreemptions(s, id, cq, targets);
  });
}
absl::StatusOr<std::vector<Preemption>> Engine::PreemptionTargets(std::string_view ns, std::string_view name,
                                                                  std::string_view cluster_queue,
                                                                  std::span<const RequestedFlavor> assignment) const {
  QM_RETURN_IF_ERROR(Queryable("PreemptionTargets"));
  QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, ns, name));
  return PreemptionTargets(state_->s.Handle(id), cluster_queue, assignment);
}

absl::StatusOr<WorkloadExplanation> Engine::Explain(WorkloadHandle workload) const {
  QM_RETURN_IF_ERROR(Queryable("Explain"));
  return GuardedQuery(*state_, "Explain", [&]() -> absl::StatusOr<WorkloadExplanation> {
    QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, workload));
    const ClusterState& s = state_->s;
    WorkloadExplanation ex;
    ex.status = state_->Status(id);
    const WorkloadRecord& w = s.wl(id);
    if (w.preempted_by.valid() && !s.wl(w.preempted_by).deleted) ex.preempted_by = s.WorkloadName(w.preempted_by);
    ex.preemption_reason = w.preemption_reason;
    if (w.preemption_reason)
      ex.preemption_message = w.extras ? w.extras->preemption_message : std::string(MessageOf(s, id));
    if (w.state == WorkloadState::kPending) {
      std::string why;
      const ClusterQueueId cq = ResolveQueue(s, w, &why);
      if (cq.valid()) {
        Scheduler::Preview preview;
        state_->scheduler.PreviewNomination(id, cq, /*record_attempts=*/true, &preview);
        ex.assignment = PreviewToApi(*state_, id, preview);
        ex.would_preempt = ToPreemptions(s, id, cq, preview.targets);
      }
    }
    return ex;
  });
}
absl::StatusOr<WorkloadExplanation> Engine::Explain(std::string_view ns, std::string_view name) const {
  QM_RETURN_IF_ERROR(Queryable("Explain"));
  QM_ASSIGN_OR_RETURN(const WorkloadId id, Lookup(*state_, ns, name));
  return Explain(state_->s.Handle(id));
}

}  // namespace qm
