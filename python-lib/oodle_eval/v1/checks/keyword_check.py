"""keyword_check: required terms present, forbidden terms absent.

Formula (docs/checks.md § keyword_check): substring match after Unicode NFC of the reply and the
terms; case-insensitive (the default) compares ``str.casefold()`` of both, so "STRASSE" matches
"straße". With ``mode="all"`` every required term must occur, with ``mode="any"`` at least one; no
required term counts as present. The score passes when the required terms are present and no
forbidden term occurs.

Modelled on: promptfoo's ``contains-all`` / ``contains-any`` / ``not-contains`` assertions and their
``icontains-*`` variants (promptfoo 0.x: substring ``includes``, the ``i`` variants after lower-casing), with
casefold in place of lower-case as the spec decides.

Errors: an empty or blank term raises ValueError naming it (list and position); a term that is
not a string raises TypeError; a mode other than "all" or "any" raises ValueError naming ``mode``.
Decisions where the spec is silent: a single string given as ``required`` or ``forbidden`` is one
term (not a sequence of characters); None for any argument means its default, so
``keyword_check(ctx, **ctx.params)`` works when a setting has no default.
"""

from __future__ import annotations

import unicodedata
from typing import Iterable

from ..context import Context
from ..score import Score, Scores
from .. import text as _text

_MODES = ("all", "any")


def _terms(terms: str | Iterable[str] | None, label: str) -> list[str]:
    if terms is None:
        return []
    items = [terms] if isinstance(terms, str) else list(terms)
    for i, term in enumerate(items):
        if not isinstance(term, str):
            raise TypeError(f"keyword_check: {label}[{i}] must be a string, got {type(term).__name__}")
        if not term.strip():
            raise ValueError(f"keyword_check: {label}[{i}] is an empty or blank term ({term!r}); remove it")
    return items


def keyword_check(
    ctx: Context,
    required: str | Iterable[str] = (),
    forbidden: str | Iterable[str] = (),
    mode: str = "all",
    case_sensitive: bool = False,
    name: str = "keywords_ok",
) -> Scores:
    """Score whether the reply holds the required terms and none of the forbidden ones.

    Args:
        ctx: the evaluation context; the reply is ``text.reply(ctx)``.
        required: terms that must occur (all or any, by ``mode``).
        forbidden: terms that must not occur.
        mode: "all" or "any".
        case_sensitive: False compares casefolded text.
        name: the score's name.
    Returns:
        Scores: one BOOLEAN score named ``name``.
    """
    required_terms = _terms(required, "required")
    forbidden_terms = _terms(forbidden, "forbidden")
    if mode is None:
        mode = "all"
    if mode not in _MODES:
        raise ValueError(f"keyword_check: mode must be 'all' or 'any', got {mode!r}")
    if name is None:
        name = "keywords_ok"

    def fold(s: str) -> str:
        s = unicodedata.normalize("NFC", s)
        return s if case_sensitive else s.casefold()

    reply = fold(_text.reply(ctx))
    found = [t for t in required_terms if fold(t) in reply]
    missing = [t for t in required_terms if fold(t) not in reply]
    banned = [t for t in forbidden_terms if fold(t) in reply]

    if not required_terms:
        required_ok = True
    elif mode == "all":
        required_ok = not missing
    else:
        required_ok = bool(found)
    passed = required_ok and not banned

    reasons = []
    if not required_ok:
        if mode == "all":
            reasons.append(f"missing required term(s): {', '.join(repr(t) for t in missing)}")
        else:
            reasons.append(f"none of the required terms occurs: {', '.join(repr(t) for t in missing)}")
    if banned:
        reasons.append(f"forbidden term(s) found: {', '.join(repr(t) for t in banned)}")
    if passed:
        parts = []
        if required_terms:
            parts.append(f"required term(s) present ({mode}): {', '.join(repr(t) for t in found)}")
        else:
            parts.append("no required terms")
        parts.append("no forbidden term found" if forbidden_terms else "no forbidden terms")
        comment = "; ".join(parts)
    else:
        comment = "; ".join(reasons)

    return Scores(
        [
            Score(
                name=name,
                value=passed,
                data_type="BOOLEAN",
                higher_is_better=True,
                comment=comment,
                metadata={
                    "mode": mode,
                    "case_sensitive": bool(case_sensitive),
                    "found_required": found,
                    "missing_required": missing,
                    "found_forbidden": banned,
                },
            )
        ]
    )
