"""Tests of citation_check."""

from __future__ import annotations

import time

import pytest

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks.citation_check import citation_check

from _support import ctx_with_context as ctx_of
from _support import valid_untyped as valid


def cites(reply, context=None, **kw):
    s = valid(citation_check(ctx_of(reply, context), **kw))
    return s["citations_ok"]


def test_citations_numeric_and_bounds():
    docs = ["doc a", "doc b", "doc c"]
    assert cites("Paris is the capital [1].", docs).value is True
    assert cites("Paris [1, 2]. Lyon [3].", docs).value is True
    assert cites("Paris[1][2].", docs).value is True
    s = cites("Paris is the capital [4].", docs)
    assert s.value is False and s.metadata["invalid_indexes"] == [4]
    assert cites("Paris is the capital [0].", "one text").value is False  # 1-based
    assert cites("Paris is the capital [9].", "one text").value is True  # no list: no upper bound
    assert cites("Paris [2-3].", docs).value is True
    assert cites("Paris [2-4].", docs).value is False


def test_citations_footnotes_and_source_notes():
    assert cites("Paris is big.[^wiki]\n\n[^wiki]: Wikipedia, 2024").value is True
    s = cites("Paris is big.[^wiki]")
    assert s.value is False and s.metadata["undefined_footnotes"] == ["wiki"]
    assert cites("Paris is big (Source: Wikipedia).").value is True
    assert cites("Paris is big (sources: A, B).").value is True
    assert cites("Paris is big (Source: ).").value is False


def test_citations_code_and_links_are_not_citations():
    assert cites("Use `arr[1]` here.").value is False
    assert cites("```python\nx = a[1]\n```\nDone.").value is False
    assert cites("See [1](https://example.com).").value is False
    assert cites("See [the docs][1].\n\n[1]: https://example.com").value is False
    assert cites("See `x[1]` and the docs [1].").value is True


def test_citations_every_sentence():
    docs = ["a"]
    s = cites("Paris is big. [1] Lyon is small.", docs, require_every_sentence=True)
    assert s.value is False and s.metadata["uncited_sentences"] == ["Lyon is small."]
    assert cites("Paris is big.[1] Lyon is small [1].", docs, require_every_sentence=True).value is True
    assert cites("E.g. Paris is big, e.g. in area [1]. Dr. Who said so [1].", docs, require_every_sentence=True).value is True
    assert cites("# Title\n- Paris is big [1]\n- Lyon too [1]", docs, require_every_sentence=True).value is True
    assert cites("Paris is big. Lyon is small [1].", docs).value is True  # not required by default


def test_citations_empty_unicode_and_long():
    s = cites("")
    assert s.value is False and "empty" in s.comment
    assert cites("   ").value is False
    assert cites("No citation here.").value is False
    assert cites("東京は首都です [1]。Café 🎉 [2].", ["a", "b"]).value is True
    text = "Paris is the capital of France [1]. " * 278  # 10,008 characters
    assert len(text) >= 10_000
    start = time.perf_counter()
    s = cites(text, ["a"], require_every_sentence=True)
    assert time.perf_counter() - start < 0.5
    assert s.value is True


def test_citation_context_from_argument_and_key():
    ctx = make_context({"output": "Fact [3].", "attributes": {"docs": ["a", "b"]}})
    assert citation_check(ctx)["citations_ok"].value is True  # no list context: >= 1 only
    assert citation_check(ctx, context_key="docs")["citations_ok"].value is False
    assert citation_check(ctx, context=["a", "b", "c"])["citations_ok"].value is True


@pytest.mark.parametrize(
    "reply",
    [
        "The even numbers below 8 are [2, 4, 6].",
        "Call it as func([1, 2, 3]) and print the result.",
        "Set x = [1, 2] first.",
        "The list [2, 4, 6] is sorted.",
        "sorted(x) returns [1, 2, 3].",
        "Copy it with [1, 2].copy() before changing it.",
    ],
)
def test_citation_list_literals_are_not_citations(reply):
    # Defect fixed (citation_check docstring): the index pattern read list literals as citations,
    # so a reply with none was "cited" (or failed on out-of-range indexes with a document list).
    s = citation_check(make_context({"output": reply}))["citations_ok"]
    assert s.value is False
    assert s.metadata["citations"] == 0 and s.metadata["invalid_indexes"] == []


@pytest.mark.parametrize(
    "reply,numeric",
    [
        ("Paris is the capital [1, 2].", [1, 2]),
        ("It was so (see [2]).", [2]),
        ("Paris ([1]).", [1]),
        ("Paris [1][2] is big.", [1, 2]),
        ("As the results of [1] show, it grew.", [1]),
    ],
)
def test_citation_real_citations_stay(reply, numeric):
    s = citation_check(make_context({"output": reply}))["citations_ok"]
    assert s.value is True, s.comment
    assert s.metadata["numeric"] == numeric
