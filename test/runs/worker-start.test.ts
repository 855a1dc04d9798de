// Fail closed (docs/sandbox.md § Fail closed): a worker that would run user code refuses to start when the sandbox is unusable.
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { PreflightError, type Executor } from "../../src/execution/index.js";
import { startWorkers } from "../../src/worker.js";

const broken: Executor = {
  limits: {} as Executor["limits"],
  ready: () => Promise.reject(new PreflightError("bubblewrap not found at /usr/bin/bwrap")),
  execute: () => Promise.reject(new Error("never called")),
  close: () => Promise.resolve(),
};
const app = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: "oodle-test-runs-preflight" }), { execution: broken });
afterAll(() => app.close());

describe("startWorkers", () => {
  it("rejects with the sandbox's reason before any worker starts", async () => {
    await expect(startWorkers(app)).rejects.toThrow("the evaluator sandbox is not usable on this machine: bubblewrap not found at /usr/bin/bwrap");
  });
  it("still starts workers of queues that run no user code", async () => {
    const workers = await startWorkers(app, { queues: ["api-key-usage"] });
    await workers.close();
  });
});
