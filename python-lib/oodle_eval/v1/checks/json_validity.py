"""json_validity: is the reply JSON, and does it hold the required keys.

Scores (docs/checks.md § json_validity):

- ``is_json`` (BOOLEAN): the reply parses as RFC 8259 JSON under the rules of ``_json_rules``
  (NaN/Infinity rejected, a leading BOM ignored, one Markdown code fence spanning the whole reply
  stripped, JSON inside prose is not JSON). Metadata says whether a fence was stripped.
- ``has_required_keys`` (BOOLEAN), only when ``required_keys`` is given and not empty: the JSON
  value is a top-level object that holds each key; a key whose value is ``null`` is present.

Modelled on: Opik's ``IsJson`` heuristic metric (opik 1.x) and promptfoo's ``is-json`` assertion
(not ``contains-json``, which searches prose), which pass a reply when it parses as a whole;
the parser is CPython 3.11's ``json`` module in its default strict mode, with NaN/Infinity
rejected on top (Python accepts them, RFC 8259 does not).

Decisions where the spec is silent: ``required_keys`` may be one string (one key) or a list of
strings; an empty list is treated like None (no second score), so a template setting whose
default is ``[]`` does not add a score. Keys are compared exactly (case-sensitive, no NFC: JSON
keys are data, not prose).
"""

from __future__ import annotations

from typing import Any, Iterable

from ..context import Context
from ..score import Score, Scores
from .. import text as _text
from ._json_rules import parse_json_detail


def _key_list(required_keys: str | Iterable[str] | None) -> list[str]:
    if required_keys is None:
        return []
    if isinstance(required_keys, str):
        return [required_keys]
    keys = list(required_keys)
    for i, key in enumerate(keys):
        if not isinstance(key, str):
            raise TypeError(f"json_validity: required_keys[{i}] must be a string, got {type(key).__name__}")
    return keys


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def json_validity(ctx: Context, required_keys: str | Iterable[str] | None = None) -> Scores:
    """Score whether the reply is JSON and, when ``required_keys`` is given, holds those keys.

    Args:
        ctx: the evaluation context; the reply is ``text.reply(ctx)``.
        required_keys: keys the top-level JSON object must hold (null values count as present).
    Returns:
        Scores: ``is_json`` then, when keys are given, ``has_required_keys``.
    """
    keys = _key_list(required_keys)
    reply = _text.reply(ctx)
    ok, value, fenced, error = parse_json_detail(reply)

    meta: dict[str, Any] = {"fence_stripped": fenced}
    if ok:
        comment = f"the reply is JSON ({_kind(value)})"
        if fenced:
            comment += " inside a Markdown code fence, which was stripped"
    else:
        meta["error"] = error
        comment = f"the reply is not JSON: {error}"
    scores = Scores(
        [Score(name="is_json", value=ok, data_type="BOOLEAN", higher_is_better=True, comment=comment, metadata=meta)]
    )

    if keys:
        if not ok:
            has, why, missing = False, "the reply is not JSON", list(keys)
        elif not isinstance(value, dict):
            has, why, missing = False, f"the JSON value is {_kind(value)}, not an object", list(keys)
        else:
            missing = [k for k in keys if k not in value]
            has = not missing
            if has:
                why = f"the JSON object holds every required key: {', '.join(keys)}"
            else:
                why = f"the JSON object lacks {', '.join(repr(k) for k in missing)}"
        scores.append(
            Score(
                name="has_required_keys",
                value=has,
                data_type="BOOLEAN",
                higher_is_better=True,
                comment=why,
                metadata={"required_keys": list(keys), "missing_keys": missing},
            )
        )
    return scores
