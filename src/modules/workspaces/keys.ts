import { createHash, randomBytes } from "node:crypto";

/** Prefix of every API key secret, so leaked keys are easy to recognise and scan for. */
const KEY_PREFIX = "oodle_sk_";

/** A new API key secret: `oodle_sk_` + 32 random bytes in base64url (256 bits). */
export function newSecret(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

/**
 * SHA-256 of the secret, hex. A fast hash is enough: the secret is 256 random bits, so there is
 * nothing to brute-force that a slow hash would protect (unlike passwords).
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** The part of a secret shown in listings: enough to tell keys apart, useless to authenticate. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, KEY_PREFIX.length + 6);
}
