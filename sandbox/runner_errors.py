"""Error reports of the runner: their bounds (UTF-16 code units, as Node counts and checks them:
src/execution/runner-protocol.ts), the cut to those bounds, and the wording runner.py adds to
some errors (a memory limit, a network call). Standard library only.
"""

from __future__ import annotations

import builtins
import traceback

# This file's functions look builtins up in a private copy taken before any user code exists (a
# function keeps the builtins of its globals at definition): user code that replaces builtins.len
# cannot change what the runner's own code does after it, before builtins are put back.
__builtins__ = dict(builtins.__dict__)

# Bounds of an error report, in UTF-16 code units (what Node's string length counts and checks:
# runner-protocol.ts errorSchema).
MAX_TYPE_CHARS = 200
MAX_MESSAGE_CHARS = 4000
MAX_TRACEBACK_CHARS = 20000


def cap(text: str, limit: int, tail: bool = False) -> str:
    """``text`` cut to at most ``limit`` UTF-16 code units (its start, or its end when ``tail``)."""
    if len(text) <= limit // 2 or (len(text) <= limit and text.isascii()):
        return text
    part = text[-limit:] if tail else text[:limit]
    units = part.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * limit:
        return part
    units = units[-2 * limit:] if tail else units[: 2 * limit]
    return units.decode("utf-16-le", "ignore")  # drops a surrogate pair cut in half


def safe_str(error: BaseException) -> str:
    """``str(error)``, or a placeholder when a user ``__str__`` raises."""
    try:
        return str(error)
    except BaseException:  # noqa: BLE001
        return "<unprintable>"


def name_memory_limit(result: dict, memory_bytes: int) -> None:
    """A MemoryError's message is usually empty: say which limit was hit."""
    error = result.get("error") or {}
    if memory_bytes and not error.get("message"):
        error["message"] = f"the evaluator used more than its memory limit of {memory_bytes // (1024 * 1024)} MiB"


def explain_network_error(result: dict, error: BaseException) -> None:
    """An OSError raised by a socket call says, before the raw OS error, that the sandbox has no network."""
    if not isinstance(error, OSError):
        return
    import socket as _socket  # stdlib; imported lazily (only on a failure)

    from_socket = isinstance(error, (_socket.gaierror, _socket.herror)) or any(
        frame.f_code.co_filename.endswith(("/socket.py", "/ssl.py", "/http/client.py", "/urllib/request.py")) for frame, _ in traceback.walk_tb(error.__traceback__)
    )
    if not from_socket:
        return
    details = result.get("error") or {}
    details["message"] = f"the sandbox has no network: evaluators cannot open sockets or resolve names ({details.get('message', '')})"[:MAX_MESSAGE_CHARS]
