"""Tests of grounding."""

from __future__ import annotations

import time

import pytest

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks.grounding import grounding, resolve_context, tokenize

from _support import LONG_TEXT as LONG
from _support import ctx_with_context as ctx_of
from _support import valid_untyped as valid


PARIS_CONTEXT = "Paris, the capital of France, has a population of about 2.1 million."


def test_grounding_hand_worked_precision():
    # Context tokens (stop words the/of/has/a/about removed): paris capital france population 2.1 million
    # Answer tokens: paris capital france | paris 2.1 million people -> 7 tokens,
    # distinct shared {paris, capital, france, 2.1, million} = 5 -> 5/7 (continuous-eval TokenOverlap).
    answer = "Paris is the capital of France. Paris has 2.1 million people."
    s = valid(grounding(ctx_of(answer, PARIS_CONTEXT), threshold=0.7))
    assert s.names() == ["grounded", "grounding"]
    assert s["grounding"].value == pytest.approx(5 / 7)
    assert s["grounded"].value is True
    meta = s["grounding"].metadata
    assert meta["token_share"] == pytest.approx(6 / 7)
    assert [x["share"] for x in meta["sentences"]] == [pytest.approx(1.0), pytest.approx(0.75)]
    assert meta["sentence_faithfulness"] == 1.0
    assert meta["not_in_context"] == ["people"]
    assert meta["context_source"] == "attribute context"
    assert grounding(ctx_of(answer, PARIS_CONTEXT), threshold=0.8)["grounded"].value is False


def test_grounding_ignores_citation_markers():
    # "[1]" would otherwise be the number 1, not in the context
    s = grounding(ctx_of("Paris is the capital [1][2, 3].[^a]", ["Paris is the capital.", "b", "c"]))
    assert s["grounding"].value == 1.0


def test_grounding_tokenizer_numbers_stopwords_contractions():
    assert tokenize("Growth was 3.5% on $1,200 in 2023-2024.") == ["growth", 3.5, 1200.0, 2023.0, 2024.0]
    assert tokenize("It is what it is.") == []
    assert tokenize("We cannot say, gonna try") == ["can", "not", "say", "gon", "na", "try"]
    assert tokenize("\u201cParis\u201d \u2014 COVID19 \u22124") == ["paris", "covid19", -4.0]
    assert tokenize("STRASSE") == tokenize("straße")  # casefold
    assert tokenize("1,2,3") == [123.0]  # not a number token: reference strips the commas


def test_grounding_number_aware_matching():
    ctx = ctx_of("Growth was 3.5% on $1,200.", "growth 3.5 percent, 1200 dollars")
    assert grounding(ctx)["grounding"].value == 1.0
    # 35 is not 3.5 (the reference would read both as 35)
    assert grounding(ctx_of("Growth was 35%.", "growth 3.5 percent"))["grounding"].value == 0.5


def test_grounding_empty_no_context_and_stopword_only():
    s = valid(grounding(ctx_of("", PARIS_CONTEXT)))
    assert s["grounding"].value == 1.0 and s["grounded"].value is True
    s = valid(grounding(ctx_of("Paris is big.")))  # no context, no input
    assert s["grounding"].value == 0.0 and s["grounded"].value is False
    assert "no context" in s["grounding"].comment
    s = grounding(ctx_of("It is what it is.", PARIS_CONTEXT))
    assert s["grounding"].value == 1.0
    assert grounding(ctx_of("", None))["grounding"].value == 1.0


@pytest.mark.parametrize("answer", ["yes", "Yes.", "no", "No!", "Yep", "nope"])
def test_grounding_bare_polarity_answers_score_alike(answer):
    # Defect fixed (grounding docstring, "symmetric polarity"): "no" is an NLTK stop word and
    # "yes" is not, so with the reference a bare "yes" scored 0.0 and a bare "no" 1.0.
    s = grounding(ctx_of(answer, PARIS_CONTEXT))["grounding"]
    assert s.value == 1.0
    assert "only stop words" in s.comment


def test_grounding_polarity_with_content_is_symmetric():
    yes = grounding(ctx_of("Yes, Paris and Lyon.", PARIS_CONTEXT))["grounding"].value
    no = grounding(ctx_of("No, Paris and Lyon.", PARIS_CONTEXT))["grounding"].value
    assert yes == no == 0.5  # paris is in the context, lyon is not


def test_grounding_context_order():
    doc = {
        "input": [{"role": "system", "content": "Docs: Lyon is a city."}, {"role": "user", "content": "Tell me"}],
        "output": "Lyon city",
        "attributes": {"context": "Paris capital", "app.docs": ["Marseille port"]},
    }
    ctx = make_context(doc)
    assert grounding(ctx, context="Lyon city")["grounding"].metadata["context_source"] == "argument"
    assert grounding(ctx, context="Lyon city")["grounding"].value == 1.0
    assert grounding(ctx)["grounding"].value == 0.0  # the attribute wins over the input
    assert grounding(ctx, context_key="app.docs")["grounding"].metadata["context_source"] == "attribute app.docs"
    assert grounding(ctx, context_key="missing")["grounding"].value == 1.0  # input messages
    assert grounding(ctx, context_key="missing")["grounding"].metadata["context_source"] == "input messages"
    assert grounding(ctx, context=["Lyon", "city"])["grounding"].value == 1.0
    assert grounding(ctx, context="  ")["grounding"].metadata["context_source"] == "attribute context"
    nested = make_context({"output": "Lyon", "attributes": {"rag": {"context": "Lyon"}}})
    assert grounding(nested, context_key="rag.context")["grounding"].value == 1.0


def test_resolve_context_shapes():
    ctx = make_context({"attributes": {"context": '["doc one", "doc two"]'}})
    found = resolve_context(ctx)
    assert found == {"documents": ["doc one", "doc two"], "is_list": True, "source": "attribute context"}
    found = resolve_context(ctx, context=[{"page_content": "a"}, {"text": "b"}, {"x": 1}])
    assert found["documents"] == ["a", "b", '{"x": 1}'] and found["is_list"] is True
    assert resolve_context(make_context({}))["documents"] == []


def test_grounding_accents_cjk_emoji_and_long_input():
    s = valid(grounding(ctx_of("Café crème 🎉", "Le café et la crème")))
    assert s["grounding"].value == 1.0
    s = grounding(ctx_of("東京は日本の首都です", "東京は日本の首都です。"))
    assert s["grounding"].value == 1.0
    start = time.perf_counter()
    s = valid(grounding(ctx_of(LONG, LONG)))
    assert time.perf_counter() - start < 0.5
    assert 0 < s["grounding"].value <= 1
