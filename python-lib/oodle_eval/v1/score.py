"""Score, the list of scores returned by every check, and EvaluationResult.

Rules (docs/scores.md § Score): name is 1-100 characters with no newline, not only whitespace and
with no control or invisible character (the service's name rule, src/lib/text-rules.ts); data_type is
BOOLEAN, NUMERIC or CATEGORICAL, inferred from the value's Python type when omitted
(bool or numpy.bool_ -> BOOLEAN, any number -> NUMERIC, str -> CATEGORICAL); None means "no value".
A numpy scalar, a Decimal or another real number becomes the plain bool / int / float it converts
to (``score_value.plain_value``; docs/scores.md § Values).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, SupportsIndex, overload

from .score_value import ScoreValue, ValueProblem, infer_data_type, plain_value, type_name

DATA_TYPES = ("BOOLEAN", "NUMERIC", "CATEGORICAL")
# Dicts and lists nested in one metadata dict, the dict itself counted as 1 (the service refuses
# more: src/execution/result-validation.ts, RESULT_BOUNDS.maxMetadataDepth).
MAX_METADATA_DEPTH = 64

# Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt, Unicode 15.1): the same
# table as the service's name rule (src/lib/text-rules.ts), so a local run refuses what it refuses.
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
_BIDI_CONTROLS = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def invisible_character_problem(name: str) -> str | None:
    """What breaks the name rule's character rules in ``name``, or None (docs/scores.md § Score).

    Refused: control characters (U+0000-U+001F, U+007F-U+009F), U+2028/U+2029, and default-ignorable
    characters (zero-width space, bidirectional overrides, soft hyphen...), except U+200C/U+200D
    between two non-ASCII characters and variation selectors or tags after a non-ASCII character.
    """
    cps = [ord(c) for c in name]
    for i, cp in enumerate(cps):
        at = f"(character {i + 1})"
        if cp <= 0x1F or 0x7F <= cp <= 0x9F or cp in (0x2028, 0x2029):
            return f"must not contain the control character U+{cp:04X} {at}: a name is one line of visible text"
        if not any(first <= cp <= last for first, last in _DEFAULT_IGNORABLE):
            continue
        before = cps[i - 1] if i > 0 else None
        after = cps[i + 1] if i + 1 < len(cps) else None
        if cp in (0x200C, 0x200D) and before is not None and before > 0x7F and after is not None and after > 0x7F:
            continue
        if (0xFE00 <= cp <= 0xFE0F or 0xE0020 <= cp <= 0xE007F) and before is not None and before > 0x7F:
            continue
        kind = "bidirectional control" if cp in _BIDI_CONTROLS else "invisible character"
        return f"must not contain the {kind} U+{cp:04X} {at}: it makes a name display as another"
    return None


class ScoreError(ValueError):
    """A score that breaks the Score rules; the message names the score."""


@dataclass
class Score:
    """One named value written by an evaluator.

    Attributes:
        name: 1-100 characters, no newline, not only whitespace, nothing invisible.
        value: bool, int, float, str or None ("no value"); also numpy.bool_, any real number
            (numpy's, Decimal, Fraction), turned into the plain value it converts to when the
            score is made and again by ``validate`` (score_value.plain_value).
        data_type: "BOOLEAN" | "NUMERIC" | "CATEGORICAL"; inferred from ``value`` when None
            (NUMERIC when the value is None too, or of no score type).
        higher_is_better: direction used by ``combine.passed``.
        comment: why the value is what it is.
        metadata: a JSON-serialisable dict.
    """

    name: str
    value: ScoreValue = None
    data_type: str | None = None
    higher_is_better: bool = True
    comment: str | None = None
    metadata: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.data_type is None:
            self.data_type = infer_data_type(self.value) or "NUMERIC"
        try:  # so that combine and user code read a plain value too; validate() names the others
            plain = plain_value(self.value)
        except ValueProblem:
            return
        if plain is None or infer_data_type(plain) == self.data_type:
            self.value = plain

    def validate(self) -> None:
        """Raise ScoreError naming this score when it breaks a rule (name, type, NaN, infinity,
        a value that does not convert, metadata); replace a value that converts (numpy.int64,
        Decimal...) by its plain bool / int / float."""
        if not isinstance(self.name, str) or not 1 <= len(self.name) <= 100 or "\n" in self.name:
            raise ScoreError(f"score name {self.name!r}: must be a string of 1-100 characters with no newline")
        if not self.name.strip():
            raise ScoreError(f"score name {self.name!r}: must not be empty (it is only whitespace)")
        problem = invisible_character_problem(self.name)
        if problem:
            raise ScoreError(f"score name {self.name!r}: {problem}")
        if self.data_type not in DATA_TYPES:
            raise ScoreError(f"score {self.name!r}: data_type must be one of {', '.join(DATA_TYPES)}")
        self._validate_metadata()
        given = self.value
        if given is None:
            return
        try:
            v = plain_value(given)
        except ValueProblem as problem:
            if self.data_type == "NUMERIC":
                raise ScoreError(f"score {self.name!r}: NUMERIC value {problem}") from None
            v = given  # a BOOLEAN or CATEGORICAL score says what it wanted, below
        if self.data_type == "BOOLEAN" and not isinstance(v, bool):
            raise ScoreError(f"score {self.name!r}: BOOLEAN value must be True or False, got {type_name(given)}")
        if self.data_type == "NUMERIC" and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise ScoreError(f"score {self.name!r}: NUMERIC value must be a number, got {type_name(given)}")
        if self.data_type == "CATEGORICAL" and not isinstance(v, str):
            raise ScoreError(f"score {self.name!r}: CATEGORICAL value must be a string, got {type_name(given)}")
        self.value = v

    def _validate_metadata(self) -> None:
        """Metadata must be None or a JSON-serialisable dict (no NaN or infinity), nested at most
        MAX_METADATA_DEPTH levels deep (checked without recursion, before json.dumps recurses)."""
        if self.metadata is None:
            return
        if not isinstance(self.metadata, dict):
            raise ScoreError(f"score {self.name!r}: metadata must be a dict, got {type(self.metadata).__name__}")
        if _nesting_depth(self.metadata, MAX_METADATA_DEPTH) > MAX_METADATA_DEPTH:
            raise ScoreError(f"score {self.name!r}: metadata must nest at most {MAX_METADATA_DEPTH} levels deep")
        try:
            json.dumps(self.metadata, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise ScoreError(f"score {self.name!r}: metadata must be JSON-serialisable ({error})") from None

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape used by the runner and the CLI: name, value, data_type, higher_is_better, comment, metadata."""
        return {
            "name": self.name,
            "value": self.value,
            "data_type": self.data_type,
            "higher_is_better": self.higher_is_better,
            "comment": self.comment,
            "metadata": self.metadata,
        }


def _nesting_depth(value: Any, limit: int) -> int:
    """The deepest nesting of dicts, lists and tuples in ``value`` (a scalar is 0), found without
    recursion; ``limit + 1`` as soon as ``limit`` is passed. Reads dicts with ``dict.values``, so
    a subclass's own methods are not called."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = dict.values(node)
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth > limit:
            return limit + 1
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple)))
    return deepest


class Scores(list):
    """A list of Score that is also indexable by score name (``scores["is_json"]``).

    ``+`` with any list returns a Scores. An unknown name raises KeyError naming it.
    """

    @overload
    def __getitem__(self, key: str) -> Score: ...
    @overload
    def __getitem__(self, key: SupportsIndex) -> Score: ...
    @overload
    def __getitem__(self, key: slice) -> "Scores": ...
    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, str):
            for score in self:
                if score.name == key:
                    return score
            raise KeyError(f"no score named {key!r}; scores here: {[s.name for s in self]}")
        result = list.__getitem__(self, key)
        return Scores(result) if isinstance(key, slice) else result

    def __add__(self, other: Iterable[Score]) -> "Scores":  # type: ignore[override]
        return Scores(list(self) + list(other))

    def __radd__(self, other: Iterable[Score]) -> "Scores":
        return Scores(list(other) + list(self))

    def names(self) -> list[str]:
        """The score names, in order."""
        return [s.name for s in self]


@dataclass
class EvaluationResult:
    """What ``evaluate(ctx)`` returns: the scores of one evaluation (at most 100, names unique)."""

    scores: list[Score] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ScoreError when a score breaks a rule or a name appears twice."""
        seen: set[str] = set()
        for score in self.scores:
            if not isinstance(score, Score):
                raise ScoreError(f"EvaluationResult.scores must hold Score objects, got {type(score).__name__}")
            score.validate()
            if score.name in seen:
                raise ScoreError(f"score {score.name!r} appears twice in one result")
            seen.add(score.name)
