"""Conversation metrics of the Opik stand-in."""

from .degeneration import ConversationDegenerationMetric

__all__ = ["ConversationDegenerationMetric"]
