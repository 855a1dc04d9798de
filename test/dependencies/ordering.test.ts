// A dependent never runs before its dependencies (docs/evaluation.md § Dependencies and gates): a diamond A → {B, C} → D
// plus E after D, on many spans at once with worker concurrency > 1, asserted on the recorded
// start and finish times; each level reads the scores of the level before with ctx.score.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueRegistry } from "../../src/queues/registry.js";
import { chatSpan, dependencyHarness, storedIds, waitFor } from "./helpers.js";

/** Sleeps a little (so runs overlap), then writes 1 + the sum of its dependencies' `n`. */
const LEVEL = (deps: string[]) => `import time


def evaluate(ctx):
    time.sleep(0.03)
    total = 1${deps.map((d) => ` + ctx.score("${d}", "n", default=-1000)`).join("")}
    return EvaluationResult(scores=[Score(name="n", value=total)])
`;

let h: Awaited<ReturnType<typeof dependencyHarness>>;
beforeAll(async () => {
  h = await dependencyHarness();
});
afterAll(() => h.close());

describe("ordering on a span", () => {
  it("runs a diamond in dependency order on 12 spans at once", async () => {
    expect(queueRegistry["evaluate-target"].concurrency).toBeGreaterThan(1);
    const ws = await h.workspace("order");
    const { templates, evaluators, spans } = h.app.services;
    const make = async (name: string, deps: string[]) => {
      const t = await templates.createTemplate(ws.principal, { name: `${name} template`, sourceCode: LEVEL(deps) });
      return evaluators.createEvaluator(ws.principal, { name, templateId: t.template.id, dependencies: deps.map((d) => ({ evaluator: d })) });
    };
    // Created dependents first, so creation order does not hide a wrong order.
    const a = await make("A", []);
    const b = await make("B", ["A"]);
    const c = await make("C", ["A"]);
    const d = await make("D", ["B", "C"]);
    const e = await make("E", ["D"]);
    const ids = storedIds(await spans.ingestSpans(ws.principal, Array.from({ length: 12 }, (_, i) => chatSpan("order", `s${i}`, `reply ${i}`))));
    await waitFor(() => h.app.prisma.run.count({ where: { spanId: { in: ids } } }), 12 * 5);
    const runs = await h.app.prisma.run.findMany({ where: { spanId: { in: ids } }, include: { scores: true } });
    const expected = new Map([[a.id, 1], [b.id, 2], [c.id, 2], [d.id, 5], [e.id, 6]]);
    const edges: [string, string][] = [[b.id, a.id], [c.id, a.id], [d.id, b.id], [d.id, c.id], [e.id, d.id]];
    for (const spanId of ids) {
      const on = (id: string) => runs.find((r) => r.spanId === spanId && r.evaluatorId === id)!;
      for (const [id, n] of expected) {
        expect(on(id).outcome).toBe("ok");
        expect(on(id).scores[0]!.value).toBe(n);
      }
      for (const [dependent, dependency] of edges) {
        expect(on(dependent).startedAt!.getTime()).toBeGreaterThanOrEqual(on(dependency).finishedAt!.getTime());
      }
    }
    // Runs of different spans overlapped (the worker ran several at once).
    const sorted = runs.filter((r) => r.evaluatorId === a.id).sort((x, y) => x.startedAt!.getTime() - y.startedAt!.getTime());
    expect(sorted.some((r, i) => i > 0 && r.startedAt! < sorted[i - 1]!.finishedAt!)).toBe(true);
  });

  it("re-runs a diamond below an external evaluator in order when its scores are posted again", async () => {
    const ws = await h.workspace("order-repost");
    const { templates, evaluators, spans, dependencies } = h.app.services;
    const judgeId = (await evaluators.createEvaluator(ws.principal, { name: "Judge", kind: "external" })).id;
    const make = async (name: string, deps: string[]) => {
      const t = await templates.createTemplate(ws.principal, { name: `${name} template`, sourceCode: LEVEL(deps) });
      return evaluators.createEvaluator(ws.principal, { name, templateId: t.template.id, dependencies: deps.map((x) => ({ evaluator: x })) });
    };
    const b = await make("B", ["Judge"]);
    const c = await make("C", ["Judge"]);
    const d = await make("D", ["B", "C"]);
    const [span] = storedIds(await spans.ingestSpans(ws.principal, [chatSpan("repost", "s", "hi")]));
    await dependencies.submitScores(ws.principal, { spanId: span!, evaluator: "Judge", scores: [{ name: "n", value: 10 }] });
    await waitFor(() => h.app.prisma.run.count({ where: { spanId: span!, evaluatorId: d.id } }), 1);
    const value = async (id: string) => (await h.app.prisma.score.findFirst({ where: { spanId: span!, evaluatorId: id } }))?.value;
    expect(await value(d.id)).toBe(1 + 11 + 11);

    const posted = await dependencies.submitScores(ws.principal, { spanId: span!, evaluator: "Judge", scores: [{ name: "n", value: 20 }] });
    expect(posted.rerun.sort()).toEqual([b.id, c.id, d.id].sort());
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await value(d.id)) !== 1 + 21 + 21) await new Promise((r) => setTimeout(r, 100));
    expect(await value(d.id)).toBe(43);
    const runs = await h.app.prisma.run.findMany({ where: { spanId: span! } });
    const on = (id: string) => runs.find((r) => r.evaluatorId === id)!;
    expect(runs).toHaveLength(4);
    // The replaced runs stay as history, with the scores they had: the judge's 10 and D's 23.
    const history = await h.app.prisma.runHistory.findMany({ where: { spanId: span! }, orderBy: { supersededAt: "asc" } });
    const was = (id: string) => history.filter((r) => r.evaluatorId === id).map((r) => (r.scores as { value: unknown }[])[0]?.value);
    expect(history.every((r) => r.supersededByBackfillId === null)).toBe(true);
    expect(was(judgeId)).toEqual([10]);
    expect(was(d.id)[0]).toBe(23);
    // One replace policy: each kept with why it was replaced.
    expect(history.filter((r) => r.evaluatorId === judgeId).map((r) => r.reason)).toEqual(["scores_reposted"]);
    expect(history.filter((r) => r.evaluatorId === d.id).every((r) => r.reason === "inputs_changed")).toBe(true);
    for (const id of [b.id, c.id]) {
      expect(on(id).startedAt!.getTime()).toBeGreaterThanOrEqual(posted.run.finishedAt!.getTime());
      expect(on(d.id).startedAt!.getTime()).toBeGreaterThanOrEqual(on(id).finishedAt!.getTime());
    }
  });
});
