"""quartermaster.simulate and sweep (sequential) on a tiny cluster and trace."""

from __future__ import annotations

import pytest

import quartermaster as qm

pytestmark = pytest.mark.skipif(
    not qm.has_simulator(), reason="libquartermaster_c was built without the simulator (lib/sim has no Simulate yet)"
)

TRACE = """submit,namespace,queue,pod_sets,duration
0,team-a,jobs,2x{nvidia.com/gpu=8},1h
0,team-b,jobs,3x{nvidia.com/gpu=8},2h
600,team-a,jobs,1x{nvidia.com/gpu=8},30m
"""


def test_simulate_returns_the_json_summary(cluster: str) -> None:
    result = qm.simulate(cluster, TRACE)
    assert result["jobs"] == 3
    assert result == qm.simulate(cluster, TRACE)  # deterministic


def test_simulate_reports_bad_traces(cluster: str) -> None:
    with pytest.raises(qm.QuartermasterError) as err:
        qm.simulate(cluster, "submit,namespace,queue,pod_sets,duration\n0,team-a,jobs,2x{nvidia.com/gpu=8},-3s\n")
    assert err.value.status == "INVALID_ARGUMENT" and "duration" in err.value.message


def test_sequential_sweep_labels_rows(cluster: str) -> None:
    template = cluster.replace("nominalQuota: 16}]\n- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: ClusterQueue\n  metadata: {name: team-b}",
                               "nominalQuota: $quota}]\n- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: ClusterQueue\n  metadata: {name: team-b}", 1)
    assert "$quota" in template
    points = qm.grid_from_template(template, quota=[8, 16])
    rows = qm.sweep(points, {"t1": TRACE}, dataframe=False)
    assert [(r["quota"], r["trace"], r["jobs"]) for r in rows] == [(8, "t1", 3), (16, "t1", 3)]


def test_sweep_returns_a_dataframe_with_the_same_rows(cluster: str) -> None:
    pandas = pytest.importorskip("pandas", reason="pandas is not installed (python3-pandas)")
    template = cluster.replace("nominalQuota: 16}]\n- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: ClusterQueue\n  metadata: {name: team-b}",
                               "nominalQuota: $quota}]\n- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: ClusterQueue\n  metadata: {name: team-b}", 1)
    points = qm.grid_from_template(template, quota=[8, 16])
    rows = qm.sweep(points, {"t1": TRACE}, dataframe=False)
    frame = qm.sweep(points, {"t1": TRACE}, dataframe=True)
    assert isinstance(frame, pandas.DataFrame)
    assert frame.to_dict("records") == rows
