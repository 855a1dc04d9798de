"""tool_trajectory: did the agent call the expected tools.

Semantics (docs/checks.md § tool_trajectory), modelled on agentevals' trajectory match evaluator
(langchain-ai/agentevals 0.0.8, ``create_trajectory_match_evaluator``; ``trajectory/utils.py``
``_is_trajectory_superset``) over one flat, ordered list of tool calls:

- ``strict``: the same number of calls, and call i matches expected item i for every i.
- ``unordered``: the same multiset: as many calls as expected items, and each call pairs with a
  distinct expected item.
- ``subset``: every actual call pairs with a distinct expected item (no extra tool; a tool called
  twice needs two expected items).
- ``superset``: every expected item pairs with a distinct actual call (extra calls allowed).

A call matches an expected item when the names are equal (case-sensitive) and, only when the item
gives ``arguments``, the arguments are equal as JSON: same keys, same values, numbers by value
(1 == 1.0), and booleans are not numbers (True != 1, False != 0). Deviation from agentevals
(deliberate): pairs are found by maximum bipartite matching, not greedily, so an item without
arguments cannot take the call that a later item with arguments needs.

The actual calls: the spans of kind "tool" in ``ctx.trace.spans`` ordered by start time, when the
trace has any; else ``ctx.tool_calls`` (the tool calls in the span's output). A tool span's name is
its ``gen_ai.tool.name`` attribute when it has one (OpenTelemetry GenAI names tool spans
"execute_tool {name}"), else the span name; its arguments are the span input when it is an object,
or the JSON that an input string holds.

Expected items: a tool name, or ``{"name", "arguments"}`` (arguments an object or a JSON string;
missing or null means "any arguments"); the OpenAI form ``{"function": {...}}`` is read the same
way. A single string is one expected name. None for ``mode`` means "strict". An invalid mode or item
raises ValueError naming the parameter.

The comment names the first difference: position (1-based), expected, actual.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, Iterable

from ..context import Context
from ..score import Score, Scores

_MODES = ("strict", "unordered", "subset", "superset")
_ANY = object()  # "arguments not given" in an expected item


def json_equal(a: Any, b: Any) -> bool:
    """Equality of two JSON values: numbers by value, booleans never equal to numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
        return False
    return a == b


def _parse_args(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _expected_items(expected: Any) -> list[tuple[str, Any]]:
    if expected is None:
        raise ValueError("tool_trajectory: expected must be a list of tool names or {name, arguments} items, got None")
    items = [expected] if isinstance(expected, (str, Mapping)) else expected
    try:
        items = list(items)
    except TypeError:
        raise ValueError(
            f"tool_trajectory: expected must be a list of tool names or {{name, arguments}} items, got {type(expected).__name__}"
        ) from None
    out: list[tuple[str, Any]] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            if not item:
                raise ValueError(f"tool_trajectory: expected[{i}] is an empty tool name")
            out.append((item, _ANY))
            continue
        if isinstance(item, Mapping):
            body = item["function"] if isinstance(item.get("function"), Mapping) else item
            name = body.get("name")
            if isinstance(name, str) and name:
                args = body.get("arguments")
                out.append((name, _ANY if args is None else _parse_args(args)))
                continue
        raise ValueError(
            f"tool_trajectory: expected[{i}] must be a tool name or an object with a non-empty 'name', got {item!r}"
        )
    return out


def _time_key(value: Any) -> float | None:
    """A start time as seconds: a number, a numeric string or an ISO 8601 string; None if unreadable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        return moment.timestamp()
    return None


def actual_calls(ctx: Context) -> tuple[list[dict[str, Any]], str]:
    """The flat, ordered tool calls as {"name", "arguments"}, and where they came from ("trace" or "output")."""
    spans = [s for s in ctx.trace.spans if str(s.kind).lower() == "tool"]
    if spans:
        keys = [_time_key(s.start_time) for s in spans]
        if all(k is not None for k in keys):
            # Stable sort on the parsed time: the context's order is kept for equal times.
            spans = [s for _, _, s in sorted(zip(keys, range(len(spans)), spans), key=lambda t: (t[0], t[1]))]
        calls = []
        for span in spans:
            attr_name = span.attributes.get("gen_ai.tool.name") if isinstance(span.attributes, Mapping) else None
            name = attr_name if isinstance(attr_name, str) and attr_name else span.name
            args = _parse_args(span.input)
            calls.append({"name": name, "arguments": {} if args is None else args})
        return calls, "trace"
    return [{"name": c.get("name"), "arguments": c.get("arguments")} for c in ctx.tool_calls], "output"


def _matches(call: Mapping[str, Any], item: tuple[str, Any]) -> bool:
    name, args = item
    if call.get("name") != name:
        return False
    return args is _ANY or json_equal(call.get("arguments"), args)


def _max_matching(left: list[Any], right: list[Any], ok) -> dict[int, int]:
    """Maximum bipartite matching (Kuhn's augmenting paths) between left and right.

    Returns {left index: right index}. Each left vertex is tried in order and prefers the earliest
    free right vertex, so with no conflict the pairing is the greedy, in-order one. Iterative, so
    long trajectories do not hit the recursion limit.
    """
    adj = [[j for j, r in enumerate(right) if ok(l, r)] for l in left]
    owner: dict[int, int] = {}  # right index -> left index
    for root in range(len(left)):
        seen: set[int] = set()
        parent: dict[int, tuple[int, int | None]] = {}  # right j -> (left i that reached it, right j that led to i)
        # DFS over left vertices; the stack holds (left i, right j through which i was reached, next edge).
        stack: list[list[Any]] = [[root, None, 0]]
        found: int | None = None
        while stack and found is None:
            frame = stack[-1]
            i, via, k = frame
            if k >= len(adj[i]):
                stack.pop()
                continue
            frame[2] = k + 1
            j = adj[i][k]
            if j in seen:
                continue
            seen.add(j)
            parent[j] = (i, via)
            if j not in owner:
                found = j
            else:
                stack.append([owner[j], j, 0])
        # Flip the augmenting path: walk back from the free right vertex to the root.
        j = found
        while j is not None:
            i, via = parent[j]
            owner[j] = i
            j = via
    return {i: j for j, i in owner.items()}


def _show_item(item: tuple[str, Any] | None) -> str:
    if item is None:
        return "(none)"
    name, args = item
    return name if args is _ANY else f"{name}({json.dumps(args, ensure_ascii=False, sort_keys=True)})"


def _show_call(call: Mapping[str, Any] | None) -> str:
    if call is None:
        return "(none)"
    args = call.get("arguments")
    try:
        shown = json.dumps(args, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        shown = repr(args)
    return f"{call.get('name')}({shown})"


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


def tool_trajectory(ctx: Context, expected: Iterable[Any], mode: str = "strict") -> Scores:
    """Score whether the agent's tool calls match the expected trajectory.

    Args:
        ctx: the evaluation context (trace tool spans, else the output's tool calls).
        expected: tool names or {"name", "arguments"} items, in order.
        mode: "strict", "unordered", "subset" or "superset".
    Returns:
        Scores: ``trajectory_match`` (BOOLEAN).
    """
    if mode is None:
        mode = "strict"
    if mode not in _MODES:
        raise ValueError(f"tool_trajectory: mode must be one of {', '.join(_MODES)}, got {mode!r}")
    items = _expected_items(expected)
    calls, source = actual_calls(ctx)

    diff: dict[str, Any] | None = None  # position (1-based), expected, actual
    if mode == "strict":
        for i in range(max(len(items), len(calls))):
            item = items[i] if i < len(items) else None
            call = calls[i] if i < len(calls) else None
            if item is None or call is None or not _matches(call, item):
                diff = {"position": i + 1, "expected": _show_item(item), "actual": _show_call(call)}
                break
    else:
        # pairs: expected index -> call index
        pairs = _max_matching(items, calls, lambda item, call: _matches(call, item))
        used_calls = set(pairs.values())
        unmatched_items = [i for i in range(len(items)) if i not in pairs]
        unmatched_calls = [j for j in range(len(calls)) if j not in used_calls]
        check_items = mode in ("unordered", "superset")
        check_calls = mode in ("unordered", "subset")
        first_item = unmatched_items[0] if check_items and unmatched_items else None
        first_call = unmatched_calls[0] if check_calls and unmatched_calls else None
        if first_item is not None and (first_call is None or first_item <= first_call):
            diff = {
                "position": first_item + 1,
                "expected": _show_item(items[first_item]),
                "actual": "(no matching call)",
                "problem": f"expected item {first_item + 1} was not called",
            }
        elif first_call is not None:
            diff = {
                "position": first_call + 1,
                "expected": "(no matching expected item)",
                "actual": _show_call(calls[first_call]),
                "problem": f"call {first_call + 1} is not an expected one",
            }

    passed = diff is None
    names = [c.get("name") for c in calls]
    where = "trace tool spans" if source == "trace" else "tool calls in the output"
    if passed:
        comment = f"{mode} match: {len(calls)} call(s) from the {where} against {len(items)} expected"
    else:
        comment = (
            f"no {mode} match: first difference at position {diff['position']}: "
            f"expected {diff['expected']}, actual {diff['actual']}"
        )
        if "problem" in diff:
            comment += f" ({diff['problem']})"
    return Scores(
        [
            Score(
                name="trajectory_match",
                value=passed,
                data_type="BOOLEAN",
                higher_is_better=True,
                comment=comment,
                metadata={
                    "mode": mode,
                    "source": source,
                    "actual": [_jsonable(n) for n in names],
                    "expected": [name for name, _ in items],
                    "first_difference": diff,
                },
            )
        ]
    )
