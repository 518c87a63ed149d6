"""`Engine`: the admission engine (qm::Engine) through the C API."""

from __future__ import annotations

import ctypes
import datetime
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _lib
from ._lib import check, decode, encode, lib, take_string

EVENT_KINDS = (
    "Admitted",
    "Preempted",
    "Evicted",
    "Requeued",
    "Finished",
    "Deactivated",
    "Activated",
    "Deleted",
    "PreemptionCycle",
)

_PREEMPTION_CYCLE = EVENT_KINDS.index("PreemptionCycle")  # QM_EVENT_PREEMPTION_CYCLE

# The document `configuration=` and `anti_thrash=` become (docs/c-api.md §Anti-thrash).
_CONFIGURATION_HEADER = {"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration"}


@dataclass(frozen=True)
class PodSetAdmission:
    """One pod set of an admission: how many pods, and the flavor of each resource."""

    index: int
    count: int
    flavors: dict[str, str]


@dataclass(frozen=True)
class Event:
    """Something the host must act on (docs/engine.md §Events)."""

    sequence: int
    kind: str  # one of EVENT_KINDS
    workload: str  # "namespace/name" (a deleted workload's too)
    handle: int  # packed 64-bit workload handle
    cluster_queue: str
    time_unix_micros: int
    reason: str = ""
    message: str = ""
    preemption_reason: str = ""
    preemptor: str = ""
    # "Preempted" and "PreemptionCycle": the preemptor's packed handle; None for other kinds (the
    # C API's QM_NO_WORKLOAD: 0 is a real handle, the engine's first workload's).
    preemptor_handle: Optional[int] = None
    pod_sets: tuple[PodSetAdmission, ...] = field(default_factory=tuple)
    # "PreemptionCycle" only: the ClusterQueues of the cycle, in preemption order (each preempted
    # in the next, the last in the first).
    cycle_queues: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class CycleResult:
    """What `schedule_cycle` or `run_until_stable` decided, with the events to act on.

    ``cycle`` is the number of the (last) cycle run and ``pending`` the heads it considered and did
    not admit; ``admitted`` and ``preempted`` are summed over the cycles run. ``settled`` is False
    when `run_until_stable` stopped at ``max_cycles`` while cycles still changed something."""

    cycle: int
    cycles: int
    admitted: int
    preempted: int
    pending: int
    events: tuple[Event, ...]
    settled: bool = True


Objects = Union[str, Sequence[Mapping[str, Any]], Mapping[str, Any]]
Workload = Union[str, int]


def _json_value(value: Any) -> Any:
    """`json.dumps` default: a `datetime.timedelta` becomes a Go duration in microseconds."""
    if isinstance(value, datetime.timedelta):
        return f"{value // datetime.timedelta(microseconds=1)}us"
    raise TypeError(f"{type(value).__name__} is not a configuration value")


def _configuration_text(
    configuration: Union[None, str, Mapping[str, Any]], anti_thrash: Optional[Mapping[str, Any]]
) -> Optional[str]:
    """The Kueue Configuration document that `configuration` and `anti_thrash` describe."""
    if isinstance(configuration, str):
        if anti_thrash is not None:
            raise ValueError("anti_thrash: put it in the configuration text, or pass configuration as a dict")
        return configuration
    if configuration is None and anti_thrash is None:
        return None
    doc: dict[str, Any] = dict(_CONFIGURATION_HEADER)
    doc.update(configuration or {})
    if anti_thrash is not None:
        if "antiThrash" in doc:
            raise ValueError("anti_thrash and configuration['antiThrash'] are both given; give one")
        doc["antiThrash"] = dict(anti_thrash)
    # One key a line, so the library's "<configuration>:LINE:" points somewhere useful.
    return json.dumps(doc, indent=1, default=_json_value)


class Engine:
    """A Kueue admission engine.

    Not thread-safe, like the C engine: the methods hold a lock, so sharing one Engine between
    Python threads is safe but serialized.

    >>> engine = Engine()
    >>> engine.apply(open("cluster.yaml").read())
    >>> engine.apply([{"kind": "Workload", "metadata": {...}, "spec": {...}}])
    >>> for event in engine.run_until_stable().events: print(event.kind, event.workload)
    """

    def __init__(
        self,
        *,
        fair_sharing: bool = False,
        legacy_messages: bool = False,
        feature_gates: Optional[Mapping[str, bool]] = None,
        start_time_unix_micros: int = 0,
        anti_thrash: Optional[Mapping[str, Any]] = None,
        configuration: Union[None, str, Mapping[str, Any]] = None,
        _handle: Optional[ctypes.c_void_p] = None,
    ) -> None:
        """Creates an engine (Kueue's defaults when called without arguments).

        ``anti_thrash``: Quartermaster's policies against preemption thrash, with the keys of the
        YAML block (docs/python.md §Anti-thrash), e.g. ``{"minRuntime": [{"duration": "2h",
        "reasons": ["InCohortFairSharing"]}], "cycleDetection": {"enable": True, "window": "1h"}}``;
        durations are Go duration strings or `datetime.timedelta`. ``configuration``: a Kueue
        ``Configuration`` document, as YAML/JSON text or a dict (``apiVersion`` and ``kind`` may be
        left out of a dict): ``fairSharing``, ``featureGates``, ``antiThrash``, ``waitForPodsReady``
        (Kueue's, docs/semantics.md 1.7.2, e.g. ``{"timeout": "5m", "requeuingStrategy":
        {"backoffLimitCount": 3}}``; pods are reported with `set_pods_ready`). An invalid field, gates
        given both in ``feature_gates`` and ``featureGates``, or ``fair_sharing=True`` with
        ``fairSharing.enable: false`` raise QuartermasterError INVALID_ARGUMENT naming the field."""
        self._lock = threading.RLock()
        if _handle is not None:
            self._handle: Optional[ctypes.c_void_p] = _handle
            return
        gates = None
        if feature_gates:
            gates = ",".join(f"{k}={'true' if v else 'false'}" for k, v in sorted(feature_gates.items()))
        options = _lib.EngineOptions(
            int(fair_sharing), int(legacy_messages), encode(gates, "feature_gates"), start_time_unix_micros
        )
        text = _configuration_text(configuration, anti_thrash)
        handle = ctypes.c_void_p()
        _lib.check_thread(
            lib().qm_engine_create_with_config(
                ctypes.byref(options), encode(text, "configuration"), None, ctypes.byref(handle)
            )
        )
        self._handle = handle

    # ---- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        """Frees the engine; further calls raise. Also done when the object is collected."""
        with self._lock:
            if self._handle is not None:
                lib().qm_engine_destroy(self._handle)
                self._handle = None

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _h(self) -> ctypes.c_void_p:
        if self._handle is None:
            raise ValueError("the engine is closed")
        return self._handle

    def _call(self, status: int) -> None:
        check(status, decode(lib().qm_engine_last_error(self._h())))

    # ---- clock -----------------------------------------------------------------------------

    @property
    def now_unix_micros(self) -> int:
        with self._lock:
            out = ctypes.c_int64()
            self._call(lib().qm_engine_now(self._h(), ctypes.byref(out)))
            return out.value

    def set_now(self, unix_micros: int) -> None:
        with self._lock:
            self._call(lib().qm_engine_set_now(self._h(), unix_micros))

    def reserve(self, workloads: int) -> None:
        """Makes room for `workloads` workloads in all (records, name index, admission records),
        taken from the system now, so that up to that many, submissions and admissions neither
        grow them nor fault in fresh pages. Changes no decision. QuartermasterError
        INVALID_ARGUMENT for a negative count or one above 2**32 - 2, RESOURCE_EXHAUSTED when
        that many would need more memory than the machine has."""
        with self._lock:
            self._call(lib().qm_engine_reserve(self._h(), workloads))

    def next_timed_change(self) -> Optional[int]:
        """When the next anti-thrash timer runs out (the end of a minimum runtime or of a borrow
        back-off), in microseconds since the epoch; None when nothing is pending. A host that
        moves time itself calls `set_now` to it and runs a cycle then."""
        with self._lock:
            at = ctypes.c_int64()
            has = ctypes.c_int()
            self._call(lib().qm_engine_next_timed_change(self._h(), ctypes.byref(at), ctypes.byref(has)))
            return at.value if has.value else None

    # ---- objects ---------------------------------------------------------------------------

    def apply(self, objects: Objects, source_name: str = "<python>") -> None:
        """Creates or updates Kueue objects, all or nothing.

        ``objects`` is manifest text (YAML or JSON), one object as a dict, or a list of dicts
        shaped as Kubernetes manifests. Workloads among them are submitted."""
        if isinstance(objects, str):
            text = objects
        elif isinstance(objects, Mapping):
            text = json.dumps([dict(objects)])
        else:
            text = json.dumps([dict(o) for o in objects])
        with self._lock:
            self._call(lib().qm_engine_apply_yaml(self._h(), encode(text, "objects"), encode(source_name)))

    def submit(
        self,
        namespace: str,
        name: str,
        queue: str,
        pod_sets: Iterable[Mapping[str, Any]],
        *,
        priority_class: Optional[str] = None,
        priority: Optional[int] = None,
        active: bool = True,
    ) -> int:
        """Submits a workload from plain values; returns its packed handle.

        ``pod_sets``: ``[{"name": "main", "count": 2, "requests": {"nvidia.com/gpu": 8}}]`` with
        amounts in base units (milli-CPU for cpu, bytes for memory) and optional ``min_count``.
        ``active=False`` submits it as Kueue's ``spec.active: false``: known, in no queue, until
        `activate`."""
        keep: list[Any] = []  # keeps the ctypes buffers alive during the call
        c_pod_sets = []
        for ps in pod_sets:
            requests = sorted(dict(ps.get("requests", {})).items())
            arr = (_lib.ResourceAmount * max(len(requests), 1))(
                *[_lib.ResourceAmount(encode(r, "resource"), int(a)) for r, a in requests]
            )
            keep.append(arr)
            c_pod_sets.append(
                _lib.PodSet(
                    encode(ps.get("name", "main"), "pod set name"),
                    int(ps.get("count", 1)),
                    int(ps.get("min_count", 0)),
                    arr,
                    len(requests),
                )
            )
        pod_arr = (_lib.PodSet * max(len(c_pod_sets), 1))(*c_pod_sets)
        workload = _lib.Workload(
            encode(namespace, "namespace"),
            encode(name, "name"),
            encode(queue, "queue"),
            encode(priority_class, "priority_class"),
            int(priority is not None),
            int(priority or 0),
            0,
            pod_arr,
            len(c_pod_sets),
            int(not active),
        )
        handle = ctypes.c_uint64()
        with self._lock:
            self._call(lib().qm_engine_submit(self._h(), ctypes.byref(workload), ctypes.byref(handle)))
        return handle.value

    # ---- workloads -------------------------------------------------------------------------

    def find(self, namespace: str, name: str) -> int:
        """The workload's packed handle (QuartermasterError NOT_FOUND when unknown)."""
        out = ctypes.c_uint64()
        with self._lock:
            self._call(
                lib().qm_engine_find_workload(self._h(), encode(namespace), encode(name), ctypes.byref(out))
            )
        return out.value

    def _by(self, workload: Workload, by_name: Any, by_handle: Any, *extra: Any) -> None:
        with self._lock:
            if isinstance(workload, int):
                self._call(by_handle(self._h(), workload, *extra))
            else:
                ns, _, name = workload.rpartition("/")
                self._call(by_name(self._h(), encode(ns or "default"), encode(name, "workload"), *extra))

    def finish(self, workload: Workload) -> None:
        """The workload ("namespace/name" or handle) completed."""
        self._by(workload, lib().qm_engine_finish, lib().qm_engine_finish_h)

    def evict(self, workload: Workload, reason: str, message: str = "") -> None:
        """The host evicts an admitted workload; confirm it with `confirm_evicted`."""
        self._by(workload, lib().qm_engine_evict, lib().qm_engine_evict_h, encode(reason), encode(message))

    def confirm_evicted(self, workload: Workload) -> None:
        self._by(workload, lib().qm_engine_confirm_evicted, lib().qm_engine_confirm_evicted_h)

    def confirm_all_evicted(self) -> int:
        out = ctypes.c_int()
        with self._lock:
            self._call(lib().qm_engine_confirm_all_evicted(self._h(), ctypes.byref(out)))
        return out.value

    def delete(self, workload: Workload) -> None:
        self._by(workload, lib().qm_engine_delete_workload, lib().qm_engine_delete_workload_h)

    def deactivate(self, workload: Workload) -> None:
        """Kueue's ``spec.active = false``: a pending workload leaves its queue ("Deactivated"); an
        admitted one is evicted (reason Deactivated) and inactive once confirmed."""
        self._by(workload, lib().qm_engine_deactivate, lib().qm_engine_deactivate_h)

    def activate(self, workload: Workload) -> None:
        """``spec.active = true``: an inactive workload goes back to its queue ("Activated")."""
        self._by(workload, lib().qm_engine_activate, lib().qm_engine_activate_h)

    def set_reclaimable_pods(self, workload: Workload, count: int, pod_set: str = "main") -> None:
        """Kueue's ``status.reclaimablePods``: ``count`` pods of ``pod_set`` finished. An admitted
        workload gives their quota back (the count then only grows); a pending one requests that
        many pods fewer (docs/semantics.md 1.7.1)."""
        self._by(
            workload,
            lib().qm_engine_set_reclaimable_pods,
            lib().qm_engine_set_reclaimable_pods_h,
            encode(pod_set, "pod_set"),
            int(count),
        )

    def set_pods_ready(self, workload: Workload, ready: bool = True) -> None:
        """Kueue's PodsReady condition of an admitted workload: its pods are all ready (or, with
        ``ready=False``, one stopped being ready). With ``waitForPodsReady`` in the configuration, a
        workload not ready in time is evicted (PodsReadyTimeout) and requeued after a back-off
        (docs/semantics.md 1.7.2)."""
        self._by(workload, lib().qm_engine_set_pods_ready, lib().qm_engine_set_pods_ready_h, 1 if ready else 0)

    # ---- scheduling ------------------------------------------------------------------------

    def schedule_cycle(self) -> CycleResult:
        """Runs one scheduling cycle."""
        with self._lock:
            summary = _lib.CycleSummary()
            self._call(lib().qm_engine_schedule_cycle(self._h(), ctypes.byref(summary)))
            return self._result(summary)

    def run_until_stable(self, max_cycles: int = 10000) -> CycleResult:
        """Runs cycles until one changes nothing, at most ``max_cycles``; the result holds the
        events of all of them, and ``settled`` False when it stopped at ``max_cycles``."""
        with self._lock:
            summary = _lib.CycleSummary()
            self._call(lib().qm_engine_run_until_settled(self._h(), max_cycles, ctypes.byref(summary)))
            return self._result(summary)

    def last_events(self) -> tuple[Event, ...]:
        """The events of the latest call that changed the engine."""
        with self._lock:
            return self._events()

    def _result(self, s: _lib.CycleSummary) -> CycleResult:
        return CycleResult(
            s.cycle, s.cycles, s.admitted, s.preempted, s.pending, self._events(), bool(s.settled)
        )

    def _events(self) -> tuple[Event, ...]:
        # An array of pointers to events (not of events): the library may grow the struct.
        arr = ctypes.POINTER(ctypes.POINTER(_lib.Event))()
        n = ctypes.c_size_t()
        self._call(lib().qm_engine_events(self._h(), ctypes.byref(arr), ctypes.byref(n)))
        out = []
        for i in range(n.value):
            e = arr[i].contents
            pod_sets = []
            for p in range(e.pod_set_count):
                ps = e.pod_sets[p].contents
                flavors = {}
                for f in range(ps.flavor_count):
                    choice = ps.flavors[f].contents
                    flavors[decode(choice.resource)] = decode(choice.flavor)
                pod_sets.append(PodSetAdmission(ps.index, ps.count, flavors))
            cycle_queues: tuple[str, ...] = ()
            if e.kind == _PREEMPTION_CYCLE:
                names = ctypes.POINTER(ctypes.c_char_p)()
                count = ctypes.c_size_t()
                self._call(
                    lib().qm_engine_event_cycle_queues(self._h(), i, ctypes.byref(names), ctypes.byref(count))
                )
                cycle_queues = tuple(decode(names[q]) for q in range(count.value))
            out.append(
                Event(
                    sequence=e.sequence,
                    kind=EVENT_KINDS[e.kind] if 0 <= e.kind < len(EVENT_KINDS) else str(e.kind),
                    workload=decode(e.workload_name),
                    handle=e.workload,
                    cluster_queue=decode(e.cluster_queue),
                    time_unix_micros=e.time_unix_micros,
                    reason=decode(e.reason),
                    message=decode(e.message),
                    preemption_reason=decode(e.preemption_reason),
                    preemptor=decode(e.preemptor_name),
                    preemptor_handle=None if e.preemptor == _lib.NO_WORKLOAD else e.preemptor,
                    pod_sets=tuple(pod_sets),
                    cycle_queues=cycle_queues,
                )
            )
        return tuple(out)

    # ---- queries ---------------------------------------------------------------------------

    def _json(self, fn: Any, *args: Any) -> Any:
        out = ctypes.c_void_p()
        with self._lock:
            self._call(fn(self._h(), *args, ctypes.byref(out)))
            return json.loads(take_string(out))

    def workload(self, workload: str) -> dict[str, Any]:
        """Status of "namespace/name": state, priority, clusterQueue, reason, message, admission,
        and ``preemptions`` (what preemption did to it and what it did to others: ``preempted``,
        ``byReason``, ``caused``, ``heldLostMicros``, ``recent``, ``borrowAllowedAtUnixMicros``)."""
        ns, _, name = workload.rpartition("/")
        return self._json(lib().qm_engine_workload_json, encode(ns or "default"), encode(name))

    def cluster_queue(self, name: str) -> dict[str, Any]:
        """A ClusterQueue's usage per (flavor, resource) and its pending/admitted workloads."""
        return self._json(lib().qm_engine_cluster_queue_json, encode(name))

    def local_queue(self, local_queue: str) -> dict[str, Any]:
        """Kueue's status of the LocalQueue "namespace/name" (or "name" in "default"): active,
        reason, message, pendingWorkloads, reservingWorkloads, admittedWorkloads, and
        flavorsReservation / flavorsUsage, amounts in base units (docs/c-api.md)."""
        ns, _, name = local_queue.rpartition("/")
        return self._json(lib().qm_engine_local_queue_json, encode(ns or "default"), encode(name))

    def local_queues(self) -> list[str]:
        """Every LocalQueue as "namespace/name", sorted."""
        return list(self._json(lib().qm_engine_list_json)["localQueues"])

    def workloads(self) -> list[str]:
        """Every workload, sorted by namespace then name."""
        return list(self._json(lib().qm_engine_list_json)["workloads"])

    def cluster_queues(self) -> list[str]:
        return list(self._json(lib().qm_engine_list_json)["clusterQueues"])

    def cohorts(self) -> list[str]:
        """Every cohort name (explicit and implicit), sorted."""
        return list(self._json(lib().qm_engine_list_json)["cohorts"])

    def cohort(self, name: str) -> dict[str, Any]:
        """A cohort: name, parent, implicit, weightedShare."""
        return self._json(lib().qm_engine_cohort_json, encode(name))

    def assign_flavors(self, workload: str, cluster_queue: Optional[str] = None) -> dict[str, Any]:
        """The flavors the next cycle would give a pending workload (in its own ClusterQueue, or
        ``cluster_queue``): mode, borrowing, message, podSets, and every flavor examined."""
        ns, _, name = workload.rpartition("/")
        return self._json(
            lib().qm_engine_assign_flavors_json, encode(ns or "default"), encode(name), encode(cluster_queue)
        )

    def preemption_targets(
        self,
        workload: str,
        cluster_queue: Optional[str] = None,
        flavors: Optional[Iterable[Mapping[str, Any]]] = None,
    ) -> list[dict[str, Any]]:
        """The workloads the next cycle would preempt to admit a pending workload: victim, handle,
        clusterQueue, reason, message. ``flavors``: ``[{"resource": "cpu", "flavor": "f",
        "pod_set": "main", "mode": "Preempt"|"Fit"}]``; None = the flavors it would be given."""
        ns, _, name = workload.rpartition("/")
        wanted = [
            _lib.RequestedFlavor(
                encode(f.get("pod_set", "main"), "pod_set"),
                encode(f["resource"], "resource"),
                encode(f["flavor"], "flavor"),
                {"Preempt": 1, "Fit": 2}[f.get("mode", "Preempt")],
            )
            for f in (flavors or ())
        ]
        arr = (_lib.RequestedFlavor * max(len(wanted), 1))(*wanted)
        query = _lib.PreemptionQuery(encode(cluster_queue), arr, len(wanted))
        return self._json(
            lib().qm_engine_preemption_targets_json,
            encode(ns or "default"),
            encode(name),
            ctypes.byref(query),
        )

    def explain(self, workload: str) -> dict[str, Any]:
        """Why a workload is where it is (what `qm explain -o json` prints)."""
        ns, _, name = workload.rpartition("/")
        return self._json(lib().qm_engine_explain_json, encode(ns or "default"), encode(name))

    def forecast(
        self,
        runtime: Union[None, str, datetime.timedelta, Sequence[Union[str, datetime.timedelta]]] = None,
        *,
        workloads: Optional[Sequence[str]] = None,
        queue_runtimes: Optional[Mapping[str, Any]] = None,
        workload_runtimes: Optional[Mapping[str, Any]] = None,
        runs: Optional[int] = None,
        seed: Optional[int] = None,
        horizon: Union[None, str, datetime.timedelta] = None,
        arrivals: Optional[Sequence[Mapping[str, Any]]] = None,
    ) -> dict[str, Any]:
        """When each pending workload (or each of ``workloads``, "namespace/name") is expected to be
        admitted: what `qm forecast -o json` prints (docs/forecast.md; not Kueue). ``runtime`` is the
        default estimate; an estimate is a Go duration, a ``timedelta``, or a list of them (a
        distribution). ``queue_runtimes`` maps ClusterQueue names, ``workload_runtimes``
        "namespace/name" (for a running workload: the time it has left). ``arrivals`` are new
        workloads during the forecast: ``{"perHour": 2, "runtime": "1h", "workload": <a Kueue
        Workload dict>}`` (docs/forecast.md, "Options as text"). The engine is unchanged."""
        options: dict[str, Any] = {}
        if runtime is not None:
            options["defaultRuntime"] = runtime
        if workloads is not None:
            options["workloads"] = list(workloads)
        if queue_runtimes:
            options["queueRuntimes"] = dict(queue_runtimes)
        if workload_runtimes:
            options["workloadRuntimes"] = dict(workload_runtimes)
        if runs is not None:
            options["runs"] = runs
        if seed is not None:
            options["seed"] = seed
        if horizon is not None:
            options["horizon"] = horizon
        if arrivals:
            options["arrivals"] = list(arrivals)
        text = json.dumps(options, default=_json_value)
        return self._json(lib().qm_engine_forecast_json, encode(text))

    def what_if(self, workload: str) -> dict[str, Any]:
        """The smallest checked changes that would admit a pending "namespace/name" now: more quota
        for its ClusterQueue, or a higher priority (docs/forecast.md §What-if; not Kueue).
        ``{"admittedAsIs": bool, "answers": [{"kind", "text", ...}]}``; the engine is unchanged."""
        ns, _, name = workload.rpartition("/")
        return self._json(lib().qm_engine_what_if_json, encode(ns or "default"), encode(name))

    # ---- snapshots -------------------------------------------------------------------------

    def save(self) -> bytes:
        """The engine's whole state (docs/snapshot-format.md)."""
        data = ctypes.c_void_p()
        size = ctypes.c_size_t()
        with self._lock:
            self._call(lib().qm_engine_save(self._h(), ctypes.byref(data), ctypes.byref(size)))
        try:
            return ctypes.string_at(data.value, size.value)
        finally:
            lib().qm_free(data)

    @classmethod
    def restore(cls, snapshot: bytes) -> "Engine":
        """A new engine from `save()`'s bytes."""
        handle = ctypes.c_void_p()
        _lib.check_thread(lib().qm_engine_restore(bytes(snapshot), len(snapshot), ctypes.byref(handle)))
        return cls(_handle=handle)
