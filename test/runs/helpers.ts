import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Queue } from "bullmq";
import { execa } from "execa";
import type { App } from "../../src/app.js";
import type { Executor } from "../../src/execution/index.js";
import { createRedis } from "../../src/lib/redis.js";
import type { Principal } from "../../src/lib/principal.js";
import { queueRegistry, type QueueName } from "../../src/queues/registry.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import type { Clock } from "../../src/lib/clock.js";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createTestWorkspace, graphqlClient } from "../helpers.js";

/** One item of shared/data's items.jsonl (common shape). */
export interface DataItem {
  id: string;
  input: unknown;
  output: string | null;
  expected_output: string | null;
  context: unknown;
  tool_calls: unknown;
  metadata: Record<string, unknown>;
}

/** 20 llmfao + xstest items copied into test/fixtures (the tests do not read ../shared). */
export const LIVE_ITEMS: DataItem[] = readFileSync(join(import.meta.dirname, "../fixtures/live-items.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line) as DataItem);

/** The user turns of an item as OTel GenAI messages (parts). */
function genaiMessages(messages: unknown, role: string): unknown[] {
  const list = typeof messages === "string" ? [{ role, content: messages }] : (messages as { role: string; content: string }[]);
  return list.map((m) => ({ role: m.role, parts: [{ type: "text", content: m.content }] }));
}

/**
 * A chat span from a data item: even-numbered items in the OpenAI shape (`input`/`output`), odd
 * ones in the OTel GenAI shape (`gen_ai.input.messages` / `gen_ai.output.messages` as JSON strings).
 */
export function itemToSpan(item: DataItem, index: number, traceId: string): Record<string, unknown> {
  const common = {
    traceId,
    spanId: `${item.id}`,
    name: "chat.completion",
    kind: "chat",
    startTime: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    metadata: { item: item.id },
  };
  const model = String(item.metadata.model ?? "unknown");
  if (index % 2 === 0) return { ...common, input: item.input, output: item.output, attributes: { "gen_ai.request.model": model, "app.set": item.id.split("-")[0] } };
  return {
    ...common,
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": model,
      "app.set": item.id.split("-")[0],
      "gen_ai.input.messages": JSON.stringify(genaiMessages(item.input, "user")),
      "gen_ai.output.messages": JSON.stringify(genaiMessages(item.output ?? "", "assistant")),
    },
  };
}

/** The item as the sample document the CLI reads (OpenAI shape), for reference scores. */
export function itemDocument(item: DataItem): Record<string, unknown> {
  return { input: item.input, output: item.output };
}

// What `python -m oodle_eval run --json` does (oodle_eval/__main__.py `_cmd_run`), for many cases in
// one process and outside the sandbox: the reference that the live path must reproduce.
const REFERENCE = `
import json, sys, traceback
sys.path.insert(0, sys.argv[1])
from oodle_eval.__main__ import add_shims_if_needed
from oodle_eval.v1 import make_context
from oodle_eval.v1.entrypoint import detect_entry_point, load_evaluator, run_entry_point
add_shims_if_needed()
out = []
for case in json.load(sys.stdin):
    entry = detect_entry_point(case["source"])
    try:
        namespace = load_evaluator(case["source"])
        scores = run_entry_point(namespace, make_context(case["document"], params=case["params"]), kind=entry["kind"])
        out.append({"ok": True, "scores": [s.to_dict() for s in scores]})
    except Exception as error:
        out.append({"ok": False, "type": type(error).__name__})
print(json.dumps(out))
`;

/** A reference result: the scores python-lib computes with no sandbox, or the exception type. */
export type Reference = { ok: true; scores: { name: string; value: unknown; data_type: string; higher_is_better: boolean; comment: string | null; metadata: unknown }[] } | { ok: false; type: string };

/** Runs each (source, document, params) with python-lib directly (no sandbox, no queue). */
export async function referenceScores(cases: { source: string; document: unknown; params: Record<string, unknown> }[]): Promise<Reference[]> {
  const pythonLib = join(import.meta.dirname, "../../python-lib");
  const result = await execa("/usr/bin/python3.11", ["-I", "-c", REFERENCE, pythonLib], { input: JSON.stringify(cases) });
  return JSON.parse(String(result.stdout)) as Reference[];
}

/** Deletes every key of a BullMQ queue under a prefix (tests use a prefix of their own). */
export async function obliterate(app: App, prefix: string, names: readonly QueueName[] = Object.keys(queueRegistry) as QueueName[]): Promise<void> {
  const connection = createRedis(app.config.REDIS_URL, "producer");
  try {
    for (const name of names) {
      const queue = new Queue(name, { connection, prefix });
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  } finally {
    connection.disconnect();
  }
}

/**
 * An app on a BullMQ prefix of its own (`oodle-test-<label>-…`) with workers for `queues`
 * (default: `evaluate-target`), and fresh workspaces. `startWorker: false` starts none until
 * `startWorker()`; `execution` replaces the sandbox executor.
 */
export async function liveHarness(
  options: { execution?: Executor; startWorker?: boolean; queues?: QueueName[]; label?: string; env?: Record<string, string>; clock?: Clock } = {},
) {
  const label = options.label ?? "runs";
  const queues = options.queues ?? ["evaluate-target"];
  const prefix = `oodle-test-${label}-${randomUUID().slice(0, 8)}`;
  const app = createApp(loadConfig({ ...process.env, ...options.env, QUEUE_PREFIX: prefix }), { execution: options.execution, ...(options.clock ? { clock: options.clock } : {}) });
  let workers: Workers | undefined = options.startWorker === false ? undefined : await startWorkers(app, { queues });
  const client = graphqlClient(app);
  return {
    app,
    prefix,
    client,
    /** Starts the workers later (for tests that enqueue first). */
    async startWorker() {
      workers ??= await startWorkers(app, { queues });
    },
    async workspace(workspaceLabel = label) {
      const ws = await createTestWorkspace(app, workspaceLabel);
      const principal: Principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
      const gql = (query: string, variables: Record<string, unknown> = {}) => client.request(query, variables, ws.secret);
      return { ...ws, principal, gql };
    },
    async close() {
      await workers?.close();
      await obliterate(app, prefix);
      await app.close();
    },
  };
}

/** Waits until `count()` reaches `expected` (polling), or fails after `timeoutMs` saying how far it got. */
export async function waitFor(count: () => Promise<number>, expected: number, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = -1;
  while (Date.now() < deadline) {
    seen = await count();
    if (seen >= expected) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out: ${seen} of ${expected}`);
}
