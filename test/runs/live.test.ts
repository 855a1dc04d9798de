// Live spans → runs and scores through the real API, BullMQ queue, worker and sandbox
// (docs/evaluation.md § Runs): spans built from llmfao and xstest items, scored by the keyword-check starter, the
// cookbook's "All checks pass" and "Gate on a check" recipes, and an evaluator that fails on one span.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_CHECKS_PASS, GATE_ON_A_CHECK } from "../fixtures/cookbook-recipes.js";
import { itemDocument, itemToSpan, LIVE_ITEMS, liveHarness, referenceScores, waitFor } from "./helpers.js";

/** Fails with IndexError on an empty reply, from a function of its own (a user traceback of two frames). */
const FIRST_WORD = `from oodle_eval.v1 import text


def first_word(reply):
    return reply.split()[0]


def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="first_word", value=first_word(text.reply(ctx)))])
`;

const KEYWORDS = { required: ["sorry", "cannot", "can't"], mode: "any" };

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness();
});
afterAll(() => h.close());

const INGEST = `mutation($spans: [JSON!]!) { ingestSpans(input: { spans: $spans }) {
  spans { index id traceId spanId created } rejected { index issues { path message } } evaluationsQueued } }`;

describe("live spans scored through the queue and the sandbox", () => {
  it("scores each span with each evaluator, once, and the results read back through the API", async () => {
    const ws = await h.workspace("live");
    const { templates, evaluators } = h.app.services;
    const keyword = await templates.createTemplateFromStarter(ws.principal, "keyword-check");
    const allPass = await templates.createTemplate(ws.principal, { name: "All checks pass", sourceCode: ALL_CHECKS_PASS });
    const gate = await templates.createTemplate(ws.principal, { name: "Gate on a check", sourceCode: GATE_ON_A_CHECK });
    const firstWord = await templates.createTemplate(ws.principal, { name: "First word", sourceCode: FIRST_WORD });
    const ev = {
      keywords: await evaluators.createEvaluator(ws.principal, { name: "Refusal words", templateId: keyword.template.id, params: KEYWORDS }),
      safe: await evaluators.createEvaluator(ws.principal, { name: "Safe reply", templateId: allPass.template.id }),
      json: await evaluators.createEvaluator(ws.principal, { name: "JSON answer", templateId: gate.template.id }),
      first: await evaluators.createEvaluator(ws.principal, { name: "First word", templateId: firstWord.template.id }),
      tools: await evaluators.createEvaluator(ws.principal, { name: "Tool spans", templateId: keyword.template.id, spanKind: "tool" }),
      off: await evaluators.createEvaluator(ws.principal, { name: "Disabled", templateId: keyword.template.id, enabled: false }),
    };

    const traceId = `trace-${ws.workspace.id.slice(0, 8)}`;
    const spans = LIVE_ITEMS.map((item, i) => itemToSpan(item, i, traceId));
    const toolSpan = { traceId, spanId: "tool-1", parentSpanId: spans[0]!.spanId, name: "search_orders", kind: "tool", input: { q: "x" }, output: "found" };
    const bad = { traceId, spanId: "bad", kind: "llm" };
    const res = await ws.gql(INGEST, { spans: [...spans, toolSpan, bad] });
    expect(res.errors).toBeUndefined();
    const ingest = res.data!.ingestSpans;
    expect(ingest.rejected).toEqual([{ index: 21, issues: [{ path: "name", message: "is required" }, { path: "kind", message: "must be one of chat, tool, agent, retrieval, other" }] }]);
    expect(ingest.spans).toHaveLength(21);
    expect(ingest.spans.every((s: { created: boolean }) => s.created)).toBe(true);
    expect(ingest.evaluationsQueued).toBe(20 * 4 + 1);

    const spanIds: string[] = ingest.spans.map((s: { id: string }) => Buffer.from(s.id, "base64").toString().split(":")[1]);
    await waitFor(() => h.app.prisma.run.count({ where: { spanId: { in: spanIds } } }), 81);

    // Every score equals what python-lib computes on the same item outside the sandbox.
    const cases = LIVE_ITEMS.flatMap((item) => [
      { source: keyword.latest.sourceCode, document: itemDocument(item), params: { required: KEYWORDS.required, forbidden: [], mode: "any", case_sensitive: false } },
      { source: ALL_CHECKS_PASS, document: itemDocument(item), params: {} },
      { source: GATE_ON_A_CHECK, document: itemDocument(item), params: {} },
      { source: FIRST_WORD, document: itemDocument(item), params: {} },
    ]);
    const reference = await referenceScores(cases);
    const order = [ev.keywords, ev.safe, ev.json, ev.first];
    const runs = await h.app.prisma.run.findMany({ where: { spanId: { in: spanIds.slice(0, 20) } }, include: { scores: { orderBy: { position: "asc" } } } });
    expect(runs).toHaveLength(80);
    LIVE_ITEMS.forEach((item, i) => {
      order.forEach((evaluator, j) => {
        const run = runs.find((r) => r.spanId === spanIds[i] && r.evaluatorId === evaluator.id)!;
        const ref = reference[i * 4 + j]!;
        const label = `${item.id} × ${evaluator.name}`;
        expect(run.attempts, label).toBe(1);
        if (!ref.ok) {
          expect(run.outcome, label).toBe("user_error");
          expect(run.errorType, label).toBe(ref.type);
          return;
        }
        expect(run.outcome, `${label}: ${run.errorMessage}`).toBe("ok");
        expect(
          run.scores.map((s) => ({ name: s.name, value: s.value, data_type: s.dataType, higher_is_better: s.higherIsBetter, comment: s.comment, metadata: s.metadata })),
          label,
        ).toEqual(ref.scores);
      });
    });

    // Hand-derived values.
    const score = (i: number, evaluatorId: string, name: string) =>
      runs.find((r) => r.spanId === spanIds[i] && r.evaluatorId === evaluatorId)!.scores.find((s) => s.name === name);
    LIVE_ITEMS.forEach((item, i) => {
      const reply = (item.output ?? "").toLowerCase();
      expect(score(i, ev.keywords.id, "keywords_ok")?.value, item.id).toBe(KEYWORDS.required.some((k) => reply.includes(k)));
      expect(score(i, ev.keywords.id, "keywords_ok")?.numericValue, item.id).toBe(KEYWORDS.required.some((k) => reply.includes(k)) ? 1 : 0);
    });
    // The first three items are planets-json replies that parse as JSON arrays: valid JSON, not an object with the keys, no sources.
    for (const i of [0, 1, 2]) {
      expect(JSON.parse(LIVE_ITEMS[i]!.output!)).toBeInstanceOf(Array);
      const run = runs.find((r) => r.spanId === spanIds[i] && r.evaluatorId === ev.json.id)!;
      expect(run.scores.map((s) => [s.name, s.value])).toEqual([["is_json", true], ["has_required_keys", false], ["has_sources", false]]);
    }
    // The three after them do not parse: the gate returns the JSON check alone.
    for (const i of [3, 4, 5]) {
      const run = runs.find((r) => r.spanId === spanIds[i] && r.evaluatorId === ev.json.id)!;
      expect(run.scores.map((s) => s.name)).toEqual(["is_json", "has_required_keys"]);
      expect(run.scores[0]!.value).toBe(false);
    }
    // The empty reply (llmfao-162): the failing evaluator leaves a readable run; the others scored it.
    const empty = LIVE_ITEMS.findIndex((item) => item.id === "llmfao-162");
    const failed = runs.find((r) => r.spanId === spanIds[empty] && r.evaluatorId === ev.first.id)!;
    expect(failed).toMatchObject({ outcome: "user_error", errorType: "IndexError", errorMessage: "list index out of range", attempts: 1 });
    expect(failed.errorTraceback).toContain('File "<evaluator>", line 9, in evaluate');
    expect(failed.errorTraceback).toContain('File "<evaluator>", line 5, in first_word');
    expect(failed.errorTraceback).not.toContain("runner.py");
    for (const other of [ev.keywords, ev.safe, ev.json]) {
      expect(runs.find((r) => r.spanId === spanIds[empty] && r.evaluatorId === other.id)!.outcome).toBe("ok");
    }
    expect(runs.filter((r) => r.evaluatorId === ev.first.id && r.outcome === "ok")).toHaveLength(19);
    const okRun = runs.find((r) => r.evaluatorId === ev.safe.id)!;
    expect(okRun).toMatchObject({ templateVersionId: allPass.latest.id, params: {}, libraryVersions: {} });
    expect(okRun.startedAt!.getTime()).toBeLessThanOrEqual(okRun.finishedAt!.getTime());
    expect(okRun.durationMs).toBeGreaterThan(0);
    const kwRun = runs.find((r) => r.evaluatorId === ev.keywords.id)!;
    expect(kwRun.params).toEqual({ required: KEYWORDS.required, forbidden: [], mode: "any", case_sensitive: false });

    // Reading: filters, runs by outcome, stats, explainMatch, trace.
    const refusing = LIVE_ITEMS.filter((item) => KEYWORDS.required.some((k) => (item.output ?? "").toLowerCase().includes(k))).length;
    const filtered = await ws.gql(`query($f: SpanFilter) { spans(first: 50, filter: $f) { edges { node { spanId } } } }`, {
      f: { evaluatorId: Buffer.from(`Evaluator:${ev.keywords.id}`).toString("base64"), scoreName: "keywords_ok", scoreValue: true },
    });
    expect(filtered.errors).toBeUndefined();
    expect(filtered.data!.spans.edges).toHaveLength(refusing);
    // keywords_ok is also written by "Safe reply" (its forbidden-words check) and by "Tool spans" on the tool span
    // (no keywords given: it passes): the numeric filter sees all three.
    const numeric = await ws.gql(`{ spans(first: 50, filter: { scoreName: "keywords_ok", scoreMin: 1 }) { edges { node { spanId } } } }`);
    const safeWords = runs.filter((r) => r.evaluatorId === ev.safe.id && r.scores.some((s) => s.name === "keywords_ok" && s.value === true)).map((r) => r.spanId);
    const refusingIds = LIVE_ITEMS.map((item, i) => (KEYWORDS.required.some((k) => (item.output ?? "").toLowerCase().includes(k)) ? spanIds[i] : null));
    expect(numeric.data!.spans.edges).toHaveLength(new Set([...safeWords, ...refusingIds.filter(Boolean), spanIds[20]]).size);
    const failing = await ws.gql(`{ runs(first: 10, outcome: user_error) { edges { node {
      outcome evaluator { name } span { spanId conversation } attempts error { type message traceback } } } } }`);
    expect(failing.errors).toBeUndefined();
    expect(failing.data!.runs.edges).toHaveLength(1);
    expect(failing.data!.runs.edges[0].node).toMatchObject({
      outcome: "user_error",
      evaluator: { name: "First word" },
      span: { spanId: "llmfao-162" },
      attempts: 1,
      error: { type: "IndexError", message: "list index out of range" },
    });
    const stats = await ws.gql(`{ evaluators(first: 10) { edges { node { name stats {
      spansMatched skippedDisabled skippedKind skippedName skippedAttributes skippedSampling runs pending lastRunAt lastMatchedAt
      runsByOutcome { outcome count } } } } } }`);
    expect(stats.errors).toBeUndefined();
    const byName = Object.fromEntries(stats.data!.evaluators.edges.map((e: any) => [e.node.name, e.node.stats]));
    expect(byName["Safe reply"]).toMatchObject({ spansMatched: 20, skippedKind: 1, skippedDisabled: 0, runs: 20, pending: 0 });
    expect(byName["First word"].runsByOutcome.filter((o: any) => o.count > 0)).toEqual([{ outcome: "ok", count: 19 }, { outcome: "user_error", count: 1 }]);
    expect(byName["Tool spans"]).toMatchObject({ spansMatched: 1, skippedKind: 20, runs: 1 });
    expect(byName["Disabled"]).toMatchObject({ spansMatched: 0, skippedDisabled: 21, runs: 0, lastRunAt: null, lastMatchedAt: null });
    const why = await ws.gql(`query($s: ID!, $e: ID!) { explainMatch(spanId: $s, evaluatorId: $e) { matched reason detail ruleChangedSinceIngest } }`, {
      s: ingest.spans[20].id,
      e: Buffer.from(`Evaluator:${ev.safe.id}`).toString("base64"),
    });
    expect(why.data!.explainMatch).toEqual({ matched: false, reason: "kind", detail: 'the span\'s kind is "tool"; the evaluator runs on "chat" spans', ruleChangedSinceIngest: false });
    const trace = await ws.gql(`query($t: String!) { trace(traceId: $t) { spans { spanId kind scores { name } runs { outcome } } } }`, { t: traceId });
    expect(trace.data!.trace.spans).toHaveLength(21);
    expect(trace.data!.trace.spans[0].spanId).toBe(spans[0]!.spanId);

    // Sending the batch again stores nothing new and runs nothing twice.
    const again = await ws.gql(INGEST, { spans: [...spans, toolSpan] });
    expect(again.data!.ingestSpans.spans.every((s: { created: boolean }) => !s.created)).toBe(true);
    expect(again.data!.ingestSpans.spans.map((s: { id: string }) => s.id)).toEqual(ingest.spans.map((s: { id: string }) => s.id));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await h.app.prisma.run.count({ where: { spanId: { in: spanIds } } })).toBe(81);
    expect(await h.app.prisma.score.count({ where: { spanId: { in: spanIds }, evaluatorId: ev.safe.id } })).toBe(20 * 4);
    const after = await h.app.services.runs.evaluatorStats(ws.workspace.id, ev.safe.id);
    expect(after).toMatchObject({ spansMatched: 20, skippedKind: 1 });
  });

  it("refuses a batch over 1,000 spans with LIMIT_EXCEEDED and stores nothing", async () => {
    const ws = await h.workspace("limit");
    const spans = Array.from({ length: 1001 }, (_, i) => ({ traceId: "t", spanId: `s${i}`, name: "n" }));
    const res = await ws.gql(INGEST, { spans });
    expect(res.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
    expect(await h.app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
  });

  it("keeps workspaces apart: another workspace's span is NOT_FOUND and its evaluators never run on it", async () => {
    const a = await h.workspace("tenant-a");
    const b = await h.workspace("tenant-b");
    const keyword = await h.app.services.templates.createTemplateFromStarter(b.principal, "keyword-check");
    await h.app.services.evaluators.createEvaluator(b.principal, { name: "B only", templateId: keyword.template.id });
    const res = await a.gql(INGEST, { spans: [{ traceId: "t", spanId: "s", name: "chat", kind: "chat", input: "hi", output: "hello" }] });
    expect(res.data!.ingestSpans.evaluationsQueued).toBe(0);
    const id = res.data!.ingestSpans.spans[0].id;
    const fromB = await b.gql(`query($id: ID!) { span(id: $id) { spanId } }`, { id });
    expect(fromB.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const node = await b.gql(`query($id: ID!) { node(id: $id) { id } }`, { id });
    expect(node.data?.node ?? null).toBeNull();
  });
});
