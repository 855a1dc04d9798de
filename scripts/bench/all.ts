/**
 * `npm run bench` (no section): ONE table measured side by side in one run — the experiment rows
 * ("All checks pass" on 10,000 real items: bare Python loop, warm runner alone, end to end,
 * process per evaluation, runner memory), then the figures of the `sandbox` and `live` sections,
 * each run after the other in a child process (so they do not share the CPUs) and read from
 * their own tables, and the `judges` section's figures (a loopback fake OpenAI server). Progress
 * goes to stderr; the table to stdout.
 */
import path from "node:path";
import { execa } from "execa";
import { formatTable } from "../demo/table.js";
import { measureExperiments } from "./experiments.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The data rows (cells) of the Markdown tables in a section's output. */
export function markdownRows(output: string): string[][] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("|") && !/^\|[-:| ]+\|$/.test(line.trim()))
    .map((line) => line.trim().slice(1, -1).split("|").map((c) => c.trim()));
}

/** Runs `npm run bench -- <section>` in a child process and returns its stdout. */
async function section(name: string): Promise<string> {
  console.error(`section ${name} …`);
  const result = await execa(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/bench.ts"), name], { cwd: ROOT, reject: false, all: false });
  if (result.exitCode !== 0) return `(section ${name} failed: ${String(result.stderr).split("\n").slice(-3).join(" ")})`;
  return String(result.stdout);
}

const num = (text: string | undefined) => Number(String(text ?? "").replace(/,/g, ""));
/** A ratio with two decimals, or two significant digits when small. */
const times = (ratio: number) => `${ratio >= 0.1 ? ratio.toFixed(2) : ratio.toPrecision(2)}×`;

type Row = [section: string, measure: string, items: number | null, rate: number | null, msPerItem: string | null, ratio: string | null, notes: string];

/** Measures everything and prints the table. */
export async function run(): Promise<void> {
  const started = performance.now();
  const { rows, runnerRss } = await measureExperiments();
  const sandboxOut = await section("sandbox");
  const liveOut = await section("live");
  const judgesOut = await section("judges");

  const table: Row[] = [];
  const bare = rows[0]!.items / rows[0]!.seconds;
  for (const r of rows) {
    const rate = r.items / r.seconds;
    table.push(["experiments", r.measure, r.items, Math.round(rate), ((1000 * r.seconds) / r.items).toFixed(3), times(rate / bare), r.notes ?? ""]);
  }
  table.push(["experiments", "warm runner memory (RSS), after 10,000 items", null, null, null, null, runnerRss.map((m) => `${m.toFixed(1)} MiB`).join(", ") || "n/a"]);

  const sandboxRows = markdownRows(sandboxOut).filter((c) => c.length >= 5 && c[0] !== "mode");
  const sandboxBare = num(sandboxRows[0]?.[2]);
  for (const c of sandboxRows) table.push(["sandbox (trivial evaluator)", c[0]!, num(c[1]), num(c[2]), c[3]!, times(num(c[2]) / sandboxBare), ""]);
  if (!sandboxRows.length) table.push(["sandbox", sandboxOut.trim().slice(0, 200), null, null, null, null, ""]);

  // The live sweep: one row per offered rate (scripts/bench/live.ts).
  const sweep = markdownRows(liveOut).filter((c) => c.length >= 10 && /^\d+$/.test(c[0] ?? ""));
  const header = liveOut.split("\n").find((l) => l.startsWith("live scoring sweep:"));
  for (const c of sweep) {
    table.push(["live (spans over HTTP → queue → worker → sandbox)", `runs committed/s at ${c[0]} spans/s offered (3 evaluators)`, null, num(c[2]), null, null,
      `ingest → score p50/p95/p99 ${c[3]}/${c[4]}/${c[5]} ms, backlog at end ${c[6]}, bounded ${c[7]}`]);
  }
  if (!sweep.length) table.push(["live", liveOut.trim().slice(0, 200), null, null, null, null, ""]);

  // The judges section: one row per measure (scripts/bench/judges.ts), runs/s in the rate column.
  const judgeRows = markdownRows(judgesOut).filter((c) => c.length === 3 && c[0] !== "measure");
  for (const c of judgeRows) {
    const isRate = c[0]!.startsWith("runs/s");
    table.push(["judges (fake OpenAI, 200 ms per call)", c[0]!, null, isRate ? num(c[1]) : null, null, null, isRate ? c[2]! : `${c[1]}; ${c[2]}`]);
  }
  if (!judgeRows.length) table.push(["judges", judgesOut.trim().slice(0, 200), null, null, null, null, ""]);

  const e2e = rows.find((r) => r.measure.startsWith("experiment end to end"))!;
  const ratio = e2e.items / e2e.seconds / bare;
  console.log(`\nOne run, ${((performance.now() - started) / 1000).toFixed(0)} s. ${header ?? ""}`);
  console.log(formatTable(["section", "measure", "items", "items/s", "ms/item", "vs bare loop", "notes"], table.map((r) => [...r])));
  console.log(`\nEnd to end / bare Python loop = ${ratio.toFixed(2)} (target ≥ 0.25): ${ratio >= 0.25 ? "met" : "NOT met"}.`);
  console.log("Ratios compare with the bare loop of the same section and evaluator; live rows are at a fixed offered rate (not a maximum).");
}
