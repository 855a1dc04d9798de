import { randomUUID } from "node:crypto";
import type { AlertDelivery, AlertDestination, Monitor, MonitorEvaluation, MonitorTransition, Prisma } from "../../generated/prisma/client.js";
import { MONITOR_STATES, type MonitorState } from "../../lib/closed-lists.js";
import type { Clock } from "../../lib/clock.js";
import { BadUserInputError, LimitExceededError, NotFoundError, type InputIssue } from "../../lib/errors.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { withUniqueName } from "../../lib/unique-violation.js";
import { isUuid, uuidOrNil } from "../../lib/uuid.js";
import { parseIssues } from "../../lib/validation.js";
import type { Queues } from "../../queues/queues.js";
import type { Principal } from "../../lib/principal.js";
import { createDeliverySender, type AttemptResult, type DeliveryOptions } from "./delivery.js";
import { evaluateDue, evaluateWindow, eventPayload, examplesOf, latestDueWindowEnd, mutedAt, settingsOf, type DueReport } from "./evaluation.js";
import {
  createDestinationInputSchema,
  createMonitorInputSchema,
  destinationIdInputSchema,
  listDeliveriesInputSchema,
  listMonitorsInputSchema,
  MAX_MONITORS_PER_WORKSPACE,
  monitorIdInputSchema,
  muteMonitorInputSchema,
  resolveMonitorInputSchema,
  updateMonitorInputSchema,
  type MonitorSettings,
} from "./schemas.js";
import { createMonitorScheduling } from "./scheduling.js";
import { createSecretBox, newSigningSecret, urlHint } from "./secrets.js";
import { DEFAULT_SETTINGS, settingsProblems } from "./settings.js";

export type { AlertDelivery, AlertDestination, Monitor, MonitorEvaluation, MonitorTransition } from "../../generated/prisma/client.js";
export type { AlertEventPayload } from "./payloads.js";
export type { MonitorReconcileReport } from "./scheduling.js";

/** A created destination and its signing secret, shown this once (webhooks; null for Slack). */
export interface CreatedDestination {
  destination: AlertDestination;
  signingSecret: string | null;
}

/** What testFireMonitor sent: the deliveries, each after its first attempt. */
export interface TestFireResult {
  monitor: Monitor;
  deliveries: AlertDelivery[];
}

/** Monitors of every workspace per state (for /metrics). */
export type MonitorStateCounts = Record<MonitorState, number>;

/** What the monitors service needs. */
export interface MonitorServiceDeps {
  prisma: PrismaClient;
  queues: Queues;
  logger: Logger;
  clock: Clock;
  /** ALERT_SECRETS_KEY. */
  secretsKey?: string;
  delivery: DeliveryOptions;
  /** The reconciler's grace period (ms). */
  graceMs: number;
  /** Told of every window evaluated and delivery attempt (metrics). */
  observer?: { evaluated?(state: MonitorState): void; delivered?(result: AttemptResult): void };
}

/**
 * Monitors: thresholds and drops over windows of an evaluator's live scores, their states and
 * history, mute and resolve, destinations and deliveries (docs/monitors.md). Every function takes
 * a Principal and input as given (`unknown`, parsed with the module's zod schemas) and returns rows
 * with raw ids; every read and write is scoped to the caller's workspace. The job processors
 * (`evaluateDue`, `attemptDelivery`) and the reconciler take ids from the queues.
 */
export function createMonitorService(deps: MonitorServiceDeps) {
  const { prisma, logger, clock } = deps;
  const secrets = createSecretBox(deps.secretsKey);
  const sender = createDeliverySender({ prisma, queues: deps.queues, logger, clock, secrets, options: deps.delivery, onResult: (r) => deps.observer?.delivered?.(r) });
  const scheduling = createMonitorScheduling({ prisma, queues: deps.queues, logger, clock, graceMs: deps.graceMs });

  async function findMonitor(workspaceId: string, id: string): Promise<Monitor> {
    const found = isUuid(id) ? await prisma.monitor.findFirst({ where: { id, workspaceId } }) : null;
    if (!found) throw new NotFoundError("monitor", id);
    return found;
  }

  async function findEvaluator(workspaceId: string, id: string) {
    const evaluator = isUuid(id) ? await prisma.evaluator.findFirst({ where: { id, workspaceId } }) : null;
    if (!evaluator) throw new NotFoundError("evaluator", id);
    return evaluator;
  }

  /** The destinations named, all of the workspace (else NOT_FOUND naming the first that is not). */
  async function findDestinations(workspaceId: string, ids: readonly string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    const found = await prisma.alertDestination.findMany({ where: { workspaceId, id: { in: unique.map(uuidOrNil) } }, select: { id: true } });
    const known = new Set(found.map((d) => d.id));
    const missing = unique.find((id) => !known.has(id));
    if (missing !== undefined) throw new NotFoundError("alert destination", missing);
    return unique;
  }

  /** The direction the watched score's recent stored values declare (null: none yet, or they disagree). */
  async function scoreDirection(evaluatorId: string, scoreName: string | null): Promise<{ higherIsBetter: boolean | null; names: string[] }> {
    if (scoreName === null) return { higherIsBetter: null, names: [] };
    const rows = await prisma.$queryRaw<{ hib: boolean }[]>`
      SELECT s."higherIsBetter" AS hib FROM "Score" s WHERE s."evaluatorId" = ${evaluatorId}::uuid AND s.name = ${scoreName} ORDER BY s."createdAt" DESC LIMIT 100`;
    const values = new Set(rows.map((r) => r.hib));
    return { higherIsBetter: values.size === 1 ? [...values][0]! : null, names: [] };
  }

  /** Checks merged settings (cross-field rules, the evaluator); throws BAD_USER_INPUT with every issue. */
  async function check(workspaceId: string, s: MonitorSettings): Promise<void> {
    const evaluator = await findEvaluator(workspaceId, s.evaluatorId);
    const issues: InputIssue[] = [];
    if (evaluator.archivedAt) issues.push({ path: "evaluatorId", message: `evaluator "${evaluator.name}" is archived` });
    const { higherIsBetter } = await scoreDirection(s.evaluatorId, s.scoreName);
    issues.push(...settingsProblems(s, higherIsBetter));
    if (s.baseline === "previous_version" && evaluator.templateId === null) issues.push({ path: "baseline", message: `evaluator "${evaluator.name}" is external: it has no template versions to compare` });
    if (issues.length) throw new BadUserInputError(issues);
  }

  /** The settings columns of a monitor row. */
  const columns = (s: MonitorSettings) => ({ ...s });

  return {
    /** Creates a monitor and its job scheduler. @throws BAD_USER_INPUT, NOT_FOUND (evaluator, destination), LIMIT_EXCEEDED. */
    async createMonitor(principal: Principal, input: unknown): Promise<Monitor> {
      const { data, issues } = parseIssues(createMonitorInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const { destinationIds = [], ...given } = data;
      const settings: MonitorSettings = { ...DEFAULT_SETTINGS, ...given } as MonitorSettings;
      await check(principal.workspaceId, settings);
      const destinations = await findDestinations(principal.workspaceId, destinationIds);
      const count = await prisma.monitor.count({ where: { workspaceId: principal.workspaceId } });
      if (count >= MAX_MONITORS_PER_WORKSPACE) throw new LimitExceededError(`a workspace may have at most ${MAX_MONITORS_PER_WORKSPACE} monitors`);
      const now = clock.now();
      const monitor = await withUniqueName("a monitor", settings.name, () =>
        prisma.monitor.create({
          data: { ...columns(settings), workspaceId: principal.workspaceId, createdAt: now, stateSince: now, destinations: { create: destinations.map((destinationId) => ({ destinationId })) } },
        }),
      );
      await scheduling.scheduleQuietly(monitor);
      return monitor;
    },

    /** Changes the given fields (null clears an optional one; destinationIds replaces the list). */
    async updateMonitor(principal: Principal, input: unknown): Promise<Monitor> {
      const { data, issues } = parseIssues(updateMonitorInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const { id, destinationIds, ...changes } = data as { id: string; destinationIds?: string[] } & Partial<MonitorSettings>;
      const current = await findMonitor(principal.workspaceId, id);
      const given = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      const settings: MonitorSettings = { ...settingsOf(current), ...given };
      await check(principal.workspaceId, settings);
      const destinations = destinationIds ? await findDestinations(principal.workspaceId, destinationIds) : null;
      const monitor = await withUniqueName("a monitor", settings.name, () =>
        prisma.$transaction(async (tx) => {
          if (destinations) {
            await tx.monitorDestination.deleteMany({ where: { monitorId: id } });
            await tx.monitorDestination.createMany({ data: destinations.map((destinationId) => ({ monitorId: id, destinationId })) });
          }
          // Enabled again: evaluation resumes at the newest due window, the disabled time is not caught up.
          const resumed = !current.enabled && settings.enabled ? { lastWindowEnd: new Date(latestDueWindowEnd(clock.now(), settings.cadenceSeconds).getTime() - settings.cadenceSeconds * 1000) } : {};
          return tx.monitor.update({ where: { id }, data: { ...columns(settings), ...resumed } });
        }),
      );
      if (monitor.enabled !== current.enabled || monitor.cadenceSeconds !== current.cadenceSeconds) await scheduling.scheduleQuietly(monitor);
      return monitor;
    },

    /** Deletes a monitor with its history and deliveries, and its scheduler. */
    async deleteMonitor(principal: Principal, input: unknown): Promise<Monitor> {
      const { data, issues } = parseIssues(monitorIdInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const monitor = await findMonitor(principal.workspaceId, data.id);
      await prisma.monitor.delete({ where: { id: monitor.id } });
      await scheduling.unschedule(monitor.id);
      return monitor;
    },

    /** One monitor. @throws NOT_FOUND. */
    async getMonitor(principal: Principal, input: unknown): Promise<Monitor> {
      const { data, issues } = parseIssues(monitorIdInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      return findMonitor(principal.workspaceId, data.id);
    },

    /** The workspace's monitors by state and evaluator, newest first; `page` is the caller's pagination and selection. */
    async listMonitors(principal: Principal, input: unknown, page: Omit<Prisma.MonitorFindManyArgs, "where" | "orderBy"> = {}): Promise<Monitor[]> {
      const { data, issues } = parseIssues(listMonitorsInputSchema, input ?? {});
      if (!data) throw new BadUserInputError(issues);
      const where: Prisma.MonitorWhereInput = { workspaceId: principal.workspaceId };
      if (data.state) where.state = data.state;
      if (data.evaluatorId) where.evaluatorId = uuidOrNil(data.evaluatorId);
      if (data.name !== undefined) where.name = data.name;
      return prisma.monitor.findMany({ ...page, where, orderBy: [{ createdAt: "desc" }, { id: "desc" }] }) as Promise<Monitor[]>;
    },

    /** A monitor's evaluations (its history of windows), newest window first. */
    async listEvaluations(principal: Principal, input: unknown, page: Omit<Prisma.MonitorEvaluationFindManyArgs, "where" | "orderBy"> = {}): Promise<MonitorEvaluation[]> {
      const monitor = await this.getMonitor(principal, input);
      return prisma.monitorEvaluation.findMany({ ...page, where: { monitorId: monitor.id }, orderBy: [{ windowEnd: "desc" }, { id: "desc" }] }) as Promise<MonitorEvaluation[]>;
    },

    /** A monitor's state changes, newest first. */
    async listTransitions(principal: Principal, input: unknown, page: Omit<Prisma.MonitorTransitionFindManyArgs, "where" | "orderBy"> = {}): Promise<MonitorTransition[]> {
      const monitor = await this.getMonitor(principal, input);
      return prisma.monitorTransition.findMany({ ...page, where: { monitorId: monitor.id }, orderBy: [{ at: "desc" }, { id: "desc" }] }) as Promise<MonitorTransition[]>;
    },

    /** The workspace's deliveries (the delivery log), newest first, by monitor and status. */
    async listDeliveries(principal: Principal, input: unknown, page: Omit<Prisma.AlertDeliveryFindManyArgs, "where" | "orderBy"> = {}): Promise<AlertDelivery[]> {
      const { data, issues } = parseIssues(listDeliveriesInputSchema, input ?? {});
      if (!data) throw new BadUserInputError(issues);
      const where: Prisma.AlertDeliveryWhereInput = { workspaceId: principal.workspaceId };
      if (data.monitorId) where.monitorId = uuidOrNil(data.monitorId);
      if (data.status) where.status = data.status;
      return prisma.alertDelivery.findMany({ ...page, where, orderBy: [{ createdAt: "desc" }, { id: "desc" }] }) as Promise<AlertDelivery[]>;
    },

    /** Mutes a monitor (until a time, or until unmuted): evaluations and transitions go on, nothing is sent. */
    async muteMonitor(principal: Principal, input: unknown): Promise<Monitor> {
      const { data, issues } = parseIssues(muteMonitorInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const monitor = await findMonitor(principal.workspaceId, data.id);
      if (data.until && data.until.getTime() <= clock.now().getTime()) throw new BadUserInputError([{ path: "until", message: "must be in the future" }]);
      return prisma.monitor.update({ where: { id: monitor.id }, data: { muted: true, mutedUntil: data.until ?? null, muteReason: data.reason ?? null } });
    },

    /** Unmutes a monitor: the next evaluation tells the destinations what changed meanwhile. */
    async unmuteMonitor(principal: Principal, input: unknown): Promise<Monitor> {
      const { data, issues } = parseIssues(monitorIdInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const monitor = await findMonitor(principal.workspaceId, data.id);
      return prisma.monitor.update({ where: { id: monitor.id }, data: { muted: false, mutedUntil: null, muteReason: null } });
    },

    /**
     * Resolves a firing monitor by hand: state OK now (a transition `resolved_by_hand` with the
     * reason) and, unless muted, a `resolved` event to its destinations. The next window is
     * evaluated as usual: still bad, it fires again. An OK monitor is returned unchanged.
     */
    async resolveMonitor(principal: Principal, input: unknown): Promise<Monitor> {
      const { data, issues } = parseIssues(resolveMonitorInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const found = await findMonitor(principal.workspaceId, data.id);
      const now = clock.now();
      const evaluatorName = (await prisma.evaluator.findUniqueOrThrow({ where: { id: found.evaluatorId }, select: { name: true } })).name;
      const { monitor, deliveryIds } = await prisma.$transaction(async (tx) => {
        const [row] = await tx.$queryRaw<Monitor[]>`SELECT * FROM "Monitor" WHERE id = ${found.id}::uuid FOR UPDATE`;
        if (!row || row.state === "OK") return { monitor: row ?? found, deliveryIds: [] as string[] };
        const reason = `resolved by hand${data.reason ? `: ${data.reason}` : ""}`;
        await tx.monitorTransition.create({ data: { monitorId: row.id, workspaceId: row.workspaceId, fromState: row.state, toState: "OK", cause: "resolved_by_hand", reason, at: now } });
        const tell = !mutedAt(row, now) && row.notifiedState !== "OK";
        const ids: string[] = [];
        if (tell) {
          const destinations = await tx.monitorDestination.findMany({ where: { monitorId: row.id }, select: { destinationId: true } });
          const payload = eventPayload({ monitor: row, evaluatorName, event: "resolved", state: "OK", previousState: row.notifiedState as MonitorState, result: null, reason, examples: [], at: now });
          const rows = destinations.map((d) => ({ id: randomUUID(), workspaceId: row.workspaceId, monitorId: row.id, destinationId: d.destinationId, event: "resolved", payload: payload as object, nextAttemptAt: now, createdAt: now }));
          await tx.alertDelivery.createMany({ data: rows });
          ids.push(...rows.map((r) => r.id));
        }
        const updated = await tx.monitor.update({ where: { id: row.id }, data: { state: "OK", stateSince: now, ...(tell ? { notifiedState: "OK", lastNotifiedAt: now } : {}) } });
        return { monitor: updated, deliveryIds: ids };
      });
      await sender.queue(deliveryIds);
      return monitor;
    },

    /**
     * Sends a test event to every destination of the monitor now: the newest due window evaluated
     * as it would be (nothing recorded but the deliveries), each delivery's first attempt made
     * before returning (retries, if any, are queued). @throws BAD_USER_INPUT when it has no destination.
     */
    async testFireMonitor(principal: Principal, input: unknown): Promise<TestFireResult> {
      const { data, issues } = parseIssues(monitorIdInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const monitor = await findMonitor(principal.workspaceId, data.id);
      const destinations = await prisma.monitorDestination.findMany({ where: { monitorId: monitor.id }, select: { destinationId: true } });
      if (!destinations.length) throw new BadUserInputError([{ path: "id", message: "the monitor has no destinations: add destinationIds first (updateMonitor)" }]);
      const now = clock.now();
      const settings = settingsOf(monitor);
      const result = await evaluateWindow(prisma, settings, latestDueWindowEnd(now, monitor.cadenceSeconds), now);
      const examples = await examplesOf(prisma, settings, result, now);
      const evaluatorName = (await prisma.evaluator.findUniqueOrThrow({ where: { id: monitor.evaluatorId }, select: { name: true } })).name;
      const payload = eventPayload({ monitor, evaluatorName, event: "test", state: result.decision.state, previousState: monitor.state as MonitorState, result, reason: `test: ${result.decision.reason}`, examples, at: now });
      const rows = destinations.map((d) => ({ id: randomUUID(), workspaceId: monitor.workspaceId, monitorId: monitor.id, destinationId: d.destinationId, event: "test", payload: payload as object, nextAttemptAt: now, createdAt: now }));
      await prisma.alertDelivery.createMany({ data: rows });
      for (const row of rows) await sender.attempt(row.id);
      const deliveries = await prisma.alertDelivery.findMany({ where: { id: { in: rows.map((r) => r.id) } }, orderBy: { createdAt: "asc" } });
      return { monitor, deliveries };
    },

    /** Creates a destination; a webhook gets a new signing secret, returned here only. */
    async createDestination(principal: Principal, input: unknown): Promise<CreatedDestination> {
      const { data, issues } = parseIssues(createDestinationInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const id = randomUUID();
      const signingSecret = data.kind === "webhook" ? newSigningSecret() : null;
      const destination = await withUniqueName("an alert destination", data.name, () =>
        prisma.alertDestination.create({
          data: { id, workspaceId: principal.workspaceId, name: data.name, kind: data.kind, urlSealed: secrets.seal(data.url, id), urlHint: urlHint(data.url), secretSealed: signingSecret ? secrets.seal(signingSecret, id) : null, createdAt: clock.now() },
        }),
      );
      return { destination, signingSecret };
    },

    /** The workspace's destinations (never their secrets). */
    async listDestinations(principal: Principal, page: Omit<Prisma.AlertDestinationFindManyArgs, "where" | "orderBy"> = {}): Promise<AlertDestination[]> {
      return prisma.alertDestination.findMany({ ...page, where: { workspaceId: principal.workspaceId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] }) as Promise<AlertDestination[]>;
    },

    /** Deletes a destination (monitors stop sending to it; its delivery log goes with it). */
    async deleteDestination(principal: Principal, input: unknown): Promise<AlertDestination> {
      const { data, issues } = parseIssues(destinationIdInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const found = isUuid(data.id) ? await prisma.alertDestination.findFirst({ where: { id: data.id, workspaceId: principal.workspaceId } }) : null;
      if (!found) throw new NotFoundError("alert destination", data.id);
      await prisma.alertDestination.delete({ where: { id: found.id } });
      return found;
    },

    /** True when destination secrets are sealed with ALERT_SECRETS_KEY. */
    secretsSealed: secrets.encrypts,

    /** The `monitor-evaluate` job: every due window of the monitor; deliveries queued after each commit; a follow-up job when more are due. */
    async evaluateDue(monitorId: string): Promise<DueReport> {
      const report = await evaluateDue({ prisma, clock, logger }, monitorId);
      for (const state of report.states) deps.observer?.evaluated?.(state);
      await sender.queue(report.deliveryIds);
      if (report.more) await deps.queues.add("monitor-evaluate", { monitorId }, { jobId: `catchup_${monitorId}_${randomUUID()}` });
      return report;
    },

    /** The `monitor-delivery` job: the next attempt of a delivery. */
    attemptDelivery: (deliveryId: string) => sender.attempt(deliveryId),

    /** Schedulers and the reconciler (run by the worker). */
    scheduling,

    /** Monitors of every workspace per state (one grouped read; /metrics). */
    async stateCounts(): Promise<MonitorStateCounts> {
      const rows = await prisma.$queryRaw<{ state: MonitorState; n: bigint }[]>`SELECT state, count(*) AS n FROM "Monitor" WHERE enabled GROUP BY state`;
      const counts = Object.fromEntries(MONITOR_STATES.map((s) => [s, 0])) as MonitorStateCounts;
      for (const r of rows) counts[r.state] = Number(r.n);
      return counts;
    },
  };
}

/** The monitors service. */
export type MonitorService = ReturnType<typeof createMonitorService>;
