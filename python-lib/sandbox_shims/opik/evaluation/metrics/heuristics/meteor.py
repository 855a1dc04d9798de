"""``METEOR`` as in Opik (``opik.evaluation.metrics.heuristics.meteor``).

METEOR (Banerjee & Lavie, 2005) by NLTK's ``nltk.translate.meteor_score.meteor_score`` with
``alpha``, ``beta`` and ``gamma``; synonyms come from WordNet 3.0: NLTK's corpus when installed,
else Debian's wordnet-base (bound into the sandbox; see ``_nltk.wordnet``). Texts are split on
whitespace before scoring (NLTK wants tokens; it lower-cases them itself). A custom ``meteor_fn``
gets ``(references, hypothesis)`` as strings, as in Opik.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

from ....exceptions import MetricComputationError
from .. import base_metric, score_result
from .._nltk import module, wordnet

MeteorFn = Callable[[Sequence[str], str], float]


class METEOR(base_metric.BaseMetric):
    """METEOR (0 to 1) of the output against one or more references."""

    def __init__(
        self,
        meteor_fn: Optional[MeteorFn] = None,
        alpha: float = 0.9,
        beta: float = 3.0,
        gamma: float = 0.5,
        name: str = "meteor_metric",
        track: bool = True,
        project_name: Optional[str] = None,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        if meteor_fn is not None:
            self._meteor_fn = meteor_fn
            return
        meteor = module("translate.meteor_score", "METEOR")
        try:
            reader = wordnet()
        except LookupError as error:
            raise ImportError(str(error)) from error

        def scorer(references: Sequence[str], hypothesis: str) -> float:
            return float(
                meteor.meteor_score([r.split() for r in references], hypothesis.split(), wordnet=reader, alpha=alpha, beta=beta, gamma=gamma)
            )

        self._meteor_fn = scorer

    def score(self, output: str, reference: Union[str, Sequence[str]], **ignored_kwargs: Any) -> score_result.ScoreResult:
        """METEOR; raises MetricComputationError when the candidate or a reference is empty."""
        if not output.strip():
            raise MetricComputationError("Candidate is empty (METEOR metric).")
        references = [reference] if isinstance(reference, str) else list(reference)
        if not references or any(not r.strip() for r in references):
            raise MetricComputationError("Reference is empty (METEOR metric).")
        value = float(self._meteor_fn(references, output))
        return self.directed(score_result.ScoreResult(value=value, name=self.name, reason=f"METEOR score: {value:.4f}"))
