"""``Readability`` as in Opik (``opik.evaluation.metrics.heuristics.readability``).

Opik counts with the ``textstat`` package; here the counting is oodle_eval's readability check
(textstat 0.7's rules, syllables from the CMU Pronouncing Dictionary table, see docs/checks.md §
readability), or a ``textstat_module`` passed in (anything with textstat's ``sentence_count``,
``lexicon_count``, ``syllable_count``, ``flesch_reading_ease`` and ``flesch_kincaid_grade``).
The value is the Flesch Reading Ease clamped to [0, 100] and divided by 100, or with
``enforce_bounds`` 1.0 when the Flesch–Kincaid grade is within ``min_grade``/``max_grade``.
"""

from __future__ import annotations

from typing import Any, Optional

from ....exceptions import MetricComputationError
from .. import base_metric, score_result


class OodleTextstat:
    """textstat's five counters, computed by ``oodle_eval.v1.checks.readability``."""

    def _stats(self, text: str) -> dict:
        from oodle_eval.v1.checks.readability import text_statistics

        return text_statistics(text)

    def sentence_count(self, text: str) -> int:
        return self._stats(text)["sentences"]

    def lexicon_count(self, text: str, removepunct: bool = True) -> int:
        return self._stats(text)["words"]

    def syllable_count(self, text: str, lang: str = "en_US") -> int:
        return self._stats(text)["syllables"]

    def _flesch(self, text: str) -> tuple:
        from oodle_eval.v1.checks.readability import flesch

        s = self._stats(text)
        return flesch(s["words"], s["sentences"], s["syllables"])

    def flesch_reading_ease(self, text: str) -> float:
        return self._flesch(text)[0]

    def flesch_kincaid_grade(self, text: str) -> float:
        return self._flesch(text)[1]


class Readability(base_metric.BaseMetric):
    """Flesch Reading Ease normalised to [0, 1], or a grade-bounds guardrail (1.0 / 0.0)."""

    def __init__(
        self,
        *,
        name: str = "readability_metric",
        track: bool = True,
        project_name: Optional[str] = None,
        min_grade: Optional[float] = None,
        max_grade: Optional[float] = None,
        language: str = "en_US",
        textstat_module: Optional[Any] = None,
        enforce_bounds: bool = False,
    ) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self._textstat = textstat_module if textstat_module is not None else OodleTextstat()
        self._min_grade, self._max_grade = min_grade, max_grade
        self._language = language
        self._enforce_bounds = enforce_bounds

    def score(self, output: str, **ignored_kwargs: Any) -> score_result.ScoreResult:
        """Raises MetricComputationError for an empty text or one without words or sentences."""
        if not output or not output.strip():
            raise MetricComputationError("Text is empty (Readability metric).")
        text = output.strip()
        sentences = self._textstat.sentence_count(text)
        words = self._textstat.lexicon_count(text, removepunct=True)
        if sentences <= 0 or words <= 0:
            raise MetricComputationError("Unable to parse text for readability metrics.")
        syllables = self._textstat.syllable_count(text, lang=self._language)
        ease = float(self._textstat.flesch_reading_ease(text))
        grade = float(self._textstat.flesch_kincaid_grade(text))
        within = not (self._min_grade is not None and grade < self._min_grade) and not (self._max_grade is not None and grade > self._max_grade)
        if self._enforce_bounds:
            value = 1.0 if within else 0.0
            reason = "Text meets readability targets" if within else "Text falls outside readability targets"
        else:
            value = max(0.0, min(100.0, ease)) / 100.0
            reason = f"Flesch Reading Ease: {ease:.2f} | Flesch-Kincaid Grade: {grade:.2f}"
        return self.directed(score_result.ScoreResult(
            value=value,
            name=self.name,
            reason=reason,
            metadata={
                "flesch_reading_ease": ease,
                "flesch_kincaid_grade": grade,
                "words_per_sentence": words / sentences,
                "syllables_per_word": syllables / words,
                "sentence_count": sentences,
                "word_count": words,
                "syllable_count": syllables,
                "min_grade": self._min_grade,
                "max_grade": self._max_grade,
                "within_grade_bounds": within,
            },
        ))
