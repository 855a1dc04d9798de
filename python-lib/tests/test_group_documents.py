"""Trace and session documents (docs/document.md § From a trace, § From a session): ctx.trace's
new fields, ctx.session, the conversation across traces, and their validation. The documents are
the ones src/modules/groups/documents.ts builds (test/fixtures/group-documents.json, checked by
test/groups/documents.test.ts)."""

from __future__ import annotations

import copy
import json

import pytest

from conftest import LIB, run_source, values
from oodle_eval.document import DocumentError, to_document
from oodle_eval.v1 import Session, Trace, make_context, text
from test_cli import cli, write
from test_entrypoint import OPIK_THREAD_EXAMPLE

FIXTURE = json.loads((LIB.parent / "test" / "fixtures" / "group-documents.json").read_text(encoding="utf-8"))
TRACE_DOCUMENT = FIXTURE["trace"]
SESSION_DOCUMENT = FIXTURE["session"]

TURNS = [
    {"role": "user", "content": "I want to return my shoes."},
    {"role": "assistant", "content": "Sure. What is the order number?"},
    {"role": "user", "content": "It is 4411."},
    {"role": "assistant", "content": "Thanks, a return label is on its way."},
    {"role": "user", "content": "How long does the refund take?"},
    {"role": "assistant", "content": "5 to 7 business days."},
]


def test_trace_document_gives_the_new_trace_fields_and_span_keys():
    ctx = make_context(TRACE_DOCUMENT)
    assert (ctx.trace.trace_id, ctx.trace.span_count, ctx.trace.capped, ctx.trace.completion) == ("t-agent", 4, False, "quiet_period")
    assert ctx.session is None
    spans = ctx.trace.spans
    assert [s.name for s in spans] == ["support-agent", "plan", "get_weather", "format"]
    assert [(s["span_id"], s["parent_span_id"]) for s in spans] == [("s-root", None), ("s-chat", "s-root"), ("s-weather", "s-root"), ("s-format", "s-root")]
    assert [s.span_id for s in spans] == ["s-root", "s-chat", "s-weather", "s-format"]
    assert spans[1]["scores"] == {"PII check": {"pii_free": True}} and spans[1].scores == spans[1]["scores"]
    assert spans[2].scores == {}
    # The span keeps its keys in the document's order: the seven, then the three of a group document.
    assert list(spans[0]) == ["name", "kind", "input", "output", "attributes", "start_time", "end_time", "span_id", "parent_span_id", "scores"]
    assert ctx.turns == [{"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "content": "18 C and sunny."}]
    assert ctx.score("Tone", "polite") == 0.9


def test_span_documents_keep_their_trace_as_before():
    ctx = make_context({"input": "q", "output": "a", "trace": {"spans": [{"name": "s", "kind": "chat"}]}})
    assert ctx.trace == Trace(spans=ctx.trace.spans) and (ctx.trace.trace_id, ctx.trace.span_count, ctx.trace.capped, ctx.trace.completion) == (None, None, False, None)
    assert ctx.trace.spans[0].span_id is None and "span_id" not in ctx.trace.spans[0]
    assert ctx.session is None
    assert make_context({}).trace == Trace()


def test_session_document_gives_ctx_session_and_every_turn_in_order():
    ctx = make_context(SESSION_DOCUMENT)
    session = ctx.session
    assert isinstance(session, Session)
    assert (session.id, session.trace_count, session.turn_count, session.capped, session.completion) == ("sess-9", 3, 6, False, "end_marker")
    assert [t.trace_id for t in session.traces] == ["t-1", "t-2", "t-3"]
    assert [[s.span_id for s in t.spans] for t in session.traces] == [["r-1", "l-1"], ["r-2", "l-2"], ["r-3", "l-3"]]
    assert [t.span_count for t in session.traces] == [2, 2, 2]
    assert ctx.turns == TURNS
    assert text.turns(ctx) == TURNS
    assert text.reply(ctx) == "5 to 7 business days."
    assert (ctx.trace.trace_id, [s.span_id for s in ctx.trace.spans], ctx.trace.capped) == ("t-3", ["r-3", "l-3"], False)
    assert ctx.metadata == {"turn": 1} and ctx.attributes == {"session.id": "sess-9"}


def test_session_defaults_for_a_document_written_by_hand():
    ctx = make_context({"input": TURNS[:3], "output": TURNS[3], "session": {"id": "s", "traces": [{"spans": []}]}})
    assert ctx.session == Session(id="s", traces=[Trace()], trace_count=1, turn_count=4, capped=False, completion=None)


def test_an_evaluator_reads_the_session():
    source = (
        "from oodle_eval.v1 import text\n"
        "def evaluate(ctx):\n"
        "    s = ctx.session\n"
        "    return EvaluationResult(scores=[\n"
        "        Score(name='turns', value=len(text.turns(ctx))),\n"
        "        Score(name='traces', value=len(s.traces)),\n"
        "        Score(name='users', value=sum(1 for t in ctx.turns if t['role'] == 'user')),\n"
        "        Score(name='any_pii', value=any(sp.get('scores', {}).get('PII') for t in s.traces for sp in t.spans)),\n"
        "    ])\n"
    )
    assert values(run_source(source, SESSION_DOCUMENT)) == {"turns": 6, "traces": 3, "users": 3, "any_pii": False}


def test_opik_conversation_thread_metric_sees_the_whole_conversation():
    # Opik's own example counts the assistant turns: three, one per trace.
    assert values(run_source(OPIK_THREAD_EXAMPLE, SESSION_DOCUMENT)) == {"conversation_length_score": 3}
    source = (
        "from opik.evaluation.metrics.conversation import conversation_thread_metric\n"
        "from opik.evaluation.metrics import score_result\n"
        "\n"
        "class Whole(conversation_thread_metric.ConversationThreadMetric):\n"
        "    def score(self, conversation, **kwargs):\n"
        "        return [\n"
        "            score_result.ScoreResult(name='turns', value=len(conversation)),\n"
        "            score_result.ScoreResult(name='roles', value=0.0, reason=','.join(m['role'][0] for m in conversation)),\n"
        "            score_result.ScoreResult(name='last', value=0.0, reason=conversation[-1]['content']),\n"
        "        ]\n"
    )
    scores = {s.name: s for s in run_source(source, SESSION_DOCUMENT)}
    assert scores["turns"].value == 6
    assert (scores["roles"].comment, scores["last"].comment) == ("u,a,u,a,u,a", "5 to 7 business days.")


def test_to_document_accepts_trace_and_session_documents():
    assert to_document(SESSION_DOCUMENT) == SESSION_DOCUMENT
    assert to_document(TRACE_DOCUMENT) == TRACE_DOCUMENT


@pytest.mark.parametrize(
    ("change", "issue"),
    [
        (lambda d: d["session"].update(id=9), "document.session.id: must be a string"),
        (lambda d: d["session"].pop("traces"), "document.session.traces: must be a list of traces"),
        (lambda d: d["session"]["traces"][1].pop("spans"), 'document.session.traces[1]: must be {"spans": [...]}'),
        (lambda d: d["session"]["traces"][0].update(trace_id=1), "document.session.traces[0].trace_id: must be a string"),
        (lambda d: d["session"].update(turn_count=-1), "document.session.turn_count: must be a whole number, 0 or more"),
        (lambda d: d["session"].update(trace_count=True), "document.session.trace_count: must be a whole number, 0 or more"),
        (lambda d: d["session"].update(capped="no"), "document.session.capped: must be true or false"),
        (lambda d: d["session"].update(completion="later"), "document.session.completion: must be one of end_marker, quiet_period, max_wait"),
        (lambda d: d.update(session=[]), 'document.session: must be an object {"id", "traces", ...}'),
        (lambda d: d["trace"].update(span_count=1.5), "document.trace.span_count: must be a whole number, 0 or more"),
        (lambda d: d["trace"]["spans"][0].update(span_id=3), "document.trace.spans[0].span_id: must be a string"),
        (lambda d: d["trace"]["spans"][1].update(parent_span_id={}), "document.trace.spans[1].parent_span_id: must be a string or null"),
        (lambda d: d["session"]["traces"][2]["spans"][0].update(scores={"PII": 1}), "document.session.traces[2].spans[0].scores.PII: must be an object of score name to value"),
    ],
)
def test_to_document_names_the_bad_key(change, issue):
    document = copy.deepcopy(SESSION_DOCUMENT)
    change(document)
    with pytest.raises(DocumentError) as raised:
        to_document(document)
    assert raised.value.issues == [issue]


def test_cli_runs_on_a_session_document(tmp_path):
    evaluator = write(tmp_path / "e.py", "from oodle_eval.v1 import text\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='turns', value=len(text.turns(ctx))), Score(name='session', value=ctx.session.id)])\n")
    span = write(tmp_path / "session.json", json.dumps(SESSION_DOCUMENT))
    result = cli("run", str(evaluator), "--span", str(span), "--json")
    assert result.returncode == 0, result.stderr
    assert {s["name"]: s["value"] for s in json.loads(result.stdout)} == {"turns": 6, "session": "sess-9"}
    bad = write(tmp_path / "bad.json", json.dumps({**SESSION_DOCUMENT, "session": {"id": "s"}}))
    refused = cli("run", str(evaluator), "--span", str(bad))
    assert refused.returncode == 2 and "document.session.traces: must be a list of traces" in refused.stderr
