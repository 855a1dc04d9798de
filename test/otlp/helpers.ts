import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { diag, DiagLogLevel, SpanKind, type Attributes } from "@opentelemetry/api";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { gunzipSync } from "node:zlib";
import { opentelemetry } from "../../src/modules/otlp/generated/otlp.js";
import { attributesToObject, hex } from "../../src/modules/otlp/values.js";
import type { ConventionFixture } from "../fixtures/otlp-conventions.js";

/** A real HTTP listener on an ephemeral loopback port in front of a fetch handler (yoga). */
export async function listen(handler: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** The exporters of the OpenTelemetry JS SDK under test: OTLP/HTTP protobuf and JSON, gzip on and off. */
export const EXPORTERS = [
  { label: "proto+gzip", make: (url: string, key: string) => new ProtoExporter({ url, headers: { authorization: `Bearer ${key}` }, compression: "gzip" as never }) },
  { label: "proto", make: (url: string, key: string) => new ProtoExporter({ url, headers: { authorization: `Bearer ${key}` }, compression: "none" as never }) },
  { label: "json+gzip", make: (url: string, key: string) => new JsonExporter({ url, headers: { authorization: `Bearer ${key}` }, compression: "gzip" as never }) },
  { label: "json", make: (url: string, key: string) => new JsonExporter({ url, headers: { authorization: `Bearer ${key}` }, compression: "none" as never }) },
] as const;

/** Warnings of the SDK (it logs partial successes through `diag`). */
export const diagWarnings: string[] = [];
diag.setLogger(
  { error: (m, ...a) => diagWarnings.push([m, ...a].join(" ")), warn: (m, ...a) => diagWarnings.push([m, ...a].join(" ")), info: () => {}, debug: () => {}, verbose: () => {} },
  DiagLogLevel.WARN,
);

/**
 * Sends the fixtures as spans of one trace with the real SDK and an exporter, and flushes: a
 * root agent span, and one child span per fixture (its attributes and events as given).
 * Returns the hex trace id and the fixtures' span ids in order.
 */
export async function sendWithSdk(exporter: InstanceType<typeof ProtoExporter> | InstanceType<typeof JsonExporter>, fixtures: readonly ConventionFixture[], resource: Attributes = { "service.name": "support-bot", "deployment.environment.name": "test" }) {
  const provider = new TracerProvider({ resource: resourceFromAttributes(resource), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer("support-bot.instrumentation", "1.4.0");
  const { trace, context } = await import("@opentelemetry/api");
  const root = tracer.startSpan("invoke_agent support", { kind: SpanKind.INTERNAL, attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support" } });
  const parent = trace.setSpan(context.active(), root);
  const spanIds: string[] = [];
  for (const fixture of fixtures) {
    const span = tracer.startSpan(fixture.name, { kind: SpanKind.CLIENT, attributes: fixture.attributes }, parent);
    for (const event of fixture.events ?? []) span.addEvent(event.name, event.attributes);
    spanIds.push(span.spanContext().spanId);
    span.end();
  }
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId: root.spanContext().traceId, rootSpanId: root.spanContext().spanId, spanIds };
}

/** A local OTLP/HTTP logs receiver: decodes each export with the official messages and keeps the records. */
export async function logsReceiver() {
  const records: { eventName: string; traceId: string; spanId: string; attributes: Record<string, unknown>; resource: Record<string, unknown> }[] = [];
  const server = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const request = opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest.decode(body);
      for (const rl of request.resourceLogs ?? []) {
        for (const sl of rl.scopeLogs ?? []) {
          for (const r of sl.logRecords ?? []) {
            records.push({ eventName: r.eventName ?? "", traceId: hex(r.traceId), spanId: hex(r.spanId), attributes: attributesToObject(r.attributes), resource: attributesToObject(rl.resource?.attributes) });
          }
        }
      }
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end(opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse.encode({}).finish());
    });
  });
  return { ...server, records };
}
