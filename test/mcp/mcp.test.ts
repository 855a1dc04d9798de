import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { OODLE_BIN, ROOT, serviceForThisFile } from "../cli/service.js";

// The MCP server driven with the SDK's own client over both transports: stdio (`oodle mcp serve`
// as a subprocess, calling the service over HTTP) and streamable HTTP at /mcp on the service.
const service = serviceForThisFile();

const T = 300_000;

async function connect(transport: "stdio" | "http", key: string): Promise<Client> {
  const client = new Client({ name: "oodle-test", version: "1.0.0" });
  if (transport === "stdio") {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [OODLE_BIN, "mcp", "serve"],
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", OODLE_API_URL: service.url, OODLE_API_KEY: key, OODLE_CONFIG_DIR: "/nonexistent" },
        stderr: "ignore",
      }),
    );
  } else {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  }
  return client;
}

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Result;

/** A threshold draft: scores the setting "at" itself, so the value the run saw is checked. */
const SOURCE = 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="at", value=ctx.params["at"])])\n';
const SPAN = { input: [{ role: "user", content: "My order arrived broken" }], output: "Sorry! We will send a refund today." };

describe.each(["stdio", "http"] as const)("MCP over %s", (transport) => {
  it("lists the tools with input schemas from the zod schemas", { timeout: T }, async () => {
    const { key } = await service.workspace("mcp");
    const client = await connect(transport, key);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["genai_backfills", "genai_connections", "genai_evaluator_workbench", "genai_monitors", "genai_prices", "genai_workspace", "manage_genai_evaluators"]);
      const manage = tools.find((t) => t.name === "manage_genai_evaluators")!;
      const props = manage.inputSchema.properties as Record<string, any>;
      expect(props.action.enum).toContain("update_evaluator");
      expect(props.samplingRate).toMatchObject({ type: "number", minimum: 0, maximum: 1 });
      expect(props.spanKind.enum).toEqual(["chat", "tool", "agent", "retrieval", "other"]);
      expect(manage.inputSchema.required).toEqual(["action"]);
    } finally {
      await client.close();
    }
  });

  it("the settings page's three calls, a refusal as isError, and another workspace seeing nothing", { timeout: T }, async () => {
    const { key } = await service.workspace("mcp");
    const client = await connect(transport, key);
    try {
      const template = await call(client, "manage_genai_evaluators", { action: "create_template", starterId: "keyword-check" });
      expect(template.isError, template.content[0]?.text).toBeFalsy();
      // The settings page's evaluator: {"required": ["refund"], "mode": "any"}.
      const created = await call(client, "manage_genai_evaluators", { action: "create_evaluator", name: "Refund mentioned", templateName: "Keyword check", params: { required: ["refund"], mode: "any" } });
      expect(created.isError, created.content[0]?.text).toBeFalsy();

      // 1. {"action": "update_evaluator", "name": "Refund mentioned", "params": {"required": ["refund", "return"]}}
      const updated = await call(client, "manage_genai_evaluators", JSON.parse('{"action": "update_evaluator", "name": "Refund mentioned", "params": {"required": ["refund", "return"]}}'));
      expect(updated.isError, updated.content[0]?.text).toBeFalsy();
      // The values are merged: the page's update sets `required` and keeps `mode: "any"`.
      expect(updated.structuredContent).toMatchObject({ name: "Refund mentioned", params: { required: ["refund", "return"], mode: "any" }, resolvedParams: { required: ["refund", "return"], mode: "any" } });
      expect(updated.content[0]!.text).toContain('updated evaluator "Refund mentioned"');
      // null removes one value (back to its default); replaceParams replaces them all.
      const unset = await call(client, "manage_genai_evaluators", { action: "update_evaluator", name: "Refund mentioned", params: { mode: null, case_sensitive: true } });
      expect(unset.structuredContent.params).toEqual({ required: ["refund", "return"], case_sensitive: true });
      const replaced = await call(client, "manage_genai_evaluators", { action: "update_evaluator", name: "Refund mentioned", params: { required: ["refund", "return"] }, replaceParams: true });
      expect(replaced.structuredContent).toMatchObject({ params: { required: ["refund", "return"] }, resolvedParams: { mode: "all", case_sensitive: false } });
      expect(Object.keys(replaced.structuredContent.params)).toEqual(["required"]);

      // 2. try_code with sourceCode + paramSpecs + params (the page's "..." is this draft), on an inline span.
      const draft = await call(client, "genai_evaluator_workbench", { action: "try_code", sourceCode: SOURCE, paramSpecs: [{ name: "at", type: "number", default: 0.5 }], params: { at: 0.7 }, span: SPAN });
      expect(draft.isError, draft.content[0]?.text).toBeFalsy();
      expect(draft.structuredContent).toMatchObject({ outcome: "ok", params: { at: 0.7 } });
      expect(draft.structuredContent.scores).toEqual([expect.objectContaining({ name: "at", value: 0.7, dataType: "NUMERIC" })]);

      // 3. {"action": "try_code", "starterId": "keyword-check", "params": {"required": ["refund"]}} (verbatim: no sample, an empty span).
      const starter = await call(client, "genai_evaluator_workbench", JSON.parse('{"action": "try_code", "starterId": "keyword-check", "params": {"required": ["refund"]}}'));
      expect(starter.isError, starter.content[0]?.text).toBeFalsy();
      expect(starter.content[0]!.text).toContain("ran on an empty sample document");
      expect(starter.structuredContent).toMatchObject({ outcome: "ok", sample: "empty", params: { required: ["refund"], forbidden: [], mode: "all", case_sensitive: false } });
      // ... and on the span, where the reply mentions "refund": it passes.
      const onSpan = await call(client, "genai_evaluator_workbench", { action: "try_code", starterId: "keyword-check", params: { required: ["refund"] }, span: SPAN });
      const passedScore = onSpan.structuredContent.scores[0];
      expect(passedScore.value).toBe(true);

      // A refusal: a template change that "Refund mentioned"'s values would break (the 409) is an isError result with the code.
      const refused = await call(client, "manage_genai_evaluators", { action: "update_template", name: "Keyword check", params: [{ name: "required", type: "string" }] });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error.code).toBe("CONFLICT");
      expect(refused.structuredContent.error.details[0].evaluator).toBe("Refund mentioned");
      // Bad values name the field.
      const bad = await call(client, "manage_genai_evaluators", { action: "update_evaluator", name: "Refund mentioned", params: { mode: "some" } });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent.error).toMatchObject({ code: "BAD_USER_INPUT", field: "params.mode" });
      const badArgs = await call(client, "manage_genai_evaluators", { action: "update_evaluator", name: "Refund mentioned", samplingRate: 2 });
      expect(badArgs.isError).toBe(true);
      expect(badArgs.structuredContent.error).toMatchObject({ code: "BAD_USER_INPUT", field: "samplingRate" });
      // A misspelt argument is refused by name (as the CLI and GraphQL refuse it), never dropped;
      // the settings page's "type" gets the name to use.
      const typo = await call(client, "manage_genai_evaluators", { action: "update_evaluator", name: "Refund mentioned", prams: { mode: "any" } });
      expect(typo.isError).toBe(true);
      expect(typo.structuredContent.error).toMatchObject({ code: "BAD_USER_INPUT", field: "prams" });
      const typed = await call(client, "manage_genai_evaluators", { action: "create_template", name: "Typed", type: "code", sourceCode: "def evaluate(ctx):\n    return None\n" });
      expect(typed.isError).toBe(true);
      expect(typed.structuredContent.error.issues[0].message).toContain("every template is code");

      // validate: settings and code checks without running.
      const invalid = await call(client, "genai_evaluator_workbench", { action: "validate", sourceCode: "def evaluate(:\n", paramSpecs: [{ name: "at", type: "number", default: "high" }] });
      expect(invalid.isError).toBeFalsy();
      expect(invalid.structuredContent.valid).toBe(false);
      expect(invalid.structuredContent.issues.map((i: { path: string }) => i.path).sort()).toEqual(["paramSpecs[0].default", "sourceCode"].map((p) => p.replace("paramSpecs", "params")).sort());

      // explain_match on a stored span: a chat span matches the evaluator's rule.
      const ingest = await fetch(`${service.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: "mutation($s: [JSON!]!) { ingestSpans(input: {spans: $s}) { spans { id } } }", variables: { s: [{ traceId: "t1", spanId: "s1", name: "chat", ...SPAN }] } }),
      }).then((r) => r.json());
      const spanId = ingest.data.ingestSpans.spans[0].id;
      const explained = await call(client, "genai_evaluator_workbench", { action: "explain_match", spanId, evaluator: "Refund mentioned" });
      expect(explained.isError, explained.content[0]?.text).toBeFalsy();
      expect(explained.structuredContent).toMatchObject({ matched: true, reason: null });
      // What a user has instead of the global id: "TRACE:SPAN", or the span's own id with traceId; list_spans shows both.
      for (const ref of [{ spanId: "t1:s1" }, { spanId: "s1", traceId: "t1" }]) {
        const same = await call(client, "genai_evaluator_workbench", { action: "explain_match", ...ref, evaluator: "Refund mentioned" });
        // The same answer (the run may have landed between the calls).
        expect({ ...same.structuredContent, run: null }).toEqual({ ...explained.structuredContent, run: null });
      }
      const bare = await call(client, "genai_evaluator_workbench", { action: "explain_match", spanId: "s1", evaluator: "Refund mentioned" });
      expect(bare.isError).toBe(true);
      expect(bare.structuredContent.error).toMatchObject({ code: "BAD_USER_INPUT", field: "spanId" });
      const listed = await call(client, "genai_evaluator_workbench", { action: "list_spans", traceId: "t1", spanFilter: { kind: "chat", from: "2020-01-01T00:00:00Z" } });
      expect(listed.isError, listed.content[0]?.text).toBeFalsy();
      expect(listed.structuredContent).toMatchObject({ spans: [{ id: spanId, traceId: "t1", spanId: "s1", name: "chat", kind: "chat" }], hasNextPage: false });
      const none = await call(client, "genai_evaluator_workbench", { action: "list_spans", spanFilter: { kind: "tool" } });
      expect(none.structuredContent.spans).toEqual([]);

      // Another workspace's key sees nothing of this one.
      const other = await service.workspace("mcp-other");
      const stranger = await connect(transport, other.key);
      try {
        const list = await call(stranger, "manage_genai_evaluators", { action: "list_evaluators" });
        expect(list.structuredContent).toEqual({ items: [] });
        const get = await call(stranger, "manage_genai_evaluators", { action: "get_evaluator", name: "Refund mentioned" });
        expect(get.isError).toBe(true);
        expect(get.structuredContent.error.code).toBe("NOT_FOUND");
        const templates = await call(stranger, "manage_genai_evaluators", { action: "list_templates" });
        expect(templates.structuredContent).toEqual({ items: [] });
        const span = await call(stranger, "genai_evaluator_workbench", { action: "try_code", starterId: "keyword-check", spanId });
        expect(span.isError).toBe(true);
        expect(span.structuredContent.error.code).toBe("NOT_FOUND");
      } finally {
        await stranger.close();
      }
    } finally {
      await client.close();
    }
  });

  it("genai_backfills: estimate, create, get and a refused cancel of a finished backfill", { timeout: T }, async () => {
    const { key } = await service.workspace("mcp-bf");
    // 10 chat spans of the last hour, stored before the evaluator exists; 4 mention a refund.
    const spans = Array.from({ length: 10 }, (_, i) => ({
      traceId: `t${i}`, spanId: "s1", name: "chat", startTime: new Date(Date.now() - (i + 1) * 60_000).toISOString(),
      input: [{ role: "user", content: "Broken" }], output: i < 4 ? "We will refund you." : "Sorry.",
    }));
    const ingest = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: "mutation($s: [JSON!]!) { ingestSpans(input: {spans: $s}) { rejected { index } } }", variables: { s: spans } }),
    });
    expect(((await ingest.json()) as any).data.ingestSpans.rejected).toEqual([]);
    const client = await connect(transport, key);
    try {
      expect((await call(client, "manage_genai_evaluators", { action: "create_template", starterId: "keyword-check" })).isError).toBeFalsy();
      expect((await call(client, "manage_genai_evaluators", { action: "create_evaluator", name: "Refund mentioned", templateName: "Keyword check", params: { required: ["refund"] } })).isError).toBeFalsy();

      const estimate = await call(client, "genai_backfills", { action: "estimate", evaluator: "Refund mentioned", windowStart: "-1d" });
      expect(estimate.isError, estimate.content[0]?.text).toBeFalsy();
      expect(estimate.structuredContent).toMatchObject({ spans: 10, runs: 10, evaluators: [{ name: "Refund mentioned", toRun: 10 }] });
      const created = await call(client, "genai_backfills", { action: "create", evaluator: "Refund mentioned", windowStart: "-1d", name: "mcp" });
      expect(created.isError, created.content[0]?.text).toBeFalsy();
      const id = created.structuredContent.id;
      let got: Result;
      for (const deadline = Date.now() + 120_000; ; ) {
        got = await call(client, "genai_backfills", { action: "get", id });
        if (got.structuredContent.status === "completed") break;
        if (Date.now() > deadline) throw new Error(`backfill still ${got.structuredContent.status}`);
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(got.structuredContent.summary).toMatchObject([{ evaluatorName: "Refund mentioned", count: 10, passed: 4, passRate: 0.4 }]);
      expect(got.content[0]!.text).toContain("status:");

      const refused = await call(client, "genai_backfills", { action: "cancel", id });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error.code).toBe("CONFLICT");
      const bad = await call(client, "genai_backfills", { action: "estimate", evaluator: "Refund mentioned", windowStart: "last week" });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent.error).toMatchObject({ code: "BAD_USER_INPUT", field: "windowStart" });
      const listed = await call(client, "genai_backfills", { action: "list" });
      expect(listed.structuredContent).toMatchObject({ active: 0, maxConcurrent: 2, backfills: [{ id, status: "completed" }] });
    } finally {
      await client.close();
    }
  });
});

describe("MCP over HTTP without a valid key", () => {
  it("answers 401", { timeout: T }, async () => {
    const response = await fetch(`${service.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: "Bearer oodle_sk_wrong" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
  });
});
