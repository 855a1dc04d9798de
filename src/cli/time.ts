import { ApiError } from "../api-client/http.js";
import { CliError } from "./exit-codes.js";
import { epochToMillis } from "../lib/epoch.js";

const UNITS_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The rule, for --help and error messages (the README says the same). */
export const TIME_FLAG_RULE =
  "now, a relative time (-7d, -12h, -30m, -90s, -2w), an ISO 8601 date-time, or an epoch number in seconds, milliseconds, microseconds or nanoseconds told apart by size (10, 13, 16 or 19 digits for today: below 1e11 seconds, below 1e14 ms, below 1e17 µs, else ns)";

/** A time flag as read: the instant, and how the text was read (said back in errors). */
export interface TimeRead {
  /** The flag or field (`--start`, `windowStart`). */
  field: string;
  text: string;
  iso: string;
  /** `now`, `relative`, `ISO 8601`, or `epoch seconds|milliseconds|microseconds|nanoseconds`. */
  as: string;
}

/**
 * Reads a time flag: `now`, a relative time, an ISO 8601 date-time, or an epoch integer whose unit
 * is told by its magnitude ({@link epochToMillis}, the rule span ingest uses too: n ≥ 1e17
 * nanoseconds, ≥ 1e14 microseconds, ≥ 1e11 milliseconds, else seconds — a present-day instant has
 * 19, 16, 13 or 10 digits). Nanoseconds are cut to milliseconds (a Date's precision).
 * @throws CliError BAD_USER_INPUT naming `field` for anything else.
 */
export function readTimeFlag(text: string, field: string, now = Date.now()): TimeRead {
  const value = text.trim();
  const read = (ms: number, as: string): TimeRead => {
    const date = new Date(ms);
    if (Number.isNaN(date.getTime())) throw new CliError("BAD_USER_INPUT", `is out of range as ${as} (got "${text}")`, field);
    return { field, text, iso: date.toISOString(), as };
  };
  if (value === "now") return read(now, "now");
  const relative = /^-(\d+(?:\.\d+)?)([smhdw])$/.exec(value);
  if (relative) return read(now - Number(relative[1]) * UNITS_MS[relative[2]!]!, "relative");
  if (/^\d{1,20}$/.test(value)) {
    const { ms, unit } = epochToMillis(BigInt(value));
    return read(ms, `epoch ${unit}`);
  }
  const parsed = Date.parse(value);
  if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(parsed)) return read(parsed, "ISO 8601");
  throw new CliError("BAD_USER_INPUT", `must be ${TIME_FLAG_RULE} (got "${text}")`, field);
}

/**
 * Reads a time given as a string (see readTimeFlag) or, from JSON (MCP arguments), as an epoch
 * number with the same magnitude rule (1733000000 seconds, 1733000000000 milliseconds, …).
 * @throws CliError BAD_USER_INPUT naming `field` for a number that is not a whole number ≥ 0.
 */
export function readTimeValue(value: string | number, field: string, now = Date.now()): TimeRead {
  if (typeof value === "string") return readTimeFlag(value, field, now);
  // Below 1e21 a whole number prints as digits; the rule reads at most 20 of them.
  if (!Number.isInteger(value) || value < 0 || value >= 1e20) {
    throw new CliError("BAD_USER_INPUT", `must be ${TIME_FLAG_RULE} (got the number ${value}: an epoch number is a whole number ≥ 0)`, field);
  }
  return readTimeFlag(BigInt(value).toString(), field, now);
}

/** A time flag as an ISO string (see readTimeFlag). */
export function parseTimeFlag(text: string, field: string, now = Date.now()): string {
  return readTimeFlag(text, field, now).iso;
}

/**
 * Runs `call`; when the API refuses a field that came from a time flag, its message says what the
 * flag was read as (`the window must be at most 90 days; --start "1733000000000" was read as
 * 2024-11-30T20:53:20.000Z (epoch milliseconds)`), so a unit mix-up shows at once.
 * @param apiField the API field each read fills (`windowStart`), by the read's `field`.
 */
export async function sayTimesRead<T>(call: () => Promise<T>, reads: { read: TimeRead; apiField: string }[]): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiError) || !error.issues.length) throw error;
    const said = (path: string) => {
      const r = reads.find((x) => path === x.apiField || path.endsWith(`.${x.apiField}`));
      return r ? `; ${r.read.field} "${r.read.text}" was read as ${r.read.iso} (${r.read.as})` : "";
    };
    const issues = error.issues.map((i) => ({ ...i, message: i.message + said(i.path) }));
    if (issues.every((i, k) => i.message === error.issues[k]!.message)) throw error;
    throw new ApiError(error.code, `${error.message}${said(error.issues[0]!.path)}`, issues, error.details, error.status);
  }
}
