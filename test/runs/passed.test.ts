// The "passed" rule lives in src/modules/dependencies/passed.ts as a TypeScript predicate and a SQL
// expression; both must agree with each other and with python-lib's combine.passed (the rule user
// code sees) on every kind of score.
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { passedSql, passedWhere, scorePasses } from "../../src/modules/dependencies/passed.js";
import { gatePasses } from "../../src/modules/dependencies/graph.js";
import { evaluationEvents } from "../../src/modules/otlp/score-events.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

/** [dataType, value, higherIsBetter, expected passes at 0.5] — worked out by hand from the rule. */
const CASES: [string, boolean | number | null, boolean, boolean][] = [
  ["BOOLEAN", true, true, true],
  ["BOOLEAN", false, true, false],
  ["BOOLEAN", true, false, false],
  ["BOOLEAN", false, false, true],
  ["BOOLEAN", null, true, false],
  ["NUMERIC", 0.5, true, true],
  ["NUMERIC", 0.49, true, false],
  ["NUMERIC", 0.5, false, false],
  ["NUMERIC", 0.1, false, true],
  ["NUMERIC", null, true, false],
  ["NUMERIC", 3, true, true],
];

const numeric = (v: boolean | number | null) => (v === null ? null : typeof v === "boolean" ? (v ? 1 : 0) : v);
const app = createTestApp();
afterAll(() => app.close());

describe("the passed rule (one home: modules/dependencies/passed.ts)", () => {
  it("TypeScript, the gate and SQL agree with the hand-worked table", async () => {
    for (const [dataType, value, higherIsBetter, expected] of CASES) {
      const score = { name: "s", dataType, numericValue: numeric(value), higherIsBetter };
      expect(scorePasses(score)).toBe(expected);
      expect(gatePasses([score], { score: "s" }).passed).toBe(expected);
    }
    const rows = CASES.map(([d, v, h], i) => `(${i}, '${d}', ${numeric(v) ?? "NULL::float8"}, ${h})`).join(", ");
    const sql = await app.prisma.$queryRawUnsafe<{ i: number; passed: boolean }[]>(
      `SELECT i, (${passedSql("s")}) AS passed FROM (VALUES ${rows}) AS s(i, "dataType", "numericValue", "higherIsBetter") ORDER BY i`,
    );
    expect(sql.map((r) => r.passed)).toEqual(CASES.map((c) => c[3]));
    expect(scorePasses({ dataType: "CATEGORICAL", numericValue: null, higherIsBetter: true })).toBeNull();
  });

  it("the Prisma where finds the same scores among stored ones, and the OTLP label of a BOOLEAN agrees", async () => {
    // Each case as one posted score (named by its index) of one run, stored by the real writer.
    const ws = await createTestWorkspace(app, "passed");
    const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
    const judge = await app.services.evaluators.createEvaluator(principal, { name: "Judge", kind: "external" });
    const [span] = (await app.services.spans.ingestSpans(principal, [{ traceId: "t-passed", spanId: "s-passed", name: "chat", kind: "chat", input: "q", output: "a" }])).spans;
    const scores = CASES.map(([dataType, value, higherIsBetter], i) => ({ name: String(i), value, dataType, higherIsBetter }));
    const { run } = await app.services.dependencies.submitScores(principal, { spanId: span!.id, evaluator: judge.id, scores });
    const named = async (passed: boolean) =>
      (await app.prisma.score.findMany({ where: { runId: run.id, ...passedWhere(passed) }, select: { name: true } })).map((s) => Number(s.name)).sort((a, b) => a - b);
    const indices = (passed: boolean) => CASES.flatMap((c, i) => (c[3] === passed ? [i] : []));
    expect(await named(true)).toEqual(indices(true));
    expect(await named(false)).toEqual(indices(false));

    const stored = await app.prisma.score.findMany({ where: { runId: run.id }, orderBy: { position: "asc" } });
    const events = evaluationEvents({ id: run.id, outcome: "ok", errorType: null, finishedAt: null, evaluator: { name: "Judge" }, span: null, scores: stored });
    CASES.forEach(([dataType, value, , expected], i) => {
      if (dataType === "BOOLEAN" && value !== null) expect(events[i]!.attributes["gen_ai.evaluation.score.label"]).toBe(expected ? "pass" : "fail");
    });
  });

  it("python-lib's combine.passed gives the same answers", async () => {
    const script = `import json, sys
sys.path.insert(0, sys.argv[1])
from oodle_eval.v1 import Score, combine
print(json.dumps([combine.passed(Score(name="s", value=v, data_type=d, higher_is_better=h)) for d, v, h in json.load(sys.stdin)]))`;
    const result = await execa("/usr/bin/python3.11", ["-I", "-c", script, join(import.meta.dirname, "../../python-lib")], { input: JSON.stringify(CASES.map(([d, v, h]) => [d, v, h])) });
    expect(JSON.parse(String(result.stdout))).toEqual(CASES.map((c) => c[3]));
  });
});
