"""Loading libquartermaster_c.so with ctypes and declaring its functions.

The library is looked for, in order: the path in the environment variable ``QM_C_LIBRARY``; a
``libquartermaster_c.so*`` next to this package; the library of the build tree that made this copy
of the package (``_build_info.LIBRARY_PATH``); the system's (``ctypes.util.find_library``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from typing import Any, Optional

from .errors import QuartermasterError

API_VERSION = 7  # the QM_C_API_VERSION these declarations follow

c_char_p = ctypes.c_char_p
c_int = ctypes.c_int
c_int32 = ctypes.c_int32
c_int64 = ctypes.c_int64
c_uint32 = ctypes.c_uint32
c_uint64 = ctypes.c_uint64
c_size_t = ctypes.c_size_t
c_double = ctypes.c_double


# Struct layouts of API version 3 (include/qm/c/quartermaster.h). A struct the caller fills starts
# with `version`, set here to the layout these declarations follow (docs/c-api.md §ABI rules).
NO_WORKLOAD = 2**64 - 1  # QM_NO_WORKLOAD: the preemptor of an event without one

ENGINE_OPTIONS_VERSION = 1
RESOURCE_FLAVOR_VERSION = 1
CLUSTER_QUEUE_VERSION = 1
LOCAL_QUEUE_VERSION = 1
PRIORITY_CLASS_VERSION = 1
WORKLOAD_VERSION = 2
CYCLE_SUMMARY_VERSION = 2
PREEMPTION_QUERY_VERSION = 1
SIMULATE_OPTIONS_VERSION = 1


class _Versioned(ctypes.Structure):
    """A struct whose first member is `version`, filled in from the class's `VERSION`."""

    VERSION = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(self.VERSION, *args, **kwargs)


class EngineOptions(_Versioned):
    VERSION = ENGINE_OPTIONS_VERSION
    _fields_ = [
        ("version", ctypes.c_uint),
        ("fair_sharing", c_int),
        ("legacy_messages", c_int),
        ("feature_gates", c_char_p),
        ("start_time_unix_micros", c_int64),
    ]


class ResourceFlavor(_Versioned):
    VERSION = RESOURCE_FLAVOR_VERSION
    _fields_ = [("version", ctypes.c_uint), ("name", c_char_p)]


class ResourceQuota(ctypes.Structure):
    _fields_ = [
        ("resource", c_char_p),
        ("nominal_quota", c_int64),
        ("has_borrowing_limit", c_int),
        ("borrowing_limit", c_int64),
        ("has_lending_limit", c_int),
        ("lending_limit", c_int64),
    ]


class FlavorQuotas(ctypes.Structure):
    _fields_ = [
        ("flavor", c_char_p),
        ("resources", ctypes.POINTER(ResourceQuota)),
        ("resource_count", c_size_t),
    ]


class ClusterQueue(_Versioned):
    VERSION = CLUSTER_QUEUE_VERSION
    _fields_ = [
        ("version", ctypes.c_uint),
        ("name", c_char_p),
        ("cohort", c_char_p),
        ("covered_resources", ctypes.POINTER(c_char_p)),
        ("covered_resource_count", c_size_t),
        ("flavors", ctypes.POINTER(FlavorQuotas)),
        ("flavor_count", c_size_t),
        ("within_cluster_queue", c_int),
        ("reclaim_within_cohort", c_int),
        ("fair_sharing_weight_milli", c_int64),
    ]


class LocalQueue(_Versioned):
    VERSION = LOCAL_QUEUE_VERSION
    _fields_ = [
        ("version", ctypes.c_uint),
        ("namespace_name", c_char_p),
        ("name", c_char_p),
        ("cluster_queue", c_char_p),
    ]


class PriorityClass(_Versioned):
    VERSION = PRIORITY_CLASS_VERSION
    _fields_ = [("version", ctypes.c_uint), ("name", c_char_p), ("value", c_int32)]


class ResourceAmount(ctypes.Structure):
    _fields_ = [("resource", c_char_p), ("amount", c_int64)]


class PodSet(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("count", c_int32),
        ("min_count", c_int32),
        ("requests", ctypes.POINTER(ResourceAmount)),
        ("request_count", c_size_t),
    ]


class Workload(_Versioned):
    VERSION = WORKLOAD_VERSION
    _fields_ = [
        ("version", ctypes.c_uint),
        ("namespace_name", c_char_p),
        ("name", c_char_p),
        ("queue_name", c_char_p),
        ("priority_class", c_char_p),
        ("has_priority", c_int),
        ("priority", c_int32),
        ("creation_time_unix_micros", c_int64),
        ("pod_sets", ctypes.POINTER(PodSet)),
        ("pod_set_count", c_size_t),
        ("inactive", c_int),
    ]


class FlavorChoice(ctypes.Structure):
    _fields_ = [("resource", c_char_p), ("flavor", c_char_p)]


class AdmittedPodSet(ctypes.Structure):
    _fields_ = [
        ("index", c_uint32),
        ("count", c_int32),
        ("flavors", ctypes.POINTER(ctypes.POINTER(FlavorChoice))),
        ("flavor_count", c_size_t),
    ]


class Event(ctypes.Structure):
    # Read through the pointers `qm_engine_events` hands out; only the fields of this API version.
    _fields_ = [
        ("sequence", c_uint64),
        ("kind", c_int),
        ("workload", c_uint64),
        ("workload_name", c_char_p),
        ("cluster_queue", c_char_p),
        ("time_unix_micros", c_int64),
        ("reason", c_char_p),
        ("preemption_reason", c_char_p),
        ("preemptor", c_uint64),
        ("preemptor_name", c_char_p),
        ("message", c_char_p),
        ("pod_sets", ctypes.POINTER(ctypes.POINTER(AdmittedPodSet))),
        ("pod_set_count", c_size_t),
    ]


class CycleSummary(_Versioned):
    VERSION = CYCLE_SUMMARY_VERSION
    _fields_ = [
        ("version", ctypes.c_uint),
        ("cycle", c_uint64),
        ("cycles", c_int64),
        ("admitted", c_int64),
        ("preempted", c_int64),
        ("pending", c_int64),
        ("settled", c_int),
    ]


class RequestedFlavor(ctypes.Structure):
    _fields_ = [("pod_set", c_char_p), ("resource", c_char_p), ("flavor", c_char_p), ("mode", c_int)]


class PreemptionQuery(_Versioned):
    VERSION = PREEMPTION_QUERY_VERSION
    _fields_ = [
        ("version", ctypes.c_uint),
        ("cluster_queue", c_char_p),
        ("flavors", ctypes.POINTER(RequestedFlavor)),
        ("flavor_count", c_size_t),
    ]


class Document(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("text", c_char_p)]


class SimulateOptions(_Versioned):
    VERSION = SIMULATE_OPTIONS_VERSION
    _fields_ = [("version", ctypes.c_uint), ("buckets", c_int), ("horizon_seconds", c_double)]


P = ctypes.POINTER
_engine_p = ctypes.c_void_p
_out_str = P(ctypes.c_void_p)  # char**: kept as void* so the memory can be passed to qm_free

# name -> (restype, argtypes): every function the library exports (test_declarations.py checks
# this against `nm -D`). ctypes' defaults (int arguments and result) silently truncate 64-bit
# handles and pointers, so nothing may be called undeclared.
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "qm_version": (c_char_p, []),
    "qm_api_version": (c_int, []),
    "qm_debug_checks": (c_int, []),
    "qm_has_simulator": (c_int, []),
    "qm_status_name": (c_char_p, [c_int]),
    "qm_last_error": (c_char_p, []),
    "qm_free": (None, [ctypes.c_void_p]),
    "qm_engine_create": (c_int, [P(EngineOptions), P(_engine_p)]),
    "qm_engine_create_with_config": (c_int, [P(EngineOptions), c_char_p, c_char_p, P(_engine_p)]),
    "qm_engine_destroy": (None, [_engine_p]),
    "qm_engine_last_error": (c_char_p, [_engine_p]),
    "qm_engine_now": (c_int, [_engine_p, P(c_int64)]),
    "qm_engine_set_now": (c_int, [_engine_p, c_int64]),
    "qm_engine_reserve": (c_int, [_engine_p, c_int64]),
    "qm_engine_next_timed_change": (c_int, [_engine_p, P(c_int64), P(c_int)]),
    "qm_engine_apply_yaml": (c_int, [_engine_p, c_char_p, c_char_p]),
    "qm_engine_apply_flavor": (c_int, [_engine_p, P(ResourceFlavor)]),
    "qm_engine_apply_cluster_queue": (c_int, [_engine_p, P(ClusterQueue)]),
    "qm_engine_apply_local_queue": (c_int, [_engine_p, P(LocalQueue)]),
    "qm_engine_apply_priority_class": (c_int, [_engine_p, P(PriorityClass)]),
    "qm_engine_submit": (c_int, [_engine_p, P(Workload), P(c_uint64)]),
    "qm_engine_find_workload": (c_int, [_engine_p, c_char_p, c_char_p, P(c_uint64)]),
    "qm_engine_finish": (c_int, [_engine_p, c_char_p, c_char_p]),
    "qm_engine_finish_h": (c_int, [_engine_p, c_uint64]),
    "qm_engine_evict": (c_int, [_engine_p, c_char_p, c_char_p, c_char_p, c_char_p]),
    "qm_engine_evict_h": (c_int, [_engine_p, c_uint64, c_char_p, c_char_p]),
    "qm_engine_confirm_evicted": (c_int, [_engine_p, c_char_p, c_char_p]),
    "qm_engine_confirm_evicted_h": (c_int, [_engine_p, c_uint64]),
    "qm_engine_confirm_all_evicted": (c_int, [_engine_p, P(c_int)]),
    "qm_engine_delete_workload": (c_int, [_engine_p, c_char_p, c_char_p]),
    "qm_engine_delete_workload_h": (c_int, [_engine_p, c_uint64]),
    "qm_engine_deactivate": (c_int, [_engine_p, c_char_p, c_char_p]),
    "qm_engine_deactivate_h": (c_int, [_engine_p, c_uint64]),
    "qm_engine_activate": (c_int, [_engine_p, c_char_p, c_char_p]),
    "qm_engine_activate_h": (c_int, [_engine_p, c_uint64]),
    "qm_engine_set_reclaimable_pods": (c_int, [_engine_p, c_char_p, c_char_p, c_char_p, c_int32]),
    "qm_engine_set_reclaimable_pods_h": (c_int, [_engine_p, c_uint64, c_char_p, c_int32]),
    "qm_engine_set_pods_ready": (c_int, [_engine_p, c_char_p, c_char_p, c_int]),
    "qm_engine_set_pods_ready_h": (c_int, [_engine_p, c_uint64, c_int]),
    "qm_engine_schedule_cycle": (c_int, [_engine_p, P(CycleSummary)]),
    "qm_engine_run_until_stable": (c_int, [_engine_p, c_int, P(c_int)]),
    "qm_engine_run_until_settled": (c_int, [_engine_p, c_int, P(CycleSummary)]),
    "qm_event_kind_name": (c_char_p, [c_int]),
    "qm_engine_events": (c_int, [_engine_p, P(P(P(Event))), P(c_size_t)]),
    "qm_engine_event_cycle_queues": (c_int, [_engine_p, c_size_t, P(P(c_char_p)), P(c_size_t)]),
    "qm_engine_events_json": (c_int, [_engine_p, _out_str]),
    "qm_engine_workload_json": (c_int, [_engine_p, c_char_p, c_char_p, _out_str]),
    "qm_engine_cluster_queue_json": (c_int, [_engine_p, c_char_p, _out_str]),
    "qm_engine_local_queue_json": (c_int, [_engine_p, c_char_p, c_char_p, _out_str]),
    "qm_engine_list_json": (c_int, [_engine_p, _out_str]),
    "qm_engine_explain_json": (c_int, [_engine_p, c_char_p, c_char_p, _out_str]),
    "qm_engine_forecast_json": (c_int, [_engine_p, c_char_p, _out_str]),
    "qm_engine_what_if_json": (c_int, [_engine_p, c_char_p, c_char_p, _out_str]),
    "qm_engine_cohort_json": (c_int, [_engine_p, c_char_p, _out_str]),
    "qm_engine_assign_flavors_json": (c_int, [_engine_p, c_char_p, c_char_p, c_char_p, _out_str]),
    "qm_engine_preemption_targets_json": (
        c_int,
        [_engine_p, c_char_p, c_char_p, P(PreemptionQuery), _out_str],
    ),
    "qm_engine_save": (c_int, [_engine_p, _out_str, P(c_size_t)]),
    "qm_engine_restore": (c_int, [ctypes.c_char_p, c_size_t, P(_engine_p)]),
    "qm_hyperpod_render": (c_int, [P(Document), c_size_t, c_int, c_int, _out_str]),
    "qm_hyperpod_lint": (c_int, [P(Document), c_size_t, _out_str, P(c_int)]),
    "qm_simulate": (c_int, [c_char_p, c_char_p, c_char_p, P(SimulateOptions), _out_str]),
}


def declared_functions() -> frozenset[str]:
    """The C functions these bindings declare (restype and argtypes) before any call."""
    return frozenset(_SIGNATURES)


def _candidates() -> list[str]:
    found: list[str] = []
    env = os.environ.get("QM_C_LIBRARY")
    if env:
        return [env]  # an explicit choice is never second-guessed
    here = os.path.dirname(os.path.abspath(__file__))
    found += sorted(glob.glob(os.path.join(here, "libquartermaster_c.so*")))
    try:
        from . import _build_info  # generated into the build tree's copy of the package

        found.append(_build_info.LIBRARY_PATH)
    except ImportError:
        pass
    system = ctypes.util.find_library("quartermaster_c")
    if system:
        found.append(system)
    return found


def _load() -> ctypes.CDLL:
    tried: list[str] = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{path} (missing)")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({e})")
            continue
        # The version first: an older library lacks some of the functions declared below.
        lib.qm_api_version.restype = c_int
        lib.qm_api_version.argtypes = []
        if lib.qm_api_version() < API_VERSION:
            raise ImportError(f"{path}: C API version {lib.qm_api_version()} < {API_VERSION}")
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        return lib
    raise ImportError(
        "libquartermaster_c.so not found; set QM_C_LIBRARY to its path (tried: "
        + ("; ".join(tried) if tried else "nothing") + ")"
    )


_LIB: Optional[ctypes.CDLL] = None


def lib() -> ctypes.CDLL:
    """The loaded library (loaded on first use)."""
    global _LIB
    if _LIB is None:
        _LIB = _load()
    return _LIB


def encode(text: Optional[str], what: str = "argument") -> Optional[bytes]:
    """A Python string as NUL-terminated UTF-8 (None stays NULL)."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, not {type(text).__name__}")
    if "\0" in text:
        raise QuartermasterError(3, "INVALID_ARGUMENT", f"{what} contains a NUL character")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:  # lone surrogates
        raise QuartermasterError(3, "INVALID_ARGUMENT", f"{what} is not valid UTF-8: {e}") from None


def decode(value: Optional[bytes]) -> str:
    return "" if value is None else value.decode("utf-8")


def take_string(pointer: ctypes.c_void_p) -> str:
    """Copies a library-allocated string and frees it with qm_free."""
    if not pointer.value:
        return ""
    try:
        return decode(ctypes.string_at(pointer.value))
    finally:
        lib().qm_free(pointer)


def check(status: int, message: str) -> None:
    """Raises QuartermasterError for a non-OK status."""
    if status != 0:
        raise QuartermasterError(status, decode(lib().qm_status_name(status)), message)


def check_thread(status: int) -> None:
    """`check` with the thread's message (calls without an engine)."""
    if status != 0:
        check(status, decode(lib().qm_last_error()))
