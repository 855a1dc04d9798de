// What a backfill does beyond its own runs, through the real queues, workers,
// sandbox, Postgres and Redis: a rerun makes the live dependents that read the replaced runs run
// again (their earlier runs kept in RunHistory, as live does when an input changes); its runs are
// counted in oodle_runs_total (source="backfill") and exported as gen_ai.evaluation.result events;
// `backfillProgress` streams over SSE; a refused cancel names the backfill; default names are
// unique to the second.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logsReceiver } from "../otlp/helpers.js";
import { liveHarness, waitFor } from "../runs/helpers.js";

/** A reply is "long" past `at` characters. */
const LONG_REPLY = (at: number) => `from oodle_eval.v1 import text

def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="long_reply", value=len(text.reply(ctx)) > ${at})])
`;
/** Reads "Long reply" and says what it read. */
const ECHO = `def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="echo", value=ctx.score("Long reply", "long_reply", default=False) is True)])
`;
/** The reply of span i: 30 to 75 characters, so "long" at 40 and at 60 differ for some. */
const reply = (i: number) => `r${i} ${"x".repeat(27 + i * 5)}`;
const SPANS = 10;
const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");

let h: Awaited<ReturnType<typeof liveHarness>>;
let receiver: Awaited<ReturnType<typeof logsReceiver>>;
beforeAll(async () => {
  receiver = await logsReceiver();
  h = await liveHarness({ label: "bf-live", queues: ["evaluate-target", "evaluation-barrier", "backfill-batch"], env: { SCORE_EXPORT_OTLP_ENDPOINT: `${receiver.url}/v1/logs` } });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

/** Parses the Prometheus text format into `name{labels}` → value. */
async function scrape(): Promise<Map<string, number>> {
  const { body } = await h.app.metrics.scrape();
  const out = new Map<string, number>();
  for (const line of String(body).split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

async function finished(principal: { workspaceId: string; apiKeyId: string }, id: string): Promise<{ status: string; name: string }> {
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const b = await h.app.services.backfills.getBackfill(principal, { id });
    if (b.status !== "queued" && b.status !== "running") return b;
  }
  throw new Error("backfill did not finish");
}

describe("a backfill and the live path", () => {
  it("re-runs live dependents that read a run it replaced (history kept), and its runs are counted and exported", { timeout: 600_000 }, async () => {
    const ws = await h.workspace("bf-live");
    const long = await h.app.services.templates.createTemplate(ws.principal, { name: "Long reply", sourceCode: LONG_REPLY(40) });
    const x = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Long reply", templateId: long.template.id });
    const echo = await h.app.services.templates.createTemplate(ws.principal, { name: "Echo", sourceCode: ECHO });
    const d = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Echo", templateId: echo.template.id, dependencies: [{ evaluator: "Long reply" }] });

    const start = Date.now() - 600_000;
    const spans = Array.from({ length: SPANS }, (_, i) => ({
      traceId: `${"a".repeat(24)}${String(i).padStart(8, "0")}`,
      spanId: `${"b".repeat(8)}${String(i).padStart(8, "0")}`,
      name: "chat.completion",
      kind: "chat",
      startTime: new Date(start + i * 1000).toISOString(),
      input: [{ role: "user", content: `question ${i}` }],
      output: reply(i),
    }));
    const ids = (await h.app.services.spans.ingestSpans(ws.principal, spans)).spans.map((s) => s.id);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: d.id } }), SPANS, 120_000);
    const echoes = async () => new Map((await h.app.prisma.run.findMany({ where: { evaluatorId: d.id }, include: { scores: true } })).map((r) => [r.spanId!, r]));
    const live = await echoes();
    ids.forEach((id, i) => expect(live.get(id)!.scores[0]!.value).toBe(reply(i).length > 40));
    expect([...Array(SPANS).keys()].filter((i) => (reply(i).length > 40) !== (reply(i).length > 60)).length).toBeGreaterThan(2); // the rerun changes some

    const before = await scrape();
    await h.app.services.templates.updateTemplate(ws.principal, long.template.id, { sourceCode: LONG_REPLY(60) });
    const { backfill } = await h.app.services.backfills.createBackfill(ws.principal, { evaluatorId: x.id, windowStart: new Date(start - 60_000).toISOString(), rerun: true, templateVersion: 2 });
    expect((await finished(ws.principal, backfill.id)).status).toBe("completed");
    const xRuns = new Map((await h.app.prisma.run.findMany({ where: { evaluatorId: x.id } })).map((r) => [r.spanId!, r]));
    expect([...xRuns.values()].every((r) => r.backfillId === backfill.id)).toBe(true);

    // The dependent runs again live on every span, reading the backfill's run; its live run is kept as history.
    const current = async () => [...(await echoes()).values()].filter((r) => (r.inputRunIds as Record<string, string>)[x.id] === xRuns.get(r.spanId!)!.id).length;
    await waitFor(current, SPANS, 120_000);
    const rerun = await echoes();
    expect(rerun.size).toBe(SPANS);
    ids.forEach((id, i) => {
      expect(rerun.get(id)!.scores[0]!.value).toBe(reply(i).length > 60);
      expect(rerun.get(id)!.backfillId).toBeNull(); // a live run
    });
    const history = await h.app.prisma.runHistory.findMany({ where: { evaluatorId: d.id } });
    expect(history.map((r) => r.id).sort()).toEqual([...live.values()].map((r) => r.id).sort());
    expect(history.every((r) => r.supersededByBackfillId === null && r.reason === "inputs_changed")).toBe(true);
    expect(await h.app.prisma.runHistory.count({ where: { evaluatorId: x.id, supersededByBackfillId: backfill.id } })).toBe(SPANS);

    // Counted like live runs, by source; the dependents' re-runs are live ones.
    const after = await scrape();
    const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(delta('oodle_runs_total{outcome="ok",evaluator_kind="code",source="backfill"}')).toBe(SPANS);
    expect(delta('oodle_runs_total{outcome="ok",evaluator_kind="code",source="live"}')).toBeGreaterThanOrEqual(SPANS);

    // Exported as evaluation events on the evaluated spans, naming the backfill.
    await h.app.scoreExporter!.flush();
    const mine = () => receiver.records.filter((r) => r.attributes["oodle.backfill.id"] === backfill.id);
    await waitFor(async () => mine().length, SPANS, 60_000);
    expect(mine()).toHaveLength(SPANS);
    for (const [i, id] of ids.entries()) {
      const event = mine().find((r) => r.attributes["oodle.run.id"] === xRuns.get(id)!.id)!;
      expect(event).toMatchObject({ eventName: "gen_ai.evaluation.result", traceId: spans[i]!.traceId, spanId: spans[i]!.spanId });
      expect(event.attributes).toMatchObject({ "gen_ai.evaluation.name": "long_reply", "gen_ai.evaluation.score.value": reply(i).length > 60 ? 1 : 0, "oodle.evaluator.name": "Long reply" });
    }
  });

  it("streams backfillProgress over SSE until it completes", { timeout: 300_000 }, async () => {
    const ws = await h.workspace("bf-sse");
    const long = await h.app.services.templates.createTemplate(ws.principal, { name: "Long reply", sourceCode: LONG_REPLY(40) });
    const start = Date.now() - 600_000;
    const spans = Array.from({ length: 40 }, (_, i) => ({ traceId: `t${i}`, spanId: `s${i}`, name: "chat.completion", kind: "chat", startTime: new Date(start + i * 1000).toISOString(), input: "q", output: reply(i % 10) }));
    await h.app.services.spans.ingestSpans(ws.principal, spans);
    // Created after the spans: nothing ran live.
    const x = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Long reply", templateId: long.template.id });
    const { backfill } = await h.app.services.backfills.createBackfill(ws.principal, { evaluatorId: x.id, windowStart: new Date(start - 60_000).toISOString(), batchSize: 10 });
    const response = await h.client.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { authorization: `Bearer ${ws.secret}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: `subscription ($id: ID!) { backfillProgress(id: $id) { backfill { id } status progress { spansDone spansTotal runsRecorded fraction } } }`, variables: { id: gid("Backfill", backfill.id) } }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text(); // ends with the "complete" event
    expect(text).toContain("event: complete");
    const events = text
      .split("\n\n")
      .filter((block) => block.includes("event: next"))
      .map((block) => JSON.parse(block.split("\n").find((l) => l.startsWith("data: "))!.slice(6)).data.backfillProgress);
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(events.at(-1)).toEqual({ backfill: { id: gid("Backfill", backfill.id) }, status: "completed", progress: { spansDone: 40, spansTotal: 40, runsRecorded: 40, fraction: 1 } });
    const done = events.map((e) => e.progress.spansDone);
    expect([...done].sort((a, b) => a - b)).toEqual(done); // never goes backwards
  });

  it("names a refused cancel's backfill, and default names are unique to the second", { timeout: 120_000 }, async () => {
    const ws = await h.workspace("bf-names");
    const long = await h.app.services.templates.createTemplate(ws.principal, { name: "Long reply", sourceCode: LONG_REPLY(40) });
    const x = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Long reply", templateId: long.template.id });
    // A window with no spans: each backfill completes at once.
    const window = { evaluatorId: x.id, windowStart: "2026-01-01T00:00:00.000Z", windowEnd: "2026-01-02T12:30:45.000Z" };
    const first = (await h.app.services.backfills.createBackfill(ws.principal, window)).backfill;
    const second = (await h.app.services.backfills.createBackfill(ws.principal, window)).backfill;
    const third = (await h.app.services.backfills.createBackfill(ws.principal, window)).backfill;
    expect([first.name, second.name, third.name]).toEqual([
      "Long reply 2026-01-01 00:00:00 – 2026-01-02 12:30:45",
      "Long reply 2026-01-01 00:00:00 – 2026-01-02 12:30:45 (2)",
      "Long reply 2026-01-01 00:00:00 – 2026-01-02 12:30:45 (3)",
    ]);
    expect(first.status).toBe("completed");

    const refused = await ws.gql(`mutation($id: ID!) { cancelBackfill(input: {id: $id}) { backfill { id } } }`, { id: gid("Backfill", second.id) });
    expect(refused.status).toBe(409);
    expect(refused.errors![0]!.extensions).toMatchObject({ code: "CONFLICT", details: [{ backfill: second.name, status: "completed", id: gid("Backfill", second.id) }] });
    expect(JSON.stringify(refused.errors)).not.toContain(second.id); // no raw UUID
  });
});
