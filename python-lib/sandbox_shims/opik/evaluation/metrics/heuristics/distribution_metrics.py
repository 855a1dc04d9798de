"""``JSDivergence``, ``JSDistance`` and ``KLDivergence`` as in Opik
(``opik.evaluation.metrics.heuristics.distribution_metrics``), over token distributions (default
tokens: ``text.lower().split()``; counts normalised to probabilities unless ``normalize=False``).

* Jensen–Shannon: with M = (P + Q) / 2, ``JSD = (KL(P || M) + KL(Q || M)) / 2`` in log base
  ``base`` (Lin, IEEE Trans. Inf. Theory 1991); Opik takes it as the square of SciPy's
  ``scipy.spatial.distance.jensenshannon``, which is sqrt(JSD): the same number, computed here
  without SciPy. ``JSDivergence``'s value is ``1 - JSD`` clamped to [0, 1], metadata
  ``divergence`` (JSD), ``distance`` (sqrt JSD) and ``base``; ``JSDistance``'s value is JSD.
* ``KLDivergence``: ``sum p log(p / q)`` (natural log) over P's tokens with ``smoothing`` added to
  each p and q; direction "pq", "qp" or "avg" (the mean of both).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Callable, Dict, Iterable, Optional

from ....exceptions import MetricComputationError
from .. import base_metric, score_result

TokenizeFn = Callable[[str], Iterable[str]]


def _default_tokenizer(text: str) -> Iterable[str]:
    return text.lower().split()


class _DistributionMetricBase(base_metric.BaseMetric):
    def __init__(self, tokenizer: Optional[TokenizeFn], name: str, track: bool, project_name: Optional[str], normalize: bool, smoothing: float = 0.0) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._tokenizer = tokenizer or _default_tokenizer
        self._normalize = normalize
        self._smoothing = max(0.0, smoothing)

    def _distribution(self, text: str) -> Dict[str, float]:
        counts = Counter(self._tokenizer(text))
        if not counts:
            raise MetricComputationError("Tokenized text is empty (distribution-based metric).")
        if not self._normalize:
            return {t: float(c) for t, c in counts.items()}
        total = float(sum(counts.values()))
        return {t: c / total for t, c in counts.items()}


def _js_divergence(p: Dict[str, float], q: Dict[str, float], base: float) -> float:
    vocabulary = sorted(set(p) | set(q))
    p_total, q_total = sum(p.values()), sum(q.values())
    if p_total <= 0 or q_total <= 0:
        raise MetricComputationError("Distribution is empty after tokenisation (Jensen-Shannon metric).")
    divergence = 0.0
    for token in vocabulary:
        a, b = p.get(token, 0.0) / p_total, q.get(token, 0.0) / q_total
        m = (a + b) / 2
        if a > 0:
            divergence += a * math.log(a / m, base) / 2
        if b > 0:
            divergence += b * math.log(b / m, base) / 2
    return max(0.0, divergence)


class JSDivergence(_DistributionMetricBase):
    """Jensen–Shannon similarity ``1 - JSD`` of the two texts' token distributions (1.0 identical)."""

    def __init__(self, tokenizer: Optional[TokenizeFn] = None, base: float = 2.0, normalize: bool = True, name: str = "js_divergence_metric", track: bool = True, project_name: Optional[str] = None) -> None:
        if base <= 1.0:
            raise ValueError("base must be greater than 1.0")
        super().__init__(tokenizer=tokenizer, name=name, track=track, project_name=project_name, normalize=normalize)
        self._base = base

    def _divergence(self, output: str, reference: str) -> float:
        if not output.strip():
            raise MetricComputationError("Candidate is empty (Jensen-Shannon divergence).")
        if not reference.strip():
            raise MetricComputationError("Reference is empty (Jensen-Shannon divergence).")
        return _js_divergence(self._distribution(output), self._distribution(reference), self._base)

    def score(self, output: str, reference: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        """Raises MetricComputationError when a text is empty or has no tokens."""
        divergence = self._divergence(output, reference)
        value = max(0.0, min(1.0, 1.0 - divergence))
        return self.directed(score_result.ScoreResult(
            value=value,
            name=self.name,
            reason=f"Jensen-Shannon similarity (base={self._base:g}): {value:.4f} (divergence={divergence:.4f})",
            metadata={"divergence": divergence, "distance": math.sqrt(divergence), "base": self._base},
        ))


class JSDistance(JSDivergence):
    """The Jensen–Shannon divergence itself (0.0 identical; lower is better)."""

    higher_is_better = False

    def __init__(self, tokenizer: Optional[TokenizeFn] = None, base: float = 2.0, normalize: bool = True, name: str = "js_distance_metric", track: bool = True, project_name: Optional[str] = None) -> None:
        super().__init__(tokenizer=tokenizer, base=base, normalize=normalize, name=name, track=track, project_name=project_name)

    def score(self, output: str, reference: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        """Raises MetricComputationError when a text is empty or has no tokens."""
        divergence = self._divergence(output, reference)
        return self.directed(score_result.ScoreResult(
            value=divergence,
            name=self.name,
            reason=f"Jensen-Shannon divergence (base={self._base:g}): {divergence:.4f}",
            metadata={"distance": math.sqrt(divergence), "base": self._base},
        ))


class KLDivergence(_DistributionMetricBase):
    """Kullback–Leibler divergence of the token distributions (0.0 identical; lower is better)."""

    higher_is_better = False

    def __init__(self, tokenizer: Optional[TokenizeFn] = None, direction: str = "pq", normalize: bool = True, smoothing: float = 1e-12, name: str = "kl_divergence_metric", track: bool = True, project_name: Optional[str] = None) -> None:
        if direction not in {"pq", "qp", "avg"}:
            raise ValueError("direction must be one of {'pq', 'qp', 'avg'}")
        super().__init__(tokenizer=tokenizer, name=name, track=track, project_name=project_name, normalize=normalize, smoothing=smoothing)
        self._direction = direction

    def _kl(self, p: Dict[str, float], q: Dict[str, float]) -> float:
        total = 0.0
        for token, value in p.items():
            a, b = value + self._smoothing, q.get(token, 0.0) + self._smoothing
            total += a * math.log(a / b)
        return total

    def score(self, output: str, reference: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        """Raises MetricComputationError when a text is empty; ZeroDivisionError with no smoothing and a token missing from the other text."""
        if not output.strip():
            raise MetricComputationError("Candidate is empty (KL divergence metric).")
        if not reference.strip():
            raise MetricComputationError("Reference is empty (KL divergence metric).")
        p, q = self._distribution(output), self._distribution(reference)
        if self._direction == "pq":
            value = self._kl(p, q)
        elif self._direction == "qp":
            value = self._kl(q, p)
        else:
            value = 0.5 * (self._kl(p, q) + self._kl(q, p))
        return self.directed(score_result.ScoreResult(value=value, name=self.name, reason=f"KL divergence ({self._direction}): {value:.4f}"))
