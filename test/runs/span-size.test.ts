// Issue 27: a span over 1 MiB of JSON is refused whole (never stored with values cut), by index,
// naming the limit, its size and its largest values; the other spans of the batch are stored;
// over OTLP the refusal is in partialSuccess. The README states the limit and this behaviour.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SPAN_BYTES } from "../../src/modules/spans/schemas.js";
import { opentelemetry } from "../../src/modules/otlp/generated/otlp.js";
import { listen } from "../otlp/helpers.js";
import { liveHarness } from "./helpers.js";

let h: Awaited<ReturnType<typeof liveHarness>>;
let service: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  h = await liveHarness({ label: "span-size", startWorker: false });
  service = await listen(h.client.yoga as never);
});
afterAll(async () => {
  await service?.close();
  await h?.close();
});

/** A chat span whose `retrieval.documents` attribute holds `bytes` characters. */
const bigSpan = (spanId: string, bytes: number) => ({ traceId: "big", spanId, name: "chat", input: "q?", output: "a.", attributes: { "retrieval.documents": "d".repeat(bytes) } });

describe("a span over 1 MiB", () => {
  it("is refused whole by ingestSpans, naming the limit, its size and its largest values; the others are stored", async () => {
    const ws = await h.workspace("span-size");
    const justUnder = bigSpan("under", MAX_SPAN_BYTES - 1000);
    const over = bigSpan("over", MAX_SPAN_BYTES);
    const size = Buffer.byteLength(JSON.stringify(over));
    const result = await h.app.services.spans.ingestSpans(ws.principal, [justUnder, over]);
    expect(result.spans.map((s) => s.spanId)).toEqual(["under"]);
    expect(result.rejected).toEqual([
      {
        index: 1,
        issues: [
          {
            path: "attributes.retrieval.documents",
            message: `a span must be at most 1048576 bytes (1 MiB) of JSON (got ${size}, 1.0 MiB); it was not stored; its largest values: attributes["retrieval.documents"] (1.0 MiB), input (4 B), output (4 B): shorten or leave out the large values (e.g. retrieved documents) and send it again`,
          },
        ],
      },
    ]);
    // Nothing of it was kept, cut or otherwise.
    expect(await h.app.prisma.span.count({ where: { workspaceId: ws.workspace.id, spanId: "over" } })).toBe(0);
    const kept = await h.app.prisma.span.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, spanId: "under" } });
    expect((kept.attributes as Record<string, string>)["retrieval.documents"]?.length).toBe(MAX_SPAN_BYTES - 1000);
  });

  it("is refused over OTLP in partialSuccess with the same reason, the other span stored", async () => {
    const ws = await h.workspace("span-size");
    const { ExportTraceServiceRequest, ExportTraceServiceResponse } = opentelemetry.proto.collector.trace.v1;
    const span = (id: number, value: string) => ({
      traceId: Buffer.alloc(16, 7),
      spanId: Buffer.alloc(8, id),
      name: "chat",
      startTimeUnixNano: 1_796_144_519_000_000_000,
      attributes: [{ key: "retrieval.documents", value: { stringValue: value } }],
    });
    const body = ExportTraceServiceRequest.encode({ resourceSpans: [{ scopeSpans: [{ spans: [span(1, "small"), span(2, "d".repeat(MAX_SPAN_BYTES + 10))] }] }] }).finish();
    const response = await fetch(`${service.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf", authorization: `Bearer ${ws.secret}` }, body: Buffer.from(body) });
    expect(response.status).toBe(200);
    const decoded = ExportTraceServiceResponse.decode(new Uint8Array(await response.arrayBuffer()));
    expect(Number(decoded.partialSuccess?.rejectedSpans)).toBe(1);
    expect(decoded.partialSuccess?.errorMessage).toContain("resourceSpans[0].scopeSpans[0].spans[1]");
    expect(decoded.partialSuccess?.errorMessage).toContain("a span must be at most 1048576 bytes (1 MiB) of JSON");
    expect(decoded.partialSuccess?.errorMessage).toContain('attributes["retrieval.documents"] (1.0 MiB)');
    expect(await h.app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(1);
  });

  it("the README states the limit and that such a span is refused whole", () => {
    const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("### Span size limit"));
    expect(section.length).toBeGreaterThan(0);
    expect(readme).toContain("### Span size limit");
    expect(section).toContain(`1 MiB (${MAX_SPAN_BYTES.toLocaleString("en-US")} bytes) of JSON`);
    expect(section).toContain("**refused whole and not stored**");
  });
});
