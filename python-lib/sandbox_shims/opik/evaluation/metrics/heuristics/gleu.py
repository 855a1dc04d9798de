"""``GLEU`` as in Opik (``opik.evaluation.metrics.heuristics.gleu``): Google-BLEU of one sentence by
NLTK's ``nltk.translate.gleu_score.sentence_gleu`` over whitespace tokens, n-grams of
``min_len`` to ``max_len`` (Wu et al., 2016). A custom ``gleu_fn`` gets (references, hypothesis)
as token lists."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

from ....exceptions import MetricComputationError
from .. import base_metric, score_result
from .._nltk import module

GleuFn = Callable[[Sequence[Sequence[str]], Sequence[str]], float]


class GLEU(base_metric.BaseMetric):
    """Sentence GLEU (0 to 1) of the output against one or more references."""

    def __init__(self, gleu_fn: Optional[GleuFn] = None, min_len: int = 1, max_len: int = 4, name: str = "gleu_metric", track: bool = True, project_name: Optional[str] = None) -> None:
        if min_len <= 0 or max_len <= 0:
            raise ValueError("min_len and max_len must be positive integers.")
        if min_len > max_len:
            raise ValueError("min_len cannot exceed max_len.")
        super().__init__(name=name, track=track, project_name=project_name)
        if gleu_fn is not None:
            self._gleu_fn = gleu_fn
        else:
            gleu = module("translate.gleu_score", "GLEU")
            self._gleu_fn = lambda refs, hyp: float(gleu.sentence_gleu(refs, hyp, min_len=min_len, max_len=max_len))

    def score(self, output: str, reference: Union[str, Sequence[str]], **ignored_kwargs: Any) -> score_result.ScoreResult:
        """GLEU; raises MetricComputationError when the candidate or a reference is empty."""
        if not output.strip():
            raise MetricComputationError("Candidate is empty (GLEU metric).")
        if isinstance(reference, str):
            references = [reference.split()]
        else:
            if not list(reference):
                raise MetricComputationError("Reference is empty (GLEU metric).")
            references = [r.split() for r in reference]
        if any(not r for r in references):
            raise MetricComputationError("Reference contains empty segment (GLEU metric).")
        value = float(self._gleu_fn(references, output.split()))
        return self.directed(score_result.ScoreResult(value=value, name=self.name, reason=f"GLEU score: {value:.4f}"))
