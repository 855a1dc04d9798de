/**
 * How a runner's answers become {@link ItemResult}s: a result frame, checked again
 * ({@link resultOfFrame}), and the end of a runner during an item, mapped from its exit to an
 * outcome ({@link resultOfExit}).
 */
import { capOutput } from "./capped.js";
import type { Limits } from "./limits.js";
import type { Outcome } from "../lib/outcomes.js";
import { validateScores } from "./result-validation.js";
import type { ResultFrame } from "./runner-protocol.js";
import type { ItemError, ItemResult } from "./types.js";

/** The exit code of a process ended by SIGXCPU (RLIMIT_CPU), as bwrap passes it on. */
const SIGXCPU_EXIT = 128 + 24;

/**
 * The result of a result frame: output capped again (the frame is only as honest as the runner),
 * scores validated (`invalid_result` when they break the rules), `output_limit` when an `ok`
 * item's output passed `outputBytes`.
 * @param startedAt - `performance.now()` when the item started (for `durationMs`).
 */
export function resultOfFrame(frame: ResultFrame, outputBytes: number, startedAt: number): ItemResult {
  let outcome: Outcome = frame.outcome;
  let error: ItemError | undefined = frame.error ?? undefined;
  let scores: ItemResult["scores"] = [];
  // The runner caps output itself; check again, since the frame is only as honest as the runner.
  const { stdout, stderr, overflow } = capOutput(frame.stdout, frame.stderr, outputBytes);
  if (outcome === "ok") {
    const validated = validateScores(frame.scores);
    if (validated.ok) scores = validated.scores;
    else {
      outcome = "invalid_result";
      error = { type: "InvalidResult", message: validated.message, traceback: "" };
    }
  }
  if (overflow && outcome === "ok") {
    outcome = "output_limit";
    scores = [];
    error = { type: "OutputLimit", message: `the item printed more than ${outputBytes} bytes`, traceback: "" };
  }
  if (outcome !== "ok" && !error) error = { type: outcome, message: outcome, traceback: "" };
  return finish(outcome, scores, stdout, stderr, error, startedAt);
}

/**
 * The result of the item a runner was running when its process ended: `timeout` when Node killed
 * it for the wall clock (`wallKilled`) or RLIMIT_CPU did (SIGXCPU), else `user_error` (the runner
 * was executing user code: whatever ended it was the evaluator's doing).
 */
export function resultOfExit(
  wallKilled: boolean,
  exitCode: number | undefined,
  signal: string | undefined,
  limits: Readonly<Limits>,
  startedAt: number,
): ItemResult {
  let outcome: Outcome;
  let error: ItemError;
  if (wallKilled) {
    outcome = "timeout";
    error = { type: "ItemTimeout", message: `the evaluator did not finish within ${limits.wallTimeMs / 1000} s (wall clock)`, traceback: "" };
  } else if (exitCode === SIGXCPU_EXIT || signal === "SIGXCPU") {
    outcome = "timeout";
    error = { type: "ItemTimeout", message: `the evaluator used more than its CPU time of ${limits.cpuTimeMs / 1000} s`, traceback: "" };
  } else {
    // The runner was executing user code: whatever ended it was the evaluator's doing.
    outcome = "user_error";
    const how = exitCode !== undefined && exitCode > 128 ? `signal ${exitCode - 128}` : `exit code ${exitCode ?? "?"}`;
    error = { type: "ProcessEnded", message: `the evaluator ended its sandbox process (${how})`, traceback: "" };
  }
  return finish(outcome, [], "", "", error, startedAt);
}

/**
 * An item result with `durationMs` measured from `startedAt` (`performance.now()`, rounded to
 * 0.01 ms); `error` is left out when undefined.
 */
export function finish(
  outcome: Outcome,
  scores: ItemResult["scores"],
  stdout: string,
  stderr: string,
  error: ItemError | undefined,
  startedAt: number,
): ItemResult {
  const result: ItemResult = { outcome, scores, stdout, stderr, durationMs: Math.round((performance.now() - startedAt) * 100) / 100 };
  if (error) result.error = error;
  return result;
}
