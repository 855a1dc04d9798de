"""Score values of numpy, decimal, fractions and other number types (docs/scores.md § Values):
what converts (and to what), and what is refused, naming the score and the type."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from conftest import run_source
from oodle_eval.v1 import EvaluationResult, Score, ScoreError, combine

# (value, data type inferred, plain value, its type): worked out by hand from the IEEE 754 binary64 rules.
CONVERTS = [
    (np.int64(3), "NUMERIC", 3, int),
    (np.int8(-7), "NUMERIC", -7, int),
    (np.uint64(2**64 - 2**11), "NUMERIC", 2**64 - 2**11, int),  # a multiple of 2**11 below 2**64: a double holds it
    (np.bool_(True), "BOOLEAN", True, bool),
    (np.bool_(False), "BOOLEAN", False, bool),
    (np.float64(0.25), "NUMERIC", 0.25, float),
    (np.float32(0.1), "NUMERIC", 0.10000000149011612, float),  # float32's 0.1, widened exactly
    (np.float16(0.5), "NUMERIC", 0.5, float),
    (np.longdouble(1) / np.longdouble(3), "NUMERIC", 1 / 3, float),  # rounded to the nearest double
    (Decimal("0.5"), "NUMERIC", 0.5, float),
    (Decimal("0.1"), "NUMERIC", 0.1, float),  # the nearest double, as the literal 0.1
    (Decimal("-12"), "NUMERIC", -12.0, float),
    (Decimal("1e-400"), "NUMERIC", 0.0, float),  # below the smallest double: its nearest is 0
    (Fraction(1, 4), "NUMERIC", 0.25, float),
    (Fraction(1, 3), "NUMERIC", 1 / 3, float),
    (2**53, "NUMERIC", 2**53, int),
    (-(2**53), "NUMERIC", -(2**53), int),
    (2**60, "NUMERIC", 2**60, int),  # beyond 2**53 but a double holds it
    (True, "BOOLEAN", True, bool),
    (1.5, "NUMERIC", 1.5, float),
    (np.str_("good"), "CATEGORICAL", "good", str),
]


@pytest.mark.parametrize(("value", "data_type", "plain", "kind"), CONVERTS, ids=lambda v: repr(v) if not isinstance(v, type) else v.__name__)
def test_a_real_number_of_any_type_converts_to_its_plain_value(value, data_type, plain, kind):
    score = Score("s", value)
    assert score.data_type == data_type
    score.validate()
    assert score.value == plain and type(score.value) is kind
    # What the runner sends is plain JSON, which the service reads as this very double.
    assert json.loads(json.dumps(score.to_dict(), allow_nan=False))["value"] == plain


# (value, what the message says after "score 's': NUMERIC value ").
REFUSED = [
    (2**53 + 1, "int 9007199254740993 has no exact 64-bit float (integers are exact up to 2**53 = 9007199254740992): pass float(value) to store the nearest one, 9007199254740992.0"),
    (np.uint64(2**64 - 1), "numpy.uint64 18446744073709551615 has no exact 64-bit float"),
    (-(2**53) - 1, "int -9007199254740993 has no exact 64-bit float"),
    (10**400, "int of 1329 bits is beyond the range of a 64-bit float"),
    (Decimal("1e400"), "decimal.Decimal is beyond the range of a 64-bit float"),
    (Fraction(10**400, 3), "fractions.Fraction is beyond the range of a 64-bit float"),
    (Decimal("NaN"), "must be finite, got Decimal('NaN')"),
    (Decimal("sNaN"), "must be finite, got Decimal('sNaN')"),
    (Decimal("-Infinity"), "must be finite, got Decimal('-Infinity')"),
    (float("nan"), "must be finite, got nan"),
    (np.float64("inf"), "must be finite, got "),
    (np.float32("nan"), "must be finite, got "),
    (1 + 2j, "must be a real number, got complex: give its real part (z.real) or its magnitude (abs(z))"),
    (np.complex128(1), "must be a real number, got numpy.complex128"),
    (np.array([0.5, 1.0]), "must be one number, got a numpy.ndarray of shape (2,): reduce it (float(a.mean())) or write one score per element"),
    (np.array(0.5), "must be one number, got a numpy.ndarray of shape (): take it with .item()"),
    (np.timedelta64(5, "s"), "must be a number, got numpy.timedelta64 (a time)"),
    (object(), "must be a bool, a number, a string or None, got object"),
]


@pytest.mark.parametrize(("value", "message"), REFUSED, ids=lambda v: type(v).__name__ if not isinstance(v, str) else "")
def test_what_does_not_convert_is_refused_naming_the_score_and_the_type(value, message):
    score = Score("s", value)
    with pytest.raises(ScoreError) as raised:
        score.validate()
    assert str(raised.value).startswith(f"score 's': NUMERIC value {message}")


def test_a_declared_data_type_still_decides():
    with pytest.raises(ScoreError, match=r"score 'b': BOOLEAN value must be True or False, got numpy\.int64"):
        Score("b", np.int64(1), data_type="BOOLEAN").validate()
    with pytest.raises(ScoreError, match=r"score 'n': NUMERIC value must be a number, got numpy\.bool"):
        Score("n", np.bool_(True), data_type="NUMERIC").validate()
    with pytest.raises(ScoreError, match=r"score 'c': CATEGORICAL value must be a string, got decimal\.Decimal"):
        Score("c", Decimal("1"), data_type="CATEGORICAL").validate()


def test_a_value_set_after_the_score_is_made_is_converted_by_validate():
    score = Score("s", 0.0)
    score.value = np.int32(4)
    EvaluationResult(scores=[score]).validate()
    assert type(score.value) is int and score.value == 4


def test_combine_reads_numpy_scores_as_numbers():
    assert combine.passed(Score("n", np.float32(0.75))) is True
    assert combine.passed(Score("n", np.int64(0))) is False
    assert combine.passed(Score("b", np.bool_(False), higher_is_better=False)) is True
    mean = combine.weighted_mean([Score("a", np.int64(1)), Score("b", Decimal("0.5")), Score("c", np.bool_(True))])
    assert mean.value == pytest.approx(2.5 / 3)


NUMPY_EVALUATOR = """
import numpy as np
from decimal import Decimal

def evaluate(ctx):
    words = np.array([len(w) for w in ctx.turns[-1]["content"].split()])
    return EvaluationResult(scores=[
        Score(name="words", value=words.size),           # int (size is a Python int)
        Score(name="longest", value=words.max()),        # numpy.int64
        Score(name="mean", value=words.mean()),          # numpy.float64
        Score(name="all_short", value=(words < 8).all()),  # numpy.bool_
        Score(name="price", value=Decimal("19.99")),
    ])
"""

MAIN_EVALUATOR = """
import numpy as np

def main(input, output, context, full_history, generated_response, **kwargs):
    lengths = np.array([len(w) for w in generated_response.split()])
    return {"longest": lengths.max(), "short": np.bool_(lengths.max() < 8), "mean": np.float32(lengths.mean())}
"""


def test_every_entry_point_turns_numpy_values_into_plain_scores():
    document = {"output": "one three seven"}
    scores = run_source(NUMPY_EVALUATOR, document)
    assert [(s.name, s.value, type(s.value).__name__, s.data_type) for s in scores] == [
        ("words", 3, "int", "NUMERIC"),
        ("longest", 5, "int", "NUMERIC"),
        ("mean", 13 / 3, "float", "NUMERIC"),
        ("all_short", True, "bool", "BOOLEAN"),
        ("price", 19.99, "float", "NUMERIC"),
    ]
    scores = run_source(MAIN_EVALUATOR, document)
    assert [(s.name, s.value, type(s.value).__name__, s.data_type) for s in scores] == [
        ("longest", 5, "int", "NUMERIC"),
        ("short", True, "bool", "BOOLEAN"),
        ("mean", float(np.float32(13 / 3)), "float", "NUMERIC"),
    ]


def test_main_names_a_value_of_no_score_type():
    source = "def main(input, output, context, full_history, generated_response, **kwargs):\n    return {'x': [1, 2]}\n"
    with pytest.raises(TypeError, match=r"main\(\) returned list for 'x': a value must be a bool, a number, a string or None"):
        run_source(source, {})
    with pytest.raises(ScoreError, match=r"score 'x': NUMERIC value must be a real number, got complex"):
        run_source(source.replace("[1, 2]", "1j"), {})
    assert math.isclose(run_source(source.replace("[1, 2]", "__import__('fractions').Fraction(1, 8)"), {})[0].value, 0.125)
