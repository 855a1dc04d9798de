"""unsupported_numbers: every number in the reply occurs in the context or the user's input.

Score (docs/checks.md § unsupported_numbers):

- ``numbers_supported`` (BOOLEAN): True when each number of the reply is among the numbers of the
  sources; ``metadata["missing"]`` lists the ones that are not (as written, with their value).
  A reply with no numbers is supported.

Sources: the retrieved context (found like ``grounding``: the ``context`` argument, else the span
attribute ``context_key``, else the text of the input messages) plus the text of the user's input
messages (role ``user``/``human``), which always counts.

What a number is (the spec's rules; regexes below):

- Text is NFKC-normalised first, so fullwidth digits (``１２``) are digits; other decimal digits
  (``٣``) are read as their value too.
- Values compare as decimals: ``1,200`` = ``1200``, ``3.50`` = ``3.5``, ``.5`` = ``0.5``,
  ``-0`` = ``0``. Thousands separators are commas between groups of three digits.
- A sign (``+``, ``-``, U+2212 ``−``) belongs to the number when it directly precedes the digits
  and does not follow a letter, digit or dot: ``-5`` is -5, ``10-20`` is the range 10 and 20
  (also with en/em dashes).
- Digits glued to a letter before them are part of a name, not a number: ``Q3``, ``COVID19``,
  ``H2O``, ``x86``; so are digits after a letter and a hyphen (``COVID-19``, ``GPT-4``) -- a
  decision where the spec is silent. Letters after the digits do not stop a number: ``3rd`` is 3,
  ``10kg`` is 10.
- List markers at line starts are skipped: ``1.``, ``2)``, ``(3)`` (one to three digits followed
  by whitespace).
- Dotted versions and IP addresses (two dots or more: ``1.2.3``, ``v2.0.1``, ``192.168.0.1``) are
  compared as text, not as numbers (a leading ``v`` is dropped).
- Magnitude words expand the number on both sides: ``thousand`` ×10³, ``million`` ×10⁶,
  ``billion`` ×10⁹ (and ``trillion`` ×10¹²), any case, after the number with or without one
  space; ``k``/``K`` ×10³, ``M`` ×10⁶ (capital only: ``5m`` is metres), ``bn`` ×10⁹, glued to the
  number and not followed by a letter. So ``1.2 million`` = ``1,200,000`` = ``1200k``.
- A percent sign or currency symbol does not change the value: ``3.5%`` is 3.5, ``$1,200`` 1200.
- Not claims, so skipped (decisions where the spec is silent; the RAG recipe runs
  ``citation_check`` on the same reply): citation markers ``[1]``, ``[1, 2]``, ``[^note]``;
  footnote definition lines ``[^note]: ...``; ``(Source: ...)`` notes; URLs.

Modelled on the "numbers must come from the source" checks of RAG evaluation suites (e.g.
promptfoo's and DeepEval's hallucination heuristics); the rules above are the spec's own.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any

from ..context import Context
from ..score import Score, Scores
from .. import text as _text
from .grounding import CITATION_MARKER, input_texts, resolve_context

_NOT_CLAIMS = re.compile(
    r"^[ \t]{0,3}\[\^[^\]\s]{1,100}\]:[^\n]*"  # footnote definitions
    r"|\(\s*sources?\s*:[^)]{0,500}\)"  # (Source: ...)
    r"|\b(?:https?://|www\.)[^\s<>\"')\]]+"  # URLs
    r"|" + CITATION_MARKER.pattern,
    re.IGNORECASE | re.MULTILINE,
)
_LIST_MARKER = re.compile(r"^([ \t]*)(\d{1,3}[.)]|\(\d{1,3}\))(?=\s)", re.MULTILINE)
# Scanned left to right; the first alternative that matches at a position wins.
_SCAN = re.compile(
    r"""
    (?P<version>(?<![\w.])[vV]?\d+(?:\.\d+){2,})(?!\.?\d)
  | (?P<name>[^\W\d](?:\w|-(?=\d))*)
  | (?P<number>
        (?:(?<![\w.])(?P<sign>[+\-\u2212]))?
        (?P<digits>\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|(?<![\w.])\.\d+)
        (?:
            (?P<suffix>k|K|M|bn|Bn|BN)(?![^\W\d_])
          | [ \u00a0]?(?P<word>(?i:thousand|million|billion|trillion))(?!\w)
        )?
    )
    """,
    re.VERBOSE,
)
_MAGNITUDE = {
    "k": Decimal(10) ** 3,
    "K": Decimal(10) ** 3,
    "M": Decimal(10) ** 6,
    "bn": Decimal(10) ** 9,
    "Bn": Decimal(10) ** 9,
    "BN": Decimal(10) ** 9,
    "thousand": Decimal(10) ** 3,
    "million": Decimal(10) ** 6,
    "billion": Decimal(10) ** 9,
    "trillion": Decimal(10) ** 12,
}
_USER_ROLES = ("user", "human")


def _ascii_digits(text: str) -> str:
    """NFKC, then any remaining non-ASCII decimal digit as its ASCII digit."""
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if not c.isascii() and c.isdecimal() else c for c in text)


def extract_numbers(text: str) -> tuple[list[tuple[str, Decimal]], list[str]]:
    """(numbers as (text as written, value), versions/IPs as text) of a text, in order."""
    text = _ascii_digits(text)
    text = _NOT_CLAIMS.sub(" ", text)
    text = _LIST_MARKER.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)
    numbers: list[tuple[str, Decimal]] = []
    versions: list[str] = []
    for m in _SCAN.finditer(text):
        if m.group("version"):
            versions.append(m.group("version").lstrip("vV"))
        elif m.group("number"):
            try:
                value = Decimal(m.group("digits").replace(",", ""))
            except InvalidOperation:  # pragma: no cover - the regex only admits decimals
                continue
            if m.group("sign") in ("-", "\u2212"):
                value = -value
            magnitude = m.group("suffix") or (m.group("word") or "").lower()
            if magnitude:
                value *= _MAGNITUDE[magnitude]
            numbers.append((m.group("number").strip(), value))
    return numbers, versions


def _display(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def unsupported_numbers(ctx: Context, context: Any = None, context_key: str | None = "context") -> Scores:
    """Score whether every number in the reply occurs in the context or the user's input.

    Args:
        ctx: the evaluation context; the reply is ``text.reply(ctx)``.
        context: the retrieved context (str or list of str/documents); overrides the attribute.
        context_key: the span attribute that holds the context when ``context`` is not given.
    Returns:
        Scores: ``numbers_supported``.
    """
    reply = _text.reply(ctx)
    found = resolve_context(ctx, context, context_key)
    sources = list(found["documents"])
    user_texts = input_texts(ctx, _USER_ROLES)
    if found["source"] != "input messages":
        sources.extend(user_texts)

    reply_numbers, reply_versions = extract_numbers(reply)
    source_values: set[Decimal] = set()
    source_versions: set[str] = set()
    for source in sources:
        nums, vers = extract_numbers(source)
        source_values.update(v for _, v in nums)
        source_versions.update(vers)

    missing: list[dict[str, str]] = []
    seen: set[str] = set()
    for written, value in reply_numbers:
        if value not in source_values and written not in seen:
            seen.add(written)
            missing.append({"text": written, "value": _display(value)})
    for version in reply_versions:
        if version not in source_versions and version not in seen:
            seen.add(version)
            missing.append({"text": version, "value": version})

    total = len(reply_numbers) + len(reply_versions)
    ok = not missing
    where = "the context or the user's input" if found["source"] else "the user's input (no context was found)"
    if total == 0:
        comment = "the reply has no numbers"
    elif ok:
        comment = ("the reply's one number occurs" if total == 1 else f"all {total} numbers of the reply occur") + f" in {where}"
    else:
        shown = "; ".join(m["text"] for m in missing[:10]) + (" …" if len(missing) > 10 else "")
        count = "1 number of the reply is" if len(missing) == 1 else f"{len(missing)} numbers of the reply are"
        comment = f"{count} not in {where}: {shown}"
    meta: dict[str, Any] = {
        "numbers": [_display(v) for _, v in reply_numbers][:200],
        "versions": reply_versions[:50],
        "missing": missing[:100],
        "context_source": found["source"],
        "sources": len(sources),
    }
    return Scores([Score(name="numbers_supported", value=ok, data_type="BOOLEAN", higher_is_better=True, comment=comment, metadata=meta)])
