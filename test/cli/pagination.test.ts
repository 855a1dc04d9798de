import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { cliRunner, serviceForThisFile } from "./service.js";

// A list command or tool reads every page: a workspace with more records than one page (100, the
// API's maximum) lists them all, where the CLI and MCP used to stop at the first 100 without a word.
// Records made in the same millisecond share a creation time: the pages must still hold each record
// once (the connections order by creation time, then id).
const service = serviceForThisFile();

const T = 300_000;
/** More than one page of the API's connections. */
const COUNT = 105;

async function graphql(key: string, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${service.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ query, variables }) });
  const body = (await response.json()) as { data?: any; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  return body.data;
}

/** Runs `make(i)` for 0…COUNT-1, ten at a time. */
async function createMany(make: (i: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < COUNT; start += 10) {
    await Promise.all(Array.from({ length: Math.min(10, COUNT - start) }, (_, k) => make(start + k)));
  }
}

const names = (prefix: string) => Array.from({ length: COUNT }, (_, i) => `${prefix} ${String(i).padStart(3, "0")}`);

describe("lists read every page", () => {
  it("datasets list and evaluators list show all of 105 records; MCP list_evaluators returns all of them", { timeout: T }, async () => {
    const { name, key } = await service.workspace("pages");
    const oodle = cliRunner(service, key);
    await createMany((i) => graphql(key, "mutation($input: CreateDatasetInput!) { createDataset(input: $input) { dataset { id } } }", { input: { name: `Set ${String(i).padStart(3, "0")}` } }));
    await createMany((i) => graphql(key, "mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { id } } }", { input: { name: `Posted ${String(i).padStart(3, "0")}`, kind: "external" } }));

    // Creation times as a burst leaves them: the first 90 a millisecond apart, the last 15 (across the page boundary at 100) in one millisecond.
    const { id: workspaceId } = await service.app.prisma.workspace.findFirstOrThrow({ where: { name } });
    const at = (i: number) => new Date(Date.parse("2026-11-30T12:00:00.000Z") + Math.min(i, 90));
    for (const model of [service.app.prisma.dataset, service.app.prisma.evaluator] as const) {
      const rows: { id: string; name: string }[] = await (model as any).findMany({ where: { workspaceId }, select: { id: true, name: true }, orderBy: { name: "asc" } });
      await service.app.prisma.$transaction(rows.map((row, i) => (model as any).update({ where: { id: row.id }, data: { createdAt: at(i) } })));
    }

    const datasets = await oodle(["--json", "datasets", "list"]);
    expect(datasets.exitCode, datasets.stderr).toBe(0);
    expect(JSON.parse(datasets.stdout).map((d: { name: string }) => d.name).sort()).toEqual(names("Set"));
    const table = await oodle(["datasets", "list"]);
    expect(table.stdout.trim().split("\n")).toHaveLength(COUNT + 1); // the header, then one row each

    const evaluators = await oodle(["--json", "genai", "evaluators", "list"]);
    expect(evaluators.exitCode, evaluators.stderr).toBe(0);
    expect(JSON.parse(evaluators.stdout).map((e: { name: string }) => e.name).sort()).toEqual(names("Posted"));

    const client = new Client({ name: "oodle-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const listed = (await client.callTool({ name: "manage_genai_evaluators", arguments: { action: "list_evaluators" } })) as { isError?: boolean; structuredContent?: any; content: { text?: string }[] };
      expect(listed.isError, listed.content[0]?.text).toBeFalsy();
      expect(listed.structuredContent.items.map((e: { name: string }) => e.name).sort()).toEqual(names("Posted"));
      expect(listed.content[0]!.text!.split("\n")).toHaveLength(COUNT);
    } finally {
      await client.close();
    }
  });
});
