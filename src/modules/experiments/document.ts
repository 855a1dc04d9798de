import type { DatasetItem } from "../../generated/prisma/client.js";

/** The item columns a sample document is built from. */
export type DocumentItem = Pick<DatasetItem, "input" | "output" | "expectedOutput" | "context" | "toolCalls" | "traceSpans" | "metadata"> &
  Partial<Pick<DatasetItem, "expectedToolCalls">>;

/** A tool call as stored on an item: `{name, arguments}` (other keys are kept out of the span). */
interface ToolCall {
  name?: unknown;
  arguments?: unknown;
}

/**
 * The trace spans of an item: its own trace when it has one, else one span of kind "tool" per
 * tool call (name = the tool, input = its arguments), in call order and without times — so
 * `metrics.tool_trajectory` reads them in that order. Pure.
 */
export function traceSpansOf(item: Pick<DatasetItem, "toolCalls" | "traceSpans">): Record<string, unknown>[] {
  if (Array.isArray(item.traceSpans)) return item.traceSpans as Record<string, unknown>[];
  if (!Array.isArray(item.toolCalls)) return [];
  return (item.toolCalls as ToolCall[]).map((call) => ({
    name: typeof call?.name === "string" ? call.name : "",
    kind: "tool",
    input: call?.arguments ?? {},
    output: null,
    attributes: { "gen_ai.tool.name": typeof call?.name === "string" ? call.name : "" },
  }));
}

/** The item's metadata, plus `expected_tool_calls` when the item has them and the metadata does not. */
function withExpectedToolCalls(item: DocumentItem): unknown {
  const metadata = item.metadata ?? {};
  const expected = item.expectedToolCalls;
  if (expected === undefined || expected === null || typeof metadata !== "object" || Array.isArray(metadata)) return metadata;
  if (Object.hasOwn(metadata as object, "expected_tool_calls")) return metadata;
  return { ...(metadata as Record<string, unknown>), expected_tool_calls: expected };
}

/**
 * The sample document of a dataset item (docs/document.md § From a dataset item): `input`, `output`,
 * `expected_output` (→ ctx.expected_output), the item's context as the span attribute
 * `"context"` (where grounding and unsupported_numbers look), `metadata`, and `trace.spans`
 * from the item's trace or tool calls. The sample document has no key for reference tool calls,
 * so an item's `expected_tool_calls` are added to its metadata under that name (unless the
 * metadata has one): `tool_trajectory(ctx, expected=ctx.metadata["expected_tool_calls"])`.
 * `scores` holds the scores of the evaluators this one depends on (evaluator name → score
 * name → value). Pure.
 */
export function itemToDocument(item: DocumentItem, scores?: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const document: Record<string, unknown> = {
    input: item.input,
    output: item.output,
    expected_output: item.expectedOutput,
    attributes: item.context === null || item.context === undefined ? {} : { context: item.context },
    metadata: withExpectedToolCalls(item),
    trace: { spans: traceSpansOf(item) },
  };
  if (scores) document.scores = scores;
  return document;
}
