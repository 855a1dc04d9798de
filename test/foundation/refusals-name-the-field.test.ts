import { encodeGlobalID } from "@pothos/plugin-relay";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

// Refusals name the field (issue 35, point 3). Before: a span refused for U+0000 or its size had
// an empty path; an id sent as a number was reported under the field's name (`explainMatch`)
// instead of the argument; an empty or whitespace-only name was looked up and answered NOT_FOUND.
describe("refusals that name the field", () => {
  let app: App;
  let client: ReturnType<typeof graphqlClient>;
  let secret: string;
  let workspaceId: string;
  beforeAll(async () => {
    app = createTestApp();
    client = graphqlClient(app);
    const ws = await createTestWorkspace(app, "refusals");
    [secret, workspaceId] = [ws.secret, ws.workspace.id];
  });
  afterAll(() => app.close());

  const ingest = async (spans: unknown[]) => {
    const result = await client.request<{ ingestSpans: { spans: { index: number }[]; rejected: { index: number; issues: { path: string; message: string }[] }[] } }>(
      "mutation ($input: IngestSpansInput!) { ingestSpans(input: $input) { spans { index } rejected { index issues { path message } } } }",
      { input: { spans } },
      secret,
    );
    expect(result.errors).toBeUndefined();
    return result.data!.ingestSpans;
  };

  it("ingestSpans names the field of a U+0000 or of a span too large, with its full path", async () => {
    const result = await ingest([
      { traceId: "t", spanId: "nul-attr", name: "n", attributes: { "app.note": "a\u0000b" } },
      { traceId: "t", spanId: "nul-input", name: "n", input: [{ role: "user", content: "hi\u0000" }] },
      { traceId: "t", spanId: "big-input", name: "n", input: "x".repeat(1_100_000) },
      { traceId: "t", spanId: "big-attr", name: "n", attributes: { small: "s", prompt: "p".repeat(1_100_000) } },
      { traceId: "t", spanId: "fine", name: "n" },
    ]);
    expect(result.spans.map((s) => s.index)).toEqual([4]);
    expect(result.rejected).toEqual([
      { index: 0, issues: [{ path: "attributes.app.note", message: "must not contain the character U+0000 (PostgreSQL cannot store it)" }] },
      { index: 1, issues: [{ path: "input[0].content", message: "must not contain the character U+0000 (PostgreSQL cannot store it)" }] },
      // input: 1,100,000 x + 2 quotes; the span: that + {"traceId":"t","spanId":"big-input","name":"n","input":} (55 + 1 bytes).
      { index: 2, issues: [{ path: "input", message: "a span must be at most 1048576 bytes (1 MiB) of JSON (got 1100058, 1.0 MiB); it was not stored; its largest values: input (1.0 MiB): shorten or leave out the large values (e.g. retrieved documents) and send it again" }] },
      { index: 3, issues: [{ path: "attributes.prompt", message: expect.stringMatching(/^a span must be at most 1048576 bytes \(1 MiB\) of JSON \(got 11000\d\d, 1\.0 MiB\); it was not stored; its largest values: attributes\["prompt"\] \(1\.0 MiB\), attributes\["small"\] \(3 B\): /) }] },
    ]);
  });

  it("reports an id sent as a number under its argument, in literals, variables and input objects", async () => {
    const literal = await client.request("{ explainMatch(spanId: 123, evaluatorId: 456) { matched } }", {}, secret);
    const variables = await client.request("query ($s: ID!, $e: ID!) { explainMatch(spanId: $s, evaluatorId: $e) { matched } }", { s: 123, e: 456 }, secret);
    for (const result of [literal, variables]) {
      expect(result.errors?.[0]?.extensions?.issues).toEqual([
        { path: "evaluatorId", message: "is not a valid id of this API (ids come from its answers)" },
        { path: "spanId", message: "is not a valid id of this API (ids come from its answers)" },
      ]);
    }
    const input = await client.request("mutation ($i: DeleteDatasetInput!) { deleteDataset(input: $i) { name } }", { i: { id: 123 } }, secret);
    expect(input.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "input.id", message: "is not a valid id of this API (ids come from its answers)" }] });
    const list = await client.request("query ($ids: [ID!]!) { nodes(ids: $ids) { id } }", { ids: [7] }, secret);
    expect(list.errors?.[0]?.extensions?.issues).toEqual([{ path: "ids[0]", message: "is not a valid id of this API (ids come from its answers)" }]);
  });

  it.each([
    ["evaluator", '{ evaluator(name: " ") { id } }', "name", "must not be empty (it is only whitespace)"],
    ["evaluator (empty)", '{ evaluator(name: "") { id } }', "name", "must not be empty"],
    ["template", '{ template(name: "\\t ") { id } }', "name", "must not be empty (it is only whitespace)"],
    ["template version", '{ templateVersion(templateName: "  ") { version } }', "templateName", "must not be empty (it is only whitespace)"],
    ["dataset", '{ dataset(name: "   ") { id } }', "name", "must not be empty (it is only whitespace)"],
    ["shared library", '{ sharedLibrary(name: " ") { name } }', "name", "must not be empty (it is only whitespace)"],
    ["shared library (empty)", '{ sharedLibrary(name: "") { name } }', "name", "must not be empty"],
    ["trace", '{ trace(traceId: " ") { traceId } }', "traceId", "must not be empty (it is only whitespace)"],
  ])("refuses a blank name as empty, not NOT_FOUND: %s", async (_label, query, path, message) => {
    const result = await client.request(query, {}, secret);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path, message }] });
  });

  it("refuses a blank evaluator name in submitScores as empty", async () => {
    expect((await ingest([{ traceId: "t", spanId: "scored", name: "n" }])).spans).toHaveLength(1);
    const id = (await app.prisma.span.findFirstOrThrow({ where: { workspaceId, spanId: "scored" } })).id;
    const result = await client.request(
      'mutation ($s: ID!) { submitScores(input: {spanId: $s, evaluator: "  ", scores: [{name: "x", value: 1}]}) { run { id } } }',
      { s: encodeGlobalID("Span", id) },
      secret,
    );
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "evaluator", message: "must not be empty (it is only whitespace)" }] });
  });
});
