// Issue 27, "Evaluator rules and spans": a rule reads resource attributes (deployment.environment,
// service.name), matches one element of a list attribute (tags) and can say root spans only, on
// spans sent by the real OpenTelemetry JS SDK over OTLP and by ingestSpans; explainMatch lists
// which part matched and which did not, and the stats count each new condition.
import { SpanKind } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORTERS, listen } from "../otlp/helpers.js";
import { liveHarness, waitFor } from "./helpers.js";

let h: Awaited<ReturnType<typeof liveHarness>>;
let service: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  h = await liveHarness({ label: "rules" });
  service = await listen(h.client.yoga as never);
});
afterAll(async () => {
  await service?.close();
  await h?.close();
});

const CHAT = { "gen_ai.operation.name": "chat", "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Broken order" }] }]), "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "We will refund you." }] }]) };

/** One trace per environment sent with the SDK: a root chat span tagged `tags`, and a child chat span. */
async function sendTrace(url: string, key: string, environment: string, tags: string[]) {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": "support-bot", "deployment.environment": environment }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: EXPORTERS[0].make(url, key) })],
  });
  const tracer = provider.getTracer("rules-test");
  const { trace, context } = await import("@opentelemetry/api");
  const root = tracer.startSpan("chat support", { kind: SpanKind.CLIENT, attributes: { ...CHAT, "tag.tags": tags } });
  const child = tracer.startSpan("chat rewrite", { kind: SpanKind.CLIENT, attributes: { ...CHAT, "tag.tags": tags } }, trace.setSpan(context.active(), root));
  child.end();
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId: root.spanContext().traceId, root: root.spanContext().spanId, child: child.spanContext().spanId };
}

const GID = `query($t: String!) { trace(traceId: $t) { spans { id spanId resourceAttributes runs { outcome } } } }`;
const EXPLAIN = `query($s: ID!, $e: ID!) { explainMatch(spanId: $s, evaluatorId: $e) { matched reason detail conditions { condition key passed detail } } }`;
const CREATE = `mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { id attributeContains resourceAttributeEquals rootSpansOnly } } }`;

describe("rules on resource attributes, list attributes and root spans", () => {
  it("runs only on root spans of production tagged vip, and explainMatch says which part did not match", async () => {
    const ws = await h.workspace("rules");
    const template = await h.app.services.templates.createTemplateFromStarter(ws.principal, "keyword-check");
    const created = await ws.gql(CREATE, {
      input: {
        name: "Production VIP roots",
        templateId: `${Buffer.from(`Template:${template.template.id}`).toString("base64")}`,
        params: { required: ["refund"] },
        resourceAttributeEquals: { "deployment.environment": "production" },
        attributeContains: { "tag.tags": "vip" },
        rootSpansOnly: true,
      },
    });
    expect(created.errors).toBeUndefined();
    const evaluator = created.data!.createEvaluator.evaluator;
    expect(evaluator).toMatchObject({ attributeContains: { "tag.tags": "vip" }, resourceAttributeEquals: { "deployment.environment": "production" }, rootSpansOnly: true });

    const url = `${service.url}/v1/traces`;
    const prodVip = await sendTrace(url, ws.secret, "production", ["new", "vip"]);
    const prodPlain = await sendTrace(url, ws.secret, "production", ["new"]);
    const staging = await sendTrace(url, ws.secret, "staging", ["vip"]);
    // ingestSpans: the same resource given as resourceAttributes, a root span tagged vip
    const viaApi = await ws.gql(`mutation($spans: [JSON!]!) { ingestSpans(input: { spans: $spans }) { evaluationsQueued rejected { index issues { path message } } } }`, {
      spans: [{ traceId: "api-trace", spanId: "root", name: "chat", attributes: { ...CHAT, "tag.tags": ["vip"] }, resourceAttributes: { "deployment.environment": "production", "service.name": "api" } }],
    });
    expect(viaApi.data!.ingestSpans).toEqual({ evaluationsQueued: 1, rejected: [] });

    // Two runs: the production vip root and the ingestSpans root; none on children, staging or untagged.
    await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id } }), 2);
    const runs = await h.app.prisma.run.findMany({ where: { workspaceId: ws.workspace.id }, include: { span: true } });
    expect(runs.map((r) => `${r.span!.traceId}/${r.span!.spanId}`).sort()).toEqual([`${prodVip.traceId}/${prodVip.root}`, "api-trace/root"].sort());

    const spans = async (traceId: string) => (await ws.gql(GID, { t: traceId })).data!.trace.spans as { id: string; spanId: string; resourceAttributes: Record<string, unknown> }[];
    const byId = async (t: { traceId: string }, spanId: string) => (await spans(t.traceId)).find((s) => s.spanId === spanId)!;
    expect((await byId(prodVip, prodVip.root)).resourceAttributes).toMatchObject({ "deployment.environment": "production", "service.name": "support-bot" });
    expect((await spans("api-trace"))[0]!.resourceAttributes).toEqual({ "deployment.environment": "production", "service.name": "api" });

    const explain = async (spanGid: string) => (await ws.gql(EXPLAIN, { s: spanGid, e: evaluator.id })).data!.explainMatch;
    const child = await explain((await byId(prodVip, prodVip.child)).id);
    expect(child).toMatchObject({ matched: false, reason: "root" });
    expect(child.conditions.map((c: any) => [c.condition, c.key, c.passed])).toEqual([
      ["enabled", null, true],
      ["kind", null, true],
      ["root", null, false],
      ["attributes", "tag.tags", true],
      ["resource", "deployment.environment", true],
      ["sampling", null, true],
    ]);
    const stagingRoot = await explain((await byId(staging, staging.root)).id);
    expect(stagingRoot).toMatchObject({ matched: false, reason: "resource", detail: 'resource attribute "deployment.environment" is "staging"; the evaluator wants "production"' });
    const plainRoot = await explain((await byId(prodPlain, prodPlain.root)).id);
    expect(plainRoot).toMatchObject({ matched: false, reason: "attributes", detail: 'attribute "tag.tags" is ["new"], without "vip"; the evaluator wants a list containing it' });
    expect(plainRoot.conditions.find((c: any) => c.condition === "resource")).toEqual({ condition: "resource", key: "deployment.environment", passed: true, detail: 'resource attribute "deployment.environment" is "production"' });

    // Each new span counted once under the first condition it failed.
    const stats = await ws.gql(`query($id: ID!) { node(id: $id) { ... on Evaluator { stats { spansMatched skippedRoot skippedAttributes skippedResource } } } }`, { id: evaluator.id });
    expect(stats.data!.node.stats).toEqual({ spansMatched: 2, skippedRoot: 3, skippedAttributes: 1, skippedResource: 1 });
  });

  it("refuses bad rule values and resource attributes given twice, naming the field", async () => {
    const ws = await h.workspace("rules");
    const template = await h.app.services.templates.createTemplateFromStarter(ws.principal, "keyword-check");
    const bad = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "bad", templateId: template.template.id, attributeContains: { "tag.tags": ["vip"] }, rootSpansOnly: "yes" }).catch((e) => e);
    expect(bad.issues).toEqual([
      { path: "attributeContains.tag.tags", message: "must be a string, a number or a boolean" },
      { path: "rootSpansOnly", message: "must be true or false" },
    ]);
    const twice = await h.app.services.spans.ingestSpans(ws.principal, [
      { traceId: "t", spanId: "s", name: "chat", resourceAttributes: { "service.name": "a" }, metadata: { otel: { resource: { attributes: { "service.name": "b" } } } } },
    ]);
    expect(twice.rejected).toEqual([{ index: 0, issues: [{ path: "resourceAttributes", message: "give the resource attributes once: here or in metadata.otel.resource.attributes, not both" }] }]);
  });
});
