import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

const SPANS = `query($filter: SpanFilter, $first: Int, $after: String) {
  spans(filter: $filter, first: $first, after: $after) { edges { node { name startTime } } pageInfo { hasNextPage endCursor } } }`;

// The spans query filters in SQL, the name glob too: every page is full while later spans match,
// and hasNextPage is true exactly when they do (a glob applied after the page was fetched gave
// short pages and a false hasNextPage).
describe("spans listing", () => {
  let app: App;
  let client: ReturnType<typeof graphqlClient>;
  let secret: string;
  const gql = (query: string, variables: Record<string, unknown> = {}) => client.request(query, variables, secret);

  beforeAll(async () => {
    app = createTestApp();
    client = graphqlClient(app);
    ({ secret } = await createTestWorkspace(app, "span-listing"));
    // 40 spans one second apart; every third is named "chat.reply-N", the others "tool.call-N".
    const base = Date.parse("2026-01-01T00:00:00Z");
    const spans = Array.from({ length: 40 }, (_, i) => ({
      traceId: "listing",
      spanId: `s${i}`,
      name: i % 3 === 0 ? `chat.reply-${i}` : `tool.call-${i}`,
      kind: "other",
      startTime: new Date(base + i * 1000).toISOString(),
    }));
    spans.push({ traceId: "listing", spanId: "u1", name: "a_b", kind: "other", startTime: new Date(base - 1000).toISOString() });
    spans.push({ traceId: "listing", spanId: "u2", name: "axb", kind: "other", startTime: new Date(base - 2000).toISOString() });
    const res = await gql("mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { rejected { index } } }", { input: { spans } });
    expect(res.errors).toBeUndefined();
    expect(res.data!.ingestSpans.rejected).toEqual([]);
  });
  afterAll(() => app.close());

  it("pages a glob filter over several pages with no short page and a correct hasNextPage", async () => {
    // Matching: i = 39, 36, …, 0 → 14 spans, newest first; pages of 4: 4, 4, 4, 2.
    const expected = Array.from({ length: 14 }, (_, k) => `chat.reply-${39 - 3 * k}`);
    const pages: { names: string[]; hasNextPage: boolean }[] = [];
    let after: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const res = await gql(SPANS, { filter: { name: "chat.reply-*" }, first: 4, after });
      expect(res.errors).toBeUndefined();
      const { edges, pageInfo } = res.data!.spans;
      pages.push({ names: edges.map((e: any) => e.node.name), hasNextPage: pageInfo.hasNextPage });
      if (!pageInfo.hasNextPage) break;
      after = pageInfo.endCursor;
    }
    expect(pages.map((p) => p.names.length)).toEqual([4, 4, 4, 2]);
    expect(pages.map((p) => p.hasNextPage)).toEqual([true, true, true, false]);
    expect(pages.flatMap((p) => p.names)).toEqual(expected);
  });

  it("an exact page end says there is no next page, and `?` matches one character", async () => {
    // chat.reply-? matches i = 0, 3, 6, 9 (one digit): exactly one page of 4.
    const res = await gql(SPANS, { filter: { name: "chat.reply-?" }, first: 4 });
    expect(res.data!.spans.edges.map((e: any) => e.node.name)).toEqual(["chat.reply-9", "chat.reply-6", "chat.reply-3", "chat.reply-0"]);
    expect(res.data!.spans.pageInfo.hasNextPage).toBe(false);
  });

  it("treats LIKE's own characters in a glob literally", async () => {
    const res = await gql(SPANS, { filter: { name: "a_*" }, first: 10 });
    expect(res.data!.spans.edges.map((e: any) => e.node.name)).toEqual(["a_b"]);
  });

  it("refuses a cursor that is not one of its own, naming the argument", async () => {
    const res = await gql(SPANS, { first: 2, after: "not-a-cursor" });
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "after" }] });
  });
});
