"""ctx.trace.spans items are the document's spans as dicts (docs/document.md § ctx), with the seven
fields also as attributes, as before."""

from __future__ import annotations

import json

from conftest import run_source
from oodle_eval.v1 import make_context
from oodle_eval.v1.context import TraceSpan

DOCUMENT = {
    "trace": {
        "spans": [
            {"name": "reply", "kind": "chat", "input": "q", "output": "a", "attributes": {"k": 1}, "start_time": "2026-11-30T10:00:02Z", "end_time": None},
            {"name": "search", "kind": "tool", "input": {"q": "refund"}, "start_time": "2026-11-30T10:00:01Z", "span_id": "s-7"},
            {"name": "untimed"},
        ]
    }
}


def test_spans_read_as_dicts_and_as_attributes():
    spans = make_context(DOCUMENT).trace.spans
    assert [s["name"] for s in spans] == ["search", "reply", "untimed"]  # by start time, untimed last
    assert [s.get("kind") for s in spans] == ["tool", "chat", "other"]
    assert [s.kind for s in spans] == ["tool", "chat", "other"]
    search = spans[0]
    assert isinstance(search, dict) and "kind" in search and search.get("missing", "d") == "d"
    assert search == {
        "name": "search", "kind": "tool", "input": {"q": "refund"}, "output": None, "attributes": {},
        "start_time": "2026-11-30T10:00:01Z", "end_time": None, "span_id": "s-7",
    }
    assert search.attributes == {} and search.input == {"q": "refund"} and search.start_time == "2026-11-30T10:00:01Z"
    assert json.loads(json.dumps(spans[1])) == DOCUMENT["trace"]["spans"][0]
    assert list(spans[2]) == ["name", "kind", "input", "output", "attributes", "start_time", "end_time"]


def test_an_attribute_written_is_the_key_written():
    span = TraceSpan(name="n", kind="tool")
    span.kind = "agent"
    span["name"] = "m"
    assert (span["kind"], span.name) == ("agent", "m")


def test_an_evaluator_reads_spans_both_ways():
    source = (
        "def evaluate(ctx):\n"
        "    spans = ctx.trace.spans\n"
        "    return EvaluationResult(scores=[\n"
        "        Score(name='kinds', value=','.join(s.get('kind') for s in spans)),\n"
        "        Score(name='names', value=','.join(s['name'] for s in spans)),\n"
        "        Score(name='attrs', value=','.join(s.name + ':' + s.kind for s in spans)),\n"
        "        Score(name='tools', value=sum(1 for s in spans if s.get('kind') == 'tool')),\n"
        "    ])\n"
    )
    values = {s.name: s.value for s in run_source(source, DOCUMENT)}
    assert values == {"kinds": "tool,chat,other", "names": "search,reply,untimed", "attrs": "search:tool,reply:chat,untimed:other", "tools": 1}
