// The cookbook's "Combine an LLM judge with a code check" recipe, verbatim, through the real
// queue (flows + barriers), worker and sandbox (docs/evaluation.md § Dependencies and gates): an external evaluator
// "Answer relevance" gets posted scores, a code evaluator "PII leak" runs, and the combining
// evaluator writes `overall` once both have finished.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLM_JUDGE_AND_CODE } from "../fixtures/cookbook-recipes.js";
import { chatSpan, dependencyHarness, storedIds, waitFor } from "./helpers.js";

/** Reads a score by a computed name that is not a declared dependency: DependencyNotDeclared (a literal name would be inferred). */
const UNDECLARED = `JUDGE = " ".join(["Answer", "relevance"])


def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="r", value=ctx.score(JUDGE, default=0.0))])
`;

let h: Awaited<ReturnType<typeof dependencyHarness>>;
beforeAll(async () => {
  h = await dependencyHarness();
});
afterAll(() => h.close());

async function overallOf(spanId: string, evaluatorId: string) {
  const run = await h.app.prisma.run.findUnique({ where: { spanId_evaluatorId: { spanId, evaluatorId } }, include: { scores: true } });
  return run ? { run, overall: run.scores.find((s) => s.name === "overall")?.value as number | null | undefined } : null;
}

describe('"Combine an LLM judge with a code check"', () => {
  it("waits for the posted relevance and the PII check, uses the default when relevance is missing, and runs again when it is posted again", async () => {
    const ws = await h.workspace("recipe");
    const { templates, evaluators, spans, dependencies } = h.app.services;
    const pii = await templates.createTemplateFromStarter(ws.principal, "pii-leak");
    const recipe = await templates.createTemplate(ws.principal, { name: "LLM judge + code", sourceCode: LLM_JUDGE_AND_CODE });
    const sneaky = await templates.createTemplate(ws.principal, { name: "Undeclared read", sourceCode: UNDECLARED });
    // The judge only scores spans marked for judging: on the others, relevance is missing.
    const judge = await evaluators.createEvaluator(ws.principal, { name: "Answer relevance", kind: "external", attributeEquals: { "app.judge": true } });
    const piiEv = await evaluators.createEvaluator(ws.principal, { name: "PII leak", templateId: pii.template.id });
    const combine = await evaluators.createEvaluator(ws.principal, {
      name: "Overall",
      templateId: recipe.template.id,
      dependencies: [{ evaluator: "Answer relevance" }, { evaluator: piiEv.id }],
    });
    const undeclared = await evaluators.createEvaluator(ws.principal, { name: "Undeclared", templateId: sneaky.template.id, dependencies: [{ evaluator: "PII leak" }] });

    const trace = `t-${ws.workspace.id.slice(0, 8)}`;
    const ingest = await spans.ingestSpans(ws.principal, [
      chatSpan(trace, "clean", "Your order ships on Monday.", { "app.judge": true }),
      chatSpan(trace, "leaky", "Write to jane.doe@example.com for a refund.", { "app.judge": true }),
      chatSpan(trace, "unjudged", "Your order ships on Monday."),
    ]);
    expect(ingest.rejected).toEqual([]);
    const [clean, leaky, unjudged] = storedIds(ingest);

    // Without relevance, the combiner runs on the unjudged span only (default 0.0 for relevance).
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: combine.id } }), 1);
    const missing = await overallOf(unjudged!, combine.id);
    expect(missing!.run.outcome).toBe("ok");
    expect(missing!.overall).toBeCloseTo((0.0 * 3 + 1 * 1) / 4, 10); // 0.25
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: piiEv.id } }), 3);
    await new Promise((r) => setTimeout(r, 500));
    expect(await overallOf(clean!, combine.id)).toBeNull(); // still waiting for the judge
    expect(await overallOf(leaky!, combine.id)).toBeNull();

    // Posting relevance releases the combiner on that span.
    const posted = await dependencies.submitScores(ws.principal, { spanId: clean!, evaluator: "Answer relevance", scores: [{ name: "relevance", value: 0.8 }] });
    expect(posted.replaced).toBe(false);
    await dependencies.submitScores(ws.principal, { spanId: leaky!, evaluator: judge.id, scores: [{ name: "relevance", value: 0.6, comment: "partly on topic" }] });
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: combine.id } }), 3);
    expect((await overallOf(clean!, combine.id))!.overall).toBeCloseTo((0.8 * 3 + 1 * 1) / 4, 10); // 0.85
    expect((await overallOf(leaky!, combine.id))!.overall).toBeCloseTo((0.6 * 3 + 0 * 1) / 4, 10); // 0.45: the reply leaks an e-mail

    // The combiner ran after both of its dependencies finished.
    const piiClean = await h.app.prisma.run.findUniqueOrThrow({ where: { spanId_evaluatorId: { spanId: clean!, evaluatorId: piiEv.id } } });
    const first = (await overallOf(clean!, combine.id))!.run;
    expect(first.startedAt!.getTime()).toBeGreaterThanOrEqual(piiClean.finishedAt!.getTime());
    expect(first.startedAt!.getTime()).toBeGreaterThanOrEqual(posted.run.finishedAt!.getTime());

    // Posting again replaces the scores and runs the combiner again with the new value.
    const again = await dependencies.submitScores(ws.principal, { spanId: clean!, evaluator: "Answer relevance", scores: [{ name: "relevance", value: 0.4 }] });
    expect(again.replaced).toBe(true);
    expect(again.rerun).toEqual([combine.id]);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await overallOf(clean!, combine.id))?.run.id === first.id) await new Promise((r) => setTimeout(r, 100));
    const second = (await overallOf(clean!, combine.id))!;
    expect(second.run.id).not.toBe(first.id);
    expect(second.overall).toBeCloseTo((0.4 * 3 + 1 * 1) / 4, 10); // 0.55
    expect(await h.app.prisma.run.count({ where: { spanId: clean!, evaluatorId: { in: [combine.id, judge.id] } } })).toBe(2);
    expect(await h.app.prisma.score.count({ where: { spanId: clean!, evaluatorId: judge.id } })).toBe(1);

    // Reading another evaluator's score without declaring it is an error that says so.
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: undeclared.id } }), 3);
    const sneakyRun = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: undeclared.id } });
    expect(sneakyRun.outcome).toBe("user_error");
    expect(sneakyRun.errorType).toBe("DependencyNotDeclared");
    expect(sneakyRun.errorMessage).toMatch(/declare 'Answer relevance' as a dependency/);

    // On the span, runs read in dependency order.
    const res = await ws.gql(`query($id: ID!) { span(id: $id) { runsInOrder { layer run { outcome evaluator { name } } } } }`, {
      id: Buffer.from(`Span:${clean}`).toString("base64"),
    });
    expect(res.errors).toBeUndefined();
    const order = res.data!.span.runsInOrder.map((r: { layer: number; run: { evaluator: { name: string } } }) => `${r.layer}:${r.run.evaluator.name}`);
    expect(order.slice(0, 2).sort()).toEqual(["0:Answer relevance", "0:PII leak"]);
    expect(order.slice(2).sort()).toEqual(["1:Overall", "1:Undeclared"]);
  });

  it("refuses scores for a code evaluator, for an unknown span, and bad scores", async () => {
    const ws = await h.workspace("recipe-refusals");
    const { templates, evaluators, spans, dependencies } = h.app.services;
    const pii = await templates.createTemplateFromStarter(ws.principal, "pii-leak");
    await evaluators.createEvaluator(ws.principal, { name: "PII leak", templateId: pii.template.id, enabled: false });
    await evaluators.createEvaluator(ws.principal, { name: "Judge", kind: "external" });
    const [span] = storedIds(await spans.ingestSpans(ws.principal, [chatSpan("t", "s", "hi")]));
    await expect(dependencies.submitScores(ws.principal, { spanId: span!, evaluator: "PII leak", scores: [{ name: "x", value: 1 }] })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "evaluator", message: expect.stringMatching(/only external evaluators/) }],
    });
    await expect(dependencies.submitScores(ws.principal, { spanId: "00000000-0000-0000-0000-000000000001", evaluator: "Judge", scores: [] })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      dependencies.submitScores(ws.principal, { spanId: span!, evaluator: "Judge", scores: [{ name: "a", value: "x", dataType: "NUMERIC" }, { name: "a", value: 1 }] }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        { path: "scores[0].value", message: "does not fit the data type NUMERIC" },
        { path: "scores[1].name", message: 'two scores are named "a"' },
      ],
    });
  });
});
