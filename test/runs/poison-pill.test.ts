// A poison pill: a result that once crashed Node (metadata nested 6,000 levels deep, past the
// runner's validation) as a live evaluator. The worker must stay up (it runs in this process: a
// crash would end the test run), the poisoned run is invalid_result and the other spans are scored.
// And a job whose processing ended its worker twice is recorded, not run a third time.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORKER_CRASH_LIMIT } from "../../src/modules/runs/processor.js";
import { liveHarness, waitFor } from "./helpers.js";

const POISON = `import sys

class Deep(Score):
    def to_dict(self):
        d = super().to_dict()
        deep = {}
        node = deep
        for _ in range(6_000):
            node["a"] = {}
            node = node["a"]
        d["metadata"] = deep
        return d

def evaluate(ctx):
    if "poison" not in ctx.input:
        return EvaluationResult(scores=[Score(name="length", value=len(ctx.output))])
    sys.setrecursionlimit(100_000)
    return EvaluationResult(scores=[Deep(name="length", value=1, metadata={})])
`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "poison" });
});
afterAll(() => h.close());

describe("poison pill", () => {
  it("keeps the worker up: the poisoned span's run is invalid_result, the other spans are scored", async () => {
    expect(readFileSync(join(import.meta.dirname, "../sandbox/exploits/deep_metadata_bypass.py"), "utf8")).toContain("range(6_000)");
    const ws = await h.workspace("poison");
    const template = await h.app.services.templates.createTemplate(ws.principal, { name: "poison", sourceCode: POISON });
    await h.app.services.evaluators.createEvaluator(ws.principal, { name: "poison", templateId: template.template.id });
    const spans = [
      { traceId: "t1", spanId: "a", name: "chat", kind: "chat", input: "hello", output: "fine" },
      { traceId: "t1", spanId: "b", name: "chat", kind: "chat", input: "poison please", output: "x" },
      { traceId: "t1", spanId: "c", name: "chat", kind: "chat", input: "hi again", output: "twelve chars" },
    ];
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, spans);
    const ids = ingested.spans.map((s) => s.id);
    await waitFor(() => h.app.prisma.run.count({ where: { spanId: { in: ids } } }), 3);
    const runs = await h.app.prisma.run.findMany({ where: { spanId: { in: ids } }, include: { scores: true, span: { select: { input: true } } } });
    const byInput = Object.fromEntries(runs.map((r) => [JSON.stringify(r.span!.input), r]));
    expect(byInput['"poison please"']).toMatchObject({ outcome: "invalid_result", errorType: "InvalidResult", attempts: 1 });
    expect(byInput['"poison please"']!.errorMessage).toMatch(/metadata must nest at most 64 levels/);
    expect(byInput['"hello"']!.scores.map((s) => [s.name, s.value])).toEqual([["length", 4]]);
    expect(byInput['"hi again"']!.scores.map((s) => [s.name, s.value])).toEqual([["length", 12]]);
    // The same worker still takes new work.
    const later = await h.app.services.spans.ingestSpans(ws.principal, [{ traceId: "t2", spanId: "d", name: "chat", kind: "chat", input: "after", output: "ok" }]);
    await waitFor(() => h.app.prisma.run.count({ where: { spanId: later.spans[0]!.id, outcome: "ok" } }), 1);
  });

  it(`records a job that ended its worker ${WORKER_CRASH_LIMIT} times as sandbox_error without running it`, async () => {
    const ws = await h.workspace("crashed");
    const template = await h.app.services.templates.createTemplate(ws.principal, { name: "crashed", sourceCode: POISON });
    const evaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "crashed", templateId: template.template.id });
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { enabled: false });
    const spanId = (await h.app.services.spans.ingestSpans(ws.principal, [{ traceId: "t3", spanId: "e", name: "chat", kind: "chat", input: "hello", output: "fine" }])).spans[0]!.id;
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { enabled: true });
    const payload = { workspaceId: ws.workspace.id, targetType: "span" as const, targetId: spanId, evaluatorId: evaluator.id };
    expect(await h.app.services.runProcessor(payload, { attemptsMade: 0, opts: { attempts: 4 }, stalledCounter: WORKER_CRASH_LIMIT })).toBe("recorded");
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { spanId }, include: { scores: true } });
    expect(run).toMatchObject({ outcome: "sandbox_error", errorType: "WorkerCrashed", scores: [] });
    expect(run.errorMessage).toBe(`the worker running this evaluation ended ${WORKER_CRASH_LIMIT} times before it finished; it is not run again`);
  });
});
