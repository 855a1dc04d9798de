/**
 * Where a span keeps its conversation. The OpenAI shape puts the messages in the span's own
 * `input` / `output`; OpenTelemetry GenAI puts them in the attributes `gen_ai.input.messages` /
 * `gen_ai.output.messages` (a JSON string or the structure itself), with `gen_ai.system_instructions`
 * beside them; older instrumentations (OpenLLMetry) flatten them into
 * `gen_ai.prompt.<i>.role`/`.content` and `gen_ai.completion.<i>.…` keys; OpenInference flattens
 * them into `llm.input_messages.<i>.message.role`/`.content`/`.tool_calls.<j>.tool_call.function.*`
 * (read as OpenAI-shaped messages), with `input.value` / `output.value` as the fallback. A
 * `tool_call_response` part that uses the older `result` key also gets `response`. Pure functions.
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

/** OpenInference's flattened messages under `llm.<prefix>.<i>.message.…` as OpenAI-shaped messages, or null. */
function openInferenceMessages(attrs: Record<string, unknown>, prefix: "input_messages" | "output_messages"): unknown[] | null {
  const head = `llm.${prefix}.`;
  const root: Record<string, unknown> = {};
  let found = false;
  for (const [key, value] of Object.entries(attrs)) {
    if (!key.startsWith(head)) continue;
    const rest = key.slice(head.length).split(".");
    if (!/^\d+$/.test(rest[0] ?? "") || rest.length < 2) continue;
    setPath(root, rest, value);
    found = true;
  }
  if (!found) return null;
  return (arraysFromIndexes(root) as unknown[]).map((entry) => {
    const m = (typeof entry === "object" && entry !== null ? ((entry as Record<string, unknown>).message ?? entry) : {}) as Record<string, unknown>;
    const message: Record<string, unknown> = { role: m.role ?? "user" };
    const contents = Array.isArray(m.contents) ? m.contents : null;
    message.content = m.content ?? (contents ? contents.map((c) => (c as Record<string, Record<string, unknown>>)?.message_content?.text ?? "").join("") : "");
    if (Array.isArray(m.tool_calls)) {
      message.tool_calls = m.tool_calls.map((c) => {
        const call = ((c as Record<string, unknown>)?.tool_call ?? c) as Record<string, Record<string, unknown> | unknown>;
        const fn = (call.function ?? {}) as Record<string, unknown>;
        return { ...(call.id ? { id: call.id } : {}), type: "function", function: { name: fn.name ?? "", arguments: fn.arguments ?? "{}" } };
      });
    }
    if (m.tool_call_id) message.tool_call_id = m.tool_call_id;
    if (m.name) message.name = m.name;
    return message;
  });
}

/** OpenInference's `input.value` / `output.value`: JSON parsed when its mime type says so; a chat completion as its messages. */
function openInferenceValue(attrs: Record<string, unknown>, which: "input" | "output"): unknown {
  const value = attrs[`${which}.value`];
  if (value === undefined || value === null) return undefined;
  const isJson = attrs[`${which}.mime_type`] === "application/json";
  const data = isJson ? parsed(value) : value;
  if (which === "output" && typeof data === "object" && data !== null && Array.isArray((data as Record<string, unknown>).choices)) {
    return ((data as { choices: { message?: unknown }[] }).choices).map((c) => c.message).filter((m) => m !== undefined);
  }
  return data;
}

/** GenAI messages with `tool_call_response` parts that carry the older `result` key also get `response`. */
function withResponseAlias(messages: unknown): unknown {
  if (!Array.isArray(messages)) return messages;
  return messages.map((m) => {
    if (typeof m !== "object" || m === null || !Array.isArray((m as Record<string, unknown>).parts)) return m;
    const parts = ((m as { parts: unknown[] }).parts).map((p) => {
      if (typeof p !== "object" || p === null) return p;
      const part = p as Record<string, unknown>;
      return part.type === "tool_call_response" && part.response === undefined && part.result !== undefined ? { ...part, response: part.result } : part;
    });
    return { ...(m as Record<string, unknown>), parts };
  });
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
  const messages = withResponseAlias(
    parsed(attrs["gen_ai.input.messages"]) ??
      indexedMessages(attrs, "prompt") ??
      parsed(attrs["gen_ai.prompt"]) ??
      openInferenceMessages(attrs, "input_messages") ??
      openInferenceValue(attrs, "input"),
  );
  if (messages === undefined || messages === null) return null;
  const system = systemMessage(attrs);
  return system && Array.isArray(messages) ? [system, ...messages] : messages;
}

/** The span's output: its own `output` when given, else the GenAI attributes, else null. */
export function conversationOutput(span: { output: unknown; attributes: Record<string, unknown> }): unknown {
  if (span.output !== null && span.output !== undefined) return span.output;
  const attrs = span.attributes;
  return (
    withResponseAlias(
      parsed(attrs["gen_ai.output.messages"]) ??
        indexedMessages(attrs, "completion") ??
        parsed(attrs["gen_ai.completion"]) ??
        openInferenceMessages(attrs, "output_messages") ??
        openInferenceValue(attrs, "output"),
    ) ?? null
  );
}
