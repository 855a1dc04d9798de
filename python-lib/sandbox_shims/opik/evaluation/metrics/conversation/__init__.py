"""Conversation metrics of the Opik stand-in: the base class, the types and ConversationDegenerationMetric."""

from . import conversation_thread_metric, types
from .conversation_thread_metric import ConversationThreadMetric
from .heuristics.degeneration.metric import ConversationDegenerationMetric
from .types import Conversation, ConversationDict, ConversationTurn

__all__ = [
    "Conversation",
    "ConversationDegenerationMetric",
    "ConversationDict",
    "ConversationThreadMetric",
    "ConversationTurn",
    "conversation_thread_metric",
    "types",
]
