"""``opik.evaluation.metrics`` stand-in: BaseMetric, ScoreResult and the model-free metrics (see sandbox_shims/README.md)."""

from . import base_metric, score_result
from .base_metric import BaseMetric
from .conversation.heuristics.degeneration.metric import ConversationDegenerationMetric
from .heuristics.bertscore import BERTScore
from .heuristics.bleu import CorpusBLEU, SentenceBLEU
from .heuristics.chrf import ChrF
from .heuristics.contains import Contains
from .heuristics.distribution_metrics import JSDistance, JSDivergence, KLDivergence
from .heuristics.gleu import GLEU
from .heuristics.meteor import METEOR
from .heuristics.readability import Readability
from .heuristics.rouge import ROUGE
from .heuristics.sentiment import Sentiment
from .heuristics.spearman import SpearmanRanking
from .heuristics.vader_sentiment import VADERSentiment
from .heuristics.equals import Equals
from .heuristics.is_json import IsJson
from .heuristics.levenshtein_ratio import LevenshteinRatio
from .heuristics.regex_match import RegexMatch
from .heuristics.tone import Tone
from .score_result import ScoreResult

__all__ = [
    "BERTScore",
    "BaseMetric",
    "ChrF",
    "Contains",
    "ConversationDegenerationMetric",
    "CorpusBLEU",
    "Equals",
    "GLEU",
    "IsJson",
    "JSDistance",
    "JSDivergence",
    "KLDivergence",
    "LevenshteinRatio",
    "METEOR",
    "ROUGE",
    "Readability",
    "RegexMatch",
    "ScoreResult",
    "Sentiment",
    "SentenceBLEU",
    "SpearmanRanking",
    "Tone",
    "VADERSentiment",
    "base_metric",
    "score_result",
]
