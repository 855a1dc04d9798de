// `oodle workspace limits|retention` (a subprocess) and the MCP tool genai_workspace (the SDK's
// client over /mcp) against the real service with a default (30 days) and a ceiling (90 days).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { cliRunner, serviceForThisFile } from "./service.js";

const service = serviceForThisFile({ RETENTION_DEFAULT_DAYS: "30", RETENTION_MAX_DAYS: "90" });
const T = 120_000;

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };

describe("workspace limits and retention", () => {
  it("oodle workspace limits / retention: default, own days, back to default, refusals naming the flag", { timeout: T }, async () => {
    const { key } = await service.workspace("ws-cli");
    const oodle = cliRunner(service, key);
    const limits = await oodle(["workspace", "limits"]);
    expect(limits.exitCode, limits.stderr).toBe(0);
    expect(limits.stdout).toContain("retention: spans, their runs and scores, and run history kept 30 days");
    expect(limits.stdout).toContain("the deployment's default");
    expect(limits.stdout).toContain("default 30, ceiling 90; set nothing");

    const set = await oodle(["--json", "workspace", "retention", "--days", "60"]);
    expect(set.exitCode, set.stderr).toBe(0);
    const json = JSON.parse(set.stdout);
    expect(json.retention).toMatchObject({ days: 60, source: "workspace", settingDays: 60, settingKeepForever: false, keepForever: false, defaultDays: 30, maxDays: 90 });
    const cutoff = Date.parse(json.retention.cutoff);
    expect(Math.abs(Date.now() - 60 * 86_400_000 - cutoff)).toBeLessThan(60_000);
    const read = JSON.parse((await oodle(["--json", "workspace", "limits"])).stdout);
    expect(read.retention).toMatchObject({ days: 60, source: "workspace" });

    // Past the ceiling: refused by the API, the message naming --days and the ceiling; nothing changed.
    const tooLong = await oodle(["--json", "workspace", "retention", "--days", "91"]);
    expect(tooLong.exitCode).toBe(2);
    expect(tooLong.stderr).toContain("--days");
    expect(tooLong.stderr).toContain("from 1 to 90");
    const forever = await oodle(["workspace", "retention", "--forever"]);
    expect(forever.exitCode).toBe(2);
    expect(forever.stderr).toContain("at most 90 days (RETENTION_MAX_DAYS)");
    const two = await oodle(["workspace", "retention", "--days", "5", "--default"]);
    expect(two.exitCode).toBe(2);
    expect(two.stderr).toContain("give exactly one of --days N, --forever or --default");
    const notNumber = await oodle(["workspace", "retention", "--days", "ten"]);
    expect(notNumber.exitCode).toBe(2);
    expect(notNumber.stderr).toContain('must be a whole number of days; got "ten"');
    expect(JSON.parse((await oodle(["--json", "workspace", "limits"])).stdout).retention.days).toBe(60);

    const back = await oodle(["workspace", "retention", "--default"]);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(back.stdout).toContain("kept 30 days");
    expect(back.stdout).toContain("set nothing");
  });

  it("genai_workspace over /mcp: limits, set_retention, a refusal as isError naming the field", { timeout: T }, async () => {
    const { key } = await service.workspace("ws-mcp");
    const client = new Client({ name: "oodle-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const call = async (args: Record<string, unknown>) => (await client.callTool({ name: "genai_workspace", arguments: args })) as Result;
      const tool = (await client.listTools()).tools.find((t) => t.name === "genai_workspace")!;
      expect((tool.inputSchema.properties as any).action.enum).toEqual(["limits", "set_retention"]);

      const limits = await call({ action: "limits" });
      expect(limits.isError, limits.content[0]?.text).toBeFalsy();
      expect(limits.structuredContent.retention).toMatchObject({ days: 30, source: "default", defaultDays: 30, maxDays: 90 });
      expect(limits.content[0]!.text).toContain("kept 30 days");

      const set = await call({ action: "set_retention", retentionDays: 7 });
      expect(set.isError, set.content[0]?.text).toBeFalsy();
      expect(set.structuredContent.retention).toMatchObject({ days: 7, source: "workspace", settingDays: 7 });
      expect((await call({ action: "limits" })).structuredContent.retention.days).toBe(7);

      const refused = await call({ action: "set_retention", retentionDays: 365 });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain("retentionDays");
      expect(refused.content[0]!.text).toContain("from 1 to 90");
      const none = await call({ action: "set_retention" });
      expect(none.isError).toBe(true);
      expect(none.content[0]!.text).toContain("give exactly one of retentionDays");
      const misspelt = await call({ action: "set_retention", days: 3 });
      expect(misspelt.isError).toBe(true);
      expect(misspelt.content[0]!.text).toContain("days");
      expect((await call({ action: "limits" })).structuredContent.retention.days).toBe(7);

      const back = await call({ action: "set_retention", useDefault: true });
      expect(back.structuredContent.retention).toMatchObject({ days: 30, source: "default", settingDays: null });
    } finally {
      await client.close();
    }
  });
});
