/**
 * Where a span keeps its conversation. The OpenAI shape puts the messages in the span's own
 * `input` / `output`; OpenTelemetry GenAI puts them in the attributes `gen_ai.input.messages` /
 * `gen_ai.output.messages` (a JSON string or the structure itself), with `gen_ai.system_instructions`
 * beside them; older instrumentations (OpenLLMetry) flatten them into
 * `gen_ai.prompt.<i>.role`/`.content` and `gen_ai.completion.<i>.…` keys. Pure functions.
 */

/** A JSON string parsed; anything else (or a string that is not JSON) as it is. */
function parsed(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (!text.startsWith("[") && !text.startsWith("{")) return value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return value;
  }
}

/** Sets `path` (dot-separated, numeric segments as array indexes) in a nested object. */
function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (typeof next !== "object" || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  });
}

/** Objects whose keys are all indexes become arrays, in index order (recursively). */
function arraysFromIndexes(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, arraysFromIndexes(v)] as const);
  if (entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k))) {
    return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, v]) => v);
  }
  return Object.fromEntries(entries);
}

/** OpenLLMetry's indexed messages under `gen_ai.<prefix>.<i>.…`, or null when there are none. */
function indexedMessages(attrs: Record<string, unknown>, prefix: "prompt" | "completion"): unknown[] | null {
  const head = `gen_ai.${prefix}.`;
  const root: Record<string, unknown> = {};
  let found = false;
  for (const [key, value] of Object.entries(attrs)) {
    if (!key.startsWith(head)) continue;
    const rest = key.slice(head.length).split(".");
    if (!/^\d+$/.test(rest[0] ?? "") || rest.length < 2) continue;
    setPath(root, rest, parsed(value));
    found = true;
  }
  return found ? (arraysFromIndexes(root) as unknown[]) : null;
}

/** OTel GenAI system instructions as one leading system message, or null. */
function systemMessage(attrs: Record<string, unknown>): Record<string, unknown> | null {
  const raw = parsed(attrs["gen_ai.system_instructions"]);
  if (raw === undefined || raw === null || raw === "") return null;
  return Array.isArray(raw) ? { role: "system", parts: raw } : { role: "system", content: typeof raw === "string" ? raw : JSON.stringify(raw) };
}

/** The span's input: its own `input` when given, else the GenAI attributes (system first), else null. */
export function conversationInput(span: { input: unknown; attributes: Record<string, unknown> }): unknown {
  if (span.input !== null && span.input !== undefined) return span.input;
  const attrs = span.attributes;
  const messages = parsed(attrs["gen_ai.input.messages"]) ?? indexedMessages(attrs, "prompt") ?? parsed(attrs["gen_ai.prompt"]);
  if (messages === undefined || messages === null) return null;
  const system = systemMessage(attrs);
  return system && Array.isArray(messages) ? [system, ...messages] : messages;
}

/** The span's output: its own `output` when given, else the GenAI attributes, else null. */
export function conversationOutput(span: { output: unknown; attributes: Record<string, unknown> }): unknown {
  if (span.output !== null && span.output !== undefined) return span.output;
  const attrs = span.attributes;
  return parsed(attrs["gen_ai.output.messages"]) ?? indexedMessages(attrs, "completion") ?? parsed(attrs["gen_ai.completion"]) ?? null;
}
