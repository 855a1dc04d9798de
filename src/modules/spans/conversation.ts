/**
 * The conversation of a span for reading through the API, by the rules that `ctx` applies in
 * the sandbox (python-lib `oodle_eval/v1/context.py`): turns are the input messages followed by
 * the output message(s); content given as parts is joined text; tool calls come from the output
 * (OpenAI `tool_calls`, OTel GenAI `{"type": "tool_call"}` parts, or `{name, arguments}`). Pure.
 */

import { isPlainObject } from "../../lib/json-column.js";

/** One turn: a role and its text. */
export interface Turn {
  role: string;
  content: string;
}

/** One tool call, normalised: a name and its arguments (a JSON string parsed when it is JSON). */
export interface ToolCall {
  name: string;
  arguments: unknown;
}

type Message = Record<string, unknown>;

/** Text of a message content: a string as is; parts joined (text parts and bare strings). */
export function partText(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === "string") return part;
        if (isPlainObject(part)) {
          const text = part.text ?? part.content;
          return typeof text === "string" ? text : "";
        }
        return "";
      })
      .join("");
  }
  if (isPlainObject(content) && typeof content.text === "string") return content.text;
  return JSON.stringify(content);
}

/** Input or output as a list of messages: a string is one message of `defaultRole`. */
export function messagesOf(value: unknown, defaultRole: string): Message[] {
  if (value === null || value === undefined) return [];
  if (typeof value === "string") return [{ role: defaultRole, content: value }];
  if (Array.isArray(value)) return value.flatMap((item) => messagesOf(item, defaultRole));
  if (isPlainObject(value)) {
    if ("role" in value || "content" in value || "parts" in value || "tool_calls" in value) return [value];
    if (Array.isArray(value.messages)) return messagesOf(value.messages, defaultRole);
  }
  return [{ role: defaultRole, content: JSON.stringify(value) }];
}

function turnOf(message: Message, defaultRole: string): Turn {
  const content = message.content ?? (Array.isArray(message.parts) ? message.parts : undefined);
  return { role: typeof message.role === "string" && message.role ? message.role : defaultRole, content: partText(content) };
}

/** The turns of a conversation, oldest first. */
export function turnsOf(input: unknown, output: unknown): Turn[] {
  return [...messagesOf(input, "user").map((m) => turnOf(m, "user")), ...messagesOf(output, "assistant").map((m) => turnOf(m, "assistant"))];
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== "string") return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** One tool call in any of the three forms, or null when it is not one. */
export function normaliseToolCall(call: unknown): ToolCall | null {
  if (!isPlainObject(call)) return null;
  if (isPlainObject(call.function)) return { name: String(call.function.name ?? ""), arguments: parseArguments(call.function.arguments) };
  if ("name" in call) return { name: String(call.name ?? ""), arguments: parseArguments(call.arguments) };
  return null;
}

/** The tool calls in a span's output messages, in order. */
export function toolCallsOf(output: unknown): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const message of messagesOf(output, "assistant")) {
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      const normal = normaliseToolCall(call);
      if (normal) calls.push(normal);
    }
    for (const key of ["content", "parts"]) {
      const parts = message[key];
      if (!Array.isArray(parts)) continue;
      for (const part of parts) {
        if (isPlainObject(part) && part.type === "tool_call") {
          const normal = normaliseToolCall(part);
          if (normal) calls.push(normal);
        }
      }
    }
  }
  return calls;
}
