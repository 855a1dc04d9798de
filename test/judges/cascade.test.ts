// A cascade (issue 30, docs/judges.md § Cascades): a cheap code check (the judge-gate starter) gates an LLM judge (the judge
// runs only where the check could not decide), and a code evaluator reads the judge's score with
// ctx.score. Over 100 live spans the loopback provider counts the judge's calls; an experiment over
// the same replies and a backfill over the same spans give the same final scores and are served by
// the result cache (no new call).
import { Readable } from "node:stream";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAiServer, type FakeProvider } from "../connections/fake-providers.js";
import { liveHarness, waitFor } from "../runs/helpers.js";

const KEY = `sk-proj-${randomBytes(24).toString("base64url")}`;

/** The final verdict: the judge's when it ran, else polite (the cheap check was sure). */
const FINAL = `def evaluate(ctx):
    judged = ctx.score("Politeness judge", "polite", default=None)
    polite = True if judged is None else judged
    return EvaluationResult(scores=[Score(name="polite_final", value=polite, comment="judge" if judged is not None else "cheap check")])
`;

const JUDGE = {
  messages: [{ role: "user", content: "Is this reply polite?\n{{output}}" }],
  output: [{ name: "polite", type: "boolean", higherIsBetter: true }],
};

/** Reply i: thanks (i % 3 == 0), please (i % 3 == 1), or neither (i % 3 == 2: the judge decides; polite when i is a multiple of 4). */
function reply(i: number): string {
  if (i % 3 === 0) return `Thank you, order ${i} is on its way.`;
  if (i % 3 === 1) return `Please wait, order ${i} is being packed.`;
  return i % 4 === 0 ? `Order ${i}: it will arrive soon, kind regards.` : `Order ${i}. Deal with it.`;
}
const N = 100;
const judged = Array.from({ length: N }, (_, i) => i).filter((i) => i % 3 === 2);
const expectedFinal = Array.from({ length: N }, (_, i) => (i % 3 === 2 ? i % 4 === 0 : true));

let h: Awaited<ReturnType<typeof liveHarness>>;
let provider: FakeProvider;

beforeAll(async () => {
  provider = await startOpenAiServer(KEY);
  // The judge answers from the reply it was shown: polite when it says "kind regards".
  provider.judge = (body) => {
    const text = (body.messages as { content: string }[]).map((m) => m.content).join("\n");
    return { reasoning: "read the reply", polite: text.includes("kind regards") };
  };
  h = await liveHarness({ label: "judge-cascade", queues: ["evaluate-target", "evaluation-barrier", "experiment-batch", "backfill-batch"], env: { CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true" } });
});
afterAll(async () => {
  await h.close();
  await provider.close();
});

describe("a cascade of a code check, an LLM judge and a code evaluator reading the judge", () => {
  it("calls the judge only where the gate lets it, gives the same final scores live, in an experiment and in a backfill, and serves the second passes from the cache", async () => {
    const ws = await h.workspace("judge-cascade");
    const { templates, evaluators, connections } = h.app.services;
    const connection = await connections.createConnection(ws.principal, { name: "Local", provider: "openai", baseUrl: provider.baseUrl, defaultModel: "judge-cascade", apiKey: KEY });
    // The cheap half is the judge-gate starter: sure when the reply thanks or says please.
    const cheap = await templates.createTemplateFromStarter(ws.principal, "judge-gate");
    await evaluators.createEvaluator(ws.principal, { name: "Cheap check", templateId: cheap.template.id, params: { required: ["thank", "please"] } });
    const judgeTemplate = await templates.createTemplate(ws.principal, { name: "Politeness", kind: "llm", judge: JUDGE });
    const judge = await evaluators.createEvaluator(ws.principal, {
      name: "Politeness judge", templateId: judgeTemplate.template.id, connectionId: connection.id, dependencies: [{ evaluator: "Cheap check", gate: { score: "needs_judge" } }],
    });
    const finalTemplate = await templates.createTemplate(ws.principal, { name: "Final verdict", sourceCode: FINAL });
    const final = await evaluators.createEvaluator(ws.principal, { name: "Final verdict", templateId: finalTemplate.template.id, dependencies: [{ evaluator: "Politeness judge" }] });

    // 1. Live: 100 spans.
    const before = provider.requests.length;
    const spans = Array.from({ length: N }, (_, i) => ({ traceId: `t-cascade-${i}`, spanId: `s${String(i).padStart(3, "0")}`, name: "chat", kind: "chat", input: "Where is my order?", output: reply(i), startTime: new Date(Date.UTC(2026, 11, 1, 0, 0, i)).toISOString() }));
    await h.app.services.spans.ingestSpans(ws.principal, spans);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: final.id } }), N, 90_000);
    expect(provider.requests.length - before).toBe(judged.length);
    const judgeRuns = await h.app.prisma.run.groupBy({ by: ["outcome"], where: { evaluatorId: judge.id }, _count: true });
    expect(Object.fromEntries(judgeRuns.map((g) => [g.outcome, g._count]))).toEqual({ ok: judged.length, skipped: N - judged.length });
    const live = await h.app.prisma.run.findMany({ where: { evaluatorId: final.id }, include: { scores: true, span: true }, orderBy: { span: { spanId: "asc" } } });
    expect(live.map((r) => r.scores[0]?.value)).toEqual(expectedFinal);
    expect(live.filter((r) => r.scores[0]?.comment === "judge")).toHaveLength(judged.length);

    // 2. An experiment over the same replies: the cascade runs per item; the judge's prompts are the live ones (cached).
    const lines = Array.from({ length: N }, (_, i) => JSON.stringify({ id: `item-${i}`, input: "Where is my order?", output: reply(i) })).join("\n");
    await h.app.services.datasets.importItems(ws.principal, { name: "Replies" }, Readable.from([lines]));
    const dataset = await h.app.prisma.dataset.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, name: "Replies" } });
    const afterLive = provider.requests.length;
    const experiment = await h.app.services.experiments.createExperiment(ws.principal, { datasetId: dataset.id, evaluatorIds: [final.id] });
    await waitFor(async () => ((await h.app.prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id } })).status === "completed" ? 1 : 0), 1, 90_000);
    const items = await h.app.prisma.run.findMany({ where: { experimentId: experiment.id, evaluatorId: final.id }, include: { scores: true, datasetItem: true } });
    const byItem = new Map(items.map((r) => [r.datasetItem!.externalId ?? "", r.scores[0]?.value]));
    expect(Array.from({ length: N }, (_, i) => byItem.get(`item-${i}`))).toEqual(expectedFinal);
    expect(provider.requests.length - afterLive).toBe(0);
    const cachedInExperiment = await h.app.prisma.run.findMany({ where: { experimentId: experiment.id, evaluatorId: judge.id, outcome: "ok" }, select: { usage: true } });
    expect(cachedInExperiment).toHaveLength(judged.length);
    expect(cachedInExperiment.every((r) => (r.usage as { cached: boolean }).cached)).toBe(true);

    // 3. A backfill over the same spans, the judge and its dependency again: no new call.
    const backfill = await h.app.services.backfills.createBackfill(ws.principal, { evaluatorId: final.id, windowStart: "2026-11-30T00:00:00.000Z", rerun: true, includeDependencies: true });
    await waitFor(async () => ((await h.app.prisma.backfill.findUniqueOrThrow({ where: { id: backfill.backfill.id } })).status === "completed" ? 1 : 0), 1, 90_000);
    expect(provider.requests.length - afterLive).toBe(0);
    const rerun = await h.app.prisma.run.findMany({ where: { evaluatorId: final.id, backfillId: backfill.backfill.id }, include: { scores: true, span: true }, orderBy: { span: { spanId: "asc" } } });
    expect(rerun.map((r) => r.scores[0]?.value)).toEqual(expectedFinal);
  });
});
