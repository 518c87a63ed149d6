"""`sweep`: many independent simulations (a policy grid × traces), on a Dask cluster or locally.

    points = grid_from_template(CLUSTER_TEMPLATE, borrow_limit=range(0, 101, 10))
    table = sweep(points, {"monday": monday_csv, "burst": burst_csv}, client=Client("tcp://sched:8786"))

Every run is a separate `simulate` call; runs share nothing, so they spread over Dask workers
(processes, machines) with no coordination. Results come back in the order of the grid × traces,
whatever the order the workers finished in, so a sweep gives the same table on one machine or many.
"""

from __future__ import annotations

import itertools
import os
import string
from typing import Any, Iterable, Iterator, Mapping, Optional, Union

from . import _lib
from .simulate import Text, _text, simulate

# One trace (its CSV text, or a path read once on the client) or several by name.
Traces = Union[Text, Mapping[str, Text]]


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


def _read_traces(trace: Traces) -> tuple[dict[str, str], bool]:
    """The traces by name ("" for a single one), read once here, and whether several were given."""
    if isinstance(trace, (str, os.PathLike)):
        return {"": _text(trace)}, False
    return {str(name): _text(value) for name, value in dict(trace).items()}, True


def _tasks(grid: Iterable[Mapping[str, Any]], trace_names: Iterable[str], multi: bool) -> Iterator[dict[str, Any]]:
    """One task per (point, trace): the point plus the trace's name, never the trace's text (that
    travels once per worker, scattered; see `sweep`)."""
    names = list(trace_names)
    for index, point in enumerate(grid):
        if "cluster" not in point:
            raise ValueError(f"grid point {index} has no 'cluster' (the cluster YAML text)")
        for name in names:
            task = dict(point)
            task["__trace_name__"] = name
            task["__multi__"] = multi
            yield task


# Keys of a grid point that configure the run rather than label it.
_RUN_KEYS = ("cluster", "faults", "buckets", "horizon_seconds")


def _labels(task: Mapping[str, Any]) -> dict[str, Any]:
    """The columns a row starts with: the point's labels and (several traces) the trace's name."""
    row: dict[str, Any] = {k: v for k, v in task.items() if k not in _RUN_KEYS and not k.startswith("__")}
    if task["__multi__"]:
        row["trace"] = task["__trace_name__"]
    return row


def _error_row(task: Mapping[str, Any], error: BaseException) -> dict[str, Any]:
    """The row of a run that failed: its labels and ``error`` ("<type>: <message>"), so that one
    bad point costs one row, not the sweep."""
    row = _labels(task)
    row["error"] = f"{type(error).__name__}: {error}"
    return row


def _run(task: Mapping[str, Any], trace_text: str) -> dict[str, Any]:
    """One simulation → one table row: the point's labels, the trace name, the summary's scalars.

    Module-level so Dask can pickle it by reference; workers import quartermaster themselves."""
    summary = simulate(
        task["cluster"],
        trace_text,
        task.get("faults"),
        buckets=int(task.get("buckets", 0)),
        horizon_seconds=float(task.get("horizon_seconds", 0.0)),
    )
    row = _labels(task)
    for key, value in summary.items():
        if isinstance(value, (bool, int, float, str)):
            if key in row:
                raise ValueError(f"grid parameter '{key}' has the name of a summary field; rename it")
            row[key] = value
    return row


def _versions() -> dict[str, Any]:
    """What must match between the client and every worker: the package's version and the C
    library's version and API version (a worker with another build would give other numbers)."""
    import quartermaster

    return {
        "package": quartermaster.__version__,
        "library": _lib.decode(_lib.lib().qm_version()),
        "api": int(_lib.lib().qm_api_version()),
        "path": getattr(_lib.lib(), "_name", ""),
    }


def _worker_versions() -> dict[str, Any]:
    """`_versions` on a worker, run by `client.run`; an import failure is reported, not raised, so
    the client can name the worker."""
    try:
        return _versions()
    except Exception as e:  # noqa: BLE001 - any failure to load is the answer
        return {"error": f"{type(e).__name__}: {e}"}


def _check_workers(client: Any) -> None:
    """Raises RuntimeError naming every worker whose quartermaster differs from the client's."""
    here = _versions()
    wanted = {k: here[k] for k in ("package", "library", "api")}
    bad = []
    for worker, theirs in sorted(client.run(_worker_versions).items()):
        if "error" in theirs:
            bad.append(f"{worker}: cannot load quartermaster ({theirs['error']})")
            continue
        got = {k: theirs.get(k) for k in wanted}
        if got != wanted:
            bad.append(f"{worker}: {got} from {theirs.get('path', '?')}")
    if bad:
        raise RuntimeError(
            f"Dask workers run another quartermaster than this client ({wanted} from {here['path']}): "
            + "; ".join(bad)
            + ". Install the same build on every worker (PYTHONPATH, QM_C_LIBRARY)."
        )


def sweep(
    grid: Iterable[Mapping[str, Any]],
    trace: Traces,
    client: Optional[Any] = None,
    *,
    dataframe: Optional[bool] = None,
) -> Any:
    """Runs one simulation per (grid point, trace) and returns the results as one table.

    ``grid``: points, each a mapping with ``cluster`` (the cluster text or a `pathlib.Path`) and
    optionally ``faults``, ``buckets`` and ``horizon_seconds``; every other key is a label copied
    into the point's rows (`grid_from_template` builds such points). ``trace``: one trace (CSV
    text or a `pathlib.Path`, read here once), or a mapping name → trace for several (then each row
    has a ``trace`` column).

    ``client``: a `dask.distributed.Client` (a `LocalCluster` or a scheduler address across
    machines) to run the simulations on its workers; ``None`` runs them here, one after the other.
    Each trace is scattered to the workers once, not sent with every task. The workers must run
    the same quartermaster and C library as this process (checked first: RuntimeError naming the
    workers that differ). The rows are the same either way, in grid order then trace order.

    A run that fails gives a row with the point's labels and ``error`` ("<type>: <message>") instead
    of the summary; the other runs are kept.

    Returns a list of dicts (labels, then the summary's scalar fields), or a pandas DataFrame when
    pandas is installed (``dataframe=None``) or asked for (``dataframe=True``)."""
    texts, multi = _read_traces(trace)
    tasks = list(_tasks(grid, texts, multi))
    rows: list[Optional[dict[str, Any]]] = [None] * len(tasks)
    if client is None:
        for i, task in enumerate(tasks):
            try:
                rows[i] = _run(task, texts[task["__trace_name__"]])
            except Exception as e:  # noqa: BLE001 - one row per failed run, as on Dask
                rows[i] = _error_row(task, e)
    else:
        from distributed import as_completed

        _check_workers(client)
        # One copy of each trace per worker that needs it (hash=False: identical texts under two
        # names still scatter separately, which is harmless), instead of one per task.
        scattered = {name: client.scatter(text, hash=False) for name, text in texts.items()}
        futures = [client.submit(_run, task, scattered[task["__trace_name__"]], pure=False) for task in tasks]
        index = {future.key: i for i, future in enumerate(futures)}
        for future in as_completed(futures):
            i = index[future.key]
            if future.status == "error":
                rows[i] = _error_row(tasks[i], future.exception())
            else:
                rows[i] = future.result()
            future.release()
    table = [row for row in rows if row is not None]
    if dataframe is False:
        return table
    try:
        import pandas  # type: ignore[import-not-found]
    except ImportError:
        if dataframe:
            raise
        return table
    return pandas.DataFrame(table)
