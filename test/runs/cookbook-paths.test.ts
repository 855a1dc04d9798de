// The same score on every path (docs/evaluation.md): every cookbook recipe, verbatim, gives the same outcome and scores on the
// same input as a live evaluator, in an experiment and in tryCode (on the stored span, and on the
// stored dataset item). The combine-a-judge recipe among them, with its judge posting scores
// (submitScores) for the live spans and for the experiment's items. Through GraphQL, the
// evaluate-target, evaluation-barrier and experiment-batch queues, the worker and the sandbox.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as R from "../fixtures/cookbook-recipes.js";
import { importFile, waitForExperiment } from "../experiments/helpers.js";
import { liveHarness, waitFor } from "./helpers.js";

const TRAJECTORY_SPECS = [
  { name: "expected", type: "json", default: [] },
  { name: "mode", type: "enum", options: ["strict", "unordered", "subset", "superset"], default: "strict" },
];
const TRAJECTORY_VALUES = { expected: ["search_orders", "issue_refund"], mode: "strict" };

/** Each recipe as a template (its settings, when it has some) and an evaluator's values. */
const RECIPES: { name: string; source: string; settings?: unknown[]; values?: Record<string, unknown> }[] = [
  { name: "Built-in plus own", source: R.BUILTIN_PLUS_OWN },
  { name: "Built-in plus own (Opik)", source: R.BUILTIN_PLUS_OWN_OPIK },
  { name: "Weighted quality", source: R.WEIGHTED_QUALITY },
  { name: "Gate on a check", source: R.GATE_ON_A_CHECK },
  { name: "All checks pass", source: R.ALL_CHECKS_PASS },
  { name: "Tool trajectory", source: R.TOOL_TRAJECTORY },
  { name: "Tool trajectory with settings", source: R.TOOL_TRAJECTORY_SETTINGS, settings: TRAJECTORY_SPECS, values: TRAJECTORY_VALUES },
  { name: "Shared library", source: R.SHARED_LIBRARY_EVALUATOR },
  { name: "Overall", source: R.LLM_JUDGE_AND_CODE },
  { name: "Compare with a reference", source: R.COMPARE_WITH_REFERENCE },
  { name: "RAG grounded", source: R.RAG_GROUNDED },
];

/** One input, as a live span and as a line of items.jsonl (the reference answer: attribute vs expected_output), with the judge's relevance. */
const CASES = [
  {
    id: "refund",
    relevance: 0.8,
    input: [
      { role: "system", content: "You are a support agent for Acme. Answer from the policy." },
      { role: "user", content: "Can I get a refund for order 4471? I paid 120 dollars." },
    ],
    output: {
      role: "assistant",
      content: "Yes. Order 4471 qualifies for a refund of 120 dollars within 30 days [1]. I have issued the refund.",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "search_orders", arguments: '{"order_id": 4471}' } },
        { id: "c2", type: "function", function: { name: "issue_refund", arguments: '{"order_id": 4471, "amount": 120}' } },
      ],
    },
    expected: "Yes. Order 4471 qualifies for a refund of 120 dollars within 30 days [1]. I have issued the refund.",
    context: "Refund policy: orders qualify for a refund within 30 days. Order 4471 was paid 120 dollars.",
  },
  {
    id: "leaky-json",
    relevance: 0.6,
    input: [{ role: "user", content: "Who handles refunds? Answer in JSON." }],
    output: '{"answer": "Write to jane.doe@example.com, we guarantee a refund of 300 dollars.", "sources": ["policy.md"]}',
    expected: "Write to refunds@acme.test",
    context: ["Refunds are handled by the refunds team.", "Refunds are paid within 30 days."],
  },
];

const TRY = `mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome error { type message } scores { name value dataType higherIsBetter comment metadata } scoreFallbacks { evaluator score } } }`;
const SUBMIT = `mutation($input: SubmitScoresInput!) { submitScores(input: $input) { replaced } }`;
const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");
const local = (globalId: string) => Buffer.from(globalId, "base64").toString().split(":")[1]!;

/** What is compared: the outcome and every field of every score, in order. */
type Result = { outcome: string; scores: { name: string; value: unknown; dataType: string; higherIsBetter: boolean; comment: string | null; metadata: unknown }[] };
const stored = (run: { outcome: string; scores: Result["scores"] & { position?: number }[] }): Result => ({
  outcome: run.outcome,
  scores: run.scores.map((s) => ({ name: s.name, value: s.value, dataType: s.dataType, higherIsBetter: s.higherIsBetter, comment: s.comment, metadata: s.metadata })),
});

/**
 * Numbers to 15 significant digits, for comparing with a live run: the live path writes a score's
 * `value` through Prisma's Json column, which can store a double one ulp off (e.g. Python's
 * 0.0016343606829878343 is stored as 0.001634360682987834, while its float8 `numericValue` and the
 * experiment path's raw jsonb keep it exact). Reported in the issue; the other paths are compared exactly.
 */
function toPrecision15<T>(value: T): T {
  if (typeof value === "number" && !Number.isInteger(value)) return Number(value.toPrecision(15)) as T;
  if (Array.isArray(value)) return value.map(toPrecision15) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPrecision15(v)])) as T;
  return value;
}

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "paths", queues: ["evaluate-target", "evaluation-barrier", "experiment-batch"] });
});
afterAll(() => h.close());

describe("every cookbook recipe: live, experiment and tryCode agree", () => {
  it("gives the same outcome and scores on the same input by every path, the judge posting for spans and items", { timeout: 600_000 }, async () => {
    const ws = await h.workspace();
    const { templates, evaluators, sharedLibraries } = h.app.services;
    await sharedLibraries.publishVersion(ws.principal, { name: "acme_policy", sourceCode: R.SHARED_LIBRARY_ACME_POLICY });
    await evaluators.createEvaluator(ws.principal, { name: "Answer relevance", kind: "external" });
    const pii = await templates.createTemplateFromStarter(ws.principal, "pii-leak");
    const piiEv = await evaluators.createEvaluator(ws.principal, { name: "PII leak", templateId: pii.template.id });
    const made: { name: string; evaluatorId: string; templateId: string; values: Record<string, unknown> }[] = [];
    for (const recipe of RECIPES) {
      const { template } = await templates.createTemplate(ws.principal, { name: recipe.name, sourceCode: recipe.source, ...(recipe.settings ? { params: recipe.settings } : {}) });
      const evaluator = await evaluators.createEvaluator(ws.principal, { name: recipe.name, templateId: template.id, params: recipe.values ?? {} });
      made.push({ name: recipe.name, evaluatorId: evaluator.id, templateId: template.id, values: recipe.values ?? {} });
    }

    // Live: the spans, then the judge's scores for each.
    const spans = CASES.map((c) => ({ traceId: `paths-${c.id}`, spanId: c.id, name: "support.reply", kind: "chat", input: c.input, output: c.output, attributes: { context: c.context, "app.expected_answer": c.expected } }));
    const ingest = await ws.gql(`mutation($spans: [JSON!]!) { ingestSpans(input: { spans: $spans }) { spans { id } rejected { index } } }`, { spans });
    expect(ingest.data!.ingestSpans.rejected).toEqual([]);
    const spanIds: string[] = ingest.data!.ingestSpans.spans.map((s: { id: string }) => s.id);
    for (const [i, c] of CASES.entries()) {
      const posted = await ws.gql(SUBMIT, { input: { spanId: spanIds[i], evaluator: "Answer relevance", scores: [{ name: "relevance", value: c.relevance }] } });
      expect(posted.errors).toBeUndefined();
    }
    const liveEvaluators = [piiEv.id, ...made.map((m) => m.evaluatorId)];
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: { in: liveEvaluators }, spanId: { not: null } } }), liveEvaluators.length * CASES.length, 240_000);

    // The experiment: the same inputs as items.jsonl lines; the judge posts for each item.
    const file = join(mkdtempSync(join(tmpdir(), "paths-")), "items.jsonl");
    writeFileSync(file, CASES.map((c) => JSON.stringify({ id: c.id, input: c.input, output: c.output, expected_output: c.expected, context: c.context, tool_calls: null, metadata: {} })).join("\n") + "\n");
    const report = await importFile(h.app, ws.principal, "paths", file);
    const items = await h.app.prisma.datasetItem.findMany({ where: { datasetId: report.datasetId }, orderBy: { position: "asc" } });
    const created = await ws.gql(`mutation($input: CreateExperimentInput!) { createExperiment(input: $input) { experiment { id evaluators { source evaluator { name } } } } }`, {
      input: { datasetId: gid("Dataset", report.datasetId), evaluatorIds: made.map((m) => gid("Evaluator", m.evaluatorId)), dependencyWaitSeconds: 3600 },
    });
    expect(created.errors).toBeUndefined();
    const experiment = created.data!.createExperiment.experiment;
    expect(experiment.evaluators.filter((e: { source: string }) => e.source === "dependency").map((e: { evaluator: { name: string } }) => e.evaluator.name)).toEqual(["PII leak"]);
    for (const [i, c] of CASES.entries()) {
      const posted = await ws.gql(SUBMIT, { input: { experimentId: experiment.id, datasetItemId: gid("DatasetItem", items[i]!.id), evaluator: "Answer relevance", scores: [{ name: "relevance", value: c.relevance }] } });
      expect(posted.errors).toBeUndefined();
    }
    const done = await waitForExperiment(h.app, local(experiment.id), 240_000);
    expect(done.status).toBe("completed");

    const scoresOrder = { orderBy: { position: "asc" as const } };
    for (const m of made) {
      for (const [i, c] of CASES.entries()) {
        const label = `${m.name} on ${c.id}`;
        const live = await h.app.prisma.run.findUniqueOrThrow({ where: { spanId_evaluatorId: { spanId: local(spanIds[i]!), evaluatorId: m.evaluatorId } }, include: { scores: scoresOrder } });
        const inExperiment = await h.app.prisma.run.findFirstOrThrow({ where: { experimentId: local(experiment.id), datasetItemId: items[i]!.id, evaluatorId: m.evaluatorId }, include: { scores: scoresOrder } });
        const tryOn = async (sample: Record<string, unknown>): Promise<Result & { fallbacks: unknown[] }> => {
          const res = await ws.gql(TRY, { input: { templateId: gid("Template", m.templateId), params: m.values, ...sample } });
          expect(res.errors, label).toBeUndefined();
          const r = res.data!.tryCode;
          return { ...stored({ outcome: r.outcome, scores: r.scores }), fallbacks: r.scoreFallbacks };
        };
        const expected = stored(inExperiment);
        expect(expected.outcome, `${label}: ${inExperiment.errorMessage}`).toBe("ok");
        expect(expected.scores.length, label).toBeGreaterThan(0);
        expect(toPrecision15(stored(live)), `${label}: live`).toEqual(toPrecision15(expected));
        expect(live.scores.map((s) => s.numericValue), `${label}: live numericValue`).toEqual(inExperiment.scores.map((s) => s.numericValue));
        expect(inExperiment.missingDependencies, label).toEqual([]);
        const onSpan = await tryOn({ spanId: spanIds[i] });
        expect({ outcome: onSpan.outcome, scores: onSpan.scores }, `${label}: tryCode on the span`).toEqual(expected);
        expect(onSpan.fallbacks, label).toEqual([]);
        if (m.name !== "Overall") {
          // A stored item has no judge scores outside its experiment: the judge recipe is compared on the span.
          const onItem = await tryOn({ datasetItemId: gid("DatasetItem", items[i]!.id) });
          expect({ outcome: onItem.outcome, scores: onItem.scores }, `${label}: tryCode on the item`).toEqual(expected);
        }
      }
    }

    // Hand-checked: the judge's relevance and the PII check combine as the recipe says.
    const overall = made.find((m) => m.name === "Overall")!;
    const overallOf = async (spanId: string) =>
      (await h.app.prisma.run.findUniqueOrThrow({ where: { spanId_evaluatorId: { spanId: local(spanId), evaluatorId: overall.evaluatorId } }, include: { scores: true } })).scores[0]!.value as number;
    expect(await overallOf(spanIds[0]!)).toBeCloseTo((0.8 * 3 + 1 * 1) / 4, 10); // 0.85: no PII
    expect(await overallOf(spanIds[1]!)).toBeCloseTo((0.6 * 3 + 0 * 1) / 4, 10); // 0.45: an e-mail address
  });
});
