import { z } from "zod";

/**
 * Resource limits of one sandboxed evaluator run, as data. Units are in the names: `…Ms` are
 * milliseconds, `…Bytes` are bytes. Every limit has a default and a ceiling: a caller may lower a
 * limit, never raise it past its ceiling.
 */
export interface Limits {
  /** CPU time of one item (ms). Enforced inside the runner (ITIMER_PROF), backed by RLIMIT_CPU. */
  cpuTimeMs: number;
  /** Wall-clock time of one item (ms). Runner ITIMER_REAL; Node SIGKILLs the runner 1 s later. */
  wallTimeMs: number;
  /** Address space of a runner process (bytes, RLIMIT_AS). */
  memoryBytes: number;
  /** stdout + stderr kept per item (bytes); more is `output_limit`. */
  outputBytes: number;
  /** Size of the sandbox's private /tmp (bytes, tmpfs --size) and of any one file (RLIMIT_FSIZE). */
  tmpfsBytes: number;
  /**
   * Inodes of the sandbox's private /tmp (count, /tmp itself included: tmpfs `nr_inodes`); empty
   * files use no blocks, so `tmpfsBytes` alone does not bound the kernel memory files pin. Applies
   * when the worker is root (a tmpfs per box, mounted by box_launch.py in the runner's own mount
   * namespace); otherwise bwrap's tmpfs
   * has no inode cap within an item.
   */
  tmpfsInodes: number;
  /** Open file descriptors of a runner (RLIMIT_NOFILE). */
  openFiles: number;
  /**
   * CPU time a warm runner may use over its lifetime (ms) before it retires and is replaced; at
   * least `cpuTimeMs` + 1.5 s ({@link RUNNER_CPU_HEADROOM_MS}).
   */
  runnerCpuTimeMs: number;
}

/** One limit's default and ceiling (and the smallest value that still lets Python start). */
interface LimitSpec {
  min: number;
  default: number;
  ceiling: number;
}

const MiB = 1024 * 1024;

/** Defaults and ceilings of every limit (see {@link Limits} for units). */
export const LIMIT_SPECS: Readonly<Record<keyof Limits, LimitSpec>> = {
  cpuTimeMs: { min: 10, default: 5_000, ceiling: 60_000 },
  wallTimeMs: { min: 50, default: 10_000, ceiling: 120_000 },
  memoryBytes: { min: 64 * MiB, default: 256 * MiB, ceiling: 2048 * MiB },
  outputBytes: { min: 1024, default: 64 * 1024, ceiling: 1 * MiB },
  tmpfsBytes: { min: 64 * 1024, default: 16 * MiB, ceiling: 256 * MiB },
  tmpfsInodes: { min: 16, default: 2_048, ceiling: 65_536 },
  openFiles: { min: 16, default: 64, ceiling: 1024 },
  runnerCpuTimeMs: { min: 1_000, default: 600_000, ceiling: 3_600_000 },
};

/**
 * A runner retires before an item when its lifetime CPU could not cover that item's budget plus
 * 1 s (runner.py). `runnerCpuTimeMs` must exceed `cpuTimeMs` by this much (that 1 s, plus 0.5 s
 * for the CPU a runner spends starting up, measured at ~0.1 s), or every runner would retire
 * before its first item.
 */
export const RUNNER_CPU_HEADROOM_MS = 1_500;

/** Thrown when a requested limit is invalid or above its ceiling; `limit` names it. */
export class LimitError extends Error {
  constructor(
    readonly limit: string,
    message: string,
  ) {
    super(message);
    this.name = "LimitError";
  }
}

const limitNames = Object.keys(LIMIT_SPECS) as (keyof Limits)[];

/** zod schema of a partial override: known keys only, positive integers. */
export const limitsOverrideSchema = z
  .object(Object.fromEntries(limitNames.map((name) => [name, z.number().int().positive().optional()])))
  .strict();

/**
 * The effective limits: defaults, lowered by `overrides`.
 * @param overrides - limits to change; each must be an integer in [min, ceiling].
 * @returns a complete, frozen {@link Limits}.
 * @throws LimitError naming the limit that is unknown, not a positive integer, below its minimum
 *   or above its ceiling, or `runnerCpuTimeMs` when it is less than `cpuTimeMs` +
 *   {@link RUNNER_CPU_HEADROOM_MS}.
 */
export function resolveLimits(overrides: Partial<Limits> = {}): Readonly<Limits> {
  const parsed = limitsOverrideSchema.safeParse(overrides);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? (issue && "keys" in issue ? (issue.keys as string[])[0] : "limits"));
    throw new LimitError(name, `limit ${name}: ${issue?.message ?? "invalid"}`);
  }
  const result = {} as Limits;
  for (const name of limitNames) {
    const spec = LIMIT_SPECS[name];
    const value = overrides[name] ?? spec.default;
    if (value > spec.ceiling) {
      throw new LimitError(name, `limit ${name}: ${value} is above its ceiling of ${spec.ceiling}`);
    }
    if (value < spec.min) {
      throw new LimitError(name, `limit ${name}: ${value} is below its minimum of ${spec.min}`);
    }
    result[name] = value;
  }
  const least = result.cpuTimeMs + RUNNER_CPU_HEADROOM_MS;
  if (result.runnerCpuTimeMs < least) {
    throw new LimitError(
      "runnerCpuTimeMs",
      `limit runnerCpuTimeMs: ${result.runnerCpuTimeMs} must be at least cpuTimeMs (${result.cpuTimeMs}) + ${RUNNER_CPU_HEADROOM_MS} = ${least}, or runners would retire before running an item`,
    );
  }
  return Object.freeze(result);
}
