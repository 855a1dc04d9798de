"""The sample document of ``python -m oodle_eval run --span FILE``, built as the service builds it.

The file holds either the sample document (what a span's ``document`` field in the API gives;
docs/document.md § The sample document) or a line of an ``items.jsonl`` file
(docs/document.md § From a dataset item). A JSON object with any of the keys ``id``, ``context``, ``tool_calls``,
``expected_tool_calls`` is such a line and is mapped as dataset import and ``tryCode`` map it
(src/modules/datasets/item-record.ts, then src/modules/experiments/document.ts ``itemToDocument``):

- ``input``, ``output``, ``expected_output``: the line's (None when absent);
- ``attributes``: ``{"context": <context>}`` when the line has a context, else ``{}``;
- ``metadata``: the line's, plus ``expected_tool_calls`` under that name when the line has them and
  its metadata does not;
- ``trace.spans``: the line's own trace, else one ``tool`` span per tool call, in call order.

An unknown key is refused, naming it, as the service refuses it. Besides the document's keys the
local runner also reads ``params`` and ``dependencies`` (the runner's input beside the document).
"""

from __future__ import annotations

from typing import Any, Mapping

SAMPLE_KEYS = ("input", "output", "attributes", "expected_output", "trace", "session", "scores", "metadata")
"""The keys of the sample document (src/modules/try-code/schemas.ts ``sampleDocumentSchema``; ``session``:
a session document's, src/modules/groups/documents.ts)."""

COMPLETIONS = ("end_marker", "quiet_period", "max_wait")
"""The values of ``trace.completion`` and ``session.completion`` (oodle_eval.v1.context COMPLETIONS)."""

ITEM_LINE_KEYS = ("id", "input", "output", "expected_output", "context", "tool_calls", "expected_tool_calls", "metadata", "trace")
"""The keys of an items.jsonl line (src/modules/datasets/schemas.ts ``itemLineSchema``)."""

ITEM_ONLY_KEYS = ("id", "context", "tool_calls", "expected_tool_calls")
"""Keys only an items.jsonl line has: a document with any of them is mapped as dataset import maps it."""

RUNNER_KEYS = ("params", "dependencies")
"""Keys the local runner reads beside the document (the runner's input, not the document)."""


def _is_object(value: Any) -> bool:
    return isinstance(value, Mapping)


def _unknown(raw: Mapping[str, Any], allowed: tuple[str, ...], what: str) -> list[str]:
    unknown = [key for key in raw if key not in allowed and key not in RUNNER_KEYS]
    if not unknown:
        return []
    return [f"document: unknown key(s) {', '.join(unknown)} ({what} takes {', '.join(allowed)})"]


def _check_scores(raw: Mapping[str, Any], issues: list[str]) -> None:
    scores = raw.get("scores")
    if scores is None:
        return
    if not _is_object(scores):
        issues.append("document.scores: must be an object of evaluator name to scores")
        return
    for name, of in scores.items():
        if not _is_object(of):
            issues.append(f"document.scores.{name}: must be an object of score name to value")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_group_keys(raw: Mapping[str, Any], at: str, issues: list[str], counts: tuple[str, ...]) -> None:
    """The keys a trace or session document adds to ``trace`` or ``session``, each when present."""
    for key in counts:
        if key in raw and not _is_count(raw[key]):
            issues.append(f"{at}.{key}: must be a whole number, 0 or more")
    if "capped" in raw and not isinstance(raw["capped"], bool):
        issues.append(f"{at}.capped: must be true or false")
    if raw.get("completion") is not None and raw["completion"] not in COMPLETIONS:
        issues.append(f"{at}.completion: must be one of {', '.join(COMPLETIONS)}")


def _check_span_ids(span: Mapping[str, Any], at: str, issues: list[str]) -> None:
    """The keys a trace or session document adds to each span, each when present."""
    if "span_id" in span and not isinstance(span["span_id"], str):
        issues.append(f"{at}.span_id: must be a string")
    if span.get("parent_span_id") is not None and not isinstance(span["parent_span_id"], str):
        issues.append(f"{at}.parent_span_id: must be a string or null")
    scores = span.get("scores")
    if scores is not None:
        if not _is_object(scores):
            issues.append(f"{at}.scores: must be an object of evaluator name to scores")
        else:
            for name, of in scores.items():
                if not _is_object(of):
                    issues.append(f"{at}.scores.{name}: must be an object of score name to value")


def _check_trace(trace: Any, at: str, issues: list[str]) -> None:
    """A sample document's ``trace`` or a session's trace entry: ``spans``, and the keys a trace or
    session document adds (``trace_id``, ``span_count``, ``capped``, ``completion``) when present."""
    if not _is_object(trace) or "spans" not in trace:
        issues.append(f'{at}: must be {{"spans": [...]}}')
        return
    _check_trace_spans(trace["spans"], f"{at}.spans", issues, item=False)
    if "trace_id" in trace and not isinstance(trace["trace_id"], str):
        issues.append(f"{at}.trace_id: must be a string")
    _check_group_keys(trace, at, issues, ("span_count",))


def _check_session(session: Any, issues: list[str]) -> None:
    """A session document's ``session``: ``id`` (a string) and ``traces`` (a list of traces) required."""
    at = "document.session"
    if not _is_object(session):
        issues.append(f'{at}: must be an object {{"id", "traces", ...}}')
        return
    if not isinstance(session.get("id"), str):
        issues.append(f"{at}.id: must be a string")
    traces = session.get("traces")
    if not isinstance(traces, list):
        issues.append(f"{at}.traces: must be a list of traces")
    else:
        for i, trace in enumerate(traces):
            _check_trace(trace, f"{at}.traces[{i}]", issues)
    _check_group_keys(session, at, issues, ("trace_count", "turn_count"))


def _check_trace_spans(spans: Any, at: str, issues: list[str], *, item: bool) -> None:
    if not isinstance(spans, list):
        issues.append(f"{at}: must be a list of spans")
        return
    for i, span in enumerate(spans):
        if not _is_object(span):
            issues.append(f"{at}[{i}]: each span must be an object")
        elif not item:
            _check_span_ids(span, f"{at}[{i}]", issues)
        else:  # the rules of an item's trace span (src/modules/datasets/schemas.ts traceSpanSchema)
            if not isinstance(span.get("name"), str):
                issues.append(f"{at}[{i}].name: must be a string")
            if "kind" in span and not isinstance(span["kind"], str):
                issues.append(f"{at}[{i}].kind: must be a string")
            if span.get("attributes") is not None and not _is_object(span["attributes"]):
                issues.append(f"{at}[{i}].attributes: must be an object")
            for key in ("start_time", "end_time"):
                value = span.get(key)
                if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int, float))):
                    issues.append(f"{at}[{i}].{key}: must be a string or a number")


def sample_document_issues(raw: Mapping[str, Any]) -> list[str]:
    """Every problem of a sample document, as ``document.<path>: <rule>`` (empty when it is good)."""
    issues = _unknown(raw, SAMPLE_KEYS, "the sample document")
    attributes = raw.get("attributes")
    if attributes is not None and not _is_object(attributes):
        issues.append("document.attributes: must be an object of attribute key to value")
    trace = raw.get("trace")
    if trace is not None:
        _check_trace(trace, "document.trace", issues)
    session = raw.get("session")
    if session is not None:
        _check_session(session, issues)
    _check_scores(raw, issues)
    metadata = raw.get("metadata")
    if metadata is not None and not _is_object(metadata):
        issues.append("document.metadata: must be an object")
    return issues


def item_line_issues(raw: Mapping[str, Any]) -> list[str]:
    """Every problem of an items.jsonl line (the rules of dataset import), as ``document.<path>: <rule>``."""
    issues = _unknown(raw, (*ITEM_LINE_KEYS, "scores"), "an items.jsonl line")
    item_id = raw.get("id")
    if item_id is not None and (isinstance(item_id, bool) or not isinstance(item_id, (str, int, float))):
        issues.append("document.id: must be a string or a number")
    calls = raw.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            issues.append("document.tool_calls: must be a list of {name, arguments}")
        else:
            for i, call in enumerate(calls):
                if not _is_object(call):
                    issues.append(f"document.tool_calls[{i}]: must be an object {{name, arguments}}")
                elif not isinstance(call.get("name"), str):
                    issues.append(f"document.tool_calls[{i}].name: must be a string")
                elif call["name"] == "":
                    issues.append(f"document.tool_calls[{i}].name: must not be empty")
    expected = raw.get("expected_tool_calls")
    if expected is not None and not isinstance(expected, list):
        issues.append("document.expected_tool_calls: must be a list")
    metadata = raw.get("metadata")
    if metadata is not None and not _is_object(metadata):
        issues.append("document.metadata: must be an object")
    trace = raw.get("trace")
    if trace is not None:
        if isinstance(trace, list):
            _check_trace_spans(trace, "document.trace", issues, item=True)
        elif _is_object(trace) and "spans" in trace:
            _check_trace_spans(trace["spans"], "document.trace.spans", issues, item=True)
        else:
            issues.append("document.trace: must be {spans: [...]} or a list of spans")
    _check_scores(raw, issues)
    return issues


def _trace_spans_of(line: Mapping[str, Any]) -> list[Any]:
    """The line's own trace, else one tool span per tool call (itemToDocument's traceSpansOf)."""
    trace = line.get("trace")
    if isinstance(trace, list):
        return list(trace)
    if _is_object(trace):
        return list(trace["spans"])
    calls = line.get("tool_calls")
    if not isinstance(calls, list):
        return []
    spans = []
    for call in calls:
        name = call.get("name") if isinstance(call.get("name"), str) else ""
        arguments = call.get("arguments")
        spans.append({"name": name, "kind": "tool", "input": {} if arguments is None else arguments, "output": None, "attributes": {"gen_ai.tool.name": name}})
    return spans


def item_line_to_document(line: Mapping[str, Any]) -> dict[str, Any]:
    """The sample document of a (checked) items.jsonl line, as ``itemToDocument`` builds it."""
    metadata = dict(line.get("metadata") or {})
    expected = line.get("expected_tool_calls")
    if expected is not None and "expected_tool_calls" not in metadata:
        metadata["expected_tool_calls"] = expected
    context = line.get("context")
    document: dict[str, Any] = {
        "input": line.get("input"),
        "output": line.get("output"),
        "expected_output": line.get("expected_output"),
        "attributes": {} if context is None else {"context": context},
        "metadata": metadata,
        "trace": {"spans": _trace_spans_of(line)},
    }
    if line.get("scores") is not None:
        document["scores"] = line["scores"]
    for key in RUNNER_KEYS:
        if key in line:
            document[key] = line[key]
    return document


def is_item_line(raw: Mapping[str, Any]) -> bool:
    """True when ``raw`` has a key only an items.jsonl line has (``id``, ``context``, ``tool_calls``, ``expected_tool_calls``)."""
    return any(key in raw for key in ITEM_ONLY_KEYS)


class DocumentError(ValueError):
    """The file is neither a good sample document nor a good items.jsonl line; ``issues`` lists every problem."""

    def __init__(self, issues: list[str]):
        super().__init__("; ".join(issues))
        self.issues = issues


def to_document(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The sample document the service would build from ``raw`` (a sample document or an items.jsonl line).

    Raises:
        DocumentError: an unknown key (named) or a key of the wrong shape, every problem at once.
    """
    if is_item_line(raw):
        issues = item_line_issues(raw)
        if issues:
            raise DocumentError(issues)
        return item_line_to_document(raw)
    issues = sample_document_issues(raw)
    if issues:
        raise DocumentError(issues)
    return dict(raw)
