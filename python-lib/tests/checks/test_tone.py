"""Tests of tone.

Expected values are worked out by hand from Opik's formula and lexicons:
comet-ml/opik sdks/python/src/opik/evaluation/metrics/heuristics/tone.py @ 09c4ddc2.
"""

from __future__ import annotations

import math

import pytest

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks.tone import tone

from _support import LONG, assert_valid, ctx_of, timed


class TestTone:
    def test_polite_reply_ok(self):
        # Opik: tokens thank, glad, please are positive -> sentiment (3-0)/3 = 1.0.
        scores = tone(ctx_of("Thank you, I'm glad to help. Please let me know."))
        assert_valid(scores)
        s = scores["tone_ok"]
        assert s.value is True and s.higher_is_better is True
        assert s.metadata["sentiment_score"] == 1.0
        assert s.metadata["exclamation_count"] == 0

    def test_empty_reply_ok(self):
        for reply in ("", "  \n"):
            s = tone(ctx_of(reply))["tone_ok"]
            assert s.value is True and s.metadata["empty"] is True

    def test_opik_docstring_example(self):
        # "THANK YOU for your patience!!!": letters 23, upper 8 -> 8/23 = 0.3478 > 0.3; 3 "!".
        s = tone(ctx_of("THANK YOU for your patience!!!"))["tone_ok"]
        assert s.value is False
        assert math.isclose(s.metadata["uppercase_ratio"], 8 / 23)
        assert s.metadata["exclamation_count"] == 3
        assert tone(ctx_of("THANK YOU for your patience!!!"), max_upper_ratio=0.4)["tone_ok"].value is True
        assert tone(ctx_of("THANK YOU for your patience!!!"), max_upper_ratio=0.4, max_exclamations=2)["tone_ok"].value is False

    def test_sentiment(self):
        # terrible, useless: (0-2)/2 = -1.0 < -0.2
        s = tone(ctx_of("This is terrible and useless."))["tone_ok"]
        assert s.value is False and s.metadata["sentiment_score"] == -1.0
        # great, bad, bad: (1-2)/3 = -0.333 < -0.2
        s = tone(ctx_of("great but bad, bad"))["tone_ok"]
        assert s.value is False and math.isclose(s.metadata["sentiment_score"], -1 / 3)
        # great, great, bad: (2-1)/3 = 0.333
        assert tone(ctx_of("great, great, bad"))["tone_ok"].value is True
        # Whole tokens only: "thanks" is not "thank", "badly" is not "bad".
        s = tone(ctx_of("thanks, it went badly"))["tone_ok"]
        assert s.metadata["sentiment_score"] == 0.0 and s.value is True
        # Threshold as a parameter.
        assert tone(ctx_of("great but bad, bad"), min_sentiment=-0.5)["tone_ok"].value is True

    def test_forbidden_phrases(self):
        s = tone(ctx_of("Honestly, that is not my problem."))["tone_ok"]
        assert s.value is False and s.metadata["forbidden_phrases"] == ["not my problem"]
        assert "not my problem" in s.comment

    def test_exclamations(self):
        assert tone(ctx_of("Wow! Nice! Cool!"))["tone_ok"].value is True  # 3 <= 3
        assert tone(ctx_of("Wow! Nice! Cool! Yes!"))["tone_ok"].value is False  # 4 > 3
        assert tone(ctx_of("Wow! Nice! Cool! Yes!"), max_exclamations=4)["tone_ok"].value is True
        # Fullwidth exclamation marks count too.
        assert tone(ctx_of("好！好！好！好！"))["tone_ok"].metadata["exclamation_count"] == 4

    def test_accents_cjk_emoji(self):
        assert tone(ctx_of("Très bien, merci beaucoup."))["tone_ok"].value is True
        s = tone(ctx_of("ÉNORME PROBLÈME"))["tone_ok"]  # every letter upper-case
        assert s.value is False and s.metadata["uppercase_ratio"] == 1.0
        s = tone(ctx_of("谢谢您的耐心！"))["tone_ok"]  # Han letters are not upper-case
        assert s.value is True and s.metadata["uppercase_ratio"] == 0.0
        s = tone(ctx_of("\U0001F389\U0001F389"))["tone_ok"]  # no letter, no token
        assert s.value is True and s.metadata["sentiment_score"] == 0.0

    def test_invalid_parameter(self):
        with pytest.raises(ValueError, match="max_exclamations"):
            tone(ctx_of("hi"), max_exclamations="three")
        with pytest.raises(ValueError, match="min_sentiment"):
            tone(ctx_of("hi"), min_sentiment=float("nan"))

    def test_params_spread_with_none(self):
        ctx = make_context({"output": "Wow! Nice! Cool! Yes!"}, params={"min_sentiment": None, "max_upper_ratio": None, "max_exclamations": None})
        assert tone(ctx, **ctx.params)["tone_ok"].value is False

    def test_long_input(self):
        reply = ("Thank you for the great question. " * 400)[:LONG]
        scores, elapsed = timed(tone, ctx_of(reply))
        assert scores["tone_ok"].value is True and elapsed < 0.5
