/**
 * The main job on real input: imports a few sets of ../shared/data (xstest, truthfulqa, halueval,
 * llmfao, tau-bench-airline; the copies in data/demo when ../shared is absent) into one dataset,
 * runs the cookbook's recipes over it as a queued experiment (templates with their defaults,
 * through the warm sandbox runners) and prints the summary table.
 *
 * Usage: npm run demo [-- --per-set N | --all]   (default: 300 items per set; --all: every item)
 * Uses DATABASE_URL / REDIS_URL like `npm start` (the `demo` workspace); `npm run demo` runs the
 * set-up first, so it works on a fresh clone.
 */
import { parseArgs } from "node:util";
import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { startWorkers } from "../src/worker.js";
import { ALL_CHECKS_PASS, BUILTIN_PLUS_OWN, COMPARE_WITH_REFERENCE, GATE_ON_A_CHECK, RAG_GROUNDED, WEIGHTED_QUALITY } from "../test/fixtures/cookbook-recipes.js";
import { concatLines, setFile } from "./demo/sources.js";
import { formatTable } from "./demo/table.js";

const SETS = ["xstest", "truthfulqa", "halueval", "llmfao", "tau-bench-airline"];
/** The cookbook recipes run by the demo, each saved as a template and run with its defaults. */
const RECIPES: [name: string, source: string][] = [
  ["All checks pass", ALL_CHECKS_PASS],
  ["Weighted quality score", WEIGHTED_QUALITY],
  ["Built-in check plus your own score", BUILTIN_PLUS_OWN],
  ["Compare with a reference value", COMPARE_WITH_REFERENCE],
  ["A RAG answer is grounded in its context", RAG_GROUNDED],
  ["Gate on a check", GATE_ON_A_CHECK],
];

const { values } = parseArgs({ options: { "per-set": { type: "string", default: "300" }, all: { type: "boolean", default: false } } });
const perSet = values.all ? Infinity : Number(values["per-set"]);
if (!(perSet > 0)) {
  console.error("--per-set must be a positive number");
  process.exit(2);
}

const app = createApp(loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" }));
const workers = await startWorkers(app, { queues: ["experiment-batch"] });
try {
  const workspace = await app.services.workspaces.findOrCreateWorkspace("demo");
  // The templates record their author key: the demo acts with a key of its own (never printed).
  const { apiKey } = await app.services.workspaces.createApiKey(workspace.id, `npm run demo ${new Date().toISOString()}`);
  const principal = { workspaceId: workspace.id, apiKeyId: apiKey.id };
  const files = SETS.map(setFile);
  console.log(`Data: ${files[0]!.shared ? "../shared/data" : "data/demo (../shared/data not found)"} — ${SETS.join(", ")}, ${values.all ? "every item" : `up to ${perSet} items each`}`);

  const started = performance.now();
  const name = `demo ${new Date().toISOString().slice(0, 19).replace("T", " ")}`;
  const report = await app.services.datasets.importItems(principal, { name }, concatLines(files.map((f) => f.file), perSet));
  console.log(`Imported ${report.imported} items into dataset "${name}" in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const templateIds: string[] = [];
  for (const [recipe, sourceCode] of RECIPES) {
    const existing = await app.services.templates.findTemplate(workspace.id, { name: `Cookbook: ${recipe}` });
    templateIds.push(existing?.id ?? (await app.services.templates.createTemplate(principal, { name: `Cookbook: ${recipe}`, sourceCode })).template.id);
  }
  const t0 = performance.now();
  const experiment = await app.services.experiments.createExperiment(principal, { datasetId: report.datasetId, name: `cookbook recipes on ${name}`, templateIds });
  const tty = process.stdout.isTTY;
  for (let tick = 0; ; tick++) {
    const row = await app.prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
    const p = await app.services.experiments.progress(row);
    const line = `  ${row.status.padEnd(9)} ${p.runsRecorded}/${p.runsTotal} runs  (items: ${p.done} done, ${p.failed} failed, ${p.skipped} skipped, ${p.pending} pending)`;
    const last = row.status === "completed" || row.status === "cancelled";
    if (tty) process.stdout.write(`\r${line}   ${last ? "\n" : ""}`);
    else if (last || tick % 4 === 0) console.log(line);
    if (last) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const seconds = (performance.now() - t0) / 1000;
  const runs = report.itemCount * RECIPES.length;
  console.log(`Experiment "${experiment.name}": ${report.itemCount} items × ${RECIPES.length} recipes = ${runs} runs in ${seconds.toFixed(1)} s (${Math.round(runs / seconds)} runs/s, queued → sandbox → committed)\n`);

  const summary = await app.services.experiments.summary(principal, experiment.id);
  const pct = (x: number | null) => (x === null ? null : `${(x * 100).toFixed(1)}%`);
  console.log(
    formatTable(
      ["evaluator (template, defaults)", "score", "type", "count", "mean", "pass rate"],
      summary.map((s) => [s.evaluatorName.replace(/^Cookbook: /, ""), `${s.name}${s.higherIsBetter ? "" : " ↓"}`, s.dataType, s.count, s.mean === null ? null : s.mean.toFixed(3), pct(s.passRate)]),
    ),
  );
  const failures = (await app.services.experiments.runsByOutcome(principal, experiment.id)).filter((c) => c.outcome !== "ok");
  console.log(failures.length ? `\nFailed runs:\n${formatTable(["evaluator", "outcome", "runs"], failures.map((f) => [f.evaluatorName, f.outcome, f.count]))}` : "\nNo failed runs.");
  console.log("↓ = lower is better (a pass is a value below 0.5, or false). Pass rates use combine.passed.");
} finally {
  await workers.close();
  await app.close();
}
