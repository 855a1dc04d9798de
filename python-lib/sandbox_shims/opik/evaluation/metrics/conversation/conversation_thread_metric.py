"""``ConversationThreadMetric`` stand-in: the base class of Opik's conversation metrics."""

from __future__ import annotations

from typing import Any, List, Union

from .. import base_metric, score_result
from . import types


class ConversationThreadMetric(base_metric.BaseMetric):
    """Base class of metrics over a whole conversation (as in comet-ml/opik).

    A subclass implements ``score(self, conversation, **kwargs)``; Oodle passes the span's or
    item's turns as ``conversation``: ``{"role": "user" | "assistant", "content": str}`` dicts,
    oldest first (other role names of a span, e.g. Open Chat Studio's "human"/"ai", are mapped to
    these two). A subclass is an entry point like any ``BaseMetric`` subclass.
    """

    def score(self, conversation: types.Conversation, **kwargs: Any) -> Union[score_result.ScoreResult, List[score_result.ScoreResult]]:
        """Evaluate the conversation. Subclasses implement it."""
        raise NotImplementedError("Please use concrete metric classes instead of this one.")

    async def ascore(self, conversation: types.Conversation, **kwargs: Any) -> Union[score_result.ScoreResult, List[score_result.ScoreResult]]:
        """Async variant: calls ``score``."""
        return self.score(conversation, **kwargs)
