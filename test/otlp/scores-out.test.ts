// Scores out (README § OpenTelemetry in and out): every live run's scores exported as gen_ai.evaluation.result events over
// OTLP/HTTP to a receiver started here, and the Prometheus /metrics scraped before and after spans
// are scored (families present, values moved, no ids as labels).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMetricsListener } from "../../src/modules/metrics/http.js";
import { createScoreExporter } from "../../src/modules/otlp/score-export.js";
import { CONVENTION_FIXTURES } from "../fixtures/otlp-conventions.js";
import { liveHarness, waitFor } from "../runs/helpers.js";
import { EXPORTERS, listen, logsReceiver, sendWithSdk } from "./helpers.js";

const METRICS_TOKEN = "metrics-token-for-tests-0123456789";

let h: Awaited<ReturnType<typeof liveHarness>>;
let service: Awaited<ReturnType<typeof listen>>;
let receiver: Awaited<ReturnType<typeof logsReceiver>>;
beforeAll(async () => {
  receiver = await logsReceiver();
  process.env.SCORE_EXPORT_OTLP_ENDPOINT = `${receiver.url}/v1/logs`;
  process.env.METRICS_TOKEN = METRICS_TOKEN;
  h = await liveHarness({ label: "otlp-out" });
  delete process.env.SCORE_EXPORT_OTLP_ENDPOINT;
  delete process.env.METRICS_TOKEN;
  service = await listen(h.client.yoga as never);
});
afterAll(async () => {
  await service?.close();
  await h?.close();
  await receiver?.close();
});

const RAISES = `def evaluate(ctx):\n    raise ValueError("no reply to check")\n`;

/** Parses the Prometheus text format into `name{labels}` → value. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

async function scrape(): Promise<{ text: string; values: Map<string, number> }> {
  const res = await h.client.yoga.fetch("http://localhost/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, values: parseMetrics(text) };
}

describe("scores as OpenTelemetry evaluation events, and /metrics", () => {
  it("exports each run's scores as gen_ai.evaluation.result events on the evaluated span, and the metrics move", async () => {
    const ws = await h.workspace("otlp-out");
    const before = await scrape();
    const keyword = await h.app.services.templates.createTemplateFromStarter(ws.principal, "keyword-check");
    await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Mentions refund", templateId: keyword.template.id, params: { required: ["refund"], mode: "any" } });
    const raises = await h.app.services.templates.createTemplate(ws.principal, { name: "Raises", sourceCode: RAISES });
    await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Raises", templateId: raises.template.id });

    const fixtures = CONVENTION_FIXTURES.slice(0, 2); // GenAI attributes and the event form, both with gen_ai.response.id
    const sent = await sendWithSdk(EXPORTERS[0].make(`${service.url}/v1/traces`, ws.secret), fixtures);
    await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id } }), 4);
    await h.app.scoreExporter!.flush();
    const mine = () => receiver.records.filter((r) => r.traceId === sent.traceId);
    await waitFor(async () => mine().length, 4, 60_000);

    const events = mine().sort((a, b) => `${a.spanId}${a.attributes["oodle.evaluator.name"]}`.localeCompare(`${b.spanId}${b.attributes["oodle.evaluator.name"]}`));
    expect(events).toHaveLength(4);
    for (const spanId of sent.spanIds) {
      const onSpan = events.filter((e) => e.spanId === spanId);
      const runs = await h.app.prisma.run.findMany({ where: { workspaceId: ws.workspace.id, span: { spanId } }, include: { evaluator: true } });
      const runId = (name: string) => runs.find((r) => r.evaluator.name === name)!.id;
      expect(onSpan).toEqual([
        {
          eventName: "gen_ai.evaluation.result",
          traceId: sent.traceId,
          spanId,
          resource: { "service.name": "oodle-code-evaluators" },
          attributes: {
            "gen_ai.evaluation.name": "keywords_ok",
            "gen_ai.evaluation.score.value": 1,
            "gen_ai.evaluation.score.label": "pass",
            "gen_ai.evaluation.explanation": expect.any(String),
            "gen_ai.response.id": "chatcmpl-9fZr1",
            "oodle.evaluator.name": "Mentions refund",
            "oodle.run.id": runId("Mentions refund"),
            "oodle.run.outcome": "ok",
          },
        },
        {
          eventName: "gen_ai.evaluation.result",
          traceId: sent.traceId,
          spanId,
          resource: { "service.name": "oodle-code-evaluators" },
          attributes: {
            "gen_ai.evaluation.name": "Raises",
            "error.type": "ValueError",
            "gen_ai.response.id": "chatcmpl-9fZr1",
            "oodle.evaluator.name": "Raises",
            "oodle.run.id": runId("Raises"),
            "oodle.run.outcome": "user_error",
          },
        },
      ]);
      const comment = (await h.app.prisma.score.findFirstOrThrow({ where: { runId: runId("Mentions refund") } })).comment;
      expect(onSpan[0]!.attributes["gen_ai.evaluation.explanation"]).toBe(comment);
    }

    // Metrics: the families are there and moved by what was just scored.
    const after = await scrape();
    const delta = (key: string) => (after.values.get(key) ?? 0) - (before.values.get(key) ?? 0);
    expect(delta('oodle_ingest_spans_total{result="accepted"}')).toBeGreaterThanOrEqual(3); // 2 chat spans + the root (other tests may add)
    expect(delta('oodle_runs_total{outcome="ok",evaluator_kind="code",source="live"}')).toBeGreaterThanOrEqual(2);
    expect(delta('oodle_runs_total{outcome="user_error",evaluator_kind="code",source="live"}')).toBeGreaterThanOrEqual(2);
    expect(delta('oodle_sandbox_item_duration_seconds_count{outcome="ok"}')).toBeGreaterThanOrEqual(2);
    expect(delta('oodle_queue_wait_seconds_count{queue="evaluate-target"}')).toBeGreaterThanOrEqual(4);
    expect(delta("oodle_evaluation_lag_seconds_count")).toBeGreaterThanOrEqual(4);
    expect(after.values.get("oodle_runner_starts_total")).toBeGreaterThanOrEqual(1);
    expect(after.values.get('oodle_runner_pool{state="max_busy"}')).toBeGreaterThanOrEqual(1);
    expect(after.values.has('oodle_queue_jobs{queue="evaluate-target",state="waiting"}')).toBe(true);
    expect(after.values.has('oodle_queue_oldest_waiting_job_age_seconds{queue="experiment-batch"}')).toBe(true);
    expect(after.text).toContain("# TYPE oodle_runner_retirements_total counter");
    // Bounded labels: no workspace, span, trace or evaluator id anywhere in the scrape.
    for (const id of [ws.workspace.id, sent.traceId, ...sent.spanIds]) expect(after.text).not.toContain(id);
  });

  it("counts rejected spans, and guards /metrics with its own token", async () => {
    const ws = await h.workspace("otlp-out");
    const before = await scrape();
    await ws.gql(`mutation($spans: [JSON!]!) { ingestSpans(input: { spans: $spans }) { evaluationsQueued } }`, { spans: [{ traceId: "t", spanId: "s" }] });
    const after = await scrape();
    expect((after.values.get('oodle_ingest_spans_total{result="rejected"}') ?? 0) - (before.values.get('oodle_ingest_spans_total{result="rejected"}') ?? 0)).toBeGreaterThanOrEqual(1);
    expect((await h.client.yoga.fetch("http://localhost/metrics")).status).toBe(401);
    expect((await h.client.yoga.fetch("http://localhost/metrics", { headers: { authorization: `Bearer ${ws.secret}` } })).status).toBe(401);

    // The separate listener (admin address, any role) serves the same registry without a token.
    const listener = await startMetricsListener(h.app, 0, "127.0.0.1");
    try {
      const { port } = listener.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("# TYPE oodle_runs_total counter");
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it("logs a collector that does not answer and goes on (export failures are not fatal)", async () => {
    const warnings: string[] = [];
    const logger = { warn: (_obj: unknown, message: string) => warnings.push(message) } as never;
    const closed = await listen(() => undefined);
    const url = `${closed.url}/v1/logs`;
    await closed.close();
    const exporter = createScoreExporter({ endpoint: url, prisma: h.app.prisma, logger });
    // A run of this file's own workspaces with scores (so it has events to export): another test's
    // run (of another file, without scores) would export nothing and log nothing.
    const own = await h.app.prisma.workspace.findMany({ where: { name: { startsWith: "otlp-out-" } }, select: { id: true } });
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { workspaceId: { in: own.map((w) => w.id) }, spanId: { not: null }, outcome: "ok", scores: { some: {} } } });
    exporter.runRecorded({ workspaceId: run.workspaceId, targetType: "span", targetId: run.spanId!, evaluatorId: run.evaluatorId });
    await exporter.flush();
    await exporter.close();
    expect(warnings).toContain("score export to the OTLP collector failed");
  });
});
