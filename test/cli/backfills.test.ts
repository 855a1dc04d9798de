import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseTimeFlag } from "../../src/cli/commands/backfills.js";
import { cliRunner, serviceForThisFile } from "./service.js";

// `oodle backfills list/get/create/cancel` as a subprocess against the real service (API + worker,
// Postgres, Redis, sandbox) on a spare port, as test/cli/cli.test.ts does.
const service = serviceForThisFile();

const T = 480_000;

describe("oodle backfills", () => {
  it("create --dry-run / create --wait / list / get / cancel, and exit codes for bad input and a finished backfill", { timeout: T }, async () => {
    const { key } = await service.workspace("cli-bf");
    const oodle = cliRunner(service, key);
    const dir = mkdtempSync(join(tmpdir(), "oodle-bf-"));
    // 40 chat spans of the last hour; every other reply mentions a refund. Stored before the evaluator exists: nothing runs live.
    const now = Date.now();
    const spans = Array.from({ length: 40 }, (_, i) => ({
      traceId: `t${i}`,
      spanId: "s1",
      name: "chat",
      startTime: new Date(now - (i + 1) * 60_000).toISOString(),
      input: [{ role: "user", content: "My order arrived broken" }],
      output: i % 2 === 0 ? "Sorry! We will send a refund today." : "Sorry to hear that.",
    }));
    writeFileSync(join(dir, "spans.jsonl"), spans.map((s) => JSON.stringify(s)).join("\n"));
    const ingested = await oodle(["--json", "spans", "ingest", join(dir, "spans.jsonl")]);
    expect(ingested.exitCode, ingested.stderr).toBe(0);
    expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
    const created = await oodle(["genai", "evaluators", "create", "--name", "Refund mentioned", "--template", "Keyword check", "--params", '{"required": ["refund"]}']);
    expect(created.exitCode, created.stderr).toBe(0);

    const dry = await oodle(["--json", "backfills", "create", "--evaluator", "Refund mentioned", "--start", "-1d", "--dry-run"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ spans: 40, runs: 40, reruns: 0, evaluators: [{ name: "Refund mentioned", spansMatched: 40, alreadyEvaluated: 0, toRun: 40 }] });

    const run = await oodle(["backfills", "create", "--evaluator", "Refund mentioned", "--start", "-1d", "--name", "last day", "--wait"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/completed: 40\/40 spans \(100\.0%\), 40 runs/);
    expect(run.stdout).toMatch(/^status:\s+completed$/m);
    expect(run.stdout).toMatch(/^EVALUATOR\s+SCORE\s+TYPE\s+COUNT\s+MEAN\s+PASS RATE$/m);
    expect(run.stdout).toMatch(/^Refund mentioned\s+\S+\s+BOOLEAN\s+40\s+0\.500\s+50\.0%$/m);

    const list = await oodle(["--json", "backfills", "list"]);
    expect(list.exitCode, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout);
    expect(listed).toMatchObject({ active: 0, maxConcurrent: 2, backfills: [{ name: "last day", status: "completed", spanCount: 40 }] });
    const id = listed.backfills[0].id;
    const table = await oodle(["backfills", "list"]);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+STATUS\s+START\s+END\s+EVALUATORS\s+SPANS\s+RUNS\s+CREATED$/m);
    expect(table.stderr).toContain("0 of at most 2 backfills active");

    const get = await oodle(["--json", "backfills", "get", id]);
    expect(get.exitCode, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout)).toMatchObject({ status: "completed", runsByOutcome: [{ evaluatorName: "Refund mentioned", outcome: "ok", count: 40 }], summary: [{ count: 40, passed: 20, passRate: 0.5 }] });

    // Again without --rerun: nothing to do; a finished backfill cannot be cancelled (exit 4).
    expect(JSON.parse((await oodle(["--json", "backfills", "create", "--evaluator", "Refund mentioned", "--start", "-1d", "--dry-run"])).stdout)).toMatchObject({ spans: 40, runs: 0 });
    const refused = await oodle(["--json", "backfills", "cancel", id]);
    expect(refused.exitCode).toBe(4);
    expect(JSON.parse(refused.stderr).error.code).toBe("CONFLICT");

    // Bad input names the flag (exit 2), before anything is sent or from the server.
    const badStart = await oodle(["--json", "backfills", "create", "--evaluator", "Refund mentioned", "--start", "yesterday"]);
    expect(badStart.exitCode).toBe(2);
    expect(JSON.parse(badStart.stderr).error.field).toBe("--start");
    const tooLong = await oodle(["--json", "backfills", "create", "--evaluator", "Refund mentioned", "--start", "-91d"]);
    expect(tooLong.exitCode).toBe(2);
    expect(JSON.parse(tooLong.stderr).error.issues).toEqual([{ path: "windowStart", message: expect.stringMatching(/^the window must be at most 90 days; --start "-91d" was read as \S+Z \(relative\)$/) }]);

    // A slow evaluator (2 s a span, one span per batch: over a minute of work), cancelled right after it is queued.
    writeFileSync(join(dir, "slow.py"), 'import time\n\ndef evaluate(ctx):\n    time.sleep(2)\n    return EvaluationResult(scores=[Score(name="done", value=True)])\n');
    writeFileSync(join(dir, "slow.json"), JSON.stringify({ name: "Slow", sourceFile: "slow.py" }));
    expect((await oodle(["genai", "templates", "create", "--file", join(dir, "slow.json")])).exitCode).toBe(0);
    expect((await oodle(["genai", "evaluators", "create", "--name", "Slow", "--template", "Slow"])).exitCode).toBe(0);
    const queued = await oodle(["--json", "genai", "backfills", "create", "--evaluator", "Slow", "--start", "-1d", "--batch-size", "1"]);
    expect(queued.exitCode, queued.stderr).toBe(0);
    const slow = JSON.parse(queued.stdout);
    expect(slow).toMatchObject({ spanCount: 40, status: "queued" });
    const cancelled = await oodle(["--json", "backfills", "cancel", slow.id]);
    expect(cancelled.exitCode, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: "cancelled" });
    const after = JSON.parse((await oodle(["--json", "backfills", "get", slow.id])).stdout);
    expect(after.status).toBe("cancelled");
    expect(after.progress.runsRecorded).toBeLessThan(40);
  });
});

describe("time flags", () => {
  it("reads now, relative times, epoch microseconds and ISO 8601; anything else names the flag", () => {
    const now = Date.parse("2026-12-01T12:00:00Z");
    expect(parseTimeFlag("now", "--end", now)).toBe("2026-12-01T12:00:00.000Z");
    expect(parseTimeFlag("-7d", "--start", now)).toBe("2026-11-24T12:00:00.000Z");
    expect(parseTimeFlag("-12h", "--start", now)).toBe("2026-12-01T00:00:00.000Z");
    expect(parseTimeFlag("-90s", "--start", now)).toBe("2026-12-01T11:58:30.000Z");
    expect(parseTimeFlag("1788220800000000", "--start", now)).toBe("2026-09-01T00:00:00.000Z");
    expect(parseTimeFlag("2026-11-30T08:00:00+01:00", "--start", now)).toBe("2026-11-30T07:00:00.000Z");
    expect(() => parseTimeFlag("yesterday", "--start", now)).toThrow(/a relative time \(-7d/);
  });
});
