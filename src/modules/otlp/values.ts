/**
 * OTLP values as JSON: `AnyValue` → the JSON value it carries, attribute lists → flat objects,
 * `fixed64` nanoseconds → Dates, ids → lower-case hex. Pure functions over decoded messages.
 */
import { opentelemetry } from "./generated/otlp.js";

type AnyValue = opentelemetry.proto.common.v1.IAnyValue;
type KeyValue = opentelemetry.proto.common.v1.IKeyValue;

/** A protobufjs 64-bit integer: a Long (with the `long` package), a number, or a decimal string. */
export type Int64 = { low: number; high: number; unsigned: boolean } | number | string | null | undefined;

/** An int64 as a bigint (0n when unset). */
export function toBigInt(value: Int64): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value === "number") return BigInt(Math.trunc(value));
  if (typeof value === "string") return BigInt(value);
  return BigInt(value.toString());
}

/** An int64 as a JSON number when it is a safe integer, else its decimal string (no precision lost). */
export function int64ToJson(value: Int64): number | string {
  const big = toBigInt(value);
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big.toString();
}

/** Nanoseconds since the epoch as a Date (millisecond precision), or null for 0 / unset. */
export function nanosToDate(value: Int64): Date | null {
  const nanos = toBigInt(value);
  return nanos === 0n ? null : new Date(Number(nanos / 1_000_000n));
}

/** Bytes as lower-case hex ("" for none). */
export function hex(bytes: Uint8Array | null | undefined): string {
  return bytes && bytes.length ? Buffer.from(bytes).toString("hex") : "";
}

/**
 * What {@link attributesToObject} could not keep as sent, each named by its path (`attributes`,
 * `attributes.llm.meta` for a kvlist inside it) and why: an empty key (no JSON key to store it
 * under) or a key repeated in one list (OTLP requires unique keys; the last value is kept).
 */
export interface DroppedAttribute {
  path: string;
  key: string;
  reason: string;
}

/** The JSON value an AnyValue carries: bytes as base64, int64 as number (or string past 2^53), kvlists as objects (see {@link attributesToObject}). */
export function anyValueToJson(value: AnyValue | null | undefined, dropped?: DroppedAttribute[], path = "value"): unknown {
  if (!value) return null;
  if (value.stringValue !== undefined && value.stringValue !== null) return value.stringValue;
  if (value.boolValue !== undefined && value.boolValue !== null) return value.boolValue;
  if (value.intValue !== undefined && value.intValue !== null) return int64ToJson(value.intValue as Int64);
  if (value.doubleValue !== undefined && value.doubleValue !== null) return Number.isFinite(value.doubleValue) ? value.doubleValue : String(value.doubleValue);
  if (value.arrayValue) return (value.arrayValue.values ?? []).map((v, i) => anyValueToJson(v, dropped, `${path}[${i}]`));
  if (value.kvlistValue) return attributesToObject(value.kvlistValue.values, dropped, path);
  if (value.bytesValue) return Buffer.from(value.bytesValue).toString("base64");
  return null;
}

/**
 * A list of KeyValue as a flat object with a null prototype, so that every key is an ordinary own
 * key (`__proto__`, `constructor` and `toString` included: on a plain object `out["__proto__"] = v`
 * would set its prototype and lose the attribute). A repeated key keeps its last value and an
 * empty key is left out; each such loss is pushed to `dropped` (reported in partialSuccess).
 * @param path - where the list is, for `dropped` (`attributes`, `resource.attributes`).
 */
export function attributesToObject(list: readonly KeyValue[] | null | undefined, dropped?: DroppedAttribute[], path = "attributes"): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  for (const kv of list ?? []) {
    const key = kv.key ?? "";
    if (key === "") {
      dropped?.push({ path, key, reason: "an empty key (nothing to store it under)" });
      continue;
    }
    if (Object.hasOwn(out, key)) dropped?.push({ path, key, reason: "repeated in one list (OTLP keys are unique); the last value was kept" });
    out[key] = anyValueToJson(kv.value, dropped, `${path}.${key}`);
  }
  return out;
}

/** A JSON value as an AnyValue (for the evaluation events this service writes). */
export function jsonToAnyValue(value: unknown): AnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(jsonToAnyValue) } };
  if (value && typeof value === "object") return { kvlistValue: { values: Object.entries(value).map(([key, v]) => ({ key, value: jsonToAnyValue(v) })) } };
  return {};
}
