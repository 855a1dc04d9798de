// A blocked evaluator from the CLI (`oodle genai evaluators get/list/explain/unblock`, a subprocess)
// and MCP (manage_genai_evaluators and genai_evaluator_workbench over /mcp) against the real service.
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { cliRunner, serviceForThisFile } from "../cli/service.js";

const service = serviceForThisFile();
const T = 180_000;
const REASON = "invalid_api_key: HTTP 401 from openai";

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };

/** A workspace with a keyword-check evaluator and a span it matches; the evaluator blocked as the judge executor blocks it. */
async function blockedEvaluator(label: string) {
  const { key } = await service.workspace(label);
  const oodle = cliRunner(service, key);
  const name = `Helpfulness ${randomUUID().slice(0, 6)}`;
  expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
  const created = await oodle(["--json", "genai", "evaluators", "create", "--name", name, "--template", "Keyword check", "--params", '{"required": ["refund"]}']);
  expect(created.exitCode, created.stderr).toBe(0);
  const evaluator = JSON.parse(created.stdout) as { id: string };
  const rawId = Buffer.from(evaluator.id, "base64").toString().split(":")[1]!;
  expect(await service.app.services.evaluators.blockEvaluator(rawId, REASON)).toBe(true);
  const blockedAt = (await service.app.prisma.evaluator.findUniqueOrThrow({ where: { id: rawId } })).blockedAt!.toISOString();
  return { key, oodle, name, rawId, blockedAt };
}

/** A JSONL file of one chat span of `traceId` (span id s1) that the evaluator's rule matches. */
function spanFile(traceId: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "oodle-blocked-")), "spans.jsonl");
  writeFileSync(file, `${JSON.stringify({ traceId, spanId: "s1", name: "chat", kind: "chat", output: "We will refund you." })}\n`);
  return file;
}

describe("a blocked evaluator from the CLI and MCP", () => {
  it("oodle genai evaluators get/list/explain show BLOCKED with the reason; unblock clears it", { timeout: T }, async () => {
    const { oodle, name, blockedAt } = await blockedEvaluator("blocked-cli");
    const traceId = `blocked-cli-${randomUUID()}`;
    expect((await oodle(["spans", "ingest", spanFile(traceId)])).exitCode).toBe(0);

    const get = await oodle(["genai", "evaluators", "get", name]);
    expect(get.exitCode, get.stderr).toBe(0);
    expect(get.stdout).toMatch(new RegExp(`^blocked: +BLOCKED since ${blockedAt.replace(/[.]/g, "\\.")}: ${REASON} \\(its runs are skipped; unblock: oodle genai evaluators unblock "${name}"\\)$`, "m"));
    const json = await oodle(["--json", "genai", "evaluators", "get", name]);
    expect(JSON.parse(json.stdout)).toMatchObject({ name, blockedAt, blockedReason: REASON });

    const list = await oodle(["genai", "evaluators", "list"]);
    expect(list.exitCode, list.stderr).toBe(0);
    const row = list.stdout.split("\n").find((l) => l.startsWith(name))!;
    expect(row).toContain(`yes, BLOCKED: ${REASON}`);

    const explain = await oodle(["genai", "evaluators", "explain", name, `${traceId}:s1`]);
    expect(explain.exitCode, explain.stderr).toBe(0);
    expect(explain.stdout.split("\n")[0]).toBe(`BLOCKED: the evaluator is blocked since ${blockedAt}: ${REASON}; unblock it with unblockEvaluator`);
    expect(explain.stdout.split("\n")[1]).toMatch(/^matches: /);

    const unblock = await oodle(["genai", "evaluators", "unblock", name]);
    expect(unblock.exitCode, unblock.stderr).toBe(0);
    expect(unblock.stdout.trim()).toBe(`unblocked evaluator "${name}" (blocked since ${blockedAt}: ${REASON})`);
    const after = await oodle(["genai", "evaluators", "get", name]);
    expect(after.stdout).not.toContain("BLOCKED");
    expect(after.stdout).not.toMatch(/^blocked:/m);
    const twice = await oodle(["--json", "genai", "evaluators", "unblock", name]);
    expect(twice.exitCode).toBe(0);
    expect(JSON.parse(twice.stdout)).toMatchObject({ name, blockedAt: null, blockedReason: null });
    expect((await oodle(["genai", "evaluators", "unblock", name])).stdout.trim()).toBe(`evaluator "${name}" was not blocked`);

    // Another workspace's evaluator: exit 3 (NOT_FOUND), as any unknown name.
    const other = await service.workspace("blocked-cli-other");
    const foreign = await cliRunner(service, other.key)(["genai", "evaluators", "unblock", name]);
    expect(foreign.exitCode).toBe(3);
  });

  it("MCP: get_evaluator and list_evaluators carry blockedReason and say BLOCKED; explain_match says it; unblock_evaluator clears it", { timeout: T }, async () => {
    const { key, name, blockedAt, oodle } = await blockedEvaluator("blocked-mcp");
    const traceId = `blocked-mcp-${randomUUID()}`;
    expect((await oodle(["spans", "ingest", spanFile(traceId)])).exitCode).toBe(0);
    const client = new Client({ name: "oodle-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const call = async (tool: string, args: Record<string, unknown>) => (await client.callTool({ name: tool, arguments: args })) as Result;
      const tool = (await client.listTools()).tools.find((t) => t.name === "manage_genai_evaluators")!;
      expect((tool.inputSchema.properties as any).action.enum).toContain("unblock_evaluator");

      const got = await call("manage_genai_evaluators", { action: "get_evaluator", name });
      expect(got.isError, got.content[0]?.text).toBeFalsy();
      expect(got.structuredContent).toMatchObject({ name, blockedAt, blockedReason: REASON });
      expect(got.content[0]!.text).toContain(`BLOCKED since ${blockedAt}: ${REASON} (its runs are skipped; unblock: {"action": "unblock_evaluator", "name": ${JSON.stringify(name)}})`);
      const list = await call("manage_genai_evaluators", { action: "list_evaluators" });
      expect(list.structuredContent.items).toEqual([expect.objectContaining({ name, blockedReason: REASON })]);
      expect(list.content[0]!.text).toContain(`BLOCKED since ${blockedAt}: ${REASON}`);

      const explained = await call("genai_evaluator_workbench", { action: "explain_match", evaluator: name, spanId: `${traceId}:s1` });
      expect(explained.isError, explained.content[0]?.text).toBeFalsy();
      expect(explained.structuredContent).toMatchObject({ matched: true, blockedReason: `the evaluator is blocked since ${blockedAt}: ${REASON}; unblock it with unblockEvaluator` });
      expect(explained.content[0]!.text).toContain(`BLOCKED: the evaluator is blocked since ${blockedAt}`);

      const unblocked = await call("manage_genai_evaluators", { action: "unblock_evaluator", name });
      expect(unblocked.isError, unblocked.content[0]?.text).toBeFalsy();
      expect(unblocked.structuredContent).toMatchObject({ name, blockedAt: null, blockedReason: null });
      expect(unblocked.content[0]!.text).toBe(`unblocked evaluator "${name}" (blocked since ${blockedAt}: ${REASON})`);
      const again = await call("manage_genai_evaluators", { action: "get_evaluator", name });
      expect(again.content[0]!.text).not.toContain("BLOCKED");
      const noName = await call("manage_genai_evaluators", { action: "unblock_evaluator" });
      expect(noName.isError).toBe(true);
      expect(noName.content[0]!.text).toContain("name");
    } finally {
      await client.close();
    }
  });
});
