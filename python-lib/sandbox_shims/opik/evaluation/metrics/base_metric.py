"""``opik.evaluation.metrics.base_metric`` stand-in with Opik's constructor signature."""

from __future__ import annotations

from typing import Any, List, Optional, Union

from . import score_result


class BaseMetric:
    """Base class of metrics: subclass it and implement ``score`` (as in comet-ml/opik).

    Args:
        name: the metric's name; the class name when None.
        track: accepted for compatibility; nothing is tracked in the sandbox.
        project_name: accepted for compatibility (only allowed when ``track`` is True, as in Opik).

    Oodle's addition: ``higher_is_better`` (a class attribute, default True) is the direction of
    the metric's scores, stored with each score and used by pass rates (``combine.passed``). Each
    metric of this shim sets it (ConversationDegenerationMetric, JSDistance, KLDivergence: False) and tags its results with
    it (``directed``), so a result keeps its direction when another metric returns it; a
    subclass may set it for its own results (a result not tagged takes its metric's direction).
    """

    higher_is_better: bool = True

    def __init__(self, name: Optional[str] = None, track: bool = True, project_name: Optional[str] = None) -> None:
        if not track and project_name is not None:
            raise ValueError("project_name can be set only when `track` is set to True")
        self.name = name if name is not None else self.__class__.__name__
        self.track = track
        self.project_name = project_name

    def directed(self, result: score_result.ScoreResult) -> score_result.ScoreResult:
        """``result`` tagged with this metric's direction (its ``higher_is_better`` attribute); returns it."""
        result.higher_is_better = self.higher_is_better  # type: ignore[attr-defined]
        return result

    def score(self, *args: Any, **kwargs: Any) -> Union[score_result.ScoreResult, List[score_result.ScoreResult]]:
        """Compute the metric. Subclasses implement it."""
        raise NotImplementedError()

    async def ascore(self, *args: Any, **kwargs: Any) -> Union[score_result.ScoreResult, List[score_result.ScoreResult]]:
        """Async variant: calls ``score``."""
        return self.score(*args, **kwargs)
