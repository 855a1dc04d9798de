"""``Equals`` as in Opik: 1.0 when ``str(output)`` equals ``str(reference)`` (lower-cased unless case_sensitive)."""

from __future__ import annotations

from typing import Any, Optional

from .. import base_metric, score_result


class Equals(base_metric.BaseMetric):
    """1.0 when the output equals the reference, else 0.0 (Opik's semantics, ``str.lower``).

    oodle_eval's own check is ``metrics.exact_match`` (NFC, optional SQuAD normalisation).
    """

    def __init__(
        self,
        case_sensitive: bool = False,
        name: str = "equals_metric",
        track: bool = True,
        project_name: Optional[str] = None,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._case_sensitive = case_sensitive

    def score(self, output: Any, reference: Any, **ignored_kwargs: Any) -> score_result.ScoreResult:
        left, right = str(output), str(reference)
        if not self._case_sensitive:
            left, right = left.lower(), right.lower()
        return self.directed(score_result.ScoreResult(value=1.0 if left == right else 0.0, name=self.name))
