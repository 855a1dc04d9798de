import { readFileSync } from "node:fs";
import { execSync } from "node:child_process";
import { createExecutor, type ExecuteItem, type ExecuteKey } from "/work/main/src/execution/index.js";
import { createLogger } from "/work/main/src/lib/logger.js";
const EVALUATOR = `
def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="turns", value=len(ctx.turns))])
`;
const W = "ws-bench";
const items = (n: number): ExecuteItem[] => Array.from({ length: n }, (_, i) => ({ workspaceId: W, document: { input: [{ role: "user", content: `question ${i}` }], output: `answer ${i}` }, params: {} }));
const key: ExecuteKey = { workspaceId: W, templateVersionId: "bench", sourceCode: EVALUATOR, libraries: {}, mode: "warm" };
function pyCpu(): number {
  // sum utime+stime of python3.11 descendants of this process
  const out = execSync(`ps -e -o pid=,ppid=,comm=`).toString();
  const rows = out.trim().split("\n").map((l) => l.trim().split(/\s+/));
  const kids = new Map<string, string[]>();
  for (const [pid, ppid] of rows) { if (!kids.has(ppid!)) kids.set(ppid!, []); kids.get(ppid!)!.push(pid!); }
  let total = 0; const stack = [String(process.pid)];
  while (stack.length) { const p = stack.pop()!; for (const c of kids.get(p) ?? []) { stack.push(c); try { const f = readFileSync(`/proc/${c}/stat`, "utf8").split(") ")[1]!.split(" "); total += (Number(f[11]) + Number(f[12])) / 100; } catch {} } }
  return total;
}
const ex = createExecutor({ logger: createLogger("warn"), pool: { maxBusy: 1 } });
await ex.execute(key, items(10));
for (let r = 0; r < 3; r++) {
  const p0 = pyCpu(); const c0 = process.cpuUsage(); const t0 = performance.now();
  const res = await ex.execute(key, items(20000));
  const wall = performance.now() - t0; const c = process.cpuUsage(c0); const p = pyCpu() - p0;
  if (res.some((x) => x.outcome !== "ok")) throw new Error("bad");
  console.log(`wall ${(wall / 20).toFixed(1)} us/item  node cpu ${((c.user + c.system) / 20000).toFixed(1)} us/item  python cpu ${(p * 1e6 / 20000).toFixed(1)} us/item`);
}
await ex.close();
