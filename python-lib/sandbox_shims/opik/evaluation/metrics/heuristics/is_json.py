"""``IsJson``, computed by ``oodle_eval.v1.metrics.json_validity``."""

from __future__ import annotations

from typing import Any, Optional

from .. import base_metric, score_result
from .._oodle import check_on_text


class IsJson(base_metric.BaseMetric):
    """1.0 when the output is JSON, else 0.0.

    Computed by ``json_validity``: RFC 8259 JSON (NaN and Infinity are not JSON), a leading BOM
    ignored and one Markdown code fence around the whole output stripped. Opik's IsJson calls
    ``json.loads`` as is, so it accepts NaN and refuses fenced JSON. As in Opik: an output that is
    not a string (None, a number, a list) scores 0.0 (bytes are decoded as UTF-8, as
    ``json.loads`` does), and the result has no ``reason``.
    """

    def __init__(self, name: str = "is_json_metric", track: bool = True, project_name: Optional[str] = None) -> None:
        super().__init__(name=name, track=track, project_name=project_name)

    def score(self, output: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        if isinstance(output, (bytes, bytearray)):
            try:
                output = bytes(output).decode("utf-8")
            except UnicodeDecodeError:
                output = None
        if not isinstance(output, str):
            return self.directed(score_result.ScoreResult(value=0.0, name=self.name))
        primary = check_on_text("json_validity", output)["is_json"]
        return self.directed(score_result.ScoreResult(value=1.0 if primary.value else 0.0, name=self.name))
