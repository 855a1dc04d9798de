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

/**
 * Limits for runs that are not about time: the machine is shared and busy (CPU-burning neighbours
 * stretch a second of CPU into several of wall clock), so an import or a recursion that ends by
 * itself must not hit a limit. Cases that expect `timeout` use {@link TEST_LIMITS}.
 */
export const GENEROUS_LIMITS: Partial<Limits> = { ...TEST_LIMITS, cpuTimeMs: 5_000, wallTimeMs: 20_000 };

/** An executor with `limits` (default {@link GENEROUS_LIMITS}); pass TEST_LIMITS to test timeouts. */
export function testExecutor(limits: Partial<Limits> = GENEROUS_LIMITS): Executor {
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
