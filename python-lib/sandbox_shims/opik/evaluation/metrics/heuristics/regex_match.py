"""``RegexMatch`` as in Opik: 1.0 when ``re.search`` finds the pattern in the output."""

from __future__ import annotations

import re
from typing import Any, Optional, Union

from ....exceptions import MetricComputationError
from .. import base_metric, score_result


class RegexMatch(base_metric.BaseMetric):
    """1.0 when the regular expression matches somewhere in the output, else 0.0."""

    def __init__(
        self,
        regex: Union[str, "re.Pattern[str]"],
        name: str = "regex_match_metric",
        track: bool = True,
        project_name: Optional[str] = None,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._regex_pattern = re.compile(regex) if isinstance(regex, str) else regex

    def score(self, output: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        if output is None:
            raise MetricComputationError("RegexMatch metric requires a non-None 'output' argument, got None")
        if not isinstance(output, str):
            raise MetricComputationError(
                f"RegexMatch metric requires a string 'output' argument, got {type(output).__name__}"
            )
        return self.directed(score_result.ScoreResult(value=1.0 if self._regex_pattern.search(output) else 0.0, name=self.name))
