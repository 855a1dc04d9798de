import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { MCP_TOOL_NAMES } from "../../src/mcp/tool-names.js";
import { ROOT, serviceForThisFile } from "../cli/service.js";

// What a new user's first session found in the MCP tools (trial findings 1, 5, 11): a dataset line
// is a try_code document as in GraphQL, an unknown document key is named, a window bound may be
// a JSON number, and the help's list of tools is the server's.
const service = serviceForThisFile();

const T = 300_000;
type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "oodle-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

async function graphql(key: string, query: string, variables: Record<string, unknown>) {
  const response = await fetch(`${service.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ query, variables }) });
  return (await response.json()) as any;
}

describe("MCP: what the trial found", () => {
  it("lists exactly the tools the CLI's help names", { timeout: T }, async () => {
    const { key } = await service.workspace("mcp-trial-tools");
    const client = await connect(key);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...MCP_TOOL_NAMES]);
    } finally {
      await client.close();
    }
  });

  it("try_code takes an items.jsonl line as document with GraphQL tryCode's score, and names an unknown key", { timeout: T }, async () => {
    const { key } = await service.workspace("mcp-trial-doc");
    const client = await connect(key);
    const call = async (args: Record<string, unknown>) => (await client.callTool({ name: "genai_evaluator_workbench", arguments: args })) as Result;
    try {
      const line = JSON.parse(readFileSync(join(ROOT, "../shared/data/truthfulqa/items.jsonl"), "utf8").split("\n")[1]!);
      expect(Object.keys(line)).toEqual(expect.arrayContaining(["id", "context", "tool_calls", "expected_tool_calls"]));
      const tried = await call({ action: "try_code", starterId: "levenshtein", document: line });
      expect(tried.isError, tried.content[0]?.text).toBeFalsy();
      const viaGraphql = await graphql(key, "mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome scores { name value } } }", { input: { starterId: "levenshtein", document: line } });
      expect(viaGraphql.errors).toBeUndefined();
      expect(tried.structuredContent.scores.map(({ name, value }: any) => ({ name, value }))).toEqual(viaGraphql.data.tryCode.scores);
      expect(tried.structuredContent.scores[0].value).toBeCloseTo(0.2049, 4);

      const typo = await call({ action: "try_code", starterId: "levenshtein", document: { output: "hi", foo: 1 } });
      expect(typo.isError).toBe(true);
      expect(typo.structuredContent.error).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "document.foo", message: "unknown field" }] });
    } finally {
      await client.close();
    }
  });

  it("genai_backfills reads windowStart / windowEnd given as JSON numbers by the CLI's magnitude rule", { timeout: T }, async () => {
    const { key } = await service.workspace("mcp-trial-window");
    const at = Date.now() - 30 * 60_000;
    const spans = [{ traceId: "t1", spanId: "s1", name: "chat", startTime: new Date(at).toISOString(), input: [{ role: "user", content: "Broken" }], output: "We will refund you." }];
    expect((await graphql(key, "mutation($s: [JSON!]!) { ingestSpans(input: {spans: $s}) { rejected { index } } }", { s: spans })).data.ingestSpans.rejected).toEqual([]);
    const client = await connect(key);
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Result;
    try {
      expect((await call("manage_genai_evaluators", { action: "create_template", starterId: "keyword-check" })).isError).toBeFalsy();
      expect((await call("manage_genai_evaluators", { action: "create_evaluator", name: "Refund mentioned", templateName: "Keyword check", params: { required: ["refund"] } })).isError).toBeFalsy();
      const start = at - 60_000;
      // The same window as milliseconds, seconds (a 10-digit number) and a string: the same span.
      for (const windowStart of [start, Math.floor(start / 1000), String(start)]) {
        const estimate = await call("genai_backfills", { action: "estimate", evaluator: "Refund mentioned", windowStart, windowEnd: Date.now() });
        expect(estimate.isError, `${windowStart}: ${estimate.content[0]?.text}`).toBeFalsy();
        expect(estimate.structuredContent).toMatchObject({ spans: 1 });
      }
      // Seconds after the span: read as seconds, not as milliseconds of 1970 (which would hold it).
      const after = await call("genai_backfills", { action: "estimate", evaluator: "Refund mentioned", windowStart: Math.floor((at + 60_000) / 1000) });
      expect(after.structuredContent).toMatchObject({ spans: 0 });
      const bad = await call("genai_backfills", { action: "estimate", evaluator: "Refund mentioned", windowStart: 1.5 });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent.error).toMatchObject({ code: "BAD_USER_INPUT", field: "windowStart", message: expect.stringContaining("whole number") });
    } finally {
      await client.close();
    }
  });
});
