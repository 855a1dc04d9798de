// Issue 27: an evaluator (or its template) asks for its own CPU time, wall time and memory, within
// the sandbox's ceilings (src/execution/limits.ts), and every path honours it: live, experiment,
// backfill and tryCode, through the real queue, workers and sandbox. 400 MB does not fit the
// default 256 MiB address space, fits 1 GiB, and a 128 MiB evaluator override wins over its template.
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMIT_SPECS } from "../../src/execution/limits.js";
import { liveHarness, waitFor } from "./helpers.js";

/** Holds 400 MB, then scores; under a smaller address space it hits MemoryError (memory_limit). */
const BIG = `def evaluate(ctx):
    block = bytearray(400 * 1024 * 1024)
    return EvaluationResult(scores=[Score(name="held_mb", value=len(block) // (1024 * 1024))])
`;
/** Spends 0.5 s of CPU (process time, whatever the load), then scores. */
const BUSY = `import time

def evaluate(ctx):
    start = time.process_time()
    while time.process_time() - start < 0.5:
        pass
    return EvaluationResult(scores=[Score(name="done", value=True)])
`;
const GiB = 1024 * 1024 * 1024;
const MiB = 1024 * 1024;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "limits", queues: ["evaluate-target", "experiment-batch", "backfill-batch"] });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");
const outcomeOf = async (where: Record<string, unknown>) => (await h.app.prisma.run.findFirstOrThrow({ where, select: { outcome: true, errorMessage: true } }));

describe("per-evaluator sandbox limits", () => {
  it("are honoured live, in experiments, backfills and tryCode: the template's, an evaluator's own over it, and the defaults otherwise", { timeout: 400_000 }, async () => {
    const ws = await h.workspace("limits");
    const { template } = await h.app.services.templates.createTemplate(ws.principal, { name: "Big", sourceCode: BIG, limits: { memoryBytes: GiB } });
    expect(template.limits).toEqual({ memoryBytes: GiB });
    const roomy = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Roomy", templateId: template.id });
    const tight = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Tight", templateId: template.id, limits: { memoryBytes: 128 * MiB } });
    const read = await ws.gql(`query($id: ID!) { node(id: $id) { ... on Evaluator { limits runLimits { cpuTimeMs wallTimeMs memoryBytes } } } }`, { id: gid("Evaluator", tight.id) });
    expect(read.data!.node).toEqual({ limits: { memoryBytes: 128 * MiB }, runLimits: { cpuTimeMs: LIMIT_SPECS.cpuTimeMs.default, wallTimeMs: LIMIT_SPECS.wallTimeMs.default, memoryBytes: 128 * MiB } });

    // Live.
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, [{ traceId: "t", spanId: "s", name: "chat", startTime: "2026-11-20T00:00:00Z", input: "hi", output: "hello" }]);
    const spanId = ingested.spans[0]!.id;
    await waitFor(() => h.app.prisma.run.count({ where: { spanId } }), 2, 120_000);
    expect((await outcomeOf({ spanId, evaluatorId: roomy.id })).outcome).toBe("ok");
    expect(await outcomeOf({ spanId, evaluatorId: tight.id })).toEqual({ outcome: "memory_limit", errorMessage: "the evaluator used more than its memory limit of 128 MiB" });

    // Experiment.
    const dataset = await h.app.services.datasets.importItems(ws.principal, { name: "one" }, Readable.from([JSON.stringify({ id: "i1", input: "hi", output: "hello" }) + "\n"]));
    const experiment = await h.app.services.experiments.createExperiment(ws.principal, { datasetId: dataset.datasetId, evaluatorIds: [roomy.id, tight.id] });
    await waitFor(() => h.app.prisma.run.count({ where: { experimentId: experiment.id } }), 2, 120_000);
    expect((await outcomeOf({ experimentId: experiment.id, evaluatorId: roomy.id })).outcome).toBe("ok");
    expect((await outcomeOf({ experimentId: experiment.id, evaluatorId: tight.id })).outcome).toBe("memory_limit");

    // Backfill (rerun the live span), one evaluator at a time.
    for (const [evaluator, expected] of [[roomy, "ok"], [tight, "memory_limit"]] as const) {
      const { backfill } = await h.app.services.backfills.createBackfill(ws.principal, { evaluatorId: evaluator.id, windowStart: "2026-11-19T00:00:00Z", windowEnd: "2026-11-21T00:00:00Z", rerun: true });
      await waitFor(async () => h.app.prisma.run.count({ where: { backfillId: backfill.id } }), 1, 120_000);
      expect((await outcomeOf({ backfillId: backfill.id })).outcome).toBe(expected);
    }

    // tryCode: the template's limits; the input's own over them; a draft gets the defaults unless it asks.
    const onSpan = { spanId };
    expect((await h.app.services.tryCode.tryCode(ws.principal, { templateId: template.id, ...onSpan })).outcome).toBe("ok");
    expect((await h.app.services.tryCode.tryCode(ws.principal, { templateId: template.id, limits: { memoryBytes: 128 * MiB }, ...onSpan })).outcome).toBe("memory_limit");
    expect((await h.app.services.tryCode.tryCode(ws.principal, { sourceCode: BIG, ...onSpan })).outcome).toBe("memory_limit");
    expect((await h.app.services.tryCode.tryCode(ws.principal, { sourceCode: BIG, limits: { memoryBytes: GiB }, ...onSpan })).outcome).toBe("ok");
    // A lower CPU time is honoured too (0.5 s of CPU: ok by default, a timeout at 0.2 s).
    expect((await h.app.services.tryCode.tryCode(ws.principal, { sourceCode: BUSY, ...onSpan })).outcome).toBe("ok");
    const cut = await h.app.services.tryCode.tryCode(ws.principal, { sourceCode: BUSY, limits: { cpuTimeMs: 200 }, ...onSpan });
    expect([cut.outcome, cut.error?.message]).toEqual(["timeout", "the evaluator used more than its CPU time of 0.2 s for one item"]);
  });

  it("refuses limits past the sandbox's ceilings or unknown, naming the field", async () => {
    const ws = await h.workspace("limits");
    const { template } = await h.app.services.templates.createTemplate(ws.principal, { name: "Big", sourceCode: BIG });
    const over = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Over", templateId: template.id, limits: { memoryBytes: 4 * GiB, cpuTimeMs: 5 } }).catch((e) => e);
    expect(over.issues).toEqual([
      { path: "limits.cpuTimeMs", message: "must be at least 10 ms" },
      { path: "limits.memoryBytes", message: "must be at most 2147483648 bytes (2048 MiB) (the sandbox's ceiling)" },
    ]);
    const unknown = await h.app.services.templates.updateTemplate(ws.principal, template.id, { limits: { outputBytes: 10 } }).catch((e) => e);
    expect(unknown.issues).toEqual([{ path: "limits.outputBytes", message: "unknown field" }]);
    // Changing a template's limits makes no new version.
    const updated = await h.app.services.templates.updateTemplate(ws.principal, template.id, { limits: { wallTimeMs: 20_000 } });
    expect([updated.template.limits, updated.template.latestVersion]).toEqual([{ wallTimeMs: 20_000 }, 1]);
  });
});
