// try_code (docs/evaluation.md § tryCode): each cookbook recipe verbatim on an inline span; the three ways to name the
// settings (paramSpecs, starterId, templateId) with their refusals; samples; nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as R from "../fixtures/cookbook-recipes.js";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { graphqlClient } from "../helpers.js";
import { liveHarness, referenceScores } from "./helpers.js";

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ startWorker: false });
});
afterAll(() => h.close());

const TRY = `mutation($input: TryCodeInput!) { tryCode(input: $input) {
  outcome scores { name value dataType higherIsBetter comment metadata numericValue } stdout stderr error { type message traceback }
  durationMs params templateVersion libraryVersions } }`;

/** A support chat span: a refund conversation with tool calls, a reference answer and a retrieved context. */
const SPAN = {
  traceId: "trace-try",
  spanId: "span-try",
  name: "support.reply",
  kind: "chat",
  input: [
    { role: "system", content: "You are a support agent for Acme. Answer from the policy." },
    { role: "user", content: "Can I get a refund for order 4471? I paid 120 dollars." },
  ],
  output: {
    role: "assistant",
    content: "Yes. Order 4471 qualifies for a refund of 120 dollars within 30 days [1]. I have issued the refund.",
    tool_calls: [
      { id: "c1", type: "function", function: { name: "search_orders", arguments: '{"order_id": 4471}' } },
      { id: "c2", type: "function", function: { name: "issue_refund", arguments: '{"order_id": 4471, "amount": 120}' } },
    ],
  },
  attributes: {
    "app.expected_answer": "Yes. Order 4471 qualifies for a refund of 120 dollars within 30 days [1]. I have issued the refund.",
    context: "Refund policy: orders qualify for a refund within 30 days. Order 4471 was paid 120 dollars.",
    "gen_ai.request.model": "gpt-4o",
  },
};
/** The same sample as the document python-lib reads (the reference). */
const DOCUMENT = { input: SPAN.input, output: SPAN.output, attributes: SPAN.attributes, metadata: {}, trace: { spans: [{ name: SPAN.name, kind: "chat", input: SPAN.input, output: SPAN.output, attributes: SPAN.attributes }] } };

const TRAJECTORY_SPECS = [
  { name: "expected", type: "json", default: [] },
  { name: "mode", type: "enum", options: ["strict", "unordered", "subset", "superset"], default: "strict" },
];

describe("every cookbook recipe runs verbatim on an inline span", () => {
  const recipes: [string, string, Record<string, unknown>][] = [
    ["Built-in check plus your own score", R.BUILTIN_PLUS_OWN, {}],
    ["Built-in check plus your own score (Opik)", R.BUILTIN_PLUS_OWN_OPIK, {}],
    ["Weighted quality score", R.WEIGHTED_QUALITY, {}],
    ["Gate on a check", R.GATE_ON_A_CHECK, {}],
    ["All checks pass", R.ALL_CHECKS_PASS, {}],
    ["Tool trajectory", R.TOOL_TRAJECTORY, {}],
    ["Tool trajectory with settings", R.TOOL_TRAJECTORY_SETTINGS, { expected: ["search_orders", "issue_refund"], mode: "strict" }],
    ["Combine an LLM judge with a code check", R.LLM_JUDGE_AND_CODE, {}],
    ["Compare with a reference value", R.COMPARE_WITH_REFERENCE, {}],
    ["A RAG answer is grounded in its context", R.RAG_GROUNDED, {}],
  ];

  it.each(recipes)("%s", async (_title, source, params) => {
    const ws = await h.workspace("recipes");
    const input: Record<string, unknown> = { sourceCode: source, span: SPAN, params };
    if (source === R.TOOL_TRAJECTORY_SETTINGS) input.paramSpecs = TRAJECTORY_SPECS;
    const res = await ws.gql(TRY, { input });
    expect(res.errors).toBeUndefined();
    const result = res.data!.tryCode;
    expect(result.outcome, JSON.stringify(result.error)).toBe("ok");
    const [reference] = await referenceScores([{ source, document: DOCUMENT, params }]);
    expect(reference!.ok).toBe(true);
    expect(result.scores.map((s: any) => ({ name: s.name, value: s.value, data_type: s.dataType, higher_is_better: s.higherIsBetter, comment: s.comment, metadata: s.metadata }))).toEqual(
      (reference as { scores: unknown[] }).scores,
    );
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it("hand-checked values: the trajectory matches, the reference matches, the judge falls back to its defaults", async () => {
    const ws = await h.workspace("recipes-values");
    const run = async (sourceCode: string, extra: Record<string, unknown> = {}) => (await ws.gql(TRY, { input: { sourceCode, span: SPAN, ...extra } })).data!.tryCode;
    expect((await run(R.TOOL_TRAJECTORY)).scores.map((s: any) => [s.name, s.value])).toEqual([["trajectory_match", true]]);
    expect((await run(R.COMPARE_WITH_REFERENCE)).scores.map((s: any) => [s.name, s.value])).toEqual([["exact_match", true], ["levenshtein_ratio", 1]]);
    // No dependency scores in the sample: relevance 0.0 (weight 3) and pii_free True (weight 1) → 0.25.
    expect((await run(R.LLM_JUDGE_AND_CODE)).scores.map((s: any) => [s.name, s.value])).toEqual([["overall", 0.25]]);
    // With scores in an inline dataset item: (0.8 × 3 + 1 × 1) / 4 = 0.85.
    const judged = await ws.gql(TRY, {
      input: { sourceCode: R.LLM_JUDGE_AND_CODE, document: { ...DOCUMENT, scores: { "Answer relevance": { relevance: 0.8 }, "PII leak": { pii_free: true } } } },
    });
    expect(judged.data!.tryCode.scores[0].value).toBeCloseTo(0.85, 10);
  });

  it("imports a shared library published in the workspace (the cookbook's acme_policy)", async () => {
    const ws = await h.workspace("recipes-shared");
    await h.app.services.sharedLibraries.publishVersion(ws.principal, { name: "acme_policy", sourceCode: R.SHARED_LIBRARY_ACME_POLICY });
    const res = await ws.gql(TRY, { input: { sourceCode: R.SHARED_LIBRARY_EVALUATOR, span: { ...SPAN, output: "We guarantee a refund." } } });
    expect(res.errors).toBeUndefined();
    expect(res.data!.tryCode).toMatchObject({ outcome: "ok", libraryVersions: { acme_policy: 1 } });
    expect(res.data!.tryCode.scores.map((s: any) => [s.name, s.value])).toEqual([["policy_ok", false], ["pii_free", true]]);
  });
});

describe("the three ways to name the settings", () => {
  const SOURCE = `def evaluate(ctx):
    print(sorted(ctx.params.items()))
    return EvaluationResult(scores=[Score(name="at", value=ctx.params["at"]), Score(name="label", value=ctx.params["label"] or "none")])
`;
  const SPECS = [
    { name: "at", type: "number", default: 0.5 },
    { name: "label", type: "string" },
    { name: "mode", type: "enum", options: ["a", "b"], required: true },
  ];

  it("paramSpecs: values checked against the draft's settings, absent ones take defaults (value → default → None)", async () => {
    const ws = await h.workspace("specs");
    const res = await ws.gql(TRY, { input: { sourceCode: SOURCE, paramSpecs: SPECS, params: { mode: "a" }, span: SPAN } });
    expect(res.errors).toBeUndefined();
    expect(res.data!.tryCode).toMatchObject({
      outcome: "ok",
      params: { at: 0.5, label: null, mode: "a" },
      stdout: "[('at', 0.5), ('label', None), ('mode', 'a')]\n",
      scores: [{ name: "at", value: 0.5, numericValue: 0.5 }, { name: "label", value: "none" }],
      templateVersion: null,
    });
    const given = await ws.gql(TRY, { input: { sourceCode: SOURCE, paramSpecs: SPECS, params: { mode: "b", at: 0.7, label: "x" }, span: SPAN } });
    expect(given.data!.tryCode.params).toEqual({ at: 0.7, label: "x", mode: "b" });
  });

  it("paramSpecs: refuses an undeclared name, a wrong type and a missing required value, each by path", async () => {
    const ws = await h.workspace("specs-refusals");
    const res = await ws.gql(TRY, { input: { sourceCode: SOURCE, paramSpecs: SPECS, params: { at: "high", nope: 1 }, span: SPAN } });
    expect(res.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(res.errors![0]!.extensions!.issues).toEqual([
      { path: "params.at", message: 'setting "at" (number): the value must be a finite number' },
      { path: "params.nope", message: 'the template declares no setting "nope"' },
      { path: "params.mode", message: 'setting "mode" is required and has no default: set a value' },
    ]);
    const badSpecs = await ws.gql(TRY, { input: { sourceCode: SOURCE, paramSpecs: [{ name: "at", type: "float" }], span: SPAN } });
    expect(badSpecs.errors![0]!.extensions!.issues).toEqual([{ path: "paramSpecs[0].type", message: "must be one of string, text, number, integer, boolean, string_list, enum, json" }]);
  });

  it("checks the code as a template save does: a syntax error names its line and column", async () => {
    const ws = await h.workspace("syntax");
    const res = await ws.gql(TRY, { input: { sourceCode: "def evaluate(ctx):\n    return (\n", span: SPAN } });
    expect(res.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    const issue = res.errors![0]!.extensions!.issues[0];
    expect(issue.path).toBe("sourceCode");
    expect(issue.message).toMatch(/\(line \d+, column \d+\)$/);
    const noEntry = await ws.gql(TRY, { input: { sourceCode: "x = 1\n", span: SPAN } });
    expect(noEntry.errors![0]!.extensions!.issues[0].path).toBe("sourceCode");
  });

  it("starterId: the starter's settings and defaults; an unknown starter is NOT_FOUND; paramSpecs are refused", async () => {
    const ws = await h.workspace("starter");
    const res = await ws.gql(TRY, { input: { starterId: "keyword-check", params: { required: ["refund"] }, span: SPAN } });
    expect(res.errors).toBeUndefined();
    expect(res.data!.tryCode).toMatchObject({
      outcome: "ok",
      params: { required: ["refund"], forbidden: [], mode: "all", case_sensitive: false },
      scores: [{ name: "keywords_ok", value: true }],
    });
    const wrong = await ws.gql(TRY, { input: { starterId: "keyword-check", params: { required: "refund" }, span: SPAN } });
    expect(wrong.errors![0]!.extensions!.issues).toEqual([{ path: "params.required", message: 'setting "required" (string_list): the value must be a list of strings' }]);
    const unknown = await ws.gql(TRY, { input: { starterId: "nope", span: SPAN } });
    expect(unknown.errors![0]!.extensions!.code).toBe("NOT_FOUND");
    const both = await ws.gql(TRY, { input: { starterId: "keyword-check", paramSpecs: SPECS, span: SPAN } });
    expect(both.errors![0]!.extensions!.issues).toEqual([{ path: "paramSpecs", message: "only with sourceCode or judge: a starter or a template brings its own settings" }]);
  });

  it("templateId: the latest version or a given one, with that version's settings; refusals", async () => {
    const ws = await h.workspace("template");
    const created = await h.app.services.templates.createTemplate(ws.principal, { name: "T", sourceCode: SOURCE, params: SPECS });
    await h.app.services.templates.updateTemplate(ws.principal, created.template.id, { params: [{ name: "at", type: "number", default: 0.9 }, { name: "label", type: "string", default: "v2" }] });
    const id = Buffer.from(`Template:${created.template.id}`).toString("base64");
    const latest = await ws.gql(TRY, { input: { templateId: id, span: SPAN } });
    expect(latest.errors).toBeUndefined();
    expect(latest.data!.tryCode).toMatchObject({ templateVersion: 2, params: { at: 0.9, label: "v2" }, scores: [{ value: 0.9 }, { value: "v2" }] });
    const v1 = await ws.gql(TRY, { input: { templateId: id, templateVersion: 1, params: { mode: "b" }, span: SPAN } });
    expect(v1.data!.tryCode).toMatchObject({ templateVersion: 1, params: { at: 0.5, label: null, mode: "b" } });
    const v1missing = await ws.gql(TRY, { input: { templateId: id, templateVersion: 1, span: SPAN } });
    expect(v1missing.errors![0]!.extensions!.issues).toEqual([{ path: "params.mode", message: 'setting "mode" is required and has no default: set a value' }]);
    const v2undeclared = await ws.gql(TRY, { input: { templateId: id, params: { mode: "a" }, span: SPAN } });
    expect(v2undeclared.errors![0]!.extensions!.issues).toEqual([{ path: "params.mode", message: 'the template declares no setting "mode"' }]);
    const v9 = await ws.gql(TRY, { input: { templateId: id, templateVersion: 9, span: SPAN } });
    expect(v9.errors![0]!.extensions!.code).toBe("NOT_FOUND");
    const other = await h.workspace("template-other");
    const foreign = await other.gql(TRY, { input: { templateId: id, span: SPAN } });
    expect(foreign.errors![0]!.extensions!.code).toBe("NOT_FOUND");
    const twoWays = await ws.gql(TRY, { input: { templateId: id, sourceCode: SOURCE, span: SPAN } });
    expect(twoWays.errors![0]!.extensions!.issues).toEqual([{ path: "sourceCode", message: "give exactly one of sourceCode (with paramSpecs), judge (with paramSpecs), starterId or templateId" }]);
  });
});

describe("samples", () => {
  const TRACE_SPANS = `def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="spans", value=",".join(s.name for s in ctx.trace.spans)), Score(name="reply", value=ctx.turns[-1]["content"])])
`;

  it("a stored span runs with its stored trace; an inline span alone; an inline dataset item as given", async () => {
    const ws = await h.workspace("samples");
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, [
      { traceId: "tr", spanId: "b", name: "search", kind: "tool", startTime: "2026-01-01T00:00:02Z" },
      { traceId: "tr", spanId: "a", name: "chat", kind: "chat", startTime: "2026-01-01T00:00:01Z", input: "hi", output: "hello" },
    ]);
    const spanId = Buffer.from(`Span:${ingested.spans[1]!.id}`).toString("base64");
    const stored = await ws.gql(TRY, { input: { sourceCode: TRACE_SPANS, spanId } });
    expect(stored.data!.tryCode.scores.map((s: any) => s.value)).toEqual(["chat,search", "hello"]);
    const inline = await ws.gql(TRY, { input: { sourceCode: TRACE_SPANS, span: SPAN } });
    expect(inline.data!.tryCode.scores.map((s: any) => s.value)).toEqual(["support.reply", SPAN.output.content]);
    const item = await ws.gql(TRY, { input: { sourceCode: TRACE_SPANS, document: { input: "q", output: "an answer", expected_output: "an answer" } } });
    expect(item.data!.tryCode.scores.map((s: any) => s.value)).toEqual(["", "an answer"]);
    const other = await h.workspace("samples-other");
    const foreign = await other.gql(TRY, { input: { sourceCode: TRACE_SPANS, spanId } });
    expect(foreign.errors![0]!.extensions!.code).toBe("NOT_FOUND");
  });

  it("refuses no sample, two samples, a bad inline span and a bad document, by path", async () => {
    const ws = await h.workspace("samples-refusals");
    const src = "def evaluate(ctx):\n    return EvaluationResult(scores=[])\n";
    const none = await ws.gql(TRY, { input: { sourceCode: src } });
    expect(none.errors![0]!.extensions!.issues[0].path).toBe("spanId");
    const two = await ws.gql(TRY, { input: { sourceCode: src, span: SPAN, document: {} } });
    expect(two.errors![0]!.extensions!.issues[0].path).toBe("spanId");
    const badSpan = await ws.gql(TRY, { input: { sourceCode: src, span: { kind: "llm", output: "hi" } } });
    expect(badSpan.errors![0]!.extensions!.issues).toEqual([{ path: "span.kind", message: "must be one of chat, tool, agent, retrieval, other" }]);
    // An inline span needs no ids or name: nothing is stored.
    const bare = await ws.gql(TRY, { input: { sourceCode: src, span: { input: [{ role: "user", content: "hi" }], output: "hello" } } });
    expect(bare.errors).toBeUndefined();
    const badDoc = await ws.gql(TRY, { input: { sourceCode: src, document: { outptu: "typo", attributes: [] } } });
    expect(badDoc.errors![0]!.extensions!.code).toBe("BAD_USER_INPUT");
    expect(badDoc.errors![0]!.extensions!.issues.map((i: any) => i.path).sort()).toEqual(["document.attributes", "document.outptu"]);
  });

  it("returns the user's error with its traceback, output and duration, and stores nothing", async () => {
    const ws = await h.workspace("samples-error");
    const res = await ws.gql(TRY, { input: { sourceCode: "def evaluate(ctx):\n    print('before')\n    return 1 / 0\n", span: SPAN } });
    expect(res.data!.tryCode).toMatchObject({ outcome: "user_error", stdout: "before\n", scores: [], error: { type: "ZeroDivisionError", message: "division by zero" } });
    expect(res.data!.tryCode.error.traceback).toContain('File "<evaluator>", line 3, in evaluate');
    expect(await h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
    expect(await h.app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
  });
});

describe("tryCode limits", () => {
  const QUICK = "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='n', value=1)])\n";

  it("refuses a request with more tryCode fields than the request cost allows, before running any", async () => {
    const ws = await h.workspace("try-fields");
    const fields = Array.from({ length: 7 }, (_, i) => `t${i}: tryCode(input: $input) { outcome }`).join("\n");
    const res = await ws.gql(`mutation($input: TryCodeInput!) { ${fields} }`, { input: { sourceCode: QUICK, span: SPAN } });
    // The weighted cost (tryCode 25, at most 100 a request) refuses it whole, before execution;
    // MAX_TRY_CODE_PER_REQUEST (4) in the resolver is the same bound for any path that skips it.
    expect(res.data ?? null).toBeNull();
    expect(res.errors?.map((e) => e.extensions?.code)).toEqual(["LIMIT_EXCEEDED"]);
    expect(res.errors?.[0]?.message).toMatch(/weighted cost 175 is above 100 \(tryCode costs 25/);
    const four = Array.from({ length: 4 }, (_, i) => `t${i}: tryCode(input: $input) { outcome }`).join("\n");
    const ok = await ws.gql(`mutation($input: TryCodeInput!) { ${four} }`, { input: { sourceCode: QUICK, span: SPAN } });
    expect(ok.errors).toBeUndefined();
    expect(Object.values(ok.data as Record<string, { outcome: string }>).map((r) => r.outcome)).toEqual(Array(4).fill("ok"));
  });

  it("runs at most 4 tryCode at once per workspace; another workspace is not affected", async () => {
    const ws = await h.workspace("try-concurrent");
    const other = await h.workspace("try-other");
    // 3 s a run against TRY_CODE_WAIT_MS' 5 s: at most two of the six get a place in time, however fast the machine.
    const SLOW = "import time\ndef evaluate(ctx):\n    time.sleep(3)\n    return EvaluationResult(scores=[Score(name='n', value=1)])\n";
    const one = (w: typeof ws, sourceCode: string) => w.gql(TRY, { input: { sourceCode, span: SPAN } });
    const results = await Promise.all([...Array.from({ length: 6 }, () => one(ws, SLOW)), one(other, QUICK)]);
    const codes = results.slice(0, 6).map((r) => r.errors?.[0]?.extensions?.code ?? r.data?.tryCode.outcome);
    expect(codes.filter((c) => c === "LIMIT_EXCEEDED").length).toBeGreaterThanOrEqual(2);
    expect(codes.filter((c) => c === "ok").length).toBeGreaterThanOrEqual(1);
    expect(results[6]!.data?.tryCode.outcome).toBe("ok");
  });

  it("holds the cap across API processes: two app instances on one Redis share the workspace's 4", async () => {
    // A second API process: its own app (Prisma, Redis connection, executor), the same Redis prefix.
    const second = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: h.prefix }));
    try {
      const ws = await h.workspace("try-shared");
      const client2 = graphqlClient(second);
      const SLOW = "import time\ndef evaluate(ctx):\n    time.sleep(2)\n    return EvaluationResult(scores=[Score(name='n', value=1)])\n";
      const input = { input: { sourceCode: SLOW, span: SPAN } };
      // Three at once on each process: 6 > 4 in the workspace, though each process alone is under 4.
      const results = await Promise.all([
        ...Array.from({ length: 3 }, () => ws.gql(TRY, input)),
        ...Array.from({ length: 3 }, () => client2.request(TRY, input, ws.secret)),
      ]);
      const codes = results.map((r) => r.errors?.[0]?.extensions?.code ?? r.data?.tryCode.outcome);
      expect(codes.filter((c) => c === "LIMIT_EXCEEDED").length).toBeGreaterThanOrEqual(2);
      expect(codes.filter((c) => c === "ok").length).toBeGreaterThanOrEqual(1);
      expect(codes.every((c) => c === "ok" || c === "LIMIT_EXCEEDED")).toBe(true);
      // Every place is given back when the runs end: 4 more fit at once, on both processes.
      const after = await Promise.all([ws.gql(TRY, { input: { sourceCode: QUICK, span: SPAN } }), ws.gql(TRY, { input: { sourceCode: QUICK, span: SPAN } }), client2.request(TRY, { input: { sourceCode: QUICK, span: SPAN } }, ws.secret), client2.request(TRY, { input: { sourceCode: QUICK, span: SPAN } }, ws.secret)]);
      expect(after.map((r) => r.errors?.[0]?.extensions?.code ?? r.data?.tryCode.outcome)).toEqual(Array(4).fill("ok"));
    } finally {
      await second.close();
    }
  });
});
