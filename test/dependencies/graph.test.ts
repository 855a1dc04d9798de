// The pure parts of evaluator dependencies: layers, cycles, gates and the jobs of a span.
import { describe, expect, it } from "vitest";
import { BARRIER_DELAY_MS } from "../../src/modules/dependencies/barriers.js";
import { planSpanJobs } from "../../src/modules/runs/flows.js";
import { dependencyLayers, downstreamOf, findCycle, gatePasses, groupGatePasses, orderEvaluators } from "../../src/modules/dependencies/graph.js";

const diamond = new Map([["B", ["A"]], ["C", ["A"]], ["D", ["B", "C"]]]);

describe("dependency graphs", () => {
  it("puts a diamond in layers, ignoring dependencies outside the set", () => {
    expect(dependencyLayers(["D", "C", "B", "A"], diamond)).toEqual([["A"], ["C", "B"], ["D"]]);
    expect(orderEvaluators(["D", "B"], diamond)).toEqual(["B", "D"]);
    expect(downstreamOf("A", diamond)).toEqual(new Set(["B", "C", "D"]));
  });

  it("finds cycles as a path back to the start", () => {
    expect(findCycle(diamond)).toBeNull();
    expect(findCycle(new Map([["A", ["B"]], ["B", ["C"]], ["C", ["A"]]]))).toEqual(["A", "B", "C", "A"]);
    expect(() => dependencyLayers(["A", "B"], new Map([["A", ["B"]], ["B", ["A"]]]))).toThrow("A → B → A");
  });

  it("applies gates with combine.passed semantics", () => {
    const bool = (v: number | null, higherIsBetter = true) => [{ name: "ok", dataType: "BOOLEAN", numericValue: v, higherIsBetter }];
    const num = (v: number | null, higherIsBetter = true) => [{ name: "ok", dataType: "NUMERIC", numericValue: v, higherIsBetter }];
    expect(gatePasses(bool(1), { score: "ok" }).passed).toBe(true);
    expect(gatePasses(bool(0), { score: "ok" }, "Check").reason).toBe('gate on "Check" score "ok": did not pass (value false)');
    expect(gatePasses(bool(0, false), { score: "ok" }).passed).toBe(true);
    expect(gatePasses(num(0.5), { score: "ok" }).passed).toBe(true);
    expect(gatePasses(num(0.5), { score: "ok", at: 0.7 }).passed).toBe(false);
    expect(gatePasses(num(0.2, false), { score: "ok" }).passed).toBe(true);
    expect(gatePasses(num(null), { score: "ok" }).reason).toMatch(/no value/);
    expect(gatePasses(num(1), { score: "other" }).reason).toMatch(/missing/);
    expect(gatePasses(null, { score: "ok" }).reason).toMatch(/has no run here/);
    expect(gatePasses([{ name: "ok", dataType: "CATEGORICAL", numericValue: null, higherIsBetter: true }], { score: "ok" }).passed).toBe(false);
  });

  it("applies a trace or session gate over the spans its dependency ran on: all, or any, and none ran fails", () => {
    const run = (spanId: string, v: number | null, dataType = "NUMERIC") => ({ spanName: `step ${spanId}`, spanId, scores: [{ name: "ok", dataType, numericValue: v, higherIsBetter: true }] });
    const runs = [run("a", 0.9), run("b", 0.2), run("c", 0.7)];
    expect(groupGatePasses(runs, { score: "ok", spans: "any" }, "Check")).toEqual({ passed: true });
    expect(groupGatePasses(runs, { score: "ok", spans: "all" }, "Check")).toEqual({ passed: false, reason: 'gate on "Check" score "ok" (all spans): span "step b" (b) did not pass (value 0.2 (passes at >= 0.5))' });
    expect(groupGatePasses([run("a", 0.9), run("c", 0.7)], { score: "ok", spans: "all" }, "Check").passed).toBe(true);
    // at 0.95 none passes: "any" names how many ran and the first failure.
    expect(groupGatePasses(runs, { score: "ok", at: 0.95, spans: "any" }, "Check")).toEqual({ passed: false, reason: 'gate on "Check" score "ok" (any span): none of the 3 spans it ran on passed (first: span "step a" (a) did not pass (value 0.9 (passes at >= 0.95)))' });
    expect(groupGatePasses([run("a", 1, "BOOLEAN"), run("b", null, "BOOLEAN")], { score: "ok", spans: "all" }, "Check").reason).toBe('gate on "Check" score "ok" (all spans): span "step b" (b) the score has no value');
    for (const spans of ["any", "all"] as const) expect(groupGatePasses([], { score: "ok", spans }, "Check").reason).toMatch(/"Check" has no run on any span/);
  });

  it("plans one job per evaluator and one barrier per matched dependency (a diamond needs no shared child)", () => {
    const kinds = new Map([["A", "external"], ["B", "code"], ["C", "code"], ["D", "code"]]);
    const jobs = planSpanJobs({ workspaceId: "w", spanId: "s", run: ["B", "C", "D"], waitFor: new Set(["A", "B", "C", "D"]), dependsOn: diamond, kinds });
    expect(jobs.plain).toEqual([]);
    expect(jobs.flows.map((f) => [f.jobId, f.children.map((c) => [c.jobId, c.delay])])).toEqual([
      ["s_B", [["s_B_A", BARRIER_DELAY_MS.external]]],
      ["s_C", [["s_C_A", BARRIER_DELAY_MS.external]]],
      ["s_D", [["s_D_B", BARRIER_DELAY_MS.code], ["s_D_C", BARRIER_DELAY_MS.code]]],
    ]);
    // A dependency that did not match gets no barrier; a re-run is tagged.
    const rerun = planSpanJobs({ workspaceId: "w", spanId: "s", run: ["B", "D"], waitFor: new Set(["B", "D"]), dependsOn: diamond, kinds, tag: "abc" });
    expect(rerun.plain.map((p) => p.jobId)).toEqual(["s_B_abc"]);
    expect(rerun.flows.map((f) => [f.jobId, f.children.map((c) => c.jobId)])).toEqual([["s_D_abc", ["s_D_abc_B"]]]);
  });
});
