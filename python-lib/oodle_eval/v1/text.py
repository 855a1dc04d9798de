"""Text helpers of the cookbook: turns, reply, extract_json, metadata_value."""

from __future__ import annotations

from typing import Any

from .context import Context

_MISSING = object()


def turns(ctx: Context) -> list[dict[str, Any]]:
    """The conversation as {"role", "content"} dicts (content as text), oldest first."""
    return [dict(t) for t in ctx.turns]


def reply(ctx: Context) -> str:
    """The newest assistant turn's text; "" when there is none."""
    for turn in reversed(ctx.turns):
        if turn["role"] in ("assistant", "ai", "model", "bot"):
            return turn["content"]
    return ""


def extract_json(value: str) -> Any:
    """The JSON value of a reply under json_validity's rules (RFC 8259, BOM ignored, one whole-reply
    Markdown fence stripped); None when the text is not JSON."""
    from .checks._json_rules import parse_json_reply

    ok, data, _fenced = parse_json_reply(value)
    return data if ok else None


def metadata_value(ctx: Context, key: str, default: Any = None) -> Any:
    """A span attribute by its flat key ("app.expected_answer"), else a dotted path through nested
    attributes, then through metadata; ``default`` when absent."""
    for source in (ctx.attributes, ctx.metadata):
        if key in source:
            return source[key]
        node: Any = source
        for part in key.split("."):
            if isinstance(node, dict) and part in node:
                node = node[part]
            else:
                node = _MISSING
                break
        if node is not _MISSING:
            return node
    return default
