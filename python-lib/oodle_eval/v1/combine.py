"""Combine scores: ``passed``, ``all_pass`` and ``weighted_mean`` (docs/scores.md § combine).

Rules:

* ``passed(score, at=0.5)`` — a BOOLEAN score passes when its value is True (when it is False, if
  ``higher_is_better`` is False); a NUMERIC score passes at ``value >= at`` (``value < at`` when
  lower is better); a score with no value (None) does not pass; a CATEGORICAL score has no
  direction, so it raises TypeError naming the score.
* ``all_pass(scores, name="all_pass", at=0.5)`` — one BOOLEAN score, True when every score passes
  by ``passed``; its comment names the scores that failed. An empty list passes.
* ``weighted_mean(scores, weights=None, name="weighted_mean")`` — one NUMERIC score: the weighted
  mean of the BOOLEAN (0 or 1) and NUMERIC values; CATEGORICAL scores and scores with no value are
  skipped; a name that ``weights`` does not list has the weight 1. Values are used as they are (no
  flip for lower-is-better scores). When the used weights sum to 0, or no score is usable, the
  result has no value.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

from .score import Score

__all__ = ["passed", "all_pass", "weighted_mean"]


def _check_score(score: object, where: str) -> Score:
    if not isinstance(score, Score):
        raise TypeError(f"{where} expects Score objects, got {type(score).__name__}")
    return score


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def passed(score: Score, at: float = 0.5) -> bool:
    """Whether one score passes, in the direction that the score declares.

    * BOOLEAN: True passes (False passes when ``higher_is_better`` is False).
    * NUMERIC: ``value >= at`` passes (``value < at`` when ``higher_is_better`` is False).
    * No value (None): does not pass.
    * CATEGORICAL: TypeError naming the score (a category has no direction).

    Args:
        score: a Score.
        at: the threshold of a NUMERIC score (default 0.5).
    """
    _check_score(score, "combine.passed")
    if score.data_type == "CATEGORICAL":
        raise TypeError(
            f"combine.passed: score {score.name!r} is CATEGORICAL and has no pass or fail; "
            "use a BOOLEAN or NUMERIC score"
        )
    value = score.value
    if value is None:
        return False
    if score.data_type == "BOOLEAN":
        if isinstance(value, bool):
            truth = value
        elif _is_number(value):
            truth = value != 0
        else:
            raise TypeError(f"combine.passed: BOOLEAN score {score.name!r} has a non-boolean value {value!r}")
        return truth if score.higher_is_better else not truth
    # NUMERIC
    if not isinstance(value, (int, float)):
        raise TypeError(f"combine.passed: NUMERIC score {score.name!r} has a non-numeric value {value!r}")
    if not _is_number(at):
        raise TypeError(f"combine.passed: at must be a number, got {at!r}")
    if isinstance(value, float) and math.isnan(value):
        return False
    return value >= at if score.higher_is_better else value < at


def all_pass(scores: Iterable[Score], name: str = "all_pass", at: float = 0.5) -> Score:
    """One BOOLEAN score that is True when every score passes by ``passed`` (an empty list passes).

    The comment names the scores that failed; metadata lists ``failed`` and ``checked`` names.

    Args:
        scores: the scores to read (a Scores list or any iterable of Score).
        name: the name of the result (default "all_pass").
        at: the threshold for NUMERIC scores, passed to ``passed``.
    Raises:
        TypeError: a score is CATEGORICAL (see ``passed``).
    """
    checked: list[str] = []
    failed: list[str] = []
    for score in scores:
        _check_score(score, "combine.all_pass")
        checked.append(score.name)
        if not passed(score, at=at):
            failed.append(score.name)
    ok = not failed
    if not checked:
        comment = "no scores to check: passes"
    elif ok:
        comment = f"all {len(checked)} scores pass" if len(checked) > 1 else f"{checked[0]} passes"
    else:
        comment = "failed: " + ", ".join(failed)
    return Score(
        name=name,
        value=ok,
        data_type="BOOLEAN",
        higher_is_better=True,
        comment=comment,
        metadata={"failed": failed, "checked": checked},
    )


def weighted_mean(
    scores: Iterable[Score],
    weights: Mapping[str, float] | None = None,
    name: str = "weighted_mean",
) -> Score:
    """One NUMERIC score: the weighted mean of the scores' values.

    BOOLEAN values count as 0 or 1 and NUMERIC values as they are; CATEGORICAL scores and scores
    with no value are skipped. A name that ``weights`` does not list has the weight 1. Values are
    not flipped for lower-is-better scores: give scores on the same scale that read the same way.
    When no score is usable, or the used weights sum to 0, the result has no value (None).

    Metadata: ``used`` ({name: {"value", "weight"}}) and ``skipped`` (names).

    Args:
        scores: the scores to average.
        weights: {score name: weight}; missing names weigh 1.
        name: the name of the result (default "weighted_mean").
    """
    weights = dict(weights or {})
    for key, weight in weights.items():
        if not _is_number(weight) or (isinstance(weight, float) and not math.isfinite(weight)):
            raise TypeError(f"combine.weighted_mean: the weight of {key!r} must be a finite number, got {weight!r}")
    used: dict[str, dict[str, float]] = {}
    skipped: list[str] = []
    total = 0.0
    weight_sum = 0.0
    for score in scores:
        _check_score(score, "combine.weighted_mean")
        value = score.value
        if score.data_type == "CATEGORICAL" or value is None:
            skipped.append(score.name)
            continue
        if isinstance(value, bool):
            number = 1.0 if value else 0.0
        elif _is_number(value):
            number = float(value)
        else:
            skipped.append(score.name)
            continue
        if math.isnan(number) or math.isinf(number):
            skipped.append(score.name)
            continue
        weight = weights.get(score.name, 1)
        used[score.name] = {"value": number, "weight": weight}
        total += weight * number
        weight_sum += weight
    if not used:
        result: float | None = None
        comment = "no score with a boolean or numeric value to average"
    elif weight_sum == 0:
        result = None
        comment = "the weights of the scores sum to 0"
    else:
        result = total / weight_sum
        parts = ", ".join(f"{n}={u['value']:g}×{u['weight']:g}" for n, u in used.items())
        comment = f"weighted mean {result:.4g} of {parts}"
    if skipped:
        comment += "; skipped: " + ", ".join(skipped)
    return Score(
        name=name,
        value=result,
        data_type="NUMERIC",
        higher_is_better=True,
        comment=comment,
        metadata={"used": used, "skipped": skipped},
    )
