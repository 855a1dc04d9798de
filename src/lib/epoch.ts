/**
 * An epoch number whose unit is told by its magnitude, as Oodle's CLI does (`epochToUnit`): below
 * 1e11 seconds, below 1e14 milliseconds, below 1e17 microseconds, else nanoseconds — a present-day
 * instant has 10, 13, 16 or 19 digits. One rule for the CLI's time flags and the JSON span ingest.
 */

/** The units an epoch number can be read in, with their names as said back to users. */
export type EpochUnit = "seconds" | "milliseconds" | "microseconds" | "nanoseconds";

/** The rule in words, for help texts and error messages. */
export const EPOCH_RULE = "seconds, milliseconds, microseconds or nanoseconds since the epoch told apart by size (below 1e11 seconds, below 1e14 ms, below 1e17 µs, else ns)";

/**
 * The unit of a non-negative epoch number by its magnitude, and the instant in milliseconds
 * (nanoseconds and microseconds are cut to milliseconds, a Date's precision; a fraction of a second
 * or millisecond is kept as far as a double holds it).
 * @param value a non-negative finite number, or a bigint (exact for 19-digit nanoseconds).
 * @returns `{ ms, unit }`; `ms` may lie outside a Date's range (the caller checks).
 */
export function epochToMillis(value: number | bigint): { ms: number; unit: EpochUnit } {
  if (typeof value === "bigint") {
    if (value >= 10n ** 17n) return { ms: Number(value / 1_000_000n), unit: "nanoseconds" };
    if (value >= 10n ** 14n) return { ms: Number(value / 1_000n), unit: "microseconds" };
    if (value >= 10n ** 11n) return { ms: Number(value), unit: "milliseconds" };
    return { ms: Number(value) * 1000, unit: "seconds" };
  }
  if (value >= 1e17) return { ms: Math.floor(value / 1e6), unit: "nanoseconds" };
  if (value >= 1e14) return { ms: Math.floor(value / 1e3), unit: "microseconds" };
  if (value >= 1e11) return { ms: value, unit: "milliseconds" };
  return { ms: value * 1000, unit: "seconds" };
}
