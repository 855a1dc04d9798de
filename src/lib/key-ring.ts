import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * A ring of AES-256-GCM keys read from one environment variable (`CONNECTION_KEYS`):
 * `id1:base64key,id2:base64key`, each key 32 bytes. The FIRST key seals new values; every key
 * opens the values it sealed (the stored key id says which). Rotation: put a new key first,
 * re-seal the stored values (docs/connections.md § Rotating the key), then drop the old key.
 */

/** A key id: letters, digits, `_`, `-` or `.`, 1–32 characters. */
const KEY_ID = /^[A-Za-z0-9_.-]{1,32}$/;

/** A sealed value as stored: base64 ciphertext, IV and GCM tag, and the id of the key that sealed it. */
export interface SealedValue {
  ciphertext: string;
  iv: string;
  authTag: string;
  keyId: string;
}

/** Seals and opens values under the ring's keys, each bound to additional data (a record id). */
export interface KeyRing {
  /** The id of the key that seals (the first). */
  readonly currentKeyId: string;
  /** Every key id, the sealing one first. */
  readonly keyIds: readonly string[];
  seal(value: string, additionalData: string): SealedValue;
  /** @throws Error (never naming the value) when its key is not in the ring, or it was sealed for other data or altered. */
  open(sealed: SealedValue, additionalData: string): string;
}

/**
 * Reads a ring from its text (`id:base64key,…`).
 * @throws Error naming the rule a malformed entry breaks (never echoing a key).
 */
export function parseKeyRing(text: string): KeyRing {
  const entries = text.split(",").map((e) => e.trim()).filter((e) => e !== "");
  if (entries.length === 0) throw new Error("must list at least one id:base64key");
  const keys = new Map<string, Buffer>();
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(":");
    const id = colon < 0 ? "" : entry.slice(0, colon);
    const encoded = colon < 0 ? "" : entry.slice(colon + 1);
    if (!KEY_ID.test(id)) throw new Error(`entry ${index + 1} must be id:base64key with an id of 1 to 32 letters, digits, _, - or .`);
    if (keys.has(id)) throw new Error(`key id "${id}" is listed twice`);
    const raw = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, "base64") : Buffer.alloc(0);
    if (raw.length !== 32) throw new Error(`key "${id}" must be 32 bytes, base64-encoded (openssl rand -base64 32)`);
    keys.set(id, raw);
  });
  const keyIds = [...keys.keys()];
  const currentKeyId = keyIds[0]!;
  return {
    currentKeyId,
    keyIds,
    seal(value, additionalData) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", keys.get(currentKeyId)!, iv);
      cipher.setAAD(Buffer.from(additionalData, "utf8"));
      const body = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
      return { ciphertext: body.toString("base64"), iv: iv.toString("base64"), authTag: cipher.getAuthTag().toString("base64"), keyId: currentKeyId };
    },
    open(sealed, additionalData) {
      const key = keys.get(sealed.keyId);
      if (!key) throw new Error(`the value was sealed with key "${sealed.keyId}", which is not in the key ring`);
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"));
        decipher.setAAD(Buffer.from(additionalData, "utf8"));
        decipher.setAuthTag(Buffer.from(sealed.authTag, "base64"));
        return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, "base64")), decipher.final()]).toString("utf8");
      } catch {
        throw new Error(`the value sealed with key "${sealed.keyId}" does not open: altered, or sealed for another record`);
      }
    },
  };
}
