"""Run an oodle_eval check on a bare text, for the heuristics of this shim."""

from __future__ import annotations

from typing import Any


def check_on_text(check: str, output: str, **kwargs: Any) -> Any:
    """The Scores of ``oodle_eval.v1.metrics.<check>`` on a context whose reply is ``output``."""
    from oodle_eval.v1 import make_context, metrics

    ctx = make_context({"output": {"role": "assistant", "content": output}})
    return getattr(metrics, check)(ctx, **kwargs)
