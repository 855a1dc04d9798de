import type { GroupSchedule, Run } from "../../generated/prisma/client.js";
import type { GroupCompletion } from "../../lib/closed-lists.js";
import { formatDuration } from "../evaluators/group-completion.js";

/**
 * What a trace or session evaluation is doing, in words (the trace and session views, the CLI,
 * MCP and Evaluator.stats.groups), read from its GroupSchedule row (prisma/schema.prisma) and its
 * current run. Pure: the caller reads the rows and passes the clock.
 */

/** The states of a group's evaluation, in the order a group goes through them. */
export const GROUP_EVALUATION_STATES = ["waiting", "queued", "ran", "stale"] as const;
/** One state: `waiting` (a generation pending, not queued yet), `queued` (its job exists), `ran` (nothing pending), `stale` (ran, and spans arrived since: it runs again). */
export type GroupEvaluationState = (typeof GROUP_EVALUATION_STATES)[number];

/** The columns of a GroupSchedule row read here. */
export type ScheduleView = Pick<
  GroupSchedule,
  "firstSpanAt" | "lastSpanAt" | "spanCount" | "quietPeriodMs" | "maxWaitMs" | "markerAt" | "dueAt" | "generation" | "queuedGeneration" | "queuedAt" | "ranGeneration" | "ranAt" | "staleSince"
>;

/** The columns of the current run read here (null: no run yet). */
export type RunView = Pick<Run, "completion" | "groupSpanCount" | "documentCapped" | "outcome" | "finishedAt" | "createdAt"> & Partial<Pick<Run, "backfillId">>;

/** A group's state and a sentence saying it. */
export interface GroupEvaluationDescription {
  state: GroupEvaluationState;
  detail: string;
}

/**
 * The state of a schedule (the same rule as {@link GROUP_STATE_SQL}):
 * - nothing pending (`dueAt` NULL, or the run's generation is the latest): `ran` (or `waiting` when it never ran);
 * - the pending generation queued (`queuedGeneration` = `generation`), or an earlier one queued and
 *   not run yet (its run is coming; the later round waits behind it): `queued`;
 * - it ran before (a `ranGeneration`): `stale`;
 * - else `waiting`.
 */
export function groupState(s: Pick<ScheduleView, "dueAt" | "generation" | "queuedGeneration" | "ranGeneration">): GroupEvaluationState {
  const pending = s.dueAt !== null && (s.ranGeneration === null || s.ranGeneration < s.generation);
  if (!pending) return s.ranGeneration === null ? "waiting" : "ran";
  if (s.queuedGeneration === s.generation) return "queued";
  if (s.queuedGeneration !== null && (s.ranGeneration === null || s.ranGeneration < s.queuedGeneration)) return "queued";
  if (s.ranGeneration !== null) return "stale";
  return "waiting";
}

/**
 * {@link groupState} as a SQL expression over a "GroupSchedule" row (for counts by state in one
 * statement: Evaluator.stats.groups). test/groups/waiting.test.ts checks the two agree.
 */
export const GROUP_STATE_SQL = `CASE
  WHEN "dueAt" IS NULL OR ("ranGeneration" IS NOT NULL AND "ranGeneration" >= "generation") THEN CASE WHEN "ranGeneration" IS NULL THEN 'waiting' ELSE 'ran' END
  WHEN "queuedGeneration" = "generation" THEN 'queued'
  WHEN "queuedGeneration" IS NOT NULL AND ("ranGeneration" IS NULL OR "ranGeneration" < "queuedGeneration") THEN 'queued'
  WHEN "ranGeneration" IS NOT NULL THEN 'stale'
  ELSE 'waiting'
END`;

/** The columns that decide when a pending round is due and why. */
export type RoundTiming = Pick<GroupSchedule, "markerAt" | "firstSpanAt" | "lastSpanAt" | "quietPeriodMs" | "maxWaitMs">;

/**
 * Why a pending round is (or was) due, one rule for the views and the runs: the end marker when one
 * arrived; else the maximum wait when `firstSpanAt + maxWaitMs` comes first (or at the same time);
 * else the quiet period (`lastSpanAt + quietPeriodMs`). The durations are the schedule's own: those
 * its `dueAt` was computed with.
 */
export function completionOf(s: RoundTiming): GroupCompletion {
  if (s.markerAt) return "end_marker";
  return s.firstSpanAt.getTime() + s.maxWaitMs <= s.lastSpanAt.getTime() + s.quietPeriodMs ? "max_wait" : "quiet_period";
}

/** When a pending round came (or comes) due by {@link completionOf}'s rule, ms (ingest's `dueAt` before any dependency wait moved it). */
export function roundDueMs(s: RoundTiming): number {
  return s.markerAt ? s.markerAt.getTime() : Math.min(s.lastSpanAt.getTime() + s.quietPeriodMs, s.firstSpanAt.getTime() + s.maxWaitMs);
}

/** Why the pending generation is due when it is. */
type DueReason = { kind: "marker"; at: Date } | { kind: "max_wait" } | { kind: "quiet" };

function dueReason(s: ScheduleView): DueReason {
  const completion = completionOf(s);
  if (completion === "end_marker") return { kind: "marker", at: s.markerAt! };
  return completion === "max_wait" ? { kind: "max_wait" } : { kind: "quiet" };
}

const iso = (d: Date) => d.toISOString();
const spans = (n: number) => `${n} span${n === 1 ? "" : "s"}`;

/** The sentence of the current run: `ran at T (quiet period, 7 spans)`, `ran at the maximum wait with 7 spans, at T`. */
function ranText(s: ScheduleView, run: RunView | null): string {
  // A backfill's run is written outside the schedule (its ranAt is the live round's): its own time says when it ran.
  const at = (run?.backfillId ? (run.finishedAt ?? run.createdAt) : null) ?? s.ranAt ?? run?.finishedAt ?? run?.createdAt ?? null;
  const when = at ? ` at ${iso(at)}` : "";
  if (!run) return `ran${when}`;
  const n = run.groupSpanCount ?? s.spanCount;
  const extra = [run.outcome !== "ok" ? `outcome ${run.outcome}` : "", run.documentCapped ? "its document was capped" : ""].filter(Boolean).join(", ");
  const tail = extra ? `; ${extra}` : "";
  if (run.completion === "max_wait") return `ran at the maximum wait with ${spans(n)}${at ? `, at ${iso(at)}` : ""}${tail}`;
  const why = run.completion === "end_marker" ? "end marker" : run.completion === "quiet_period" ? "quiet period" : run.backfillId ? "by a backfill" : null;
  return `ran${when} (${why ? `${why}, ` : ""}${spans(n)})${tail}`;
}

/**
 * A group's evaluation in words, for one evaluator:
 * - `waiting: quiet until 2026-12-03T15:00:30.000Z (30 s after the latest span)`;
 *   `waiting: the maximum wait ends at T (10 min after the first span)`;
 *   `waiting: end marker arrived at T; runs at once` (and `…; due, not queued yet` once `now` passed it);
 * - `end marker arrived at T; queued at Q`, `queued at Q (the quiet period ended at T)`;
 * - `ran at T1 (quiet period, 7 spans)`, `ran at the maximum wait with 7 spans, at T1`;
 * - `ran at T1, stale since T2, runs again at T3 (30 s after the latest span)`.
 * @param schedule - its GroupSchedule row (with the quiet period and maximum wait its `dueAt` was
 *   computed with, which tell a quiet-period due time from a maximum-wait one).
 * @param currentRun - its current Run on the group (null: none yet).
 * @param now - the clock (a due time already passed says so).
 */
export function describeGroupEvaluation(schedule: ScheduleView, currentRun: RunView | null, now: Date): GroupEvaluationDescription {
  const state = groupState(schedule);
  const s = schedule;
  if (state === "ran") return { state, detail: ranText(s, currentRun) };
  if (s.dueAt === null) return { state, detail: `waiting: no span pending (${spans(s.spanCount)} arrived, the latest at ${iso(s.lastSpanAt)})` };
  const due = s.dueAt;
  const reason = dueReason(s);
  const overdue = due.getTime() <= now.getTime() ? "; due, not queued yet" : "";
  const dueWhy =
    reason.kind === "marker" ? `end marker arrived at ${iso(reason.at)}` : reason.kind === "max_wait" ? `the maximum wait, ${formatDuration(s.maxWaitMs)} after the first span` : `${formatDuration(s.quietPeriodMs)} after the latest span`;
  const before = s.ranGeneration !== null ? `${ranText(s, currentRun)}, stale since ${iso(s.staleSince ?? s.firstSpanAt)}` : null;
  if (state === "queued" && s.queuedGeneration !== s.generation) {
    // An earlier round is queued and not run yet; spans arrived since: a later round waits behind it.
    const queued = s.queuedAt ? `queued at ${iso(s.queuedAt)}` : "queued";
    const head = s.ranGeneration !== null ? `${ranText(s, currentRun)}; ${queued.replace(/^queued/, "queued again")}` : queued;
    return { state, detail: `${head}; spans arrived since${s.staleSince ? ` ${iso(s.staleSince)}` : ""}: runs again at ${iso(due)} (${dueWhy})${overdue}` };
  }
  if (state === "queued") {
    const queued = s.queuedAt ? `queued at ${iso(s.queuedAt)}` : "queued";
    const what = reason.kind === "marker" ? `end marker arrived at ${iso(reason.at)}; ${queued}` : `${queued} (${reason.kind === "max_wait" ? "the maximum wait ended" : "the quiet period ended"} at ${iso(due)})`;
    return { state, detail: before ? `${before}; ${what.replace(/^queued/, "queued again")}` : what };
  }
  if (state === "stale") return { state, detail: `${before}, runs again at ${iso(due)} (${dueWhy})${overdue}` };
  if (reason.kind === "marker") return { state, detail: `waiting: end marker arrived at ${iso(reason.at)}; runs at once${overdue}` };
  if (reason.kind === "max_wait") return { state, detail: `waiting: the maximum wait ends at ${iso(due)} (${formatDuration(s.maxWaitMs)} after the first span)${overdue}` };
  return { state, detail: `waiting: quiet until ${iso(due)} (${formatDuration(s.quietPeriodMs)} after the latest span)${overdue}` };
}
