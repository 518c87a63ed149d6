"""`sweep`: many independent simulations (a policy grid × traces), on a Dask cluster or locally.

    points = grid_from_template(CLUSTER_TEMPLATE, borrow_limit=range(0, 101, 10))
    table = sweep(points, {"monday": monday_csv, "burst": burst_csv}, client=Client("tcp://sched:8786"))

Every run is a separate `simulate` call; runs share nothing, so they spread over Dask workers
(processes, machines) with no coordination. Results come back in the order of the grid × traces,
whatever the order the workers finished in, so a sweep gives the same table on one machine or many.
"""

from __future__ import annotations

import itertools
import string
from typing import Any, Iterable, Iterator, Mapping, Optional, Union

from .simulate import simulate

Traces = Union[str, Mapping[str, str]]


def grid_from_template(template: str, **axes: Iterable[Any]) -> list[dict[str, Any]]:
    """The product of ``axes``, each combination substituted into ``template`` with
    `string.Template` (``$name`` / ``${name}``, so YAML's braces need no escaping).

    Each point is ``{"cluster": <text>, <axis>: <value>, ...}``, axes in the order given, values in
    their iteration order (the last axis varies fastest)."""
    names = list(axes)
    values = [list(axes[n]) for n in names]
    tmpl = string.Template(template)
    points = []
    for combo in itertools.product(*values):
        params = dict(zip(names, combo))
        point: dict[str, Any] = {"cluster": tmpl.substitute({k: str(v) for k, v in params.items()})}
        point.update(params)
        points.append(point)
    return points


def _tasks(grid: Iterable[Mapping[str, Any]], trace: Traces) -> Iterator[dict[str, Any]]:
    traces = {"": trace} if isinstance(trace, str) else dict(trace)
    for index, point in enumerate(grid):
        if "cluster" not in point:
            raise ValueError(f"grid point {index} has no 'cluster' (the cluster YAML text)")
        for name, csv in traces.items():
            task = dict(point)
            task["__trace__"] = csv
            task["__trace_name__"] = name
            task["__multi__"] = not isinstance(trace, str)
            yield task


# Keys of a grid point that configure the run rather than label it.
_RUN_KEYS = ("cluster", "faults", "buckets", "horizon_seconds")


def _run(task: Mapping[str, Any]) -> dict[str, Any]:
    """One simulation → one table row: the point's labels, the trace name, the summary's scalars.

    Module-level so Dask can pickle it by reference; workers import quartermaster themselves."""
    summary = simulate(
        task["cluster"],
        task["__trace__"],
        task.get("faults"),
        buckets=int(task.get("buckets", 0)),
        horizon_seconds=float(task.get("horizon_seconds", 0.0)),
    )
    row: dict[str, Any] = {k: v for k, v in task.items() if k not in _RUN_KEYS and not k.startswith("__")}
    if task["__multi__"]:
        row["trace"] = task["__trace_name__"]
    for key, value in summary.items():
        if isinstance(value, (bool, int, float, str)):
            if key in row:
                raise ValueError(f"grid parameter '{key}' has the name of a summary field; rename it")
            row[key] = value
    return row


def sweep(
    grid: Iterable[Mapping[str, Any]],
    trace: Traces,
    client: Optional[Any] = None,
    *,
    dataframe: Optional[bool] = None,
) -> Any:
    """Runs one simulation per (grid point, trace) and returns the results as one table.

    ``grid``: points, each a mapping with ``cluster`` (the cluster text) and optionally ``faults``,
    ``buckets`` and ``horizon_seconds``; every other key is a label copied into the point's rows
    (`grid_from_template` builds such points). ``trace``: one trace's CSV text, or a mapping
    name → CSV text for several (then each row has a ``trace`` column).

    ``client``: a `dask.distributed.Client` (a `LocalCluster` or a scheduler address across
    machines) to run the simulations on its workers; ``None`` runs them here, one after the other.
    The rows are the same either way, in grid order then trace order.

    Returns a list of dicts (labels, then the summary's scalar fields), or a pandas DataFrame when
    pandas is installed (``dataframe=None``) or asked for (``dataframe=True``)."""
    tasks = list(_tasks(grid, trace))
    if client is None:
        rows = [_run(t) for t in tasks]
    else:
        futures = client.map(_run, tasks, pure=False)
        rows = client.gather(futures)
    if dataframe is False:
        return rows
    try:
        import pandas  # type: ignore[import-not-found]
    except ImportError:
        if dataframe:
            raise
        return rows
    return pandas.DataFrame(rows)
