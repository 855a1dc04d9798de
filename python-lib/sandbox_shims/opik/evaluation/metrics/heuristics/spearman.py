"""``SpearmanRanking`` as in Opik (``opik.evaluation.metrics.heuristics.spearman``).

Spearman's rank correlation of two rankings of the same distinct items,
``rho = 1 - 6 * sum(d_i^2) / (n (n^2 - 1))`` with d_i the difference of item i's positions
(rho = 1 for one item); the value is rho normalised to [0, 1], ``(rho + 1) / 2``, and
``metadata["rho"]`` is rho."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ....exceptions import MetricComputationError
from .. import base_metric, score_result


class SpearmanRanking(base_metric.BaseMetric):
    """Rank agreement of ``output`` with ``reference``: 1.0 the same order, 0.0 the reverse."""

    def __init__(self, name: str = "spearman_ranking_metric", track: bool = True, project_name: Optional[str] = None) -> None:
        super().__init__(name=name, track=track, project_name=project_name)

    def score(self, output: Sequence[Any], reference: Sequence[Any], **ignored_kwargs: Any) -> score_result.ScoreResult:
        """Raises MetricComputationError for rankings of different lengths or items, or empty ones."""
        if len(output) != len(reference):
            raise MetricComputationError("output and reference rankings must have the same length.")
        if not output:
            raise MetricComputationError("Rankings cannot be empty for Spearman correlation.")
        if set(output) != set(reference):
            raise MetricComputationError("Rankings must contain the same items.")
        position = {item: i for i, item in enumerate(reference)}
        n = len(output)
        squares = sum((i - position[item]) ** 2 for i, item in enumerate(output))
        rho = 1.0 if n == 1 else 1 - (6 * squares) / (n * (n * n - 1))
        value = (rho + 1) / 2
        return self.directed(score_result.ScoreResult(value=value, name=self.name, reason=f"Spearman correlation (normalized): {value:.4f}", metadata={"rho": rho}))
