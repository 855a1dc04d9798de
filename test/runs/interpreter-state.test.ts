// Warm isolation (docs/sandbox.md § Isolation): what an item puts in the interpreter (a counter in builtins, in os.environ and
// in sys.modules; a write to an oodle_eval module) does not reach the next item of a warm runner,
// on every path: live spans, experiment items, tryCode drafts, and a second evaluator of the same
// template. Counts went 1 -> 5 across items before the runner put the interpreter back per item.
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveHarness, waitFor } from "./helpers.js";

const COUNTER = `import builtins
import os
import sys
import types
import oodle_eval.v1


def evaluate(ctx):
    builtins.seen = getattr(builtins, "seen", 0) + 1
    os.environ["SEEN"] = str(int(os.environ.get("SEEN", "0")) + 1)
    holder = sys.modules.setdefault("seen_holder", types.SimpleNamespace(n=0))
    holder.n += 1
    try:
        oodle_eval.v1.seen = True
        library = "writable"
    except AttributeError:
        library = "read-only"
    return EvaluationResult(scores=[
        Score(name="builtins", value=builtins.seen),
        Score(name="environ", value=int(os.environ["SEEN"])),
        Score(name="modules", value=holder.n),
        Score(name="library", value=library, data_type="CATEGORICAL"),
    ])
`;
const FRESH = [["builtins", 1], ["environ", 1], ["modules", 1], ["library", "read-only"]];

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "state", queues: ["evaluate-target", "experiment-batch"] });
});
afterAll(() => h.close());

describe("interpreter state per item (warm runners)", () => {
  it("live spans of two evaluators of one template and experiment items all start from the same interpreter", async () => {
    const ws = await h.workspace("state");
    const { template } = await h.app.services.templates.createTemplate(ws.principal, { name: "counter", sourceCode: COUNTER });
    const first = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "counter a", templateId: template.id });
    const second = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "counter b", templateId: template.id });
    const spans = Array.from({ length: 5 }, (_, i) => ({ traceId: "t-state", spanId: `s${i}`, name: "chat", kind: "chat", input: `q${i}`, output: `a${i}` }));
    const ids = (await h.app.services.spans.ingestSpans(ws.principal, spans)).spans.map((s) => s.id);
    await waitFor(() => h.app.prisma.run.count({ where: { spanId: { in: ids } } }), 10);
    const live = await h.app.prisma.run.findMany({ where: { spanId: { in: ids } }, include: { scores: { orderBy: { position: "asc" } } } });
    expect(live).toHaveLength(10);
    for (const run of live) expect([run.outcome, run.scores.map((s) => [s.name, s.value])]).toEqual(["ok", FRESH]);
    expect(new Set(live.map((r) => r.evaluatorId))).toEqual(new Set([first.id, second.id]));

    const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ id: `i${i}`, input: `q${i}`, output: `a${i}` })).join("\n") + "\n";
    const report = await h.app.services.datasets.importItems(ws.principal, { name: "state", mode: "abort" }, Readable.from([lines]));
    const experiment = await h.app.services.experiments.createExperiment(ws.principal, { datasetId: report.datasetId, evaluatorIds: [first.id], batchSize: 6 });
    await waitFor(() => h.app.prisma.run.count({ where: { experimentId: experiment.id } }), 6);
    const items = await h.app.prisma.run.findMany({ where: { experimentId: experiment.id }, include: { scores: { orderBy: { position: "asc" } } } });
    for (const run of items) expect([run.outcome, run.scores.map((s) => [s.name, s.value])]).toEqual(["ok", FRESH]);
  });

  it("tryCode drafts of one key share a warm runner and still each start fresh", async () => {
    const ws = await h.workspace("state-try");
    const TRY = "mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome scores { name value } } }";
    const input = { input: { sourceCode: COUNTER, span: { traceId: "t", spanId: "s", name: "chat", kind: "chat", input: "q", output: "a" } } };
    for (let i = 0; i < 3; i++) {
      const res = await ws.gql(TRY, input);
      expect(res.errors).toBeUndefined();
      expect(res.data?.tryCode.scores.map((s: { name: string; value: unknown }) => [s.name, s.value])).toEqual(FRESH);
    }
  });
});
