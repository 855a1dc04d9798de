"""grounding: token-overlap precision of the reply against the retrieved context.

Scores (docs/checks.md § grounding):

- ``grounded`` (BOOLEAN): ``grounding >= threshold``.
- ``grounding`` (NUMERIC, 0-1): the token-overlap precision of the whole answer::

      grounding = |set(answer tokens) & set(context tokens)| / len(answer tokens)

  which is continuous-eval's ``TokenOverlap.calculate(answer, context)["token_overlap_precision"]``
  (relari-ai/continuous-eval, ``continuous_eval/metrics/generation/text/utils.py``; the metric
  ``DeterministicFaithfulness`` in ``deterministic.py`` applies it per sentence, this check applies
  it to the whole answer: "answer level"). Note the reference's own arithmetic, kept here: the
  numerator counts *distinct* shared tokens while the denominator counts every answer token, so an
  answer that repeats a content word scores below 1 even when every word is in the context.
  ``metadata["token_share"]`` gives the share of answer tokens (with repeats) found in the context.

Context tokens are the retrieved documents joined with newlines, as ``DeterministicFaithfulness``
joins ``retrieved_contexts``.

Tokeniser: continuous-eval's ``SimpleTokenizer`` (``continuous_eval/metrics/utils/
simple_tokenizer.py``): lower-case, strip punctuation, drop NLTK's English stop words
(``data/stopwords_en.txt``, the 198-word list of nltk_data since 2025-02), split the MacIntyre
contractions ``cannot gimme gonna gotta lemme wanna``, turn number strings into floats.

Deliberate deviations (listed in the spec or only visible outside ASCII):

- number-aware: a token that is a number with its punctuation (``3.5%``, ``$1,200``, ``(-4)``) is
  that number (3.5, 1200.0, -4.0) rather than the digits left after stripping punctuation (35.0,
  1200.0, 4.0); ``10-20`` is two numbers; a number keeps its sign (ASCII ``-``/``+`` or U+2212).
- Unicode NFC and ``str.casefold()`` instead of ``lower()``; Unicode punctuation and symbols
  (categories P* and S*: curly quotes, dashes, emoji) are stripped as ASCII punctuation is.
- empty answer -> 1.0 (nothing in it is ungrounded); an answer whose tokens are all stop words or
  punctuation -> 1.0 too (the reference divides by zero there and returns 0.0).
- symmetric polarity (docs/checks.md § grounding): "yes", "yeah", "yep", "yup" and "nope" are dropped like NLTK's
  stop word "no" (``POLARITY_WORDS``), so a bare "yes" and a bare "no" both score 1.0 (with the
  reference "yes" scored 0.0 and "no" 1.0 against the same context), and "Yes, Paris." scores as
  "No, Paris." does (docs/checks.md). On HaluEval's QA development split this raises AUROC against the
  hallucination labels from 0.896 to the figure ``npm run quality`` prints.
- no context -> 0.0 (an empty answer still scores 1.0).
- citation markers (``[1]``, ``[1, 2]``, ``[^note]``) are not content: removed before tokenising,
  so a cited answer is not marked down for its ``1`` (the RAG recipe runs ``citation_check`` on
  the same reply).

Sentences for ``metadata["sentences"]`` (the per-sentence shares, ``token_overlap_p_by_sentence``
of DeterministicFaithfulness): the reply split after ``.``, ``!`` or ``?`` followed by whitespace,
and at line breaks (NLTK's punkt is not available). ``metadata["sentence_faithfulness"]`` is the
share of sentences whose precision is at least 0.5 (DeterministicFaithfulness's
``token_overlap_faithfulness`` with its default threshold).

Context, in this order (the cookbook's RAG recipe): the ``context`` argument (a string or a list
of strings/documents), else the span attribute ``context_key`` (``text.metadata_value``; a list
or a string holding a JSON array is a list of documents), else the text of the input messages.
A blank string or empty list counts as not given. A document that is an object contributes its
``text``/``content``/``page_content`` field, else its JSON.
"""

from __future__ import annotations

import json
import re
import string
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Mapping

from ..context import Context
from ..score import Score, Scores
from .. import text as _text

_ASCII_PUNCT = frozenset(string.punctuation)
# A whitespace token that is one number: optional leading punctuation/currency, sign, digits with
# thousands separators or not, decimals, optional percent/per-mille, trailing punctuation.
_NUMBER_TOKEN = re.compile(
    r"^[^\w+\-\u2212.]*"
    r"(?P<sign>[+\-\u2212])?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"[%\u2030]?[^\w]*$"
)
_RANGE_DASH = re.compile(r"(?<=\d)[-\u2010\u2011\u2012\u2013\u2014](?=[+\-\u2212]?\.?\d)")
# continuous-eval SimpleTokenizer.IS_NUMBER
_IS_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
# MacIntyre CONTRACTIONS2 that can still match once apostrophes are stripped
_CONTRACTIONS = re.compile(r"^(can)(not)$|^(gim)(me)$|^(gon)(na)$|^(got)(ta)$|^(lem)(me)$|^(wan)(na)$")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
_TYPOGRAPHIC_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_DOC_FIELDS = ("text", "content", "page_content", "chunk", "document", "body")
# Citation markers: [1], [1, 2], [2-4], [^label]. Not content: removed before tokenising here and
# before reading numbers in unsupported_numbers.
CITATION_MARKER = re.compile(
    r"\[\s*\d+(?:\s*[-\u2013]\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*[-\u2013]\s*\d+)?)*\s*\]|\[\^[^\]\s]{1,100}\]"
)

#: "no" is an NLTK stop word and "yes" is not, so a bare "no" scored 1.0 and a bare "yes" 0.0 with
#: the same context. These answer words (yes and its casual forms, nope) are removed like "no":
#: token overlap can neither support nor contradict a polarity, and both now score the same.
POLARITY_WORDS = frozenset({"yes", "yeah", "yep", "yup", "nope"})


# Loaded once, into the caches of the functions (never module globals set later: the sandbox's
# warm runner treats a changed module dict of oodle_eval as tampering, sandbox/README.md).
@lru_cache(maxsize=None)
def stopwords() -> frozenset[str]:
    """NLTK's English stop words (data/stopwords_en.txt), loaded once."""
    try:
        data = resources.files("oodle_eval.v1").joinpath("data").joinpath("stopwords_en.txt").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError, ModuleNotFoundError):
        data = ""
    return frozenset(w.strip() for w in data.splitlines() if w.strip() and not w.startswith("#"))


@lru_cache(maxsize=None)
def _dropped_words() -> frozenset[str]:
    """Stop words and POLARITY_WORDS: the words tokenize drops."""
    return stopwords() | POLARITY_WORDS


def _strip_punctuation(token: str) -> str:
    return "".join(
        c for c in token if c not in _ASCII_PUNCT and unicodedata.category(c)[0] not in "PS"
    )


def tokenize(text: str, drop_polarity: bool = True) -> list[str | float]:
    """Content tokens of a text: words (str) and numbers (float), stop words and citation markers
    removed; ``drop_polarity=False`` keeps POLARITY_WORDS (the reference's tokens)."""
    text = unicodedata.normalize("NFC", text).translate(_TYPOGRAPHIC_APOSTROPHES).casefold()
    text = CITATION_MARKER.sub(" ", text)
    text = _RANGE_DASH.sub(" ", text)
    stops = _dropped_words() if drop_polarity else stopwords()
    tokens: list[str | float] = []
    for raw in text.split():
        m = _NUMBER_TOKEN.match(raw)
        if m:
            value = float(m.group("num").replace(",", ""))
            if m.group("sign") in ("-", "\u2212"):
                value = -value
            tokens.append(value)
            continue
        word = _strip_punctuation(raw)
        if not word or word in stops:
            continue
        c = _CONTRACTIONS.match(word)
        pieces = [g for g in c.groups() if g] if c else [word]
        for piece in pieces:
            tokens.append(float(piece) if _IS_NUMBER.match(piece) else piece)
    return tokens


def split_sentences(text: str) -> list[str]:
    """The reply's sentences: split after . ! ? + whitespace, and at line breaks."""
    return [s.strip() for s in _SENTENCE_SPLIT.split(text) if s and s.strip()]


def _doc_text(item: Any) -> str:
    if item is None:
        return ""
    if isinstance(item, str):
        return item
    if isinstance(item, Mapping):
        for key in _DOC_FIELDS:
            if isinstance(item.get(key), str):
                return item[key]
    return json.dumps(item, ensure_ascii=False, default=str)


def _as_documents(value: Any) -> tuple[list[str], bool] | None:
    """(documents, given as a list) for a context value; None when blank/empty."""
    if value is None:
        return None
    if isinstance(value, str):
        if not value.strip():
            return None
        stripped = value.strip()
        if stripped.startswith("["):
            try:
                parsed = json.loads(stripped)
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                return _as_documents(parsed)
        return [value], False
    if isinstance(value, (list, tuple)):
        docs = [_doc_text(item) for item in value]
        if not any(d.strip() for d in docs):
            return None
        return docs, True
    doc = _doc_text(value)
    return ([doc], False) if doc.strip() else None


def input_texts(ctx: Context, roles: Iterable[str] | None = None) -> list[str]:
    """Texts of the input messages (of the given roles, or all), oldest first."""
    wanted = None if roles is None else set(roles)
    turns = ctx.turns[: len(ctx.input_messages)]
    return [t["content"] for t in turns if t.get("content") and (wanted is None or t["role"] in wanted)]


def resolve_context(ctx: Context, context: Any = None, context_key: str | None = "context") -> dict[str, Any]:
    """The retrieved context, found in the cookbook's order.

    Returns a dict: ``documents`` (list of str, empty when there is none), ``is_list`` (the context
    was a list of documents, so citation indexes can be checked against its length) and ``source``
    ("argument", "attribute <key>", "input messages" or None).
    """
    found = _as_documents(context)
    if found is not None:
        return {"documents": found[0], "is_list": found[1], "source": "argument"}
    if context_key:
        found = _as_documents(_text.metadata_value(ctx, context_key))
        if found is not None:
            return {"documents": found[0], "is_list": found[1], "source": f"attribute {context_key}"}
    texts = input_texts(ctx)
    if any(t.strip() for t in texts):
        return {"documents": ["\n".join(texts)], "is_list": False, "source": "input messages"}
    return {"documents": [], "is_list": False, "source": None}


def _precision(answer_tokens: list[str | float], context_set: set[str | float]) -> float:
    if not answer_tokens:
        return 1.0
    return len(set(answer_tokens) & context_set) / len(answer_tokens)


def _show(token: str | float) -> str:
    if isinstance(token, float):
        return str(int(token)) if token.is_integer() else repr(token)
    return token


def grounding(
    ctx: Context,
    threshold: float = 0.5,
    context: Any = None,
    context_key: str | None = "context",
) -> Scores:
    """Score how much of the reply's content vocabulary occurs in the retrieved context.

    Args:
        ctx: the evaluation context; the answer is ``text.reply(ctx)``.
        threshold: ``grounded`` is ``grounding >= threshold`` (None means 0.5).
        context: the retrieved context (str or list of str/documents); overrides the attribute.
        context_key: the span attribute that holds the context when ``context`` is not given.
    Returns:
        Scores: ``grounded``, ``grounding``.
    """
    if threshold is None:
        threshold = 0.5
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise TypeError(f"grounding: threshold must be a number, got {type(threshold).__name__}")
    answer = _text.reply(ctx)
    found = resolve_context(ctx, context, context_key)
    meta: dict[str, Any] = {"threshold": threshold, "context_source": found["source"], "documents": len(found["documents"])}

    answer_tokens = tokenize(answer) if answer.strip() else []
    if not answer.strip():
        value, why = 1.0, "the reply is empty, so nothing in it is ungrounded"
        meta.update(answer_tokens=0, sentences=[], token_share=1.0)
    elif not found["documents"]:
        value, why = 0.0, "no context was found (no context argument, no attribute %r, no input text)" % context_key
        meta.update(answer_tokens=len(answer_tokens), sentences=[], token_share=0.0)
    elif not answer_tokens:
        value, why = 1.0, "the reply has only stop words and punctuation, so nothing in it is ungrounded"
        meta.update(answer_tokens=0, sentences=[], token_share=1.0)
    else:
        context_set = set(tokenize("\n".join(found["documents"])))
        value = _precision(answer_tokens, context_set)
        shared = sum(1 for t in answer_tokens if t in context_set)
        missing: list[str] = []
        for t in answer_tokens:
            if t not in context_set and _show(t) not in missing:
                missing.append(_show(t))
        sentences = []
        for sentence in split_sentences(answer):
            toks = tokenize(sentence)
            if toks:
                sentences.append({"sentence": sentence[:120], "share": _precision(toks, context_set)})
        meta.update(
            answer_tokens=len(answer_tokens),
            distinct_shared=len(set(answer_tokens) & context_set),
            token_share=shared / len(answer_tokens),
            sentences=sentences[:200],
            sentence_faithfulness=(sum(1 for s in sentences if s["share"] >= 0.5) / len(sentences)) if sentences else 1.0,
            not_in_context=missing[:50],
        )
        why = (
            f"{len(set(answer_tokens) & context_set)} distinct content words of the reply's "
            f"{len(answer_tokens)} are in the context ({found['source']})"
        )
        if missing:
            why += "; not in the context: " + ", ".join(missing[:10]) + (" …" if len(missing) > 10 else "")
    ok = value >= threshold
    verdict = f"grounding {value:.2f} {'>=' if ok else '<'} threshold {threshold}: "
    return Scores(
        [
            Score(name="grounded", value=ok, data_type="BOOLEAN", higher_is_better=True, comment=verdict + why, metadata=dict(meta)),
            Score(name="grounding", value=value, data_type="NUMERIC", higher_is_better=True, comment=verdict + why, metadata=dict(meta)),
        ]
    )
