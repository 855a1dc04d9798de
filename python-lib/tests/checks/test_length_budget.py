"""Tests of length_budget."""

from __future__ import annotations

import pytest

from oodle_eval.v1.checks.length_budget import length_budget

from _support import ctx_of, valid


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
