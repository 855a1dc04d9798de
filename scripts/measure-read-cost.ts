/**
 * Measures what one amplified read costs the API (issue 35, point 1): 30 aliases of
 * `experiment { items(first: 500) { … runs { scores } } }` over a finished experiment of 500
 * items, sent to an API process of its own; prints the HTTP status, the time to the last byte,
 * the response size, the API's RSS before and after and its peak RSS (VmHWM) growth, then the same
 * for a legitimate page of 100 items with their runs.
 *
 * Usage: npx tsx scripts/measure-read-cost.ts   (DATABASE_URL, QUEUE_PREFIX, PORT from the environment)
 * It makes a workspace, a dataset of test/fixtures/experiment-items.jsonl and an experiment of
 * one evaluator (run by an in-process worker) each time; the API it starts is stopped at the end.
 */
import { createReadStream, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { encodeGlobalID } from "@pothos/plugin-relay";
import { execa } from "execa";
import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { startWorkers } from "../src/worker.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const config = loadConfig();
const port = config.PORT;
const app = createApp(config);

/** VmRSS and VmHWM of a process, in MiB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

const ws = await app.services.workspaces.createWorkspace(`read-cost-${Date.now()}`);
const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
await app.services.datasets.importItems(principal, { name: "items" }, createReadStream(path.join(ROOT, "test/fixtures/experiment-items.jsonl")));
const dataset = await app.services.datasets.lookupDataset(principal, { name: "items" });
const { template } = await app.services.templates.createTemplate(principal, {
  name: "length",
  sourceCode: "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='length', value=len(str(ctx.output)))])\n",
});
const experiment = await app.services.experiments.createExperiment(principal, { datasetId: dataset.id, templateIds: [template.id] });
const workers = await startWorkers(app, { queues: ["experiment-batch"] });
for (;;) {
  const e = await app.prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
  if (e.status === "completed") break;
  await new Promise((r) => setTimeout(r, 500));
}
await workers.close();
console.error(`experiment of ${dataset.itemCount} items completed`);

const api = execa(process.execPath, ["--import", "tsx", "src/main.ts", "--role", "api"], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "warn" }, stdio: "inherit", reject: false });
const url = `http://127.0.0.1:${port}/graphql`;
for (let i = 0; ; i++) {
  if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)) break;
  if (i > 240) throw new Error("the API did not start");
  await new Promise((r) => setTimeout(r, 250));
}

async function send(query: string): Promise<{ status: number; ms: number; bytes: number; errors: string }> {
  const started = performance.now();
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${ws.secret}` }, body: JSON.stringify({ query }) });
  const body = await response.text();
  const ms = performance.now() - started;
  const errors = (JSON.parse(body) as { errors?: { message: string }[] }).errors?.map((e) => e.message).slice(0, 2).join(" | ") ?? "";
  return { status: response.status, ms, bytes: Buffer.byteLength(body), errors };
}

const id = encodeGlobalID("Experiment", experiment.id);
const page = (first: number) => `items(first: ${first}) { edges { node { item { id input output expectedOutput context metadata } runs { outcome scores { name value } } } } }`;
const amplified = `{ ${Array.from({ length: 30 }, (_, i) => `e${i}: experiment(id: "${id}") { ${page(500)} }`).join(" ")} }`;
const legitimate = `{ experiment(id: "${id}") { ${page(100)} } }`;

// Warm up (auth, schema, the database pool, the JIT) with the legitimate page, so both queries run warm.
await send(legitimate);
await send(legitimate);
for (const [label, query] of [["30 × items(first: 500)", amplified], ["items(first: 100) with runs", legitimate]] as const) {
  const before = memory(api.pid!);
  const result = await send(query);
  await new Promise((r) => setTimeout(r, 1000));
  const after = memory(api.pid!);
  console.log(
    `${label}: HTTP ${result.status} in ${(result.ms / 1000).toFixed(2)} s, ${(result.bytes / 1024 / 1024).toFixed(2)} MiB; ` +
      `API RSS ${before.rss.toFixed(0)} → ${after.rss.toFixed(0)} MiB (peak ${before.peak.toFixed(0)} → ${after.peak.toFixed(0)} MiB, +${(after.peak - before.peak).toFixed(0)})` +
      (result.errors ? `; errors: ${result.errors.slice(0, 300)}` : ""),
  );
}
console.log(`load average: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
api.kill("SIGTERM");
await api;
await app.close();
