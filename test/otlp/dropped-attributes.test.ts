// Issue 27: a long conversation sent with the real OpenTelemetry JS SDK and its default limit of
// 128 attributes per span loses turns before export; the service keeps what the SDK says it
// dropped (span, events, links), shows it on the span, and explainMatch and the run say the
// document is incomplete. With the limit raised as the README says, all 140 turns arrive.
import { SpanKind } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { SimpleSpanProcessor, TracerProvider, type SpanLimits } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explanationLine } from "../../src/cli/commands/evaluators.js";
import { liveHarness, waitFor } from "../runs/helpers.js";
import { EXPORTERS, listen } from "./helpers.js";

let h: Awaited<ReturnType<typeof liveHarness>>;
let service: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  h = await liveHarness({ label: "dropped" });
  service = await listen(h.client.yoga as never);
});
afterAll(async () => {
  await service?.close();
  await h?.close();
});

const TURNS = 140;

/**
 * One OpenInference LLM span of 140 turns (two attributes each, as OpenInference flattens them),
 * plus 130 events (one with 130 attributes) and a link with 130 attributes, sent with the SDK
 * under `limits` (the SDK's defaults when absent).
 */
async function sendConversation(key: string, limits?: SpanLimits) {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": "long-chat" }),
    ...(limits ? { spanLimits: limits } : {}),
    spanProcessors: [new SimpleSpanProcessor({ exporter: EXPORTERS[0].make(`${service.url}/v1/traces`, key) })],
  });
  const tracer = provider.getTracer("openinference-like");
  const other = tracer.startSpan("other");
  other.end();
  const linkAttributes = Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`link.a${i}`, i]));
  const span = tracer.startSpan("ChatCompletion", { kind: SpanKind.CLIENT, attributes: { "openinference.span.kind": "LLM" }, links: [{ context: other.spanContext(), attributes: linkAttributes }] });
  for (let i = 0; i < TURNS; i++) {
    span.setAttribute(`llm.input_messages.${i}.message.role`, i % 2 === 0 ? "user" : "assistant");
    span.setAttribute(`llm.input_messages.${i}.message.content`, `turn ${i}`);
  }
  span.addEvent("big", Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`e${i}`, i])));
  for (let i = 0; i < 129; i++) span.addEvent(`tick ${i}`);
  const ids = { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
  span.end();
  await provider.forceFlush();
  await provider.shutdown();
  return ids;
}

const SPAN = `query($t: String!) { trace(traceId: $t) { spans { id spanId conversation dropped { attributes events links eventAttributes linkAttributes } incomplete
  runs { id outcome inputIncomplete } } } }`;
const EXPLAIN = `query($s: ID!, $e: ID!) { explainMatch(spanId: $s, evaluatorId: $e) { matched reason detail incomplete run { outcome skipReason } } }`;

describe("what the OpenTelemetry SDK dropped before export", () => {
  it("140 turns with the default 128-attribute limit: the span says 153 attributes were dropped, and explainMatch and the run say the document is incomplete", async () => {
    const ws = await h.workspace("dropped");
    const template = await h.app.services.templates.createTemplateFromStarter(ws.principal, "keyword-check");
    const evaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Turn check", templateId: template.template.id, params: { required: ["turn"] } });
    const sent = await sendConversation(ws.secret);
    await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id } }), 1);
    const res = await ws.gql(SPAN, { t: sent.traceId });
    expect(res.errors).toBeUndefined();
    const span = res.data!.trace.spans.find((s: any) => s.spanId === sent.spanId);
    // 1 + 280 attributes set, 128 kept; 130 events, the newest 128 kept (the big one was the first
    // out, so no event attribute is counted dropped); the link kept 128 of its 130 attributes.
    expect(span.dropped.attributes).toBe(1 + 2 * TURNS - 128);
    expect(span.dropped.events).toBe(2);
    expect(span.dropped.links).toBe(0);
    expect(span.dropped.linkAttributes).toBe(2);
    // 127 turn attributes kept: 63 whole turns and the role of the 64th.
    expect(span.conversation.length).toBeLessThan(TURNS);
    expect(span.conversation.slice(0, 63).map((t: any) => t.content)).toEqual(Array.from({ length: 63 }, (_, i) => `turn ${i}`));
    expect(span.incomplete).toMatch(/^the span is incomplete: its sender dropped 153 attribute\(s\), 2 event\(s\), 2 link attribute\(s\) before export \(an OpenTelemetry SDK limit\)/);
    expect(span.incomplete).toContain("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT");
    expect(span.runs).toEqual([{ id: expect.any(String), outcome: "ok", inputIncomplete: span.incomplete }]);

    const explained = await ws.gql(EXPLAIN, { s: span.id, e: Buffer.from(`Evaluator:${evaluator.id}`).toString("base64") });
    expect(explained.data!.explainMatch).toMatchObject({ matched: true, incomplete: span.incomplete });
    // The CLI and MCP line says it too.
    expect(explanationLine(explained.data!.explainMatch).split("\n").at(-1)).toBe(`  !   ${span.incomplete}`);
  });

  it("with the SDK's limit raised as the README says, all 140 turns arrive and nothing is incomplete", async () => {
    const ws = await h.workspace("dropped");
    const sent = await sendConversation(ws.secret, { attributeCountLimit: 2048, eventCountLimit: 1000, attributePerEventCountLimit: 1000, attributePerLinkCountLimit: 1000 });
    const res = await ws.gql(SPAN, { t: sent.traceId });
    const span = res.data!.trace.spans.find((s: any) => s.spanId === sent.spanId);
    expect(span.dropped).toEqual({ attributes: 0, events: 0, links: 0, eventAttributes: 0, linkAttributes: 0 });
    expect(span.incomplete).toBeNull();
    expect(span.conversation.map((t: any) => t.content)).toEqual(Array.from({ length: TURNS }, (_, i) => `turn ${i}`));
  });
});
