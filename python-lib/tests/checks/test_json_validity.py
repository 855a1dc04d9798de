"""Tests of json_validity, its JSON rules (``checks._json_rules``) and ``text.extract_json``."""

from __future__ import annotations

import pytest

from oodle_eval.v1 import make_context
from oodle_eval.v1 import text
from oodle_eval.v1.checks._json_rules import parse_json_reply
from oodle_eval.v1.checks.json_validity import json_validity

from _support import ctx_of, valid


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
