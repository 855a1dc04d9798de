"""``opik.evaluation.metrics`` stand-in: BaseMetric, ScoreResult and the metrics Oodle can compute."""

from . import base_metric, score_result
from .base_metric import BaseMetric
from .conversation.heuristics.degeneration.metric import ConversationDegenerationMetric
from .heuristics.contains import Contains
from .heuristics.equals import Equals
from .heuristics.is_json import IsJson
from .heuristics.levenshtein_ratio import LevenshteinRatio
from .heuristics.regex_match import RegexMatch
from .heuristics.tone import Tone
from .score_result import ScoreResult

__all__ = [
    "BaseMetric",
    "Contains",
    "ConversationDegenerationMetric",
    "Equals",
    "IsJson",
    "LevenshteinRatio",
    "RegexMatch",
    "ScoreResult",
    "Tone",
    "base_metric",
    "score_result",
]
