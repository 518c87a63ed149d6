// The engine event fuzzer: bytes decoded into host calls on a small generated cluster.
//
// The first bytes build the cluster: one or two flavors of cpu and a GPU resource, 2–4
// ClusterQueues in one cohort (quotas, borrowing and lending limits, preemption policies from the
// bytes), a LocalQueue per namespace and three priority classes. Each following byte is an opcode,
// with its operands in the bytes after it (a missing byte reads as 0, so every input decodes):
// submit (sizes, priority, name from a small set so names collide and come back), finish, evict,
// deactivate, activate, confirm one or all, reclaimable pods, one cycle, run until stable, move the
// clock, quota updates (shrinking below usage included), deletes and re-creates of workloads,
// queues and flavors, invalid calls, and save + restore. Some inputs give the engine a clock (shape
// bit 0x40), and an opcode arms a host fault (host_faults.h): the event callback, the submission
// gate or the clock throws or calls back into the engine.
//
// Only the public API is used, but for `internal::CopyEngine`. After every call:
// * a failed call changed nothing: the same `Save()` bytes, no events;
// * `CheckInvariants()` holds (when the library has it: engine_checks.h);
// * every workload the host holds a handle for is still known, and holds an admission exactly
//   when its state holds quota (nothing lost, no quota leaked).
// Save + restore must give an engine whose `Save()` is byte-identical, and so must the engine's
// private copy (`internal::CopyEngine`); a truncated snapshot must be refused. After a host fault the engine is either as if the call failed (the checks above) or
// poisoned: then only after a fault fired, and every later call is refused (the input ends there).
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/targets/engine_checks.h"
#include "fuzz/targets/host_faults.h"
#include "fuzz/targets/targets.h"

namespace qm::fuzz {
namespace {

constexpr const char* kCpu = "cpu";
constexpr const char* kGpu = "example.com/gpu";
constexpr int kNameSpace = 48;  // workload names w0..w47 per namespace: collisions on purpose
constexpr int kMaxCycles = 20;  // per RunUntilStable: keeps each input fast
constexpr int kMaxSteps = 128;  // host calls per input: keeps each input fast

// Reads the input front to back; past the end every read is 0.
class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }
  uint8_t U8() { return done() ? 0 : data_[pos_++]; }
  uint16_t U16() { return static_cast<uint16_t>(U8() | (U8() << 8)); }
  bool Bit() { return (U8() & 1) != 0; }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
};

// The cluster as generated, kept so objects can be re-created and updated.
struct Cluster {
  int flavors = 1;
  std::vector<ClusterQueueSpec> queues;  // cq0..cqN-1, LocalQueue "lq" in ns<i> points to cq<i>
};

std::string FlavorName(int i) { return absl::StrCat("f", i); }
std::string QueueName(int i) { return absl::StrCat("cq", i); }
std::string NamespaceName(int i) { return absl::StrCat("ns", i); }

// Quotas of one ClusterQueue from the bytes: cpu in whole cores (0–15), GPUs 0–8, limits optional.
std::vector<ResourceGroupSpec> QuotasFrom(ByteReader& in, int flavors) {
  ResourceGroupSpec group{{kCpu, kGpu}, {}};
  for (int f = 0; f < flavors; ++f) {
    FlavorQuotasSpec quotas{FlavorName(f), {}};
    for (const char* resource : {kCpu, kGpu}) {
      const bool cpu = resource == kCpu;
      const uint8_t limits = in.U8();
      ResourceQuotaSpec q{resource, cpu ? (in.U8() % 16) * 1000 : in.U8() % 9, {}, {}};
      if (limits & 1) q.borrowing_limit = cpu ? (limits >> 2) % 8 * 1000 : (limits >> 2) % 5;
      if (limits & 2) q.lending_limit = std::min<int64_t>(q.nominal_quota, (limits >> 5) * (cpu ? 1000 : 1));
      quotas.resources.push_back(q);
    }
    group.flavors.push_back(std::move(quotas));
  }
  return {group};
}

ClusterQueueSpec QueueFrom(ByteReader& in, int index, int flavors) {
  ClusterQueueSpec cq;
  cq.name = QueueName(index);
  cq.cohort = "pool";
  cq.namespace_selector = LabelSelector{};
  const uint8_t policy = in.U8();
  cq.queueing_strategy = (policy & 1) ? QueueingStrategy::kStrictFIFO : QueueingStrategy::kBestEffortFIFO;
  cq.preemption.within_cluster_queue = static_cast<WithinClusterQueuePolicy>((policy >> 1) % 3);
  cq.preemption.reclaim_within_cohort = static_cast<ReclaimWithinCohortPolicy>((policy >> 3) % 3);
  // Kueue allows borrowWithinCohort only together with reclaimWithinCohort.
  if ((policy & 0x20) && cq.preemption.reclaim_within_cohort != ReclaimWithinCohortPolicy::kNever) {
    cq.preemption.borrow_within_cohort.policy = BorrowWithinCohortPolicy::kLowerPriority;
  }
  if (policy & 0x40) {
    cq.flavor_fungibility.when_can_borrow = FungibilityPolicy::kTryNextFlavor;
  }
  cq.fair_sharing_weight_milli = (policy & 0x80) ? 2000 : kDefaultWeightMilli;
  cq.resource_groups = QuotasFrom(in, flavors);
  return cq;
}

LocalQueueSpec LocalQueueFor(int index) {
  LocalQueueSpec lq;
  lq.namespace_ = NamespaceName(index);
  lq.name = "lq";
  lq.cluster_queue = QueueName(index);
  return lq;
}

std::vector<ObjectSpec> ClusterObjects(const Cluster& cluster) {
  std::vector<ObjectSpec> objects;
  for (int f = 0; f < cluster.flavors; ++f) objects.push_back(ResourceFlavorSpec{FlavorName(f), {}, {}, {}});
  objects.push_back(WorkloadPriorityClassSpec{"low", 10, ""});
  objects.push_back(WorkloadPriorityClassSpec{"mid", 50, ""});
  objects.push_back(WorkloadPriorityClassSpec{"high", 100, ""});
  objects.push_back(CohortSpec{"pool", "", {}, kDefaultWeightMilli});
  for (size_t i = 0; i < cluster.queues.size(); ++i) {
    objects.push_back(NamespaceSpec{NamespaceName(static_cast<int>(i)), {}});
    objects.push_back(cluster.queues[i]);
    objects.push_back(LocalQueueFor(static_cast<int>(i)));
  }
  return objects;
}

// The host's side: the workloads it submitted, by "ns/name", with their handles.
struct Known {
  std::string namespace_;
  std::string name;
  WorkloadHandle handle;
};

class EventFuzzer {
 public:
  EventFuzzer(std::span<const uint8_t> data) : in_(data) {}

  void Run() {
    const uint8_t shape = in_.U8();
    cluster_.flavors = 1 + shape % 2;
    const int queues = 2 + (shape >> 1) % 3;
    for (int i = 0; i < queues; ++i) cluster_.queues.push_back(QueueFrom(in_, i, cluster_.flavors));
    EngineConfig config;
    config.fair_sharing.enabled = (shape & 0x08) != 0;
    // The historical fair share (docs/semantics.md §11.8), with a half-life that SetNow's steps
    // make count.
    config.fair_sharing.historical.enabled = config.fair_sharing.enabled && (shape & 0x10) != 0;
    config.fair_sharing.historical.half_life = Duration::Seconds(600);
    has_clock_ = (shape & 0x40) != 0;
    if ((shape & 0x80) != 0) {  // Kueue's waitForPodsReady: short deadlines that SetNow can pass
      config.wait_for_pods_ready.enabled = true;
      config.wait_for_pods_ready.timeout = Duration::Seconds(60);
      config.wait_for_pods_ready.backoff_limit_count = 2;
      config.wait_for_pods_ready.backoff_base_seconds = 10;
    }
    InstallHostFunctions(config);
#ifdef QM_FUZZ_HAVE_CHECK_INVARIANTS
    config.check_invariants = true;  // also between the cycles of RunUntilStable
#endif
    absl::StatusOr<Engine> created = Engine::Create(config);
    QM_FUZZ_CHECK(created.ok(), created.status().ToString());
    engine_ = std::make_unique<Engine>(*std::move(created));
    AttachEngine();
    const absl::Status applied = engine_->Apply(ClusterObjects(cluster_));
    QM_FUZZ_CHECK(applied.ok(), "the generated cluster is refused: ", applied.ToString());
    AfterCall("creating the cluster", applied);

    for (int step = 0; !in_.done() && step < kMaxSteps && !poisoned_; ++step) Step();
  }

 private:
  // The host functions every engine of the run gets; harmless until a fault is armed.
  void InstallHostFunctions(EngineConfig& config) {
    if (has_clock_) config.clock = [this] { return faults_.Clock(); };
    config.submission_gate = [this](std::string_view p, const WorkloadSpec& w) { return faults_.Gate(p, w); };
  }
  void AttachEngine() {
    const absl::Status st = engine_->SetEventCallback([this](std::span<const Event> e) { faults_.Callback(e); });
    QM_FUZZ_CHECK(st.ok(), "SetEventCallback: ", st.ToString());
    faults_.Attach(engine_.get());
  }

  // True when the engine is poisoned, which only a fired host fault may cause; then every call
  // must be refused and the queries answer nothing, and the run ends.
  // The probe is a name lookup, O(1), that never reads the clock: a poisoned engine refuses every
  // query, a usable one answers NotFound for the empty name. (Probing with Save() after every call was a third of the run.)
  bool Poisoned(const std::string& what) {
    const absl::StatusOr<ClusterQueueStatus> probe = engine_->GetClusterQueue("");
    if (probe.ok() || probe.status().code() == absl::StatusCode::kNotFound) return false;
    QM_FUZZ_CHECK(probe.status().message().find("unusable") != std::string_view::npos,
                  "GetClusterQueue of the empty name after ", what, ": ", probe.status().ToString());
    const absl::StatusOr<std::string> saved = engine_->Save();
    QM_FUZZ_CHECK(!saved.ok() && saved.status().message().find("unusable") != std::string_view::npos,
                  "a poisoned engine saved after ", what);
    QM_FUZZ_CHECK(faults_.fired() > 0, "the engine was poisoned with no host fault after ", what, ": ",
                  saved.status().ToString());
    QM_FUZZ_CHECK(saved.status().code() == absl::StatusCode::kFailedPrecondition, saved.status().ToString());
    WorkloadSpec w = NewWorkload();
    QM_FUZZ_CHECK(engine_->Submit(w).status().code() == absl::StatusCode::kFailedPrecondition,
                  "a poisoned engine took a Submit");
    QM_FUZZ_CHECK(!engine_->ScheduleCycle().status.ok(), "a poisoned engine ran a cycle");
    QM_FUZZ_CHECK(engine_->RunUntilStable(2) == 0, "a poisoned engine ran cycles");
    QM_FUZZ_CHECK(engine_->Workloads().empty(), "a poisoned engine lists workloads");
    QM_FUZZ_CHECK(!engine_->CheckInvariants().ok(), "a poisoned engine checks its invariants");
    poisoned_ = true;
    return true;
  }

  // Arms a host fault: which function, how it misbehaves, after how many runs.
  void ArmFault() {
    const uint8_t b = in_.U8();
    faults_.Arm(static_cast<HostFaults::Where>(b % 3), static_cast<HostFaults::What>((b >> 2) % 3), (b >> 4) % 4);
  }

  // Runs `call` (a mutating call returning a Status) with the contract checks around it.
  template <class F>
  void Mutate(const std::string& what, F&& call) {
    const std::string before = SaveOrDie(*engine_, absl::StrCat("before ", what));
    const absl::Status status = call();
    if (Poisoned(what)) return;
    if (!status.ok()) {
      CheckRefusalChangedNothing(*engine_, before, status, what);
      return;
    }
    AfterCall(what, status);
  }

  void AfterCall(const std::string& what, const absl::Status&) {
    CheckInvariantsOrDie(*engine_, what);
    for (const Known& k : known_) {
      absl::StatusOr<WorkloadStatus> status = GetWorkload(k.handle);
      QM_FUZZ_CHECK(status.ok(), "workload ", k.namespace_, "/", k.name, " lost after ", what, ": ",
                    status.status().ToString());
      const bool holds = status->state == WorkloadState::kAdmitted ||
                         status->state == WorkloadState::kEvicting;
      QM_FUZZ_CHECK(holds == status->admission.has_value(), "workload ", k.namespace_, "/", k.name,
                    " in state ", WorkloadStateName(status->state),
                    status->admission ? " has" : " lacks", " an admission after ", what);
    }
  }

  // GetWorkload reads the clock first; an armed clock fault that fires there fails only that query
  // (FailedPrecondition, nothing changed, docs/engine.md), and the fault is spent: ask again.
  absl::StatusOr<WorkloadStatus> GetWorkload(WorkloadHandle handle) {
    const int fired = faults_.fired();
    absl::StatusOr<WorkloadStatus> status = engine_->GetWorkload(handle);
    if (status.ok() || faults_.fired() == fired) return status;
    QM_FUZZ_CHECK(status.status().code() == absl::StatusCode::kFailedPrecondition &&
                      status.status().message().find("the clock threw") != std::string_view::npos,
                  "GetWorkload with a clock that threw: ", status.status().ToString());
    return engine_->GetWorkload(handle);
  }

  // A workload the host knows, chosen by the next byte (nullptr when it knows none).
  Known* Pick() {
    const uint8_t b = in_.U8();
    if (known_.empty()) return nullptr;
    return &known_[b % known_.size()];
  }

  void Forget(const Known& k) {
    known_.erase(std::remove_if(known_.begin(), known_.end(),
                                [&](const Known& x) { return x.handle == k.handle; }),
                 known_.end());
  }

  WorkloadSpec NewWorkload() {
    WorkloadSpec w;
    w.namespace_ = NamespaceName(in_.U8() % cluster_.queues.size());
    w.name = absl::StrCat("w", in_.U8() % kNameSpace);
    w.queue_name = "lq";
    const uint8_t prio = in_.U8() % 4;
    if (prio > 0) {
      w.priority_class = {PriorityClassSource::kWorkloadPriorityClass,
                          prio == 1 ? "low" : prio == 2 ? "mid" : "high"};
    }
    PodSetSpec ps;
    ps.count = 1 + in_.U8() % 4;
    const uint8_t sizes = in_.U8();
    if (sizes & 0x80) ps.min_count = 1;
    ps.requests = {{kCpu, (sizes % 8) * 500}};
    if ((sizes >> 3) % 4 != 0) ps.requests.emplace_back(kGpu, (sizes >> 3) % 4);
    w.pod_sets.push_back(std::move(ps));
    return w;
  }

  void Submit() {
    WorkloadSpec w = NewWorkload();
    const std::string what = absl::StrCat("Submit ", w.namespace_, "/", w.name);
    const std::string before = SaveOrDie(*engine_, what);
    absl::StatusOr<WorkloadHandle> handle = engine_->Submit(w);
    if (Poisoned(what)) return;
    if (!handle.ok()) {
      CheckRefusalChangedNothing(*engine_, before, handle.status(), what);
      return;
    }
    known_.push_back({w.namespace_, w.name, *handle});
    AfterCall(what, absl::OkStatus());
  }

  // Submits (or applies) a spec the engine must refuse, e.g. a negative count.
  void InvalidCall() {
    WorkloadSpec w = NewWorkload();
    const uint8_t how = in_.U8();
    switch (how % 4) {
      case 0: w.pod_sets[0].count = -1; break;
      case 1: w.pod_sets[0].requests = {{kCpu, -5}}; break;
      case 2: w.name = "bad/name"; break;  // names must not contain '/'
      default: w.pod_sets.push_back(w.pod_sets[0]); break;  // two pod sets named "main"
    }
    const std::string before = SaveOrDie(*engine_, "before an invalid call");
    if (how & 0x10) {
      // A valid object first, the invalid workload last: the whole batch must be refused.
      std::vector<ObjectSpec> batch = {cluster_.queues[0], w};
      const absl::Status status = engine_->Apply(batch);
      QM_FUZZ_CHECK(!status.ok(), "Apply accepted an invalid workload (case ", how % 4, ")");
      CheckRefusalChangedNothing(*engine_, before, status, "Apply of an invalid batch");
    } else {
      absl::StatusOr<WorkloadHandle> handle = engine_->Submit(w);
      QM_FUZZ_CHECK(!handle.ok(), "Submit accepted an invalid workload (case ", how % 4, ")");
      CheckRefusalChangedNothing(*engine_, before, handle.status(), "Submit of an invalid workload");
    }
  }

  void UpdateQueue() {
    const int i = in_.U8() % cluster_.queues.size();
    ClusterQueueSpec updated = QueueFrom(in_, i, cluster_.flavors);
    Mutate(absl::StrCat("Apply quota update of ", updated.name), [&] {
      const absl::Status status = engine_->Apply(updated);
      if (status.ok()) cluster_.queues[i] = updated;
      return status;
    });
  }

  void UpdateCohort() {
    CohortSpec cohort{"pool", "", {}, kDefaultWeightMilli};
    if (in_.Bit()) cohort.resource_groups = QuotasFrom(in_, cluster_.flavors);
    Mutate("Apply cohort update", [&] { return engine_->Apply(cohort); });
  }

  void Delete() {
    const uint8_t what = in_.U8();
    const int i = in_.U8() % cluster_.queues.size();
    switch (what % 5) {
      case 0:
      case 1: {
        Known* k = Pick();
        if (k == nullptr) return;
        const Known victim = *k;
        Mutate("Delete workload " + victim.name, [&] {
          const absl::Status status = what % 5 == 0
              ? engine_->Delete(victim.handle)
              : engine_->Delete(ObjectRef{ObjectKind::kWorkload, victim.namespace_, victim.name});
          if (status.ok()) Forget(victim);
          return status;
        });
        return;
      }
      case 2:
        Mutate("Delete ClusterQueue", [&] {
          return engine_->Delete(ObjectRef{ObjectKind::kClusterQueue, "", QueueName(i)});
        });
        return;
      case 3:
        Mutate("Delete LocalQueue", [&] {
          return engine_->Delete(ObjectRef{ObjectKind::kLocalQueue, NamespaceName(i), "lq"});
        });
        return;
      default:
        Mutate("Delete ResourceFlavor", [&] {
          return engine_->Delete(ObjectRef{ObjectKind::kResourceFlavor, "", FlavorName(i % cluster_.flavors)});
        });
        return;
    }
  }

  void Recreate() {
    Mutate("re-Apply the cluster", [&] {
      const std::vector<ObjectSpec> objects = ClusterObjects(cluster_);
      return engine_->Apply(objects);
    });
  }

  // Updates a known workload through Apply (priority or requests changed; the engine may refuse
  // changes Kueue forbids).
  void UpdateWorkload() {
    Known* k = Pick();
    if (k == nullptr) return;
    WorkloadSpec w = NewWorkload();
    w.namespace_ = k->namespace_;
    w.name = k->name;
    Mutate("Apply workload update " + w.name, [&] { return engine_->Apply(w); });
  }

  void SaveRestore() {
    const std::string saved = SaveOrDie(*engine_, "save/restore");
    {
      // The private copy forecasts and what-if answers run on (library-internal, the one call here
      // outside the public API) must be the engine `Restore` would make.
      absl::StatusOr<Engine> copy = internal::CopyEngine(*engine_);
      QM_FUZZ_CHECK(copy.ok(), "CopyEngine failed: ", copy.status().ToString());
      QM_FUZZ_CHECK(SaveOrDie(*copy, "after copy") == saved, "the engine's private copy saves different bytes");
    }
    EngineConfig host;
#ifdef QM_FUZZ_HAVE_CHECK_INVARIANTS
    host.check_invariants = true;
#endif
    InstallHostFunctions(host);
    faults_.Attach(nullptr);  // the restored engine's clock must not call into the old engine
    absl::StatusOr<Engine> restored = Engine::Restore(saved, host);
    QM_FUZZ_CHECK(restored.ok(), "Restore of Save() failed: ", restored.status().ToString());
    QM_FUZZ_CHECK(SaveOrDie(*restored, "after restore") == saved,
                  "the restored engine saves different bytes");
    const size_t cut = saved.empty() ? 0 : in_.U16() % saved.size();
    QM_FUZZ_CHECK(!Engine::Restore(std::string_view(saved).substr(0, cut)).ok(),
                  "a snapshot truncated to ", cut, " of ", saved.size(), " bytes was accepted");
    engine_ = std::make_unique<Engine>(*std::move(restored));
    AttachEngine();
    AfterCall("save/restore", absl::OkStatus());
  }

  void Step() {
    const uint8_t op = in_.U8();
    switch (op % 20) {
      case 0:
      case 1:
      case 2:
        if (known_.size() < 64) Submit();
        return;
      case 3: {
        Known* k = Pick();
        if (k == nullptr) return;
        const bool by_name = in_.Bit();
        Mutate("Finish " + k->name, [&, k] {
          return by_name ? engine_->Finish(k->namespace_, k->name) : engine_->Finish(k->handle);
        });
        return;
      }
      case 4: {
        Known* k = Pick();
        if (k == nullptr) return;
        const uint8_t how = in_.U8();
        // Mostly valid reasons; sometimes one that is not a CamelCase word (must be refused).
        const char* reason = how % 4 == 0 ? "PodsReadyTimeout" : how % 4 == 1 ? "not a reason"
                                                                               : "NodeFailures";
        Mutate("Evict " + k->name, [&, k] {
          return (how & 0x10) ? engine_->Evict(k->namespace_, k->name, reason, "fuzz")
                              : engine_->Evict(k->handle, reason, "fuzz");
        });
        return;
      }
      case 5: {
        Known* k = Pick();
        if (k == nullptr) return;
        Mutate("Deactivate " + k->name, [&, k] { return engine_->Deactivate(k->handle); });
        return;
      }
      case 6: {
        Known* k = Pick();
        if (k == nullptr) return;
        Mutate("Activate " + k->name, [&, k] { return engine_->Activate(k->handle); });
        return;
      }
      case 7: {
        Known* k = Pick();
        if (k == nullptr) return;
        Mutate("ConfirmEvicted " + k->name, [&, k] { return engine_->ConfirmEvicted(k->handle); });
        return;
      }
      case 8:
        engine_->ConfirmAllEvicted();
        if (Poisoned("ConfirmAllEvicted")) return;
        AfterCall("ConfirmAllEvicted", absl::OkStatus());
        return;
      case 9: {
        Known* k = Pick();
        if (k == nullptr) return;
        if (in_.Bit()) {  // the host reports pods (not) ready; refused for a workload holding no quota
          const bool ready = in_.Bit();
          Mutate("SetPodsReady " + k->name, [&, k] { return engine_->SetPodsReady(k->handle, ready); });
          return;
        }
        const int32_t count = in_.U8() % 6;
        const std::string pod_set = in_.Bit() ? "main" : "other";
        Mutate("SetReclaimablePods " + k->name, [&, k] {
          return engine_->SetReclaimablePods(k->handle, pod_set, count);
        });
        return;
      }
      case 10:
      case 11:
        {
          const absl::Status cycle = engine_->ScheduleCycle().status;
          if (Poisoned("ScheduleCycle")) return;
          QM_FUZZ_CHECK(cycle.ok(), "ScheduleCycle: ", cycle.ToString());
        }
        AfterCall("ScheduleCycle", absl::OkStatus());
        return;
      case 12:
        engine_->RunUntilStable(kMaxCycles);
        if (Poisoned("RunUntilStable")) return;
        AfterCall("RunUntilStable", absl::OkStatus());
        return;
      case 13: {
        const uint16_t seconds = in_.U16();
        // Mostly forward; a step backwards (bit 15) must be handled too (refused or accepted).
        const Duration by = Duration::Seconds(seconds & 0x7fff);
        if (has_clock_) {  // the host's clock moves; SetNow must refuse to
          faults_.Advance((seconds & 0x8000) ? Duration{-by.us} : by);
          // SetNow is a setter, not a call with events: LastEvents stays the previous call's.
          const std::string before = SaveOrDie(*engine_, "before SetNow with a clock");
          const absl::Status st = engine_->SetNow(faults_.now());
          QM_FUZZ_CHECK(st.code() == absl::StatusCode::kFailedPrecondition, "SetNow with an injected clock: ", st.ToString());
          QM_FUZZ_CHECK(SaveOrDie(*engine_, "after SetNow with a clock") == before, "a refused SetNow changed the engine");
          return;
        }
        const Time to = (seconds & 0x8000) ? Time{engine_->Now().us - by.us} : engine_->Now() + by;
        Mutate("SetNow", [&] { return engine_->SetNow(to); });
        return;
      }
      case 14: UpdateQueue(); return;
      case 15: UpdateCohort(); return;
      case 16: Delete(); return;
      case 17: Recreate(); return;
      case 18:
        if (in_.Bit()) InvalidCall(); else UpdateWorkload();
        return;
      default:
        // op 179, 199, 219, 239 (older inputs saved and restored there too).
        if (op >= 160) ArmFault(); else SaveRestore();
        return;
    }
  }

  ByteReader in_;
  HostFaults faults_;
  bool has_clock_ = false;
  bool poisoned_ = false;
  Cluster cluster_;
  std::unique_ptr<Engine> engine_;
  std::vector<Known> known_;
};

}  // namespace

void EngineEventsTarget(std::span<const uint8_t> data) { EventFuzzer(data).Run(); }

}  // namespace qm::fuzz
