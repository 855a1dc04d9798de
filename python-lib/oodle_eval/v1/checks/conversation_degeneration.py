r"""conversation_degeneration: is the assistant repeating itself or falling back to stock phrases
(Opik's ``ConversationDegenerationMetric``).

Source (newest version): comet-ml/opik
``sdks/python/src/opik/evaluation/metrics/conversation/heuristics/degeneration/metric.py``
(Apache-2.0; formula as at 5258893b0fb196e67c3ec27da550259489a4ae90), with the wordless-turn rule
of its newest unit tests (``sdks/python/tests/unit/evaluation/metrics/``, tests
``test_conversation_degeneration_scores_wordless_turn``, ``..._wordless_turn_does_not_hide_a_loop``
and ``..._all_wordless_turns``: a turn with no words scores through the same four factors as a
one-word reply, 0.25, where 5258893 still gave it 1.0), ``ngram_size=3``,
and ``DEFAULT_FALLBACK_PHRASES`` of ``.../conversation/heuristics/degeneration/phrases.py`` @
faeaf79c06a2d22aa089ab81fe446fd34dd9775b.

Formula. The assistant turns with non-empty content, oldest first. For each, tokens =
``re.findall(r"\b\w+\b", content.lower())`` and

- repetition_ratio = (occurrences of 3-grams that occur more than once) / (number of 3-grams),
  0.0 with fewer than 3 tokens;
- overlap_previous = Jaccard similarity of the token sets of this turn and the previous turn that
  had words (0.0 for the first);
- fallback_hit = 1.0 when a fallback phrase ("i'm sorry", "as an ai language model", ...) is a
  substring of the lower-cased content, else 0.0;
- normalized_entropy = 1 - H/log2(V), H the Shannon entropy (bits) of the token distribution and
  V the number of distinct tokens; H/log2(V) is 0.0 when V = 1 (so one distinct token gives 1.0);
- degeneration_score = min(1, (repetition_ratio + overlap_previous + fallback_hit +
  normalized_entropy) / 4).

A turn with no word tokens ("...", "???", blank) scores 0.25 (normalized_entropy 1.0, the rest
0.0), is marked ``is_wordless: 1.0``, and does not become the "previous turn" of the next one.
The conversation value is the highest per-turn score; ``degenerated = degeneration >= threshold``.

Decisions where Opik raises or the spec is silent: no assistant turn with content -> 0.0 and not
degenerated (Opik raises); an empty-string reply is not a turn (as in Opik, which skips turns with
falsy content), while a blank one ("  ") is a wordless turn. Assistant turns are those whose role
is "assistant" (also "ai", "model", "bot", as ``text.reply`` reads them). Text is NFC-normalised and
case-folded (``str.casefold``) instead of ``lower()`` (the spec); curly apostrophes (U+2019, U+2018,
U+02BC, U+2032) become "'" before the fallback-phrase search, so "I’m sorry" is a hit (no effect on
ASCII input or on tokens, since "'" is not a word character).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from typing import Any, Iterable, Mapping

from ..context import Context, part_text
from ..score import Score, Scores
from .. import text as _text

SOURCE = (
    "comet-ml/opik sdks/python/src/opik/evaluation/metrics/conversation/heuristics/degeneration/metric.py"
)

NGRAM_SIZE = 3

# phrases.py @ faeaf79c06a2d22aa089ab81fe446fd34dd9775b, verbatim.
DEFAULT_FALLBACK_PHRASES = (
    "i'm sorry",
    "as an ai language model",
    "i cannot",
    "i'm unable",
    "please provide",
    "i don't have access",
    "i don't understand",
    "could you please clarify",
)

_ASSISTANT_ROLES = frozenset({"assistant", "ai", "model", "bot"})
_TOKEN_RE = re.compile(r"\b\w+\b")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'"})

_WORDLESS_TURN = {
    "repetition_ratio": 0.0,
    "overlap_previous": 0.0,
    "fallback_hit": 0.0,
    "normalized_entropy": 1.0,
    "is_wordless": 1.0,
    "degeneration_score": 0.25,
}


def _fold(value: str) -> str:
    return unicodedata.normalize("NFC", value).casefold()


def _tokenize(value: str) -> list[str]:
    return _TOKEN_RE.findall(_fold(value))


def _ngram_counts(tokens: list[str], n: int) -> Counter:
    if len(tokens) < n:
        return Counter()
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _token_entropy(tokens: list[str]) -> float:
    counts = Counter(tokens)
    total = float(len(tokens))
    entropy = 0.0
    for count in counts.values():
        prob = count / total
        entropy -= prob * math.log(prob, 2)
    max_entropy = math.log(len(counts), 2) if counts else 1.0
    if max_entropy == 0:
        return 0.0
    return min(1.0, entropy / max_entropy)


def _repetition_ratio(tokens: list[str]) -> float:
    ngram_counts = _ngram_counts(tokens, NGRAM_SIZE)
    total = sum(ngram_counts.values())
    if total == 0:
        return 0.0
    repeated = sum(count for count in ngram_counts.values() if count > 1)
    return repeated / total


def _overlap_with_previous(tokens: list[str], prev_tokens: list[str] | None) -> float:
    if not prev_tokens:
        return 0.0
    current_set = set(tokens)
    prev_set = set(prev_tokens)
    if not current_set or not prev_set:
        return 0.0
    return len(current_set & prev_set) / len(current_set | prev_set)


def _fallback_phrases_in(content: str) -> list[str]:
    lowered = _fold(content).translate(_APOSTROPHES)
    return [phrase for phrase in DEFAULT_FALLBACK_PHRASES if phrase in lowered]


def _content(turn: Mapping[str, Any]) -> str:
    content = turn.get("content")
    return content if isinstance(content, str) else part_text(content)


def degeneration_of_conversation(conversation: Iterable[Mapping[str, Any]]) -> tuple[float, dict[str, Any]]:
    """Opik's ConversationDegenerationMetric on a list of ``{"role", "content"}`` turns.

    Returns:
        (peak score, metadata). Metadata holds ``per_turn`` (Opik's per-turn keys plus ``turn``,
        the index in ``conversation``, and ``fallback_phrases``, the phrases found),
        ``average_score``, ``peak_score``, ``peak_turn`` (index, None without turns),
        ``assistant_turns`` (how many were scored), ``ngram_size`` and ``reason`` (Opik's reason
        text). No assistant turn with content gives 0.0.
    """
    per_turn: list[dict[str, Any]] = []
    prev_tokens: list[str] | None = None
    for index, turn in enumerate(conversation):
        if not isinstance(turn, Mapping) or str(turn.get("role") or "").lower() not in _ASSISTANT_ROLES:
            continue
        content = _content(turn)
        if not content:
            continue
        tokens = _tokenize(content)
        if not tokens:
            per_turn.append({"turn": index, **_WORDLESS_TURN, "fallback_phrases": []})
            continue
        entropy_norm = _token_entropy(tokens)
        repetition_ratio = _repetition_ratio(tokens)
        prev_overlap = _overlap_with_previous(tokens, prev_tokens)
        phrases = _fallback_phrases_in(content)
        fallback_score = 1.0 if phrases else 0.0
        normalized_entropy = 1.0 - entropy_norm
        deg_score = min(1.0, (repetition_ratio + prev_overlap + fallback_score + normalized_entropy) / 4.0)
        per_turn.append(
            {
                "turn": index,
                "repetition_ratio": repetition_ratio,
                "overlap_previous": prev_overlap,
                "fallback_hit": fallback_score,
                "normalized_entropy": normalized_entropy,
                "is_wordless": 0.0,
                "degeneration_score": deg_score,
                "fallback_phrases": phrases,
            }
        )
        prev_tokens = tokens
    scores = [t["degeneration_score"] for t in per_turn]
    if not scores:
        return 0.0, {
            "per_turn": [],
            "average_score": 0.0,
            "peak_score": 0.0,
            "peak_turn": None,
            "assistant_turns": 0,
            "ngram_size": NGRAM_SIZE,
            "reason": "Conversation contains no assistant messages",
        }
    peak = max(scores)
    peak_turn = per_turn[scores.index(peak)]["turn"]
    return peak, {
        "per_turn": per_turn,
        "average_score": sum(scores) / len(scores),
        "peak_score": peak,
        "peak_turn": peak_turn,
        "assistant_turns": len(scores),
        "ngram_size": NGRAM_SIZE,
        "reason": f"Peak degeneration risk ({len(scores)} turns): {peak:.3f}",
    }


def conversation_degeneration(ctx: Context, threshold: float = 0.5) -> Scores:
    """Score how degenerate the assistant's turns are.

    Args:
        ctx: the evaluation context; turns are ``text.turns(ctx)``.
        threshold: ``degenerated`` when the peak score is at least this (None = 0.5).
    Returns:
        Scores: ``degenerated`` (BOOLEAN, lower is better) and ``degeneration`` (NUMERIC 0-1,
        lower is better).
    Raises:
        ValueError: threshold is not a finite number.
    """
    if threshold is None:
        threshold = 0.5
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
        raise ValueError(f"conversation_degeneration: threshold must be a finite number, got {threshold!r}")
    value, meta = degeneration_of_conversation(_text.turns(ctx))
    degenerated = value >= threshold
    if not meta["assistant_turns"]:
        comment = "no assistant turn: nothing degenerated"
    else:
        peak = next(t for t in meta["per_turn"] if t["turn"] == meta["peak_turn"])
        if peak["is_wordless"]:
            detail = "a reply with no words"
        else:
            parts = [
                f"repeated 3-grams {peak['repetition_ratio']:.2f}",
                f"overlap with previous reply {peak['overlap_previous']:.2f}",
                f"low diversity {peak['normalized_entropy']:.2f}",
            ]
            if peak["fallback_phrases"]:
                parts.append("fallback phrase " + ", ".join(repr(p) for p in peak["fallback_phrases"]))
            detail = ", ".join(parts)
        verdict = "degenerated" if degenerated else "not degenerated"
        comment = (
            f"{verdict}: peak {value:.3f} {'>=' if degenerated else '<'} threshold {threshold} "
            f"over {meta['assistant_turns']} assistant turn(s); at turn {meta['peak_turn']}: {detail}"
        )
    metadata = {k: v for k, v in meta.items() if k != "reason"}
    metadata["threshold"] = threshold
    metadata["source"] = SOURCE
    return Scores(
        [
            Score(
                name="degenerated",
                value=degenerated,
                data_type="BOOLEAN",
                higher_is_better=False,
                comment=comment,
                metadata=metadata,
            ),
            Score(
                name="degeneration",
                value=float(value),
                data_type="NUMERIC",
                higher_is_better=False,
                comment=comment,
                metadata={"peak_turn": meta["peak_turn"], "average_score": meta["average_score"]},
            ),
        ]
    )
