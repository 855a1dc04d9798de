r"""exact_match: is the reply the reference answer.

Formula (docs/checks.md § exact_match):

- ``normalize=False``: ``NFC(reply) == NFC(reference)`` (nothing else: case, spaces and
  punctuation count).
- ``normalize=True``: the SQuAD v1.1 answer normalisation applied to both sides, then equality.
  Modelled on ``normalize_answer`` of the official SQuAD v1.1 evaluation script
  (evaluate-v1.1.py, Rajpurkar et al. 2016), step by step: lower-case, delete every character of
  ``string.punctuation`` (ASCII punctuation only), replace the whole words a / an / the by a space
  (regex ``\b(a|an|the)\b``), then ``" ".join(text.split())``. Deviations, both from the spec:
  NFC first, and ``str.casefold()`` in place of ``str.lower()`` ("STRASSE" equals "straße").
  On ASCII text the result equals the SQuAD script's.

Reference: ``reference`` when given (not None), else ``ctx.expected_output``. A reference that is
not a string is compared as its JSON text (``json.dumps(value, ensure_ascii=False)``, so the
number 42 is "42", a dict is its JSON), falling back to ``str()`` for a value JSON cannot encode.
No reference (both None) → a score with no value.
"""

from __future__ import annotations

import json
import re
import string
import unicodedata
from typing import Any

from ..context import Context
from ..score import Score, Scores
from .. import text as _text

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def reference_text(value: Any) -> str:
    """A reference value as text: a string as is, anything else as its JSON text (else ``str``)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def resolve_reference(ctx: Context, reference: Any) -> str | None:
    """``reference`` when not None, else ``ctx.expected_output``; as text, or None when neither is given."""
    value = reference if reference is not None else ctx.expected_output
    return None if value is None else reference_text(value)


def normalize_answer(s: str) -> str:
    """SQuAD v1.1 answer normalisation with NFC and casefold (see the module docstring)."""
    s = unicodedata.normalize("NFC", s).casefold()
    s = "".join(ch for ch in s if ch not in _PUNCTUATION)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def _clip(s: str, limit: int = 80) -> str:
    return repr(s) if len(s) <= limit else repr(s[:limit]) + f"... ({len(s)} chars)"


def exact_match(ctx: Context, reference: Any = None, normalize: bool = False) -> Scores:
    """Score whether the reply equals the reference.

    Args:
        ctx: the evaluation context; the reply is ``text.reply(ctx)``.
        reference: the expected answer; None means ``ctx.expected_output``.
        normalize: True applies SQuAD's answer normalisation to both sides first.
    Returns:
        Scores: ``exact_match`` (BOOLEAN; no value when there is no reference).
    """
    ref = resolve_reference(ctx, reference)
    if ref is None:
        return Scores(
            [
                Score(
                    name="exact_match",
                    value=None,
                    data_type="BOOLEAN",
                    higher_is_better=True,
                    comment="no reference: pass reference= or run in an experiment whose item has an expected output",
                )
            ]
        )
    reply = _text.reply(ctx)
    if normalize:
        a, b = normalize_answer(reply), normalize_answer(ref)
        how = "after SQuAD answer normalisation"
    else:
        a, b = unicodedata.normalize("NFC", reply), unicodedata.normalize("NFC", ref)
        how = "after Unicode NFC"
    same = a == b
    if same:
        comment = f"the reply equals the reference {how}"
    else:
        comment = f"the reply differs from the reference {how}: {_clip(a)} vs {_clip(b)}"
    return Scores(
        [
            Score(
                name="exact_match",
                value=same,
                data_type="BOOLEAN",
                higher_is_better=True,
                comment=comment,
                metadata={"normalize": bool(normalize)},
            )
        ]
    )
