"""``ConversationDegenerationMetric``, computed by oodle_eval's conversation_degeneration check."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .. import base_metric, score_result


class ConversationDegenerationMetric(base_metric.BaseMetric):
    """How strongly the assistant's turns repeat themselves or fall back to stock phrases (0 to 1).

    The value is the highest per-turn degeneration of Opik's formula (n-gram size 3, its phrase
    list), computed by ``oodle_eval.v1.checks.conversation_degeneration``; see docs/checks.md § conversation_degeneration for
    the deliberate differences (a turn with no words scores 0.25; no assistant turn scores 0.0
    where Opik raises). Lower is better: ``higher_is_better`` is False, and its results carry that
    direction, so a healthy conversation (a low value) passes.

    Args:
        name: the result's name (default "conversation_degeneration_metric").
        track, project_name: accepted for compatibility.
    """

    higher_is_better = False

    def __init__(
        self,
        name: str = "conversation_degeneration_metric",
        track: bool = True,
        project_name: Optional[str] = None,
        ngram_size: int = 3,
        fallback_phrases: Optional[List[str]] = None,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        if ngram_size != 3 or fallback_phrases is not None:
            raise NotImplementedError(
                "ConversationDegenerationMetric in Oodle supports only ngram_size=3 and Opik's phrase list"
            )

    def score(self, conversation: List[Dict[str, Any]], **ignored_kwargs: Any) -> score_result.ScoreResult:
        from oodle_eval.v1.checks.conversation_degeneration import degeneration_of_conversation

        value, metadata = degeneration_of_conversation(conversation)
        return self.directed(score_result.ScoreResult(
            name=self.name,
            value=value,
            reason=f"Peak degeneration risk: {value:.3f}",
            metadata=metadata,
        ))
