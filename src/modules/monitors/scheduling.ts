import type { Monitor } from "../../generated/prisma/client.js";
import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import { startPeriodic } from "../../lib/periodic.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Queues } from "../../queues/queues.js";
import { deliveryJobId } from "./delivery.js";
import { dueWindowEnds, SCHEDULER_OFFSET_MS } from "./evaluation.js";

/**
 * The monitors' job schedulers and their reconciler (docs/monitors.md § Scheduling). Postgres
 * holds what is due (each monitor's last window end and cadence; each pending delivery's next
 * attempt); Redis holds one BullMQ job scheduler per enabled monitor, `monitor_<id>`, every
 * cadence. The reconciler makes Redis match Postgres after an outage, the same pattern as the
 * live runs' reconciler (src/modules/reconcile): it puts back lost schedulers, removes those of
 * deleted or disabled monitors, queues a catch-up job for monitors whose due windows waited past
 * the grace period, and queues again deliveries whose job is gone.
 */

/** BullMQ states of a job that will still run (or is running). */
const LIVE_STATES = new Set(["waiting", "wait", "active", "delayed", "prioritized", "waiting-children"]);

/** The job scheduler id of a monitor (no `:` for BullMQ). */
export function schedulerId(monitorId: string): string {
  return `monitor_${monitorId}`;
}

/** What one reconciler pass did. */
export interface MonitorReconcileReport {
  schedulersAdded: number;
  schedulersRemoved: number;
  /** Monitors with windows overdue: a catch-up job was queued. */
  catchUps: number;
  deliveriesRequeued: number;
}

/** The schedulers and the reconciler. */
export function createMonitorScheduling(deps: { prisma: PrismaClient; queues: Queues; logger: Logger; clock: Clock; graceMs: number }) {
  const { prisma, queues, logger, clock } = deps;

  async function schedule(monitor: Pick<Monitor, "id" | "enabled" | "cadenceSeconds">): Promise<void> {
    if (monitor.enabled) await queues.upsertScheduler("monitor-evaluate", schedulerId(monitor.id), { everyMs: monitor.cadenceSeconds * 1000, offsetMs: SCHEDULER_OFFSET_MS }, { monitorId: monitor.id });
    else await queues.removeScheduler("monitor-evaluate", schedulerId(monitor.id));
  }

  /** Queues `jobId` unless a job of that id is alive; a finished one is removed first. */
  async function queueUnlessLive(queue: "monitor-evaluate" | "monitor-delivery", jobId: string, payload: { monitorId: string } | { deliveryId: string }): Promise<boolean> {
    const [state] = await queues.states(queue, [jobId]);
    if (LIVE_STATES.has(state!)) return false;
    if (state !== "unknown" && !(await queues.remove(queue, jobId))) return false;
    await queues.add(queue, payload as never, { jobId });
    return true;
  }

  return {
    schedule,

    /**
     * Creates or updates the monitor's scheduler (removes it when disabled). A Redis error is
     * logged, not thrown: the monitor is saved, and the reconciler's next pass schedules it.
     */
    async scheduleQuietly(monitor: Pick<Monitor, "id" | "enabled" | "cadenceSeconds">): Promise<void> {
      await schedule(monitor).catch((error: unknown) => logger.warn({ monitorId: monitor.id, err: error instanceof Error ? error.message : String(error) }, "monitor scheduler not saved (Redis); the reconciler saves it later"));
    },

    /** Removes a deleted monitor's scheduler (a Redis error: the reconciler removes it later). */
    async unschedule(monitorId: string): Promise<void> {
      await queues.removeScheduler("monitor-evaluate", schedulerId(monitorId)).catch((error: unknown) => logger.warn({ monitorId, err: error instanceof Error ? error.message : String(error) }, "monitor scheduler not removed (Redis); the reconciler removes it later"));
    },

    /**
     * One pass. `workspaceId` scopes it to one workspace's monitors and deliveries (and then leaves
     * other schedulers alone); unscoped, schedulers of no enabled monitor are removed.
     * @throws the database or Redis error when either is unavailable (the caller tries again later).
     */
    async reconcile(scope: { workspaceId?: string } = {}): Promise<MonitorReconcileReport> {
      const report: MonitorReconcileReport = { schedulersAdded: 0, schedulersRemoved: 0, catchUps: 0, deliveriesRequeued: 0 };
      const where = scope.workspaceId ? { workspaceId: scope.workspaceId } : {};
      const monitors = await prisma.monitor.findMany({ where: { ...where, enabled: true }, select: { id: true, enabled: true, cadenceSeconds: true, lastWindowEnd: true, createdAt: true } });
      const existing = new Map((await queues.schedulers("monitor-evaluate")).map((s) => [s.id, s.everyMs]));
      const wanted = new Set<string>();
      const now = clock.now();
      for (const monitor of monitors) {
        const id = schedulerId(monitor.id);
        wanted.add(id);
        if (existing.get(id) !== monitor.cadenceSeconds * 1000) {
          await schedule(monitor);
          report.schedulersAdded += 1;
        }
        // Overdue: the oldest window not evaluated has waited past its slot and the grace period.
        const due = dueWindowEnds(monitor, now);
        const oldest = due.ends[0];
        if (oldest && oldest.getTime() + SCHEDULER_OFFSET_MS + deps.graceMs < now.getTime()) {
          if (await queueUnlessLive("monitor-evaluate", `catchup_${monitor.id}_${oldest.getTime()}`, { monitorId: monitor.id })) report.catchUps += 1;
        }
      }
      if (!scope.workspaceId) {
        for (const id of existing.keys()) {
          if (id.startsWith("monitor_") && !wanted.has(id)) {
            await queues.removeScheduler("monitor-evaluate", id);
            report.schedulersRemoved += 1;
          }
        }
      }
      const stale = new Date(now.getTime() - deps.graceMs);
      const pending = await prisma.alertDelivery.findMany({ where: { ...where, status: "pending", nextAttemptAt: { lt: stale } }, select: { id: true, attempts: true }, orderBy: { nextAttemptAt: "asc" }, take: 1_000 });
      for (const d of pending) {
        if (await queueUnlessLive("monitor-delivery", deliveryJobId(d.id, d.attempts + 1), { deliveryId: d.id })) report.deliveriesRequeued += 1;
      }
      if (report.schedulersAdded || report.schedulersRemoved || report.catchUps || report.deliveriesRequeued) logger.info(report, "monitors reconciler: Redis made to match Postgres");
      return report;
    },

    /** Runs {@link reconcile} now and every `intervalMs` (one pass at a time); returns a stop function. */
    start(intervalMs: number): () => Promise<void> {
      return startPeriodic({ pass: () => this.reconcile(), intervalMs, logger, failure: "monitors reconciler pass failed; next pass later", runNow: true });
    },
  };
}

/** The schedulers and reconciler of monitors. */
export type MonitorScheduling = ReturnType<typeof createMonitorScheduling>;
