"""The module path of earlier shim versions: ``ConversationDegenerationMetric`` lives at Opik's
``conversation.heuristics.degeneration.metric``."""

from .heuristics.degeneration.metric import ConversationDegenerationMetric

__all__ = ["ConversationDegenerationMetric"]
