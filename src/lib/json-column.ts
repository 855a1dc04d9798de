import type { Prisma } from "../generated/prisma/client.js";

/** True for a plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An object stored in a JSON column (evaluator values, attribute rules); `{}` for anything else. */
export function objectOf(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/** A value for a JSON column. */
export function asJson(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}
