// A trace and a session document (test/fixtures/group-documents.json, as documents.ts builds them)
// run through the real sandbox: ctx.trace's new fields, ctx.session, every turn, and Opik's
// ConversationThreadMetric on the whole conversation, in both modes.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Executor } from "../../src/execution/index.js";
import { keyFor, testExecutor } from "../sandbox/helpers.js";

const FIXTURE = JSON.parse(readFileSync(new URL("../fixtures/group-documents.json", import.meta.url), "utf8")) as { trace: Record<string, unknown>; session: Record<string, unknown> };

const READER = `
from oodle_eval.v1 import text

def evaluate(ctx):
    t, s = ctx.trace, ctx.session
    return EvaluationResult(scores=[
        Score(name="trace", value=f"{t.trace_id} {t.span_count} {t.capped} {t.completion}"),
        Score(name="spans", value=",".join(f"{sp.span_id}<{sp.get('parent_span_id')}" for sp in t.spans)),
        Score(name="session", value="none" if s is None else f"{s.id} {s.trace_count} {s.turn_count} {s.capped} {s.completion} " + ",".join(tr.trace_id for tr in s.traces)),
        Score(name="turns", value=",".join(x["role"][0] for x in text.turns(ctx))),
    ])
`;

const THREAD = `
from opik.evaluation.metrics.conversation import conversation_thread_metric
from opik.evaluation.metrics import score_result

class Whole(conversation_thread_metric.ConversationThreadMetric):
    def score(self, conversation, **kwargs):
        return score_result.ScoreResult(name="turns", value=len(conversation), reason=conversation[-1]["content"])
`;

let executor: Executor;
beforeAll(() => {
  executor = testExecutor();
});
afterAll(() => executor.close());

describe("group documents in the sandbox", () => {
  it.each(["warm", "strict"] as const)("ctx reads a trace and a session document (%s)", async (mode) => {
    const results = await executor.execute(keyFor(READER, { mode }), [
      { workspaceId: "ws-test", document: FIXTURE.trace },
      { workspaceId: "ws-test", document: FIXTURE.session },
    ]);
    const byName = results.map((r) => {
      expect(r.outcome, JSON.stringify(r.error)).toBe("ok");
      return Object.fromEntries(r.scores.map((s) => [s.name, s.value]));
    });
    expect(byName).toStrictEqual([
      { trace: "t-agent 4 False quiet_period", spans: "s-root<None,s-chat<s-root,s-weather<s-root,s-format<s-root", session: "none", turns: "u,a" },
      { trace: "t-3 2 False None", spans: "r-3<None,l-3<r-3", session: "sess-9 3 6 False end_marker t-1,t-2,t-3", turns: "u,a,u,a,u,a" },
    ]);
  });

  it("runs an Opik ConversationThreadMetric on the whole conversation", async () => {
    const [result] = await executor.execute(keyFor(THREAD, { mode: "warm" }), [{ workspaceId: "ws-test", document: FIXTURE.session }]);
    expect(result!.outcome, JSON.stringify(result!.error)).toBe("ok");
    expect(result!.scores.map((s) => [s.name, s.value, s.comment])).toStrictEqual([["turns", 6, "5 to 7 business days."]]);
  });
});
