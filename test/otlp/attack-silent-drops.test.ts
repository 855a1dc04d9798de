// Attack tests of issue 26, findings 5 and 7 (OTLP ingest), each performing the attack over
// POST /v1/traces against the real service, Postgres and Redis:
//  - finding 5: one export of 2,500 spans took one ingest token, where ingestSpans takes one per
//    1,000 spans; now it takes three (one per started 1,000, exactly as ingestSpans calls do);
//  - finding 7: a span id repeated within one body, and an attribute keyed `__proto__`, vanished
//    and partialSuccess said nothing; now the repeat is a rejected span (named with the span it
//    repeats), empty and repeated keys are warnings, and `__proto__` / `constructor` are stored as
//    ordinary keys that an evaluator's attributeEquals matches.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createTestWorkspace, graphqlClient } from "../helpers.js";

let app: App;
let client: ReturnType<typeof graphqlClient>;
beforeAll(() => {
  // Matching is decided at ingest; the evaluations it owes need no worker here.
  app = createApp(loadConfig({ ...process.env, RATE_LIMIT_INGEST_PER_MINUTE: "4" }), { enqueueEvaluations: async () => undefined });
  client = graphqlClient(app);
});
afterAll(() => app.close());

const hexId = (bytes: number) => randomBytes(bytes).toString("hex");

interface JsonSpan {
  traceId: string;
  spanId: string;
  name: string;
  attributes?: { key: string; value: { stringValue: string } }[];
}

function body(spans: JsonSpan[], resourceAttributes: JsonSpan["attributes"] = []) {
  return { resourceSpans: [{ resource: { attributes: resourceAttributes }, scopeSpans: [{ spans: spans.map((s) => ({ ...s, kind: 3, startTimeUnixNano: "1700000000000000000", endTimeUnixNano: "1700000001000000000" })) }] }] };
}

async function post(secret: string, payload: unknown) {
  const response = await client.yoga.fetch("http://localhost/v1/traces", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
    body: JSON.stringify(payload),
  });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as Record<string, any> };
}

describe("attack: OTLP drops spans and attributes silently (issue 26, finding 7)", () => {
  it("reports a span id repeated within one body as a rejected span, naming the first; stores the first only", async () => {
    const ws = await createTestWorkspace(app, "otlp-dup");
    const traceId = hexId(16);
    const spanId = hexId(8);
    const answer = await post(ws.secret, body([{ traceId, spanId, name: "first" }, { traceId, spanId, name: "second" }]));
    expect(answer.status).toBe(200);
    expect(Number(answer.body.partialSuccess.rejectedSpans)).toBe(1);
    expect(answer.body.partialSuccess.errorMessage).toBe(
      `1 span(s) rejected: resourceSpans[0].scopeSpans[0].spans[1] (span ${spanId} "second"): spanId: repeats the trace and span id of resourceSpans[0].scopeSpans[0].spans[0] in this request; only the first is stored`,
    );
    const stored = await app.prisma.span.findMany({ where: { workspaceId: ws.workspace.id } });
    expect(stored.map((s) => s.name)).toEqual(["first"]);
  });

  it("stores __proto__ and constructor as ordinary attribute keys that attributeEquals matches, and names empty and repeated keys", async () => {
    const ws = await createTestWorkspace(app, "otlp-proto");
    const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
    const template = await app.services.templates.createTemplateFromStarter(principal, "keyword-check");
    const evaluator = await app.services.evaluators.createEvaluator(principal, {
      name: "Proto rule",
      templateId: template.template.id,
      params: { required: ["x"] },
      spanKind: "chat",
      // As a client sends it (JSON): a `__proto__:` literal in code would set the prototype instead.
      attributeEquals: JSON.parse('{"__proto__": "polluted", "constructor": "ctor"}'),
    });
    // The rule keeps its keys as sent (zod's record used to drop __proto__ from it too).
    const rule = await app.prisma.evaluator.findUniqueOrThrow({ where: { id: evaluator.id } });
    expect(Object.keys(rule.attributeEquals as object).sort()).toEqual(["__proto__", "constructor"]);

    const traceId = hexId(16);
    const spanId = hexId(8);
    const attributes = [
      { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
      { key: "__proto__", value: { stringValue: "polluted" } },
      { key: "constructor", value: { stringValue: "ctor" } },
      { key: "", value: { stringValue: "nameless" } },
      { key: "dup", value: { stringValue: "one" } },
      { key: "dup", value: { stringValue: "two" } },
    ];
    const answer = await post(ws.secret, body([{ traceId, spanId, name: "chat", attributes }], [{ key: "", value: { stringValue: "r" } }]));
    expect(answer.status).toBe(200);
    expect(Number(answer.body.partialSuccess.rejectedSpans ?? 0)).toBe(0); // warnings of a stored span (OTLP's form)
    expect(answer.body.partialSuccess.errorMessage).toBe(
      "3 attribute(s) not stored as sent: " +
        [
          'resourceSpans[0].scopeSpans[0].spans[0].attributes: attribute "" not stored: an empty key (nothing to store it under)',
          'resourceSpans[0].scopeSpans[0].spans[0].attributes: attribute "dup" not stored: repeated in one list (OTLP keys are unique); the last value was kept',
          'resourceSpans[0].resource.attributes: attribute "" not stored: an empty key (nothing to store it under)',
        ].join("; "),
    );
    const span = await app.prisma.span.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, spanId } });
    const stored = span.attributes as Record<string, unknown>;
    expect(Object.hasOwn(stored, "__proto__")).toBe(true);
    expect(stored["__proto__"]).toBe("polluted");
    expect(stored.constructor).toBe("ctor");
    expect(stored.dup).toBe("two");
    // Matched at ingest (an owed evaluation), and explainMatch agrees key by key.
    expect(await app.prisma.owedEvaluation.count({ where: { workspaceId: ws.workspace.id, evaluatorId: evaluator.id } })).toBe(1);
    const explained = await app.services.spans.explainMatch(ws.workspace.id, span.id, evaluator.id);
    expect(explained.decision.matched).toBe(true);
    expect(explained.decision.conditions?.filter((c) => c.condition === "attributes").map((c) => [c.key, c.passed])).toEqual([
      ["__proto__", true],
      ["constructor", true],
    ]);
  });
});

describe("attack: one OTLP export costs one ingest token whatever its size (issue 26, finding 5)", () => {
  it("takes one token per started 1,000 spans, as ingestSpans calls do; past the budget nothing is stored", async () => {
    const ws = await createTestWorkspace(app, "otlp-tokens");
    const traceId = hexId(16);
    const many = Array.from({ length: 2_500 }, (_, i) => ({ traceId, spanId: hexId(8), name: `s${i}` }));
    const first = await post(ws.secret, body(many));
    expect(first.status).toBe(200);
    expect(await app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(2_500);
    // 3 of the 4 tokens are spent: a second export of 1,500 spans (2 tokens) is refused whole.
    const second = await post(ws.secret, body(many.slice(0, 1_500).map((s) => ({ ...s, spanId: hexId(8) }))));
    expect(second.status).toBe(429);
    expect(Number(second.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(second.body.message).toMatch(/^rate limit: 1500 spans take 2 ingest tokens \(one per started 1000, as ingestSpans calls\)/);
    expect(await app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(2_500);
  });
});
