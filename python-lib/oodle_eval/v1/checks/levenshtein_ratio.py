"""levenshtein_ratio: the Indel normalised similarity of the reply and a reference.

Formula (docs/checks.md § levenshtein_ratio), over Unicode code points after NFC (and
``str.casefold()`` on both sides unless ``case_sensitive``)::

    indel = len(a) + len(b) - 2 * LCS(a, b)        # insertions + deletions only
    ratio = 1 - indel / (len(a) + len(b))          # computed as (lensum - indel) / lensum
    ratio = 1.0 when both texts are empty

Modelled on: Opik's ``LevenshteinRatio`` heuristic metric (opik 1.x), which returns
python-Levenshtein's ``Levenshtein.ratio``; that is the Indel normalised similarity, the same
number as rapidfuzz 3.x ``rapidfuzz.distance.Indel.normalized_similarity`` and as the C code of
python-Levenshtein 0.12.2 (Debian bookworm's python3-levenshtein), whose ``ratio`` is
``(lensum - d) / lensum`` with d the edit distance where a substitution costs 2. The tests compare
with that library. Deviation from Opik (from the spec): casefold in place of ``lower()``, and NFC.

LCS length by the bit-parallel algorithm of Allison & Dix (1986) in the form of Hyyrö (2004),
with Python integers as bit vectors: one pass over the shorter text, each step a handful of
big-integer operations over the longer one, so two 10,000-character texts take milliseconds.
A common prefix and suffix are removed first (they are part of every LCS).

Reference: ``reference`` when given (not None), else ``ctx.expected_output``; a non-string
reference is compared as its JSON text (see ``exact_match.reference_text``). No reference (both
None) → a score with no value.
"""

from __future__ import annotations

import unicodedata

from ..context import Context
from ..score import Score, Scores
from .. import text as _text
from .exact_match import resolve_reference


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence of two strings (bit-parallel, Hyyrö 2004)."""
    # Strip the common prefix and suffix: they belong to an LCS.
    start = 0
    limit = min(len(a), len(b))
    while start < limit and a[start] == b[start]:
        start += 1
    end = 0
    limit -= start
    while end < limit and a[-1 - end] == b[-1 - end]:
        end += 1
    common = start + end
    a = a[start : len(a) - end]
    b = b[start : len(b) - end]
    if not a or not b:
        return common
    if len(a) < len(b):
        a, b = b, a  # a (the longer) is the bit vector; the loop runs over b (the shorter)
    # Match masks: bit i of masks[c] is set when a[i] == c.
    positions: dict[str, list[int]] = {}
    for i, ch in enumerate(a):
        positions.setdefault(ch, []).append(i)
    masks: dict[str, int] = {}
    for ch, idx in positions.items():
        bits = bytearray((len(a) + 8) // 8)
        for i in idx:
            bits[i >> 3] |= 1 << (i & 7)
        masks[ch] = int.from_bytes(bits, "little")
    full = (1 << len(a)) - 1
    v = full
    for ch in b:
        m = masks.get(ch)
        if m is None:
            continue  # U = 0: V + 0 | V - 0 = V
        u = v & m
        v = ((v + u) | (v - u)) & full
    return common + len(a) - v.bit_count()


def indel_distance(a: str, b: str) -> int:
    """Insertions plus deletions that turn ``a`` into ``b``: len a + len b - 2·LCS."""
    return len(a) + len(b) - 2 * lcs_length(a, b)


def ratio(a: str, b: str) -> float:
    """The Indel normalised similarity in [0, 1]; 1.0 for two empty strings."""
    lensum = len(a) + len(b)
    if lensum == 0:
        return 1.0
    return (lensum - indel_distance(a, b)) / lensum


def levenshtein_ratio(ctx: Context, reference: object = None, case_sensitive: bool = False) -> Scores:
    """Score the similarity of the reply and the reference (python-Levenshtein's ``ratio``).

    Args:
        ctx: the evaluation context; the reply is ``text.reply(ctx)``.
        reference: the expected text; None means ``ctx.expected_output``.
        case_sensitive: False compares casefolded text.
    Returns:
        Scores: ``levenshtein_ratio`` (NUMERIC 0-1; no value when there is no reference).
    """
    ref = resolve_reference(ctx, reference)
    if ref is None:
        return Scores(
            [
                Score(
                    name="levenshtein_ratio",
                    value=None,
                    data_type="NUMERIC",
                    higher_is_better=True,
                    comment="no reference: pass reference= or run in an experiment whose item has an expected output",
                )
            ]
        )
    a = unicodedata.normalize("NFC", _text.reply(ctx))
    b = unicodedata.normalize("NFC", ref)
    if not case_sensitive:
        a, b = a.casefold(), b.casefold()
    lensum = len(a) + len(b)
    distance = indel_distance(a, b)
    value = 1.0 if lensum == 0 else (lensum - distance) / lensum
    case = "case-sensitive" if case_sensitive else "case-insensitive"
    if lensum == 0:
        comment = "both the reply and the reference are empty"
    else:
        comment = (
            f"{distance} insertion(s)/deletion(s) over {lensum} characters ({case}): "
            f"1 - {distance}/{lensum} = {value:.4f}"
        )
    return Scores(
        [
            Score(
                name="levenshtein_ratio",
                value=value,
                data_type="NUMERIC",
                higher_is_better=True,
                comment=comment,
                metadata={
                    "indel_distance": distance,
                    "reply_length": len(a),
                    "reference_length": len(b),
                    "case_sensitive": bool(case_sensitive),
                },
            )
        ]
    )
