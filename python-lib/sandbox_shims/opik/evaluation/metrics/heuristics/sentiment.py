"""``Sentiment`` as in Opik (``opik.evaluation.metrics.heuristics.sentiment``): NLTK's VADER
compound score (-1 to 1) with ``pos``/``neu``/``neg``/``compound`` as metadata; an empty text
scores 0.0. It needs NLTK's ``vader_lexicon``, which the sandbox does not have: building it
raises ImportError saying so (see ``vader_sentiment``)."""

from __future__ import annotations

from typing import Any, Optional

from .. import base_metric, score_result
from .vader_sentiment import vader_analyzer


class Sentiment(base_metric.BaseMetric):
    """VADER compound sentiment (-1.0 to 1.0)."""

    def __init__(self, name: str = "sentiment_metric", track: bool = True, project_name: Optional[str] = None) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._analyzer = vader_analyzer("Sentiment")

    def score(self, output: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        if not output.strip():
            return self.directed(score_result.ScoreResult(value=0.0, name=self.name, reason="Empty text provided for sentiment analysis.", metadata={"pos": 0.0, "neu": 0.0, "neg": 0.0, "compound": 0.0}))
        scores = self._analyzer.polarity_scores(output)
        compound = scores["compound"]
        category = "positive" if compound >= 0.05 else "negative" if compound <= -0.05 else "neutral"
        return self.directed(score_result.ScoreResult(value=compound, name=self.name, reason=f"Text sentiment analysis: {category} (compound score: {compound:.4f})", metadata=scores))
