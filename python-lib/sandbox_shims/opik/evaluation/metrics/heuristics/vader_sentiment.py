"""``VADERSentiment`` as in Opik (``opik.evaluation.metrics.heuristics.vader_sentiment``).

VADER (Hutto & Gilbert, ICWSM 2014): the value is the compound score normalised to [0, 1],
``(compound + 1) / 2``, metadata ``vader`` the analyzer's scores. The analyzer is the one passed
in (anything with ``polarity_scores(text)``), else NLTK's SentimentIntensityAnalyzer, which
needs NLTK's ``vader_lexicon`` corpus: NLTK downloads it at run time, the sandbox has no network
and Debian does not package it, so without an analyzer the metric raises ImportError saying so.
"""

from __future__ import annotations

from typing import Any, Optional

from ....exceptions import MetricComputationError
from .. import base_metric, score_result
from .._nltk import module

VADER_UNAVAILABLE = (
    "{metric} needs NLTK's 'vader_lexicon' corpus, which the Oodle sandbox does not have (NLTK downloads it "
    "at run time; the sandbox has no network and Debian does not package it); pass analyzer= an object with "
    "polarity_scores(text)"
)


def vader_analyzer(metric: str) -> Any:
    """NLTK's SentimentIntensityAnalyzer, or ImportError naming ``metric`` and why."""
    sentiment = module("sentiment.vader", metric)
    try:
        return sentiment.SentimentIntensityAnalyzer()
    except LookupError as error:
        raise ImportError(VADER_UNAVAILABLE.format(metric=metric)) from error


class VADERSentiment(base_metric.BaseMetric):
    """VADER compound sentiment of the output, normalised to [0, 1] (0.5 neutral)."""

    def __init__(self, name: str = "vader_sentiment_metric", track: bool = True, project_name: Optional[str] = None, analyzer: Optional[Any] = None) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._analyzer = analyzer if analyzer is not None else vader_analyzer("VADERSentiment")

    def score(self, output: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        """Raises MetricComputationError for an empty text."""
        if not output or not output.strip():
            raise MetricComputationError("Text is empty (VADERSentiment).")
        scores = self._analyzer.polarity_scores(output)
        value = (float(scores.get("compound", 0.0)) + 1.0) / 2.0
        return self.directed(score_result.ScoreResult(value=value, name=self.name, reason=f"VADER compound score (normalized): {value:.4f}", metadata={"vader": scores}))
