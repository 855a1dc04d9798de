import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Queues } from "../../queues/queues.js";
import { postJson } from "./http-post.js";
import { slackMessage, type AlertEventPayload } from "./payloads.js";
import type { SecretBox } from "./secrets.js";
import { signWebhook } from "./signature.js";

/**
 * Sending alert deliveries (docs/monitors.md § Deliveries): one attempt per `monitor-delivery`
 * job, claimed in Postgres first (so two workers never send the same attempt), then the POST, then
 * its answer appended to the delivery's log. 2xx: delivered. A refusal that retrying cannot fix
 * (4xx other than 408 and 429; an address refused as private; secrets that do not open): failed at once. Anything else (5xx, 408, 429, no answer) is tried
 * again after a backoff doubling from ALERT_RETRY_BASE_MS, up to ALERT_DELIVERY_ATTEMPTS.
 */

/** Options of the sender (from the configuration). */
export interface DeliveryOptions {
  maxAttempts: number;
  retryBaseMs: number;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** The job id of one attempt of a delivery (attempts count from 1). */
export function deliveryJobId(deliveryId: string, attempt: number): string {
  return `${deliveryId}_${attempt}`;
}

/** The wait before attempt `attempt` + 1 (ms): base × 2^(attempt − 1). */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return baseMs * 2 ** Math.max(0, attempt - 1);
}

/** What one attempt did. */
export type AttemptResult = "delivered" | "failed" | "retrying" | "skipped";

/** One entry of a delivery's log. */
export interface AttemptLogEntry {
  attempt: number;
  at: string;
  statusCode: number | null;
  body: string;
  error: string | null;
  durationMs: number;
}

/** The sender of deliveries. */
export function createDeliverySender(deps: { prisma: PrismaClient; queues: Queues; logger: Logger; clock: Clock; secrets: SecretBox; options: DeliveryOptions; onResult?: (result: AttemptResult) => void }) {
  const { prisma, queues, logger, clock, secrets, options } = deps;

  return {
    /** Queues the first attempt of each delivery (after the transaction that wrote them committed). Errors are logged: the reconciler queues them later. */
    async queue(deliveryIds: readonly string[]): Promise<void> {
      if (!deliveryIds.length) return;
      try {
        await queues.addBulk("monitor-delivery", deliveryIds.map((id) => ({ payload: { deliveryId: id }, jobId: deliveryJobId(id, 1) })));
      } catch (error) {
        logger.warn({ deliveries: deliveryIds.length, err: error instanceof Error ? error.message : String(error) }, "alert deliveries not queued (Redis); the reconciler queues them later");
      }
    },

    /**
     * Makes the next attempt of a pending delivery. @returns what happened ("skipped": not pending,
     * or another worker took this attempt).
     */
    async attempt(deliveryId: string): Promise<AttemptResult> {
      const delivery = await prisma.alertDelivery.findUnique({ where: { id: deliveryId }, include: { destination: true } });
      if (!delivery || delivery.status !== "pending") return "skipped";
      const attempt = delivery.attempts + 1;
      const claimed = await prisma.alertDelivery.updateMany({ where: { id: deliveryId, status: "pending", attempts: delivery.attempts }, data: { attempts: attempt } });
      if (claimed.count === 0) return "skipped";
      const destination = delivery.destination;
      const payload = delivery.payload as unknown as AlertEventPayload;
      const body = JSON.stringify(destination.kind === "slack" ? slackMessage(payload) : payload);
      const now = clock.now();
      let answer: { statusCode: number | null; body: string; error: string | null; refused?: boolean; durationMs: number };
      try {
        const url = secrets.open(destination.urlSealed, destination.id);
        const headers = destination.kind === "webhook" && destination.secretSealed ? signWebhook(secrets.open(destination.secretSealed, destination.id), body, now.getTime() / 1000, delivery.id) : {};
        answer = await postJson(url, body, headers, { timeoutMs: options.timeoutMs, allowPrivate: options.allowPrivate });
      } catch (error) {
        // A secret that does not open (another key): never retried, and never logged with the secret.
        answer = { statusCode: null, body: "", error: `the destination's secrets do not open: ${error instanceof Error ? error.message : "unknown"}`, refused: true, durationMs: 0 };
      }
      const code = answer.statusCode;
      const ok = code !== null && code >= 200 && code < 300;
      const permanent = (code !== null && code >= 400 && code < 500 && code !== 408 && code !== 429) || answer.refused === true;
      const result: AttemptResult = ok ? "delivered" : permanent || attempt >= options.maxAttempts ? "failed" : "retrying";
      const entry: AttemptLogEntry = { attempt, at: now.toISOString(), statusCode: code, body: answer.body, error: answer.error, durationMs: answer.durationMs };
      const delay = retryDelayMs(attempt, options.retryBaseMs);
      const status = result === "retrying" ? "pending" : result;
      await prisma.$executeRaw`
        UPDATE "AlertDelivery" SET status = ${status}, log = log || ${JSON.stringify([entry])}::jsonb,
          "nextAttemptAt" = ${result === "retrying" ? new Date(now.getTime() + delay) : null},
          "deliveredAt" = ${ok ? now : null}
        WHERE id = ${deliveryId}::uuid`;
      if (result === "retrying") {
        await queues.add("monitor-delivery", { deliveryId }, { jobId: deliveryJobId(deliveryId, attempt + 1), delay }).catch((error: unknown) =>
          logger.warn({ deliveryId, err: error instanceof Error ? error.message : String(error) }, "alert delivery retry not queued (Redis); the reconciler queues it later"),
        );
      }
      if (result === "failed") logger.warn({ deliveryId, monitorId: delivery.monitorId, attempts: attempt, statusCode: code, err: answer.error }, "alert delivery failed");
      deps.onResult?.(result);
      return result;
    },
  };
}

/** The sender. */
export type DeliverySender = ReturnType<typeof createDeliverySender>;
