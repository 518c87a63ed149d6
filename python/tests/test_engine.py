"""quartermaster.Engine over the C API: apply (text and dicts), submit, cycles and events,
queries, explain, snapshots, errors."""

from __future__ import annotations

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
