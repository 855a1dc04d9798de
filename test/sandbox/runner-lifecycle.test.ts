import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { resolveLimits, type Limits } from "../../src/execution/limits.js";
import { defaultSandboxPaths, seccompFilterPath } from "../../src/execution/paths.js";
import { RunnerProcess } from "../../src/execution/runner-process.js";
import { createLogger } from "../../src/lib/logger.js";
import { item, keyFor, TEST_LIMITS } from "./helpers.js";

// RunnerProcess directly, with limits resolveLimits would refuse: the runner must still behave.
const paths = defaultSandboxPaths();
const seccompProgram = readFileSync(seccompFilterPath());
const logger = createLogger("silent");
const started: RunnerProcess[] = [];

async function startRunner(source: string, limits: Limits, mode: "warm" | "strict" = "warm"): Promise<RunnerProcess> {
  const runner = await RunnerProcess.start({ paths, seccompProgram, limits, key: keyFor(source, { mode }), logger });
  started.push(runner);
  return runner;
}

/**
 * How long a runner that should exit at once may take on a busy machine (polled: an idle machine
 * answers within milliseconds; a runner that lingers with a thread sleeping an hour still fails).
 */
const EXIT_WAIT_MS = 15_000;

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms && !condition(); waited += 50) await new Promise((r) => setTimeout(r, 50));
  return condition();
}

afterAll(async () => {
  await Promise.all(started.map((r) => r.close()));
});

const OK = "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='i', value=ctx.params.get('i', 0))])\n";

describe("runner lifecycle", () => {
  it("a fresh runner runs its first item even when its lifetime CPU is too small for it", async () => {
    // resolveLimits refuses these (runnerCpuTimeMs < cpuTimeMs + 1.5 s); built by hand here.
    const limits = Object.freeze({ ...resolveLimits(TEST_LIMITS), cpuTimeMs: 1_000, runnerCpuTimeMs: 1_000 });
    const runner = await startRunner(OK, limits);
    const results = await runner.runBatch([item({ i: 1 }), item({ i: 2 })]);
    expect(results[0]).toMatchObject({ outcome: "ok", scores: [{ name: "i", value: 1 }] });
    expect(results[1]).toBeUndefined(); // retired after its first item: run elsewhere
    expect(runner.alive).toBe(false);
    expect(await waitFor(() => runner.exited, EXIT_WAIT_MS)).toBe(true);
  });

  it("an item the runner retires before is left unanswered (to run elsewhere), never given an outcome", async () => {
    // Retirement before an item: lifetime CPU used + the item's budget + 1 s headroom > 2.5 s, so
    // once the first item has burnt the runner past 0.5 s of CPU the second one is not run.
    const source =
      "import time\n\ndef evaluate(ctx):\n    while ctx.params.get('burn') and time.process_time() < 0.7:\n        pass\n    return EvaluationResult(scores=[Score(name='i', value=ctx.params['i'])])\n";
    const runner = await startRunner(source, resolveLimits({ ...TEST_LIMITS, cpuTimeMs: 1_000, runnerCpuTimeMs: 2_500, wallTimeMs: 20_000 }));
    const results = await runner.runBatch([item({ i: 1, burn: true }), item({ i: 2 }), item({ i: 3 })]);
    expect(results[0]).toMatchObject({ outcome: "ok", scores: [{ name: "i", value: 1 }] });
    expect(results.slice(1)).toEqual([undefined, undefined]);
    expect(runner.alive).toBe(false);
    expect(runner.died).toBe(false);
    expect(await waitFor(() => runner.exited, EXIT_WAIT_MS)).toBe(true);
  });

  it("a retiring runner exits at once even if user code left a thread running", async () => {
    const source =
      "import threading, time\n\ndef evaluate(ctx):\n    threading.Thread(target=lambda: time.sleep(3600)).start()\n    return EvaluationResult(scores=[Score(name='i', value=1)])\n";
    const runner = await startRunner(source, resolveLimits(TEST_LIMITS));
    const [result] = await runner.runBatch([item()]);
    expect(result!.outcome).toBe("ok");
    expect(runner.alive).toBe(false);
    expect(await waitFor(() => runner.exited, EXIT_WAIT_MS)).toBe(true);
  });

  it("close() ends a runner that is no longer alive but has not exited", async () => {
    const runner = await startRunner(OK, resolveLimits(TEST_LIMITS));
    (runner as unknown as { alive: boolean }).alive = false; // as after a retire frame
    await runner.close();
    expect(runner.exited).toBe(true);
  });

  it("strict mode: many items through the zygote, each in its own process, in order", async () => {
    const source =
      "import os\n\ndef evaluate(ctx):\n    if ctx.params.get('die'):\n        os._exit(5)\n    return EvaluationResult(scores=[Score(name='i', value=ctx.params['i']), Score(name='pid', value=os.getpid())])\n";
    const runner = await startRunner(source, resolveLimits(TEST_LIMITS), "strict");
    const results = await runner.runBatch(Array.from({ length: 30 }, (_, i) => item({ i, die: i === 7 })));
    expect(results.map((r) => r?.outcome)).toEqual(Array.from({ length: 30 }, (_, i) => (i === 7 ? "user_error" : "ok")));
    expect(results[7]!.error!.message).toMatch(/exit code 5/);
    const pids = results.filter((r) => r!.outcome === "ok").map((r) => r!.scores[1]!.value);
    expect(new Set(pids).size).toBe(pids.length);
    expect(runner.alive).toBe(true);
  });

  it("strict mode: a child that kills the zygote gets its result, and the runner retires", async () => {
    const source =
      "import os, signal\n\ndef evaluate(ctx):\n    if ctx.params.get('attack'):\n        os.kill(os.getppid(), signal.SIGKILL)\n    return EvaluationResult(scores=[Score(name='i', value=ctx.params['i'])])\n";
    const runner = await startRunner(source, resolveLimits(TEST_LIMITS), "strict");
    const results = await runner.runBatch([item({ i: 0, attack: true }), item({ i: 1 })]);
    expect(results[0]).toMatchObject({ outcome: "ok", scores: [{ name: "i", value: 0 }] });
    expect(results[1]).toBeUndefined();
    expect(await waitFor(() => runner.exited, EXIT_WAIT_MS)).toBe(true);
  });

  it("strict mode: a forged oversized error from the child is bounded by the runner", async () => {
    // The child writes its own result frame (it runs user code) with a 1 MB error type.
    const source = [
      "import gc, os, json",
      "def evaluate(ctx):",
      "    body = json.dumps({'outcome': 'user_error', 'scores': [], 'stdout': '', 'stderr': '',",
      "                       'error': {'type': 'T' * 1_000_000, 'message': 'm', 'traceback': ''}}).encode()",
      "    for fd in range(3, 64):",
      "        try:",
      "            os.write(fd, len(body).to_bytes(4, 'big') + body)",
      "        except OSError:",
      "            pass",
      "    os._exit(0)",
      "",
    ].join("\n");
    const runner = await startRunner(source, resolveLimits(TEST_LIMITS), "strict");
    const [result] = await runner.runBatch([item()]);
    expect(result!.outcome).toBe("user_error");
    expect(result!.error!.type.length).toBeLessThanOrEqual(200);
    expect(runner.alive).toBe(true);
  });

  it("a runner failure after setup is reported on the result channel (fatal), not the closed diagnostics pipe", async () => {
    // Warm user code breaks the runner's state it shares the interpreter with, in place (a list of
    // the interpreter snapshot, found by walking frames: what RunnerGuard does not watch); the
    // next item fails inside the runner itself, when the snapshot's process state is put back.
    const source = [
      "import os, sys",
      "def evaluate(ctx):",
      "    if ctx.params.get('sabotage'):",
      "        frame = sys._getframe()",
      "        while type(frame.f_locals.get('self')).__name__ != 'Runner':",
      "            frame = frame.f_back",
      "        frame.f_locals['self'].state.rlimits.append(('broken', None))",
      "        os.umask(os.umask(0o022))",
      "    return EvaluationResult(scores=[Score(name='ok', value=True)])",
      "",
    ].join("\n");
    const runner = await startRunner(source, resolveLimits(TEST_LIMITS));
    const [first] = await runner.runBatch([item({ sabotage: true })]);
    expect(first!.outcome).toBe("ok");
    const [second] = await runner.runBatch([item()]);
    expect(second).toMatchObject({ outcome: "sandbox_error", error: { type: "SandboxError", message: expect.stringMatching(/runner failed: TypeError/) } });
    expect(await waitFor(() => runner.exited, EXIT_WAIT_MS)).toBe(true);
  });
});
