"""The runner's side of the protocol with Node (runner.py's module doc): frames, each a 4-byte
big-endian length and that many bytes of UTF-8 JSON, and the closed list of outcomes a result
frame carries (src/lib/outcomes.ts). Standard library only; imported by runner.py before
any user code exists.
"""

from __future__ import annotations

import builtins
import json
import os

# This file's functions look builtins up in a private copy taken before any user code exists (a
# function keeps the builtins of its globals at definition): user code that replaces builtins.len
# cannot change what the runner's own code does after it, before builtins are put back.
__builtins__ = dict(builtins.__dict__)

MAX_FRAME_BYTES = 64 * 1024 * 1024
OUTCOMES = ("ok", "user_error", "timeout", "memory_limit", "output_limit", "invalid_result", "sandbox_error")

# Bound now, before user code can monkeypatch the modules.
_dumps = json.dumps
_loads = json.loads
_os_read = os.read
_os_write = os.write


def _not_json(value):
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _make_encode():
    """``json.dumps(message, ensure_ascii=False, allow_nan=False)`` without building a JSONEncoder
    per call: the C encoder when there is one (a fresh ``markers`` dict per call keeps the
    circular-reference check), else the pure-Python one."""
    import json.encoder as json_encoder  # noqa: PLC0415

    make, basestring = json_encoder.c_make_encoder, json_encoder.c_encode_basestring
    if make is None or basestring is None:
        return lambda message: _dumps(message, ensure_ascii=False, allow_nan=False)
    join = "".join
    return lambda message: join(make({}, _not_json, basestring, None, ": ", ", ", False, False, False)(message, 0))


_encode = _make_encode()


def read_exact(fd: int, n: int) -> bytes | None:
    """Read exactly ``n`` bytes from ``fd`` (1 MiB reads at most); None at EOF before ``n``."""
    chunks = []
    while n > 0:
        chunk = _os_read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> dict | None:
    """Read one frame (4-byte big-endian length, UTF-8 JSON); None at EOF.

    Raises ValueError for a length over MAX_FRAME_BYTES, and the decoder's error for bad JSON.
    """
    header = read_exact(fd, 4)
    if header is None:
        return None
    size = int.from_bytes(header, "big")
    if size > MAX_FRAME_BYTES:
        raise ValueError(f"frame of {size} bytes")
    body = read_exact(fd, size)
    if body is None:
        return None
    return _loads(body.decode("utf-8"))


def encode_frame(message: dict) -> bytes:
    """``message`` as one frame: its UTF-8 JSON preceded by the 4-byte big-endian length."""
    body = _encode(message).encode("utf-8")
    return len(body).to_bytes(4, "big") + body


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (retrying short writes); OSError propagates."""
    view = memoryview(data)
    while view:
        written = _os_write(fd, view)
        view = view[written:]


def write_frame(fd: int, message: dict) -> None:
    """Write ``message`` to ``fd`` as one frame (see encode_frame)."""
    write_all(fd, encode_frame(message))
