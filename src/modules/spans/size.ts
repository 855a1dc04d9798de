import { MAX_SPAN_BYTES } from "./schemas.js";

/**
 * A span over {@link MAX_SPAN_BYTES} of JSON is refused whole, never stored cut: a cut value (a
 * conversation in a JSON-string attribute, say) would give a document that scores differently
 * without saying so. The refusal names the largest values, so the sender knows what to shrink.
 */

/** Bytes of a value as JSON (UTF-8). */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}

/** A byte count for people: 1.9 MiB, 740 KiB, 512 B. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} B`;
}

/**
 * The largest parts of a span, biggest first: `input`, `output`, and each key of `attributes` and
 * `metadata` (as `attributes["input.value"]`), with their JSON size; at most `limit`.
 */
export function largestParts(span: unknown, limit = 3): { path: string; bytes: number }[] {
  if (typeof span !== "object" || span === null || Array.isArray(span)) return [];
  const s = span as Record<string, unknown>;
  const parts: { path: string; bytes: number }[] = [];
  for (const key of ["input", "output"]) if (s[key] !== undefined) parts.push({ path: key, bytes: jsonBytes(s[key]) });
  for (const group of ["attributes", "metadata"]) {
    const object = s[group];
    if (typeof object !== "object" || object === null || Array.isArray(object)) continue;
    for (const [key, value] of Object.entries(object)) parts.push({ path: `${group}[${JSON.stringify(key)}]`, bytes: jsonBytes(value) });
  }
  return parts.sort((a, b) => b.bytes - a.bytes).slice(0, limit);
}

/**
 * The refusal of a span of `bytes` bytes of JSON, past {@link MAX_SPAN_BYTES}: the limit, the size,
 * the largest parts, and that nothing of it was stored (README § Span size limit).
 */
export function oversizeMessage(span: unknown, bytes: number): string {
  const parts = largestParts(span).map((p) => `${p.path} (${formatBytes(p.bytes)})`);
  return (
    `a span must be at most ${MAX_SPAN_BYTES} bytes (1 MiB) of JSON (got ${bytes}, ${formatBytes(bytes)}); it was not stored` +
    (parts.length ? `; its largest values: ${parts.join(", ")}` : "") +
    ": shorten or leave out the large values (e.g. retrieved documents) and send it again"
  );
}
