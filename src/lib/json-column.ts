import type { Prisma } from "../generated/prisma/client.js";

/** True for a plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An object stored in a JSON column (evaluator values, attribute rules); `{}` for anything else. */
export function objectOf(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/**
 * JSON text that Prisma stores as it is: Prisma copies a JSON value key by key onto plain objects
 * before it stores it, so a `__proto__` key (an attribute rule's, kept as an ordinary key: see
 * src/lib/own-keys-record.ts) was dropped on the way. An argument with `toJSON` is handed to the
 * query as what toJSON returns, and `{ $type: "Json", value: text }` is the query protocol's own
 * form of a JSON value (Prisma 7), so the text reaches the column unchanged.
 */
class JsonText {
  constructor(private readonly text: string) {}
  toJSON(): { $type: "Json"; value: string } {
    return { $type: "Json", value: this.text };
  }
}

/**
 * A value for a JSON column. A value with a `__proto__` key anywhere is passed as its JSON text
 * ({@link JsonText}), so the key is stored as sent; every other value as it is.
 */
export function asJson(value: unknown): Prisma.InputJsonValue {
  if (typeof value === "object" && value !== null) {
    const text = JSON.stringify(value);
    if (text.includes('"__proto__"')) return new JsonText(text) as unknown as Prisma.InputJsonValue;
  }
  return value as Prisma.InputJsonValue;
}
