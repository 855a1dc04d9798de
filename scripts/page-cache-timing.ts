/**
 * Measures the page-cache timing channel between two workspaces through the real sandbox
 * (test/sandbox/exploits/page_cache_timing.py; the residual of sandbox/README.md § Known residuals).
 *
 * Each round: the host evicts the shared file (posix_fadvise DONTNEED, as root: what memory
 * pressure does; a box can no longer), a warm runner of workspace A loads the pages of its 1 bits,
 * a warm runner of workspace B times a touch of each page. The receiver's threshold is set from a
 * known preamble (the first 64 bits of each round: alternating); the error rate is counted on the
 * rest. Prints per round and in total: bits, errors, the time both items spent (measured inside
 * the items, ns), raw bits/s = bits / (sender + receiver time), and the capacity of that binary
 * symmetric channel: raw × (1 − H(error rate)).
 *
 * Usage: npx tsx scripts/page-cache-timing.ts [rounds=5] [bitsPerRound=2048]
 * Needs bwrap and a host where /usr/lib/python3.11/config-3.11-*\/libpython3.11.a exists.
 */
import { execFileSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../src/execution/index.js";
import { REPO_ROOT } from "../src/execution/paths.js";
import { createLogger } from "../src/lib/logger.js";

const rounds = Number(process.argv[2] ?? 5);
const perRound = Number(process.argv[3] ?? 2048);
const PREAMBLE = 64;
const FILE = execFileSync("/usr/bin/python3.11", ["-I", "-c", "import os; print(os.path.join(os.path.dirname(os.__file__), 'config-3.11-x86_64-linux-gnu', 'libpython3.11.a'))"], { encoding: "utf8" }).trim();
const source = readFileSync(join(REPO_ROOT, "test/sandbox/exploits/page_cache_timing.py"), "utf8");
const executor = createExecutor({ limits: { cpuTimeMs: 10_000, wallTimeMs: 30_000 }, logger: createLogger("silent") });
const key = (workspaceId: string) => ({ workspaceId, templateVersionId: `timing-${workspaceId}`, sourceCode: source, libraries: {}, mode: "warm" as const, trustDomain: `evaluator:${workspaceId}` });
const doc = { input: "", output: "" };

/** Binary entropy H(p) in bits. */
function entropy(p: number): number {
  return p <= 0 || p >= 1 ? 0 : -p * Math.log2(p) - (1 - p) * Math.log2(1 - p);
}

function evict(): void {
  execFileSync("/usr/bin/python3.11", ["-I", "-c", `import os; fd = os.open(${JSON.stringify(FILE)}, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)`]);
}

let totalBits = 0;
let totalErrors = 0;
let totalNs = 0;
for (let round = 0; round < rounds; round++) {
  evict();
  const bits = Array.from({ length: perRound }, (_, i) => (i < PREAMBLE ? i % 2 : randomInt(2)));
  const [sent] = await executor.execute(key("ws-a"), [{ workspaceId: "ws-a", document: doc, params: { role: "send", bits } }]);
  const [timed] = await executor.execute(key("ws-b"), [{ workspaceId: "ws-b", document: doc, params: { role: "recv", count: perRound } }]);
  if (sent!.outcome !== "ok" || timed!.outcome !== "ok") throw new Error(`round ${round}: ${JSON.stringify([sent!.error, timed!.error])}`);
  const ns = (timed!.scores[0]!.metadata as { ns: number[] }).ns;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ones = ns.slice(0, PREAMBLE).filter((_, i) => bits[i] === 1);
  const zeros = ns.slice(0, PREAMBLE).filter((_, i) => bits[i] === 0);
  const threshold = Math.sqrt(median(ones) * median(zeros));
  let errors = 0;
  for (let i = PREAMBLE; i < perRound; i++) if ((ns[i]! < threshold ? 1 : 0) !== bits[i]) errors++;
  const payload = perRound - PREAMBLE;
  const spent = Number(sent!.scores[0]!.value) + Number(timed!.scores[0]!.value);
  totalBits += payload;
  totalErrors += errors;
  totalNs += spent;
  console.log(
    `round ${round + 1}: ${payload} bits, ${errors} errors, cached ${(median(ones) / 1000).toFixed(1)} µs vs uncached ${(median(zeros) / 1000).toFixed(1)} µs, ${(spent / 1e6).toFixed(1)} ms in the items`,
  );
}
const raw = totalBits / (totalNs / 1e9);
const p = totalErrors / totalBits;
console.log(`total: ${totalBits} bits, error rate ${(100 * p).toFixed(2)} %, raw ${Math.round(raw)} bits/s, capacity ${Math.round(raw * (1 - entropy(p)))} bits/s (while uncached pages last: ${Math.floor(Number(execFileSync("stat", ["-c", "%s", FILE], { encoding: "utf8" })) / 4096)} bits per eviction of this file)`);
await executor.close();
