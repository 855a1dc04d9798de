// Score values of numpy, decimal and fractions (docs/scores.md § Values) and ctx.trace.spans read
// as dicts (docs/document.md § ctx) on every path: live spans, a backfill, experiment items, and
// tryCode on an inline span, a stored span, an inline item and a stored item. Through GraphQL, the
// evaluate-target, backfill-batch and experiment-batch queues, the worker, the sandbox (Debian's
// numpy) and the service's own result validation. On main numpy.int64, numpy.bool_ and Decimal
// made the run invalid_result, and s.get("kind") was an AttributeError.
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveHarness, waitFor } from "./helpers.js";

const VALUES = `import numpy as np
from decimal import Decimal
from fractions import Fraction


def evaluate(ctx):
    spans = ctx.trace.spans
    lengths = np.array([len(t["content"]) for t in ctx.turns])
    return EvaluationResult(scores=[
        Score(name="turns", value=np.int64(lengths.size)),
        Score(name="replied", value=lengths[-1] > 0),
        Score(name="mean_length", value=lengths.mean()),
        Score(name="price", value=Decimal("19.99")),
        Score(name="third", value=Fraction(1, 3)),
        Score(name="big", value=np.uint64(2**60)),
        Score(name="span_kinds", value=",".join(s.get("kind") for s in spans)),
        Score(name="span_names", value=",".join(s["name"] + ":" + s.kind for s in spans)),
        Score(name="span_ids", value=",".join(str(s.get("span_id")) for s in spans)),
    ])
`;
const REFUSED = `import numpy as np


def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="lengths", value=np.array([len(t["content"]) for t in ctx.turns]))])
`;
const REFUSAL = "score 'lengths': NUMERIC value must be one number, got a numpy.ndarray of shape (2,): reduce it (float(a.mean())) or write one score per element";

const QUESTION = "Can I get a refund?"; // 19 characters
const REPLY = "Yes, within 30 days."; // 20 characters
const INPUT = [{ role: "user", content: QUESTION }];

/** The values every path gives, by hand: 2 turns of 19 and 20 characters; then what the trace holds. */
function expected(kinds: string, names: string, ids: string) {
  return [
    ["turns", "NUMERIC", 2],
    ["replied", "BOOLEAN", true],
    ["mean_length", "NUMERIC", 19.5],
    ["price", "NUMERIC", 19.99],
    ["third", "NUMERIC", 1 / 3],
    ["big", "NUMERIC", 2 ** 60],
    ["span_kinds", "CATEGORICAL", kinds],
    ["span_names", "CATEGORICAL", names],
    ["span_ids", "CATEGORICAL", ids],
  ];
}
const STORED_TRACE = expected("tool,chat", "lookup:tool,reply:chat", "None,None");
const ITEM_TRACE = expected("agent,other", "plan:agent,reply:other", "p1,None");

/** A trace of a tool span, then the chat span that the evaluators run on. */
const trace = (traceId: string, start: string) => [
  { traceId, spanId: "lookup", name: "lookup", kind: "tool", startTime: `${start}:00Z`, input: { order: 7 }, output: "shipped" },
  { traceId, spanId: "reply", name: "reply", kind: "chat", startTime: `${start}:01Z`, input: INPUT, output: REPLY },
];
/** An items.jsonl line with its own trace (an extra key, span_id, on one span). */
const ITEM_LINE = { id: "i1", input: INPUT, output: REPLY, trace: [{ name: "plan", kind: "agent", start_time: "2026-11-30T09:00:00Z", span_id: "p1" }, { name: "reply" }] };

type StoredRun = { outcome: string; errorMessage: string | null; scores: { name: string; dataType: string; value: unknown }[] };
const scoresOf = (run: StoredRun) => run.scores.map((s) => [s.name, s.dataType, s.value]);
const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");
const TRY = `mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome error { type message } scores { name dataType value } } }`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "values", queues: ["evaluate-target", "experiment-batch", "backfill-batch"] });
});
afterAll(() => h.close());

describe("numpy and Decimal score values, and trace spans as dicts, on every path", () => {
  it("live, backfill, experiment and tryCode store the same plain values, and refuse an array naming the score and the type", { timeout: 600_000 }, async () => {
    const ws = await h.workspace();
    const { templates, evaluators, spans, datasets, experiments, backfills } = h.app.services;
    // Spans ingested before the evaluators exist: only the backfill runs on them.
    const early = await spans.ingestSpans(ws.principal, trace("t-backfill", "2026-11-30T10:00"));
    expect(early.rejected).toEqual([]);
    const values = await evaluators.createEvaluator(ws.principal, { name: "Values", templateId: (await templates.createTemplate(ws.principal, { name: "Values", sourceCode: VALUES })).template.id });
    const refused = await evaluators.createEvaluator(ws.principal, { name: "Refused", templateId: (await templates.createTemplate(ws.principal, { name: "Refused", sourceCode: REFUSED })).template.id });
    const runsOf = async (where: Record<string, unknown>) => {
      const runs = await h.app.prisma.run.findMany({ where, include: { scores: { orderBy: { position: "asc" } } } });
      return Object.fromEntries(runs.map((r) => [r.evaluatorId, r as unknown as StoredRun]));
    };
    const check = (runs: Record<string, StoredRun>, want: unknown[][]) => {
      expect(runs[values.id]!.outcome, runs[values.id]!.errorMessage ?? "").toBe("ok");
      expect(scoresOf(runs[values.id]!)).toEqual(want);
      expect(runs[refused.id]).toMatchObject({ outcome: "invalid_result", errorMessage: REFUSAL, scores: [] });
    };

    // Live.
    const live = await spans.ingestSpans(ws.principal, trace("t-live", "2026-11-30T11:00"));
    const liveReply = live.spans[1]!.id;
    await waitFor(() => h.app.prisma.run.count({ where: { spanId: liveReply } }), 2, 120_000);
    check(await runsOf({ spanId: liveReply }), STORED_TRACE);

    // Backfill, on the spans that arrived first.
    const created = await backfills.createBackfill(ws.principal, { evaluatorId: values.id, windowStart: "2026-11-30T00:00:00Z", filter: { traceIds: ["t-backfill"] } });
    const refusedBackfill = await backfills.createBackfill(ws.principal, { evaluatorId: refused.id, windowStart: "2026-11-30T00:00:00Z", filter: { traceIds: ["t-backfill"] } });
    const backfillReply = early.spans[1]!.id;
    await waitFor(() => h.app.prisma.run.count({ where: { spanId: backfillReply, backfillId: { in: [created.backfill.id, refusedBackfill.backfill.id] } } }), 2, 180_000);
    check(await runsOf({ spanId: backfillReply }), STORED_TRACE);

    // Experiment, on an item with its own trace.
    const report = await datasets.importItems(ws.principal, { name: "values", mode: "abort" }, Readable.from([JSON.stringify(ITEM_LINE) + "\n"]));
    const experiment = await experiments.createExperiment(ws.principal, { datasetId: report.datasetId, evaluatorIds: [values.id, refused.id] });
    await waitFor(() => h.app.prisma.run.count({ where: { experimentId: experiment.id } }), 2, 180_000);
    check(await runsOf({ experimentId: experiment.id }), ITEM_TRACE);

    // tryCode: an inline span (its trace holds it alone), the stored live span, the item inline and stored.
    const item = await h.app.prisma.datasetItem.findFirstOrThrow({ where: { datasetId: report.datasetId } });
    const samples: [string, Record<string, unknown>, unknown[][]][] = [
      ["inline span", { span: { name: "reply", kind: "chat", input: INPUT, output: REPLY } }, expected("chat", "reply:chat", "None")],
      ["stored span", { spanId: gid("Span", liveReply) }, STORED_TRACE],
      ["inline item", { document: ITEM_LINE }, ITEM_TRACE],
      ["stored item", { datasetItemId: gid("DatasetItem", item.id) }, ITEM_TRACE],
    ];
    for (const [label, sample, want] of samples) {
      const ok = await ws.gql(TRY, { input: { sourceCode: VALUES, ...sample } });
      expect(ok.errors, label).toBeUndefined();
      expect(ok.data!.tryCode.outcome, `${label}: ${JSON.stringify(ok.data!.tryCode.error)}`).toBe("ok");
      expect(ok.data!.tryCode.scores.map((s: { name: string; dataType: string; value: unknown }) => [s.name, s.dataType, s.value]), label).toEqual(want);
      const bad = await ws.gql(TRY, { input: { sourceCode: REFUSED, ...sample } });
      expect(bad.data!.tryCode, label).toMatchObject({ outcome: "invalid_result", error: { type: "ScoreError", message: REFUSAL }, scores: [] });
    }
  });
});
