import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../../src/lib/logger.js";
import { createExecutor, type ExecuteItem, type ExecuteKey, type Executor, type Limits } from "../../src/execution/index.js";

/** Small limits so that attacks end quickly. */
export const TEST_LIMITS: Partial<Limits> = {
  cpuTimeMs: 1_000,
  wallTimeMs: 2_000,
  memoryBytes: 256 * 1024 * 1024,
  outputBytes: 16 * 1024,
  tmpfsBytes: 8 * 1024 * 1024,
};

export function testExecutor(limits: Partial<Limits> = TEST_LIMITS): Executor {
  return createExecutor({ limits, logger: createLogger("silent") });
}

export const EXPLOITS_DIR = join(import.meta.dirname, "exploits");

export function exploitSource(file: string): string {
  return readFileSync(join(EXPLOITS_DIR, file), "utf8");
}

export function keyFor(sourceCode: string, options: Partial<ExecuteKey> = {}): ExecuteKey {
  return { workspaceId: "ws-test", templateVersionId: "tv-1", sourceCode, libraries: {}, mode: "warm", ...options };
}

export function item(params: Record<string, unknown> = {}, workspaceId = "ws-test"): ExecuteItem {
  return { workspaceId, document: { input: "What is 2+2?", output: "4" }, params };
}
