"""Quartermaster: Kubernetes Kueue's admission, preemption and fair sharing as a deterministic
engine, from Python (over libquartermaster_c.so; docs/python.md).

    import quartermaster as qm
    engine = qm.Engine()
    engine.apply(open("cluster.yaml").read())
    engine.submit("team-a", "job-1", "jobs", [{"count": 2, "requests": {"nvidia.com/gpu": 8}}])
    for event in engine.schedule_cycle().events:
        print(event.kind, event.workload, event.pod_sets)
"""

from __future__ import annotations

from ._lib import lib as _c_library
from .engine import EVENT_KINDS, CycleResult, Engine, Event, PodSetAdmission
from .errors import QuartermasterError
from .simulate import has_simulator, simulate
from .sweep import grid_from_template, sweep
from .hyperpod import hyperpod_lint, hyperpod_render

__version__: str = _c_library().qm_version().decode("utf-8")

__all__ = [
    "EVENT_KINDS",
    "CycleResult",
    "Engine",
    "Event",
    "PodSetAdmission",
    "QuartermasterError",
    "__version__",
    "grid_from_template",
    "has_simulator",
    "hyperpod_lint",
    "hyperpod_render",
    "simulate",
    "sweep",
]
