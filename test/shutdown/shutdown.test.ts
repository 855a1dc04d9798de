import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Queue } from "bullmq";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { createRedis } from "../../src/lib/redis.js";
import type { Workers } from "../../src/worker.js";
import { ROOT, sparePort } from "../cli/service.js";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "../env.js";
import { FIXTURE, principalOf, recipeEvaluator, startExperimentWorker, waitFor, waitForExperiment } from "../experiments/helpers.js";
import { createTestApp } from "../helpers.js";

/** Generous: the machine is shared; the service must exit within it, and exits 1 past it. */
const SHUTDOWN_TIMEOUT_MS = 45_000;
const ITEMS = 60;
/** An evaluator slow enough (0.1 s an item) that the experiment is mid-run when SIGTERM comes. */
const SLOW = `import time


def evaluate(ctx):
    time.sleep(0.1)
    return EvaluationResult(scores=[Score(name="seen", value=True, data_type="BOOLEAN")])
`;

// SIGTERM to the real service (a subprocess: API + worker) while an experiment runs and a client
// holds its progress subscription open over SSE: the process exits 0 within the shutdown
// timeout, the subscription is ended, the batch in progress is finished (none left active), and
// the rest of the experiment is still queued: another worker completes it, each item run once.
describe("graceful shutdown", () => {
  let app: App;
  let prefix: string;
  let workers: Workers | undefined;
  beforeAll(() => {
    prefix = `oodle-test-shutdown-${randomUUID().slice(0, 8)}`;
    app = createTestApp({ QUEUE_PREFIX: prefix });
  });
  afterAll(async () => {
    await workers?.close();
    await app.close();
  });

  it("exits 0 on SIGTERM with an open SSE subscription, finishing or handing back in-flight jobs", async () => {
    const { principal, secret } = await principalOf(app, "shutdown");
    const lines = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean).slice(0, ITEMS).join("\n");
    const dataset = await app.services.datasets.importItems(principal, { name: "shutdown" }, Readable.from([lines]));
    const { evaluator } = await recipeEvaluator(app, principal, "Slow check", SLOW);

    const port = await sparePort();
    const child = execa(process.execPath, ["--import", "tsx", join(ROOT, "src/main.ts")], {
      cwd: ROOT,
      env: { DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info", SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS), RECONCILE_INTERVAL_MS: "0" },
      reject: false,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitFor(async () => child.exitCode === null && (await fetch(`${url}/ready`).then((r) => r.ok, () => false)), 120_000);
    } catch (error) {
      child.kill("SIGKILL");
      throw new Error(`the service did not start: ${output}`, { cause: error });
    }

    const experiment = await app.services.experiments.createExperiment(principal, { datasetId: dataset.datasetId, evaluatorIds: [evaluator.id], batchSize: 5 });
    const gid = Buffer.from(`Experiment:${experiment.id}`).toString("base64");
    const sse = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: "subscription ($id: ID!) { experimentProgress(id: $id) { status progress { done total } } }", variables: { id: gid } }),
    });
    expect(sse.headers.get("content-type")).toContain("text/event-stream");
    const reader = sse.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/event: next|:/);
    // The stream, read to its end in the background: it must end when the service stops.
    const streamEnded = (async () => {
      for (;;) {
        const { done } = await reader.read().catch(() => ({ done: true }));
        if (done) return true;
      }
    })();

    // Mid-run: some items have their run, not all.
    await waitFor(async () => (await app.prisma.run.count({ where: { experimentId: experiment.id } })) >= 1, 120_000, 50);
    expect(await app.prisma.run.count({ where: { experimentId: experiment.id } })).toBeLessThan(ITEMS);

    child.kill("SIGTERM");
    const result = await child;
    expect({ exitCode: result.exitCode, signal: result.signal ?? null }, output).toEqual({ exitCode: 0, signal: null });
    expect(output).toContain('"msg":"stopped"');
    // Nothing went wrong on the way down (no error logged after the signal).
    const afterSignal = output.slice(output.indexOf('"msg":"shutting down"')).split("\n").filter((l) => /"level":(50|60)/.test(l));
    expect(afterSignal).toEqual([]);
    expect(await Promise.race([streamEnded, new Promise((r) => setTimeout(() => r(false), 5_000))])).toBe(true);

    // Nothing was left active (the batch in progress was finished); the rest is still queued.
    const connection = createRedis(TEST_REDIS_URL, "worker");
    const queue = new Queue("experiment-batch", { connection, prefix });
    const counts = await queue.getJobCounts("active", "waiting", "delayed", "prioritized", "completed", "failed");
    await queue.close();
    connection.disconnect();
    expect(counts.active, JSON.stringify(counts)).toBe(0);
    expect(counts.failed).toBe(0);
    const runsAtExit = await app.prisma.run.count({ where: { experimentId: experiment.id } });
    expect(runsAtExit % 5, "a batch was cut short rather than finished").toBe(0);

    // Handed back, not lost: another worker completes the experiment, every item run exactly once.
    workers = await startExperimentWorker(app);
    expect((await waitForExperiment(app, experiment.id, 180_000)).status).toBe("completed");
    const runs = await app.prisma.run.findMany({ where: { experimentId: experiment.id }, select: { datasetItemId: true, outcome: true } });
    expect(runs).toHaveLength(ITEMS);
    expect(new Set(runs.map((r) => r.datasetItemId)).size).toBe(ITEMS);
    expect(runs.every((r) => r.outcome === "ok")).toBe(true);
  }, 400_000);
});
