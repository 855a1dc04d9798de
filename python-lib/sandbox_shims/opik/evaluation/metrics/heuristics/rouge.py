"""``ROUGE`` as in Opik (``opik.evaluation.metrics.heuristics.rouge``).

Opik wraps Google Research's ``rouge-score`` (``rouge_scorer.RougeScorer([type]).score_multi``);
that package is not in the sandbox, so its algorithm is implemented here (google-research/
google-research ``rouge/rouge_scorer.py`` and ``rouge/tokenize.py``, Apache-2.0; Lin, "ROUGE: A
Package for Automatic Evaluation of Summaries", 2004):

* tokens: lower-cased text with every run of characters outside [a-z0-9] read as a space; with
  ``use_stemmer`` tokens longer than 3 characters are Porter-stemmed (NLTK's PorterStemmer,
  ORIGINAL_ALGORITHM, as rouge-score uses it); a custom ``tokenizer`` has ``tokenize(text)``;
* rouge1 / rouge2: clipped n-gram overlap; rougeL: the longest common subsequence; rougeLsum:
  the summary-level union LCS over sentences split at newlines (``split_summaries`` splits with
  NLTK's punkt, which the sandbox does not have: it raises);
* precision = overlap / candidate count, recall = overlap / reference count, the value is the F1
  ``2PR / (P + R)`` (0 when both are 0), the best F1 over several references.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, List, Optional, Sequence, Tuple, Union

from ....exceptions import MetricComputationError
from .. import base_metric, score_result
from .._nltk import module

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def _f1(overlap: int, predicted: int, target: int) -> float:
    precision = overlap / predicted if predicted else 0.0
    recall = overlap / target if target else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _lcs_table(ref: Sequence[str], can: Sequence[str]) -> List[List[int]]:
    table = [[0] * (len(can) + 1) for _ in range(len(ref) + 1)]
    for i in range(1, len(ref) + 1):
        for j in range(1, len(can) + 1):
            table[i][j] = table[i - 1][j - 1] + 1 if ref[i - 1] == can[j - 1] else max(table[i - 1][j], table[i][j - 1])
    return table


def _lcs_indices(ref: Sequence[str], can: Sequence[str]) -> List[int]:
    """Indices into ``ref`` of one LCS, by rouge-score's backtracking."""
    table = _lcs_table(ref, can)
    i, j, found = len(ref), len(can), []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            found.insert(0, i - 1)
            i, j = i - 1, j - 1
        elif table[i][j - 1] > table[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return found


def _summary_lcs_f1(ref_sents: List[List[str]], can_sents: List[List[str]]) -> float:
    m = sum(len(s) for s in ref_sents)
    n = sum(len(s) for s in can_sents)
    if not m or not n:
        return 0.0
    ref_counts = Counter(t for s in ref_sents for t in s)
    can_counts = Counter(t for s in can_sents for t in s)
    hits = 0
    for ref in ref_sents:
        union = sorted(set().union(*(_lcs_indices(ref, can) for can in can_sents)))
        for token in (ref[i] for i in union):
            if can_counts[token] > 0 and ref_counts[token] > 0:
                hits += 1
                can_counts[token] -= 1
                ref_counts[token] -= 1
    return _f1(hits, n, m)


class ROUGE(base_metric.BaseMetric):
    """ROUGE F1 (0 to 1) of the output against a reference or the best of several references."""

    def __init__(
        self,
        name: str = "rouge_metric",
        track: bool = True,
        rouge_type: str = "rouge1",
        use_stemmer: bool = False,
        split_summaries: bool = False,
        tokenizer: Optional[Any] = None,
        project_name: Optional[str] = None,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        if rouge_type not in ROUGE_TYPES:
            raise MetricComputationError(f"Invalid rouge_type '{rouge_type}'. Must be one of {set(ROUGE_TYPES)}.")
        self._rouge_type = rouge_type
        self._tokenizer = tokenizer
        self._split_summaries = split_summaries
        self._stemmer = module("stem.porter", "ROUGE").PorterStemmer("ORIGINAL_ALGORITHM") if use_stemmer else None

    def _tokens(self, text: str) -> List[str]:
        if self._tokenizer is not None:
            return list(self._tokenizer.tokenize(text))
        tokens = _NON_ALNUM.sub(" ", text.lower()).split()
        if self._stemmer is not None:
            tokens = [self._stemmer.stem(t) if len(t) > 3 else t for t in tokens]
        return tokens

    def _sentences(self, text: str) -> List[List[str]]:
        if self._split_summaries:
            raise MetricComputationError("ROUGE split_summaries needs NLTK's punkt sentence model, which the sandbox does not have")
        return [t for t in (self._tokens(s) for s in text.split("\n")) if t]

    def _f1(self, target: str, prediction: str) -> float:
        if self._rouge_type == "rougeLsum":
            return _summary_lcs_f1(self._sentences(target), self._sentences(prediction))
        ref, can = self._tokens(target), self._tokens(prediction)
        if self._rouge_type == "rougeL":
            if not ref or not can:
                return 0.0
            return _f1(_lcs_table(ref, can)[-1][-1], len(can), len(ref))
        n = 1 if self._rouge_type == "rouge1" else 2
        ref_grams, can_grams = _ngrams(ref, n), _ngrams(can, n)
        overlap = sum(min(count, can_grams[g]) for g, count in ref_grams.items())
        return _f1(overlap, max(sum(can_grams.values()), 1), max(sum(ref_grams.values()), 1))

    def score(self, output: str, reference: Union[str, List[str]], **ignored_kwargs: Any) -> score_result.ScoreResult:
        """ROUGE F1; raises MetricComputationError for an empty text or a reference that is not text."""
        if not output.strip():
            raise MetricComputationError("Candidate is empty.")
        if isinstance(reference, str):
            if not reference.strip():
                raise MetricComputationError("Reference is empty.")
            references = [reference]
        elif isinstance(reference, list):
            if not reference:
                raise MetricComputationError("Reference is empty.")
            if not all(isinstance(r, str) for r in reference):
                raise MetricComputationError("Reference must be a string or a list of strings.")
            if any(not r.strip() for r in reference):
                raise MetricComputationError("Encountered empty reference.")
            references = reference
        else:
            raise MetricComputationError("Reference must be a string or a list of strings.")
        value = max(self._f1(r, output) for r in references)
        return self.directed(score_result.ScoreResult(value=value, name=self.name, reason=f"{self._rouge_type} score: {value:.4f}"))
