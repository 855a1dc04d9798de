// Faults in a backfill batch: a sandbox fault retries the batch (and is recorded on its last
// attempt); a fault of the user's code in one span is recorded at once, not retried, and does not
// fail the other spans of the batch.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createExecutor } from "../../src/execution/index.js";
import { flakyExecutor } from "../flaky-executor.js";
import { createLogger } from "../../src/lib/logger.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { createTestWorkspace } from "../helpers.js";


/** Raises KeyError on the replies that end in an odd digit, scores the others. */
const ODD_RAISES = `from oodle_eval.v1 import text

def evaluate(ctx):
    reply = text.reply(ctx)
    if int(reply[-1]) % 2:
        return {}["odd"]
    return EvaluationResult(scores=[Score(name="even", value=True)])
`;

const flaky = flakyExecutor(createExecutor({ logger: createLogger("silent") }));
let app: App;
let workers: Workers;
beforeAll(async () => {
  app = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: `oodle-test-bf-faults-${randomUUID().slice(0, 8)}` }), { execution: flaky.executor });
  workers = await startWorkers(app, { queues: ["backfill-batch"], reconcileIntervalMs: 0 });
}, 120_000);
afterAll(async () => {
  await workers?.close();
  await app?.close();
});

/** A workspace with 20 chat spans of the last hour (reply i ends with the digit i % 10) and an evaluator of `source`. */
async function setUp(label: string, source: string) {
  const ws = await createTestWorkspace(app, label);
  const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
  const start = new Date(Date.now() - 3_600_000);
  const spans = Array.from({ length: 20 }, (_, i) => ({ traceId: `t${i}`, spanId: "s", name: "chat", startTime: new Date(start.getTime() + i * 1000).toISOString(), input: [{ role: "user", content: "q" }], output: `reply ${i % 10}` }));
  await app.services.spans.ingestSpans(principal, spans);
  const { template } = await app.services.templates.createTemplate(principal, { name: label, sourceCode: source });
  const evaluator = await app.services.evaluators.createEvaluator(principal, { name: label, templateId: template.id });
  return { principal, evaluator, start };
}

async function completed(id: string) {
  for (const deadline = Date.now() + 240_000; ; ) {
    const row = await app.prisma.backfill.findUniqueOrThrow({ where: { id } });
    if (row.status !== "queued" && row.status !== "running") return row;
    if (Date.now() > deadline) throw new Error(`still ${row.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const SCORE = 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="ok", value=True)])\n';

describe("faults in a backfill batch", () => {
  it("retries a sandbox fault: the batch runs again and records each run once, on attempt 2", { timeout: 300_000 }, async () => {
    const { principal, evaluator, start } = await setUp("bf-sandbox", SCORE);
    flaky.state.failures = 1;
    const { backfill } = await app.services.backfills.createBackfill(principal, { evaluatorId: evaluator.id, windowStart: start });
    expect((await completed(backfill.id)).status).toBe("completed");
    const runs = await app.prisma.run.findMany({ where: { evaluatorId: evaluator.id } });
    expect(runs).toHaveLength(20);
    expect(runs.every((r) => r.outcome === "ok" && r.attempts === 2)).toBe(true);
  });

  it("records a sandbox fault on the last attempt (4) instead of retrying for ever", { timeout: 300_000 }, async () => {
    const { principal, evaluator, start } = await setUp("bf-sandbox-last", SCORE);
    flaky.state.failures = 4;
    const { backfill } = await app.services.backfills.createBackfill(principal, { evaluatorId: evaluator.id, windowStart: start });
    expect((await completed(backfill.id)).status).toBe("completed");
    const runs = await app.prisma.run.findMany({ where: { evaluatorId: evaluator.id } });
    expect(runs).toHaveLength(20);
    expect(runs.every((r) => r.outcome === "sandbox_error" && r.attempts === 4 && r.errorMessage === "runner died (injected)")).toBe(true);
    expect(flaky.state.failures).toBe(0);
  });

  it("records a user fault at once and not retried; the other spans of the batch are scored", { timeout: 300_000 }, async () => {
    const { principal, evaluator, start } = await setUp("bf-user", ODD_RAISES);
    const calls = flaky.state.calls;
    const { backfill } = await app.services.backfills.createBackfill(principal, { evaluatorId: evaluator.id, windowStart: start });
    expect((await completed(backfill.id)).status).toBe("completed");
    expect(flaky.state.calls - calls).toBe(1); // one runner call for the batch, no retry
    const runs = await app.prisma.run.findMany({ where: { evaluatorId: evaluator.id }, include: { span: true } });
    expect(runs).toHaveLength(20);
    for (const run of runs) {
      const odd = Number(String(run.span!.output).slice(-1)) % 2 === 1;
      expect(run.outcome).toBe(odd ? "user_error" : "ok");
      expect(run.attempts).toBe(1);
      if (odd) expect(run.errorType).toBe("KeyError");
    }
    const summary = await app.services.backfills.runsByOutcome(backfill);
    expect(summary.map((s) => [s.outcome, s.count])).toEqual([["ok", 10], ["user_error", 10]]);
  });
});
