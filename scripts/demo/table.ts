/** Formats rows as an aligned plain-text table (numbers right-aligned). */
export function formatTable(header: readonly string[], rows: readonly (readonly (string | number | null)[])[]): string {
  const cells = rows.map((row) => row.map((c) => (c === null ? "–" : String(c))));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const numeric = header.map((_, i) => rows.every((r) => r[i] === null || typeof r[i] === "number" || /^[-+]?[\d.,]+( ?%|x|×)?$/.test(String(r[i]))));
  const line = (r: readonly string[]) => r.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join("\n");
}
