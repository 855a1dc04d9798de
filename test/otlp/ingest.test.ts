// OTLP/HTTP trace ingestion (README § OpenTelemetry in and out): the real OpenTelemetry JS SDK and its exporters (protobuf and
// JSON, gzip on and off) send spans of every convention to the service on a real port; the spans are
// stored and scored as ingestSpans would, and the scores read back through GraphQL.
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opentelemetry, google } from "../../src/modules/otlp/generated/otlp.js";
import { CONVENTION_FIXTURES } from "../fixtures/otlp-conventions.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";
import { liveHarness, waitFor } from "../runs/helpers.js";
import { diagWarnings, EXPORTERS, listen, sendWithSdk } from "./helpers.js";

const { ExportTraceServiceRequest, ExportTraceServiceResponse } = opentelemetry.proto.collector.trace.v1;

let h: Awaited<ReturnType<typeof liveHarness>>;
let service: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  h = await liveHarness({ label: "otlp" });
  service = await listen(h.client.yoga as never);
});
afterAll(async () => {
  await service?.close();
  await h?.close();
});

const TRACE = `query($traceId: String!) { trace(traceId: $traceId) { spans { spanId name kind status parentSpanId metadata conversation toolCalls
  scores { name value } runs { outcome } } } }`;

async function refundEvaluator(ws: Awaited<ReturnType<typeof h.workspace>>, spanKind?: string) {
  const template = await h.app.services.templates.createTemplateFromStarter(ws.principal, "keyword-check");
  return h.app.services.evaluators.createEvaluator(ws.principal, { name: `Mentions refund ${spanKind ?? "chat"}`, templateId: template.template.id, params: { required: ["refund"], mode: "any" }, ...(spanKind ? { spanKind } : {}) });
}

describe("POST /v1/traces with the OpenTelemetry SDK exporters", () => {
  for (const exporter of EXPORTERS) {
    it(`stores and scores spans of every convention (${exporter.label})`, async () => {
      const ws = await h.workspace("otlp");
      await refundEvaluator(ws);
      const sent = await sendWithSdk(exporter.make(`${service.url}/v1/traces`, ws.secret), CONVENTION_FIXTURES);
      const chatSpans = CONVENTION_FIXTURES.filter((f) => f.expected.kind === "chat").length;
      await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id } }), chatSpans);
      const res = await ws.gql(TRACE, { traceId: sent.traceId });
      expect(res.errors).toBeUndefined();
      const spans = res.data!.trace.spans as Record<string, any>[];
      expect(spans).toHaveLength(CONVENTION_FIXTURES.length + 1);
      const root = spans.find((s) => s.spanId === sent.rootSpanId)!;
      expect(root.kind).toBe("agent");
      expect(root.runs).toEqual([]);
      CONVENTION_FIXTURES.forEach((fixture, i) => {
        const span = spans.find((s) => s.spanId === sent.spanIds[i])!;
        expect(span, fixture.convention).toBeDefined();
        expect(span.parentSpanId).toBe(sent.rootSpanId);
        expect(span.kind, fixture.convention).toBe(fixture.expected.kind);
        expect(span.conversation, fixture.convention).toEqual(fixture.expected.conversation);
        expect(span.toolCalls, fixture.convention).toEqual(fixture.expected.toolCalls);
        expect(span.metadata.otel.resource.attributes["service.name"]).toBe("support-bot");
        expect(span.metadata.otel.scope).toMatchObject({ name: "support-bot.instrumentation", version: "1.4.0" });
        expect(span.metadata.otel.spanKind).toBe("client");
        if (fixture.expected.kind === "chat") {
          expect(span.runs, fixture.convention).toEqual([{ outcome: "ok" }]);
          expect(span.scores, fixture.convention).toEqual([{ name: "keywords_ok", value: true }]);
        } else {
          expect(span.runs, fixture.convention).toEqual([]);
        }
      });
    });
  }

  it("gives the same document and scores as ingestSpans for the same attributes", async () => {
    const ws = await h.workspace("otlp");
    await refundEvaluator(ws);
    const sent = await sendWithSdk(EXPORTERS[0].make(`${service.url}/v1/traces`, ws.secret), CONVENTION_FIXTURES.slice(0, 1));
    const viaGraphql = await ws.gql(`mutation($spans: [JSON!]!) { ingestSpans(input: { spans: $spans }) { evaluationsQueued } }`, {
      spans: [{ traceId: "same-attributes", spanId: "s1", name: CONVENTION_FIXTURES[0]!.name, attributes: CONVENTION_FIXTURES[0]!.attributes }],
    });
    expect(viaGraphql.data!.ingestSpans.evaluationsQueued).toBe(1);
    await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id } }), 2);
    const DOC = `query($t: String!) { trace(traceId: $t) { spans { spanId document scores { name value } } } }`;
    const otlp = (await ws.gql(DOC, { t: sent.traceId })).data!.trace.spans.find((s: any) => s.spanId === sent.spanIds[0]);
    const gql = (await ws.gql(DOC, { t: "same-attributes" })).data!.trace.spans[0];
    expect(otlp.document.input).toEqual(gql.document.input);
    expect(otlp.document.output).toEqual(gql.document.output);
    expect(otlp.scores).toEqual(gql.scores);
  });
});

/** A protobuf span with the given fields (ids as hex). */
function protoSpan(fields: { traceId?: string; spanId?: string; name?: string; attributes?: Record<string, string> }) {
  return {
    traceId: Buffer.from(fields.traceId ?? "", "hex"),
    spanId: Buffer.from(fields.spanId ?? "", "hex"),
    name: fields.name ?? "",
    startTimeUnixNano: "1767225600000000000",
    endTimeUnixNano: "1767225601500000000",
    attributes: Object.entries(fields.attributes ?? {}).map(([key, value]) => ({ key, value: { stringValue: value } })),
  };
}

const T = "5b8efff798038103d269b633813fc60c";

describe("POST /v1/traces: partial success and errors", () => {
  it("stores the good spans of a mixed batch and names each bad one with its problem (protobuf and JSON)", async () => {
    const ws = await h.workspace("otlp");
    const request = ExportTraceServiceRequest.fromObject({
      resourceSpans: [{ scopeSpans: [{ spans: [
        protoSpan({ traceId: T, spanId: "eee19b7ec3c1b174", name: "chat ok", attributes: { "gen_ai.operation.name": "chat" } }),
        protoSpan({ traceId: T, spanId: "eee19b7ec3c1b175", name: "" }),
        protoSpan({ traceId: "5b8e", spanId: "eee19b7ec3c1b176", name: "short trace id" }),
        protoSpan({ traceId: T, spanId: "eee19b7ec3c1b177", name: "x".repeat(300) }),
      ] }] }],
    });
    const res = await fetch(`${service.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-protobuf", authorization: `Bearer ${ws.secret}` },
      body: Buffer.from(ExportTraceServiceRequest.encode(request).finish()),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-protobuf");
    const body = ExportTraceServiceResponse.decode(new Uint8Array(await res.arrayBuffer()));
    expect(Number(body.partialSuccess!.rejectedSpans)).toBe(3);
    expect(body.partialSuccess!.errorMessage).toBe(
      "3 span(s) rejected: resourceSpans[0].scopeSpans[0].spans[2] (span eee19b7ec3c1b176 \"short trace id\"): traceId: must be 16 bytes (32 hex digits), not all zero; " +
        "resourceSpans[0].scopeSpans[0].spans[1] (span eee19b7ec3c1b175): name: must not be empty; " +
        `resourceSpans[0].scopeSpans[0].spans[3] (span eee19b7ec3c1b177 "${"x".repeat(300)}"): name: must be at most 256 characters`,
    );
    const stored = await h.app.prisma.span.findMany({ where: { workspaceId: ws.workspace.id }, select: { spanId: true, kind: true, startTime: true, endTime: true } });
    expect(stored).toEqual([{ spanId: "eee19b7ec3c1b174", kind: "chat", startTime: new Date("2026-01-01T00:00:00.000Z"), endTime: new Date("2026-01-01T00:00:01.500Z") }]);

    // The same in OTLP/JSON: hex ids, int64 as decimal strings; the answer is JSON.
    const json = await fetch(`${service.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ws.secret}` },
      body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [
        { traceId: T, spanId: "eee19b7ec3c1b180", name: "json ok", startTimeUnixNano: "1767225600000000000", kind: 3, attributes: [{ key: "n", value: { intValue: "9007199254740993" } }] },
        { traceId: T, spanId: "0000000000000000", name: "zero span id" },
      ] }] }] }),
    });
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toBe("application/json");
    expect(await json.json()).toEqual({ partialSuccess: { rejectedSpans: "1", errorMessage: '1 span(s) rejected: resourceSpans[0].scopeSpans[0].spans[1] (span 0000000000000000 "zero span id"): spanId: must be 8 bytes (16 hex digits), not all zero' } });
    const jsonSpan = await h.app.prisma.span.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, spanId: "eee19b7ec3c1b180" } });
    expect(jsonSpan.attributes).toEqual({ n: "9007199254740993" });
    expect((jsonSpan.metadata as any).otel.spanKind).toBe("client");
  });

  it("reports the partial success to the SDK exporter", async () => {
    const ws = await h.workspace("otlp");
    diagWarnings.length = 0;
    await sendWithSdk(EXPORTERS[0].make(`${service.url}/v1/traces`, ws.secret), [{ ...CONVENTION_FIXTURES[2]!, name: "" }]);
    expect(diagWarnings.join("\n")).toMatch(/Partial Success.*"rejectedSpans":1,.*spans\[0\] \(span [0-9a-f]{16}\): name: must not be empty/);
    expect(await h.app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(1); // the root span
  });

  it("answers 413 for a body over the cap, compressed or after decompression, and 400 with a google.rpc.Status for an undecodable one", async () => {
    const app = createTestApp({ OTLP_MAX_BODY_BYTES: "4096" });
    try {
      const { yoga } = graphqlClient(app);
      const ws = await createTestWorkspace(app, "otlp-limits");
      const post = (body: Uint8Array | string, headers: Record<string, string>) =>
        yoga.fetch("http://localhost/v1/traces", { method: "POST", headers: { authorization: `Bearer ${ws.secret}`, ...headers }, body: (typeof body === "string" ? body : Buffer.from(body)) as BodyInit });
      const big = ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject({ resourceSpans: [{ scopeSpans: [{ spans: [protoSpan({ traceId: T, spanId: "eee19b7ec3c1b174", name: "big", attributes: { pad: "p".repeat(5000) } })] }] }] })).finish();
      const tooBig = await post(big, { "content-type": "application/x-protobuf" });
      expect(tooBig.status).toBe(413);
      expect(google.rpc.Status.decode(new Uint8Array(await tooBig.arrayBuffer())).toJSON()).toEqual({ code: 8, message: `the body is ${big.length} bytes; at most 4096 are accepted` });
      // 1 MiB of zeros is ~1 KiB gzipped: refused once decompression passes the cap.
      const bomb = gzipSync(Buffer.alloc(1024 * 1024));
      expect(bomb.length).toBeLessThan(4096);
      const bombed = await post(bomb, { "content-type": "application/json", "content-encoding": "gzip" });
      expect(bombed.status).toBe(413);
      expect(await bombed.json()).toEqual({ code: 8, message: "the body is over 4096 bytes after decompression" });

      const garbage = await post(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), { "content-type": "application/x-protobuf" });
      expect(garbage.status).toBe(400);
      expect(garbage.headers.get("content-type")).toBe("application/x-protobuf");
      const status = google.rpc.Status.decode(new Uint8Array(await garbage.arrayBuffer()));
      expect(status.code).toBe(3);
      expect(status.message).toMatch(/^not a protobuf ExportTraceServiceRequest: /);
      const notJson = await post("{resourceSpans", { "content-type": "application/json" });
      expect(notJson.status).toBe(400);
      expect((await notJson.json()).message).toMatch(/^not JSON: /);
      const base64Ids = await post(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: "W47/95gDgQPSabYzgT/GDA==", spanId: "7uGbfsPBsXQ=", name: "x" }] }] }] }), { "content-type": "application/json" });
      expect(base64Ids.status).toBe(400);
      expect(await base64Ids.json()).toEqual({ code: 3, message: "resourceSpans[0].scopeSpans[0].spans[0].traceId: must be a hex string (OTLP/JSON ids are hex, not base64)" });
      const notGzip = await post("plain", { "content-type": "application/json", "content-encoding": "gzip" });
      expect(notGzip.status).toBe(400);

      const noKey = await yoga.fetch("http://localhost/v1/traces", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(noKey.status).toBe(401);
      expect((await noKey.json()).code).toBe(16);
      expect((await post("x", { "content-type": "text/plain" })).status).toBe(415);
      expect((await post("{}", { "content-type": "application/json", "content-encoding": "br" })).status).toBe(415);
      const empty = await post("{}", { "content-type": "application/json" });
      expect(empty.status).toBe(200);
      expect(await empty.json()).toEqual({});
    } finally {
      await app.close();
    }
  });
});
