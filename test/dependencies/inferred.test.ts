// Dependencies come from the code (docs/evaluation.md § Dependencies and gates). A literal ctx.score("Name", ...) declares
// that dependency: found with `ast` at save (TemplateVersion.scoreReads), shown on the evaluator
// as `inferred`, and used for ordering, so the cookbook's "Combine an LLM judge with a code
// check" recipe runs verbatim (no `dependencies` given) through GraphQL, the queue and the sandbox.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLM_JUDGE_AND_CODE } from "../fixtures/cookbook-recipes.js";
import { chatSpan, dependencyHarness, storedIds, waitFor } from "./helpers.js";

let h: Awaited<ReturnType<typeof dependencyHarness>>;
beforeAll(async () => {
  h = await dependencyHarness();
});
afterAll(() => h.close());

const CREATE_TEMPLATE = `mutation($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id latestVersion { scoreReads } } } }`;
const CREATE_EVALUATOR = `mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) {
  evaluator { id name dependencies { inferred gate { score } dependsOn { name } } } } }`;

describe("dependencies inferred from ctx.score calls", () => {
  it("runs the combine-a-judge recipe verbatim: inferred at save, waits for the judge and the PII check", async () => {
    const ws = await h.workspace("inferred");
    const t = await ws.gql(CREATE_TEMPLATE, { input: { name: "LLM judge + code", sourceCode: LLM_JUDGE_AND_CODE } });
    expect(t.errors).toBeUndefined();
    expect(t.data!.createTemplate.template.latestVersion.scoreReads).toEqual(["Answer relevance", "PII leak"]);

    // Saving the combiner before its dependencies exist is refused, naming the missing evaluator.
    const early = await ws.gql(CREATE_EVALUATOR, { input: { name: "Overall", templateId: t.data!.createTemplate.template.id } });
    expect(early.errors![0]!.extensions!.code).toBe("BAD_USER_INPUT");
    expect(early.errors![0]!.extensions!.issues[0].message).toMatch(/reads ctx\.score\("Answer relevance"\), but no live evaluator is named "Answer relevance"/);

    const pii = await h.app.services.templates.createTemplateFromStarter(ws.principal, "pii-leak");
    await ws.gql(CREATE_EVALUATOR, { input: { name: "Answer relevance", kind: "external" } });
    const piiEv = await ws.gql(CREATE_EVALUATOR, { input: { name: "PII leak", templateId: Buffer.from(`Template:${pii.template.id}`).toString("base64") } });
    expect(piiEv.errors).toBeUndefined();
    // A declared dependency keeps its gate; the other read is inferred beside it.
    const combine = await ws.gql(CREATE_EVALUATOR, {
      input: { name: "Overall", templateId: t.data!.createTemplate.template.id, dependencies: [{ evaluator: "PII leak", gate: null }] },
    });
    expect(combine.errors).toBeUndefined();
    expect(combine.data!.createEvaluator.evaluator.dependencies).toEqual([
      { inferred: false, gate: null, dependsOn: { name: "PII leak" } },
      { inferred: true, gate: null, dependsOn: { name: "Answer relevance" } },
    ]);
    // Without any declared dependency, both are inferred.
    const plain = await ws.gql(CREATE_EVALUATOR, { input: { name: "Overall 2", templateId: t.data!.createTemplate.template.id } });
    expect(plain.data!.createEvaluator.evaluator.dependencies.map((d: { inferred: boolean; dependsOn: { name: string } }) => `${d.dependsOn.name}:${d.inferred}`)).toEqual([
      "Answer relevance:true",
      "PII leak:true",
    ]);
    const overallId = Buffer.from(plain.data!.createEvaluator.evaluator.id, "base64").toString().split(":")[1]!;

    const trace = `t-${ws.workspace.id.slice(0, 8)}`;
    const [clean, leaky] = storedIds(
      await h.app.services.spans.ingestSpans(ws.principal, [chatSpan(trace, "clean", "Your order ships on Monday."), chatSpan(trace, "leaky", "Write to jane.doe@example.com.")]),
    );
    await waitFor(() => h.app.prisma.run.count({ where: { spanId: { in: [clean!, leaky!] }, evaluator: { name: "PII leak" } } }), 2);
    await new Promise((r) => setTimeout(r, 500));
    expect(await h.app.prisma.run.count({ where: { evaluatorId: overallId } })).toBe(0); // waits for the judge
    for (const [spanId, value] of [[clean!, 0.8], [leaky!, 0.6]] as const) {
      const posted = await ws.gql(`mutation($input: SubmitScoresInput!) { submitScores(input: $input) { replaced } }`, {
        input: { spanId: Buffer.from(`Span:${spanId}`).toString("base64"), evaluator: "Answer relevance", scores: [{ name: "relevance", value }] },
      });
      expect(posted.errors).toBeUndefined();
    }
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: overallId } }), 2);
    const overall = async (spanId: string) =>
      (await h.app.prisma.run.findUniqueOrThrow({ where: { spanId_evaluatorId: { spanId, evaluatorId: overallId } }, include: { scores: true } })).scores[0]!.value;
    expect(await overall(clean!)).toBeCloseTo((0.8 * 3 + 1) / 4, 10);
    expect(await overall(leaky!)).toBeCloseTo((0.6 * 3 + 0) / 4, 10); // the e-mail address is a PII leak

    // Item 2: tryCode on the stored span reads the scores stored there, as the live run did.
    const TRY = `mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome scores { name value } scoreFallbacks { evaluator score line } } }`;
    const templateId = t.data!.createTemplate.template.id;
    for (const spanId of [clean!, leaky!]) {
      const draft = await ws.gql(TRY, { input: { templateId, spanId: Buffer.from(`Span:${spanId}`).toString("base64") } });
      expect(draft.errors).toBeUndefined();
      expect(draft.data!.tryCode.outcome).toBe("ok");
      expect(draft.data!.tryCode.scores[0].value).toBeCloseTo((await overall(spanId)) as number, 10);
      expect(draft.data!.tryCode.scoreFallbacks).toEqual([]);
    }
    // On an inline span nothing is stored: it says which reads fell back to their defaults.
    const inline = await ws.gql(TRY, { input: { sourceCode: LLM_JUDGE_AND_CODE, span: { input: [{ role: "user", content: "hi" }], output: "Write to jane.doe@example.com." } } });
    expect(inline.data!.tryCode.scores[0].value).toBeCloseTo(0.25, 10);
    expect(inline.data!.tryCode.scoreFallbacks).toEqual([
      { evaluator: "Answer relevance", score: null, line: 5 },
      { evaluator: "PII leak", score: "pii_free", line: 6 },
    ]);
    const given = await ws.gql(TRY, { input: { sourceCode: LLM_JUDGE_AND_CODE, document: { output: "x", scores: { "PII leak": { pii_free: false } } } } });
    expect(given.data!.tryCode.scores[0].value).toBeCloseTo(0, 10);
    expect(given.data!.tryCode.scoreFallbacks).toEqual([{ evaluator: "Answer relevance", score: null, line: 5 }]);
  });

  it("follows the template: a new version's reads replace the inferred edges, an unknown one refuses the update", async () => {
    const ws = await h.workspace("inferred-update");
    const { templates, evaluators } = h.app.services;
    await evaluators.createEvaluator(ws.principal, { name: "Judge A", kind: "external" });
    const tpl = await templates.createTemplate(ws.principal, { name: "Reads A", sourceCode: 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="a", value=ctx.score("Judge A", default=0))])\n' });
    const ev = await evaluators.createEvaluator(ws.principal, { name: "Reader", templateId: tpl.template.id });
    const edges = () => h.app.prisma.evaluatorDependency.findMany({ where: { evaluatorId: ev.id }, include: { dependsOn: { select: { name: true } } } });
    expect((await edges()).map((e) => e.dependsOn.name)).toEqual(["Judge A"]);
    await expect(
      templates.updateTemplate(ws.principal, tpl.template.id, { sourceCode: 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="a", value=ctx.score("Judge B", default=0))])\n' }),
    ).rejects.toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "sourceCode", message: expect.stringMatching(/evaluator "Reader": the code reads ctx\.score\("Judge B"\)/) }] });
    await evaluators.createEvaluator(ws.principal, { name: "Judge B", kind: "external" });
    await templates.updateTemplate(ws.principal, tpl.template.id, { sourceCode: 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="a", value=ctx.score("Judge B", default=0))])\n' });
    expect((await edges()).map((e) => `${e.dependsOn.name}:${e.inferred}`)).toEqual(["Judge B:true"]);
    // Reading itself is refused.
    const self = await templates.createTemplate(ws.principal, { name: "Reads self", sourceCode: 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="a", value=ctx.score("Selfie", default=0))])\n' });
    await expect(evaluators.createEvaluator(ws.principal, { name: "Selfie", templateId: self.template.id })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "templateId", message: expect.stringMatching(/cannot read its own scores/) }],
    });
  });
});
