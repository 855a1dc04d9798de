// Waiting is visible (docs/evaluation.md § Dependencies and gates). The cookbook's "Combine an LLM judge" recipe waits on a span
// for an external judge that never posts: the span says what it waits for, since when and when the
// safety net expires; explainMatch says so instead of "matched"; Evaluator.stats counts it as
// waiting. Posting the judge's scores ends the wait. Through GraphQL, the queue (flows, barriers) and the sandbox.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BARRIER_DELAY_MS } from "../../src/modules/dependencies/barriers.js";
import { LLM_JUDGE_AND_CODE } from "../fixtures/cookbook-recipes.js";
import { chatSpan, dependencyHarness, storedIds, waitFor } from "./helpers.js";

let h: Awaited<ReturnType<typeof dependencyHarness>>;
beforeAll(async () => {
  h = await dependencyHarness();
});
afterAll(() => h.close());

const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");

describe("a dependent waiting for an external evaluator", () => {
  it("shows what it waits for, since when and until when: on the span, in explainMatch and in stats", async () => {
    const ws = await h.workspace("waiting");
    const { templates, evaluators, spans, dependencies } = h.app.services;
    const pii = await templates.createTemplateFromStarter(ws.principal, "pii-leak");
    const recipe = await templates.createTemplate(ws.principal, { name: "LLM judge + code", sourceCode: LLM_JUDGE_AND_CODE });
    await evaluators.createEvaluator(ws.principal, { name: "Answer relevance", kind: "external" });
    const piiEv = await evaluators.createEvaluator(ws.principal, { name: "PII leak", templateId: pii.template.id });
    const overall = await evaluators.createEvaluator(ws.principal, { name: "Overall", templateId: recipe.template.id });
    const before = Date.now();
    const [spanId] = storedIds(await spans.ingestSpans(ws.principal, [chatSpan("wait", "s1", "Your order ships on Monday.")]));
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: piiEv.id } }), 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(await h.app.prisma.run.count({ where: { evaluatorId: overall.id } })).toBe(0);
    const owed = await h.app.prisma.owedEvaluation.findUniqueOrThrow({ where: { targetType_targetId_evaluatorId: { targetType: "span", targetId: spanId!, evaluatorId: overall.id } } });
    expect(owed.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    const since = owed.createdAt.toISOString();
    const expires = new Date(owed.createdAt.getTime() + BARRIER_DELAY_MS.external).toISOString(); // 7 days later

    const res = await ws.gql(
      `query($span: ID!, $ev: ID!) {
        span(id: $span) { waiting { evaluatorName since expiresAt waitingFor { name kind expiresAt } } }
        explainMatch(spanId: $span, evaluatorId: $ev) { matched detail waiting { evaluatorName since } }
        node(id: $ev) { ... on Evaluator { stats { spansMatched runs pending waiting waitingSince nextWaitExpiresAt } } }
      }`,
      { span: gid("Span", spanId!), ev: gid("Evaluator", overall.id) },
    );
    expect(res.errors).toBeUndefined();
    // "PII leak" has run: only the judge is waited for.
    expect(res.data!.span.waiting).toEqual([{ evaluatorName: "Overall", since, expiresAt: expires, waitingFor: [{ name: "Answer relevance", kind: "external", expiresAt: expires }] }]);
    expect(res.data!.explainMatch).toEqual({
      matched: true,
      detail: `matched; waiting for "Answer relevance" (external) since ${since}; the safety net expires at ${expires}, then it runs with what there is`,
      waiting: { evaluatorName: "Overall", since },
    });
    expect(res.data!.node.stats).toEqual({ spansMatched: 1, runs: 0, pending: 1, waiting: 1, waitingSince: since, nextWaitExpiresAt: expires });

    // Once the judge posts, the dependent runs and nothing waits any more.
    await dependencies.submitScores(ws.principal, { spanId: spanId!, evaluator: "Answer relevance", scores: [{ name: "relevance", value: 0.8 }] });
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: overall.id } }), 1);
    const after = await ws.gql(
      `query($span: ID!, $ev: ID!) { span(id: $span) { waiting { evaluatorName } } explainMatch(spanId: $span, evaluatorId: $ev) { detail waiting { since } } node(id: $ev) { ... on Evaluator { stats { runs pending waiting waitingSince } } } }`,
      { span: gid("Span", spanId!), ev: gid("Evaluator", overall.id) },
    );
    expect(after.data!.span.waiting).toEqual([]);
    expect(after.data!.explainMatch).toEqual({ detail: "matched", waiting: null });
    expect(after.data!.node.stats).toEqual({ runs: 1, pending: 0, waiting: 0, waitingSince: null });
  });
});
