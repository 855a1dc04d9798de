"""What an item prints: the output budget that stdout and stderr share, the text streams that
stand in for sys.stdout and sys.stderr, and what was written straight to descriptors 1 and 2
(memfds, or a strict child's own files). Standard library only.
"""

from __future__ import annotations

import builtins
import io
import os

# This file's functions look builtins up in a private copy taken before any user code exists (a
# function keeps the builtins of its globals at definition): user code that replaces builtins.len
# cannot change what the runner's own code does after it, before builtins are put back.
__builtins__ = dict(builtins.__dict__)

# Bound now, before user code can monkeypatch the modules.
_os_lseek = os.lseek
_SEEK_END = os.SEEK_END


class OutputLimit(BaseException):
    """Raised in user code when its captured stdout+stderr would pass the per-item cap."""


# Tracebacks name the class as they did when it was defined in runner.py (the script's module):
# format_exception_only prefixes any other module's name. runner.py imports it, so it is frozen
# with runner.py's own classes (guard_library_modules).
OutputLimit.__module__ = "__main__"


class Budget:
    """Bytes of output left for the current item, shared by stdout and stderr.

    Past the limit, output is dropped and the item goes on (its scores are kept, its output is
    marked truncated: see ``truncation_marker``); ``attempted`` counts every byte printed, and
    past ``FLOOD_FACTOR`` times the limit the item is a flood and stops as ``output_limit``.
    """

    # Slots: the runner sets every field again before each item, so nothing user code wrote to
    # them reaches the next one, and no attribute can be added (or a method shadowed).
    __slots__ = ("left", "exceeded", "attempted", "limit", "flooded")

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.exceeded = False
        self.attempted = 0
        self.limit = limit
        self.flooded = False


# Output beyond this many times the cap is a flood: the item stops with output_limit.
FLOOD_FACTOR = 16
# Room kept in the cap for the truncation marker (so the kept output + marker fit in outputBytes).
MARKER_RESERVE = 160


def truncation_marker(limit: int) -> str:
    """The line appended to stderr when an item printed more than its cap (docs/sandbox.md § Outcomes)."""
    return f"\n[oodle: output truncated: the item printed more than {limit} bytes of stdout and stderr; the rest was dropped]\n"


def note_output(budget: Budget, size: int) -> None:
    """Counts ``size`` bytes printed; raises OutputLimit once they pass FLOOD_FACTOR × the cap."""
    budget.attempted += size
    if budget.attempted > FLOOD_FACTOR * max(budget.limit, 1):
        budget.exceeded = True
        raise OutputLimit(f"output limit reached: the item printed more than {FLOOD_FACTOR} times its {budget.limit + MARKER_RESERVE} bytes")


class Capture(io.TextIOBase):
    """A text stream that keeps what user code prints, up to the item's output budget."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.parts: list[str] = []

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        size = len(s.encode("utf-8", "replace"))
        note_output(self.budget, size)
        if size > self.budget.left:
            # Keep what fits, drop the rest, and let the item finish (its scores are kept).
            keep = s.encode("utf-8", "replace")[: max(self.budget.left, 0)].decode("utf-8", "ignore")
            if keep:
                self.parts.append(keep)
            self.budget.left = 0
            self.budget.exceeded = True
            return len(s)
        self.budget.left -= size
        self.parts.append(s)
        return len(s)

    def text(self) -> str:
        return "".join(self.parts)


def raw_output(fd: int, budget: Budget) -> str:
    """What was written straight to fd 1 or 2 (a memfd) during the item; then empty it."""
    size = _os_lseek(fd, 0, _SEEK_END)  # the memfd's size (cheaper than fstat; writes append anyway)
    if not size:
        return ""
    data = os.pread(fd, min(size, max(budget.left, 0) + 1), 0)
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    budget.attempted += size
    if budget.attempted > FLOOD_FACTOR * max(budget.limit, 1):
        budget.flooded = True
    if len(data) > budget.left:
        budget.exceeded = True
        data = data[: max(budget.left, 0)]
    budget.left -= len(data)
    return data.decode("utf-8", "replace")
