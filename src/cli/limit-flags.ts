import type { Command } from "commander";
import { CliError } from "./exit-codes.js";
import { numberFlag } from "./inputs.js";

/** The sandbox limits an evaluator, template or draft asks for, in the API's units. */
export interface LimitsInput {
  cpuTimeMs?: number;
  wallTimeMs?: number;
  memoryBytes?: number;
}

/** Adds `--cpu-time SECONDS`, `--wall-time SECONDS` and `--memory MIB` (the API checks them against the sandbox's ceilings). */
export function limitOptions(command: Command): Command {
  return command
    .option("--cpu-time <seconds>", "CPU time of one item (sandbox limit; default 5, at most 60)")
    .option("--wall-time <seconds>", "wall-clock time of one item (default 10, at most 120)")
    .option("--memory <MiB>", "memory of its runner in MiB (default 256, at most 2048)");
}

/** The limits given by the flags of {@link limitOptions} (seconds → ms, MiB → bytes); {} when none. @throws CliError naming the flag. */
export function limitFlags(o: Record<string, unknown>): LimitsInput {
  const out: LimitsInput = {};
  const positive = (value: unknown, flag: string) => {
    const n = numberFlag(String(value), flag);
    if (!(n > 0)) throw new CliError("BAD_USER_INPUT", `must be above 0 (got ${String(value)})`, flag);
    return n;
  };
  if (o.cpuTime !== undefined) out.cpuTimeMs = Math.round(positive(o.cpuTime, "--cpu-time") * 1000);
  if (o.wallTime !== undefined) out.wallTimeMs = Math.round(positive(o.wallTime, "--wall-time") * 1000);
  if (o.memory !== undefined) out.memoryBytes = Math.round(positive(o.memory, "--memory") * 1024 * 1024);
  return out;
}

/** A line for people: `cpu 5 s, wall 10 s, memory 256 MiB` (only the keys given; "defaults" when none). */
export function limitsText(limits: LimitsInput | null | undefined): string {
  const parts = [
    limits?.cpuTimeMs !== undefined ? `cpu ${limits.cpuTimeMs / 1000} s` : "",
    limits?.wallTimeMs !== undefined ? `wall ${limits.wallTimeMs / 1000} s` : "",
    limits?.memoryBytes !== undefined ? `memory ${Math.round(limits.memoryBytes / (1024 * 1024))} MiB` : "",
  ].filter(Boolean);
  return parts.length ? parts.join(", ") : "defaults";
}
