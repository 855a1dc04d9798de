"""Tests of levenshtein_ratio.

Expected values come from python-Levenshtein (Debian's python3-levenshtein, the library behind
Opik's LevenshteinRatio); hand-worked values cite their formula in a comment.
"""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks.levenshtein_ratio import lcs_length, levenshtein_ratio, ratio

from _support import ctx_of, valid


sys.path.append("/usr/lib/python3/dist-packages")
try:
    import Levenshtein as _Levenshtein  # Debian python3-levenshtein (C extension, CPython 3.11 ABI)
except ImportError:  # pragma: no cover - reported as a failure by _lev()
    _Levenshtein = None


def _lev():
    """The real python-Levenshtein module; a failure (never a skip) when it is not installed."""
    if _Levenshtein is None or not hasattr(_Levenshtein, "ratio"):
        pytest.fail(
            "python-Levenshtein is missing: install it with `apt-get install -y python3-levenshtein` "
            "(it lands in /usr/lib/python3/dist-packages)"
        )
    return _Levenshtein


def _nfc(s):
    return unicodedata.normalize("NFC", s)


class TestLevenshteinRatio:
    def test_kitten_sitting(self):
        # LCS("kitten", "sitting") = "ittn" (4); indel = 6 + 7 - 2*4 = 5; ratio = 1 - 5/13 = 8/13
        s = valid(levenshtein_ratio(ctx_of("kitten"), reference="sitting"))["levenshtein_ratio"]
        assert s.value == 8 / 13
        assert s.value == _lev().ratio("kitten", "sitting")
        assert s.data_type == "NUMERIC" and s.higher_is_better is True
        assert s.metadata["indel_distance"] == 5

    def test_both_empty(self):
        # both empty -> 1.0 by definition
        s = valid(levenshtein_ratio(ctx_of(""), reference=""))[0]
        assert s.value == 1.0 == _lev().ratio("", "")

    def test_one_empty(self):
        # indel = len(b) = lensum -> 1 - 1 = 0.0
        assert levenshtein_ratio(ctx_of(""), reference="abc")[0].value == 0.0 == _lev().ratio("", "abc")
        assert levenshtein_ratio(make_context({}), reference="abc")[0].value == 0.0

    def test_identical(self):
        assert levenshtein_ratio(ctx_of("same text"), reference="same text")[0].value == 1.0

    def test_default_reference_is_expected_output(self):
        ctx = ctx_of("kitten", expected_output="sitting")
        assert levenshtein_ratio(ctx)[0].value == _lev().ratio("kitten", "sitting")

    def test_no_reference_is_no_value(self):
        s = valid(levenshtein_ratio(ctx_of("kitten")))[0]
        assert s.value is None and s.data_type == "NUMERIC"
        assert "reference" in s.comment

    def test_non_string_reference(self):
        assert levenshtein_ratio(ctx_of('{"a": 1}'), reference={"a": 1})[0].value == 1.0

    def test_case_insensitive_default(self):
        assert levenshtein_ratio(ctx_of("HELLO World"), reference="hello world")[0].value == 1.0
        s = levenshtein_ratio(ctx_of("HELLO World"), reference="hello world", case_sensitive=True)[0]
        assert s.value == _lev().ratio("HELLO World", "hello world")

    def test_casefold_not_lower(self):
        # casefold: "straße" -> "strasse"; 1 - 0/14 = 1.0 (Opik's lower() would give a lower ratio)
        assert levenshtein_ratio(ctx_of("STRASSE"), reference="straße")[0].value == 1.0
        assert _lev().ratio("strasse", "straße") < 1.0

    def test_ascii_case_insensitive_equals_opik(self):
        # Opik LevenshteinRatio: Levenshtein.ratio(output.lower(), reference.lower())
        a, b = "The Quick Brown Fox", "the quick brown dog!"
        assert levenshtein_ratio(ctx_of(a), reference=b)[0].value == _lev().ratio(a.lower(), b.lower())

    @pytest.mark.parametrize(
        "a,b",
        [
            ("café crème", "cafe creme"),
            (unicodedata.normalize("NFD", "café"), "café"),
            ("東京で会いましょう", "大阪で会いましょうか"),
            ("😀👍🏽🎉", "😀🎉👍"),
            ("naïve résumé", "NAÏVE RÉSUMÉ"),
            ("a", "b"),
            ("ab", "ba"),
        ],
    )
    def test_unicode_against_python_levenshtein(self, a, b):
        lev = _lev()
        ci = levenshtein_ratio(ctx_of(a), reference=b)[0].value
        cs = levenshtein_ratio(ctx_of(a), reference=b, case_sensitive=True)[0].value
        assert ci == lev.ratio(_nfc(a).casefold(), _nfc(b).casefold())
        assert cs == lev.ratio(_nfc(a), _nfc(b))

    def test_nfd_equals_nfc(self):
        assert levenshtein_ratio(ctx_of(unicodedata.normalize("NFD", "Crème brûlée")), reference="Crème brûlée")[0].value == 1.0

    def test_ten_thousand_characters(self):
        import random

        rng = random.Random(20240611)
        alphabet = "abcdefghij klmnopqrstuvwxyzé東😀"
        a = "".join(rng.choice(alphabet) for _ in range(10_000))
        b = "".join(rng.choice(alphabet) for _ in range(10_000))
        lev = _lev()
        assert ratio(a, b) == lev.ratio(a, b)
        s = levenshtein_ratio(ctx_of(a), reference=b, case_sensitive=True)[0]
        assert s.value == lev.ratio(a, b)
        # An edited copy: a long common prefix and suffix around a changed middle.
        c = a[:4000] + "inserted text" + a[4100:]
        assert ratio(a, c) == lev.ratio(a, c)
        # Binary alphabet: every character of the shorter text has a match mask.
        d = "".join(rng.choice("ab") for _ in range(10_000))
        e = "".join(rng.choice("ab") for _ in range(9_000))
        assert ratio(d, e) == lev.ratio(d, e)

    def test_lcs_hand_worked(self):
        assert lcs_length("ABCBDAB", "BDCABA") == 4  # classic CLRS example: "BCBA"
        assert lcs_length("", "abc") == 0
        assert lcs_length("abc", "abc") == 3
        assert lcs_length("abc", "def") == 0

    @settings(max_examples=500, deadline=None)
    @given(st.text(max_size=60), st.text(max_size=60))
    def test_property_random_unicode(self, a, b):
        lev = _lev()
        assert ratio(a, b) == lev.ratio(a, b)
        assert ratio(a, b) == ratio(b, a)
        assert levenshtein_ratio(ctx_of(a), reference=b, case_sensitive=True)[0].value == lev.ratio(_nfc(a), _nfc(b))

    @settings(max_examples=300, deadline=None)
    @given(st.text(alphabet="abcAB é😀東", max_size=80), st.text(alphabet="abcAB é😀東", max_size=80))
    def test_property_small_alphabet(self, a, b):
        # A small alphabet makes long common subsequences, which exercise the carries of the bit vector.
        lev = _lev()
        value = levenshtein_ratio(ctx_of(a), reference=b)[0].value
        assert value == lev.ratio(_nfc(a).casefold(), _nfc(b).casefold())
        assert 0.0 <= value <= 1.0
