"""``LevenshteinRatio``, computed by ``oodle_eval.v1.metrics.levenshtein_ratio``."""

from __future__ import annotations

from typing import Any, Optional

from ....exceptions import MetricComputationError
from .. import base_metric, score_result
from .._oodle import check_on_text


class LevenshteinRatio(base_metric.BaseMetric):
    """The Indel normalised similarity 1 − indel/(len a + len b) of rapidfuzz, as Opik reports it.

    Computed by ``levenshtein_ratio``: texts are NFC-normalised and case-insensitive comparison
    uses ``str.casefold`` (Opik: ``str.lower``).
    """

    def __init__(
        self,
        case_sensitive: bool = False,
        name: str = "levenshtein_ratio_metric",
        track: bool = True,
        project_name: Optional[str] = None,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._case_sensitive = case_sensitive

    def score(self, output: str, reference: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        if output is None or reference is None:
            raise MetricComputationError(
                "LevenshteinRatio metric requires non-None 'output' and 'reference' arguments, "
                f"got output={output!r}, reference={reference!r}"
            )
        if not isinstance(output, str) or not isinstance(reference, str):
            raise MetricComputationError(
                "LevenshteinRatio metric requires string 'output' and 'reference' arguments, "
                f"got output of type {type(output).__name__}, reference of type {type(reference).__name__}"
            )
        primary = check_on_text(
            "levenshtein_ratio", output, reference=reference, case_sensitive=self._case_sensitive
        )["levenshtein_ratio"]
        return self.directed(score_result.ScoreResult(value=float(primary.value), name=self.name))
