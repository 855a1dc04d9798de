// Every door of monitors against the real service (API + worker subprocess): the CLI
// (`oodle monitors …`), the MCP tool genai_monitors over /mcp, GraphQL reads that never return a
// destination's URL or secret, and /metrics with the monitors' states by severity and no ids.
import { createServer, type IncomingMessage } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { verifyWebhook } from "../../src/modules/monitors/signature.js";
import { cliRunner, serviceForThisFile } from "../cli/service.js";

const METRICS_TOKEN = "monitors-doors-metrics-token";
const service = serviceForThisFile({ ALERT_ALLOW_PRIVATE_DESTINATIONS: "true", METRICS_TOKEN });
const T = 300_000;

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };

describe("monitors through the CLI, MCP, GraphQL and /metrics", () => {
  it("create, list, get, test-fire with a verified signature, mute, resolve, history and delete", { timeout: T }, async () => {
    const { key } = await service.workspace("mon-doors");
    const oodle = cliRunner(service, key);
    let secret = "";
    const received: { headers: IncomingMessage["headers"]; body: string; verdict: string | null }[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const verdict = verifyWebhook({ secret, headers: req.headers as Record<string, string>, rawBody: body });
        received.push({ headers: req.headers, body, verdict });
        res.writeHead(verdict ? 401 : 200).end(verdict ?? "ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/oodle-hook`;
    try {
      expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
      const ev = await oodle(["genai", "evaluators", "create", "--name", "Refund mentioned", "--template", "Keyword check", "--params", '{"required": ["refund"]}']);
      expect(ev.exitCode, ev.stderr).toBe(0);

      const dest = await oodle(["--json", "monitors", "destinations", "create", "oncall", "--kind", "webhook", "--endpoint", hookUrl]);
      expect(dest.exitCode, dest.stderr).toBe(0);
      const created = JSON.parse(dest.stdout);
      secret = created.signingSecret;
      expect(secret).toMatch(/^whsec_/);
      expect(created.destination).toMatchObject({ name: "oncall", kind: "webhook", signed: true, sealed: false });

      // Bad input names the flag; a score metric needs --score.
      const bad = await oodle(["monitors", "create", "--name", "x", "--evaluator", "Refund mentioned", "--metric", "pass_rate", "--window", "1h", "--cadence", "5m", "--alert", "0.8"]);
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toContain("--score: is required for metric pass_rate");
      const shortWindow = await oodle(["monitors", "create", "--name", "x", "--evaluator", "Refund mentioned", "--metric", "count", "--window", "1m", "--cadence", "1m", "--alert", "1"]);
      expect(shortWindow.exitCode).toBe(2);
      expect(shortWindow.stderr).toContain("--window: must be at least 300 (5 minutes)");

      const create = await oodle(["monitors", "create", "--name", "Refund volume", "--evaluator", "Refund mentioned", "--metric", "count", "--window", "1h", "--cadence", "5m", "--alert", "1", "--destination", "oncall"]);
      expect(create.exitCode, create.stderr).toBe(0);
      expect(create.stdout).toMatch(/^created monitor "Refund volume" \(\S+\): count over 1h every 5m, alert 1$/m);
      const list = await oodle(["monitors", "list"]);
      expect(list.stdout).toMatch(/^ID\s+NAME\s+STATE\s+EVALUATOR\s+WATCHES\s+FIRES ON\s+LAST WINDOW$/m);
      expect(list.stdout).toMatch(/Refund volume\s+OK\s+Refund mentioned\s+count over 1h every 5m\s+alert 1/);

      const fire = await oodle(["monitors", "test-fire", "Refund volume"]);
      expect(fire.exitCode, fire.stderr + fire.stdout).toBe(0);
      expect(fire.stdout).toMatch(/Refund volume\s+oncall\s+test\s+delivered\s+1\s+HTTP 200/);
      expect(received).toHaveLength(1);
      expect(received[0]!.verdict).toBeNull();
      expect(JSON.parse(received[0]!.body)).toMatchObject({ type: "monitor.test", state: "ALERT", value: 0, monitor: { name: "Refund volume", evaluator: { name: "Refund mentioned" } } });

      const muted = await oodle(["--json", "monitors", "mute", "Refund volume", "--until", "+1h", "--reason", "deploy"]);
      // "+1h" is not a time form: the CLI says which flag.
      expect(muted.exitCode).toBe(2);
      const mute = await oodle(["--json", "monitors", "mute", "Refund volume", "--reason", "deploy"]);
      expect(mute.exitCode, mute.stderr).toBe(0);
      expect(JSON.parse(mute.stdout)).toMatchObject({ muted: true, mutedUntil: null, muteReason: "deploy" });
      expect((await oodle(["monitors", "unmute", "Refund volume"])).stdout).toBe('unmuted monitor "Refund volume" (OK)');
      expect((await oodle(["monitors", "resolve", "Refund volume"])).stdout).toBe('monitor "Refund volume" is OK');
      const history = await oodle(["--json", "monitors", "history", "Refund volume"]);
      expect(JSON.parse(history.stdout)).toEqual({ evaluations: [], transitions: [] });
      const deliveries = await oodle(["--json", "monitors", "deliveries", "--monitor", "Refund volume"]);
      expect(JSON.parse(deliveries.stdout)).toMatchObject([{ event: "test", status: "delivered", attempts: 1, log: [{ attempt: 1, statusCode: 200, body: "ok" }] }]);

      // GraphQL never answers a destination's URL or its secret.
      const gql = await fetch(`${service.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: "{ alertDestinations(first: 10) { edges { node { id name kind urlHint signed sealed } } } monitors(first: 10) { edges { node { name state destinations { name urlHint } deliveries(first: 5) { edges { node { status payload } } } } } } }" }),
      });
      const text = await gql.text();
      expect(text).toContain('"urlHint":"http://127.0.0.1:');
      expect(text).not.toContain(hookUrl);
      expect(text).not.toContain(secret);

      // /metrics: the states by severity, no ids, no secret.
      const metrics = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      const lines = metrics.split("\n").filter((l) => l.startsWith("oodle_monitors{"));
      expect(lines.map((l) => l.replace(/ \d+$/, ""))).toEqual(expect.arrayContaining(['oodle_monitors{state="OK"}']));
      expect(metrics).toMatch(/^oodle_monitors\{state="OK"\} [1-9]\d*$/m);
      expect(metrics).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
      expect(metrics).not.toContain(secret);
      expect(metrics).not.toContain(hookUrl);

      const del = await oodle(["monitors", "delete", "Refund volume"]);
      expect(del.stdout).toBe('deleted monitor "Refund volume"');
      expect((await oodle(["monitors", "get", "Refund volume"])).exitCode).toBe(3);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it("genai_monitors over /mcp: create, history, a refusal as isError naming the field", { timeout: T }, async () => {
    const { key } = await service.workspace("mon-mcp");
    const oodle = cliRunner(service, key);
    expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
    expect((await oodle(["genai", "evaluators", "create", "--name", "Refund mentioned", "--template", "Keyword check", "--params", '{"required": ["refund"]}'])).exitCode).toBe(0);
    const client = new Client({ name: "oodle-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const call = async (args: Record<string, unknown>) => (await client.callTool({ name: "genai_monitors", arguments: args })) as Result;
      const tools = await client.listTools();
      const tool = tools.tools.find((t) => t.name === "genai_monitors")!;
      expect((tool.inputSchema.properties as Record<string, any>).metric.enum).toEqual(["pass_rate", "mean", "percentile", "count", "not_ok_share", "backlog_age"]);
      const created = await call({ action: "create", name: "Helpful drop", evaluator: "Refund mentioned", metric: "pass_rate", scoreName: "keyword_check", windowSeconds: 3600, cadenceSeconds: 300, condition: "drop", baseline: "week_before", minEffect: 0.05 });
      expect(created.isError, JSON.stringify(created)).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ name: "Helpful drop", condition: "drop", baseline: "week_before", minEffect: 0.05, maxPValue: 0.05, minSampleSize: 30, state: "OK" });
      const refused = await call({ action: "create", name: "bad", evaluator: "Refund mentioned", metric: "count", windowSeconds: 3600, cadenceSeconds: 300, condition: "drop", baseline: "previous_window", minEffect: 1 });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error).toMatchObject({ code: "BAD_USER_INPUT", field: "condition" });
      expect(refused.content[0]!.text).toContain("a drop is tested for pass_rate, mean, not_ok_share");
      const unknown = await call({ action: "list", windowSize: 3 });
      expect(unknown.structuredContent.error).toMatchObject({ code: "BAD_USER_INPUT", field: "windowSize" });
      const history = await call({ action: "history", monitor: "Helpful drop" });
      expect(history.structuredContent).toMatchObject({ name: "Helpful drop", evaluations: [], transitions: [] });
      expect(history.content[0]!.text).toContain("watches:      pass_rate of keyword_check over 1h every 5m");
    } finally {
      await client.close();
    }
  });
});
