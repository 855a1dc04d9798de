// OTLP/HTTP sheds load as OTLP clients expect (they retry 429 and 503 only): past the workspace's
// ingest rate, POST /v1/traces answers 429 with Retry-After, and it shares that budget with the
// ingestSpans mutation (one Redis counter per workspace), so neither door bypasses the other.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

let app: App;
let client: ReturnType<typeof graphqlClient>;
beforeAll(() => {
  app = createTestApp({ RATE_LIMIT_INGEST_PER_MINUTE: "2" });
  client = graphqlClient(app);
});
afterAll(() => app.close());

const SPAN = (spanId: string) => ({
  resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: "5b8efff798038103d269b633813fc60c", spanId, name: "chat", startTimeUnixNano: "1700000000000000000", endTimeUnixNano: "1700000001000000000" }] }] }],
});

function postTraces(secret: string, spanId: string) {
  return client.yoga.fetch("http://localhost/v1/traces", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
    body: JSON.stringify(SPAN(spanId)),
  });
}

describe("POST /v1/traces rate limit", () => {
  it("answers 429 with Retry-After past the ingest rate, shared with ingestSpans, per workspace", async () => {
    const ws = await createTestWorkspace(app, "otlp-rate");
    const first = await postTraces(ws.secret, "eee19b7ec3c1b171");
    expect(first.status).toBe(200);
    const viaGraphQL = await client.request(
      `mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { evaluationsQueued } }`,
      { input: { spans: [{ traceId: "t-rate", spanId: "s-rate", name: "chat", output: "hi" }] } },
      ws.secret,
    );
    expect(viaGraphQL.errors).toBeUndefined();
    const third = await postTraces(ws.secret, "eee19b7ec3c1b172");
    expect(third.status).toBe(429);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const status = (await third.json()) as { code: number; message: string };
    expect(status.code).toBe(8); // google.rpc.Code RESOURCE_EXHAUSTED
    expect(status.message).toMatch(/rate limit/);
    // The refused export stored nothing; another workspace has its own budget.
    expect(await app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(2);
    const other = await createTestWorkspace(app, "otlp-rate-other");
    expect((await postTraces(other.secret, "eee19b7ec3c1b173")).status).toBe(200);
  });
});
