/**
 * Sandbox throughput, side by side in one run on the same trivial evaluator and items:
 * a bare Python loop (no sandbox, no IPC), a warm runner (in-process), strict mode (a forked child
 * per item) and a new sandboxed process per item. Prints items/s and ms/item.
 *
 * The machines are shared, so the bare loop and the warm runner are measured in ROUNDS alternating
 * rounds (which of the two goes first alternates too) and each row shows its median round; the
 * figure to compare is the median of the per-round ratios, since the two halves of one round see
 * nearly the same load while the load changes between rounds. Neither clock covers building the items; the warm
 * runner is started, and Node's JIT warmed on a few thousand items, before its clock starts (a
 * worker is a long-lived process).
 */
import { readFileSync } from "node:fs";
import { execa } from "execa";
import { createExecutor, type ExecuteItem, type ExecuteKey } from "../../src/execution/index.js";
import { defaultSandboxPaths, seccompFilterPath } from "../../src/execution/paths.js";
import { resolveLimits } from "../../src/execution/limits.js";
import { RunnerProcess } from "../../src/execution/runner-process.js";
import { createLogger } from "../../src/lib/logger.js";

const EVALUATOR = `
def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="turns", value=len(ctx.turns))])
`;

// The runner's per-item work without the sandbox: the same items in as JSON text, context, fresh
// namespace, exec, entry point, results out as JSON text. No isolation, timers, capture or IPC.
const BARE_LOOP = `
import json, sys, time
sys.path.insert(0, sys.argv[1])
from oodle_eval.v1 import entrypoint
from oodle_eval.v1.context import make_context
text = sys.stdin.read()
code = compile(sys.argv[2], "<evaluator>", "exec")
start = time.perf_counter()
results = []
for item in json.loads(text):
    ctx = make_context(item["document"], item["params"])
    namespace = entrypoint.make_namespace()
    exec(code, namespace)
    scores = entrypoint.run_entry_point(namespace, ctx, None, "evaluate")
    results.append(json.dumps({"outcome": "ok", "scores": [s.to_dict() for s in scores]}))
print(time.perf_counter() - start)
`;

const WORKSPACE = "ws-bench";
const ROUNDS = 7;

function items(n: number): ExecuteItem[] {
  return Array.from({ length: n }, (_, i) => ({
    workspaceId: WORKSPACE,
    document: { input: [{ role: "user", content: `question ${i}` }], output: `answer ${i}` },
    params: {},
  }));
}

function key(mode: "warm" | "strict"): ExecuteKey {
  return { workspaceId: WORKSPACE, templateVersionId: "bench", sourceCode: EVALUATOR, libraries: {}, mode };
}

interface Row {
  mode: string;
  items: number;
  seconds: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** `npm run bench -- sandbox`: measures the four rows (see the file comment) and prints the table. */
export async function run(): Promise<void> {
  const rows: Row[] = [];
  const logger = createLogger("warn");
  const paths = defaultSandboxPaths();

  const bareN = 20_000;
  const warmN = 20_000;
  const bareInput = JSON.stringify(items(bareN));
  const warmItems = items(warmN);
  const bareSeconds: number[] = [];
  const warmSeconds: number[] = [];

  const executor = createExecutor({ logger, pool: { maxBusy: 1 } });
  try {
    await executor.execute(key("warm"), items(10)); // start the runner
    await executor.execute(key("warm"), items(2_000)); // warm Node's JIT on the result path
    const bareRound = async () => {
      const bare = await execa(paths.python, ["-I", "-S", "-c", BARE_LOOP, paths.pythonLibDir, EVALUATOR], {
        input: bareInput,
        env: {},
        extendEnv: false,
      });
      bareSeconds.push(Number(bare.stdout));
    };
    const warmRound = async () => {
      const t0 = performance.now();
      const results = await executor.execute(key("warm"), warmItems);
      warmSeconds.push((performance.now() - t0) / 1000);
      if (results.some((r) => r.outcome !== "ok")) throw new Error(`warm: ${JSON.stringify(results.find((r) => r.outcome !== "ok"))}`);
    };
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        await bareRound();
        await warmRound();
      } else {
        await warmRound();
        await bareRound();
      }
    }
    rows.push({ mode: `bare Python loop (no sandbox), median of ${ROUNDS}`, items: bareN, seconds: median(bareSeconds) });
    rows.push({ mode: `warm runner, in-process, median of ${ROUNDS}`, items: warmN, seconds: median(warmSeconds) });

    const strictN = 1_000;
    const strictItems = items(strictN);
    await executor.execute(key("strict"), items(10)); // start the runner first
    const t0 = performance.now();
    const results = await executor.execute(key("strict"), strictItems);
    const seconds = (performance.now() - t0) / 1000;
    if (results.some((r) => r.outcome !== "ok")) throw new Error(`strict: ${JSON.stringify(results.find((r) => r.outcome !== "ok"))}`);
    rows.push({ mode: "strict, fork per item", items: strictN, seconds });
  } finally {
    await executor.close();
  }

  const perProcessN = 50;
  const seccompProgram = readFileSync(seccompFilterPath());
  const limits = resolveLimits();
  const t0 = performance.now();
  for (const one of items(perProcessN)) {
    const runner = await RunnerProcess.start({ paths, seccompProgram, limits, key: key("warm"), logger });
    const [result] = await runner.runBatch([one]);
    if (result?.outcome !== "ok") throw new Error(`per-process: ${JSON.stringify(result)}`);
    await runner.close();
  }
  rows.push({ mode: "new sandboxed process per item", items: perProcessN, seconds: (performance.now() - t0) / 1000 });

  const bareRate = rows[0]!.items / rows[0]!.seconds;
  console.log("| mode | items | items/s | ms/item | vs bare |");
  console.log("|---|---:|---:|---:|---:|");
  for (const row of rows) {
    const rate = row.items / row.seconds;
    console.log(`| ${row.mode} | ${row.items} | ${Math.round(rate).toLocaleString("en")} | ${((row.seconds * 1000) / row.items).toFixed(3)} | ${(rate / bareRate).toFixed(2)} |`);
  }
  const perRound = bareSeconds.map((bare, i) => bare / bareN / (warmSeconds[i]! / warmN));
  console.log(`\nwarm vs bare, round by round: ${perRound.map((r) => r.toFixed(2)).join(", ")}`);
  console.log(`warm vs bare, median of the per-round ratios: ${median(perRound).toFixed(2)}`);
}
