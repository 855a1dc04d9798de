"""Helpers shared by the tests of the built-in checks (``test_<check>.py`` in this folder).

Import them with ``from _support import ...``: pytest puts this folder on ``sys.path`` for the test
files in it (they are not a package). Each test file used to carry its own copy of these; where
the copies differed, the difference is now a parameter, and each file passes what its copy did.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from oodle_eval.v1 import EvaluationResult, Scores, make_context

LONG = 10_000
"""The long-input size (characters) the checks are tested at."""

LONG_TEXT = ("The quick brown fox jumps over the lazy dog near the river bank. " * 160)[:LONG]
"""Plain English prose, exactly ``LONG`` characters."""


def ctx_of(reply: Any = None, user: str = "question", **doc: Any):
    """A context for one user turn ``user`` and, unless ``reply`` is None, the output ``reply``.

    Other keyword arguments are document keys set as given (``expected_output=...``, or
    ``input=...`` to replace the user turn)."""
    document: dict[str, Any] = {"input": [{"role": "user", "content": user}]}
    if reply is not None:
        document["output"] = reply
    document.update(doc)
    return make_context(document)


def ctx_with_context(output: Any, context: Any = None, user: str | None = None, **extra: Any):
    """A context whose output is ``output``, with ``context`` as the ``attributes.context`` the
    grounded checks read, and a user turn only when ``user`` is given; other keyword arguments
    are document keys set as given."""
    doc: dict[str, Any] = {"output": output}
    if user is not None:
        doc["input"] = [{"role": "user", "content": user}]
    if context is not None:
        doc["attributes"] = {"context": context}
    doc.update(extra)
    return make_context(doc)


def valid(scores, *, scores_type: bool = True, comments: bool = True, one_result: bool = True):
    """Assert what every check's return must satisfy, and return ``scores``.

    - ``scores_type``: it is a ``Scores`` (not just any list of scores);
    - ``one_result``: together the scores pass ``EvaluationResult.validate`` (each score's rules
      and no name twice); when False each score passes ``Score.validate`` on its own;
    - ``comments``: every score carries a comment;
    - always: every score's dict (metadata included) is JSON-serialisable.
    """
    if scores_type:
        assert isinstance(scores, Scores)
    if one_result:
        EvaluationResult(scores=list(scores)).validate()
    for s in scores:
        if not one_result:
            s.validate()
        if comments:
            assert s.comment, f"score {s.name} has no comment"
        json.dumps(s.to_dict())  # metadata is JSON-serialisable
    return scores


def valid_untyped(scores):
    """``valid`` as the citation_check, grounding, readability and unsupported_numbers tests check:
    any list of scores will do (no ``Scores`` type rule); the rest as ``valid``."""
    return valid(scores, scores_type=False)


def assert_valid(scores):
    """``valid`` as the refusal, tone, pii_leak and conversation_degeneration tests check: each
    score passes ``Score.validate`` alone and is JSON-serialisable (no type, name or comment rule)."""
    return valid(scores, scores_type=False, comments=False, one_result=False)


def timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """``fn(*args, **kwargs)`` and the seconds it took (``time.perf_counter``)."""
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start
