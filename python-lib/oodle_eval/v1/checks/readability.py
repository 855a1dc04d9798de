"""readability: Flesch Reading Ease and Flesch-Kincaid grade of the reply.

Scores (docs/checks.md § readability):

- ``readability_ok`` (BOOLEAN): ``grade_level <= max_grade``; False when the reply has no words.
- ``reading_ease`` (NUMERIC, 0-100, higher is better): Flesch Reading Ease clamped to [0, 100];
  the unclamped value is ``metadata["reading_ease_raw"]``.
- ``grade_level`` (NUMERIC, lower is better): the Flesch-Kincaid grade, not clamped.

Formulas (Flesch 1948; Kincaid et al. 1975), as textstat computes them::

    reading_ease = 206.835 - 1.015 * (words / sentences) - 84.6 * (syllables / words)
    grade_level  = 0.39 * (words / sentences) + 11.8 * (syllables / words) - 15.59

Counting rules: textstat's (textstat/textstat, ``textstat/backend``, 0.7.x):

- words (``count_words`` / ``lexicon_count``): ``remove_punctuation(text, rm_apostrophe=False)``
  then ``str.split()``. Punctuation is every character that is not ``\\w``, whitespace or an
  apostrophe; an apostrophe is removed too unless it starts ``t s d ve ll re`` at the end of a
  word (``don't``, ``it's``, ``we'll`` stay one word). So ``well-known`` is one word
  (``wellknown``), ``3.5`` is one word, and a token of punctuation only is no word.
- sentences (``count_sentences``): ``re.findall(r"\\b[^.!?]+[.!?]*", text)``; a sentence of two
  words or fewer is not counted; at least 1 when the text is not empty.
- syllables (``count_syllables``): per word of the lower-cased word list. textstat asks pyphen
  (``len(positions) + 1``); this check looks the word up in ``data/syllables.tsv`` (vowel phonemes
  of the word's first pronunciation in the CMU Pronouncing Dictionary, built by
  ``scripts/build_syllables.py``) and falls back to ``estimate_syllables`` (rules below) for a word
  that is not there. Every word has at least one syllable, as with pyphen.

textstat 0.7.6+ does not round; neither does this check.

Deliberate deviations (the spec allows them; none changes ASCII input other than the syllable
source): Unicode NFC first; typographic apostrophes (U+2019, U+2018, U+02BC) read as ``'``; a
hyphenated or slashed word that is not in the table gets the sum of its parts' syllables
(``state-of-the-art`` = 4) instead of a guess for the joined letters; accented letters are looked
up without their accents (``café`` -> ``cafe``). A word without Latin letters (CJK, digits) has
one syllable, as pyphen gives it. Emoji and other symbols are punctuation: not words.

Fallback rule (``estimate_syllables``, ~92% exact on CMUdict words): count vowel groups
``[aeiouy]+``; drop a silent final ``e`` (not ``-le`` after a consonant, ``-ee``, ``-ie``, ``-ye``)
and a silent ``e`` before ``-ly/-ment/-ful/-ness/-less``; drop silent ``-ed``/``-es``; add one for
vowel pairs that are two syllables (``ia io iu eo ua uo ii yi``, vowel+``ing``, ``-ism``,
``-ier``/``-iest``, ``mc-``), but not in ``-tion -sion -cia -gio qua gua`` and the like.

Decisions where the spec is silent: the comparison tolerates 1e-9 of float noise (a grade that is
6.62 on paper passes ``max_grade=6.62``); ``max_grade=None`` (a template setting left empty) means 8;
a non-numeric ``max_grade`` raises TypeError.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Any

from ..context import Context
from ..score import Score, Scores
from .. import text as _text

DEFAULT_MAX_GRADE = 8

# textstat backend/transformations/_remove_punctuation.py (rm_apostrophe=False)
_APOSTROPHE_NOT_CONTRACTION = re.compile(r"\'(?![tsd]\b|ve\b|ll\b|re\b)")
_PUNCTUATION = re.compile(r"[^\w\s\']")
# textstat backend/counts/_count_sentences.py
_SENTENCE = re.compile(r"\b[^.!?]+[.!?]*")
_TYPOGRAPHIC_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_PART_SPLIT = re.compile(r"[-\u2010\u2011\u2012\u2013\u2014\u2015/]+")
_LATIN = re.compile(r"[a-z]")

# fallback rule
_VOWEL_GROUP = re.compile(r"[aeiouy]+")
_NON_ALPHA = re.compile(r"[^a-z]")
_PAIR_ADD = re.compile(r"ia|io|iu|eo|ua|uo|ii|yi")
_PAIR_SUB = re.compile(r"tio|sio|cia|cio|gio|gia|tia|sia|cea|qua|quo|guo|gua|quie|cian|tiu|ciu")
_SUFFIX_E = re.compile(r"(?<=[^aeiouy])e(?=(?:ly|ment|ments|ful|ness|less|some|ward|wards|line|lines)$)")
_EXTRA = re.compile(r"(?<=[aeiouy])ing|[aeiou]y[aeiou]|ism$|isms$")
_IER = re.compile(r"[^aeiouy]ier(?:s)?$|[^aeiouy]iest$")
_PLURAL_ES = re.compile(r"(?:[sxz]|ch|sh|ce|ge|se|ze|[cg])es$")
_SIBILANT_END = re.compile(r"(?:[sxz]|ch|sh|ce|ge|se|ze)$")

# Loaded once, into the cache of the function (never a module global set later: the sandbox's
# warm runner treats a changed module dict of oodle_eval as tampering, sandbox/README.md).
@lru_cache(maxsize=None)
def _syllable_table() -> dict[str, int]:
    """word -> syllables from data/syllables.tsv, loaded once; empty when the file is missing."""
    table: dict[str, int] = {}
    try:
        data = resources.files("oodle_eval.v1").joinpath("data").joinpath("syllables.tsv").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError, ModuleNotFoundError):
        data = ""
    for line in data.splitlines():
        if not line or line.startswith("#"):
            continue
        word, _, count = line.partition("\t")
        if count.isdigit():
            table[word] = int(count)
    return table


def estimate_syllables(word: str) -> int:
    """Rule-based syllable estimate of one word (letters a-z only are read); at least 1."""
    w = _NON_ALPHA.sub("", word.lower())
    if not w:
        return 1
    n = len(_VOWEL_GROUP.findall(w))
    if len(w) <= 3:
        return max(1, n)
    stripped = _SUFFIX_E.sub("", w)
    if stripped != w:
        n -= 1
        w = stripped
    if w.endswith("e") and not w.endswith(("le", "ee", "ie", "ye")):
        n -= 1
    elif w.endswith("le") and w[-3] in "aeiouy":
        n -= 1
    if w.endswith("ed") and w[-3] not in "tdaeiouy" and not (w[-3] == "l" and w[-4] not in "aeiouyl"):
        n -= 1
    elif w.endswith("es") and w[-3] not in "aeiouyl" and not _PLURAL_ES.search(w):
        n -= 1
    n += len(_PAIR_ADD.findall(w))
    n -= len(_PAIR_SUB.findall(w))
    n += len(_EXTRA.findall(w))
    if len(w) >= 6 and _IER.search(w):
        n += 1
    if w.startswith("mc"):
        n += 1
    return max(1, n)


def _strip_accents(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _lookup(word: str) -> int | None:
    """Table syllables of a lower-case word (apostrophes allowed), or None."""
    table = _syllable_table()
    n = table.get(word)
    if n is not None:
        return n
    plain = _strip_accents(word)
    if plain != word:
        n = table.get(plain)
        if n is not None:
            return n
    if "'" in plain:
        base, _, suffix = plain.rpartition("'")
        if suffix == "t" and base.endswith("n"):  # mustn't = must + n't
            n = table.get(base[:-1])
            return None if n is None else n + 1
        n = table.get(base)
        if n is None:
            return None
        if suffix == "s" and _SIBILANT_END.search(base):
            return n + 1
        return n
    return None


@lru_cache(maxsize=65536)
def word_syllables(word: str) -> tuple[int, bool]:
    """(syllables, found in the table) of one lower-case word; at least 1 syllable."""
    n = _lookup(word)
    if n is not None:
        return max(1, n), True
    plain = _strip_accents(word)
    if not _LATIN.search(plain):
        return 1, False
    return estimate_syllables(plain), False


def _token_syllables(raw_token: str, word: str) -> tuple[int, bool]:
    """Syllables of a word, summing the parts of a hyphenated/slashed token not in the table."""
    n, found = word_syllables(word)
    if found or not _PART_SPLIT.search(raw_token):
        return n, found
    parts = [_PUNCTUATION.sub("", p).lower() for p in _PART_SPLIT.split(raw_token)]
    parts = [p for p in parts if p]
    if len(parts) < 2:
        return n, found
    counts = [word_syllables(p) for p in parts]
    return sum(c for c, _ in counts), all(f for _, f in counts)


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFC", text).translate(_TYPOGRAPHIC_APOSTROPHES)


def count_words(text: str) -> int:
    """textstat ``count_words``: words after punctuation removal (apostrophes of contractions kept)."""
    return len(_PUNCTUATION.sub("", _APOSTROPHE_NOT_CONTRACTION.sub("", text)).split())


def count_sentences(text: str) -> int:
    """textstat ``count_sentences``: 0 for "", else max(1, sentences of more than two words)."""
    if not text:
        return 0
    sentences = _SENTENCE.findall(text)
    ignored = sum(1 for s in sentences if count_words(s) <= 2)
    return max(1, len(sentences) - ignored)


def text_statistics(text: str) -> dict[str, Any]:
    """Words, sentences, syllables (and words needing the fallback rule) under textstat's rules."""
    text = _normalise(text)
    words = 0
    syllables = 0
    fallback = 0
    for raw in _APOSTROPHE_NOT_CONTRACTION.sub("", text).split():
        word = _PUNCTUATION.sub("", raw)
        if not word:
            continue
        words += 1
        n, found = _token_syllables(raw, word.lower())
        syllables += n
        if not found:
            fallback += 1
    sentences = count_sentences(text) if words else 0
    return {"words": words, "sentences": sentences, "syllables": syllables, "fallback_words": fallback}


def flesch(words: int, sentences: int, syllables: int) -> tuple[float, float]:
    """(reading ease, Flesch-Kincaid grade) from counts; words and sentences must be > 0."""
    wps = words / sentences
    spw = syllables / words
    return 206.835 - 1.015 * wps - 84.6 * spw, 0.39 * wps + 11.8 * spw - 15.59


def readability(ctx: Context, max_grade: float | int | None = DEFAULT_MAX_GRADE) -> Scores:
    """Score the reply's Flesch Reading Ease and Flesch-Kincaid grade.

    Args:
        ctx: the evaluation context; the reply is ``text.reply(ctx)``.
        max_grade: the highest acceptable grade (inclusive); None means 8.
    Returns:
        Scores: ``readability_ok``, ``reading_ease``, ``grade_level``.
    """
    if max_grade is None:
        max_grade = DEFAULT_MAX_GRADE
    if isinstance(max_grade, bool) or not isinstance(max_grade, (int, float)):
        raise TypeError(f"readability: max_grade must be a number, got {type(max_grade).__name__}")
    stats = text_statistics(_text.reply(ctx))
    meta: dict[str, Any] = dict(stats)
    meta["max_grade"] = max_grade
    if stats["words"] == 0:
        why = "the reply has no words, so it has no reading ease or grade"
        meta.update(reading_ease_raw=None, words_per_sentence=None, syllables_per_word=None)
        return Scores(
            [
                Score(name="readability_ok", value=False, data_type="BOOLEAN", higher_is_better=True, comment=why, metadata=dict(meta)),
                Score(name="reading_ease", value=None, data_type="NUMERIC", higher_is_better=True, comment=why, metadata=dict(meta)),
                Score(name="grade_level", value=None, data_type="NUMERIC", higher_is_better=False, comment=why, metadata=dict(meta)),
            ]
        )
    ease_raw, grade = flesch(stats["words"], stats["sentences"], stats["syllables"])
    ease = min(100.0, max(0.0, ease_raw))
    meta.update(
        reading_ease_raw=ease_raw,
        words_per_sentence=stats["words"] / stats["sentences"],
        syllables_per_word=stats["syllables"] / stats["words"],
    )
    ok = grade <= max_grade + 1e-9  # float noise: 0.39*4 + 11.8*1.75 - 15.59 is 6.620000000000001
    counts = f"{stats['words']} words, {stats['sentences']} sentences, {stats['syllables']} syllables"
    verdict = f"grade {grade:.1f} {'<=' if ok else '>'} max_grade {max_grade}"
    ease_note = f"reading ease {ease_raw:.1f}" + ("" if ease == ease_raw else f", clamped to {ease:.0f}")
    return Scores(
        [
            Score(
                name="readability_ok",
                value=ok,
                data_type="BOOLEAN",
                higher_is_better=True,
                comment=f"{verdict} ({ease_note}; {counts})",
                metadata=dict(meta),
            ),
            Score(
                name="reading_ease",
                value=ease,
                data_type="NUMERIC",
                higher_is_better=True,
                comment=f"Flesch Reading Ease {ease_raw:.1f}" + ("" if ease == ease_raw else f", clamped to {ease:.0f}") + f" ({counts})",
                metadata=dict(meta),
            ),
            Score(
                name="grade_level",
                value=grade,
                data_type="NUMERIC",
                higher_is_better=False,
                comment=f"Flesch-Kincaid grade {grade:.1f} ({counts})",
                metadata=dict(meta),
            ),
        ]
    )
