"""When a reply counts as JSON: the rules shared by ``json_validity`` and ``text.extract_json``.

docs/checks.md § json_validity:

- RFC 8259 JSON, read with the standard library's ``json.loads`` (strict mode: raw control
  characters inside strings are rejected) with ``parse_constant`` raising, so the non-standard
  tokens ``NaN``, ``Infinity`` and ``-Infinity`` that Python accepts by default are rejected.
  Any JSON value counts, including a bare scalar (``42``, ``"text"``, ``null``), as RFC 8259
  allows. Duplicate object keys are allowed (RFC 8259 says SHOULD be unique); the last one wins.
- A leading byte order mark (U+FEFF) is ignored, as RFC 8259 section 8.1 allows a parser to do.
- Whitespace around the whole reply is ignored.
- One Markdown code fence that spans the whole reply is stripped: an opening line of three or more
  backticks with an optional ``json`` info string (any case), then the body, then a closing line of
  backticks (at least as many). Only the ``json`` info string or none: a ```` ```python ```` block is
  not JSON. A fence that does not span the whole reply (prose before or after) is not stripped.
- JSON inside prose is not JSON: no search for a JSON object within other text.
"""

from __future__ import annotations

import json
import re
from typing import Any

_BOM = "\ufeff"

# A whole-reply fence: ``` or ```json on the first line; body; closing backticks on the last line.
# The body may end on the closing fence's line ("...}```"), which models often produce.
_FENCE = re.compile(
    r"\A(?P<ticks>`{3,})[ \t]*(?:json)?[ \t]*\r?\n(?P<body>.*?)(?:\r?\n)?[ \t]*(?P=ticks)`*\Z",
    re.DOTALL | re.IGNORECASE,
)


class _NonStandardConstant(ValueError):
    """NaN, Infinity or -Infinity: accepted by Python's json, not by RFC 8259."""


def _reject_constant(token: str) -> Any:
    raise _NonStandardConstant(f"{token} is not JSON (RFC 8259 has no NaN or Infinity)")


def strip_fence(text: str) -> tuple[str, bool]:
    """The text without a whole-reply Markdown code fence, and whether one was stripped.

    ``text`` should already be stripped of surrounding whitespace.
    """
    match = _FENCE.match(text)
    if match is None:
        return text, False
    return match.group("body").strip(), True


def parse_json_detail(text: str) -> tuple[bool, Any, bool, str | None]:
    """Parse a reply under the rules above.

    Returns:
        (is_json, value, fence_stripped, error): ``value`` is None unless ``is_json``; ``error`` says
        why the text is not JSON (None when it is).
    """
    if not isinstance(text, str):
        return False, None, False, f"not text ({type(text).__name__})"
    body = text.strip()
    if body.startswith(_BOM):
        body = body[len(_BOM):].strip()
    if not body:
        return False, None, False, "the reply is empty"
    body, fenced = strip_fence(body)
    if not body:
        return False, None, fenced, "the code fence is empty"
    try:
        value = json.loads(body, parse_constant=_reject_constant)
    except _NonStandardConstant as exc:
        return False, None, fenced, str(exc)
    except json.JSONDecodeError as exc:
        return False, None, fenced, f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    except (ValueError, RecursionError) as exc:  # e.g. nesting deeper than the recursion limit
        return False, None, fenced, f"{type(exc).__name__}: {exc}"
    return True, value, fenced, None


def parse_json_reply(text: str) -> tuple[bool, Any, bool]:
    """(is_json, value, fence_stripped) of a reply; value is None when the text is not JSON."""
    ok, value, fenced, _error = parse_json_detail(text)
    return ok, value, fenced
