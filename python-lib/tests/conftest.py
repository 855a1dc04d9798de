"""Shared helpers of the python-lib tests."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping

import pytest

LIB = Path(__file__).resolve().parent.parent
SHIMS = LIB / "sandbox_shims"


def _ensure_opik_shim() -> None:
    """Make ``import opik`` resolve to the sandbox stand-in when no real opik is installed."""
    import importlib.util

    if importlib.util.find_spec("opik") is None and str(SHIMS) not in sys.path:
        sys.path.append(str(SHIMS))


_ensure_opik_shim()


def run_source(
    source: str,
    document: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    notes: list[str] | None = None,
):
    """Detect, load and run an evaluator's source on a sample document; return its Scores."""
    from oodle_eval.v1 import make_context
    from oodle_eval.v1.entrypoint import detect_entry_point, load_evaluator, run_entry_point

    entry = detect_entry_point(source)
    namespace = load_evaluator(source, module_name="__evaluator_test__")
    ctx = make_context(dict(document or {}), params=params)
    return run_entry_point(namespace, ctx, notes=notes, kind=entry["kind"])


def values(scores) -> dict[str, Any]:
    """{name: value} of a list of scores."""
    return {s.name: s.value for s in scores}


def chat(user: str, reply: str | None, **extra: Any) -> dict[str, Any]:
    """A sample document with one user message and (optionally) one assistant reply."""
    doc: dict[str, Any] = {"input": [{"role": "user", "content": user}]}
    if reply is not None:
        doc["output"] = {"role": "assistant", "content": reply}
    doc.update(extra)
    return doc


@pytest.fixture
def shims_on_path():
    _ensure_opik_shim()
    yield SHIMS
