// Trace and session evaluators through the CLI (a subprocess) and MCP (the SDK's client over
// HTTP) against the real service: --target and the group-setting flags (durations as monitors'
// --window), `evaluators get` with the settings that apply, refusals naming the flag, and
// `oodle traces evaluations` / `oodle sessions evaluations` / get_group_evaluations over schedule
// and run rows written directly (their writers are the ingest side and the group processor).
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { cliRunner, serviceForThisFile } from "./service.js";

const service = serviceForThisFile();
const T = 300_000;

/** Times far ahead, so that no due time has passed whatever the clock says. */
const at = (hms: string) => new Date(`2099-01-01T${hms}.000Z`);

/** Writes a trace's schedules and runs for the workspace's evaluators named here. */
async function writeTraceRows(workspaceName: string, traceId: string) {
  const prisma = service.app.prisma;
  const workspace = await prisma.workspace.findFirstOrThrow({ where: { name: workspaceName } });
  const id = async (name: string) => (await prisma.evaluator.findFirstOrThrow({ where: { workspaceId: workspace.id, name } })).id;
  const [judge, waiting, conversation] = [await id("Agent trace"), await id("Slow trace"), await id("Conversation")];
  await prisma.groupSchedule.create({
    data: { workspaceId: workspace.id, evaluatorId: judge, targetType: "trace", groupKey: traceId, traceIds: [traceId], firstSpanAt: at("10:00:00"), lastSpanAt: at("10:00:04"), spanCount: 5, quietPeriodMs: 90_000, maxWaitMs: 7_200_000, dueAt: null, generation: 2, queuedGeneration: 2, queuedAt: at("10:01:05"), ranGeneration: 2, ranAt: at("10:01:06") },
  });
  await prisma.run.create({
    data: { workspaceId: workspace.id, evaluatorId: judge, traceId, outcome: "ok", completion: "quiet_period", groupSpanCount: 5, finishedAt: at("10:01:06"), scores: { create: [{ workspaceId: workspace.id, evaluatorId: judge, name: "matched", dataType: "BOOLEAN", value: true, numericValue: 1, position: 0 }] } },
  });
  await prisma.runHistory.create({ data: { id: randomUUID(), workspaceId: workspace.id, evaluatorId: judge, traceId, outcome: "ok", completion: "max_wait", groupSpanCount: 2, createdAt: at("09:50:00"), supersededAt: at("10:01:06"), reason: "group_changed" } });
  await prisma.groupSchedule.create({ data: { workspaceId: workspace.id, evaluatorId: waiting, targetType: "trace", groupKey: traceId, traceIds: [traceId], firstSpanAt: at("10:00:00"), lastSpanAt: at("10:00:04"), spanCount: 5, quietPeriodMs: 300_000, maxWaitMs: 3_600_000, dueAt: at("10:05:04") } });
  await prisma.groupSchedule.create({
    data: { workspaceId: workspace.id, evaluatorId: conversation, targetType: "session", groupKey: "conv-42", traceIds: [traceId], firstSpanAt: at("10:00:00"), lastSpanAt: at("10:00:00"), spanCount: 2, quietPeriodMs: 900_000, maxWaitMs: 14_400_000, markerAt: at("10:00:00"), dueAt: at("10:00:00"), queuedGeneration: 1, queuedAt: at("10:00:01") },
  });
}

describe("trace and session evaluators in the CLI", () => {
  it("create/update with --target and group-setting flags, get shows what applies, refusals name the flag, traces/sessions evaluations", { timeout: T }, async () => {
    const ws = await service.workspace("cli-groups");
    const oodle = cliRunner(service, ws.key);
    expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);

    const created = await oodle(["--json", "genai", "evaluators", "create", "--name", "Agent trace", "--template", "Keyword check", "--target", "trace", "--span-kind", "agent", "--quiet-period", "1m", "--max-wait", "2h", "--end-on-root-span", "--max-spans", "200"]);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      target: "trace",
      askedGroupSettings: { quietPeriodMs: 60_000, maxWaitMs: 7_200_000, endOnRootSpan: true, maxSpans: 200 },
      groupSettings: { quietPeriodMs: 60_000, maxWaitMs: 7_200_000, endMarkerAttribute: "oodle.trace.end", endOnRootSpan: true, sessionKeyAttributes: null, maxSpans: 200, maxTurns: null, maxDocumentBytes: 1_048_576 },
    });
    // Update keeps the settings not given (like --params and the limit flags).
    const updated = await oodle(["--json", "genai", "evaluators", "update", "Agent trace", "--quiet-period", "90"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout).askedGroupSettings).toEqual({ quietPeriodMs: 90_000, maxWaitMs: 7_200_000, endOnRootSpan: true, maxSpans: 200 });

    const get = await oodle(["genai", "evaluators", "get", "Agent trace"]);
    expect(get.exitCode).toBe(0);
    expect(get.stdout).toMatch(/target:\s+trace \(the whole trace, once done; taken when any of its spans matches the rule\)/);
    expect(get.stdout).toMatch(/done when:\s+a span with oodle\.trace\.end = true or the root span's arrival, else 90 s without a new span, else 2 h after the first span \(runs on what arrived\)/);
    expect(get.stdout).toMatch(/caps:\s+200 spans, 1048576 bytes/);
    expect(get.stdout).toMatch(/rule:\s+traces with any agent span, 100% sampled/);

    const session = await oodle(["genai", "evaluators", "create", "--name", "Conversation", "--template", "Keyword check", "--target", "session", "--session-key", "app.conversation", "--max-turns", "50"]);
    expect(session.exitCode, session.stderr).toBe(0);
    expect(session.stdout).toMatch(/done when:\s+a span with oodle\.session\.end = true, else 15 min without a new span, else 4 h after the first span/);
    expect(session.stdout).toMatch(/session key:\s+app\.conversation/);
    expect(session.stdout).toMatch(/caps:\s+500 spans, 50 turns, 1048576 bytes/);
    const perSpan = await oodle(["genai", "evaluators", "get", "Conversation", "--json"]);
    expect(JSON.parse(perSpan.stdout).groupSettings.sessionKeyAttributes).toEqual(["app.conversation"]);

    // Refusals name the flag.
    const short = await oodle(["--json", "genai", "evaluators", "create", "--name", "Too quiet", "--template", "Keyword check", "--target", "trace", "--quiet-period", "2h"]);
    expect(short.exitCode).toBe(2);
    expect(JSON.parse(short.stderr).error).toMatchObject({ code: "BAD_USER_INPUT", field: "--quiet-period", issues: [{ path: "--quiet-period", apiPath: "groupSettings.quietPeriodMs", message: "quietPeriodMs of a trace evaluator must be between 1000 (1 s) and 3600000 (1 h); got 7200000" }] });
    const rootOnSession = await oodle(["--json", "genai", "evaluators", "update", "Conversation", "--end-on-root-span"]);
    expect(JSON.parse(rootOnSession.stderr).error).toMatchObject({ field: "--end-on-root-span" });
    const badDuration = await oodle(["--json", "genai", "evaluators", "create", "--name", "X", "--template", "Keyword check", "--target", "trace", "--max-wait", "soon"]);
    expect(badDuration.exitCode).toBe(2);
    expect(JSON.parse(badDuration.stderr).error).toMatchObject({ field: "--max-wait" });
    const moved = await oodle(["--json", "genai", "evaluators", "update", "Agent trace", "--target", "session"]);
    expect(JSON.parse(moved.stderr).error).toMatchObject({ field: "--target", message: expect.stringContaining("create a new evaluator") });
    const external = await oodle(["--json", "genai", "evaluators", "create", "--name", "Judge", "--kind", "external", "--target", "trace"]);
    expect(JSON.parse(external.stderr).error.message).toContain("external evaluators have their scores posted on spans");

    // traces / sessions evaluations, table and --json.
    expect((await oodle(["genai", "evaluators", "create", "--name", "Slow trace", "--template", "Keyword check", "--target", "trace", "--quiet-period", "5m", "--max-wait", "1h"])).exitCode).toBe(0);
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    await writeTraceRows(ws.name, traceId);
    const table = await oodle(["traces", "evaluations", traceId]);
    expect(table.exitCode, table.stderr).toBe(0);
    const lines = table.stdout.split("\n");
    expect(lines[0]).toMatch(/^EVALUATOR\s+STATE\s+SPANS ARRIVED\s+DUE\s+RUN\s+REPLACED$/);
    expect(lines[1]).toMatch(/^Agent trace\s+ran\s+5\s+-\s+ok: matched=true\s+1$/);
    expect(lines[2]).toMatch(/^Slow trace\s+waiting\s+5\s+2099-01-01T10:05:04\.000Z\s+-\s+0$/);
    expect(lines).toContain("Agent trace: ran at 2099-01-01T10:01:06.000Z (quiet period, 5 spans)");
    expect(lines).toContain("Slow trace: waiting: quiet until 2099-01-01T10:05:04.000Z (5 min after the latest span)");
    const json = await oodle(["--json", "traces", "evaluations", traceId]);
    const list = JSON.parse(json.stdout);
    expect(list[0]).toMatchObject({ evaluator: { name: "Agent trace", target: "trace" }, state: "ran", run: { completion: "quiet_period", groupSpanCount: 5 }, history: [{ reason: "group_changed", completion: "max_wait", groupSpanCount: 2 }] });
    const sessions = await oodle(["sessions", "evaluations", "conv-42"]);
    expect(sessions.stdout).toContain("Conversation: end marker arrived at 2099-01-01T10:00:00.000Z; queued at 2099-01-01T10:00:01.000Z");
    const none = await oodle(["traces", "evaluations", "no-such-trace"]);
    expect(none.stdout.trim()).toBe('no trace evaluator has a schedule for trace "no-such-trace" (none of its spans matched a trace evaluator\'s rule, or no span of it arrived)');
    const help = await oodle(["genai", "evaluators", "create", "--help"]);
    expect(help.stdout).toContain("--quiet-period <duration>");
    expect(help.stdout).toContain("--target session --quiet-period 15m");

    // MCP: create_evaluator with target and groupSettings, get_group_evaluations by trace and by session.
    const client = new Client({ name: "oodle-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${ws.key}` } } }));
    try {
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any; content: { text?: string }[] };
      const made = await call("manage_genai_evaluators", { action: "create_evaluator", name: "MCP session", templateName: "Keyword check", target: "session", groupSettings: { quietPeriodMs: 300_000 } });
      expect(made.isError, made.content[0]?.text).toBeFalsy();
      expect(made.structuredContent).toMatchObject({ target: "session", groupSettings: { quietPeriodMs: 300_000, maxWaitMs: 14_400_000 } });
      const refused = await call("manage_genai_evaluators", { action: "update_evaluator", name: "MCP session", groupSettings: { endOnRootSpan: true } });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error).toMatchObject({ code: "BAD_USER_INPUT", field: "groupSettings.endOnRootSpan" });
      const got = await call("manage_genai_evaluators", { action: "get_evaluator", name: "MCP session" });
      expect(got.content[0]!.text).toContain("target session, done when: a span with oodle.session.end = true, else 5 min without a new span");
      const byTrace = await call("genai_evaluator_workbench", { action: "get_group_evaluations", traceId });
      expect(byTrace.isError, byTrace.content[0]?.text).toBeFalsy();
      expect(byTrace.structuredContent.items.map((g: any) => [g.evaluator.name, g.state])).toEqual([["Agent trace", "ran"], ["Slow trace", "waiting"]]);
      expect(byTrace.content[0]!.text).toContain("Agent trace: ran at 2099-01-01T10:01:06.000Z (quiet period, 5 spans)");
      const bySession = await call("genai_evaluator_workbench", { action: "get_group_evaluations", sessionId: "conv-42" });
      expect(bySession.structuredContent.items).toMatchObject([{ evaluator: { name: "Conversation" }, state: "queued", targetType: "session" }]);
      const neither = await call("genai_evaluator_workbench", { action: "get_group_evaluations" });
      expect(neither.isError).toBe(true);
      expect(neither.structuredContent.error.field).toBe("traceId");
    } finally {
      await client.close();
    }
  });

  it("genai try --trace and --session run code on a stored trace or session; more than one sample is refused", { timeout: T }, async () => {
    const ws = await service.workspace("cli-groups-try");
    const oodle = cliRunner(service, ws.key);
    const workspace = await service.app.prisma.workspace.findFirstOrThrow({ where: { name: ws.name } });
    const principal = { workspaceId: workspace.id, apiKeyId: randomUUID() };
    await service.app.services.spans.ingestSpans(principal, [
      { traceId: "cli-t1", spanId: "a", name: "agent", kind: "agent", attributes: { "session.id": "cli-s" }, input: "hi", output: "hello" },
      { traceId: "cli-t1", spanId: "b", parentSpanId: "a", name: "lookup", kind: "tool" },
      { traceId: "cli-t2", spanId: "c", name: "agent", kind: "agent", attributes: { "session.id": "cli-s" }, input: "and?", output: "done" },
    ]);
    const dir = mkdtempSync(join(tmpdir(), "oodle-try-groups-"));
    const file = join(dir, "size.py");
    writeFileSync(file, 'from oodle_eval.v1 import text\n\ndef evaluate(ctx):\n    n = len(ctx.session.traces) if ctx.session else len(ctx.trace.spans)\n    return EvaluationResult(scores=[Score(name="n", value=n), Score(name="turns", value=len(text.turns(ctx)))])\n');
    const trace = await oodle(["--json", "genai", "try", file, "--trace", "cli-t1"]);
    expect(trace.exitCode, trace.stderr).toBe(0);
    expect(JSON.parse(trace.stdout).scores.map((s: { name: string; value: unknown }) => [s.name, s.value])).toEqual([["n", 2], ["turns", 2]]);
    const session = await oodle(["--json", "genai", "try", file, "--session", "cli-s"]);
    expect(session.exitCode, session.stderr).toBe(0);
    expect(JSON.parse(session.stdout).scores.map((s: { name: string; value: unknown }) => [s.name, s.value])).toEqual([["n", 2], ["turns", 4]]);
    const both = await oodle(["--json", "genai", "try", file, "--trace", "cli-t1", "--session", "cli-s"]);
    expect(both.exitCode).toBe(2);
    expect(JSON.parse(both.stderr).error).toMatchObject({ code: "BAD_USER_INPUT", field: "--session", message: "give one sample: --trace or --session, not both" });
    const missing = await oodle(["--json", "genai", "try", file, "--trace", "no-such-trace"]);
    expect(JSON.parse(missing.stderr).error.code).toBe("NOT_FOUND");
  });
});
