"""``ChrF`` as in Opik (``opik.evaluation.metrics.heuristics.chrf``): chrF (Popović, WMT 2015) by
NLTK's ``nltk.translate.chrf_score.sentence_chrf(references, candidate, beta=beta)``, called as
Opik calls it (NLTK joins several references with spaces into one; ``lowercase`` lower-cases both
sides first). ``char_order``, ``word_order`` and ``ignore_whitespace`` are accepted and, as in
Opik, not passed to NLTK (its defaults: character n-grams 1 to 6, whitespace ignored)."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

from ....exceptions import MetricComputationError
from .. import base_metric, score_result
from .._nltk import module

ChrFFn = Callable[[str, Sequence[str]], float]


class ChrF(base_metric.BaseMetric):
    """chrF (0 to 1) of the output against one or more references."""

    def __init__(
        self,
        name: str = "chrf_metric",
        track: bool = True,
        project_name: Optional[str] = None,
        beta: float = 2.0,
        ignore_whitespace: bool = False,
        char_order: int = 6,
        word_order: int = 0,
        lowercase: bool = False,
        chrf_fn: Optional[ChrFFn] = None,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._lowercase = lowercase
        if chrf_fn is not None:
            self._chrf_fn = chrf_fn
        else:
            chrf = module("translate.chrf_score", "ChrF")
            self._chrf_fn = lambda candidate, references: float(chrf.sentence_chrf(references, candidate, beta=beta))

    def score(self, output: str, reference: Union[str, Sequence[str]], **ignored_kwargs: Any) -> score_result.ScoreResult:
        """chrF; raises MetricComputationError when the candidate or a reference is empty."""
        if not output.strip():
            raise MetricComputationError("Candidate is empty (chrF metric).")
        references = [reference] if isinstance(reference, str) else list(reference)
        if not references or any(not r.strip() for r in references):
            raise MetricComputationError("Reference is empty (chrF metric).")
        if self._lowercase:
            output, references = output.lower(), [r.lower() for r in references]
        value = float(self._chrf_fn(output, references))
        return self.directed(score_result.ScoreResult(value=value, name=self.name, reason=f"chrF score: {value:.4f}"))
