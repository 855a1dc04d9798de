// Issue 27 through the CLI (a subprocess) and MCP (the SDK's client over HTTP) against the real
// service: rule flags (resource attributes, list attributes, root spans only) and explain's
// per-condition lines; backfill filters by run outcome and score; per-evaluator limits; and an
// experiment with a short wait of its own whose progress line says what it waits for.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { cliRunner, serviceForThisFile } from "./service.js";

const service = serviceForThisFile();
const T = 480_000;
const MiB = 1024 * 1024;

/** Holds 400 MB: memory_limit under the default 256 MiB, ok with 1 GiB. */
const BIG = `def evaluate(ctx):\n    block = bytearray(400 * 1024 * 1024)\n    return EvaluationResult(scores=[Score(name="held_mb", value=len(block) // (1024 * 1024))])\n`;
/** Fails on a question whose number is odd; scores the number otherwise. */
const ODD_FAILS = `def evaluate(ctx):\n    n = int(ctx.input_messages[-1]["content"].split()[-1])\n    if n % 2:\n        raise ValueError("odd")\n    return EvaluationResult(scores=[Score(name="n", value=n)])\n`;
const CHECK = `def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="checked", value=True)])\n`;

function files(entries: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "oodle-i27-"));
  for (const [name, text] of Object.entries(entries)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("issue 27 in the CLI", () => {
  it("rule flags, explain's per-condition lines, limits flags, and backfill filters by outcome and score", { timeout: T }, async () => {
    const { key } = await service.workspace("i27-cli");
    const oodle = cliRunner(service, key);
    const dir = files({
      "big.py": BIG,
      "odd.py": ODD_FAILS,
      "spans.jsonl": [
        { traceId: "t1", spanId: "root", name: "chat", startTime: "2026-11-20T10:00:00Z", input: "question 2", output: "answer", attributes: { "tag.tags": ["vip"] }, resourceAttributes: { "deployment.environment": "production" } },
        { traceId: "t1", spanId: "child", parentSpanId: "root", name: "chat", startTime: "2026-11-20T10:00:01Z", input: "question 3", output: "answer", attributes: { "tag.tags": ["vip"] }, resourceAttributes: { "deployment.environment": "production" } },
        { traceId: "t2", spanId: "root", name: "chat", startTime: "2026-11-20T10:00:02Z", input: "question 5", output: "answer", attributes: { "tag.tags": ["new"] }, resourceAttributes: { "deployment.environment": "staging" } },
        { traceId: "t3", spanId: "root", name: "chat", startTime: "2026-11-20T10:00:03Z", input: "question 4", output: "answer", attributes: { "tag.tags": ["vip"] }, resourceAttributes: { "deployment.environment": "production" } },
      ].map((s) => JSON.stringify(s)).join("\n"),
    });
    expect((await oodle(["genai", "templates", "create", "--name", "Big", "--source", join(dir, "big.py"), "--memory", "1024"])).exitCode).toBe(0);
    expect((await oodle(["genai", "templates", "create", "--name", "Odd", "--source", join(dir, "odd.py")])).exitCode).toBe(0);
    const created = await oodle([
      "--json", "genai", "evaluators", "create", "--name", "Prod VIP roots", "--template", "Odd",
      "--resource-attribute", "deployment.environment=production", "--attribute-contains", "tag.tags=vip", "--root-spans-only", "--cpu-time", "2", "--wall-time", "8",
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ resourceAttributeEquals: { "deployment.environment": "production" }, attributeContains: { "tag.tags": "vip" }, rootSpansOnly: true, limits: { cpuTimeMs: 2000, wallTimeMs: 8000 } });
    // --memory sets one limit and keeps the others; the text shows the rule and the limits.
    const updated = await oodle(["genai", "evaluators", "update", "Prod VIP roots", "--memory", "512"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('rule:             chat root spans, tag.tags contains "vip", resource deployment.environment="production", 100% sampled');
    expect(updated.stdout).toContain("limits:           cpu 2 s, wall 8 s, memory 512 MiB (its own)");
    const tooBig = await oodle(["--json", "genai", "evaluators", "update", "Prod VIP roots", "--memory", "4096"]);
    expect(tooBig.exitCode).toBe(2);
    expect(JSON.parse(tooBig.stderr).error.message).toContain("limits.memoryBytes: must be at most 2147483648 bytes (2048 MiB) (the sandbox's ceiling)");

    expect((await oodle(["spans", "ingest", join(dir, "spans.jsonl")])).exitCode).toBe(0);
    // Only t1/root and t3/root match; t3 (4, even) scores, t1 (2) too: wait for both runs.
    for (let i = 0; i < 240; i++) {
      const listed = JSON.parse((await oodle(["--json", "spans", "list", "--evaluator", "Prod VIP roots"])).stdout);
      if (listed.spans.length === 2) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const explained = await oodle(["genai", "evaluators", "explain", "Prod VIP roots", "t1:child"]);
    expect(explained.exitCode, explained.stderr).toBe(0);
    expect(explained.stdout.split("\n").slice(0, 4)).toEqual([
      "does not match (root): the span has a parent (root); the evaluator runs on root spans only",
      "  ok  enabled: the evaluator is enabled",
      '  ok  kind: the span\'s kind is "chat"',
      "  NO  root: the span has a parent (root); the evaluator runs on root spans only",
    ]);
    expect((await oodle(["genai", "evaluators", "explain", "Prod VIP roots", "t2:root"])).stdout).toContain('  NO  resource deployment.environment: resource attribute "deployment.environment" is "staging"; the evaluator wants "production"');

    // Backfill filters: a second evaluator without a rule over every span, then re-run what failed.
    expect((await oodle(["genai", "evaluators", "create", "--name", "Odd all", "--template", "Odd", "--disable"])).exitCode).toBe(0);
    const first = await oodle(["--json", "backfills", "create", "--evaluator", "Odd all", "--start", "2026-11-20T00:00:00Z", "--end", "2026-11-21T00:00:00Z", "--wait"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const estimate = async (...flags: string[]) => oodle(["--json", "backfills", "create", "--evaluator", "Odd all", "--start", "2026-11-20T00:00:00Z", "--end", "2026-11-21T00:00:00Z", "--dry-run", ...flags]);
    const failed = await estimate("--rerun", "--outcome", "user_error");
    expect(failed.exitCode, failed.stderr).toBe(0);
    expect(JSON.parse(failed.stdout)).toMatchObject({ spans: 2, runs: 2, reruns: 2 }); // questions 3 and 5
    const lowScores = await estimate("--rerun", "--score", "n", "--score-max", "2");
    expect(JSON.parse(lowScores.stdout)).toMatchObject({ spans: 1 });
    const roots = await estimate("--root-spans-only", "--resource-attribute", "deployment.environment=production", "--attribute-contains", "tag.tags=vip", "--rerun");
    expect(JSON.parse(roots.stdout)).toMatchObject({ spans: 2 });
    const noRerun = await estimate("--outcome", "user_error");
    expect(noRerun.exitCode).toBe(2);
    expect(JSON.parse(noRerun.stderr).error).toMatchObject({ code: "BAD_USER_INPUT", field: "--outcome" });

    // try: the template's memory limit; the flag's own over it.
    const onTemplate = await oodle(["--json", "genai", "try", "--template", "Big", "--span", "t1:root"]);
    expect(JSON.parse(onTemplate.stdout).outcome).toBe("ok");
    const tight = await oodle(["--json", "genai", "try", "--template", "Big", "--span", "t1:root", "--memory", "128"]);
    expect(JSON.parse(tight.stdout).outcome).toBe("memory_limit");
  });

  it("experiments run --dependency-wait: the progress line says what it waits for and until when, then it runs without", { timeout: T }, async () => {
    const { key } = await service.workspace("i27-wait");
    const oodle = cliRunner(service, key);
    const dir = files({ "check.py": CHECK, "items.jsonl": ["a", "b"].map((id) => JSON.stringify({ id, input: "q", output: "a" })).join("\n") + "\n" });
    expect((await oodle(["datasets", "import", "two", join(dir, "items.jsonl")])).exitCode).toBe(0);
    expect((await oodle(["genai", "evaluators", "create", "--name", "Human label", "--kind", "external"])).exitCode).toBe(0);
    expect((await oodle(["genai", "templates", "create", "--name", "Check", "--source", join(dir, "check.py")])).exitCode).toBe(0);
    expect((await oodle(["genai", "evaluators", "create", "--name", "Label check", "--template", "Check", "--depends-on", "Human label"])).exitCode).toBe(0);
    const bad = await oodle(["--json", "experiments", "run", "--dataset", "two", "--evaluator", "Label check", "--dependency-wait", "soon"]);
    expect([bad.exitCode, JSON.parse(bad.stderr).error.field]).toEqual([2, "--dependency-wait"]);
    const run = await oodle(["experiments", "run", "--dataset", "two", "--evaluator", "Label check", "--dependency-wait", "20s"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/2 pending \(2 waiting for posted scores of "Human label" until \d{4}-\d\d-\d\dT[\d:.]+Z; then they run without them\)/);
    expect(run.stdout).toMatch(/^experiment "[^"]+" completed: 2 item\(s\), 2 done, 0 failed, 0 skipped, 0 pending$/m);
  });
});

describe("issue 27 in MCP", () => {
  it("creates an evaluator with the new rule parts and limits, estimates a backfill by outcome, tries code with limits", { timeout: T }, async () => {
    const { key } = await service.workspace("i27-mcp");
    const client = new Client({ name: "oodle-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any; content: { text?: string }[] };
      const template = await call("manage_genai_evaluators", { action: "create_template", name: "Big", sourceCode: BIG, limits: { memoryBytes: 1024 * MiB } });
      expect(template.isError, template.content[0]?.text).toBeFalsy();
      const evaluator = await call("manage_genai_evaluators", {
        action: "create_evaluator", name: "Roots", templateName: "Big", rootSpansOnly: true, attributeContains: { "tag.tags": "vip" }, resourceAttributeEquals: { "service.name": "bot" }, limits: { cpuTimeMs: 3000 },
      });
      expect(evaluator.isError, evaluator.content[0]?.text).toBeFalsy();
      expect(evaluator.structuredContent).toMatchObject({ rootSpansOnly: true, attributeContains: { "tag.tags": "vip" }, resourceAttributeEquals: { "service.name": "bot" }, limits: { cpuTimeMs: 3000 }, runLimits: { cpuTimeMs: 3000, memoryBytes: 1024 * MiB } });
      const estimate = await call("genai_backfills", { action: "estimate", evaluator: "Roots", windowStart: "-1d", rerun: true, filter: { outcomes: ["user_error"], scoreName: "held_mb", scoreEvaluatorId: "Roots", scoreMax: 1 } });
      expect(estimate.isError, estimate.content[0]?.text).toBeFalsy();
      expect(estimate.structuredContent).toMatchObject({ spans: 0 });
      const tried = await call("genai_evaluator_workbench", { action: "try_code", sourceCode: BIG, span: { input: "q", output: "a" }, limits: { memoryBytes: 1024 * MiB } });
      expect(tried.structuredContent.outcome).toBe("ok");
      const refused = await call("genai_evaluator_workbench", { action: "try_code", sourceCode: BIG, span: { input: "q", output: "a" }, limits: { memoryBytes: 1 } });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain("limits.memoryBytes");
    } finally {
      await client.close();
    }
  });
});
