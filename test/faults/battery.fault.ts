import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { migrate } from "../../scripts/lib/migrations.js";
import type { Principal } from "../../src/lib/principal.js";
import { graphqlClient } from "../helpers.js";
import { OwnPostgres, OwnRedis, sparePort } from "./infra.js";

// The fault battery: live ingest and an experiment while the worker is killed (-9), Redis is
// restarted without persistence, or Postgres is stopped for 20 s. After each, every owed
// evaluation has exactly one run, every span is stored or its ingest got an error, and the
// experiment completes without a manual retry. The figures are printed (and asserted).

const ROOT = join(import.meta.dirname, "../..");
const SPANS = Number(process.env.FAULT_SPANS ?? 300);
const ITEMS = Number(process.env.FAULT_ITEMS ?? 300);
const OUTAGE_MS = Number(process.env.FAULT_OUTAGE_MS ?? 20_000);
const BATCH = 25;

const EVALUATORS = ["length", "has_digit", "words"].map((name, i) => ({
  name,
  source: `def evaluate(ctx):\n    text = str(ctx.output or "")\n    return EvaluationResult(scores=[Score(name="${name}", value=${["len(text)", "any(c.isdigit() for c in text)", "len(text.split())"][i]})])\n`,
}));

let pg: OwnPostgres;
let redis: OwnRedis;
let env: Record<string, string>;
let app: App;
let worker: ResultPromise | undefined;
const figures: Record<string, unknown>[] = [];

async function startWorker(): Promise<void> {
  const child = execa(process.execPath, ["--import", "tsx", join(import.meta.dirname, "worker-child.ts")], { cwd: ROOT, env, reject: false, buffer: false, stderr: "ignore" });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    void child.then((r) => reject(new Error(`worker exited early (${r.exitCode})`)));
  });
  worker = child;
}

async function killWorker(): Promise<void> {
  const child = worker;
  worker = undefined;
  child?.kill("SIGKILL");
  await child;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function workspace(label: string) {
  const ws = await app.services.workspaces.createWorkspace(`${label}-${randomUUID().slice(0, 6)}`);
  const principal: Principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
  for (const e of EVALUATORS) {
    const { template } = await app.services.templates.createTemplate(principal, { name: `${e.name} template`, sourceCode: e.source });
    await app.services.evaluators.createEvaluator(principal, { name: e.name, templateId: template.id });
  }
  return { principal, secret: ws.secret };
}

/** Polls until `check` is truthy, ignoring errors (a dependency may be down), or fails after `ms`. */
async function until<T>(check: () => Promise<T>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}`);
}

/**
 * Ingests SPANS spans in batches through GraphQL, running `fault` once a third are sent. A batch
 * that gets an error is sent again until it succeeds (what a client does with a retryable
 * error); it is counted as an error answer.
 */
async function ingestThrough(secret: string, fault: () => Promise<void>) {
  const client = graphqlClient(app);
  let errors = 0;
  let faultDone: Promise<void> | undefined;
  const accepted = new Set<string>();
  for (let start = 0; start < SPANS; start += BATCH) {
    if (!faultDone && start >= SPANS / 3) faultDone = fault();
    const spans = Array.from({ length: Math.min(BATCH, SPANS - start) }, (_, i) => ({
      traceId: `t${start + i}`, spanId: `s${start + i}`, name: "chat", input: [{ role: "user", content: `question ${start + i}` }], output: `answer ${start + i} has ${i} words`,
    }));
    for (;;) {
      const result = await client
        .request("mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { evaluationsQueued spans { spanId } rejected { index } } }", { input: { spans } }, secret)
        .catch((error: unknown) => ({ errors: [{ message: String(error), extensions: {} }], data: undefined, status: 0 }));
      if (!result.errors && result.data) {
        for (const s of (result.data as { ingestSpans: { spans: { spanId: string }[] } }).ingestSpans.spans) accepted.add(s.spanId);
        break;
      }
      errors += 1;
      // A retryable answer, never a masked one.
      expect((result.errors?.[0]?.extensions as { code?: string } | undefined)?.code, JSON.stringify(result.errors)).toBe("SERVICE_UNAVAILABLE");
      await sleep(500);
    }
    await sleep(20);
  }
  await faultDone;
  return { accepted, errors };
}

/** Counts of a workspace's live evaluations once they settle. */
async function liveFigures(principal: Principal, accepted: Set<string>, fault: string, errors: number) {
  const owed = accepted.size * EVALUATORS.length;
  const runsOf = () => app.prisma.run.count({ where: { workspaceId: principal.workspaceId, spanId: { not: null } } });
  await until(async () => (await runsOf()) >= owed, 300_000, `${owed} runs (${fault})`).catch(() => undefined);
  const stored = await app.prisma.span.count({ where: { workspaceId: principal.workspaceId } });
  const runs = await runsOf();
  const duplicates = await app.prisma.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM (SELECT 1 FROM "Run" WHERE "workspaceId" = ${principal.workspaceId}::uuid AND "spanId" IS NOT NULL GROUP BY "spanId", "evaluatorId" HAVING count(*) > 1) d`;
  const missing = await app.prisma.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM "Span" s CROSS JOIN "Evaluator" e
    WHERE s."workspaceId" = ${principal.workspaceId}::uuid AND e."workspaceId" = s."workspaceId"
      AND NOT EXISTS (SELECT 1 FROM "Run" r WHERE r."spanId" = s.id AND r."evaluatorId" = e.id)`;
  const row = { path: "live", fault, spansSent: SPANS, spansStored: stored, ingestErrors: errors, owed, runs, duplicates: Number(duplicates[0]!.n), missing: Number(missing[0]!.n) };
  figures.push(row);
  console.log(JSON.stringify(row));
  expect(stored).toBe(SPANS); // every batch was eventually accepted (clients retried the errors)
  expect(accepted.size).toBe(SPANS);
  expect(row.duplicates).toBe(0);
  expect(row.missing).toBe(0);
  expect(runs).toBe(owed);
}

/** An experiment over ITEMS items with the three evaluators, `fault` once a fifth of its runs are in. */
async function experimentThrough(label: string, fault: () => Promise<void>) {
  const { principal } = await workspace(label);
  const lines = Array.from({ length: ITEMS }, (_, i) => JSON.stringify({ id: `i${i}`, input: `question ${i}`, output: `answer ${i}` })).join("\n");
  const report = await app.services.datasets.importItems(principal, { name: "faults", mode: "abort" }, Readable.from([lines]));
  const evaluators = await app.prisma.evaluator.findMany({ where: { workspaceId: principal.workspaceId } });
  const experiment = await app.services.experiments.createExperiment(principal, { datasetId: report.datasetId, evaluatorIds: evaluators.map((e) => e.id), batchSize: 50 });
  const owed = ITEMS * evaluators.length;
  await until(async () => (await app.prisma.run.count({ where: { experimentId: experiment.id } })) >= owed / 5, 120_000, "a fifth of the runs");
  await fault();
  const finished = await until(async () => {
    const e = await app.prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
    return e.status === "completed" ? e : null;
  }, 300_000, `experiment completed (${label})`).catch(() => null);
  const runs = await app.prisma.run.count({ where: { experimentId: experiment.id } });
  const duplicates = await app.prisma.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM (SELECT 1 FROM "Run" WHERE "experimentId" = ${experiment.id}::uuid GROUP BY "datasetItemId", "evaluatorId" HAVING count(*) > 1) d`;
  const okRuns = await app.prisma.run.count({ where: { experimentId: experiment.id, outcome: "ok" } });
  const row = { path: "experiment", fault: label, owed, runs, duplicates: Number(duplicates[0]!.n), missing: owed - runs, notOk: runs - okRuns, status: finished?.status ?? "not completed" };
  figures.push(row);
  console.log(JSON.stringify(row));
  expect(row.status).toBe("completed");
  expect(row.duplicates).toBe(0);
  expect(row.missing).toBe(0);
  expect(row.notOk).toBe(0);
}

const GROUP_TRACES = Number(process.env.FAULT_TRACES ?? 60);
const GROUP_SOURCE = `def evaluate(ctx):\n    spans = ctx.session.traces if ctx.session else [ctx.trace]\n    return EvaluationResult(scores=[Score(name="spans", value=sum(len(t.spans) for t in spans))])\n`;

/**
 * Trace and session evaluators through a fault: GROUP_TRACES traces of 3 spans each (one span per
 * round of ingest, so every trace's quiet period restarts twice and some late spans arrive after
 * a run), across 10 sessions, with a trace and a session evaluator whose quiet period is 1 s; the
 * fault runs after the first round. Once the schedules settle, every group has exactly one current
 * run, which saw all of its spans, and no generation was written twice (its history holds fewer
 * runs than its generations).
 */
async function groupsThrough(label: string, fault: () => Promise<void>) {
  const ws = await app.services.workspaces.createWorkspace(`groups-${randomUUID().slice(0, 6)}`);
  const principal: Principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
  const { template } = await app.services.templates.createTemplate(principal, { name: "group size", sourceCode: GROUP_SOURCE });
  for (const target of ["trace", "session"] as const) {
    const e = await app.services.evaluators.createEvaluator(principal, { name: `${target} size`, templateId: template.id, spanKind: "chat" });
    await app.prisma.evaluator.update({ where: { id: e.id }, data: { target, groupSettings: { quietPeriodMs: 1_000, maxWaitMs: 60_000 } } });
  }
  const client = graphqlClient(app);
  let errors = 0;
  let faultDone: Promise<void> | undefined;
  for (let round = 0; round < 3; round++) {
    if (round === 1) faultDone = fault();
    for (let start = 0; start < GROUP_TRACES; start += BATCH) {
      const spans = Array.from({ length: Math.min(BATCH, GROUP_TRACES - start) }, (_, i) => ({
        traceId: `g${start + i}`, spanId: `r${round}`, ...(round ? { parentSpanId: "r0" } : {}), name: "chat", attributes: { "session.id": `session-${(start + i) % 10}` },
        input: [{ role: "user", content: `question ${round}` }], output: `answer ${round}`,
      }));
      for (;;) {
        const result = await client
          .request("mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { spans { spanId } } }", { input: { spans } }, ws.secret)
          .catch((error: unknown) => ({ errors: [{ message: String(error), extensions: {} }], data: undefined, status: 0 }));
        if (!result.errors && result.data) break;
        errors += 1;
        expect((result.errors?.[0]?.extensions as { code?: string } | undefined)?.code, JSON.stringify(result.errors)).toBe("SERVICE_UNAVAILABLE");
        await sleep(500);
      }
    }
    await sleep(1_500);
  }
  await faultDone;
  const groups = GROUP_TRACES + 10;
  const settled = () => app.prisma.groupSchedule.count({ where: { workspaceId: principal.workspaceId, dueAt: null, ranGeneration: { not: null } } });
  await until(async () => (await settled()) >= groups, 300_000, `${groups} groups settled (${label})`).catch(() => undefined);
  const rows = await app.prisma.$queryRaw<{ targetType: string; groupKey: string; generation: number; ranGeneration: number | null; runs: bigint; history: bigint; seen: number | null }[]>`
    SELECT gs."targetType", gs."groupKey", gs.generation, gs."ranGeneration",
      (SELECT count(*) FROM "Run" r WHERE r."evaluatorId" = gs."evaluatorId" AND (r."traceId" = gs."groupKey" AND gs."targetType" = 'trace' OR r."sessionId" = gs."groupKey" AND gs."targetType" = 'session')) AS runs,
      (SELECT count(*) FROM "RunHistory" h WHERE h."evaluatorId" = gs."evaluatorId" AND (h."traceId" = gs."groupKey" AND gs."targetType" = 'trace' OR h."sessionId" = gs."groupKey" AND gs."targetType" = 'session')) AS history,
      (SELECT r."groupSpanCount" FROM "Run" r WHERE r."evaluatorId" = gs."evaluatorId" AND (r."traceId" = gs."groupKey" AND gs."targetType" = 'trace' OR r."sessionId" = gs."groupKey" AND gs."targetType" = 'session')) AS seen
    FROM "GroupSchedule" gs WHERE gs."workspaceId" = ${principal.workspaceId}::uuid`;
  const expectedSpans = (row: { targetType: string; groupKey: string }) => (row.targetType === "trace" ? 3 : 3 * Array.from({ length: GROUP_TRACES }, (_, i) => i % 10).filter((k) => `session-${k}` === row.groupKey).length);
  const row = {
    path: "groups", fault: label, groups, schedules: rows.length, ingestErrors: errors,
    missing: groups - rows.filter((r) => Number(r.runs) === 1).length,
    duplicates: rows.filter((r) => Number(r.runs) > 1 || Number(r.history) > r.generation - 1).length,
    unsettled: rows.filter((r) => r.ranGeneration !== r.generation).length,
    partial: rows.filter((r) => r.seen !== expectedSpans(r)).length,
  };
  figures.push(row);
  console.log(JSON.stringify(row));
  expect(row.schedules).toBe(groups);
  expect(row.missing).toBe(0);
  expect(row.duplicates).toBe(0);
  expect(row.unsettled).toBe(0);
  expect(row.partial).toBe(0);
}

const faults = {
  "worker kill -9": async () => {
    await killWorker();
    await sleep(2_000);
    await startWorker();
  },
  "Redis restarted without persistence": async () => {
    await redis.kill();
    await sleep(2_000);
    await redis.start();
  },
  [`Postgres stopped ${OUTAGE_MS / 1000} s`]: async () => {
    pg.stop("immediate");
    await sleep(OUTAGE_MS);
    pg.start();
  },
};

describe("fault battery", () => {
  beforeAll(async () => {
    pg = new OwnPostgres(await sparePort());
    pg.start();
    redis = new OwnRedis(await sparePort());
    await redis.start();
    await migrate(pg.url, "deploy");
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: "faults",
      LOG_LEVEL: process.env.FAULT_LOG_LEVEL ?? "silent",
      RECONCILE_INTERVAL_MS: "2000",
      GROUP_POLL_INTERVAL_MS: "250",
      GROUP_REQUEUE_AFTER_MS: "5000",
      RECONCILE_GRACE_MS: "5000",
      RATE_LIMIT_INGEST_PER_MINUTE: "0",
      RATE_LIMIT_TRY_CODE_PER_MINUTE: "0",
      RATE_LIMIT_MUTATIONS_PER_MINUTE: "0",
      RATE_LIMIT_READS_PER_MINUTE: "0",
    };
    app = createApp(loadConfig(env));
    await startWorker();
  });

  afterAll(async () => {
    console.log("fault figures:\n" + figures.map((f) => JSON.stringify(f)).join("\n"));
    await killWorker().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await redis?.destroy();
    pg?.destroy();
  });

  for (const [name, fault] of Object.entries(faults)) {
    it(`live ingest: ${name}`, async () => {
      const { principal, secret } = await workspace(`live-${name.split(" ")[0]}`);
      const { accepted, errors } = await ingestThrough(secret, fault);
      await liveFigures(principal, accepted, name, errors);
    });
    it(`experiment: ${name}`, async () => {
      await experimentThrough(name, fault);
    });
    it(`trace and session evaluators: ${name}`, async () => {
      await groupsThrough(name, fault);
    });
  }
});
