"""``SentenceBLEU`` and ``CorpusBLEU`` as in Opik (``opik.evaluation.metrics.heuristics.bleu``).

BLEU (Papineni et al., ACL 2002) computed by NLTK's ``nltk.translate.bleu_score`` exactly as Opik
calls it: texts lower-cased and split on whitespace, uniform weights over ``n_grams`` orders cut
to the candidate's length (the longest candidate for a corpus) and renormalised, NLTK's smoothing
method by name (an unknown name is method0), a ZeroDivisionError read as 0.0.
"""

from __future__ import annotations

import warnings
from typing import Any, List, Optional, Sequence, Union

from ....exceptions import MetricComputationError
from .. import base_metric, score_result
from .._nltk import module


class BaseBLEU(base_metric.BaseMetric):
    """Shared BLEU settings: n-gram order, smoothing method and weights (they must sum to 1.0)."""

    def __init__(self, name: str, track: bool, n_grams: int, smoothing_method: str, weights: Optional[List[float]], project_name: Optional[str]) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._bleu = module("translate.bleu_score", type(self).__name__)
        self.n_grams = n_grams
        self.smoothing_method = smoothing_method
        if weights is None:
            self.weights = [1.0 / n_grams] * n_grams
        else:
            if len(weights) != n_grams:
                raise ValueError(f"Length of weights ({len(weights)}) != n_grams ({n_grams}).")
            if abs(sum(weights) - 1.0) > 1e-6:
                raise ValueError("Weights must sum to 1.0")
            self.weights = list(weights)
        self._smoother = self._bleu.SmoothingFunction()

    def _smoothing(self) -> Any:
        return getattr(self._smoother, self.smoothing_method, self._smoother.method0)

    def _weights_for(self, length: int) -> tuple:
        used = self.weights[: min(self.n_grams, length)]
        total = sum(used) or 1.0
        return tuple(w / total for w in used)

    def _compute(self, fn: Any, references: Any, candidates: Any, length: int) -> float:
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=r"\nThe hypothesis contains 0 counts", category=UserWarning)
                return float(fn(references, candidates, weights=self._weights_for(length), smoothing_function=self._smoothing()))
        except ZeroDivisionError:
            return 0.0


def _tokens(text: str, empty: str) -> List[str]:
    if not text.strip():
        raise MetricComputationError(empty)
    return text.lower().split()


class SentenceBLEU(BaseBLEU):
    """Sentence-level BLEU of one candidate against one or more references (0 to 1)."""

    def __init__(self, name: str = "sentence_bleu_metric", track: bool = True, n_grams: int = 4, smoothing_method: str = "method1", weights: Optional[List[float]] = None, project_name: Optional[str] = None) -> None:
        super().__init__(name, track, n_grams, smoothing_method, weights, project_name)

    def score(self, output: str, reference: Union[str, Sequence[str]], **ignored_kwargs: Any) -> score_result.ScoreResult:
        """BLEU of ``output``; raises MetricComputationError when the candidate or a reference is empty."""
        candidate = _tokens(output, "Candidate is empty (single-sentence BLEU).")
        if isinstance(reference, str):
            references = [_tokens(reference, "Reference is empty (single-sentence BLEU).")]
        else:
            references = [_tokens(r, "Encountered empty reference (single-sentence BLEU).") for r in reference]
        value = self._compute(self._bleu.sentence_bleu, references, candidate, len(candidate))
        return self.directed(score_result.ScoreResult(value=value, name=self.name, reason=f"Sentence-level BLEU (nltk, method={self.smoothing_method}): {value:.4f}"))


class CorpusBLEU(BaseBLEU):
    """Corpus-level BLEU: candidates and their references in parallel lists."""

    def __init__(self, name: str = "corpus_bleu_metric", track: bool = True, n_grams: int = 4, smoothing_method: str = "method1", weights: Optional[List[float]] = None, project_name: Optional[str] = None) -> None:
        super().__init__(name, track, n_grams, smoothing_method, weights, project_name)

    def score(self, output: Sequence[str], reference: Sequence[Union[str, Sequence[str]]], **ignored_kwargs: Any) -> score_result.ScoreResult:
        """Corpus BLEU; raises MetricComputationError on an empty text or a length mismatch."""
        if len(output) != len(reference):
            raise MetricComputationError("Mismatch: number of candidates != number of references (corpus BLEU).")
        candidates, references = [], []
        for text, refs in zip(output, reference):
            candidates.append(_tokens(text, "Candidate is empty (corpus BLEU)."))
            if isinstance(refs, str):
                references.append([_tokens(refs, "Reference is empty (corpus BLEU).")])
            else:
                references.append([_tokens(r, "Encountered empty reference (corpus BLEU).") for r in refs])
        longest = max((len(c) for c in candidates), default=0)
        value = self._compute(self._bleu.corpus_bleu, references, candidates, longest)
        return self.directed(score_result.ScoreResult(value=value, name=self.name, reason=f"Corpus-level BLEU (nltk, method={self.smoothing_method}): {value:.4f}"))
