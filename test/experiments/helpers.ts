import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import type { App } from "../../src/app.js";
import { itemToDocument } from "../../src/modules/experiments/document.js";
import type { Principal } from "../../src/lib/principal.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

/** The repository root. */
export const ROOT = join(import.meta.dirname, "../..");
/** 500 real items (xstest, truthfulqa, halueval, tau-bench) copied from ../shared/data. */
export const FIXTURE = join(ROOT, "test/fixtures/experiment-items.jsonl");

/** An app with a queue prefix of its own (so each test has its own queues and worker). */
export function createExperimentApp(): { app: App; prefix: string } {
  const prefix = `oodle-test-exp-${randomUUID().slice(0, 8)}`;
  return { app: createTestApp({ QUEUE_PREFIX: prefix }), prefix };
}

/** A workspace of its own and its principal. */
export async function principalOf(app: App, label = "exp"): Promise<{ principal: Principal; secret: string }> {
  const ws = await createTestWorkspace(app, label);
  return { principal: { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id }, secret: ws.secret };
}

/** Imports a JSON Lines file into a dataset of the principal's workspace. */
export function importFile(app: App, principal: Principal, name: string, file = FIXTURE, mode: "abort" | "skip" = "abort") {
  return app.services.datasets.importItems(principal, { name, mode }, createReadStream(file));
}

/** A template from a recipe's source and an evaluator of it (with dependencies, when given). */
export async function recipeEvaluator(app: App, principal: Principal, name: string, sourceCode: string, dependencies?: { evaluator: string; gate?: { score: string } }[]) {
  const { template } = await app.services.templates.createTemplate(principal, { name: `${name} template`, sourceCode });
  const evaluator = await app.services.evaluators.createEvaluator(principal, { name, templateId: template.id, ...(dependencies ? { dependencies } : {}) });
  return { template, evaluator };
}

/** Starts the experiment-batch worker of this app; `stalled` lowers BullMQ's lock/stall timers. */
export function startExperimentWorker(app: App, stalled?: { lockDuration?: number; stalledInterval?: number }): Promise<Workers> {
  return startWorkers(app, { queues: ["experiment-batch"], ...(stalled ? { stalled } : {}) });
}

/** Polls until `check` returns a truthy value or the time is up. */
export async function waitFor<T>(check: () => Promise<T>, timeoutMs = 120_000, everyMs = 250): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Waits until `read()` has kept the same value for `quietMs` (work that is winding down, such as
 * batches finishing their current item after a cancel, on a machine of any speed) and returns it.
 */
export async function waitForSteady<T>(read: () => Promise<T>, quietMs = 1_500, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  let since = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await read();
    if (now !== last) [last, since] = [now, Date.now()];
    else if (Date.now() - since >= quietMs) return now;
    if (Date.now() > deadline) throw new Error(`still changing after ${timeoutMs} ms (last value ${String(now)})`);
  }
}

/** Waits until the experiment is completed (or cancelled) and returns it. */
export function waitForExperiment(app: App, experimentId: string, timeoutMs = 120_000) {
  return waitFor(async () => {
    const e = await app.prisma.experiment.findUniqueOrThrow({ where: { id: experimentId } });
    return e.status === "completed" || e.status === "cancelled" ? e : null;
  }, timeoutMs);
}

/**
 * The scores the same evaluator gives outside the sandbox: scripts/bench/bare_loop.py over the
 * sample documents of the dataset's items (in position order).
 */
export async function bareScores(app: App, datasetId: string, sourceCode: string): Promise<({ name: string; value: unknown }[] | { error: string })[]> {
  const items = await app.prisma.datasetItem.findMany({ where: { datasetId }, orderBy: { position: "asc" } });
  const input = JSON.stringify({ source: sourceCode, items: items.map((item) => ({ document: itemToDocument(item), params: {}, dependencies: [] })) });
  const { stdout } = await execa("/usr/bin/python3.11", [join(ROOT, "scripts/bench/bare_loop.py")], {
    input,
    env: { PYTHONPATH: join(ROOT, "python-lib") },
    extendEnv: false,
    maxBuffer: 512 * 1024 * 1024,
  });
  return (JSON.parse(stdout) as { results: ({ name: string; value: unknown }[] | { error: string })[] }).results;
}
