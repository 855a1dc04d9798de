"""``IsJson``, computed by ``oodle_eval.v1.metrics.json_validity``."""

from __future__ import annotations

from typing import Any, Optional

from .. import base_metric, score_result
from .._oodle import check_on_text


class IsJson(base_metric.BaseMetric):
    """1.0 when the output is JSON, else 0.0.

    Computed by ``json_validity``: RFC 8259 JSON (NaN and Infinity are not JSON), a leading BOM
    ignored and one Markdown code fence around the whole output stripped. Opik's IsJson calls
    ``json.loads`` as is, so it accepts NaN and refuses fenced JSON.
    """

    def __init__(self, name: str = "is_json_metric", track: bool = True, project_name: Optional[str] = None) -> None:
        super().__init__(name=name, track=track, project_name=project_name)

    def score(self, output: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        primary = check_on_text("json_validity", "" if output is None else str(output))["is_json"]
        return self.directed(score_result.ScoreResult(value=1.0 if primary.value else 0.0, name=self.name, reason=primary.comment))
