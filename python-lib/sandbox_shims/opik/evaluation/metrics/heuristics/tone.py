"""``Tone``, computed by ``oodle_eval.v1.metrics.tone`` (Opik's Tone heuristic and lexicons)."""

from __future__ import annotations

from typing import Any, Optional

from ....exceptions import MetricComputationError
from .. import base_metric, score_result
from .._oodle import check_on_text


class Tone(base_metric.BaseMetric):
    """1.0 when the tone is within the guardrails (sentiment, shouting, exclamations, forbidden phrases).

    Custom lexicons and phrase lists of Opik's Tone are not supported here. An empty output
    raises MetricComputationError, as in Opik.
    """

    def __init__(
        self,
        name: str = "tone_metric",
        track: bool = True,
        project_name: Optional[str] = None,
        min_sentiment: float = -0.2,
        max_upper_ratio: float = 0.3,
        max_exclamations: int = 3,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._min_sentiment = min_sentiment
        self._max_upper_ratio = max_upper_ratio
        self._max_exclamations = max_exclamations

    def score(self, output: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        if not output or not output.strip():
            raise MetricComputationError("Text is empty (Tone metric).")
        primary = check_on_text(
            "tone",
            output,
            min_sentiment=self._min_sentiment,
            max_upper_ratio=self._max_upper_ratio,
            max_exclamations=self._max_exclamations,
        )["tone_ok"]
        passes = bool(primary.value)
        return self.directed(score_result.ScoreResult(
            value=1.0 if passes else 0.0,
            name=self.name,
            reason="Tone is within configured guardrails" if passes else "Tone violates guardrails",
            metadata=primary.metadata,
        ))
