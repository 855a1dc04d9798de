"""A stand-in for the ``opik`` package inside the Oodle evaluator sandbox (see sandbox_shims/README.md).

Only the names that custom metrics import are provided; nothing is ever sent to an Opik server.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

__version__ = "0.0.0+oodle.shim"
OODLE_SHIM = True


def track(func: Callable | None = None, **_options: Any) -> Any:
    """No-op stand-in for ``opik.track``: ``@track`` and ``@track(name=...)`` return the function unchanged."""
    if func is not None and callable(func):
        return func

    def decorate(inner: Callable) -> Callable:
        @functools.wraps(inner)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return inner(*args, **kwargs)

        return wrapper

    return decorate


__all__ = ["track", "__version__"]
