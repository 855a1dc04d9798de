/**
 * Worker pools per workspace (sandbox/README.md § Known residuals): which workspaces' sandboxed
 * jobs a worker runs. Every worker takes jobs from the same BullMQ queues, so a worker that takes
 * a job of a workspace it does not serve hands it back: the job moves to delayed for
 * {@link HAND_BACK_MS} without using an attempt, and another worker takes it. With `k` of `n`
 * workers on a queue serving a workspace, a job of it is handed back (n − k)/k times on average
 * before one of them takes it (each hand-back one Redis call and {@link HAND_BACK_MS} of wait).
 */
import type { Job } from "bullmq";
import type { PrismaClient } from "../lib/prisma.js";
import type { QueueName } from "./registry.js";

/** Wait of a handed-back job before it is offered to the workers again (ms). */
export const HAND_BACK_MS = 200;

/** The workspaces a worker serves: `only` these (a pool's workers), or all `except` these (the others); neither: all. */
export interface WorkspaceFilter {
  only?: ReadonlySet<string>;
  except?: ReadonlySet<string>;
}

/** The filter of the configuration's WORKER_WORKSPACES / WORKER_EXCLUDE_WORKSPACES (undefined: every workspace). */
export function workspaceFilterOf(config: { WORKER_WORKSPACES?: string[]; WORKER_EXCLUDE_WORKSPACES?: string[] }): WorkspaceFilter | undefined {
  if (config.WORKER_WORKSPACES) return { only: new Set(config.WORKER_WORKSPACES) };
  if (config.WORKER_EXCLUDE_WORKSPACES) return { except: new Set(config.WORKER_EXCLUDE_WORKSPACES) };
  return undefined;
}

/** Whether a worker with `filter` runs jobs of `workspaceId`. */
export function serves(filter: WorkspaceFilter, workspaceId: string): boolean {
  if (filter.only) return filter.only.has(workspaceId);
  return !filter.except?.has(workspaceId);
}

/**
 * The workspace a sandboxed job belongs to: its payload's for `evaluate-target`, its experiment's
 * or backfill's (one indexed read) for the batch queues; undefined for other queues and for a job
 * whose experiment or backfill is gone (its processor deals with that).
 */
export async function workspaceOfJob(prisma: PrismaClient, queue: QueueName, job: Pick<Job, "data">): Promise<string | undefined> {
  const data = job.data as { workspaceId?: string; experimentId?: string; backfillId?: string };
  if (queue === "evaluate-target") return data.workspaceId;
  if (queue === "experiment-batch" && data.experimentId) {
    return (await prisma.experiment.findUnique({ where: { id: data.experimentId }, select: { workspaceId: true } }))?.workspaceId;
  }
  if (queue === "backfill-batch" && data.backfillId) {
    return (await prisma.backfill.findUnique({ where: { id: data.backfillId }, select: { workspaceId: true } }))?.workspaceId;
  }
  return undefined;
}
