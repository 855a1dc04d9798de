// More than one worker process: `--role worker` started twice on the same Redis and
// Postgres shares one live burst (with a gated dependency) and one experiment, and every
// (span, evaluator) and (item, evaluator) pair ends with exactly one run.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { Queue } from "bullmq";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { createRedis } from "../../src/lib/redis.js";
import { ALL_CHECKS_PASS } from "../fixtures/cookbook-recipes.js";
import { chatSpan } from "../dependencies/helpers.js";
import { importFile, principalOf, recipeEvaluator, ROOT, waitForExperiment } from "../experiments/helpers.js";
import { createTestApp } from "../helpers.js";
import { obliterate, waitFor } from "./helpers.js";

const REPLIES = ['{"answer": "42", "sources": ["doc-1"]}', "Sorry, I cannot answer that.", "{not json"];

/** The test environment on this test's queue prefix, with no metrics listener. */
function workerEnv(): Record<string, string> {
  const env = { ...process.env, QUEUE_PREFIX: prefix, LOG_LEVEL: "warn" } as Record<string, string>;
  delete env.METRICS_PORT;
  return env;
}

let app: App;
let prefix: string;
const children: ResultPromise[] = [];
beforeAll(() => {
  prefix = `oodle-test-two-${randomUUID().slice(0, 8)}`;
  app = createTestApp({ QUEUE_PREFIX: prefix });
});
afterAll(async () => {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children);
  await obliterate(app, prefix);
  await app.close();
});

describe("two worker processes", () => {
  it("share a live burst and an experiment with exactly one run per pair", async () => {
    // Two `--role worker` processes, as an operator would start them (short lock timers are not needed).
    for (let i = 0; i < 2; i++) {
      children.push(execa(process.execPath, ["--import", "tsx", join(ROOT, "src/main.ts"), "--role", "worker"], {
        cwd: ROOT,
        env: workerEnv(),
        extendEnv: false,
        reject: false,
        buffer: false,
      }));
    }
    const connection = createRedis(app.config.REDIS_URL, "producer");
    const queue = new Queue("evaluate-target", { connection, prefix });
    try {
      await waitFor(async () => (await queue.getWorkers()).length, 2, 120_000);

      const { principal } = await principalOf(app, "two");
      const { templates, evaluators, spans } = app.services;
      const shape = await templates.createTemplateFromStarter(principal, "json-shape");
      const keyword = await templates.createTemplateFromStarter(principal, "keyword-check");
      const check = await evaluators.createEvaluator(principal, { name: "JSON check", templateId: shape.template.id });
      const words = await evaluators.createEvaluator(principal, { name: "Refusal words", templateId: keyword.template.id, params: { required: ["sorry"], mode: "any" } });
      const gated = await evaluators.createEvaluator(principal, { name: "Gated words", templateId: keyword.template.id, params: { required: ["sources"], mode: "any" }, dependencies: [{ evaluator: "JSON check", gate: { score: "is_json" } }] });
      const safe = await recipeEvaluator(app, principal, "Safe reply", ALL_CHECKS_PASS);
      const dataset = await importFile(app, principal, "two-workers");
      const experiment = await app.services.experiments.createExperiment(principal, { datasetId: dataset.datasetId, evaluatorIds: [safe.evaluator.id, words.id], batchSize: 50 });
      const N = 1_200;
      for (let from = 0; from < N; from += 400) {
        const result = await spans.ingestSpans(principal, Array.from({ length: 400 }, (_, k) => chatSpan(`two-${from + k}`, "s", REPLIES[(from + k) % 3]!)));
        expect(result.evaluationsQueued).toBe(4 * 400); // 4 evaluators: "Safe reply" runs live too
      }
      const live = { workspaceId: principal.workspaceId, spanId: { not: null } } as const;
      await waitFor(() => app.prisma.run.count({ where: live }), 4 * N, 240_000);
      expect((await waitForExperiment(app, experiment.id, 240_000)).status).toBe("completed");
      await new Promise((r) => setTimeout(r, 1_000)); // nothing more arrives

      const [livePairs] = await app.prisma.$queryRaw<{ n: bigint; distinct: bigint }[]>`
        SELECT count(*) AS n, count(DISTINCT ("spanId", "evaluatorId")) AS distinct FROM "Run" WHERE "workspaceId" = ${principal.workspaceId}::uuid AND "spanId" IS NOT NULL`;
      expect(livePairs).toEqual({ n: BigInt(4 * N), distinct: BigInt(4 * N) });
      const [itemPairs] = await app.prisma.$queryRaw<{ n: bigint; distinct: bigint }[]>`
        SELECT count(*) AS n, count(DISTINCT ("datasetItemId", "evaluatorId")) AS distinct FROM "Run" WHERE "experimentId" = ${experiment.id}::uuid`;
      expect(itemPairs).toEqual({ n: BigInt(2 * dataset.imported), distinct: BigInt(2 * dataset.imported) });
      // Gate and order held across processes: the gated evaluator ran only after the check, skipped where it failed.
      const gatedRuns = await app.prisma.run.findMany({ where: { evaluatorId: gated.id }, select: { outcome: true, startedAt: true, spanId: true } });
      const checks = new Map((await app.prisma.run.findMany({ where: { evaluatorId: check.id }, select: { spanId: true, finishedAt: true } })).map((r) => [r.spanId, r.finishedAt!]));
      expect(gatedRuns.filter((r) => r.outcome === "skipped")).toHaveLength((2 * N) / 3);
      for (const r of gatedRuns) expect(r.startedAt!.getTime()).toBeGreaterThanOrEqual(checks.get(r.spanId)!.getTime());
      // Both processes did live work.
      const completed = await queue.getJobs(["completed"], 0, 4 * N);
      expect(new Set(completed.map((j) => j.processedBy).filter(Boolean)).size).toBe(2);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  }, 600_000);
});
