r"""tone: is the reply's tone within guardrails (Opik's ``Tone`` heuristic).

Source: comet-ml/opik ``sdks/python/src/opik/evaluation/metrics/heuristics/tone.py`` at commit
09c4ddc2080c2d6e087a791cfc8c70c85cef280c (Apache-2.0), with its default lexicons and forbidden
phrases (the same sets as ``tone_resources.py`` @ 7ef21ece82fb6d1fc9e2744c92da03cdd28d254f).

Formula, on the reply ``t``:
- tokens = ``re.findall(r"\b\w+\b", t.lower())``;
- sentiment = (positive hits - negative hits) / (positive + negative hits), 0.0 with no hit,
  counting every token in ``_POSITIVE_LEXICON`` / ``_NEGATIVE_LEXICON`` (whole tokens, so
  "thanks" is not "thank");
- uppercase_ratio = upper-case letters / letters (``str.isalpha`` / ``str.isupper``), 0.0 with no
  letter;
- exclamation_count = the number of "!";
- forbidden_hit = a forbidden phrase occurs as a substring of the lower-cased reply;
- ``tone_ok = sentiment >= min_sentiment and uppercase_ratio <= max_upper_ratio and
  exclamation_count <= max_exclamations and not forbidden_hit``.

Deviations (none changes a result on ASCII input): the reply is NFC-normalised and
``str.casefold()`` replaces ``lower()`` (the spec); the fullwidth "！" (U+FF01) counts as an
exclamation mark. Opik raises on an empty reply and on one without a word token; here an empty or
blank reply is ok (the spec) and a reply with no word (only "!!!!", say) is scored by the same
formula, with sentiment 0.0.

Parameters (``None`` means the default): ``min_sentiment`` in [-1, 1], ``max_upper_ratio`` in
[0, 1], ``max_exclamations`` >= 0; each must be a number (not bool), else ValueError naming it.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from ..context import Context
from ..score import Score, Scores
from .. import text as _text

SOURCE = "comet-ml/opik sdks/python/src/opik/evaluation/metrics/heuristics/tone.py @ 09c4ddc2080c2d6e087a791cfc8c70c85cef280c"

_POSITIVE_LEXICON = frozenset(
    {
        "appreciate",
        "assist",
        "glad",
        "helpful",
        "please",
        "thank",
        "welcome",
        "happy",
        "support",
        "great",
        "excellent",
        "wonderful",
    }
)

_NEGATIVE_LEXICON = frozenset(
    {
        "angry",
        "awful",
        "bad",
        "complain",
        "frustrated",
        "hate",
        "incompetent",
        "terrible",
        "useless",
        "stupid",
        "idiot",
    }
)

# A tuple in a fixed order (Opik's is a set) so that the comment names phrases in a stable order.
_FORBIDDEN_PHRASES = (
    "shut up",
    "this is pointless",
    "not my problem",
    "i refuse to assist",
)

_TOKEN_RE = re.compile(r"\b\w+\b")
_EXCLAMATIONS = ("!", "\uff01")

_DEFAULTS = {"min_sentiment": -0.2, "max_upper_ratio": 0.3, "max_exclamations": 3}


def _number(name: str, value: Any) -> float:
    if value is None:
        return _DEFAULTS[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"tone: {name} must be a finite number, got {value!r}")
    return value


def _uppercase_ratio(value: str) -> float:
    letters = [ch for ch in value if ch.isalpha()]
    if not letters:
        return 0.0
    upper = sum(1 for ch in letters if ch.isupper())
    return upper / len(letters)


def tone_signals(value: str) -> dict[str, Any]:
    """Opik's Tone signals of one text: sentiment_score, uppercase_ratio, exclamation_count,
    forbidden_hit (and forbidden_phrases, the phrases found)."""
    normal = unicodedata.normalize("NFC", value)
    folded = normal.casefold()
    tokens = _TOKEN_RE.findall(folded)
    pos_hits = sum(token in _POSITIVE_LEXICON for token in tokens)
    neg_hits = sum(token in _NEGATIVE_LEXICON for token in tokens)
    total = pos_hits + neg_hits
    sentiment = 0.0 if total == 0 else (pos_hits - neg_hits) / total
    phrases = [p for p in _FORBIDDEN_PHRASES if p in folded]
    return {
        "sentiment_score": sentiment,
        "uppercase_ratio": _uppercase_ratio(normal),
        "exclamation_count": sum(normal.count(mark) for mark in _EXCLAMATIONS),
        "forbidden_hit": bool(phrases),
        "forbidden_phrases": phrases,
        "positive_hits": pos_hits,
        "negative_hits": neg_hits,
    }


def tone(
    ctx: Context,
    min_sentiment: float = -0.2,
    max_upper_ratio: float = 0.3,
    max_exclamations: int = 3,
) -> Scores:
    """Score whether the reply's tone is within the guardrails.

    Args:
        ctx: the evaluation context; the reply is ``text.reply(ctx)``.
        min_sentiment: lowest lexicon sentiment allowed (-1 to 1).
        max_upper_ratio: highest share of upper-case letters allowed.
        max_exclamations: most exclamation marks allowed.
    Returns:
        Scores: ``tone_ok`` (BOOLEAN, higher is better).
    """
    min_s = _number("min_sentiment", min_sentiment)
    max_u = _number("max_upper_ratio", max_upper_ratio)
    max_e = _number("max_exclamations", max_exclamations)
    thresholds = {"min_sentiment": min_s, "max_upper_ratio": max_u, "max_exclamations": max_e}
    reply = _text.reply(ctx)
    if not reply.strip():
        return Scores(
            [
                Score(
                    name="tone_ok",
                    value=True,
                    data_type="BOOLEAN",
                    higher_is_better=True,
                    comment="empty reply: nothing to object to",
                    metadata={"empty": True, "thresholds": thresholds, "source": SOURCE},
                )
            ]
        )
    signals = tone_signals(reply)
    problems = []
    if signals["sentiment_score"] < min_s:
        problems.append(f"sentiment {signals['sentiment_score']:.2f} < {min_s}")
    if signals["uppercase_ratio"] > max_u:
        problems.append(f"upper-case ratio {signals['uppercase_ratio']:.2f} > {max_u}")
    if signals["exclamation_count"] > max_e:
        problems.append(f"{signals['exclamation_count']} exclamation marks > {max_e}")
    if signals["forbidden_hit"]:
        problems.append("forbidden phrase " + ", ".join(repr(p) for p in signals["forbidden_phrases"]))
    ok = not problems
    if ok:
        comment = (
            f"tone within guardrails: sentiment {signals['sentiment_score']:.2f}, "
            f"upper-case ratio {signals['uppercase_ratio']:.2f}, {signals['exclamation_count']} exclamation mark(s)"
        )
    else:
        comment = "tone violates guardrails: " + "; ".join(problems)
    return Scores(
        [
            Score(
                name="tone_ok",
                value=ok,
                data_type="BOOLEAN",
                higher_is_better=True,
                comment=comment,
                metadata={**signals, "thresholds": thresholds, "source": SOURCE},
            )
        ]
    )
