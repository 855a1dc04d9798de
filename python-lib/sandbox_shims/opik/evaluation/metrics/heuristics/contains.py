"""``Contains`` as in Opik, computed by ``oodle_eval.v1.metrics.keyword_check``."""

from __future__ import annotations

from typing import Any, Optional

from .. import base_metric, score_result
from .._oodle import check_on_text


class Contains(base_metric.BaseMetric):
    """1.0 when the reference occurs in the output, else 0.0.

    Computed by ``keyword_check(required=[reference])``: case-insensitive matching uses
    ``str.casefold`` after NFC (Opik uses ``str.lower``). A missing or empty reference raises
    ValueError, as in Opik.
    """

    def __init__(
        self,
        case_sensitive: bool = False,
        reference: Optional[str] = None,
        name: str = "contains_metric",
        track: bool = True,
        project_name: Optional[str] = None,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._case_sensitive = case_sensitive
        self._default_reference = reference

    def score(self, output: str, reference: Optional[str] = None, **ignored_kwargs: Any) -> score_result.ScoreResult:
        ref = reference if reference is not None else self._default_reference
        if ref is None:
            raise ValueError(
                "No reference string provided. Either pass `reference` to `score()` or set a default "
                "reference when creating the metric."
            )
        if ref == "":
            raise ValueError("Invalid reference string provided. Reference must be a non-empty string.")
        scores = check_on_text(
            "keyword_check", output, required=[ref], case_sensitive=self._case_sensitive, name="contains"
        )
        return self.directed(score_result.ScoreResult(value=1.0 if scores["contains"].value else 0.0, name=self.name))
