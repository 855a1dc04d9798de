import { BadUserInputError } from "../../lib/errors.js";

/** The deployment's retention settings (RETENTION_DEFAULT_DAYS, RETENTION_MAX_DAYS); null: forever / no ceiling. */
export interface RetentionSettings {
  /** Days kept when a workspace sets nothing; null: forever. */
  defaultDays: number | null;
  /** The ceiling every workspace is held to, in days; null: none (a workspace may keep its data forever). */
  maxDays: number | null;
}

/** What a workspace stored (its columns). */
export interface StoredRetention {
  /** Its own days; null: not set (the default, or forever when `retentionForever`). */
  retentionDays: number | null;
  retentionForever: boolean;
}

/** Where the retention in force comes from. */
export type RetentionSource = "default" | "workspace" | "ceiling";

/** The retention in force for a workspace. */
export interface EffectiveRetention {
  /** Days its data is kept; null: forever. */
  days: number | null;
  /** `workspace`: its own setting; `default`: the deployment's default; `ceiling`: its setting (or forever) was past RETENTION_MAX_DAYS, which holds instead. */
  source: RetentionSource;
  /** Its own setting as stored: days, "forever", or null (it set nothing). */
  setting: number | "forever" | null;
}

/** The largest retention accepted, in days (100 years). */
export const MAX_RETENTION_DAYS = 36_500;

/** Reads RETENTION_DEFAULT_DAYS and RETENTION_MAX_DAYS (0 means forever / no ceiling). */
export function retentionSettings(config: { RETENTION_DEFAULT_DAYS: number; RETENTION_MAX_DAYS: number }): RetentionSettings {
  return { defaultDays: config.RETENTION_DEFAULT_DAYS || null, maxDays: config.RETENTION_MAX_DAYS || null };
}

/**
 * The retention in force: the workspace's own (days or forever), else the default; a value past
 * the ceiling (forever included) is the ceiling.
 */
export function effectiveRetention(stored: StoredRetention, settings: RetentionSettings): EffectiveRetention {
  const setting: EffectiveRetention["setting"] = stored.retentionForever ? "forever" : stored.retentionDays;
  const wanted = setting === null ? settings.defaultDays : setting === "forever" ? null : setting;
  const source: RetentionSource = setting === null ? "default" : "workspace";
  if (settings.maxDays !== null && (wanted === null || wanted > settings.maxDays)) return { days: settings.maxDays, source: "ceiling", setting };
  return { days: wanted, source, setting };
}

/** What a caller may ask: exactly one of a number of days, forever, or back to the default. */
export interface RetentionInput {
  retentionDays?: number | null | undefined;
  keepForever?: boolean | null | undefined;
  useDefault?: boolean | null | undefined;
}

/**
 * Checks a caller's retention against the deployment's ceiling.
 * @returns the columns to store.
 * @throws BadUserInputError naming the field: not exactly one of `retentionDays`, `keepForever: true`
 *   and `useDefault: true`; days not a whole number from 1 to the ceiling (or 36,500); forever while a ceiling is set.
 */
export function parseRetentionInput(input: RetentionInput, settings: RetentionSettings): StoredRetention {
  const given = [input.retentionDays != null, input.keepForever === true, input.useDefault === true].filter(Boolean).length;
  if (given !== 1) {
    throw new BadUserInputError([{ path: "input", message: "give exactly one of retentionDays (days), keepForever: true or useDefault: true" }]);
  }
  if (input.useDefault) return { retentionDays: null, retentionForever: false };
  if (input.keepForever) {
    if (settings.maxDays !== null) {
      throw new BadUserInputError([{ path: "input.keepForever", message: `this deployment keeps data at most ${settings.maxDays} days (RETENTION_MAX_DAYS): keeping it forever is not allowed` }]);
    }
    return { retentionDays: null, retentionForever: true };
  }
  const days = input.retentionDays!;
  const ceiling = settings.maxDays ?? MAX_RETENTION_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > ceiling) {
    const why = settings.maxDays !== null ? `the deployment's ceiling (RETENTION_MAX_DAYS)` : "the largest retention";
    throw new BadUserInputError([{ path: "input.retentionDays", message: `must be a whole number of days from 1 to ${ceiling} (${why}); got ${days}` }]);
  }
  return { retentionDays: days, retentionForever: false };
}

/** The instant before which data ages out: `now` minus `days` whole days (24 h each). */
export function retentionCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}
