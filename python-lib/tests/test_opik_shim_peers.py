"""The Opik stand-in where Opik's own tests pinned a difference (issue 34): IsJson on non-strings,
``reason`` left None, the conversation metric at Opik's module path with Opik's per-turn keys."""

from __future__ import annotations

import pytest

from opik.evaluation.metrics import IsJson
from opik.evaluation.metrics.score_result import ScoreResult


@pytest.mark.parametrize("value", [None, 0, 123, -1, 3.14, ["a"], {"a": 1}])
def test_is_json_scores_a_non_string_zero(value):
    assert IsJson(track=False).score(output=value) == ScoreResult(name="is_json_metric", value=0.0, reason=None, metadata=None)


def test_is_json_leaves_reason_none_and_reads_bytes_as_json_loads_does():
    assert IsJson(track=False).score(output='{"a": 1}') == ScoreResult(name="is_json_metric", value=1.0, reason=None, metadata=None)
    assert IsJson(track=False).score(output=b'{"a": 1}').value == 1.0
    assert IsJson(track=False).score(output=b"\xff{").value == 0.0


def test_degeneration_metric_at_opiks_module_path_with_opiks_metadata():
    from opik.evaluation.metrics.conversation.heuristics.degeneration.metric import ConversationDegenerationMetric
    from opik.evaluation.metrics import ConversationDegenerationMetric as exported

    assert ConversationDegenerationMetric is exported
    repeated = "I'm sorry, I'm sorry, I'm sorry, I cannot assist with that request."
    result = ConversationDegenerationMetric(track=False).score(
        conversation=[
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello, how can I help you today?"},
            {"role": "assistant", "content": repeated},
            {"role": "assistant", "content": "..."},
            {"role": "assistant", "content": repeated},
        ]
    )
    assert set(result.metadata) == {"per_turn", "average_score", "peak_score"}
    assert len(result.metadata["per_turn"]) == 3  # the wordless turn has no entry, as in Opik
    assert [set(t) for t in result.metadata["per_turn"]] == [
        {"repetition_ratio", "overlap_previous", "fallback_hit", "normalized_entropy", "degeneration_score"}
    ] * 3
    # The last turn repeats the previous one with words: overlap 1.0 (Jaccard of equal token sets).
    assert result.metadata["per_turn"][2]["overlap_previous"] == 1.0
    assert result.reason == f"Peak degeneration risk (4 turns): {result.value:.3f}"
