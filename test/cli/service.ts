import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll } from "vitest";
import type { App } from "../../src/app.js";
import { TEST_DATABASE_URL } from "../env.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

/** The repository root and the `oodle` launcher. */
export const ROOT = join(import.meta.dirname, "../..");
export const OODLE_BIN = join(ROOT, "bin/oodle.js");

/** A free TCP port on loopback (asked of the kernel, then released). */
export async function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A running service (API + worker, `src/main.ts`) on a spare port, on the test database with queues of its own. */
export interface RunningService {
  url: string;
  app: App;
  /** A fresh workspace and its key (one per test). */
  workspace(label?: string): Promise<{ name: string; key: string }>;
  stop(): Promise<void>;
}

/** Starts the real service as a subprocess and waits for /ready (`env`: more of its environment). */
export async function startService(env: Record<string, string> = {}): Promise<RunningService> {
  const port = await sparePort();
  const prefix = `oodle-test-cli-${randomUUID().slice(0, 8)}`;
  const child: ResultPromise = execa(process.execPath, ["--import", "tsx", join(ROOT, "src/main.ts")], {
    cwd: ROOT,
    env: { DATABASE_URL: TEST_DATABASE_URL, QUEUE_PREFIX: prefix, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "silent", ...env },
    reject: false,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ready = await fetch(`${url}/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the service did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const app = createTestApp();
  return {
    url,
    app,
    async workspace(label = "cli") {
      const ws = await createTestWorkspace(app, label);
      return { name: ws.workspace.name, key: ws.secret };
    },
    async stop() {
      child.kill("SIGTERM");
      await child;
      await app.close();
    },
  };
}

/**
 * The service for the test file that calls it: started before its tests (2 min allowed), stopped
 * after them. The object is filled in once started, so tests read it as they would the started one.
 */
export function serviceForThisFile(env: Record<string, string> = {}): RunningService {
  const service = {} as RunningService;
  beforeAll(async () => {
    Object.assign(service, await startService(env));
  }, 120_000);
  afterAll(async () => {
    await service.stop?.();
  });
  return service;
}

/** The result of one `oodle` run. */
export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `oodle ARGS` as a subprocess against the service with a workspace's key (and a config dir of its own). */
export function cliRunner(service: RunningService, key: string) {
  const configDir = mkdtempSync(join(tmpdir(), "oodle-cli-"));
  return async (args: string[], env: Record<string, string> = {}): Promise<CliResult> => {
    const r = await execa(process.execPath, [OODLE_BIN, ...args], {
      cwd: ROOT,
      reject: false,
      env: { OODLE_API_URL: service.url, OODLE_API_KEY: key, OODLE_CONFIG_DIR: configDir, ...env },
      stdin: "ignore",
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
}
