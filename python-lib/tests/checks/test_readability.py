"""Tests of readability.

Values are worked by hand from the Flesch formulas with the counts given in the comments
(syllables: CMU Pronouncing Dictionary, vowel phonemes of the first pronunciation).
"""

from __future__ import annotations

import os
import time

import pytest

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks import readability as readability_mod
from oodle_eval.v1.checks.readability import (
    count_sentences,
    count_words,
    estimate_syllables,
    readability,
    text_statistics,
    word_syllables,
)

from _support import LONG_TEXT as LONG
from _support import ctx_with_context as ctx_of
from _support import valid_untyped as valid


CMUDICT = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"
ARPABET_VOWELS = set("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())


def test_readability_simple_text_hand_worked():
    # Words 16: The cat sat on the mat (6) + It was a sunny day and the cat was happy (10).
    # Sentences 2. Syllables 18: 6 one-syllable words; it was a day and the cat was = 8, sunny 2,
    # happy 2 -> 6 + 8 + 2 + 2 = 18.
    # FRE = 206.835 - 1.015*(16/2) - 84.6*(18/16) = 206.835 - 8.12 - 95.175 = 103.54 -> clamped 100
    # FK  = 0.39*8 + 11.8*1.125 - 15.59 = 3.12 + 13.275 - 15.59 = 0.805
    s = valid(readability(ctx_of("The cat sat on the mat. It was a sunny day, and the cat was happy.")))
    assert s.names() == ["readability_ok", "reading_ease", "grade_level"]
    meta = s["reading_ease"].metadata
    assert (meta["words"], meta["sentences"], meta["syllables"]) == (16, 2, 18)
    assert meta["reading_ease_raw"] == pytest.approx(103.54)
    assert s["reading_ease"].value == 100.0
    assert s["grade_level"].value == pytest.approx(0.805)
    assert s["readability_ok"].value is True
    assert s["grade_level"].higher_is_better is False
    assert s["reading_ease"].higher_is_better is True
    assert s["reading_ease"].data_type == "NUMERIC" and s["readability_ok"].data_type == "BOOLEAN"


def test_readability_hard_text_hand_worked():
    # Words 9 (5 + 4), sentences 2. Syllables (CMUdict): readability 5, metrics 2, estimate 3,
    # comprehension 4, difficulty 4 (= 18); organizations 5, evaluate 4, documentation 5,
    # systematically 5 (= 19) -> 37.
    # FRE = 206.835 - 1.015*4.5 - 84.6*(37/9) = 206.835 - 4.5675 - 347.8 = -145.5325 -> clamped 0
    # FK  = 0.39*4.5 + 11.8*(37/9) - 15.59 = 1.755 + 48.5111 - 15.59 = 34.6761
    text = (
        "Readability metrics estimate comprehension difficulty. "
        "Organizations evaluate documentation systematically."
    )
    s = valid(readability(ctx_of(text), max_grade=8))
    meta = s["grade_level"].metadata
    assert (meta["words"], meta["sentences"], meta["syllables"]) == (9, 2, 37)
    assert meta["reading_ease_raw"] == pytest.approx(206.835 - 1.015 * 4.5 - 84.6 * 37 / 9)
    assert meta["reading_ease_raw"] == pytest.approx(-145.5325)
    assert s["reading_ease"].value == 0.0
    assert s["grade_level"].value == pytest.approx(34.6761, abs=1e-4)
    assert s["readability_ok"].value is False
    assert "clamped" in s["reading_ease"].comment


def test_readability_short_sentences_are_not_counted():
    # textstat: a sentence of two words or fewer is ignored. "Yes." (1 word) is ignored, so
    # sentences = 1; words 5 (Yes The dog ran home), syllables 5.
    # FRE = 206.835 - 1.015*5 - 84.6*1 = 117.16 ; FK = 0.39*5 + 11.8 - 15.59 = -1.84
    s = readability(ctx_of("Yes. The dog ran home."))
    meta = s["grade_level"].metadata
    assert (meta["words"], meta["sentences"], meta["syllables"]) == (5, 1, 5)
    assert meta["reading_ease_raw"] == pytest.approx(117.16)
    assert s["grade_level"].value == pytest.approx(-1.84)


def test_readability_contractions_hyphens_and_curly_apostrophe():
    # Words 4: Don't, use, state-of-the-art (one word, as textstat removes the hyphens), tools.
    # Syllables 7: don't 1, use 1, state-of-the-art 4 (state of the art, summed parts), tools 1.
    # Sentences 1. FRE = 206.835 - 1.015*4 - 84.6*1.75 = 54.725 ; FK = 1.56 + 20.65 - 15.59 = 6.62
    for text in ("Don't use state-of-the-art tools.", "Don\u2019t use state-of-the-art tools."):
        s = readability(ctx_of(text))
        meta = s["grade_level"].metadata
        assert (meta["words"], meta["sentences"], meta["syllables"]) == (4, 1, 7), text
        assert meta["reading_ease_raw"] == pytest.approx(54.725)
        assert s["grade_level"].value == pytest.approx(6.62)


def test_readability_max_grade_boundary_is_inclusive():
    s = readability(ctx_of("Don't use state-of-the-art tools."), max_grade=6.62)
    assert s["readability_ok"].value is True
    s = readability(ctx_of("Don't use state-of-the-art tools."), max_grade=6.6)
    assert s["readability_ok"].value is False
    assert readability(ctx_of("The dog ran home fast."), max_grade=None)["readability_ok"].metadata["max_grade"] == 8
    with pytest.raises(TypeError):
        readability(ctx_of("x"), max_grade="8")


def test_readability_empty_and_symbol_only_replies_have_no_value():
    for reply in ("", "   ", "🎉🎉 !!! ...", "—"):
        s = valid(readability(ctx_of(reply)))
        assert s["readability_ok"].value is False
        assert s["reading_ease"].value is None and s["grade_level"].value is None
        assert "no words" in s["readability_ok"].comment
    # no assistant turn at all
    s = readability(make_context({"input": "hello there my friend"}))
    assert s["readability_ok"].value is False and s["grade_level"].value is None


def test_readability_accents_cjk_and_emoji():
    # café -> cafe (2, CMUdict K AH F EY), crème -> creme (1), brûlée -> fallback "brulee" (2);
    # The 1, served 1: 5 words, 7 syllables, 1 sentence. The emoji is not a word.
    stats = text_statistics("The café served crème brûlée 🍮.")
    assert stats == {"words": 5, "sentences": 1, "syllables": 7, "fallback_words": 1}
    # CJK: one \w run is one word of one syllable (as pyphen gives); the sentence has < 3 words
    # so textstat's max(1, ...) gives 1 sentence. FRE = 206.835 - 1.015 - 84.6 = 121.22 -> 100.
    s = valid(readability(ctx_of("你好世界。")))
    assert s["grade_level"].metadata["words"] == 1
    assert s["grade_level"].value == pytest.approx(0.39 + 11.8 - 15.59)
    assert s["reading_ease"].value == 100.0
    # NFC: a decomposed "café" counts like the composed one
    assert text_statistics("cafe\u0301 time now") == text_statistics("café time now")


def test_readability_textstat_counting_rules():
    assert count_words("Hello, world! It's a well-known fact.") == 6
    assert count_words("... --- !!!") == 0
    assert count_words("'quoted' words") == 2  # non-contraction apostrophes are removed
    assert count_sentences("") == 0
    assert count_sentences("One two three. Four five six! Seven eight nine?") == 3
    assert count_sentences("Hi. Ok.") == 1  # both ignored (<= 2 words), at least 1
    assert count_sentences("3.5 percent of the people voted here") == 1  # "3." is a 1-word sentence


def test_readability_long_input_is_fast():
    readability(ctx_of("Warm up the table."))  # load the table once
    start = time.perf_counter()
    s = valid(readability(ctx_of(LONG)))
    elapsed = time.perf_counter() - start
    assert len(LONG) == 10_000
    assert s["grade_level"].metadata["words"] > 1500
    assert elapsed < 0.5


def test_syllable_fallback_rule():
    assert estimate_syllables("table") == 2
    assert estimate_syllables("jumped") == 1
    assert estimate_syllables("makes") == 1
    assert estimate_syllables("nation") == 2
    assert estimate_syllables("happier") == 3
    assert estimate_syllables("surely") == 2
    assert estimate_syllables("") == 1
    assert estimate_syllables("zzz") == 1
    # words not in the table use it; words without Latin letters have 1 syllable
    assert word_syllables("flibbertigibbetish") == (estimate_syllables("flibbertigibbetish"), False)
    assert word_syllables("你好") == (1, False)
    assert word_syllables("2024") == (1, False)


def test_syllable_table_against_cmudict_file():
    if not os.path.exists(CMUDICT):
        pytest.fail("pocketsphinx-en-us (CMUdict) is not installed: apt-get install pocketsphinx-en-us")
    words = {"readability", "hello", "fire", "every", "family", "poem", "documentation", "wouldn't", "o'clock", "the"}
    expected = {}
    with open(CMUDICT, encoding="latin-1") as fh:
        for line in fh:
            parts = line.split()
            if parts and parts[0] in words and parts[0] not in expected:
                expected[parts[0]] = sum(1 for p in parts[1:] if p in ARPABET_VOWELS)
    assert set(expected) == words
    table = readability_mod._syllable_table()
    for word, n in expected.items():
        assert table[word] == n, word
        assert word_syllables(word) == (max(1, n), True)
    assert expected["readability"] == 5 and expected["wouldn't"] == 2 and expected["fire"] == 2


def test_syllable_table_file_is_compact_and_well_formed():
    table = readability_mod._syllable_table()
    assert len(table) > 100_000
    assert table["hello"] == 2 and table["don't"] == 1
    assert all(" " not in w and "-" not in w for w in list(table)[:1000])
    path = os.path.join(os.path.dirname(readability_mod.__file__), "..", "data", "syllables.tsv")
    assert os.path.getsize(path) < 1_600_000
