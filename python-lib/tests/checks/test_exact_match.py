"""Tests of exact_match.

Expected values come from the SQuAD v1.1 ``normalize_answer`` steps, re-stated below as an
oracle; hand-worked values cite their formula in a comment.
"""

from __future__ import annotations

import re
import string
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks.exact_match import exact_match

from _support import ctx_of, valid


def squad_v11_normalize_answer(s: str) -> str:
    """Oracle: the SQuAD v1.1 evaluation script's normalize_answer, step by step
    (lower-case, drop string.punctuation, articles -> space, collapse whitespace)."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


class TestExactMatch:
    def test_equal(self):
        s = valid(exact_match(ctx_of("Paris", expected_output="Paris")))["exact_match"]
        assert s.value is True and s.data_type == "BOOLEAN" and s.higher_is_better is True

    def test_not_normalized_is_strict(self):
        assert exact_match(ctx_of("paris", expected_output="Paris"))[0].value is False
        assert exact_match(ctx_of("Paris.", expected_output="Paris"))[0].value is False
        assert exact_match(ctx_of(" Paris", expected_output="Paris"))[0].value is False

    def test_nfc_equal(self):
        assert exact_match(ctx_of(unicodedata.normalize("NFD", "Café"), expected_output="Café"))[0].value is True

    def test_normalize(self):
        # "The  Eiffel-Tower!" -> lower "the  eiffel-tower!" -> no punct "the  eiffeltower" -> no article -> "eiffeltower"
        assert exact_match(ctx_of("The  Eiffel-Tower!", expected_output="eiffeltower"), normalize=True)[0].value is True
        assert exact_match(ctx_of("an apple", expected_output="Apple"), normalize=True)[0].value is True
        assert exact_match(ctx_of("theory", expected_output="ory"), normalize=True)[0].value is False  # whole words only

    def test_normalize_casefold(self):
        # casefold, not lower: "STRASSE" == "straße"
        assert exact_match(ctx_of("STRASSE", expected_output="straße"), normalize=True)[0].value is True
        assert squad_v11_normalize_answer("STRASSE") != squad_v11_normalize_answer("straße")

    def test_normalize_keeps_non_ascii_punctuation(self):
        # string.punctuation is ASCII only: "«" and "¿" stay.
        assert exact_match(ctx_of("«Paris»", expected_output="Paris"), normalize=True)[0].value is False

    @settings(max_examples=300, deadline=None)
    @given(
        st.text(alphabet=string.ascii_letters + string.digits + string.punctuation + " \t\n", max_size=40),
        st.text(alphabet=string.ascii_letters + string.digits + string.punctuation + " \t\n", max_size=40),
    )
    def test_normalize_matches_squad_on_ascii(self, reply, reference):
        expected = squad_v11_normalize_answer(reply) == squad_v11_normalize_answer(reference)
        assert exact_match(ctx_of(reply), reference=reference, normalize=True)[0].value is expected

    def test_reference_argument_overrides_expected_output(self):
        ctx = ctx_of("Rome", expected_output="Paris")
        assert exact_match(ctx, reference="Rome")[0].value is True
        assert exact_match(ctx)[0].value is False

    def test_no_reference_is_no_value(self):
        s = valid(exact_match(ctx_of("Paris")))["exact_match"]
        assert s.value is None and s.data_type == "BOOLEAN"
        assert "reference" in s.comment

    def test_non_string_reference_is_json_text(self):
        assert exact_match(ctx_of("42", expected_output=42))[0].value is True
        assert exact_match(ctx_of('{"a": 1}', expected_output={"a": 1}))[0].value is True
        assert exact_match(ctx_of("true"), reference=True)[0].value is True

    def test_empty_reply(self):
        assert valid(exact_match(ctx_of(""), reference=""))[0].value is True
        assert exact_match(ctx_of(""), reference="x")[0].value is False
        assert exact_match(make_context({}), reference="")[0].value is True

    def test_cjk_emoji(self):
        assert exact_match(ctx_of("東京 😀"), reference="東京 😀")[0].value is True
        assert exact_match(ctx_of("東京😀"), reference="東京 😀", normalize=True)[0].value is False
