"""combine.passed / all_pass / weighted_mean, rule by rule (docs/scores.md § combine)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from oodle_eval.v1 import Score, Scores, combine


def B(name, value, hib=True):
    return Score(name=name, value=value, data_type="BOOLEAN", higher_is_better=hib)


def N(name, value, hib=True):
    return Score(name=name, value=value, data_type="NUMERIC", higher_is_better=hib)


# ---------------------------------------------------------------- passed


@pytest.mark.parametrize(
    "score, expected",
    [
        (B("ok", True), True),
        (B("ok", False), False),
        (B("refused", True, hib=False), False),
        (B("refused", False, hib=False), True),
        (B("ok", None), False),
        (B("refused", None, hib=False), False),
        (N("x", 0.5), True),
        (N("x", 0.4999), False),
        (N("x", 1), True),
        (N("x", 0), False),
        (N("x", 0.5, hib=False), False),
        (N("x", 0.49, hib=False), True),
        (N("x", None), False),
        (N("x", None, hib=False), False),
    ],
)
def test_passed(score, expected):
    assert combine.passed(score) is expected


def test_passed_threshold_at():
    assert combine.passed(N("x", 0.7), at=0.7) is True
    assert combine.passed(N("x", 0.69), at=0.7) is False
    assert combine.passed(N("grade", 7, hib=False), at=8) is True
    assert combine.passed(N("grade", 8, hib=False), at=8) is False
    # at does not apply to BOOLEAN scores
    assert combine.passed(B("ok", True), at=2) is True


def test_passed_categorical_raises_naming_the_score():
    with pytest.raises(TypeError, match="'topic'"):
        combine.passed(Score(name="topic", value="math"))
    with pytest.raises(TypeError, match="'topic'"):
        combine.passed(Score(name="topic", value=None, data_type="CATEGORICAL"))


def test_passed_rejects_non_scores():
    with pytest.raises(TypeError):
        combine.passed(True)  # type: ignore[arg-type]


def test_passed_nan_fails():
    assert combine.passed(N("x", math.nan)) is False


# ---------------------------------------------------------------- all_pass


def test_all_pass_true():
    result = combine.all_pass([B("a", True), N("b", 0.9), B("refused", False, hib=False)], name="safe_reply")
    assert result.name == "safe_reply"
    assert result.value is True
    assert result.data_type == "BOOLEAN"
    assert result.higher_is_better is True
    assert result.metadata == {"failed": [], "checked": ["a", "b", "refused"]}
    result.validate()


def test_all_pass_comment_names_failures():
    result = combine.all_pass([B("a", True), N("b", 0.1), B("refused", True, hib=False), B("c", None)])
    assert result.value is False
    assert result.name == "all_pass"
    assert result.comment == "failed: b, refused, c"
    assert result.metadata["failed"] == ["b", "refused", "c"]


def test_all_pass_empty_passes():
    result = combine.all_pass([])
    assert result.value is True
    assert result.metadata == {"failed": [], "checked": []}


def test_all_pass_takes_scores_list_and_at():
    scores = Scores([N("x", 0.6), N("y", 0.65)])
    assert combine.all_pass(scores).value is True
    assert combine.all_pass(scores, at=0.62).value is False


def test_all_pass_categorical_raises():
    with pytest.raises(TypeError, match="'label'"):
        combine.all_pass([B("a", True), Score(name="label", value="x")])


# ---------------------------------------------------------------- weighted_mean


def test_weighted_mean_cookbook_example():
    primary = [B("readability_ok", True), B("tone_ok", False), B("within_length", True)]
    quality = combine.weighted_mean(
        primary, weights={"readability_ok": 1, "tone_ok": 2, "within_length": 1}, name="quality"
    )
    assert quality.name == "quality"
    assert quality.data_type == "NUMERIC"
    assert quality.value == pytest.approx(0.5)
    quality.validate()


def test_weighted_mean_default_name_and_weight_one():
    result = combine.weighted_mean([N("a", 0.2), N("b", 0.6)])
    assert result.name == "weighted_mean"
    assert result.value == pytest.approx(0.4)


def test_weighted_mean_unlisted_name_weighs_one():
    result = combine.weighted_mean([N("a", 1.0), N("b", 0.0)], weights={"a": 3})
    assert result.value == pytest.approx(0.75)


def test_weighted_mean_skips_categorical_and_none():
    result = combine.weighted_mean([N("a", 0.8), Score(name="c", value="x"), N("n", None), B("b", None)])
    assert result.value == pytest.approx(0.8)
    assert result.metadata["skipped"] == ["c", "n", "b"]
    assert "skipped: c, n, b" in result.comment


def test_weighted_mean_no_direction_flip():
    # a lower-is-better value is used as it is
    result = combine.weighted_mean([N("degeneration", 0.9, hib=False), N("x", 0.1)])
    assert result.value == pytest.approx(0.5)


def test_weighted_mean_no_usable_score_has_no_value():
    result = combine.weighted_mean([Score(name="c", value="x")])
    assert result.value is None and result.data_type == "NUMERIC"
    result.validate()
    assert combine.weighted_mean([]).value is None


def test_weighted_mean_zero_weights_have_no_value():
    result = combine.weighted_mean([N("a", 1.0), N("b", 0.5)], weights={"a": 0, "b": 0})
    assert result.value is None
    assert "sum to 0" in result.comment


def test_weighted_mean_weights_must_be_numbers():
    with pytest.raises(TypeError, match="'a'"):
        combine.weighted_mean([N("a", 1.0)], weights={"a": "3"})
    with pytest.raises(TypeError):
        combine.weighted_mean([N("a", 1.0)], weights={"a": True})


def test_weighted_mean_numeric_on_its_own_scale():
    result = combine.weighted_mean([N("reading_ease", 80.0), B("ok", True)])
    assert result.value == pytest.approx(40.5)


@given(
    st.lists(
        st.tuples(st.floats(0, 1, allow_nan=False), st.integers(1, 5)),
        min_size=1,
        max_size=8,
    )
)
def test_weighted_mean_is_between_min_and_max(items):
    scores = [N(f"s{i}", v) for i, (v, _) in enumerate(items)]
    weights = {f"s{i}": w for i, (_, w) in enumerate(items)}
    result = combine.weighted_mean(scores, weights=weights)
    lo = min(v for v, _ in items)
    hi = max(v for v, _ in items)
    assert lo - 1e-9 <= result.value <= hi + 1e-9
    result.validate()


@given(st.lists(st.booleans(), max_size=10))
def test_all_pass_equals_all(flags):
    scores = [B(f"b{i}", f) for i, f in enumerate(flags)]
    assert combine.all_pass(scores).value is all(flags)
