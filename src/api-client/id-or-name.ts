/** `{id}` when `value` is a global ID of `type` (base64 of `Type:uuid`), else `{name}`. */
export function idOrName(type: string, value: string): { id?: string; name?: string } {
  try {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    if (decoded.startsWith(`${type}:`) && Buffer.from(decoded).toString("base64") === value) return { id: value };
  } catch {
    // not base64: a name
  }
  return { name: value };
}
