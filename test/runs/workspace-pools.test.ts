// A worker pool per workspace (src/queues/workspace-pools.ts, sandbox/README.md § Known residuals):
// a worker started with WORKER_WORKSPACES runs the sandboxed jobs of those workspaces only, one
// with WORKER_EXCLUDE_WORKSPACES every other workspace's; both take jobs from the same queue, on
// one Redis, and hand back what is not theirs. Each side's real sandbox executor records whose
// items it ran.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { ConfigError, loadConfig } from "../../src/config.js";
import { createExecutor, type Executor } from "../../src/execution/index.js";
import { createLogger } from "../../src/lib/logger.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { chatSpan } from "../dependencies/helpers.js";
import { createTestWorkspace } from "../helpers.js";
import { obliterate, waitFor } from "./helpers.js";

/** The real sandbox executor, noting the workspace of every key it runs. */
function recordingExecutor(seen: Set<string>): Executor {
  const real = createExecutor({ logger: createLogger("silent") });
  return {
    get limits() {
      return real.limits;
    },
    ready: () => real.ready(),
    execute: (key, items) => {
      seen.add(key.workspaceId);
      return real.execute(key, items);
    },
    close: () => real.close(),
    stats: () => real.stats?.(),
  } as Executor;
}

const prefix = `oodle-test-pools-${randomUUID().slice(0, 8)}`;
const apps: App[] = [];
const workers: Workers[] = [];
afterAll(async () => {
  for (const w of workers) await w.close();
  await obliterate(apps[0]!, prefix);
  for (const app of apps) await app.close();
});

describe("worker pools per workspace", () => {
  it("a pool's workers run only its workspace's evaluations, the other workers every other workspace's", async () => {
    const seenByPool = new Set<string>();
    const seenByOthers = new Set<string>();
    const poolApp = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: prefix }), { execution: recordingExecutor(seenByPool) });
    apps.push(poolApp);
    const pooled = await createTestWorkspace(poolApp, "pooled");
    const shared = await createTestWorkspace(poolApp, "shared");
    // Configured as an operator would: one env var on each kind of worker.
    const othersApp = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: prefix, WORKER_EXCLUDE_WORKSPACES: pooled.workspace.id }), { execution: recordingExecutor(seenByOthers) });
    apps.push(othersApp);
    const poolConfig = loadConfig({ ...process.env, QUEUE_PREFIX: prefix, WORKER_WORKSPACES: ` ${pooled.workspace.id} ,` });
    expect(poolConfig.WORKER_WORKSPACES).toEqual([pooled.workspace.id]);
    workers.push(await startWorkers(poolApp, { queues: ["evaluate-target"], workspaces: { only: new Set(poolConfig.WORKER_WORKSPACES) } }));
    workers.push(await startWorkers(othersApp, { queues: ["evaluate-target"] }));

    const N = 30;
    for (const ws of [pooled, shared]) {
      const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
      const keyword = await poolApp.services.templates.createTemplateFromStarter(principal, "keyword-check");
      await poolApp.services.evaluators.createEvaluator(principal, { name: "Refusal words", templateId: keyword.template.id, params: { required: ["sorry"], mode: "any" } });
      // Several small ingests: several jobs, each taken by whichever worker fetches first.
      for (let from = 0; from < N; from += 5) {
        const result = await poolApp.services.spans.ingestSpans(principal, Array.from({ length: 5 }, (_, k) => chatSpan(`pool-${from + k}`, "s", k % 2 ? "Sorry, no." : "Sure.")));
        expect(result.evaluationsQueued).toBe(5);
      }
    }
    for (const ws of [pooled, shared]) await waitFor(() => poolApp.prisma.run.count({ where: { workspaceId: ws.workspace.id } }), N, 120_000);
    expect({ pool: [...seenByPool], others: [...seenByOthers] }).toEqual({ pool: [pooled.workspace.id], others: [shared.workspace.id] });
    // Handed-back jobs used no attempt and ran once.
    expect(await poolApp.prisma.run.count({ where: { workspaceId: { in: [pooled.workspace.id, shared.workspace.id] } } })).toBe(2 * N);
  });

  it("refuses a bad list, naming the variable, and both lists at once", () => {
    expect(() => loadConfig({ WORKER_WORKSPACES: `${randomUUID()},ws-2` })).toThrow(new ConfigError([{ variable: "WORKER_WORKSPACES", message: "must be a comma-separated list of workspace ids (UUIDs)" }]));
    expect(() => loadConfig({ WORKER_EXCLUDE_WORKSPACES: " , " })).toThrow(/WORKER_EXCLUDE_WORKSPACES: must name at least one workspace id/);
    const id = randomUUID();
    expect(() => loadConfig({ WORKER_WORKSPACES: id, WORKER_EXCLUDE_WORKSPACES: id })).toThrow(/WORKER_WORKSPACES: set either WORKER_WORKSPACES .* not both/);
    expect(loadConfig({ WORKER_EXCLUDE_WORKSPACES: `${id},${id.toUpperCase()}` }).WORKER_EXCLUDE_WORKSPACES).toHaveLength(2);
  });
});
