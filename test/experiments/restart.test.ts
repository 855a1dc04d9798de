import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import type { Workers } from "../../src/worker.js";
import { ALL_CHECKS_PASS } from "../fixtures/cookbook-recipes.js";
import { ROOT, createExperimentApp, importFile, principalOf, recipeEvaluator, startExperimentWorker, waitFor, waitForExperiment } from "./helpers.js";

/**
 * A second evaluator that depends on the first and reads its score with ctx.score, taking a
 * little time per item so the run is long enough to interrupt.
 */
const SLOW = `import time


def evaluate(ctx):
    time.sleep(0.004)
    seen = ctx.score("Safe reply", "safe_reply", default=None)
    return EvaluationResult(scores=[Score(name="safe_seen", value=seen, data_type="BOOLEAN")])
`;

describe("a worker killed in the middle of an experiment", () => {
  let app: App;
  let prefix: string;
  let workers: Workers | undefined;

  beforeAll(() => {
    ({ app, prefix } = createExperimentApp());
  });
  afterAll(async () => {
    await workers?.close();
    await app?.close();
  });

  it("is resumed by another worker and every item ends with exactly one run per evaluator", async () => {
    const { principal } = await principalOf(app, "restart");
    const report = await importFile(app, principal, "restart-500");
    const safe = await recipeEvaluator(app, principal, "Safe reply", ALL_CHECKS_PASS);
    const slow = await recipeEvaluator(app, principal, "Reply check", SLOW, [{ evaluator: "Safe reply" }]);

    // The first worker runs in a child process, killed with SIGKILL once some runs are recorded.
    // `node --import tsx` (not the tsx CLI, which would put a process of its own in between).
    const child = execa(process.execPath, ["--import", "tsx", join(import.meta.dirname, "worker-child.ts")], {
      cwd: ROOT,
      env: { ...process.env, QUEUE_PREFIX: prefix },
      reject: false,
      buffer: false,
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
      child.once("exit", (code) => reject(new Error(`worker child exited early (${code})`)));
    });
    const experiment = await app.services.experiments.createExperiment(principal, {
      datasetId: report.datasetId,
      evaluatorIds: [safe.evaluator.id, slow.evaluator.id],
      batchSize: 50,
    });
    const runsAtKill = await waitFor(async () => {
      const n = await app.prisma.run.count({ where: { experimentId: experiment.id } });
      return n >= 150 ? n : 0;
    }, 60_000, 20);
    child.kill("SIGKILL");
    await child;
    expect(runsAtKill).toBeLessThan(1000); // killed mid-run, not after the end
    const before = await app.prisma.run.count({ where: { experimentId: experiment.id } });
    expect(before).toBeLessThan(1000);

    // A fresh worker takes over the killed worker's batches (once their locks expire) and the rest.
    workers = await startExperimentWorker(app, { lockDuration: 2_000, stalledInterval: 1_000 });
    const finished = await waitForExperiment(app, experiment.id, 90_000);
    expect(finished.status).toBe("completed");

    const runs = await app.prisma.run.findMany({ where: { experimentId: experiment.id }, select: { datasetItemId: true, evaluatorId: true, outcome: true } });
    expect(runs).toHaveLength(1000);
    const perItem = new Map<string, string[]>();
    for (const r of runs) perItem.set(r.datasetItemId!, [...(perItem.get(r.datasetItemId!) ?? []), r.evaluatorId]);
    expect(perItem.size).toBe(500);
    for (const evaluators of perItem.values()) expect(evaluators.sort()).toEqual([safe.evaluator.id, slow.evaluator.id].sort());
    expect(runs.every((r) => r.outcome === "ok")).toBe(true);
    // Scores were written once per run too, and the dependent read its dependency's score on each item.
    const scores = await app.prisma.score.findMany({ where: { experimentId: experiment.id } });
    expect(scores).toHaveLength(500 * 4 + 500);
    const safeReply = new Map(scores.filter((s) => s.name === "safe_reply").map((s) => [s.datasetItemId, s.value]));
    for (const seen of scores.filter((s) => s.name === "safe_seen")) expect(seen.value).toBe(safeReply.get(seen.datasetItemId));
    expect(await app.services.experiments.progress(finished)).toMatchObject({ done: 500, pending: 0, runsRecorded: 1000 });
  }, 180_000);
});
