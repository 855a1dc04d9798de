"""Score.validate: the rules of docs/scores.md § Score, each naming the score."""

from __future__ import annotations

import math

import pytest

from oodle_eval.v1 import EvaluationResult, Score, ScoreError, Scores


def test_data_type_is_inferred_from_the_value():
    assert [Score("a", True).data_type, Score("b", 2).data_type, Score("c", "x").data_type, Score("d").data_type] == [
        "BOOLEAN",
        "NUMERIC",
        "CATEGORICAL",
        "NUMERIC",
    ]


@pytest.mark.parametrize(
    ("score", "message"),
    [
        (Score("", 1), "1-100 characters"),
        (Score("a\nb", 1), "no newline"),
        (Score("   ", 1), "must not be empty"),
        (Score("exact\u200bmatch", 1), "invisible character U\\+200B \\(character 6\\)"),
        (Score("\u202ehctam", 1), "bidirectional control U\\+202E"),
        (Score("a\tb", 1), "control character U\\+0009"),
        (Score("n", 1, data_type="BOOLEAN"), "BOOLEAN value must be True or False"),
        (Score("n", True, data_type="NUMERIC"), "NUMERIC value must be a number"),
        (Score("n", math.nan), "must be finite"),
        (Score("n", -math.inf), "must be finite"),
        (Score("n", 3, data_type="CATEGORICAL"), "CATEGORICAL value must be a string"),
        (Score("n", 1, metadata=[1]), "metadata must be a dict"),  # type: ignore[arg-type]
        (Score("n", 1, metadata={"x": math.nan}), "metadata must be JSON-serialisable"),
        (Score("n", 1, metadata={"x": object()}), "metadata must be JSON-serialisable"),
    ],
)
def test_each_rule_names_the_score(score, message):
    with pytest.raises(ScoreError, match=message):
        score.validate()


def test_names_keep_the_joiners_scripts_and_emoji_need():
    """ZWNJ/ZWJ between non-ASCII characters (Persian spelling, emoji sequences), and an emoji
    presentation selector, are part of a name; the same joiner between ASCII letters is not."""
    for name in ("\u0645\u06cc\u200c\u062e\u0648\u0627\u0645", "\U0001f469\u200d\U0001f4bb", "\u2764\ufe0f"):
        Score(name, 1).validate()
    with pytest.raises(ScoreError, match="U\\+200D"):
        Score("exact\u200dmatch", 1).validate()


def test_a_valid_score_and_no_value_pass():
    Score("n", 0.5, metadata={"k": [1, "a", None]}).validate()
    Score("n", None, data_type="BOOLEAN").validate()


def test_duplicate_names_in_one_result_are_an_error():
    with pytest.raises(ScoreError, match="'n' appears twice"):
        EvaluationResult(scores=[Score("n", 1), Score("n", 2)]).validate()


def test_scores_are_indexable_by_name_and_concatenate():
    scores = Scores([Score("a", True)]) + [Score("b", 1.0)]
    assert isinstance(scores, Scores)
    assert scores["b"].value == 1.0 and scores[0].name == "a"
    with pytest.raises(KeyError, match="no score named 'c'"):
        scores["c"]


def test_metadata_nesting_is_bounded_without_recursion():
    """64 levels of dicts and lists are fine; 65 is a ScoreError even with a high recursion limit
    (json.dumps alone would accept 6,000 levels then)."""
    from oodle_eval.v1.score import MAX_METADATA_DEPTH

    def nested(levels):
        root = node = {}
        for _ in range(levels - 1):
            node["a"] = {}
            node = node["a"]
        return root

    Score(name="ok", value=1, metadata=nested(MAX_METADATA_DEPTH)).validate()
    with pytest.raises(ScoreError, match="nest at most 64 levels"):
        Score(name="deep", value=1, metadata=nested(MAX_METADATA_DEPTH + 1)).validate()
    with pytest.raises(ScoreError, match="nest at most 64 levels"):
        Score(name="deep", value=1, metadata=nested(200_000)).validate()
    listed = []
    for _ in range(70):
        listed = [listed]
    with pytest.raises(ScoreError, match="nest at most 64 levels"):
        Score(name="lists", value=1, metadata={"l": listed}).validate()
