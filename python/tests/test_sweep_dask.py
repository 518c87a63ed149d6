"""quartermaster.sweep on a Dask LocalCluster with 2 worker processes equals the sequential run."""

from __future__ import annotations

import sys

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


class _CountingClient:
    """A Client that records what the sweep sends: scatters, and the arguments of each task."""

    def __init__(self, client: "distributed.Client") -> None:
        self._client = client
        self.scattered: list[str] = []
        self.task_args: list[tuple] = []

    def __getattr__(self, name: str):
        return getattr(self._client, name)

    def scatter(self, data, **kwargs):
        self.scattered.append(data)
        return self._client.scatter(data, **kwargs)

    def submit(self, fn, *args, **kwargs):
        self.task_args.append(args)
        return self._client.submit(fn, *args, **kwargs)


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster_, distributed.Client(cluster_) as client_:
        yield client_


def test_traces_are_scattered_once_and_paths_accepted(cluster: str, client, tmp_path) -> None:
    trace_file = tmp_path / "base.csv"
    trace_file.write_text(TRACE)
    points = qm.grid_from_template(
        cluster.replace("resources: [{name: nvidia.com/gpu, nominalQuota: 16}]",
                        "resources: [{name: nvidia.com/gpu, nominalQuota: $quota}]"), quota=[8, 16, 24])
    counting = _CountingClient(client)
    rows = qm.sweep(points, trace_file, client=counting, dataframe=False)
    # One scatter for the one trace; no task carries the trace's text.
    assert counting.scattered == [TRACE]
    assert len(counting.task_args) == 3
    assert all(TRACE not in repr(args[0]) for args in counting.task_args)
    assert [r["makespan_s"] for r in rows] == [5400, 10800, 7200]
    assert rows == qm.sweep(points, trace_file, dataframe=False)


def test_a_failed_run_gives_an_error_row_and_keeps_the_others(cluster: str, client) -> None:
    points = [{"cluster": cluster, "name": "good"}, {"cluster": "kind: Nonsense\n: [", "name": "bad"},
              {"cluster": cluster, "name": "good-too"}]
    rows = qm.sweep(points, TRACE, client=client, dataframe=False)
    assert [r["name"] for r in rows] == ["good", "bad", "good-too"]
    assert "error" not in rows[0] and "error" not in rows[2]
    assert rows[1]["error"].startswith("QuartermasterError")
    assert rows == qm.sweep(points, TRACE, dataframe=False)  # the same rows run here


def test_workers_with_another_version_are_refused(cluster: str, client, monkeypatch) -> None:
    sweep_module = sys.modules["quartermaster.sweep"]  # `quartermaster.sweep` is the function

    real = sweep_module._versions

    def client_side() -> dict:
        mine = real()
        mine["library"] = mine["library"] + "-other"
        return mine

    # Only this process changes: the workers are separate processes and keep the real version.
    monkeypatch.setattr(sweep_module, "_versions", client_side)
    with pytest.raises(RuntimeError, match="Dask workers run another quartermaster"):
        qm.sweep([{"cluster": cluster}], TRACE, client=client, dataframe=False)
