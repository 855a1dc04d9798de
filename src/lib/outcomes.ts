/**
 * The closed list of item outcomes.
 * - `ok`: the evaluator returned valid scores.
 * - `user_error`: the evaluator raised, or ended its own process; `error` says what and where.
 * - `timeout`: the item's CPU or wall-clock budget was spent.
 * - `memory_limit`: the item ran out of the runner's address space.
 * - `output_limit`: the item printed more than `outputBytes`.
 * - `invalid_result`: the result broke the Score rules or the result protocol.
 * - `sandbox_error`: the sandbox itself failed (never the user's fault; also refused items).
 */
export const OUTCOMES = [
  "ok",
  "user_error",
  "timeout",
  "memory_limit",
  "output_limit",
  "invalid_result",
  "sandbox_error",
] as const;

/** One of {@link OUTCOMES}. */
export type Outcome = (typeof OUTCOMES)[number];

/** True when `value` is one of {@link OUTCOMES}. */
export function isOutcome(value: unknown): value is Outcome {
  return typeof value === "string" && (OUTCOMES as readonly string[]).includes(value);
}
