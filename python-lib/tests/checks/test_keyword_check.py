"""Tests of keyword_check."""

from __future__ import annotations

import re
import unicodedata

import pytest

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks.keyword_check import keyword_check

from _support import ctx_of, valid


class TestKeywordCheck:
    def test_all_required_present(self):
        s = valid(keyword_check(ctx_of("We will refund your order today."), required=["refund", "order"]))["keywords_ok"]
        assert s.value is True and s.data_type == "BOOLEAN" and s.higher_is_better is True

    def test_missing_required_named(self):
        s = valid(keyword_check(ctx_of("We will refund you."), required=["refund", "order", "today"]))["keywords_ok"]
        assert s.value is False
        assert "'order'" in s.comment and "'today'" in s.comment
        assert s.metadata["missing_required"] == ["order", "today"]

    def test_any_mode(self):
        assert keyword_check(ctx_of("a refund"), required=["refund", "return"], mode="any")[0].value is True
        s = keyword_check(ctx_of("nothing"), required=["refund", "return"], mode="any")[0]
        assert s.value is False and "'refund'" in s.comment

    def test_forbidden_found_named(self):
        s = valid(keyword_check(ctx_of("We guarantee it, a promise."), forbidden=["guarantee", "promise", "risk-free"]))[0]
        assert s.value is False
        assert "'guarantee'" in s.comment and "'promise'" in s.comment and "risk-free" not in s.comment
        assert s.metadata["found_forbidden"] == ["guarantee", "promise"]

    def test_required_and_forbidden_both_reported(self):
        s = keyword_check(ctx_of("we guarantee"), required=["refund"], forbidden=["guarantee"])[0]
        assert s.value is False
        assert "'refund'" in s.comment and "'guarantee'" in s.comment

    def test_no_required_terms_is_present(self):
        assert valid(keyword_check(ctx_of("anything")))[0].value is True
        assert keyword_check(ctx_of("anything"), forbidden=["guarantee"])[0].value is True

    def test_substring_match(self):
        # Substring, not word: "refunded" holds "refund".
        assert keyword_check(ctx_of("It was refunded."), required=["refund"])[0].value is True

    def test_case_insensitive_is_casefold(self):
        # casefold: "STRASSE".casefold() == "strasse" == "straße".casefold()
        assert keyword_check(ctx_of("Die Straße ist lang"), required=["STRASSE"])[0].value is True
        assert keyword_check(ctx_of("REFUND"), required=["refund"])[0].value is True

    def test_case_sensitive(self):
        assert keyword_check(ctx_of("REFUND"), required=["refund"], case_sensitive=True)[0].value is False
        assert keyword_check(ctx_of("refund"), required=["refund"], case_sensitive=True)[0].value is True

    def test_nfc_accents(self):
        decomposed = unicodedata.normalize("NFD", "café au lait")
        assert decomposed != "café au lait"
        assert keyword_check(ctx_of(decomposed), required=["café"])[0].value is True
        assert keyword_check(ctx_of("café"), forbidden=[unicodedata.normalize("NFD", "CAFÉ")])[0].value is False

    def test_cjk_and_emoji(self):
        assert keyword_check(ctx_of("東京で会いましょう 😀"), required=["東京", "😀"])[0].value is True
        assert keyword_check(ctx_of("東京で会いましょう"), forbidden=["大阪"])[0].value is True

    def test_empty_reply(self):
        assert valid(keyword_check(ctx_of(""), required=["refund"]))[0].value is False
        assert keyword_check(ctx_of(""), forbidden=["refund"])[0].value is True

    def test_name_parameter(self):
        scores = valid(keyword_check(ctx_of("ok"), forbidden=["guarantee"], name="policy_ok"))
        assert scores.names() == ["policy_ok"]

    def test_single_string_is_one_term(self):
        assert keyword_check(ctx_of("refund"), required="refund")[0].value is True
        assert keyword_check(ctx_of("r"), required="refund")[0].value is False

    @pytest.mark.parametrize(
        "kwargs,label",
        [
            ({"required": ["refund", ""]}, "required[1]"),
            ({"required": ["   "]}, "required[0]"),
            ({"forbidden": ["\t\n"]}, "forbidden[0]"),
            ({"forbidden": [""]}, "forbidden[0]"),
        ],
    )
    def test_blank_term_is_an_error(self, kwargs, label):
        with pytest.raises(ValueError, match=re.escape(label)):
            keyword_check(ctx_of("x"), **kwargs)

    def test_invalid_mode(self):
        with pytest.raises(ValueError, match="mode"):
            keyword_check(ctx_of("x"), required=["x"], mode="most")

    def test_params_with_none(self):
        # ctx.params holds None for a setting without a default: keyword_check(ctx, **ctx.params) works.
        ctx = make_context({"output": "refund"}, params={"required": ["refund"], "forbidden": None, "mode": None, "case_sensitive": None})
        assert keyword_check(ctx, **ctx.params)[0].value is True
