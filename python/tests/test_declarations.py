"""Every C function the library exports is declared (restype and argtypes) before use: ctypes'
defaults (int arguments, int result) truncate 64-bit handles and pointers without a word, as
qm_engine_submit's undeclared handle pointer once got away with by luck. Plus the API version 3
additions through the package: versioned structs, the preemptor handle, deactivate/activate,
reclaimable pods, flavor assignment, preemption targets, cohorts, whether a run settled."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import quartermaster as qm
from quartermaster import _lib


def _exported_functions() -> set[str]:
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm not found: cannot list the library's exported symbols")
    path = _lib.lib()._name
    out = subprocess.run([nm, "-D", "--defined-only", path], check=True, capture_output=True, text=True).stdout
    names = {line.split()[-1] for line in out.splitlines() if line.strip()}
    return {n for n in names if n.startswith("qm_")}


def test_every_exported_function_is_declared() -> None:
    exported = _exported_functions()
    assert exported, "no qm_ symbols found"
    declared = _lib.declared_functions()
    assert sorted(exported - declared) == [], "exported but not declared in quartermaster/_lib.py"
    assert sorted(declared - exported) == [], "declared but not exported by the library"
    for name in sorted(exported):
        fn = getattr(_lib.lib(), name)
        assert fn.argtypes is not None, f"{name}: argtypes not set"


def test_versioned_structs_carry_their_version() -> None:
    assert _lib.Workload().version == _lib.WORKLOAD_VERSION == 2
    assert _lib.CycleSummary().version == 2
    assert _lib.EngineOptions(1, 0, None, 0).fair_sharing == 1


CPU_CLUSTER = """
- {kind: Namespace, metadata: {name: a}}
- {kind: Namespace, metadata: {name: b}}
- {kind: ResourceFlavor, metadata: {name: f}}
- kind: ClusterQueue
  metadata: {name: cq-a}
  spec: {cohort: pool, namespaceSelector: {}, preemption: {reclaimWithinCohort: Any},
         resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}]}]}]}
- kind: ClusterQueue
  metadata: {name: cq-b}
  spec: {cohort: pool, namespaceSelector: {}, preemption: {reclaimWithinCohort: Any},
         resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}]}]}]}
- {kind: LocalQueue, metadata: {namespace: a, name: q}, spec: {clusterQueue: cq-a}}
- {kind: LocalQueue, metadata: {namespace: b, name: q}, spec: {clusterQueue: cq-b}}
"""


def _pods(count: int) -> list[dict]:
    return [{"count": count, "requests": {"cpu": 1000}}]


def test_preemptor_handle_deleted_name_and_settled() -> None:
    with qm.Engine() as engine:
        engine.apply(CPU_CLUSTER, "cluster.yaml")
        borrower = engine.submit("b", "borrower", "q", _pods(8))
        assert borrower == 0  # the first workload: 0 cannot mean "no preemptor"
        [admitted] = engine.run_until_stable().events
        assert admitted.preemptor_handle is None
        owner = engine.submit("a", "owner", "q", _pods(4))
        preempted = [e for e in engine.run_until_stable().events if e.kind == "Preempted"]
        assert [(e.workload, e.preemptor, e.preemptor_handle) for e in preempted] == [
            ("b/borrower", "a/owner", owner)]
        engine.delete("b/borrower")
        assert [(e.kind, e.workload) for e in engine.last_events()] == [("Deleted", "b/borrower")]

    with qm.Engine() as engine:
        engine.apply(CPU_CLUSTER, "cluster.yaml")
        for i in range(4):
            engine.submit("a", f"w{i}", "q", _pods(1))
        first = engine.run_until_stable(max_cycles=2)
        assert (first.cycles, first.admitted, first.settled) == (2, 2, False)
        rest = engine.run_until_stable()
        assert (rest.cycles, rest.admitted, rest.settled, rest.cycle) == (3, 2, True, 5)


def test_engine_functions_of_api_version_3() -> None:
    with qm.Engine() as engine:
        engine.apply(CPU_CLUSTER, "cluster.yaml")
        engine.submit("a", "idle", "q", _pods(1), active=False)
        assert engine.workload("a/idle")["state"] == "Inactive"
        engine.activate("a/idle")
        assert [e.kind for e in engine.last_events()] == ["Activated"]
        engine.deactivate("a/idle")
        assert [e.kind for e in engine.last_events()] == ["Deactivated"]

        w = engine.submit("a", "w", "q", _pods(2))
        assert engine.assign_flavors("a/w")["mode"] == "Fit"
        engine.run_until_stable()
        engine.set_reclaimable_pods(w, 1)
        assert [u["usage"] for u in engine.cluster_queue("cq-a")["usage"]] == [1000]
        with pytest.raises(qm.QuartermasterError):
            engine.set_reclaimable_pods("a/w", 5)

        engine.submit("b", "borrower", "q", _pods(7))
        engine.run_until_stable()
        engine.submit("a", "owner", "q", _pods(3))  # room only once the borrower goes
        targets = engine.preemption_targets("a/owner")
        assert [(t["victim"], t["reason"]) for t in targets] == [("b/borrower", "InCohortReclamation")]
        explicit = engine.preemption_targets("a/owner", flavors=[{"resource": "cpu", "flavor": "f"}])
        assert [t["victim"] for t in explicit] == ["b/borrower"]

        assert engine.cohorts() == ["pool"]
        assert engine.cohort("pool")["implicit"] is True
