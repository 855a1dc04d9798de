/**
 * The frames a runner (sandbox/runner.py) sends Node, as zod schemas: `ready` / `setup_error`
 * after setup, one `result` per item, `fatal` when the runner itself fails. What Node sends
 * (`setup`, `batch`, `exit`) is written by runner-process.ts.
 */
import { z } from "zod";
import { OUTCOMES } from "../lib/outcomes.js";

/** Bounds of an error report (UTF-16 code units; sandbox/runner_errors.py caps to the same numbers). */
export const ERROR_BOUNDS = { type: 200, message: 4_000, traceback: 20_000 } as const;

const errorSchema = z.object({
  type: z.string().max(ERROR_BOUNDS.type),
  message: z.string().max(ERROR_BOUNDS.message),
  traceback: z.string().max(ERROR_BOUNDS.traceback),
});

/** A failure of the runner itself after setup (its diagnostics pipe is closed by then). */
export const fatalFrameSchema = z.object({ type: z.literal("fatal"), error: errorSchema });

/** The answer to one item: echoes its id and nonce; `retire` says the runner exits after it. */
export const resultFrameSchema = z.object({
  type: z.literal("result"),
  id: z.number(),
  nonce: z.string(),
  outcome: z.enum(OUTCOMES),
  scores: z.unknown(),
  stdout: z.string(),
  stderr: z.string(),
  error: errorSchema.nullable(),
  retire: z.boolean(),
});

/** A result frame as parsed by {@link resultFrameSchema}. */
export type ResultFrame = z.infer<typeof resultFrameSchema>;

/** The answer to the setup frame: echoes its nonce. */
export const setupFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), nonce: z.string(), kind: z.string() }),
  z.object({ type: z.literal("setup_error"), nonce: z.string(), fault: z.enum(["user", "sandbox"]), error: errorSchema }),
]);

/**
 * True for the frame runner.py sends in place of an item it did not run because the runner had
 * used its lifetime CPU (`RunnerRetired`): the item must run elsewhere, not be given that outcome.
 */
export function isRetiredBeforeItem(frame: ResultFrame): boolean {
  return frame.outcome === "sandbox_error" && frame.error?.type === "RunnerRetired";
}
