"""The one exception type of the package."""

from __future__ import annotations


class QuartermasterError(Exception):
    """A call into the C library failed.

    ``code`` is the numeric qm_status (absl's canonical codes), ``status`` its name
    ("INVALID_ARGUMENT", "NOT_FOUND", ...), and ``message`` the library's message, which names the
    file, line, object and field of bad input.
    """

    def __init__(self, code: int, status: str, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.code = code
        self.status = status
        self.message = message

    def __reduce__(self) -> tuple:
        # Exception's default pickling passes `args` (the one formatted string) back to __init__,
        # which takes three: a failure on a Dask worker would come back as a bare Exception.
        return (QuartermasterError, (self.code, self.status, self.message))
