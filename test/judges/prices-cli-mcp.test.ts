// `oodle genai prices …` (a subprocess) and the MCP tool genai_prices (the SDK's client over /mcp)
// against the real service: the table, a workspace's price set and deleted, refusals naming the flag.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { cliRunner, serviceForThisFile } from "../cli/service.js";

const service = serviceForThisFile();
const T = 120_000;

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };

describe("model prices from the CLI and MCP", () => {
  it("oodle genai prices list, set, delete", { timeout: T }, async () => {
    const { key } = await service.workspace("prices-cli");
    const oodle = cliRunner(service, key);

    const table = await oodle(["genai", "prices", "list"]);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^MODEL\s+INPUT \$\/1M\s+OUTPUT \$\/1M\s+SOURCE$/m);
    expect(table.stdout).toMatch(/^gpt-4o-mini\s+0\.15\s+0\.6\s+builtin$/m);

    const set = await oodle(["--json", "genai", "prices", "set", "gpt-4o-mini", "--input", "0.2", "--output", "0.9"]);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ model: "gpt-4o-mini", inputUsdPerMillion: 0.2, outputUsdPerMillion: 0.9, source: "workspace" });
    const text = await oodle(["genai", "prices", "set", "llama3.2", "--input", "0", "--output", "0"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout.trim()).toBe("set llama3.2: $0 in, $0 out per 1M tokens (workspace)");

    const listed = JSON.parse((await oodle(["--json", "genai", "prices", "list"])).stdout) as { model: string; source: string; inputUsdPerMillion: number }[];
    expect(listed.filter((p) => p.model === "gpt-4o-mini")).toMatchObject([{ inputUsdPerMillion: 0.2, source: "workspace" }]);
    expect(listed.find((p) => p.model === "llama3.2")).toMatchObject({ source: "workspace" });

    // Refusals name the flag: the API's (a price past the bound), the CLI's own (not a number), a missing one.
    const high = await oodle(["genai", "prices", "set", "m", "--input", "20000", "--output", "1"]);
    expect(high.exitCode).toBe(2);
    expect(high.stderr).toContain("--input");
    expect(high.stderr).toContain("must be at most 10000");
    const word = await oodle(["genai", "prices", "set", "m", "--input", "1", "--output", "cheap"]);
    expect(word.exitCode).toBe(2);
    expect(word.stderr).toContain("--output");
    const missing = await oodle(["genai", "prices", "set", "m", "--input", "1"]);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toContain("--output");

    const deleted = await oodle(["genai", "prices", "delete", "gpt-4o-mini"]);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(deleted.stdout.trim()).toBe("deleted the workspace's price of gpt-4o-mini; now: gpt-4o-mini: $0.15 in, $0.6 out per 1M tokens (builtin)");
    const local = await oodle(["genai", "prices", "delete", "llama3.2"]);
    expect(local.stdout.trim()).toBe("deleted the workspace's price of llama3.2; it has no price now: its judge calls record no cost");
    const again = await oodle(["genai", "prices", "delete", "gpt-4o-mini"]);
    expect(again.exitCode).toBe(3);
    expect(again.stderr).toContain('model price "gpt-4o-mini" not found');
  });

  it("genai_prices over /mcp: list and set; a missing argument is isError naming it", { timeout: T }, async () => {
    const { key } = await service.workspace("prices-mcp");
    const client = new Client({ name: "oodle-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const call = async (args: Record<string, unknown>) => (await client.callTool({ name: "genai_prices", arguments: args })) as Result;
      const tool = (await client.listTools()).tools.find((t) => t.name === "genai_prices")!;
      expect((tool.inputSchema.properties as any).action.enum).toEqual(["list", "set"]);
      const list = await call({ action: "list" });
      expect(list.isError, list.content[0]?.text).toBeFalsy();
      expect(list.content[0]!.text).toContain("claude-3-5-haiku-latest: $0.8 in, $4 out per 1M tokens (builtin)");
      expect(list.structuredContent.items.length).toBeGreaterThanOrEqual(10);

      const set = await call({ action: "set", model: "claude-3-5-haiku-latest", inputUsdPerMillion: 1, outputUsdPerMillion: 5 });
      expect(set.isError, set.content[0]?.text).toBeFalsy();
      expect(set.structuredContent).toMatchObject({ model: "claude-3-5-haiku-latest", inputUsdPerMillion: 1, outputUsdPerMillion: 5, source: "workspace" });
      expect((await call({ action: "list" })).content[0]!.text).toContain("claude-3-5-haiku-latest: $1 in, $5 out per 1M tokens (workspace)");

      const incomplete = await call({ action: "set", model: "x" });
      expect(incomplete.isError).toBe(true);
      expect(incomplete.structuredContent.error.issues.map((i: { path: string }) => i.path)).toEqual(["inputUsdPerMillion", "outputUsdPerMillion"]);
      const negative = await call({ action: "set", model: "x", inputUsdPerMillion: -1, outputUsdPerMillion: 0 });
      expect(negative.isError).toBe(true);
      expect(negative.content[0]!.text).toContain("inputUsdPerMillion");
    } finally {
      await client.close();
    }
  });
});
