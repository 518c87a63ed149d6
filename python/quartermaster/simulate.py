"""`simulate`: the trace-driven cluster simulator (`qm simulate`, docs/simulate.md)."""

from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Optional, Union

from . import _lib
from ._lib import encode, lib, take_string

Text = Union[str, "os.PathLike[str]"]


def _text(value: Text) -> str:
    """A str is the content itself; a path (pathlib.Path, os.PathLike) is read."""
    if isinstance(value, str):
        return value
    with open(os.fspath(value), encoding="utf-8") as f:
        return f.read()


def has_simulator() -> bool:
    """Whether the loaded C library was built with the simulator."""
    return bool(lib().qm_has_simulator())


def simulate(
    cluster: Text,
    trace: Text,
    faults: Optional[Text] = None,
    *,
    buckets: int = 0,
    horizon_seconds: float = 0.0,
) -> dict[str, Any]:
    """Simulates the jobs of ``trace`` (CSV, docs/trace-format.md) on ``cluster`` (Kueue objects
    and/or HyperPod policies plus nodes, YAML or JSON), with the node failures of ``faults``.

    Each input is the text itself (str) or a path (pathlib.Path). Returns the JSON summary of
    `qm simulate --output json` as a dict. Deterministic: the same inputs give the same dict."""
    options = _lib.SimulateOptions(int(buckets), float(horizon_seconds))
    out = ctypes.c_void_p()
    _lib.check_thread(
        lib().qm_simulate(
            encode(_text(cluster), "cluster"),
            encode(_text(trace), "trace"),
            encode(_text(faults), "faults") if faults is not None else None,
            ctypes.byref(options),
            ctypes.byref(out),
        )
    )
    result: dict[str, Any] = json.loads(take_string(out))
    return result
