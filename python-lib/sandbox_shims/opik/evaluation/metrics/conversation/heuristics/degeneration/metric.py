"""``ConversationDegenerationMetric`` at Opik's module path
(``opik.evaluation.metrics.conversation.heuristics.degeneration.metric``), computed by oodle_eval's
conversation_degeneration check."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .... import base_metric, score_result


class ConversationDegenerationMetric(base_metric.BaseMetric):
    """How strongly the assistant's turns repeat themselves or fall back to stock phrases (0 to 1).

    The value is the highest per-turn degeneration of Opik's formula (n-gram size 3, its phrase
    list), computed by ``oodle_eval.v1.checks.conversation_degeneration``; see docs/checks.md § conversation_degeneration for
    the deliberate differences (a turn with no words scores 0.25; no assistant turn scores 0.0
    where Opik raises). Lower is better: ``higher_is_better`` is False, and its results carry that
    direction, so a healthy conversation (a low value) passes.

    The result is shaped as Opik's: reason "Peak degeneration risk (N turns): X", metadata
    ``per_turn`` (one entry per assistant turn with words, Opik's five keys: ``repetition_ratio``,
    ``overlap_previous``, ``fallback_hit``, ``normalized_entropy``, ``degeneration_score``),
    ``average_score`` and ``peak_score``.

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
        per_turn = [{key: turn[key] for key in _OPIK_TURN_KEYS} for turn in metadata["per_turn"] if not turn.get("is_wordless")]
        return self.directed(score_result.ScoreResult(
            name=self.name,
            value=value,
            reason=f"Peak degeneration risk ({metadata['assistant_turns']} turns): {value:.3f}",
            metadata={"per_turn": per_turn, "average_score": metadata["average_score"], "peak_score": metadata["peak_score"]},
        ))


# The keys of a per-turn entry in Opik's metadata (the check's own metadata has more).
_OPIK_TURN_KEYS = ("repetition_ratio", "overlap_previous", "fallback_hit", "normalized_entropy", "degeneration_score")
