"""Tests of unsupported_numbers."""

from __future__ import annotations

import time

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks.unsupported_numbers import extract_numbers, unsupported_numbers

from _support import ctx_with_context as ctx_of
from _support import valid_untyped as valid


def supported(reply, context=None, user=None, **kw):
    s = valid(unsupported_numbers(ctx_of(reply, context, user), **kw))
    return s["numbers_supported"]


def test_numbers_decimals_thousands_and_percent():
    assert supported("Revenue was $1,200 (3.50%).", "revenue 1200, margin 3.5%").value is True
    assert supported("Revenue was 1200.", "revenue 1,200").value is True
    assert supported("Half is .5 of it.", "0.5").value is True
    s = supported("Revenue was 1,250 and margin 3.7%.", "revenue 1,200, margin 3.5%")
    assert s.value is False
    assert [m["text"] for m in s.metadata["missing"]] == ["1,250", "3.7"]
    assert "1,250" in s.comment


def test_numbers_nfkc_and_signs():
    assert supported("It was \uff11\uff12 units.", "12 units").value is True  # fullwidth digits
    assert supported("Change: \u22125 points.", "change -5").value is True  # U+2212
    assert supported("Change: -5 points.", "change 5").value is False
    assert supported("Change: +5 points.", "change 5").value is True


def test_numbers_ranges_names_ordinals():
    assert supported("Between 10-20 items.", "from 10 to 20").value is True
    assert supported("Between 10\u201320 items.", "from 10 to 20").value is True
    assert supported("Between 10-25 items.", "from 10 to 20").value is False
    assert supported("Q3 sales and COVID19 and H2O.", "sales").value is True
    assert supported("COVID-19 and GPT-4.", "nothing numeric").value is True
    assert supported("She came 3rd.", "placed 3").value is True
    assert supported("She came 4th.", "placed 3").value is False


def test_numbers_list_markers_versions_ips():
    reply = "1. First point\n2) Second point\n(3) Third point\n  4. Fourth"
    s = supported(reply, "no numbers here")
    assert s.value is True and s.metadata["numbers"] == []
    assert supported("Use version 1.2.3 now.", "released 1.2.3").value is True
    assert supported("Use v1.2.3 now.", "released 1.2.3").value is True
    assert supported("Use 1.2.4 now.", "released 1.2.3").value is False
    assert supported("Host 192.168.0.1.", "host 192.168.0.1").value is True
    assert supported("Host 192.168.0.2.", "host 192.168.0.1").value is False
    # a version is text: its parts are not numbers of the source
    assert supported("Version 1.2 here.", "version 1.2.3").value is False


def test_numbers_magnitude_words_both_sides():
    assert supported("About 1.2 million users.", "1,200,000 users").value is True
    assert supported("About 1,200,000 users.", "1.2 million users").value is True
    assert supported("About 1200k users.", "1.2M users").value is True
    assert supported("A 3bn deal.", "3 billion").value is True
    assert supported("5 Thousand people.", "5000 people").value is True
    assert supported("Ran 5m.", "5 million").value is False  # lower-case m is metres
    assert supported("Ran 5m.", "ran 5").value is True
    assert supported("10kg of flour.", "10 kg").value is True


def test_numbers_sources_user_input_and_context_order():
    ctx = make_context(
        {
            "input": [{"role": "user", "content": "My order 4471 is late"}],
            "output": "Order 4471 ships in 3 days.",
            "attributes": {"context": "Shipping takes 3 days."},
        }
    )
    s = valid(unsupported_numbers(ctx))
    assert s["numbers_supported"].value is True  # 4471 from the user, 3 from the context
    s = unsupported_numbers(ctx, context="Shipping takes 5 days.")
    assert s["numbers_supported"].value is False
    assert [m["value"] for m in s["numbers_supported"].metadata["missing"]] == ["3"]


def test_numbers_no_numbers_empty_and_long():
    assert supported("", "1 2 3").value is True
    assert supported("No numbers at all.").value is True
    assert "no numbers" in supported("No numbers.").comment
    assert supported("Café № 5 🎉 東京 7", "café 5 and 7").value is True
    text = ("In 2023 revenue grew 3.5% to $1,200,000 across 12 regions. " * 170)[:10_000]
    start = time.perf_counter()
    s = supported(text, text)
    assert time.perf_counter() - start < 0.5
    assert s.value is True


def test_numbers_citations_urls_and_source_notes_are_not_claims():
    reply = (
        "Paris has 2.1 million people [1][2, 3].\n"
        "See https://example.org/report/2023 and (Source: WHO 2019).[^4]\n\n"
        "[^4]: Census report 2020, page 17"
    )
    s = supported(reply, ["Paris has 2,100,000 people."])
    assert s.value is True
    assert s.metadata["numbers"] == ["2100000"]
    assert s.comment == "the reply's one number occurs in the context or the user's input"


def test_extract_numbers_values():
    nums, versions = extract_numbers("Revenue was $1,200 (3.5%) in Q3; 10-20; v2.0.1; 1.5k")
    assert [str(v) for _, v in nums] == ["1200", "3.5", "10", "20", "1500.0"]
    assert versions == ["2.0.1"]
