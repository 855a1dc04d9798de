"""oodle_eval.v1: the stable API of Oodle code evaluators.

``from oodle_eval.v1 import metrics, text, combine``; ``Score`` and ``EvaluationResult`` are also
injected into the evaluator's globals by the runner.
"""

from .context import Context, Session, Trace, TraceSpan, make_context
from .score import EvaluationResult, Score, ScoreError, Scores

__all__ = ["Context", "EvaluationResult", "Score", "ScoreError", "Scores", "Session", "Trace", "TraceSpan", "make_context"]
