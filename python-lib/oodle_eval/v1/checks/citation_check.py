"""citation_check: the reply cites its sources, and its numeric citations point at real ones.

Score (docs/checks.md § citation_check):

- ``citations_ok`` (BOOLEAN): True when the reply has at least one citation, every numeric
  citation index is valid, every footnote reference has its definition, and -- with
  ``require_every_sentence=True`` -- every sentence has a citation. An empty reply is not ok.

Citations recognised:

- ``[n]`` and ``[n, m, ...]`` (commas or semicolons; a range ``[2-4]`` / ``[2–4]`` stands for
  2, 3 and 4 -- a decision where the spec is silent). Indexes are 1-based: ``[0]`` is invalid.
  When the context is a list of documents (the ``context`` argument or the span attribute
  ``context_key``, found as ``grounding`` finds it), an index above the number of documents is
  invalid too; with a context that is one text, only ``>= 1`` is checked.
- ``[^label]`` -- a Markdown footnote reference -- when the reply also holds its definition
  ``[^label]: ...`` at the start of a line. A reference without a definition is reported and makes
  the check fail (a decision: the spec requires the definition). The definition is not a citation.
- ``(Source: ...)`` / ``(Sources: ...)``, any case, with some text before the ``)``.

Not citations: list literals in prose and unfenced code (``is_list_literal``: "the list
[2, 4, 6]", ``func([1, 2, 3])``, ``x = [1, 2]``, ``[1, 2].copy()``), which the index pattern alone
read as citations (docs/checks.md § citation_check: a reply with code was "cited", or failed on "out
of range" indexes); anything inside Markdown code (fenced blocks and inline code spans); Markdown
links ``[1](url)``, reference links ``[text][1]`` and link definitions ``[1]: url`` at a line
start (decisions for the last two: they are link syntax, like ``[1](url)``).

Sentences (for ``require_every_sentence``): each non-blank line, split after ``.``, ``!`` or
``?`` (and any citations right after it, so ``Paris is big.[1] Next`` keeps ``[1]`` with the
first sentence) followed by whitespace; a period after a common abbreviation (e.g., i.e., vs.,
Dr., et al.) or a single letter (an initial) does not end a sentence; CJK full stops without a
space after them do not split a line. Lines that are headings (``#``), footnote definitions, or have no
letters or digits once citations are removed are not sentences.

Decisions where the spec is silent: the signature also takes ``context=None,
context_key="context"`` (the cookbook says all three RAG checks find the context the same way,
and ``metrics.citation_check(ctx, **ctx.params)`` must accept a shared ``context_key`` setting).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ..context import Context
from ..score import Score, Scores
from .. import text as _text
from .grounding import resolve_context

_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
_INDEX_LIST = r"\d+(?:\s*[-\u2013]\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*[-\u2013]\s*\d+)?)*"
_NUMERIC = re.compile(r"(?<!\\)\[\s*(" + _INDEX_LIST + r")\s*\](?!\()")
_NUMERIC_BEFORE = re.compile(r"\[\s*" + _INDEX_LIST + r"\s*\]$")
_LINK_DEFINITION = re.compile(r"^[ \t]{0,3}\[[^\]\n]{1,200}\]:", re.MULTILINE)
# Lengths are bounded ({1,100}, {0,500}) so that unclosed brackets cannot make a scan quadratic.
_FOOTNOTE_REF = re.compile(r"\[\^([^\]\s]{1,100})\](?!:)")
_FOOTNOTE_DEF = re.compile(r"^[ \t]{0,3}\[\^([^\]\s]{1,100})\]:", re.MULTILINE)
_SOURCE = re.compile(r"\(\s*sources?\s*:\s*[^)\s][^)]{0,500}\)", re.IGNORECASE)
_CITATION_ALTERNATIVES = r"\[\s*" + _INDEX_LIST + r"\s*\]|\[\^[^\]\s]{1,100}\]|\(\s*sources?\s*:[^)]{0,500}\)"
_ANY_CITATION = re.compile(_CITATION_ALTERNATIVES, re.IGNORECASE)
# Starts at the first of a run of terminators and never backtracks into it (possessive), so a
# long run of dots is scanned once.
_SENTENCE_END = re.compile(
    r"(?<![.!?])[.!?]++[\"'\u201d\u2019)\]]*+(?:\s*(?:" + _CITATION_ALTERNATIVES + r"))*(?=\s|$)",
    re.IGNORECASE,
)
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|vs|cf|al|approx|fig|dr|mr|mrs|ms|prof|st|jr|sr)|\b[A-Za-z])\.$", re.IGNORECASE)
_HAS_CONTENT = re.compile(r"[^\W_]")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
# List literals (docs/checks.md § citation_check): a bracket right after a call's "(", another opening bracket, "=",
# an arrow, or a word that introduces a value ("returns [2, 4, 6]", "the list [1, 2]") ...
_LIST_BEFORE = re.compile(
    r"(?:\w\(|[\[{]|=|->|=>|\u2192|\b(?:lists?|arrays?|vectors?|tuples?|sets?|returns?|returned|yields?|gives|outputs?|prints?|becomes|equals|contains|is|are|was)\b)\s*$",
    re.IGNORECASE,
)
# ... or followed by what continues code: a method, an operator ("[1][2]" stays two citations).
_LIST_AFTER = re.compile(r"^(?:\s*[+*=]|\.\w)")


def _blank(match: re.Match[str]) -> str:
    """Replace a match by spaces (newlines kept) so positions and lines survive."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _strip_code(text: str) -> str:
    return _INLINE_CODE.sub(_blank, _FENCE.sub(_blank, text))


def _indexes(spec: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r"\s*[,;]\s*", spec.strip()):
        bounds = re.split(r"\s*[-\u2013]\s*", part)
        if len(bounds) == 2:
            lo, hi = int(bounds[0]), int(bounds[1])
            if hi < lo:
                lo, hi = hi, lo
            out.extend(range(lo, min(hi, lo + 1000) + 1))
        else:
            out.append(int(bounds[0]))
    return out


def numeric_citations(text: str) -> list[list[int]]:
    """The indexes of each numeric citation in (code-stripped) text, in order.

    ``[n](url)`` is a link, not a citation; ``[text][n]`` is a reference link unless the bracket
    before it is itself a numeric citation (``[1][2]`` cites 1 and 2).
    """
    out: list[list[int]] = []
    for m in _NUMERIC.finditer(text):
        start = m.start()
        if start > 0 and text[start - 1] == "]":
            before = text[max(0, start - 200) : start]
            if not _NUMERIC_BEFORE.search(before):
                continue
        if is_list_literal(text, m.start(), m.end()):
            continue
        out.append(_indexes(m.group(1)))
    return out


def is_list_literal(text: str, start: int, end: int) -> bool:
    """Whether the bracket ``text[start:end]`` is a list literal in prose or unfenced code rather
    than a citation: after a call's "(", "=", an arrow or a word that introduces a value ("the
    list [2, 4, 6]", "returns [1, 2]", "is [3]"), or followed by a method or an operator. A
    citation follows the claim it supports: "Paris is big [1, 2]."
    """
    line_start = text.rfind("\n", 0, start) + 1
    before = text[max(line_start, start - 40) : start]
    after = text[end : end + 20].split("\n", 1)[0]
    return bool(_LIST_BEFORE.search(before) or _LIST_AFTER.match(after))


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    for line in text.split("\n"):
        if not line.strip() or _HEADING.match(line) or _FOOTNOTE_DEF.match(line) or _LINK_DEFINITION.match(line):
            continue
        start = 0
        for m in _SENTENCE_END.finditer(line):
            head = line[start : m.start() + 1]
            if _ABBREVIATION.search(head.rstrip()[-12:]) and not m.group(0).rstrip(".!?\"'\u201d\u2019)]"):
                continue
            out.append(line[start : m.end()])
            start = m.end()
        out.append(line[start:])
    return [s.strip() for s in out if _HAS_CONTENT.search(_ANY_CITATION.sub(" ", s))]


def citation_check(
    ctx: Context,
    require_every_sentence: bool = False,
    context: Any = None,
    context_key: str | None = "context",
) -> Scores:
    """Score whether the reply cites sources with valid citations.

    Args:
        ctx: the evaluation context; the reply is ``text.reply(ctx)``.
        require_every_sentence: also require a citation in every sentence.
        context: the retrieved context; a list of documents bounds the numeric indexes.
        context_key: the span attribute that holds the context when ``context`` is not given.
    Returns:
        Scores: ``citations_ok``.
    """
    reply = _text.reply(ctx)
    require_every_sentence = bool(require_every_sentence)
    found = resolve_context(ctx, context, context_key)
    n_sources = len(found["documents"]) if found["is_list"] else None
    meta: dict[str, Any] = {"require_every_sentence": require_every_sentence, "sources": n_sources}

    if not reply.strip():
        meta.update(citations=0)
        return Scores([Score(name="citations_ok", value=False, data_type="BOOLEAN", higher_is_better=True, comment="the reply is empty, so it cites nothing", metadata=meta)])

    text = _strip_code(unicodedata.normalize("NFC", reply))
    prose = _LINK_DEFINITION.sub(_blank, text)

    numeric = [i for group in numeric_citations(prose) for i in group]
    defined = set(_FOOTNOTE_DEF.findall(text))
    footnotes = [label for label in _FOOTNOTE_REF.findall(text)]
    sources = _SOURCE.findall(prose)

    invalid = sorted({i for i in numeric if i < 1 or (n_sources is not None and i > n_sources)})
    undefined = sorted({label for label in footnotes if label not in defined})
    valid_footnotes = [label for label in footnotes if label in defined]
    total = len(numeric) + len(valid_footnotes) + len(sources)

    problems: list[str] = []
    if total == 0:
        problems.append("the reply has no citation ([n], [^label] with its definition, or (Source: ...))")
    if invalid:
        bound = f"1..{n_sources}" if n_sources is not None else "1 or more"
        problems.append(f"citation indexes out of range ({bound}): {', '.join(map(str, invalid))}")
    if undefined:
        problems.append("footnotes without a definition: " + ", ".join(f"[^{u}]" for u in undefined))

    uncited: list[str] = []
    sentences = _sentences(prose)
    if require_every_sentence:
        for sentence in sentences:
            if not (numeric_citations(sentence) or _SOURCE.search(sentence) or any(f"[^{lab}]" in sentence for lab in defined)):
                uncited.append(sentence[:120])
        if uncited:
            problems.append(
                f"{len(uncited)} of {len(sentences)} sentences {'has' if len(uncited) == 1 else 'have'} no citation, "
                f"first: {uncited[0]!r}"
            )

    ok = not problems
    meta.update(
        citations=total,
        numeric=sorted(set(numeric))[:200],
        footnotes=sorted(set(valid_footnotes))[:100],
        source_notes=len(sources),
        invalid_indexes=invalid[:100],
        undefined_footnotes=undefined[:100],
        sentences=len(sentences),
        uncited_sentences=uncited[:20],
        context_source=found["source"],
    )
    if ok:
        kinds = []
        if numeric:
            kinds.append(f"{len(numeric)} numeric")
        if valid_footnotes:
            kinds.append(f"{len(valid_footnotes)} footnote")
        if sources:
            kinds.append(f"{len(sources)} (Source: ...)")
        comment = f"{total} valid citation{'' if total == 1 else 's'} ({', '.join(kinds)})"
        if require_every_sentence:
            comment += f"; all {len(sentences)} sentences cite a source"
    else:
        comment = "; ".join(problems)
    return Scores([Score(name="citations_ok", value=ok, data_type="BOOLEAN", higher_is_better=True, comment=comment, metadata=meta)])
