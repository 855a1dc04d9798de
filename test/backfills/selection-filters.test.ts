// Issue 27: a backfill selects spans by run outcome ("re-run what failed") and by score, and by the
// rule conditions of issue 27 (resource attributes, list attributes, root spans only), through the
// real API, queue, worker and sandbox; a filter that would select nothing runnable is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveHarness } from "../runs/helpers.js";

/** Fails (ValueError) on a question whose number is a multiple of 3; else scores ratio = (n % 10) / 10. */
const SOURCE = `def evaluate(ctx):
    n = int(ctx.input_messages[-1]["content"].split()[-1])
    if n % 3 == 0:
        raise ValueError("multiple of three")
    return EvaluationResult(scores=[Score(name="ratio", value=(n % 10) / 10)])
`;
const N = 30;
const START = new Date("2026-11-20T00:00:00Z");
const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");
const range = (f: (n: number) => boolean) => Array.from({ length: N }, (_, n) => n).filter(f);

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "bf-filters", queues: ["backfill-batch"] });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const ESTIMATE = `query($input: BackfillInput!) { estimateBackfill(input: $input) { spans runs reruns } }`;
const CREATE = `mutation($input: CreateBackfillInput!) { createBackfill(input: $input) { backfill { id status spanCount filter } } }`;
const GET = `query($id: ID!) { backfill(id: $id) { status runsByOutcome { outcome count } } }`;

async function finished(gql: (q: string, v: Record<string, unknown>) => Promise<any>, id: string): Promise<any> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const r = await gql(GET, { id });
    if (!["queued", "running"].includes(r.data!.backfill.status)) return r.data!.backfill;
    if (Date.now() > deadline) throw new Error("backfill did not finish");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("backfill span selection by outcome, score and rule conditions", () => {
  it("re-runs what failed, selects by score, by resource, tags and root spans, and refuses a filter that needs rerun", { timeout: 300_000 }, async () => {
    const ws = await h.workspace("bf-filters");
    const template = await h.app.services.templates.createTemplate(ws.principal, { name: "Ratio", sourceCode: SOURCE });
    const evaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Ratio", templateId: template.template.id, enabled: false });
    const spans = Array.from({ length: N }, (_, n) => ({
      traceId: `t${n}`,
      spanId: n >= 25 ? "child" : "root",
      ...(n >= 25 ? { parentSpanId: "root" } : {}),
      name: "chat.completion",
      startTime: new Date(START.getTime() + n * 1000).toISOString(),
      input: [{ role: "user", content: `question ${n}` }],
      output: "an answer",
      attributes: { "tag.tags": n < 5 ? ["vip", "new"] : ["new"] },
      resourceAttributes: { "deployment.environment": n % 2 === 0 ? "production" : "staging" },
    }));
    expect((await h.app.services.spans.ingestSpans(ws.principal, spans)).rejected).toEqual([]);
    const base = { evaluatorId: gid("Evaluator", evaluator.id), windowStart: START.toISOString(), windowEnd: new Date(START.getTime() + 3600_000).toISOString() };

    // A first backfill over every span: 10 fail (multiples of 3), 20 score.
    const first = await ws.gql(CREATE, { input: base });
    expect(first.errors).toBeUndefined();
    const done = await finished(ws.gql, first.data!.createBackfill.backfill.id);
    expect(done.runsByOutcome).toEqual([
      { outcome: "ok", count: 20 },
      { outcome: "user_error", count: 10 },
    ]);

    const estimate = async (filter: Record<string, unknown>, rerun = true) => ws.gql(ESTIMATE, { input: { ...base, rerun, filter } });
    // Re-run what failed: exactly the spans whose run ended user_error.
    expect((await estimate({ outcomes: ["user_error"] })).data!.estimateBackfill).toEqual({ spans: 10, runs: 10, reruns: 10 });
    expect((await estimate({ outcomes: ["user_error", "ok"] })).data!.estimateBackfill.spans).toBe(30);
    expect((await estimate({ outcomes: ["timeout"] })).data!.estimateBackfill.spans).toBe(0);
    // By score: ratio ≤ 0.2 (on the 20 that scored), and ratio equal to 0.5.
    const low = range((n) => n % 3 !== 0 && (n % 10) / 10 <= 0.2);
    expect((await estimate({ scoreName: "ratio", scoreMax: 0.2 })).data!.estimateBackfill.spans).toBe(low.length);
    expect((await estimate({ scoreName: "ratio", scoreMin: 0.5, scoreMax: 0.5 })).data!.estimateBackfill.spans).toBe(range((n) => n % 3 !== 0 && n % 10 === 5).length);
    expect((await estimate({ scoreName: "ratio", scoreValue: 0.5 })).data!.estimateBackfill.spans).toBe(range((n) => n % 3 !== 0 && n % 10 === 5).length);
    // Rule conditions as filter parts: production, tagged vip, root spans only: 0, 2, 4.
    const prodVipRoots = await estimate({ resourceAttributeEquals: { "deployment.environment": "production" }, attributeContains: { "tag.tags": "vip" }, rootSpansOnly: true }, false);
    expect(prodVipRoots.data!.estimateBackfill).toEqual({ spans: 3, runs: 0, reruns: 0 });
    expect((await estimate({ rootSpansOnly: true }, false)).data!.estimateBackfill.spans).toBe(25);

    // Without rerun, a filter on the evaluator's own runs would skip every span: refused, naming the field.
    const noRerun = await estimate({ outcomes: ["user_error"] }, false);
    expect(noRerun.errors![0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "filter.outcomes", message: "selects spans the evaluator already ran on: set rerun: true to run them again" }] });
    const scoreNoName = await estimate({ scoreMax: 0.2 });
    expect(scoreNoName.errors![0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "filter.scoreMax", message: "needs scoreName: the score it applies to" }] });

    // Re-run what failed, for real: 10 runs replaced, still user_error (the code did not change), kept in history.
    const rerun = await ws.gql(CREATE, { input: { ...base, rerun: true, filter: { outcomes: ["user_error"] } } });
    expect(rerun.errors).toBeUndefined();
    expect(rerun.data!.createBackfill.backfill).toMatchObject({ spanCount: 10, filter: { outcomes: ["user_error"] } });
    const again = await finished(ws.gql, rerun.data!.createBackfill.backfill.id);
    expect(again.runsByOutcome).toEqual([{ outcome: "user_error", count: 10 }]);
    expect(await h.app.prisma.runHistory.count({ where: { workspaceId: ws.workspace.id } })).toBe(10);
  });
});
