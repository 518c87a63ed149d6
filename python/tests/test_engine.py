"""quartermaster.Engine over the C API: apply (text and dicts), submit, cycles and events,
queries, explain, snapshots, errors, and the anti-thrash policies (minimum runtime and its timer,
preemption counts, cycle events, configuration errors)."""

from __future__ import annotations

import datetime
import os

import pytest

import quartermaster as qm
from conftest import workload


def test_version_is_the_librarys() -> None:
    assert qm.__version__.count(".") == 2


def test_reclaim_through_events(cluster: str) -> None:
    with qm.Engine() as engine:
        engine.apply(cluster, "cluster.yaml")
        handle = engine.submit("team-b", "b-1", "jobs", [{"count": 3, "requests": {"nvidia.com/gpu": 8}}])
        assert engine.find("team-b/b-1".split("/")[0], "b-1") == handle

        first = engine.schedule_cycle()
        assert (first.cycle, first.admitted, first.preempted) == (1, 1, 0)
        [admitted] = first.events
        assert isinstance(admitted, qm.Event)
        assert (admitted.kind, admitted.workload, admitted.handle, admitted.cluster_queue) == (
            "Admitted", "team-b/b-1", handle, "team-b")
        assert admitted.pod_sets == (qm.PodSetAdmission(0, 3, {"nvidia.com/gpu": "gpu"}),)

        engine.apply([workload("team-a", "a-1", 2, 8)])
        result = engine.run_until_stable()
        preempted = [e for e in result.events if e.kind == "Preempted"]
        assert [(e.workload, e.preemptor, e.preemption_reason) for e in preempted] == [
            ("team-b/b-1", "team-a/a-1", "InCohortReclamation")]
        assert result.preempted == 1

        engine.confirm_evicted(handle)
        assert [e.kind for e in engine.last_events()] == ["Requeued"]
        after = engine.run_until_stable()
        assert [(e.kind, e.workload) for e in after.events] == [("Admitted", "team-a/a-1")]

        cq = engine.cluster_queue("team-a")
        assert cq["admitted"] == ["team-a/a-1"]
        assert [(u["flavor"], u["resource"], u["usage"]) for u in cq["usage"]] == [("gpu", "nvidia.com/gpu", 16)]
        status = engine.workload("team-b/b-1")
        assert status["state"] == "Pending" and status["preemptionReason"] == "InCohortReclamation"
        assert engine.workloads() == ["team-a/a-1", "team-b/b-1"]
        assert engine.cluster_queues() == ["team-a", "team-b"]
        assert engine.local_queues() == ["team-a/jobs", "team-b/jobs"]
        lq = engine.local_queue("team-b/jobs")
        assert (lq["active"], lq["reason"], lq["pendingWorkloads"], lq["reservingWorkloads"]) == (True, "Ready", 1, 0)
        assert engine.local_queue("team-a/jobs")["flavorsUsage"] == [
            {"name": "gpu", "resources": [{"name": "nvidia.com/gpu", "total": 16}]}]
        with pytest.raises(qm.QuartermasterError) as missing:
            engine.local_queue("team-a/missing")
        assert missing.value.status == "NOT_FOUND"
        explanation = engine.explain("team-b/b-1")
        assert isinstance(explanation, dict) and explanation


def test_save_restore_gives_the_same_decisions(cluster: str) -> None:
    engine = qm.Engine()
    engine.apply(cluster)
    engine.apply([workload("team-b", "b-1", 3, 8), workload("team-a", "a-1", 1, 8)])
    engine.run_until_stable()
    copy = qm.Engine.restore(engine.save())
    for e in (engine, copy):
        e.apply([workload("team-a", "a-2", 1, 8)])
    ours = [(e.kind, e.workload, e.reason) for e in engine.run_until_stable().events]
    theirs = [(e.kind, e.workload, e.reason) for e in copy.run_until_stable().events]
    assert ours == theirs and ours
    engine.close()
    copy.close()


def test_reserve_changes_no_decision_and_refuses_bad_counts(cluster: str) -> None:
    plain, reserved = qm.Engine(), qm.Engine()
    reserved.reserve(10_000)
    for e in (plain, reserved):
        e.apply(cluster)
        e.apply([workload("team-b", "b-1", 3, 8), workload("team-a", "a-1", 1, 8)])
        e.run_until_stable()
    assert plain.save() == reserved.save()
    with pytest.raises(qm.QuartermasterError) as negative:
        reserved.reserve(-5)
    assert negative.value.status == "INVALID_ARGUMENT" and "workloads is -5" in negative.value.message
    with pytest.raises(qm.QuartermasterError) as huge:
        reserved.reserve(2**32 - 2)
    assert huge.value.status == "RESOURCE_EXHAUSTED"
    plain.close()
    reserved.close()


def test_evict_finish_delete(cluster: str) -> None:
    engine = qm.Engine()
    engine.apply(cluster)
    h = engine.submit("team-a", "j", "jobs", [{"count": 1, "requests": {"nvidia.com/gpu": 4}}])
    engine.run_until_stable()
    engine.evict("team-a/j", "NodeFailures", "node n-1 failed")
    [evicted] = engine.last_events()
    assert (evicted.kind, evicted.reason, evicted.message) == ("Evicted", "NodeFailures", "node n-1 failed")
    assert engine.confirm_all_evicted() == 1
    engine.run_until_stable()
    engine.finish(h)
    assert engine.workload("team-a/j")["state"] == "Finished"
    engine.delete(h)
    with pytest.raises(qm.QuartermasterError) as stale:
        engine.finish(h)
    assert stale.value.status == "NOT_FOUND"


def test_bad_input_names_file_line_object_field_and_changes_nothing(cluster: str) -> None:
    engine = qm.Engine()
    engine.apply(cluster)
    before = engine.cluster_queues()
    bad = cluster.replace("nominalQuota: 16}]\n- {apiVersion", "nominalQuota: 12x}]\n- {apiVersion", 1)
    with pytest.raises(qm.QuartermasterError) as err:
        engine.apply(bad + "- {kind: ResourceFlavor, metadata: {name: extra}}\n", "bad.yaml")
    assert err.value.status == "INVALID_ARGUMENT"
    assert "bad.yaml:" in err.value.message and "nominalQuota" in err.value.message
    assert "ClusterQueue" in err.value.message
    assert engine.cluster_queues() == before
    with pytest.raises(qm.QuartermasterError) as missing:
        engine.workload("team-a/nope")
    assert missing.value.status == "NOT_FOUND"


def test_strings_that_are_not_utf8_are_rejected() -> None:
    engine = qm.Engine()
    with pytest.raises(qm.QuartermasterError, match="UTF-8"):
        engine.apply("kind: ResourceFlavor\nmetadata: {name: \udcff}\n")
    with pytest.raises(qm.QuartermasterError, match="NUL"):
        engine.apply("kind: ResourceFlavor\0")


def test_configuration_errors_and_closed_engines() -> None:
    with pytest.raises(qm.QuartermasterError, match="NoSuchGate"):
        qm.Engine(feature_gates={"NoSuchGate": True})
    engine = qm.Engine(fair_sharing=True, start_time_unix_micros=1_000_000)
    assert engine.now_unix_micros == 1_000_000
    engine.close()
    engine.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        engine.workloads()
    with pytest.raises(qm.QuartermasterError):
        qm.Engine.restore(b"not a snapshot")


def test_hyperpod_render_and_lint() -> None:
    path = os.path.join(os.environ["QM_TEST_DATA"], "hyperpod", "data", "cli-seed-quota.json")
    with open(path, encoding="utf-8") as f:
        quota = f.read()
    rendered = qm.hyperpod_render({"quota.json": quota})
    assert "kind: ClusterQueue" in rendered and "cohort: shared-pool" in rendered
    assert '"kind": "List"' in qm.hyperpod_render(quota, json=True)
    report, code = qm.hyperpod_lint({"quota.json": quota})
    assert code == 0 and "0 errors" in report
    bad = quota.replace('"BorrowLimit": 50', '"BorrowLimit": 20000')
    report, code = qm.hyperpod_lint({"bad.json": bad})
    assert code == 1 and "BorrowLimit" in report
    with pytest.raises(qm.QuartermasterError, match="bad.json"):
        qm.hyperpod_render({"bad.json": bad})


# ---- anti-thrash ------------------------------------------------------------------------------

T0 = 1_704_067_200_000_000  # 2024-01-01T00:00:00Z, microseconds
MINUTE = 60_000_000

SOLO = """
- {kind: Namespace, metadata: {name: default}}
- {kind: ResourceFlavor, metadata: {name: default}}
- kind: ClusterQueue
  metadata: {name: solo}
  spec:
    namespaceSelector: {}
    preemption: {withinClusterQueue: LowerPriority}
    resourceGroups:
    - coveredResources: [cpu]
      flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]
- {kind: LocalQueue, metadata: {namespace: default, name: main}, spec: {clusterQueue: solo}}
"""

COHORT = """
- {kind: Namespace, metadata: {name: default}}
- {kind: ResourceFlavor, metadata: {name: default}}
""" + "".join(
    f"""- kind: ClusterQueue
  metadata: {{name: {q}}}
  spec:
    cohortName: c
    namespaceSelector: {{}}
    preemption: {{reclaimWithinCohort: Any}}
    resourceGroups:
    - coveredResources: [cpu]
      flavors: [{{name: default, resources: [{{name: cpu, nominalQuota: 4}}]}}]
- {{kind: LocalQueue, metadata: {{namespace: default, name: {q}}}, spec: {{clusterQueue: {q}}}}}
"""
    for q in ("a", "b")
)


def cpu_workload(name: str, queue: str, cpus: int, priority: int = 0) -> dict:
    return {
        "kind": "Workload",
        "metadata": {"namespace": "default", "name": name},
        "spec": {"queueName": queue, "priority": priority, "podSets": [{"count": 1, "requests": {"cpu": str(cpus)}}]},
    }


def kinds(result: qm.CycleResult) -> list[tuple[str, str]]:
    return [(e.kind, e.workload) for e in result.events]


def test_min_runtime_holds_a_preemption_until_its_timer() -> None:
    # Setup: `low` runs from T0 with a 1 h minimum runtime against InClusterQueue preemption;
    # `high` arrives at T0 + 10 min. Expect: no preemption until T0 + 1 h, which the timer names.
    engine = qm.Engine(
        anti_thrash={"minRuntime": [{"duration": datetime.timedelta(hours=1), "reasons": ["InClusterQueue"]}]},
        start_time_unix_micros=T0,
    )
    engine.apply(SOLO)
    assert engine.next_timed_change() is None
    engine.apply([cpu_workload("low", "main", 4, priority=10)])
    assert kinds(engine.run_until_stable()) == [("Admitted", "default/low")]
    assert engine.next_timed_change() == T0 + 60 * MINUTE

    engine.set_now(T0 + 10 * MINUTE)
    engine.apply([cpu_workload("high", "main", 4, priority=100)])
    assert engine.run_until_stable().preempted == 0
    engine.set_now(T0 + 59 * MINUTE)
    assert engine.run_until_stable().preempted == 0

    engine.set_now(engine.next_timed_change())
    [preempted] = engine.run_until_stable().events
    assert (preempted.kind, preempted.workload, preempted.preemptor, preempted.preemption_reason) == (
        "Preempted", "default/low", "default/high", "InClusterQueue")
    engine.confirm_all_evicted()
    assert kinds(engine.run_until_stable()) == [("Admitted", "default/high")]
    assert engine.next_timed_change() == T0 + 120 * MINUTE  # `high` is protected in turn
    assert engine.workload("default/low")["preemptions"]["heldLostMicros"] == 60 * MINUTE

    # Without the policies nothing is ever timed.
    plain = qm.Engine()
    plain.apply(SOLO)
    plain.apply([cpu_workload("low", "main", 4)])
    plain.run_until_stable()
    assert plain.next_timed_change() is None


def test_a_workload_preempted_twice_counts_both_and_lists_its_preemptors(cluster: str) -> None:
    # Setup: team-b's b-1 borrows; team-a reclaims at +10 min (a-1) and, b-1 running again from
    # +20 min, at +50 min (a-2). No policy needed: every engine keeps the history.
    engine = qm.Engine(start_time_unix_micros=T0)
    engine.apply(cluster)
    engine.apply([workload("team-b", "b-1", 3, 8)])
    engine.run_until_stable()
    engine.set_now(T0 + 10 * MINUTE)
    engine.apply([workload("team-a", "a-1", 2, 8)])
    assert engine.run_until_stable().preempted == 1
    engine.confirm_evicted("team-b/b-1")
    engine.run_until_stable()
    engine.set_now(T0 + 20 * MINUTE)
    engine.finish("team-a/a-1")
    assert kinds(engine.run_until_stable()) == [("Admitted", "team-b/b-1")]
    engine.set_now(T0 + 50 * MINUTE)
    engine.apply([workload("team-a", "a-2", 2, 8)])
    assert engine.run_until_stable().preempted == 1

    summary = engine.workload("team-b/b-1")["preemptions"]
    assert summary == {
        "preempted": 2,
        "byReason": {"InClusterQueue": 0, "InCohortReclamation": 2, "InCohortFairSharing": 0,
                     "InCohortReclaimWhileBorrowing": 0},
        "caused": 0,
        "heldLostMicros": 40 * MINUTE,
        "recent": [
            {"timeUnixMicros": T0 + 10 * MINUTE, "preemptor": "team-a/a-1", "preemptorClusterQueue": "team-a",
             "reason": "InCohortReclamation"},
            {"timeUnixMicros": T0 + 50 * MINUTE, "preemptor": "team-a/a-2", "preemptorClusterQueue": "team-a",
             "reason": "InCohortReclamation"},
        ],
        "borrowAllowedAtUnixMicros": None,
    }
    assert engine.workload("team-a/a-1")["preemptions"]["caused"] == 1
    explained = engine.explain("team-b/b-1")["preemptions"]
    assert (explained["preempted"], explained["heldLost"]) == (2, "40m0s")
    assert [(r["at"], r["by"]) for r in explained["recent"]] == [
        ("2024-01-01T00:10:00Z", "team-a/a-1"), ("2024-01-01T00:50:00Z", "team-a/a-2")]


def test_cycle_detection_reports_queues_and_workloads_that_preempt_each_other() -> None:
    # Setup: queues a and b of cohort c reclaim from each other (b1 borrows, a1 reclaims; later
    # a2 borrows, b2 reclaims). Expect: the second reclaim closes the ring a -> b -> a.
    engine = qm.Engine(configuration={"antiThrash": {"cycleDetection": {"enable": True, "window": "1h"}}},
                       start_time_unix_micros=T0)
    engine.apply(COHORT)
    engine.apply([cpu_workload("b1", "b", 6)])
    engine.run_until_stable()
    engine.set_now(T0 + 10 * MINUTE)
    engine.apply([cpu_workload("a1", "a", 4)])
    assert kinds(engine.run_until_stable()) == [("Preempted", "default/b1")]
    engine.confirm_all_evicted()
    engine.finish("default/a1")
    engine.delete("default/b1")
    engine.apply([cpu_workload("a2", "a", 6)])
    engine.run_until_stable()
    engine.set_now(T0 + 30 * MINUTE)
    engine.apply([cpu_workload("b2", "b", 4)])
    preempted, cycle = engine.run_until_stable().events
    assert (preempted.kind, preempted.workload) == ("Preempted", "default/a2")
    assert cycle == qm.Event(
        sequence=preempted.sequence + 1, kind="PreemptionCycle", workload="default/a2", handle=preempted.handle,
        cluster_queue="a", time_unix_micros=T0 + 30 * MINUTE, reason="ClusterQueuePreemptionCycle",
        message="ClusterQueues preempted each other in a ring within 3600s: a -> b -> a",
        preemption_reason="InCohortReclamation", preemptor="default/b2",
        preemptor_handle=preempted.preemptor_handle, cycle_queues=("a", "b"))

    # Two workloads of one queue: w1 preempted by w2, then (raised above it) preempting w2 back.
    engine.apply(SOLO)
    engine.apply([cpu_workload("w1", "main", 4, priority=10)])
    engine.run_until_stable()
    engine.apply([cpu_workload("w2", "main", 4, priority=20)])
    assert kinds(engine.run_until_stable()) == [("Preempted", "default/w1")]
    engine.confirm_all_evicted()
    engine.run_until_stable()
    engine.apply([cpu_workload("w1", "main", 4, priority=30)])
    events = engine.run_until_stable().events
    assert [(e.kind, e.workload, e.reason, e.preemptor, e.cycle_queues) for e in events] == [
        ("Preempted", "default/w2", "Preempted", "default/w1", ()),
        ("PreemptionCycle", "default/w2", "WorkloadPreemptionCycle", "default/w1", ("solo", "solo")),
    ]
    assert "PreemptionCycle" in qm.EVENT_KINDS


def test_historical_share_remembers_what_a_queue_borrowed() -> None:
    # Setup: cohort c of queues a and b (4 cpu each), historical share with a 1 h half-life. b
    # borrows 4 cpu of a's for one hour, then finishes. Expect: b's share is its history, 2 cpu of
    # the 8 it could borrow from c (250), and half of that an hour later; with the mode off, 0.
    config = {"fairSharing": {"enable": True, "historicalShare": {"halfLife": "1h"}}}
    shares = []
    for configuration in (config, {"fairSharing": {"enable": True}}):
        engine = qm.Engine(configuration=configuration, start_time_unix_micros=T0)
        engine.apply(COHORT)
        engine.apply([cpu_workload("b1", "b", 8)])
        engine.run_until_stable()
        engine.set_now(T0 + 60 * MINUTE)
        engine.finish("default/b1")
        shares.append(engine.cluster_queue("b")["weightedShare"])
        engine.set_now(T0 + 120 * MINUTE)
        shares.append(engine.cluster_queue("b")["weightedShare"])
    assert shares == [250, 125, 0, 0]
    with pytest.raises(qm.QuartermasterError, match="fairSharing.historicalShare: needs fair sharing"):
        qm.Engine(configuration={"fairSharing": {"historicalShare": {}}})


def test_invalid_anti_thrash_configuration_names_the_field() -> None:
    with pytest.raises(qm.QuartermasterError) as zero:
        qm.Engine(anti_thrash={"minRuntime": [{"duration": "0s"}]})
    assert zero.value.status == "INVALID_ARGUMENT"
    assert "antiThrash.minRuntime[0].duration: must be more than 0" in zero.value.message
    with pytest.raises(qm.QuartermasterError, match=r"antiThrash.minRuntime\[0\].reasons\[0\]: \"Sometimes\""):
        qm.Engine(anti_thrash={"minRuntime": [{"duration": "1h", "reasons": ["Sometimes"]}]})
    with pytest.raises(qm.QuartermasterError, match="antiThrash.cycleDetectoin: unknown field"):
        qm.Engine(anti_thrash={"cycleDetectoin": {"enable": True}})
    text = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nantiThrash:\n  borrowBackoff: {base: 1h, max: 10m}\n"
    with pytest.raises(qm.QuartermasterError, match=r"<configuration>:4: Configuration: antiThrash.borrowBackoff.max"):
        qm.Engine(configuration=text)
    with pytest.raises(qm.QuartermasterError, match="featureGates"):
        qm.Engine(feature_gates={"PartialAdmission": True}, configuration={"featureGates": {"PartialAdmission": True}})
    with pytest.raises(qm.QuartermasterError, match="only a Kueue Configuration document"):
        qm.Engine(configuration=SOLO)
    with pytest.raises(ValueError):
        qm.Engine(anti_thrash={}, configuration=text)
    # A valid configuration of every policy.
    qm.Engine(fair_sharing=True, anti_thrash={
        "minRuntime": [{"duration": "2h", "reasons": ["InCohortFairSharing"], "priorityClasses": ["training"],
                        "clusterQueues": ["team-a"]}],
        "loopFreeFairSharing": True,
        "borrowBackoff": {"base": "10m", "max": "4h"},
        "cycleDetection": {"enable": True, "window": datetime.timedelta(minutes=90)},
    }).close()


def test_wait_for_pods_ready_evicts_a_workload_whose_pods_are_late() -> None:
    # Setup: waitForPodsReady with a 5 min timeout and a 60 s base back-off; `slow` never reports
    # ready, `fast` does. Expect: at T0 + 5 min only `slow` is evicted, with Kueue's reason and
    # message, and is requeued once its back-off ends (T0 + 6 min).
    engine = qm.Engine(
        configuration={"waitForPodsReady": {"timeout": "5m", "requeuingStrategy": {"backoffBaseSeconds": 60}}},
        start_time_unix_micros=T0,
    )
    engine.apply(SOLO)
    engine.apply([cpu_workload("slow", "main", 1), cpu_workload("fast", "main", 1)])
    engine.run_until_stable()
    engine.set_pods_ready("default/fast")
    assert engine.next_timed_change() == T0 + 5 * MINUTE
    engine.set_now(T0 + 5 * MINUTE)
    [evicted] = engine.schedule_cycle().events
    assert (evicted.kind, evicted.workload, evicted.reason) == ("Evicted", "default/slow", "PodsReadyTimeout")
    assert evicted.message == "Exceeded the PodsReady timeout default/slow"
    engine.confirm_all_evicted()
    assert engine.workload("default/slow")["requeueState"] == {"count": 1, "requeueAtUnixMicros": T0 + 6 * MINUTE}
    assert engine.workload("default/fast")["podsReady"] is True
    assert "requeueState" not in engine.workload("default/fast")
    assert engine.next_timed_change() == T0 + 6 * MINUTE
    engine.set_now(T0 + 6 * MINUTE)
    assert kinds(engine.run_until_stable()) == [("Admitted", "default/slow")]
    with pytest.raises(qm.QuartermasterError):
        engine.set_pods_ready("default/nope")
    with pytest.raises(qm.QuartermasterError):
        qm.Engine(configuration={"waitForPodsReady": {"requeuingStrategy": {"backoffLimitCount": -1}}})


def test_forecast_says_when_a_pending_workload_starts_and_what_it_waits_for(cluster: str) -> None:
    with qm.Engine() as engine:
        engine.apply(cluster, "cluster.yaml")
        engine.submit("team-b", "b-1", "jobs", [{"count": 3, "requests": {"nvidia.com/gpu": 8}}])
        engine.run_until_stable()
        engine.apply([workload("team-a", "a-1", 2, 8)])  # reclaims: b-1 is preempted
        engine.run_until_stable()
        engine.confirm_all_evicted()
        engine.run_until_stable()
        before = engine.save()

        two = engine.forecast("2h")
        [row] = two["workloads"]
        assert (row["workload"], row["startsIn"], row["positionInClusterQueue"]) == ("team-b/b-1", "2h0m0s", 1)
        assert [(w["workload"], w["kind"]) for w in row["waitsFor"]] == [("team-a/a-1", "finishes")]
        assert two["runs"] == 1

        # a-1 has 30 minutes left (its own estimate); b-1's runtime does not matter to when it starts.
        soon = engine.forecast(datetime.timedelta(hours=3), workload_runtimes={"team-a/a-1": "30m"})
        assert soon["workloads"][0]["startsIn"] == "30m0s"

        spread = engine.forecast(["1h", "2h", "4h"], runs=50, seed=3, workloads=["team-b/b-1"])
        [row] = spread["workloads"]
        assert spread["runs"] == 51 and row["p10"] <= row["p50"] <= row["p90"]
        assert row["admittedPercent"] == 100

        # High-priority arrivals for team-a, one an hour for 8 h each, keep b-1 out past the horizon.
        urgent = {"metadata": {"name": "urgent", "namespace": "team-a"},
                  "spec": {"queueName": "jobs", "priority": 1000,
                           "podSets": [{"name": "main", "count": 3, "requests": {"nvidia.com/gpu": "8"}}]}}
        crowded = engine.forecast("2h", arrivals=[{"perHour": 1, "runtime": "8h", "workload": urgent}],
                                  runs=5, horizon="24h", workloads=["team-b/b-1"])
        assert crowded["runs"] == 6 and crowded["workloads"][0]["admission"] is None

        what_if = engine.what_if("team-b/b-1")
        assert what_if["admittedAsIs"] is False
        assert [a["kind"] for a in what_if["answers"]][0] == "quota"
        assert what_if["answers"][0]["clusterQueue"] == "team-b"

        with pytest.raises(qm.QuartermasterError) as bad:
            engine.forecast("2x")
        assert bad.value.status == "INVALID_ARGUMENT" and "defaultRuntime" in str(bad.value)
        assert engine.save() == before  # a forecast changes nothing
