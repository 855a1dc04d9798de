"""``opik.evaluation.metrics.conversation.heuristics.degeneration`` stand-in."""

from .metric import ConversationDegenerationMetric

__all__ = ["ConversationDegenerationMetric"]
