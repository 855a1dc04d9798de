"""The evaluation context ``ctx``, built from the sample document (docs/document.md § ctx).

The sample document is a JSON object; every key is optional:
``input``, ``output``, ``attributes``, ``expected_output``, ``trace`` ({"spans": [...]}; a trace
or session document adds ``trace_id``, ``span_count``, ``capped``, ``completion``), ``session``
(a session document's: {"id", "traces", "trace_count", "turn_count", "capped", "completion"}),
``scores`` ({evaluator: {score: value}}), ``metadata``; plus ``params`` (resolved settings) and
``dependencies`` (names of evaluators whose scores are readable; None = all given ones).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping


def part_text(content: Any) -> str:
    """Text of a message content: a string as is; a list of parts joined (text parts and bare strings)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, Mapping):
                text = part.get("text", part.get("content"))
                if isinstance(text, str):
                    pieces.append(text)
        return "".join(pieces)
    if isinstance(content, Mapping) and isinstance(content.get("text"), str):
        return content["text"]
    return json.dumps(content, ensure_ascii=False)


def _messages(value: Any, default_role: str) -> list[dict[str, Any]]:
    """Normalise input/output into a list of message dicts (role, content, optional tool_calls)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [{"role": default_role, "content": value}]
    if isinstance(value, Mapping):
        if "role" in value or "content" in value or "parts" in value or "tool_calls" in value:
            return [dict(value)]
        if isinstance(value.get("messages"), list):
            return _messages(value["messages"], default_role)
        return [{"role": default_role, "content": json.dumps(value, ensure_ascii=False)}]
    if isinstance(value, list):
        out: list[dict[str, Any]] = []
        for item in value:
            out.extend(_messages(item, default_role))
        return out
    return [{"role": default_role, "content": json.dumps(value, ensure_ascii=False)}]


def _normalise_turn(message: Mapping[str, Any], default_role: str) -> dict[str, Any]:
    """A message as {"role", "content"} with content as text; OTel GenAI ``parts`` become text too."""
    content = message.get("content")
    if content is None and isinstance(message.get("parts"), list):
        content = message["parts"]
    return {"role": str(message.get("role") or default_role), "content": part_text(content)}


def _parse_arguments(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return {} if arguments is None else arguments


def normalise_tool_call(call: Any) -> dict[str, Any] | None:
    """One tool call as {"name", "arguments"} from the plain, OpenAI or OTel GenAI form; None if not a call."""
    if not isinstance(call, Mapping):
        return None
    if isinstance(call.get("function"), Mapping):
        fn = call["function"]
        return {"name": fn.get("name"), "arguments": _parse_arguments(fn.get("arguments"))}
    if "name" in call:
        return {"name": call.get("name"), "arguments": _parse_arguments(call.get("arguments"))}
    return None


def tool_calls_of(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool calls in messages: OpenAI ``tool_calls`` and OTel GenAI ``{"type": "tool_call"}`` parts, in order."""
    calls: list[dict[str, Any]] = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            normal = normalise_tool_call(call)
            if normal:
                calls.append(normal)
        for key in ("content", "parts"):
            parts = message.get(key)
            if isinstance(parts, list):
                for part in parts:
                    if isinstance(part, Mapping) and part.get("type") == "tool_call":
                        normal = normalise_tool_call(part)
                        if normal:
                            calls.append(normal)
    return calls


def time_key(value: Any) -> float:
    """Sort key of a span time: epoch numbers as they are, ISO 8601 strings parsed (naive = UTC);
    missing or unparseable times sort last."""
    if isinstance(value, bool) or value is None:
        return float("inf")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return float("inf")
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        return parsed.timestamp()
    return float("inf")


def _span_field(key: str, doc: str) -> property:
    """A TraceSpan field read and written as its dict key."""
    return property(lambda self: self.get(key), lambda self, value: self.__setitem__(key, value), doc=doc)


class TraceSpan(dict):
    """One span of ``ctx.trace.spans``: the document's span as the dict it is there
    (``s["kind"]``, ``s.get("kind")``, ``"kind" in s``, ``dict(s)``, ``json.dumps(s)``), with its
    seven fields also read and written as attributes (``s.kind``).

    It always holds the seven keys: ``name`` (a str, "" when absent), ``kind`` (a str, "other"
    when absent), ``input``, ``output``, ``attributes`` (a dict, {} when absent), ``start_time``
    and ``end_time`` (None when absent). Any other key of the document's span is kept as it is: a
    trace or session document's spans carry ``span_id``, ``parent_span_id`` (None for a root) and,
    when the evaluator depends on span evaluators, ``scores`` ({evaluator: {score: value}} of that
    span); a dataset item's own trace may carry some too. Those three are also read as attributes
    (``s.span_id``; None when the key is absent), without becoming keys.
    """

    __slots__ = ()

    def __init__(self, *args: Any, **fields: Any) -> None:
        given = dict(*args, **fields)
        attributes = given.get("attributes")
        super().__init__(
            name=str(given.get("name") or ""),
            kind=str(given.get("kind") or "other"),
            input=given.get("input"),
            output=given.get("output"),
            attributes=dict(attributes) if isinstance(attributes, Mapping) else {},
            start_time=given.get("start_time"),
            end_time=given.get("end_time"),
        )
        for key, value in given.items():
            self.setdefault(key, value)

    name = _span_field("name", "The span's name.")
    kind = _span_field("kind", "chat, tool, agent, retrieval or other.")
    input = _span_field("input", "The span's input (its conversation resolved).")
    output = _span_field("output", "The span's output (its conversation resolved).")
    attributes = _span_field("attributes", "Its attributes, by flat key.")
    start_time = _span_field("start_time", "An ISO 8601 string, a number or None.")
    end_time = _span_field("end_time", "An ISO 8601 string, a number or None.")
    span_id = _span_field("span_id", "The span's id (trace and session documents); None when absent.")
    parent_span_id = _span_field("parent_span_id", "Its parent's span id; None for a root or when absent.")
    scores = _span_field("scores", "Its dependencies' scores, {evaluator: {score: value}}; None when absent.")


COMPLETIONS = ("end_marker", "quiet_period", "max_wait")
"""Why a trace or session evaluator ran: its end marker, the quiet period, or the maximum wait."""


@dataclass
class Trace:
    """A trace: its spans ordered by start time (``ctx.trace``; each of ``ctx.session.traces``).

    Attributes:
        spans: the spans (TraceSpan), ordered by start time, a span without a time last.
        trace_id: the trace's id (trace and session documents); None in a span's document and in
            a span evaluator's item document.
        span_count: spans the trace has in all, before caps; None when the document does not say.
        capped: True when caps left spans of the trace out of ``spans``.
        completion: why a trace evaluator ran (one of COMPLETIONS); None when absent.
    """

    spans: list[TraceSpan] = field(default_factory=list)
    trace_id: str | None = None
    span_count: int | None = None
    capped: bool = False
    completion: str | None = None


@dataclass
class Session:
    """``ctx.session``: the session a session evaluator runs on (None for every other document).

    Attributes:
        id: the session key's value.
        traces: its traces (Trace), ordered by their earliest span's start; caps may leave a
            trace's ``spans`` short or empty.
        trace_count: traces of the session in all.
        turn_count: turns of the whole conversation, before caps (``ctx.turns`` holds the kept ones).
        capped: True when caps dropped turns or spans.
        completion: why the session evaluator ran (one of COMPLETIONS); None when absent.
    """

    id: str
    traces: list[Trace] = field(default_factory=list)
    trace_count: int = 0
    turn_count: int = 0
    capped: bool = False
    completion: str | None = None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def make_trace(raw: Any) -> Trace:
    """A Trace from a document's ``trace`` (or a session's trace entry): spans sorted by start time,
    the other keys when present with the right type (else None, or False for ``capped``)."""
    if not isinstance(raw, Mapping):
        return Trace()
    spans = [TraceSpan(span) for span in raw.get("spans") or [] if isinstance(span, Mapping)]
    spans.sort(key=lambda s: time_key(s.start_time))
    return Trace(
        spans=spans,
        trace_id=_str_or_none(raw.get("trace_id")),
        span_count=_int_or_none(raw.get("span_count")),
        capped=raw.get("capped") is True,
        completion=_str_or_none(raw.get("completion")),
    )


def make_session(raw: Any, turns: int) -> Session | None:
    """A Session from a document's ``session`` (None when it has none). ``trace_count`` defaults to
    the traces given and ``turn_count`` to ``turns`` (the document's turns) when absent."""
    if not isinstance(raw, Mapping):
        return None
    traces = [make_trace(t) for t in raw.get("traces") or [] if isinstance(t, Mapping)]
    trace_count = _int_or_none(raw.get("trace_count"))
    turn_count = _int_or_none(raw.get("turn_count"))
    return Session(
        id=str(raw.get("id") or ""),
        traces=traces,
        trace_count=len(traces) if trace_count is None else trace_count,
        turn_count=turns if turn_count is None else turn_count,
        capped=raw.get("capped") is True,
        completion=_str_or_none(raw.get("completion")),
    )


@dataclass
class Observation:
    """``ctx.observation``: input, output and metadata under oodle.ai's public names."""

    input: Any = None
    output: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)


class DependencyNotDeclared(LookupError):
    """Raised by ctx.score for an evaluator that this evaluator does not depend on."""


_MISSING = object()


EXPECTED_OUTPUT_ATTRIBUTE = "oodle.expected_output"
"""The span attribute that carries a span's expected response (src/modules/spans/document.ts names it too)."""


class Context:
    """What an evaluator sees (``ctx``).

    Attributes:
        input / output: the span's raw input and output (any JSON).
        input_messages / output_messages: both as message dicts.
        turns: input then output messages as {"role", "content"} text dicts, oldest first.
        tool_calls: the tool calls in the output messages as {"name", "arguments"}.
        attributes: flat span attributes.
        metadata: the span's or dataset item's metadata.
        expected_output: the document's ``expected_output`` (a dataset item's), else the span
            attribute ``oodle.expected_output`` (a live span's expected response), else None.
        trace: Trace with spans (TraceSpan: dicts with attribute access) ordered by start time;
            a trace or session document also gives trace_id, span_count, capped and completion
            (a session document: of its last trace).
        session: Session (id, traces, trace_count, turn_count, capped, completion) of a session
            document; None for a span's, item's or trace's document. Its conversation is
            ``turns``: every turn across its traces, oldest first.
        params: every declared setting (value -> default -> None).
        observation: input/output/metadata view.
    """

    def __init__(self, document: Mapping[str, Any] | None = None, *, params: Mapping[str, Any] | None = None) -> None:
        doc = dict(document or {})
        self.document = doc
        self.input = doc.get("input")
        self.output = doc.get("output")
        self.input_messages = _messages(self.input, "user")
        self.output_messages = _messages(self.output, "assistant")
        self.turns = [_normalise_turn(m, "user") for m in self.input_messages] + [
            _normalise_turn(m, "assistant") for m in self.output_messages
        ]
        self.tool_calls = tool_calls_of(self.output_messages)
        attributes = doc.get("attributes")
        self.attributes: dict[str, Any] = dict(attributes) if isinstance(attributes, Mapping) else {}
        metadata = doc.get("metadata")
        self.metadata: dict[str, Any] = dict(metadata) if isinstance(metadata, Mapping) else {}
        expected = doc.get("expected_output")
        self.expected_output = expected if expected is not None else self.attributes.get(EXPECTED_OUTPUT_ATTRIBUTE)
        self.trace = make_trace(doc.get("trace"))
        self.session = make_session(doc.get("session"), len(self.turns))
        resolved = params if params is not None else doc.get("params")
        self.params: dict[str, Any] = dict(resolved or {})
        scores = doc.get("scores")
        self._scores: dict[str, Any] = dict(scores) if isinstance(scores, Mapping) else {}
        deps = doc.get("dependencies")
        self._dependencies: set[str] | None = set(deps) if isinstance(deps, list) else None
        self.observation = Observation(input=self.input, output=self.output, metadata=self.metadata)

    def score(self, evaluator_name: str, score_name: str | None = None, default: Any = None) -> Any:
        """The value of a score written on the same span or item by an evaluator this one depends on.

        Args:
            evaluator_name: the other evaluator's name.
            score_name: the score's name; None means that evaluator's first score.
            default: returned when the score is missing.
        Raises:
            DependencyNotDeclared: evaluator_name is not a declared dependency.
        """
        if self._dependencies is not None and evaluator_name not in self._dependencies:
            raise DependencyNotDeclared(
                f"ctx.score({evaluator_name!r}): declare {evaluator_name!r} as a dependency of this evaluator to read its scores"
            )
        scores = self._scores.get(evaluator_name)
        if not isinstance(scores, Mapping) or not scores:
            return default
        if score_name is None:
            first = next(iter(scores.values()))
            return default if first is None else first
        value = scores.get(score_name, _MISSING)
        return default if value is _MISSING or value is None else value


def make_context(document: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None) -> Context:
    """Build a Context from a sample document (see the module docstring)."""
    return Context(document, params=params)
