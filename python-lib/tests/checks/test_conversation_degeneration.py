"""Tests of conversation_degeneration.

Expected values are worked out by hand from Opik's formula and phrase list:
comet-ml/opik .../metrics/conversation/heuristics/degeneration/metric.py @ 5258893b (+ its newest
unit tests for wordless turns), phrases.py @ faeaf79c.
"""

from __future__ import annotations

import math

import pytest

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks.conversation_degeneration import (
    conversation_degeneration,
    degeneration_of_conversation,
)

from _support import LONG, assert_valid, ctx_of, timed


def conv_ctx(turns):
    return make_context({"input": turns})


def A(text):
    return {"role": "assistant", "content": text}


def U(text):
    return {"role": "user", "content": text}


class TestConversationDegeneration:
    def test_no_assistant_turn(self):
        scores = conversation_degeneration(conv_ctx([U("hello")]))
        assert_valid(scores)
        assert scores["degenerated"].value is False
        assert scores["degeneration"].value == 0.0
        assert scores["degenerated"].higher_is_better is False
        assert scores["degeneration"].higher_is_better is False
        assert scores["degeneration"].data_type == "NUMERIC"
        assert scores.names() == ["degenerated", "degeneration"]

    def test_empty_reply_is_not_a_turn(self):
        # Opik skips turns whose content is falsy.
        assert conversation_degeneration(ctx_of(""))["degeneration"].value == 0.0

    def test_one_word(self):
        # tokens [ok]: V = 1 -> entropy ratio 0 -> normalized_entropy 1; others 0 -> 1/4.
        s = conversation_degeneration(ctx_of("ok"))
        assert s["degeneration"].value == 0.25
        assert s["degenerated"].value is False
        assert conversation_degeneration(ctx_of("ok"), threshold=0.25)["degenerated"].value is True  # >=

    def test_repeated_trigrams(self):
        # tokens the cat sat the cat sat: 4 trigrams, (the,cat,sat) twice -> repeated 2/4 = 0.5;
        # 3 distinct tokens equally likely -> entropy ratio 1 -> 0; score 0.5/4 = 0.125.
        s = conversation_degeneration(ctx_of("The cat sat, the cat sat."))
        # (floating point: H/log2(3) computes to a hair under 1, as in Opik)
        assert math.isclose(s["degeneration"].value, 0.125, rel_tol=1e-12)
        assert s["degenerated"].metadata["per_turn"][0]["repetition_ratio"] == 0.5

    def test_identical_replies(self):
        # Opik's docstring conversation: 8 distinct tokens (entropy ratio 1), no repeated trigram,
        # second reply Jaccard 1.0 with the first -> (0 + 1 + 0 + 0)/4 = 0.25 (the docstring's
        # 0.75 is marked doctest: +SKIP and does not follow from the formula).
        conv = [
            U("Can you draft a short bio for Ada?"),
            A("Sure, here is a short bio for Ada."),
            U("Could you add more detail?"),
            A("Sure, here is a short bio for Ada."),
        ]
        value, meta = degeneration_of_conversation(conv)
        assert value == 0.25
        assert [t["overlap_previous"] for t in meta["per_turn"]] == [0.0, 1.0]
        assert meta["peak_turn"] == 3
        assert conversation_degeneration(conv_ctx(conv))["degeneration"].value == 0.25

    def test_fallback_phrase_and_curly_apostrophe(self):
        # tokens i m sorry i cannot help: counts i:2, others 1 (V = 5);
        # H = (1/3)log2(3) + (2/3)log2(6); normalized_entropy = 1 - H/log2(5); no repeated trigram;
        # "i'm sorry" is a fallback phrase -> (0 + 0 + 1 + ne)/4.
        h = (1 / 3) * math.log(3, 2) + (2 / 3) * math.log(6, 2)
        expected = (1.0 + (1.0 - h / math.log(5, 2))) / 4.0
        for reply in ("I'm sorry, I cannot help.", "I\u2019m sorry, I cannot help."):
            s = conversation_degeneration(ctx_of(reply))
            assert math.isclose(s["degeneration"].value, expected, rel_tol=1e-12), reply
            assert s["degenerated"].metadata["per_turn"][0]["fallback_phrases"] == ["i'm sorry", "i cannot"]

    def test_opik_detects_repetition_example(self):
        # Opik's unit test: value > 0.5 and three per-turn entries. Last turn: 15 tokens, 13
        # trigrams of which 8 occurrences repeat (3+3+2) -> 8/13; overlap 1; fallback 1;
        # counts i4 m3 sorry3 + 5 singles over 8 distinct.
        refusal_text = "I'm sorry, I'm sorry, I'm sorry, I cannot assist with that request."
        conv = [U("Hi"), A("Hello, how can I help you today?"), U("I need assistance"), A(refusal_text), A(refusal_text)]
        value, meta = degeneration_of_conversation(conv)
        counts = [4, 3, 3, 1, 1, 1, 1, 1]
        h = -sum(c / 15 * math.log(c / 15, 2) for c in counts)
        expected = min(1.0, (8 / 13 + 1.0 + 1.0 + (1.0 - h / math.log(8, 2))) / 4.0)
        assert math.isclose(value, expected, rel_tol=1e-12)
        assert value > 0.5 and len(meta["per_turn"]) == 3
        scores = conversation_degeneration(conv_ctx(conv))
        assert scores["degenerated"].value is True
        assert "fallback phrase" in scores["degenerated"].comment

    def test_opik_low_repetition_example(self):
        conv = [
            A("Hello, thanks for your question."),
            A("I looked into your account and confirmed the balance is $150."),
            A("Let me know if you'd like a breakdown of recent transactions."),
        ]
        value, _ = degeneration_of_conversation(conv)
        assert 0.0 <= value < 0.3

    def test_wordless_turns(self):
        # Newest Opik: a wordless turn scores like a one-word reply (0.25), flagged is_wordless.
        for filler in ("...", "???", "!!!", "   ", "\U0001F389\U0001F389"):
            value, meta = degeneration_of_conversation([U("Hi"), A("Hello, thanks for your question."), U("Help?"), A(filler)])
            assert [t["is_wordless"] for t in meta["per_turn"]] == [0.0, 1.0]
            assert meta["per_turn"][1]["degeneration_score"] == 0.25 == value
        value, meta = degeneration_of_conversation([A("..."), A("???")])
        assert value == 0.25 and meta["average_score"] == 0.25

    def test_wordless_turn_does_not_hide_a_loop(self):
        loop = "Let me check the balance of your savings account for you."
        value, meta = degeneration_of_conversation([A(loop), A("..."), A(loop)])
        assert meta["per_turn"][1]["overlap_previous"] == 0.0
        assert meta["per_turn"][2]["overlap_previous"] == 1.0
        assert value == degeneration_of_conversation([A(loop), A(loop)])[0]

    def test_casefold_accents_cjk(self):
        # casefold: "Straße" and "STRASSE" are the same token -> Jaccard 1; each turn one token
        # -> normalized_entropy 1; second turn (0 + 1 + 0 + 1)/4 = 0.5.
        s = conversation_degeneration(conv_ctx([A("Straße"), A("STRASSE")]))
        assert s["degeneration"].value == 0.5 and s["degenerated"].value is True
        # Han characters are word characters: "谢谢" x3 -> one distinct token, one trigram -> 0.25.
        assert degeneration_of_conversation([A("谢谢 谢谢 谢谢")])[0] == 0.25

    def test_roles_and_parts(self):
        conv = [{"role": "ai", "content": [{"type": "text", "text": "ok"}]}, {"role": "system", "content": "x"}]
        value, meta = degeneration_of_conversation(conv)
        assert value == 0.25 and meta["assistant_turns"] == 1 and meta["per_turn"][0]["turn"] == 0
        assert degeneration_of_conversation([])[0] == 0.0

    def test_invalid_threshold(self):
        with pytest.raises(ValueError, match="threshold"):
            conversation_degeneration(ctx_of("ok"), threshold="high")

    def test_params_spread_with_none(self):
        ctx = make_context({"output": "ok"}, params={"threshold": None})
        assert conversation_degeneration(ctx, **ctx.params)["degenerated"].value is False

    def test_long_input(self):
        words = " ".join(f"word{i % 500}" for i in range(2000))[:LONG]
        scores, elapsed = timed(conversation_degeneration, conv_ctx([U("go"), A(words), U("again"), A(words)]))
        assert 0.0 <= scores["degeneration"].value <= 1.0
        assert elapsed < 0.5
