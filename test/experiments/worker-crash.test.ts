// A poison pill in an experiment: a batch whose processing ended its worker twice (BullMQ found
// it stalled twice) is not run a third time: its unfinished runs are recorded as sandbox_error
// WorkerCrashed with the reason, runs already recorded stay, and the experiment completes.
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { WORKER_CRASH_LIMIT } from "../../src/modules/runs/processor.js";
import { createExperimentApp, importFile, principalOf, recipeEvaluator } from "./helpers.js";

const LENGTH = "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='length', value=len(ctx.output))])\n";

describe("an experiment batch that ended its worker repeatedly", () => {
  let app: App;
  beforeAll(() => {
    ({ app } = createExperimentApp()); // no worker: the test calls the batch processor itself
  });
  afterAll(() => app?.close());

  it(`is recorded after ${WORKER_CRASH_LIMIT} crashes without running again; earlier runs are kept`, async () => {
    const { principal } = await principalOf(app, "exp-crash");
    const file = join(tmpdir(), `crash-items-${process.pid}.jsonl`);
    writeFileSync(file, ["one", "three", "seven"].map((output, i) => JSON.stringify({ id: `i${i}`, input: "q", output })).join("\n") + "\n");
    const report = await importFile(app, principal, "crash", file);
    const { evaluator } = await recipeEvaluator(app, principal, "Length", LENGTH);
    const experiment = await app.services.experiments.createExperiment(principal, { datasetId: report.datasetId, evaluatorIds: [evaluator.id], batchSize: 2 });

    // Batch 0 (items 0 and 1) after one crash: it still runs.
    const first = await app.services.experimentBatch({ experimentId: experiment.id, batch: 0 }, { attempt: 2, last: false, crashes: WORKER_CRASH_LIMIT - 1 });
    expect(first).toMatchObject({ recorded: 2, deferred: 0 });
    // Batch 1 (item 2) after the second crash: recorded, not run.
    const second = await app.services.experimentBatch({ experimentId: experiment.id, batch: 1 }, { attempt: 3, last: false, crashes: WORKER_CRASH_LIMIT });
    expect(second).toMatchObject({ recorded: 1, alreadyDone: 0 });
    // Batch 0 again, as a crashed retry: what it recorded stays, nothing is added.
    const again = await app.services.experimentBatch({ experimentId: experiment.id, batch: 0 }, { attempt: 3, last: false, crashes: WORKER_CRASH_LIMIT });
    expect(again).toMatchObject({ recorded: 0, alreadyDone: 2 });

    const runs = await app.prisma.run.findMany({
      where: { experimentId: experiment.id },
      include: { scores: true, datasetItem: { select: { position: true } } },
      orderBy: { datasetItem: { position: "asc" } },
    });
    expect(runs.map((r) => [r.outcome, r.scores.map((s) => s.value)])).toEqual([
      ["ok", [3]],
      ["ok", [5]],
      ["sandbox_error", []],
    ]);
    expect(runs[2]).toMatchObject({ errorType: "WorkerCrashed", durationMs: 0 });
    expect(runs[2]!.errorMessage).toBe(`the worker running this experiment batch ended ${WORKER_CRASH_LIMIT} times before it finished; its remaining runs are not run again`);
    const done = await app.prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
    expect(done.status).toBe("completed");
  });
});
