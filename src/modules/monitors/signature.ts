import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Webhook signatures (docs/monitors.md § Webhooks): HMAC-SHA256 with the destination's signing
 * secret over `<timestamp>.<body>`, the timestamp in its own header, so a receiver can refuse a
 * replayed request by its age. This file depends on nothing else of the project: a receiver in
 * Node can copy it as it is (docs/monitors.md shows the same check in Python).
 *
 * Headers of every webhook request:
 * - `Oodle-Timestamp`: Unix time in seconds when this attempt was signed (each retry signs anew);
 * - `Oodle-Signature`: `v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`;
 * - `Oodle-Delivery-Id`: the delivery's id, the same on every attempt (to drop duplicates).
 */

/** The header names. */
export const SIGNATURE_HEADER = "oodle-signature";
export const TIMESTAMP_HEADER = "oodle-timestamp";
export const DELIVERY_ID_HEADER = "oodle-delivery-id";
/** How old (or how far in the future) a signed request may be by default: 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The v1 signature of `body` signed at `timestamp` (Unix seconds): lower-case hex. */
export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex");
}

/** The signature headers of a request body signed now (`nowSeconds`, Unix seconds). */
export function signWebhook(secret: string, body: string, nowSeconds: number, deliveryId: string): Record<string, string> {
  const timestamp = Math.floor(nowSeconds);
  return { [TIMESTAMP_HEADER]: String(timestamp), [SIGNATURE_HEADER]: `v1=${signatureOf(secret, timestamp, body)}`, [DELIVERY_ID_HEADER]: deliveryId };
}

/** Why a request was refused (null: it is genuine and fresh). */
export type VerifyFailure = "missing_headers" | "bad_timestamp" | "too_old" | "in_the_future" | "bad_signature";

/**
 * Checks a received webhook: the signature over `<timestamp>.<rawBody>` (compared in constant
 * time; any `v1=` entry of a comma-separated header may match, for secret rotation) and the
 * timestamp within `toleranceSeconds` of `nowSeconds` — a replay of a captured request older
 * than that is refused even though its signature is right. Use the raw body as received, before
 * any JSON parsing.
 * @param headers - the request headers (names in any case).
 * @returns null when genuine and fresh, else why not.
 */
export function verifyWebhook(options: {
  secret: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  nowSeconds?: number;
  toleranceSeconds?: number;
}): VerifyFailure | null {
  const header = (name: string) => {
    const found = Object.entries(options.headers).find(([k]) => k.toLowerCase() === name)?.[1];
    return Array.isArray(found) ? found[0] : found;
  };
  const timestampText = header(TIMESTAMP_HEADER);
  const signatures = header(SIGNATURE_HEADER);
  if (!timestampText || !signatures) return "missing_headers";
  if (!/^\d{1,12}$/.test(timestampText)) return "bad_timestamp";
  const timestamp = Number(timestampText);
  const now = options.nowSeconds ?? Date.now() / 1000;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (now - timestamp > tolerance) return "too_old";
  if (timestamp - now > tolerance) return "in_the_future";
  const expected = Buffer.from(signatureOf(options.secret, timestamp, options.rawBody), "hex");
  const matches = signatures
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.startsWith("v1="))
    .some((part) => {
      const given = Buffer.from(part.slice(3), "hex");
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  return matches ? null : "bad_signature";
}
