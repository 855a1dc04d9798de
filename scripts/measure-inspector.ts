/**
 * Measures the host source inspector (src/lib/inspect-python.ts) under the two attacks of issue
 * 26's findings 4 and 8 (sandbox/README.md, the rows "source inspector bounded" and "fair source
 * inspector"; test/templates/attack-inspector-flood.test.ts asserts the ordering, this prints the
 * figures):
 *
 * 1. memory: eight 256 KiB sources inspected at once (eight owners), through the real
 *    `inspectionQueue` and through a queue shaped as before the fix (2 at once, no bound on the
 *    bytes being parsed). Prints the peak of the summed resident memory of this process's
 *    inspector children (VmRSS, sampled every 5 ms), the largest single inspector (VmHWM) and this
 *    process's own RSS growth.
 * 2. latency: another owner's one-line source while one owner keeps `flood` 256 KiB sources
 *    queued (the median and the worst of `rounds`), against the same one-liner with no flood.
 *
 * The hostile source is `f()` on 65,527 lines (256 KiB: the largest a template save, a tryCode
 * draft or validateTemplate accepts), the shape that took the most parser memory of those tried.
 * No database, Redis or sandbox is needed: only /usr/bin/python3.11.
 *
 * Usage: npx tsx scripts/measure-inspector.ts [rounds=3] [flood=3]
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createFairQueue } from "../src/lib/fair-queue.js";
import { inspectionQueue, inspectPython } from "../src/lib/inspect-python.js";
import { MAX_SOURCE_BYTES } from "../src/modules/templates/inspect-source.js";
import { processes } from "./bench/rss.js";

const rounds = Number(process.argv[2] ?? 3);
const flood = Number(process.argv[3] ?? 3);
const MIB = 1024 * 1024;
const ONE_LINER = "def evaluate(ctx):\n    return True\n";
/** `f()` lines up to the size limit of a source (MAX_SOURCE_BYTES, 256 KiB), then an entry point. */
const HOSTILE = "f()\n".repeat(Math.floor((MAX_SOURCE_BYTES - ONE_LINER.length) / 4)) + ONE_LINER;

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM), 0 when the process is gone. */
function statusBytes(pid: number, field: string): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Pids of this process's children (the inspectors execa started). */
function children(): number[] {
  return processes().filter((p) => p.ppid === process.pid).map((p) => p.pid);
}

/** Runs `work` while sampling the children's memory; returns their summed peak and the largest one's VmHWM (bytes). */
async function sampled(work: () => Promise<unknown>): Promise<{ peakSum: number; largest: number; nodeGrowth: number; ms: number }> {
  let peakSum = 0;
  let largest = 0;
  const nodeBefore = process.memoryUsage().rss;
  let nodePeak = nodeBefore;
  const timer = setInterval(() => {
    let sum = 0;
    for (const pid of children()) {
      sum += statusBytes(pid, "VmRSS");
      largest = Math.max(largest, statusBytes(pid, "VmHWM"));
    }
    peakSum = Math.max(peakSum, sum);
    nodePeak = Math.max(nodePeak, process.memoryUsage().rss);
  }, 5);
  const began = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { peakSum, largest, nodeGrowth: nodePeak - nodeBefore, ms: performance.now() - began };
}

const mib = (bytes: number) => (bytes / MIB).toFixed(0);
console.log(`load ${loadavg().map((l) => l.toFixed(1)).join(" ")}; hostile source ${Buffer.byteLength(HOSTILE)} bytes (limit ${MAX_SOURCE_BYTES})`);

// 1. Memory: eight at once.
const before = createFairQueue({ concurrency: 2, maxBytesInFlight: Number.POSITIVE_INFINITY, maxQueuedPerOwner: 1_000, maxQueued: 1_000, what: "inspections (as before the fix)" });
for (const [name, queue] of [["now (inspectionQueue)", inspectionQueue], ["before (2 at once, bytes unbounded)", before]] as const) {
  const answers: string[] = [];
  const m = await sampled(() =>
    Promise.all(Array.from({ length: 8 }, (_, i) => inspectPython<{ ok: boolean; error?: { message: string } }>(HOSTILE, "template", `ws-${i}`, queue).then((r) => answers.push(r.ok ? "ok" : `BAD_USER_INPUT "${r.error?.message.slice(0, 40)}…"`), (e: unknown) => answers.push(`error ${(e as Error).message.slice(0, 60)}`)))),
  );
  console.log(`eight 256 KiB sources at once, ${name}: inspectors' summed RSS peak ${mib(m.peakSum)} MiB, largest inspector ${mib(m.largest)} MiB, node +${mib(m.nodeGrowth)} MiB, ${(m.ms / 1000).toFixed(1)} s; answers ${[...new Set(answers)].map((a) => `${answers.filter((x) => x === a).length}× ${a}`).join(", ")}`);
}

// 2. Latency of another owner's one-liner.
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const alone: number[] = [];
for (let r = 0; r < rounds; r++) {
  const t = performance.now();
  await inspectPython(ONE_LINER, "template", "victim");
  alone.push(performance.now() - t);
}
const flooded: number[] = [];
for (let r = 0; r < rounds; r++) {
  const floodJobs = Array.from({ length: flood }, () => inspectPython(HOSTILE, "template", "flooder").catch(() => undefined));
  await new Promise((resolve) => setTimeout(resolve, 300)); // the flood's first source is being parsed
  const t = performance.now();
  await inspectPython(ONE_LINER, "template", "victim");
  flooded.push(performance.now() - t);
  await Promise.all(floodJobs);
}
const fmt = (xs: number[]) => `median ${(median(xs) / 1000).toFixed(2)} s, worst ${(Math.max(...xs) / 1000).toFixed(2)} s (${xs.map((x) => (x / 1000).toFixed(2)).join(", ")})`;
console.log(`another owner's one-liner, no flood: ${fmt(alone)}`);
console.log(`another owner's one-liner while one owner has ${flood} 256 KiB sources queued: ${fmt(flooded)}`);
console.log(`load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
