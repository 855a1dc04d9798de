r"""length_budget: is the reply within a word budget.

Formula (docs/checks.md § length_budget): words = ``str.split()`` of the reply after Unicode NFC
(runs of Unicode whitespace separate words; a CJK sentence with no spaces is one word);
``within_length = word_count <= max_words``. An empty reply has 0 words.

Modelled on: the plain whitespace word count ``len(text.split())`` of CPython 3.11's
``str.split()`` with no separator, as the spec fixes (not IFEval's ``\w+`` tokeniser, which
splits "don't" into two words).

Errors: ``max_words`` must be a non-negative number (int or float, not bool); otherwise
ValueError naming ``max_words``.
"""

from __future__ import annotations

import math
import unicodedata

from ..context import Context
from ..score import Score, Scores
from .. import text as _text


def length_budget(ctx: Context, max_words: int) -> Scores:
    """Score whether the reply has at most ``max_words`` words.

    Args:
        ctx: the evaluation context; the reply is ``text.reply(ctx)``.
        max_words: the budget, in words (``str.split()``).
    Returns:
        Scores: ``within_length`` (BOOLEAN) then ``word_count`` (NUMERIC, lower is better).
    """
    if (
        isinstance(max_words, bool)
        or not isinstance(max_words, (int, float))
        or (isinstance(max_words, float) and not math.isfinite(max_words))
        or max_words < 0
    ):
        raise ValueError(f"length_budget: max_words must be a non-negative number, got {max_words!r}")
    reply = unicodedata.normalize("NFC", _text.reply(ctx))
    count = len(reply.split())
    within = count <= max_words
    budget = int(max_words) if float(max_words).is_integer() else max_words
    if within:
        comment = f"{count} word(s), within the budget of {budget}"
    else:
        comment = f"{count} word(s), {count - budget} over the budget of {budget}"
    return Scores(
        [
            Score(
                name="within_length",
                value=within,
                data_type="BOOLEAN",
                higher_is_better=True,
                comment=comment,
                metadata={"max_words": budget, "word_count": count},
            ),
            Score(
                name="word_count",
                value=count,
                data_type="NUMERIC",
                higher_is_better=False,
                comment=f"{count} word(s) by str.split()",
            ),
        ]
    )
