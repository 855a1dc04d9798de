/**
 * JSON text with object keys sorted at every depth, so the same data gives the same text whatever
 * its key order (JSONB reorders keys): for hashes of stored values. Arrays keep their order.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
