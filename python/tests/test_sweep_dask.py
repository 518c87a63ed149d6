"""quartermaster.sweep on a Dask LocalCluster with 2 worker processes equals the sequential run."""

from __future__ import annotations

import pytest

import quartermaster as qm
from test_simulate import TRACE

distributed = pytest.importorskip("distributed", reason="python3-distributed is not installed")

pytestmark = pytest.mark.skipif(
    not qm.has_simulator(), reason="libquartermaster_c was built without the simulator (lib/sim has no Simulate yet)"
)


def test_dask_sweep_equals_sequential(cluster: str) -> None:
    template = cluster.replace("resources: [{name: nvidia.com/gpu, nominalQuota: 16}]",
                               "resources: [{name: nvidia.com/gpu, nominalQuota: $quota}]")
    points = qm.grid_from_template(template, quota=[8, 16, 24])
    traces = {"base": TRACE, "late": TRACE.replace("600,", "1800,")}
    sequential = qm.sweep(points, traces, dataframe=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster_, distributed.Client(cluster_) as client:
        parallel = qm.sweep(points, traces, client=client, dataframe=False)
    assert len(parallel) == 6
    assert parallel == sequential
    # The quota reached each simulation: it changes the outcome (makespan 5,400 s, 10,800 s, 7,200 s).
    assert [r["makespan_s"] for r in parallel if r["trace"] == "base"] == [5400, 10800, 7200]
