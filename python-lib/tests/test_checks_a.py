"""Tests of json_validity, keyword_check, length_budget, exact_match, levenshtein_ratio and
tool_trajectory (oodle-eval-v1.md, "The checks").

Expected values come from the reference implementations where one exists here:
python-Levenshtein (Debian's python3-levenshtein, the library behind Opik's LevenshteinRatio) for
levenshtein_ratio, and the SQuAD v1.1 ``normalize_answer`` steps (re-stated below as an oracle) for
exact_match. Hand-worked values cite their formula in a comment.
"""

from __future__ import annotations

import json
import re
import string
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oodle_eval.v1 import EvaluationResult, Scores, make_context
from oodle_eval.v1 import text
from oodle_eval.v1.checks._json_rules import parse_json_reply
from oodle_eval.v1.checks.exact_match import exact_match
from oodle_eval.v1.checks.json_validity import json_validity
from oodle_eval.v1.checks.keyword_check import keyword_check
from oodle_eval.v1.checks.length_budget import length_budget
from oodle_eval.v1.checks.levenshtein_ratio import lcs_length, levenshtein_ratio, ratio
from oodle_eval.v1.checks.tool_trajectory import json_equal, tool_trajectory

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


def ctx_of(reply=None, **doc):
    """A context whose output is ``reply`` (one assistant message)."""
    document = {"input": [{"role": "user", "content": "question"}]}
    if reply is not None:
        document["output"] = reply
    document.update(doc)
    return make_context(document)


def valid(scores):
    """Every returned list is a Scores whose scores pass the Score rules and carry a comment."""
    assert isinstance(scores, Scores)
    EvaluationResult(scores=list(scores)).validate()
    for s in scores:
        assert s.comment, f"score {s.name} has no comment"
        json.dumps(s.to_dict())  # metadata is JSON-serialisable
    return scores


# --------------------------------------------------------------------------------------------
# _json_rules / text.extract_json / json_validity
# --------------------------------------------------------------------------------------------


class TestJsonRules:
    def test_plain_object(self):
        assert parse_json_reply('{"a": 1}') == (True, {"a": 1}, False)

    def test_surrounding_whitespace(self):
        assert parse_json_reply('  \n {"a": [1, 2]}\n\t ') == (True, {"a": [1, 2]}, False)

    def test_leading_bom_ignored(self):
        assert parse_json_reply('\ufeff{"a": 1}') == (True, {"a": 1}, False)
        assert parse_json_reply('\ufeff  [1]') == (True, [1], False)

    @pytest.mark.parametrize(
        "reply",
        [
            '```json\n{"a": 1}\n```',
            '```\n{"a": 1}\n```',
            '```JSON\n{"a": 1}\n```',
            '  ```json\n  {"a": 1}\n  ```  \n',
            '```json\r\n{"a": 1}\r\n```',
            '```json\n{"a": 1}```',
            '````json\n{"a": 1}\n````',
        ],
    )
    def test_whole_reply_fence_stripped(self, reply):
        assert parse_json_reply(reply) == (True, {"a": 1}, True)

    @pytest.mark.parametrize(
        "reply",
        [
            '```python\n{"a": 1}\n```',  # another language is not JSON
            'Here it is:\n```json\n{"a": 1}\n```',  # prose before the fence
            '```json\n{"a": 1}\n```\nHope that helps!',  # prose after the fence
            '```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```',  # two fences
            '```json {"a": 1}```',  # not a fence: no newline after the info string
            '```json\n\n```',  # empty fence
        ],
    )
    def test_fence_not_spanning_the_reply_is_not_json(self, reply):
        assert parse_json_reply(reply)[0] is False

    @pytest.mark.parametrize(
        "reply",
        [
            'The answer is {"a": 1}.',  # JSON inside prose is not JSON
            '{"a": 1} is the answer',
            "{'a': 1}",  # single quotes
            '{"a": 1,}',  # trailing comma
            '{"a": 1} {"b": 2}',  # two values
            "NaN",
            "Infinity",
            "-Infinity",
            '{"a": NaN}',
            '{"a": Infinity}',
            '[1, -Infinity]',
            '{"a": "line\nbreak"}',  # raw control character inside a string (RFC 8259 section 7)
            "",
            "   \n ",
            "\ufeff",
            "not json at all",
        ],
    )
    def test_not_json(self, reply):
        assert parse_json_reply(reply) == (False, None, False)

    @pytest.mark.parametrize(
        "reply,value",
        [
            ("42", 42),
            ('"hello"', "hello"),
            ("true", True),
            ("null", None),
            ("[]", []),
            ('{"city": "東京", "emoji": "😀", "é": "café"}', {"city": "東京", "emoji": "😀", "é": "café"}),
            ('{"a": "\\u00e9"}', {"a": "é"}),
            ("1e400", float("inf")),  # a number too large for a double is still RFC 8259 JSON
        ],
    )
    def test_any_json_value(self, reply, value):
        assert parse_json_reply(reply) == (True, value, False)

    def test_nan_in_fence_rejected(self):
        assert parse_json_reply('```json\n{"a": NaN}\n```') == (False, None, True)

    def test_deep_nesting_does_not_raise(self):
        # RFC 8259 section 9 lets a parser limit nesting depth; past Python's limit the reply is not JSON.
        assert parse_json_reply("[" * 100_000 + "]" * 100_000) == (False, None, False)
        assert parse_json_reply("[" * 50 + "]" * 50)[0] is True

    def test_extract_json_uses_the_same_rules(self):
        assert text.extract_json('```json\n{"answer": 1, "sources": []}\n```') == {"answer": 1, "sources": []}
        assert text.extract_json('\ufeff[1, 2]') == [1, 2]
        assert text.extract_json('Sure: {"a": 1}') is None
        assert text.extract_json('{"a": NaN}') is None
        assert text.extract_json("") is None


class TestJsonValidity:
    def test_valid_without_keys_is_one_score(self):
        scores = valid(json_validity(ctx_of('{"a": 1}')))
        assert scores.names() == ["is_json"]
        s = scores["is_json"]
        assert s.value is True and s.data_type == "BOOLEAN" and s.higher_is_better is True
        assert s.metadata["fence_stripped"] is False

    def test_empty_key_list_is_like_none(self):
        assert valid(json_validity(ctx_of('{"a": 1}'), required_keys=[])).names() == ["is_json"]

    def test_fence_reported_in_metadata_and_comment(self):
        s = valid(json_validity(ctx_of('```json\n{"a": 1}\n```')))["is_json"]
        assert s.value is True
        assert s.metadata["fence_stripped"] is True
        assert "fence" in s.comment

    def test_bom(self):
        assert json_validity(ctx_of('\ufeff{"a": 1}'))["is_json"].value is True

    def test_nan_rejected_with_reason(self):
        s = valid(json_validity(ctx_of('{"score": NaN}')))["is_json"]
        assert s.value is False
        assert "NaN" in s.comment

    def test_prose_is_not_json(self):
        s = valid(json_validity(ctx_of('Here you go: {"a": 1}')))["is_json"]
        assert s.value is False
        assert s.metadata["error"]

    def test_required_keys_present_null_counts(self):
        scores = valid(json_validity(ctx_of('{"answer": null, "sources": []}'), required_keys=["answer", "sources"]))
        assert scores.names() == ["is_json", "has_required_keys"]
        assert scores["is_json"].value is True
        assert scores["has_required_keys"].value is True
        assert scores["has_required_keys"].metadata["missing_keys"] == []

    def test_required_keys_missing(self):
        scores = valid(json_validity(ctx_of('{"answer": 1}'), required_keys=["answer", "sources"]))
        assert scores["has_required_keys"].value is False
        assert scores["has_required_keys"].metadata["missing_keys"] == ["sources"]
        assert "'sources'" in scores["has_required_keys"].comment

    def test_required_keys_are_top_level_only(self):
        scores = json_validity(ctx_of('{"data": {"answer": 1}}'), required_keys=["answer"])
        assert scores["has_required_keys"].value is False

    def test_required_keys_case_sensitive(self):
        assert json_validity(ctx_of('{"Answer": 1}'), required_keys=["answer"])["has_required_keys"].value is False

    def test_required_keys_on_array(self):
        scores = valid(json_validity(ctx_of('[{"answer": 1}]'), required_keys=["answer"]))
        assert scores["is_json"].value is True
        assert scores["has_required_keys"].value is False
        assert "array" in scores["has_required_keys"].comment

    def test_required_keys_single_string(self):
        scores = json_validity(ctx_of('{"answer": 1}'), required_keys="answer")
        assert scores["has_required_keys"].value is True

    def test_required_keys_when_not_json(self):
        scores = valid(json_validity(ctx_of("no"), required_keys=["answer"]))
        assert scores["is_json"].value is False
        assert scores["has_required_keys"].value is False

    def test_empty_reply(self):
        scores = valid(json_validity(ctx_of(""), required_keys=["a"]))
        assert [s.value for s in scores] == [False, False]

    def test_no_output_at_all(self):
        scores = valid(json_validity(make_context({})))
        assert scores["is_json"].value is False

    def test_reads_the_newest_assistant_turn(self):
        ctx = make_context(
            {"output": [{"role": "assistant", "content": "not json"}, {"role": "assistant", "content": "[1]"}]}
        )
        assert json_validity(ctx)["is_json"].value is True

    def test_content_parts(self):
        ctx = make_context({"output": {"role": "assistant", "content": [{"type": "text", "text": '{"a"'}, {"type": "text", "text": ": 1}"}]}})
        assert json_validity(ctx)["is_json"].value is True


# --------------------------------------------------------------------------------------------
# keyword_check
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# length_budget
# --------------------------------------------------------------------------------------------


class TestLengthBudget:
    def test_within(self):
        scores = valid(length_budget(ctx_of("one two three"), max_words=3))
        assert scores.names() == ["within_length", "word_count"]
        assert scores["within_length"].value is True
        assert scores["within_length"].data_type == "BOOLEAN" and scores["within_length"].higher_is_better is True
        assert scores["word_count"].value == 3
        assert scores["word_count"].data_type == "NUMERIC" and scores["word_count"].higher_is_better is False

    def test_over(self):
        scores = valid(length_budget(ctx_of("one two three four"), max_words=3))
        assert scores["within_length"].value is False
        assert "4" in scores["within_length"].comment and "3" in scores["within_length"].comment

    def test_words_are_str_split(self):
        reply = "  Hello,   world!\n\tdon't  stop\u00a0now \u3000end "
        assert length_budget(ctx_of(reply), max_words=100)["word_count"].value == len(reply.split()) == 6

    def test_cjk_without_spaces_is_one_word(self):
        assert length_budget(ctx_of("東京で会いましょう"), max_words=1)["word_count"].value == 1

    def test_emoji_words(self):
        assert length_budget(ctx_of("😀 😀 👍🏽"), max_words=2)["within_length"].value is False

    def test_empty_reply(self):
        scores = valid(length_budget(ctx_of(""), max_words=0))
        assert scores["within_length"].value is True and scores["word_count"].value == 0

    def test_long_reply(self):
        reply = " ".join(["word"] * 10_000)
        scores = length_budget(ctx_of(reply), max_words=250)
        assert scores["word_count"].value == 10_000 and scores["within_length"].value is False

    @pytest.mark.parametrize("bad", [None, -1, True, "10", float("nan")])
    def test_invalid_budget(self, bad):
        with pytest.raises(ValueError, match="max_words"):
            length_budget(ctx_of("x"), max_words=bad)


# --------------------------------------------------------------------------------------------
# exact_match
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# levenshtein_ratio
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# tool_trajectory
# --------------------------------------------------------------------------------------------


def tool_span(name, start, args=None, **extra):
    span = {"name": name, "kind": "tool", "start_time": start, "end_time": start, "input": args}
    span.update(extra)
    return span


def trace_ctx(*spans, output="done"):
    return make_context({"output": output, "trace": {"spans": list(spans)}})


def calls_ctx(*calls):
    return make_context({"output": {"role": "assistant", "content": "", "tool_calls": list(calls)}})


class TestToolTrajectory:
    def test_strict_pass_from_trace(self):
        ctx = trace_ctx(
            tool_span("search_orders", "2024-01-01T00:00:01Z", {"q": "A1"}),
            {"name": "llm", "kind": "llm", "start_time": "2024-01-01T00:00:02Z"},
            tool_span("issue_refund", "2024-01-01T00:00:03Z", {"order": "A1"}),
        )
        s = valid(tool_trajectory(ctx, expected=["search_orders", "issue_refund"]))["trajectory_match"]
        assert s.value is True and s.data_type == "BOOLEAN" and s.higher_is_better is True
        assert s.metadata["source"] == "trace"
        assert s.metadata["actual"] == ["search_orders", "issue_refund"]

    def test_trace_spans_ordered_by_start_time(self):
        ctx = trace_ctx(tool_span("second", "2024-01-01T00:00:05Z"), tool_span("first", "2024-01-01T00:00:01Z"))
        assert tool_trajectory(ctx, ["first", "second"])[0].value is True

    def test_numeric_start_times_ordered_numerically(self):
        # 9 < 10 as numbers (as text "10" < "9").
        ctx = trace_ctx(tool_span("late", 10), tool_span("early", 9))
        assert tool_trajectory(ctx, ["early", "late"])[0].value is True

    def test_trace_preferred_over_output(self):
        ctx = make_context(
            {
                "output": {"role": "assistant", "tool_calls": [{"name": "from_output", "arguments": {}}]},
                "trace": {"spans": [tool_span("from_trace", 1)]},
            }
        )
        s = tool_trajectory(ctx, ["from_trace"])[0]
        assert s.value is True and s.metadata["source"] == "trace"

    def test_output_used_when_trace_has_no_tool_span(self):
        ctx = make_context(
            {
                "output": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "search_orders", "arguments": '{"q": "A1"}'}},
                        {"id": "c2", "type": "function", "function": {"name": "issue_refund", "arguments": "{}"}},
                    ],
                },
                "trace": {"spans": [{"name": "llm", "kind": "llm", "start_time": 1}]},
            }
        )
        s = tool_trajectory(ctx, [{"name": "search_orders", "arguments": {"q": "A1"}}, "issue_refund"])[0]
        assert s.value is True and s.metadata["source"] == "output"

    def test_otel_tool_call_parts(self):
        ctx = make_context(
            {
                "output": {
                    "role": "assistant",
                    "parts": [
                        {"type": "text", "content": "calling"},
                        {"type": "tool_call", "id": "1", "name": "get_weather", "arguments": {"city": "Paris"}},
                    ],
                }
            }
        )
        assert tool_trajectory(ctx, [{"name": "get_weather", "arguments": {"city": "Paris"}}])[0].value is True

    def test_span_input_json_string(self):
        ctx = trace_ctx(tool_span("get_weather", 1, '{"city": "Paris"}'))
        assert tool_trajectory(ctx, [{"name": "get_weather", "arguments": {"city": "Paris"}}])[0].value is True

    def test_gen_ai_tool_name_attribute(self):
        ctx = trace_ctx(tool_span("execute_tool get_weather", 1, {}, attributes={"gen_ai.tool.name": "get_weather"}))
        assert tool_trajectory(ctx, ["get_weather"])[0].value is True

    def test_strict_order_matters_and_comment_names_difference(self):
        ctx = trace_ctx(tool_span("issue_refund", 1), tool_span("search_orders", 2))
        s = valid(tool_trajectory(ctx, ["search_orders", "issue_refund"], mode="strict"))[0]
        assert s.value is False
        assert "position 1" in s.comment and "search_orders" in s.comment and "issue_refund" in s.comment
        assert s.metadata["first_difference"]["position"] == 1

    def test_strict_extra_and_missing_calls(self):
        ctx = trace_ctx(tool_span("a", 1), tool_span("b", 2), tool_span("c", 3))
        s = tool_trajectory(ctx, ["a", "b"])[0]
        assert s.value is False and "position 3" in s.comment and "(none)" in s.comment
        s = tool_trajectory(ctx, ["a", "b", "c", "d"])[0]
        assert s.value is False and "position 4" in s.comment and "d" in s.comment

    def test_unordered(self):
        ctx = trace_ctx(tool_span("b", 1), tool_span("a", 2))
        assert tool_trajectory(ctx, ["a", "b"], mode="unordered")[0].value is True
        assert tool_trajectory(ctx, ["a", "b", "c"], mode="unordered")[0].value is False
        assert tool_trajectory(ctx, ["a"], mode="unordered")[0].value is False

    def test_unordered_is_a_multiset(self):
        ctx = trace_ctx(tool_span("a", 1), tool_span("a", 2), tool_span("b", 3))
        assert tool_trajectory(ctx, ["a", "b", "a"], mode="unordered")[0].value is True
        assert tool_trajectory(ctx, ["a", "b", "b"], mode="unordered")[0].value is False

    def test_subset(self):
        ctx = trace_ctx(tool_span("search_orders", 1))
        assert tool_trajectory(ctx, ["search_orders", "issue_refund"], mode="subset")[0].value is True
        ctx = trace_ctx(tool_span("search_orders", 1), tool_span("delete_account", 2))
        s = tool_trajectory(ctx, ["search_orders", "issue_refund"], mode="subset")[0]
        assert s.value is False
        assert "position 2" in s.comment and "delete_account" in s.comment

    def test_subset_counts_repeats(self):
        # agentevals: each actual call needs its own expected item.
        ctx = trace_ctx(tool_span("search", 1), tool_span("search", 2))
        assert tool_trajectory(ctx, ["search"], mode="subset")[0].value is False
        assert tool_trajectory(ctx, ["search", "search"], mode="subset")[0].value is True

    def test_superset(self):
        ctx = trace_ctx(tool_span("search_orders", 1), tool_span("lookup", 2), tool_span("issue_refund", 3))
        assert tool_trajectory(ctx, ["search_orders", "issue_refund"], mode="superset")[0].value is True
        s = tool_trajectory(ctx, ["search_orders", "send_email"], mode="superset")[0]
        assert s.value is False
        assert "position 2" in s.comment and "send_email" in s.comment

    def test_superset_needs_distinct_calls(self):
        ctx = trace_ctx(tool_span("search", 1))
        assert tool_trajectory(ctx, ["search", "search"], mode="superset")[0].value is False

    def test_no_calls(self):
        ctx = make_context({"output": "plain answer"})
        assert tool_trajectory(ctx, [])[0].value is True
        assert tool_trajectory(ctx, [], mode="unordered")[0].value is True
        assert tool_trajectory(ctx, ["search"], mode="subset")[0].value is True
        s = valid(tool_trajectory(ctx, ["search"], mode="superset"))[0]
        assert s.value is False and "search" in s.comment
        assert tool_trajectory(ctx, ["search"])[0].value is False

    def test_empty_reply_with_calls(self):
        ctx = calls_ctx({"name": "a", "arguments": {}})
        assert valid(tool_trajectory(ctx, ["a"]))[0].value is True

    def test_arguments_compared_only_when_given(self):
        ctx = trace_ctx(tool_span("get_weather", 1, {"city": "Paris", "unit": "C"}))
        assert tool_trajectory(ctx, ["get_weather"])[0].value is True
        assert tool_trajectory(ctx, [{"name": "get_weather"}])[0].value is True
        assert tool_trajectory(ctx, [{"name": "get_weather", "arguments": None}])[0].value is True
        assert tool_trajectory(ctx, [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}}])[0].value is True
        # Exact equality: a subset of the arguments is not equal.
        s = tool_trajectory(ctx, [{"name": "get_weather", "arguments": {"city": "Paris"}}])[0]
        assert s.value is False and "Paris" in s.comment

    def test_expected_arguments_as_json_string(self):
        ctx = trace_ctx(tool_span("f", 1, {"x": 1}))
        assert tool_trajectory(ctx, [{"name": "f", "arguments": '{"x": 1}'}])[0].value is True

    def test_openai_form_expected_item(self):
        ctx = trace_ctx(tool_span("f", 1, {"x": 1}))
        assert tool_trajectory(ctx, [{"type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}])[0].value is True

    @pytest.mark.parametrize(
        "actual,expected",
        [
            ({"flag": 1}, {"flag": True}),
            ({"flag": True}, {"flag": 1}),
            ({"flag": 0}, {"flag": False}),
            ({"n": [1, True]}, {"n": [1, 1]}),
            ({"n": {"deep": 1.0}}, {"n": {"deep": True}}),
        ],
    )
    def test_booleans_are_not_numbers(self, actual, expected):
        ctx = trace_ctx(tool_span("f", 1, actual))
        for mode in ("strict", "unordered", "subset", "superset"):
            assert tool_trajectory(ctx, [{"name": "f", "arguments": expected}], mode=mode)[0].value is False

    def test_numbers_by_value(self):
        ctx = trace_ctx(tool_span("f", 1, {"n": 1.0, "m": [2]}))
        assert tool_trajectory(ctx, [{"name": "f", "arguments": {"n": 1, "m": [2.0]}}])[0].value is True

    def test_json_equal(self):
        assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
        assert not json_equal(True, 1) and not json_equal(0, False) and not json_equal(None, False)
        assert not json_equal({"a": 1}, {"a": 1, "b": 2})
        assert not json_equal("1", 1)
        assert json_equal("東京", "東京")

    def test_names_case_sensitive(self):
        ctx = trace_ctx(tool_span("Search", 1))
        assert tool_trajectory(ctx, ["search"])[0].value is False
        assert tool_trajectory(ctx, ["search"], mode="superset")[0].value is False

    def test_matching_is_not_greedy(self):
        # Item 1 (any arguments) must not take the call that item 2 (x=1) needs.
        ctx = trace_ctx(tool_span("a", 1, {"x": 1}), tool_span("a", 2, {"x": 2}))
        expected = ["a", {"name": "a", "arguments": {"x": 1}}]
        for mode in ("unordered", "subset", "superset"):
            assert tool_trajectory(ctx, expected, mode=mode)[0].value is True
        assert tool_trajectory(ctx, expected, mode="strict")[0].value is False

    def test_unicode_names(self):
        ctx = trace_ctx(tool_span("検索", 1, {"q": "東京 😀"}))
        assert tool_trajectory(ctx, [{"name": "検索", "arguments": {"q": "東京 😀"}}])[0].value is True

    def test_long_trajectory(self):
        spans = [tool_span(f"t{i % 7}", i, {"i": i}) for i in range(1500)]
        ctx = trace_ctx(*spans)
        expected = [f"t{i % 7}" for i in reversed(range(1500))]
        assert tool_trajectory(ctx, expected, mode="unordered")[0].value is True
        assert tool_trajectory(ctx, expected[:-1], mode="superset")[0].value is True

    def test_invalid_mode(self):
        with pytest.raises(ValueError, match="mode"):
            tool_trajectory(make_context({}), ["a"], mode="exact")

    @pytest.mark.parametrize("bad", [[1], [{"arguments": {}}], [""], None, 5])
    def test_invalid_expected(self, bad):
        with pytest.raises(ValueError, match="expected"):
            tool_trajectory(make_context({}), bad)

    def test_single_string_expected(self):
        ctx = trace_ctx(tool_span("search", 1))
        assert tool_trajectory(ctx, "search")[0].value is True

    def test_params_splat(self):
        ctx = make_context(
            {"trace": {"spans": [tool_span("search_orders", 1), tool_span("issue_refund", 2)]}},
            params={"expected": ["search_orders", "issue_refund"], "mode": "superset"},
        )
        assert tool_trajectory(ctx, **ctx.params)[0].value is True
