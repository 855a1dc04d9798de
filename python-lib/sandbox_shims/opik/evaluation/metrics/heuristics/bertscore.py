"""``BERTScore`` as in Opik (``opik.evaluation.metrics.heuristics.bertscore``).

BERTScore (Zhang et al., ICLR 2020) compares contextual embeddings of a BERT model: it needs the
``bert-score`` package, PyTorch and the model's weights, none of which the Oodle sandbox can have
(no model weights, no network to download them). Building it without ``scorer_fn`` raises
ImportError saying so; with a ``scorer_fn`` (``bert_score.score``'s interface: candidates,
references -> (P, R, F1)) it scores as Opik does: value F1, metadata precision and recall.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple, Union

from ....exceptions import MetricComputationError
from .. import base_metric, score_result

BertScoreFn = Callable[[Sequence[str], Any], Tuple[Any, Any, Any]]

BERTSCORE_UNAVAILABLE = (
    "BERTScore needs a BERT model's weights (the bert-score package and PyTorch), which the Oodle sandbox "
    "cannot have: no model weights are installed and there is no network to download them; pass scorer_fn="
)


def _number(value: Any) -> float:
    return float(value.item() if hasattr(value, "item") else value)


class BERTScore(base_metric.BaseMetric):
    """BERTScore F1 of the output against the reference, by the ``scorer_fn`` given."""

    def __init__(
        self,
        scorer_fn: Optional[BertScoreFn] = None,
        model_type: Optional[str] = "bert-base-uncased",
        lang: Optional[str] = "en",
        rescale_with_baseline: bool = False,
        device: Optional[str] = None,
        name: str = "bertscore_metric",
        track: bool = True,
        project_name: Optional[str] = None,
        **scorer_kwargs: Any,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        if scorer_fn is None:
            raise ImportError(BERTSCORE_UNAVAILABLE)
        self._scorer_fn = scorer_fn

    def score(self, output: str, reference: Union[str, Sequence[str], Sequence[Sequence[str]]], **ignored_kwargs: Any) -> score_result.ScoreResult:
        """Raises MetricComputationError for an empty candidate or reference list."""
        if not output.strip():
            raise MetricComputationError("Candidate is empty (BERTScore metric).")
        if isinstance(reference, str):
            references: Any = [reference]
        else:
            if len(reference) == 0:
                raise MetricComputationError("Reference is empty (BERTScore metric).")
            references = reference
        precision, recall, f1 = self._scorer_fn([output], references)
        value = _number(f1[0])
        return self.directed(score_result.ScoreResult(value=value, name=self.name, reason=f"BERTScore F1: {value:.4f}", metadata={"precision": _number(precision[0]), "recall": _number(recall[0])}))
