"""SageMaker HyperPod task-governance policies: `qm hyperpod render` and `lint` (docs/hyperpod.md)."""

from __future__ import annotations

import ctypes
from typing import Mapping, Union

from . import _lib
from ._lib import encode, lib, take_string

Documents = Union[str, Mapping[str, str]]


def _documents(documents: Documents) -> tuple[ctypes.Array[_lib.Document], int]:
    items = {"<input>": documents} if isinstance(documents, str) else dict(documents)
    arr = (_lib.Document * max(len(items), 1))(
        *[_lib.Document(encode(name, "document name"), encode(text, name)) for name, text in items.items()]
    )
    return arr, len(items)


def hyperpod_render(documents: Documents, *, json: bool = False, kueue_config: bool = False) -> str:
    """The Kueue objects HyperPod creates for the policies (YAML, or a JSON List), or with
    ``kueue_config`` the Kueue Configuration's fairSharing fragment. ``documents``: one policy text,
    or a mapping file name → text (the names appear in errors)."""
    arr, n = _documents(documents)
    out = ctypes.c_void_p()
    _lib.check_thread(lib().qm_hyperpod_render(arr, n, int(json), int(kueue_config), ctypes.byref(out)))
    return take_string(out)


def hyperpod_lint(documents: Documents) -> tuple[str, int]:
    """The lint report text and its exit code (0 without errors, 1 with errors)."""
    arr, n = _documents(documents)
    out = ctypes.c_void_p()
    code = ctypes.c_int()
    _lib.check_thread(lib().qm_hyperpod_lint(arr, n, ctypes.byref(out), ctypes.byref(code)))
    return take_string(out), code.value
