// The span as a live target (src/modules/spans/live-target.ts): what the live processor loads for a
// batch — each stored span's document with its trace, nothing for an id that is no span of the
// workspace — and the writer target it records runs against.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { spanToDocument } from "../../src/modules/spans/document.js";
import { spanLiveTarget } from "../../src/modules/spans/live-target.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

describe("spanLiveTarget", () => {
  let app: App;
  beforeAll(() => {
    app = createTestApp();
  });
  afterAll(() => app.close());

  it("loads a batch's spans with their traces' documents, leaves out ids that are not spans of the workspace", async () => {
    const ws = await createTestWorkspace(app, "live-target");
    const other = await createTestWorkspace(app, "live-target-other");
    const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
    const ingested = await app.services.spans.ingestSpans(principal, [
      { traceId: "lt1", spanId: "root", name: "agent", kind: "agent", input: "plan", output: "done", startTime: "2026-01-01T00:00:00Z" },
      { traceId: "lt1", spanId: "child", parentSpanId: "root", name: "chat", kind: "chat", input: "hello", output: "hi", startTime: "2026-01-01T00:00:01Z" },
    ]);
    const [rootId, childId] = ingested.spans.map((s) => s.id) as [string, string];
    const foreign = (await app.services.spans.ingestSpans({ workspaceId: other.workspace.id, apiKeyId: other.apiKey.id }, [{ traceId: "lt2", spanId: "x", name: "chat", kind: "chat", input: "a", output: "b" }])).spans[0]!.id;

    const target = spanLiveTarget(app.prisma);
    const loaded = await target.load(ws.workspace.id, [childId, randomUUID(), foreign]);
    expect([...loaded.keys()]).toEqual([childId]);

    const rows = await app.prisma.span.findMany({ where: { workspaceId: ws.workspace.id }, orderBy: { startTime: "asc" } });
    const child = rows.find((r) => r.id === childId)!;
    const scores = { Judge: { verdict: true } };
    expect(loaded.get(childId)!.document(scores)).toEqual(spanToDocument(child, rows, { scores }));
    expect((loaded.get(childId)!.document(undefined) as { trace: { spans: { name: string }[] } }).trace.spans.map((s) => s.name)).toEqual(["agent", "chat"]);
    expect(loaded.get(childId)!.document(undefined).scores).toEqual({});
    expect(rows.map((r) => r.id)).toEqual([rootId, childId]);
    expect(target.writerTarget(childId)).toEqual({ spanId: childId });
  });
});
