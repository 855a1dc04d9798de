import { liveHarness } from "../runs/helpers.js";

export { waitFor } from "../runs/helpers.js";

/**
 * An app on a BullMQ prefix of its own with the `evaluate-target` and `evaluation-barrier` workers
 * (the real queue, flows and sandbox), and fresh workspaces: {@link liveHarness} with those queues.
 */
export function dependencyHarness(options: { startWorker?: boolean } = {}) {
  return liveHarness({ ...options, queues: ["evaluate-target", "evaluation-barrier"], label: "deps" });
}

/** A chat span with a user question and an assistant reply. */
export function chatSpan(traceId: string, spanId: string, reply: string, attributes: Record<string, unknown> = {}) {
  return { traceId, spanId, name: "chat.completion", kind: "chat", input: [{ role: "user", content: "Answer in JSON please" }], output: reply, attributes };
}

/** The stored span ids of an ingest, in batch order. */
export function storedIds(result: { spans: { id: string }[] }): string[] {
  return result.spans.map((s) => s.id);
}
