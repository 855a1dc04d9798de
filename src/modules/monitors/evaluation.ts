import { randomUUID } from "node:crypto";
import type { Monitor } from "../../generated/prisma/client.js";
import type { AlertEvent, MonitorState } from "../../lib/closed-lists.js";
import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { failingExamples, versionAggregates, windowAggregate, type FailingExample, type WindowAggregate, type WindowQuery } from "./aggregates.js";
import { decideDrop, decideThreshold, type Decision } from "./decide.js";
import type { AlertEventPayload } from "./payloads.js";
import type { MonitorSettings } from "./schemas.js";

/**
 * Evaluating a monitor over the windows that are due (docs/monitors.md § Scheduling): each window
 * end is a multiple of the cadence since the epoch; a job (from the monitor's job scheduler or the
 * reconciler) evaluates every due window after the last one evaluated, in order, each in its own
 * transaction under the monitor's row lock, with the evaluation row unique per (monitor, window
 * end) — so two workers, a duplicate job or a replay after a crash evaluate each window once.
 */

/** How long after a window ends it is read: runs recorded up to then have committed (ms). */
export const SETTLE_MS = 2_000;
/** The scheduler's slots: this long after each window end (ms), so the job finds its window due. */
export const SCHEDULER_OFFSET_MS = 3_000;
/** Windows one job evaluates at most; it queues a follow-up for the rest. */
export const MAX_WINDOWS_PER_JOB = 60;
/** After a long outage, windows further back than this many cadences are not evaluated (logged). */
export const MAX_CATCH_UP_WINDOWS = 1_440;
/** The week of baseline week_before (ms). */
const WEEK_MS = 7 * 24 * 3600 * 1000;

/** The newest window end that is due at `now`. */
export function latestDueWindowEnd(now: Date, cadenceSeconds: number): Date {
  const c = cadenceSeconds * 1000;
  return new Date(Math.floor((now.getTime() - SETTLE_MS) / c) * c);
}

/**
 * The window ends due at `now` and not yet evaluated, oldest first: after `lastWindowEnd` (or,
 * before the first evaluation, from the first one at or after the monitor's creation), at most
 * {@link MAX_CATCH_UP_WINDOWS} back, at most {@link MAX_WINDOWS_PER_JOB} of them (`more`: others follow).
 */
export function dueWindowEnds(monitor: Pick<Monitor, "lastWindowEnd" | "createdAt" | "cadenceSeconds">, now: Date): { ends: Date[]; more: boolean; skipped: number } {
  const c = monitor.cadenceSeconds * 1000;
  const latest = latestDueWindowEnd(now, monitor.cadenceSeconds).getTime();
  let first = monitor.lastWindowEnd ? Math.floor(monitor.lastWindowEnd.getTime() / c) * c + c : Math.ceil(monitor.createdAt.getTime() / c) * c;
  const oldest = latest - (MAX_CATCH_UP_WINDOWS - 1) * c;
  const skipped = first < oldest ? Math.round((oldest - first) / c) : 0;
  first = Math.max(first, oldest);
  const ends: Date[] = [];
  for (let t = first; t <= latest && ends.length < MAX_WINDOWS_PER_JOB; t += c) ends.push(new Date(t));
  const lastListed = ends.at(-1)?.getTime();
  return { ends, more: lastListed !== undefined && lastListed < latest, skipped };
}

/** The settings of a stored monitor. */
export function settingsOf(m: Monitor): MonitorSettings {
  return {
    name: m.name,
    description: m.description,
    evaluatorId: m.evaluatorId,
    scoreName: m.scoreName,
    metric: m.metric as MonitorSettings["metric"],
    percentile: m.percentile,
    windowSeconds: m.windowSeconds,
    cadenceSeconds: m.cadenceSeconds,
    condition: m.condition as MonitorSettings["condition"],
    warningLevel: m.warningLevel,
    alertLevel: m.alertLevel,
    baseline: m.baseline as MonitorSettings["baseline"],
    minEffect: m.minEffect,
    maxPValue: m.maxPValue,
    dropSeverity: m.dropSeverity as MonitorSettings["dropSeverity"],
    minSampleSize: m.minSampleSize,
    minCount: m.minCount,
    renotifySeconds: m.renotifySeconds,
    enabled: m.enabled,
  };
}

/** One window's decision with what was read for it. */
export interface WindowResult {
  decision: Decision;
  windowStart: Date;
  windowEnd: Date;
  /** The aggregate the examples come from (its direction), and the version the current side is (previous_version). */
  current: WindowAggregate;
  currentVersionId?: string;
}

/** The template version an evaluator runs now (its pin, else the template's latest): id and number. */
async function currentVersion(prisma: PrismaClient, evaluatorId: string): Promise<{ id: string; version: number } | null> {
  const [row] = await prisma.$queryRaw<{ id: string; version: number }[]>`
    SELECT v.id, v.version FROM "Evaluator" e JOIN "Template" t ON t.id = e."templateId"
    JOIN "TemplateVersion" v ON v."templateId" = t.id AND v.version = coalesce(e."pinnedVersion", t."latestVersion")
    WHERE e.id = ${evaluatorId}::uuid`;
  return row ?? null;
}

/** Reads the window ending at `windowEnd` (and its baseline) and decides its state. Read-only. */
export async function evaluateWindow(prisma: PrismaClient, m: MonitorSettings, windowEnd: Date, now: Date): Promise<WindowResult> {
  const windowStart = new Date(windowEnd.getTime() - m.windowSeconds * 1000);
  const q: WindowQuery = { evaluatorId: m.evaluatorId, scoreName: m.scoreName, metric: m.metric, percentile: m.percentile, start: windowStart, end: windowEnd, now };
  if (m.condition === "threshold") {
    const current = await windowAggregate(prisma, q);
    return { decision: decideThreshold(m, current), windowStart, windowEnd, current };
  }
  if (m.baseline === "previous_version") {
    const [versions, running] = await Promise.all([versionAggregates(prisma, q), currentVersion(prisma, m.evaluatorId)]);
    const empty: WindowAggregate = { n: 0, value: null, successes: 0, variance: null, higherIsBetter: null, mixedDirections: false };
    const cur = versions.find((v) => v.templateVersionId === running?.id);
    const prev = versions.find((v) => running && v.version < running.version);
    const note = { baselineKind: "previous_version", currentVersion: running?.version ?? null, previousVersion: prev?.version ?? null, windowStart: windowStart.toISOString(), windowEnd: windowEnd.toISOString() };
    const current = cur ?? empty;
    return { decision: decideDrop(m, current, prev ?? null, note), windowStart, windowEnd, current, ...(running ? { currentVersionId: running.id } : {}) };
  }
  const shift = m.baseline === "week_before" ? WEEK_MS : m.windowSeconds * 1000;
  const baseStart = new Date(windowStart.getTime() - shift);
  const baseEnd = new Date(windowEnd.getTime() - shift);
  const [current, baseline] = await Promise.all([windowAggregate(prisma, q), windowAggregate(prisma, { ...q, start: baseStart, end: baseEnd })]);
  const note = { baselineKind: m.baseline, baselineStart: baseStart.toISOString(), baselineEnd: baseEnd.toISOString() };
  return { decision: decideDrop(m, current, baseline, note), windowStart, windowEnd, current };
}

/** The examples of a bad window (none for OK and NO_DATA). */
export async function examplesOf(prisma: PrismaClient, m: MonitorSettings, result: WindowResult, now: Date): Promise<FailingExample[]> {
  if (result.decision.state !== "WARNING" && result.decision.state !== "ALERT") return [];
  return failingExamples(prisma, {
    evaluatorId: m.evaluatorId,
    scoreName: m.scoreName,
    metric: m.metric,
    percentile: m.percentile,
    start: result.windowStart,
    end: result.windowEnd,
    now,
    higherIsBetter: result.current.higherIsBetter,
    ...(result.currentVersionId ? { templateVersionId: result.currentVersionId } : {}),
  });
}

/** The event body of a decision (webhook JSON; Slack's message is built from it). */
export function eventPayload(input: {
  monitor: Monitor;
  evaluatorName: string;
  event: AlertEvent;
  state: MonitorState;
  previousState: MonitorState;
  result: WindowResult | null;
  reason: string;
  examples: FailingExample[];
  at: Date;
}): AlertEventPayload {
  const { monitor: m, result } = input;
  const d = result?.decision;
  return {
    type: `monitor.${input.event}`,
    monitor: { id: m.id, name: m.name, description: m.description, metric: m.metric, scoreName: m.scoreName, condition: m.condition, windowSeconds: m.windowSeconds, evaluator: { id: m.evaluatorId, name: input.evaluatorName } },
    state: input.state,
    previousState: input.previousState,
    window: result ? { start: result.windowStart.toISOString(), end: result.windowEnd.toISOString() } : null,
    value: d?.value ?? null,
    n: d?.n ?? null,
    baseline: m.condition === "drop" && d ? { kind: m.baseline ?? "", value: d.baselineValue, n: d.baselineN, detail: d.detail } : null,
    effect: d?.effect ?? null,
    pValue: d?.pValue ?? null,
    statistic: d?.statistic ?? null,
    reason: input.reason,
    examples: input.examples,
    at: input.at.toISOString(),
  };
}

/** What evaluating one window did. */
export type WindowOutcome = { status: "evaluated"; state: MonitorState; changed: boolean; deliveryIds: string[] } | { status: "already" } | { status: "gone" };

/** True while a mute is in force at `now`. */
export function mutedAt(m: Pick<Monitor, "muted" | "mutedUntil">, now: Date): boolean {
  return m.muted && (m.mutedUntil === null || m.mutedUntil.getTime() > now.getTime());
}

/**
 * Evaluates one window and records it: the evaluation, a transition when the state changed, and
 * (for the newest due window, unmuted) a delivery per destination when the state differs from the
 * one last told, or when renotifySeconds passed in a bad state — all in one transaction under the
 * monitor's row lock. Skips a window at or before the last one evaluated ("already").
 * @returns the deliveries to queue once committed.
 */
export async function recordWindow(deps: { prisma: PrismaClient; clock: Clock }, monitorId: string, windowEnd: Date, newest: boolean): Promise<WindowOutcome> {
  const { prisma, clock } = deps;
  const monitor = await prisma.monitor.findUnique({ where: { id: monitorId }, include: { evaluator: { select: { name: true } }, destinations: { select: { destinationId: true } } } });
  if (!monitor || !monitor.enabled) return { status: "gone" };
  if (monitor.lastWindowEnd && monitor.lastWindowEnd.getTime() >= windowEnd.getTime()) return { status: "already" };
  const m = settingsOf(monitor);
  const now = clock.now();
  const result = await evaluateWindow(prisma, m, windowEnd, now);
  const examples = newest ? await examplesOf(prisma, m, result, now) : [];
  return prisma.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<Pick<Monitor, "state" | "notifiedState" | "lastNotifiedAt" | "lastWindowEnd" | "muted" | "mutedUntil" | "enabled">[]>`
      SELECT state, "notifiedState", "lastNotifiedAt", "lastWindowEnd", muted, "mutedUntil", enabled FROM "Monitor" WHERE id = ${monitorId}::uuid FOR UPDATE`;
    if (!row || !row.enabled) return { status: "gone" } as const;
    if (row.lastWindowEnd && row.lastWindowEnd.getTime() >= windowEnd.getTime()) return { status: "already" } as const;
    const d = result.decision;
    const evaluationId = randomUUID();
    const inserted = await tx.monitorEvaluation.createMany({
      data: [{ id: evaluationId, monitorId, workspaceId: monitor.workspaceId, windowStart: result.windowStart, windowEnd, state: d.state, value: d.value, n: d.n, baselineValue: d.baselineValue, baselineN: d.baselineN, effect: d.effect, pValue: d.pValue, statistic: d.statistic, reason: d.reason, detail: d.detail as object, evaluatedAt: now }],
      skipDuplicates: true,
    });
    if (inserted.count === 0) return { status: "already" } as const;
    const previous = row.state as MonitorState;
    const changed = d.state !== previous;
    if (changed) await tx.monitorTransition.create({ data: { monitorId, workspaceId: monitor.workspaceId, fromState: previous, toState: d.state, cause: "evaluation", reason: d.reason, windowEnd, evaluationId, at: now } });
    const muted = mutedAt(row, now);
    let event: AlertEvent | null = null;
    if (newest && !muted) {
      if (d.state !== row.notifiedState) event = d.state === "OK" ? "resolved" : "firing";
      else if (d.state !== "OK" && m.renotifySeconds !== null && row.lastNotifiedAt && now.getTime() - row.lastNotifiedAt.getTime() >= m.renotifySeconds * 1000) event = "renotify";
    }
    const deliveryIds: string[] = [];
    if (event && monitor.destinations.length) {
      const payload = eventPayload({ monitor, evaluatorName: monitor.evaluator.name, event, state: d.state, previousState: row.notifiedState as MonitorState, result, reason: d.reason, examples, at: now });
      const rows = monitor.destinations.map((x) => ({ id: randomUUID(), workspaceId: monitor.workspaceId, monitorId, destinationId: x.destinationId, event, payload: payload as object, nextAttemptAt: now, createdAt: now }));
      await tx.alertDelivery.createMany({ data: rows });
      deliveryIds.push(...rows.map((r) => r.id));
    }
    await tx.monitor.update({
      where: { id: monitorId },
      data: {
        state: d.state,
        lastWindowEnd: windowEnd,
        ...(changed ? { stateSince: now } : {}),
        ...(event ? { notifiedState: d.state, lastNotifiedAt: now } : newest && !muted ? { notifiedState: d.state } : {}),
        // A mute whose time has passed ends here.
        ...(row.muted && !muted ? { muted: false, mutedUntil: null, muteReason: null } : {}),
      },
    });
    return { status: "evaluated", state: d.state, changed, deliveryIds } as const;
  });
}

/** What one job did for its monitor. */
export interface DueReport {
  evaluated: number;
  already: number;
  /** More windows are due than one job evaluates: a follow-up was queued. */
  more: boolean;
  deliveryIds: string[];
  states: MonitorState[];
}

/**
 * Evaluates every due window of a monitor, oldest first (the `monitor-evaluate` job); windows
 * further back than {@link MAX_CATCH_UP_WINDOWS} cadences are skipped with a warning.
 */
export async function evaluateDue(deps: { prisma: PrismaClient; clock: Clock; logger: Logger }, monitorId: string): Promise<DueReport> {
  const report: DueReport = { evaluated: 0, already: 0, more: false, deliveryIds: [], states: [] };
  const monitor = await deps.prisma.monitor.findUnique({ where: { id: monitorId }, select: { lastWindowEnd: true, createdAt: true, cadenceSeconds: true, enabled: true } });
  if (!monitor || !monitor.enabled) return report;
  const due = dueWindowEnds(monitor, deps.clock.now());
  if (due.skipped) deps.logger.warn({ monitorId, skipped: due.skipped }, "monitor: windows older than the catch-up bound were not evaluated");
  for (const [i, end] of due.ends.entries()) {
    const outcome = await recordWindow(deps, monitorId, end, !due.more && i === due.ends.length - 1);
    if (outcome.status === "gone") break;
    if (outcome.status === "already") report.already += 1;
    else {
      report.evaluated += 1;
      report.states.push(outcome.state);
      report.deliveryIds.push(...outcome.deliveryIds);
    }
  }
  report.more = due.more;
  return report;
}
