"""The checks of oodle_eval.v1 (docs/checks.md). Each returns a Scores list,
primary score first; one check per file in ``oodle_eval.v1.checks``."""

from .checks.citation_check import citation_check
from .checks.conversation_degeneration import conversation_degeneration
from .checks.exact_match import exact_match
from .checks.grounding import grounding
from .checks.json_validity import json_validity
from .checks.keyword_check import keyword_check
from .checks.length_budget import length_budget
from .checks.levenshtein_ratio import levenshtein_ratio
from .checks.pii_leak import pii_leak
from .checks.readability import readability
from .checks.refusal import refusal
from .checks.tone import tone
from .checks.tool_trajectory import tool_trajectory
from .checks.unsupported_numbers import unsupported_numbers

__all__ = [
    "citation_check",
    "conversation_degeneration",
    "exact_match",
    "grounding",
    "json_validity",
    "keyword_check",
    "length_budget",
    "levenshtein_ratio",
    "pii_leak",
    "readability",
    "refusal",
    "tone",
    "tool_trajectory",
    "unsupported_numbers",
]
