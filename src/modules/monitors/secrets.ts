import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Sealing of destination secrets (a webhook's signing secret, a Slack webhook URL) at rest:
 * AES-256-GCM with the key of `ALERT_SECRETS_KEY` (32 bytes, base64), a fresh 96-bit IV per value
 * and the record's id as additional data, so a sealed value copied onto another row does not
 * open. Stored as `v1:<iv>:<tag>:<ciphertext>` (base64url). Without a key the value is stored as
 * `plain:<value>` and the destination says `sealed: false`: still never returned after creation,
 * never logged, never in /metrics.
 */

/** Seals and opens values bound to a record id. */
export interface SecretBox {
  /** True when values are encrypted (a key is configured). */
  readonly encrypts: boolean;
  seal(value: string, recordId: string): string;
  /** @throws Error when the value was sealed with another key or for another record. */
  open(sealed: string, recordId: string): string;
}

/** A box over `key` (base64 of 32 bytes), or a pass-through box when there is none. */
export function createSecretBox(key: string | undefined): SecretBox {
  const raw = key ? Buffer.from(key, "base64") : null;
  if (raw && raw.length !== 32) throw new Error("ALERT_SECRETS_KEY must be 32 bytes, base64-encoded");
  return {
    encrypts: raw !== null,
    seal(value, recordId) {
      if (!raw) return `plain:${value}`;
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", raw, iv);
      cipher.setAAD(Buffer.from(recordId, "utf8"));
      const body = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
      return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(":");
    },
    open(sealed, recordId) {
      if (sealed.startsWith("plain:")) return sealed.slice(6);
      const [version, iv, tag, body] = sealed.split(":");
      if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("not a sealed value");
      if (!raw) throw new Error("the value is sealed but ALERT_SECRETS_KEY is not set");
      const decipher = createDecipheriv("aes-256-gcm", raw, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(recordId, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}

/** A new signing secret: `whsec_` and 32 random bytes (base64url). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/** What is shown of a URL: its origin and the last 4 characters of the rest (`https://hooks.slack.com/…Xy9Z`). */
export function urlHint(url: string): string {
  const parsed = new URL(url);
  const rest = `${parsed.pathname}${parsed.search}`;
  return rest.length > 1 ? `${parsed.origin}/…${rest.slice(-4)}` : parsed.origin;
}
