// Host functions that misbehave, for the engine event fuzzer: an event callback, a submission gate
// and a clock that, when armed by the input, throw (a std::exception or not) or call back into the
// engine. The engine must never go on in an undefined state (docs/engine.md, "Exceptions and
// re-entrancy"): every mutating call a host function makes is refused with FailedPrecondition and
// changes nothing, and a throw either fails only its call (rolled back) or poisons the engine.
#ifndef QM_FUZZ_TARGETS_HOST_FAULTS_H_
#define QM_FUZZ_TARGETS_HOST_FAULTS_H_

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "fuzz/targets/fuzz_check.h"
#include "qm/adapter/engine.h"

namespace qm::fuzz {

class HostFaults {
 public:
  enum class Where : uint8_t { kCallback, kGate, kClock };
  enum class What : uint8_t { kThrowStd, kThrowOther, kReenter };

  /// Arms one fault: `where` misbehaves as `what` on its `after`-th next run (0 = the next).
  void Arm(Where where, What what, int after) {
    armed_ = true;
    where_ = where;
    what_ = what;
    countdown_ = after;
  }
  /// How many faults fired (a poisoned engine without one is a bug).
  int fired() const { return fired_; }
  /// The engine host functions call back into; null while none may be (e.g. mid-restore, when the
  /// clock belongs to an engine that is not the fuzzer's yet).
  void Attach(Engine* engine) { engine_ = engine; }

  // The host functions, to install on the engine.
  void Callback(std::span<const Event>) { MaybeFire(Where::kCallback); }
  absl::Status Gate(std::string_view, const WorkloadSpec&) {
    MaybeFire(Where::kGate);
    return absl::OkStatus();
  }
  Time Clock() {
    MaybeFire(Where::kClock);
    return now_;
  }
  Time now() const { return now_; }
  void Advance(Duration by) { now_ = now_ + by; }

 private:
  void MaybeFire(Where where) {
    if (!armed_ || where != where_) return;
    if (countdown_-- > 0) return;
    armed_ = false;
    ++fired_;
    switch (what_) {
      case What::kThrowStd: throw std::runtime_error("fuzz: host function threw");
      case What::kThrowOther: throw 17;
      case What::kReenter: Reenter(); return;
    }
  }

  // Every mutating call must be refused from inside a host function, and the const queries work.
  void Reenter() {
    if (engine_ == nullptr) return;
    Engine& e = *engine_;
    WorkloadSpec w;
    w.namespace_ = "ns0";
    w.name = "w0";
    w.queue_name = "lq";
    w.pod_sets.emplace_back();
    ExpectRefused(e.Submit(w).status(), "Submit");
    ExpectRefused(e.Finish("ns0", "w0"), "Finish");
    ExpectRefused(e.Apply(ObjectSpec(w)), "Apply");
    ExpectRefused(e.Delete(ObjectRef{ObjectKind::kWorkload, "ns0", "w0"}), "Delete");
    ExpectRefused(e.ScheduleCycle().status, "ScheduleCycle");
    QM_FUZZ_CHECK(e.RunUntilStable(2) == 0, "RunUntilStable ran cycles from inside a host function");
    QM_FUZZ_CHECK(e.ConfirmAllEvicted() == 0, "ConfirmAllEvicted ran from inside a host function");
    ExpectRefused(e.SetEventCallback(nullptr), "SetEventCallback");
    ExpectRefused(e.SetSubmissionGate(nullptr), "SetSubmissionGate");
    ExpectRefused(e.SetNow(Time()), "SetNow");
    (void)e.Workloads();
    (void)e.ClusterQueues();
    // Queries that read the clock: allowed from the callback and the gate, refused from the clock
    // (they would call it inside itself).
    const absl::StatusOr<WorkloadStatus> got = e.GetWorkload("ns0", "w0");
    const absl::StatusOr<WorkloadExplanation> explained = e.Explain("ns0", "w0");
    if (where_ == Where::kClock && e.config().clock) {
      QM_FUZZ_CHECK(!got.ok() && !explained.ok(), "a query that reads the clock ran inside the clock");
    }
  }
  static void ExpectRefused(const absl::Status& st, const char* call) {
    QM_FUZZ_CHECK(st.code() == absl::StatusCode::kFailedPrecondition, call,
                  " from inside a host function was not refused: ", st.ToString());
  }

  Engine* engine_ = nullptr;
  Time now_;
  bool armed_ = false;
  Where where_ = Where::kCallback;
  What what_ = What::kThrowStd;
  int countdown_ = 0;
  int fired_ = 0;
};

}  // namespace qm::fuzz

#endif  // QM_FUZZ_TARGETS_HOST_FAULTS_H_
