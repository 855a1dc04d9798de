"""The service's bounds on one result (src/execution/result-validation.ts ``RESULT_BOUNDS``).

The sandbox runner sends whatever ``Score`` accepts; the service then refuses a result past these
bounds as ``invalid_result``. The local runner checks them too, so a result it prints is one the
service would store. Lengths are counted as JavaScript counts them (UTF-16 code units), metadata as
the UTF-8 bytes of its compact JSON.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

MAX_SCORES = 100
MAX_CATEGORICAL_CHARS = 1_000
MAX_COMMENT_CHARS = 10_000
MAX_METADATA_BYTES = 16 * 1024


def _js_length(text: str) -> int:
    """The length JavaScript gives ``text`` (UTF-16 code units: a character outside the BMP counts 2)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def bound_problem(scores: Sequence[Any]) -> str | None:
    """The first bound the result breaks, as the service words it, or None when it fits."""
    if len(scores) > MAX_SCORES:
        return f"at most {MAX_SCORES} scores (got {len(scores)})"
    for score in scores:
        name = json.dumps(score.name, ensure_ascii=False)
        if isinstance(score.value, str) and _js_length(score.value) > MAX_CATEGORICAL_CHARS:
            return f"score {name} value: must be at most {MAX_CATEGORICAL_CHARS} characters (got {_js_length(score.value)})"
        if isinstance(score.comment, str) and _js_length(score.comment) > MAX_COMMENT_CHARS:
            return f"score {name} comment: must be at most {MAX_COMMENT_CHARS} characters (got {_js_length(score.comment)})"
        if score.metadata is not None:
            size = len(json.dumps(score.metadata, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
            if size > MAX_METADATA_BYTES:
                return f"score {name} metadata: metadata must be at most {MAX_METADATA_BYTES} bytes of JSON (got {size})"
    return None
