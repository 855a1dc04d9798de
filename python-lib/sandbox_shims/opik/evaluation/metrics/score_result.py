"""``opik.evaluation.metrics.score_result`` stand-in: the same dataclass as Opik's."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass
class ScoreResult:
    """One result of a metric (as in comet-ml/opik).

    Oodle turns it into a Score: ``name`` → name, ``value`` → value, ``reason`` → comment,
    ``metadata`` → metadata. A result with ``value`` None or ``scoring_failed=True`` is dropped
    and its reason recorded.
    """

    name: str
    value: float
    reason: str | None = None
    metadata: dict[str, Any] | None = None
    scoring_failed: bool = False
