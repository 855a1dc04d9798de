import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import type { Principal } from "../../src/lib/principal.js";
import { redisConcurrencyGate } from "../../src/modules/try-code/concurrency.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { TEST_DATABASE_URL } from "../env.js";
import { graphqlClient } from "../helpers.js";
import { HealingCluster } from "../../src/lib/healing-cluster.js";
import { OwnRedisCluster } from "./own-cluster.js";

// `npm run test:cluster`: the service on a real Redis Cluster (three masters, three replicas, on
// spare loopback ports). Live spans go in through GraphQL and an experiment runs; midway the
// master that holds the queues' hash slot is SIGKILLed, its replica takes over, and afterwards
// every owed evaluation has exactly one run and the experiment completes. What the killed master
// had not yet replicated is queued again from Postgres by the reconciler.

const SPANS = Number(process.env.CLUSTER_SPANS ?? 300);
const ITEMS = Number(process.env.CLUSTER_ITEMS ?? 600);
const BATCH = 25;
const EVALUATORS = ["length", "has_digit"].map((name, i) => ({
  name,
  source: `def evaluate(ctx):\n    text = str(ctx.output or "")\n    return EvaluationResult(scores=[Score(name="${name}", value=${["len(text)", "any(c.isdigit() for c in text)"][i]})])\n`,
}));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let cluster: OwnRedisCluster;
let app: App;
let workers: Workers;
let prefix: string;

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
    await sleep(300);
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}`);
}

async function workspace(label: string) {
  const ws = await app.services.workspaces.createWorkspace(`${label}-${randomUUID().slice(0, 6)}`);
  const principal: Principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
  for (const e of EVALUATORS) {
    const { template } = await app.services.templates.createTemplate(principal, { name: `${e.name} template`, sourceCode: e.source });
    await app.services.evaluators.createEvaluator(principal, { name: e.name, templateId: template.id });
  }
  return { principal, secret: ws.secret };
}

/** Ingests `count` spans from `from` in batches through GraphQL; a batch that gets an error is sent again (what a client does). */
async function ingest(secret: string, from: number, count: number): Promise<{ accepted: number; errors: number }> {
  const client = graphqlClient(app);
  let accepted = 0;
  let errors = 0;
  for (let start = from; start < from + count; start += BATCH) {
    const spans = Array.from({ length: Math.min(BATCH, from + count - start) }, (_, i) => ({
      traceId: `t${start + i}`, spanId: `s${start + i}`, name: "chat", input: [{ role: "user", content: `question ${start + i}` }], output: `answer ${start + i}`,
    }));
    for (let attempt = 0; ; attempt++) {
      const result = await client
        .request("mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { spans { spanId } } }", { input: { spans } }, secret)
        .catch((error: unknown) => ({ errors: [{ message: String(error), extensions: {} as Record<string, unknown> }], data: undefined, status: 0 }));
      if (!result.errors && result.data) {
        accepted += (result.data as { ingestSpans: { spans: unknown[] } }).ingestSpans.spans.length;
        break;
      }
      errors += 1;
      // During the failover: a retryable answer, never a masked one.
      expect((result.errors?.[0]?.extensions as { code?: string } | undefined)?.code, JSON.stringify(result.errors)).toBe("SERVICE_UNAVAILABLE");
      if (attempt > 200) throw new Error("ingest kept failing");
      await sleep(300);
    }
  }
  return { accepted, errors };
}

describe("Redis Cluster", () => {
  beforeAll(async () => {
    cluster = new OwnRedisCluster();
    await cluster.start();
    prefix = `oodle-test-cl-${randomUUID().slice(0, 8)}`;
    app = createApp(
      loadConfig({
        ...process.env,
        DATABASE_URL: TEST_DATABASE_URL,
        REDIS_CLUSTER_NODES: cluster.seeds,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: process.env.CLUSTER_LOG_LEVEL ?? "silent",
        RECONCILE_INTERVAL_MS: "1000",
        RECONCILE_GRACE_MS: "3000",
      }),
    );
    workers = await startWorkers(app, { stalled: { lockDuration: 3_000, stalledInterval: 1_500 } });
  });

  afterAll(async () => {
    // Bounded as production's shutdown is (SHUTDOWN_TIMEOUT_MS): after a failover a BullMQ close can
    // still wait on a blocking connection that never ends (a residual; the runs are what this test asserts).
    const bounded = (close: Promise<unknown>, what: string) =>
      Promise.race([close.catch(() => undefined), sleep(20_000).then(() => console.warn(`${what} did not close within 20 s`))]);
    await bounded(workers?.close() ?? Promise.resolve(), "the workers");
    await bounded(app?.close() ?? Promise.resolve(), "the app");
    await cluster?.destroy();
  });

  it("puts every queue key in one hash slot and keeps the rate limits and leases per key", async () => {
    expect(app.redis).toBeInstanceOf(Cluster);
    expect(app.queuePrefix).toBe(`{${prefix}}`);
    const { principal, secret } = await workspace("cl-keys");
    await ingest(secret, 0, BATCH);
    await until(async () => (await app.prisma.run.count({ where: { workspaceId: principal.workspaceId } })) === BATCH * EVALUATORS.length, 60_000, "the first runs");
    const queuesMaster = cluster.masterOf(`{${prefix}}`);
    const keysByMaster = await Promise.all(
      (app.redis as Cluster).nodes("master").map(async (node) => ({ port: node.options.port, keys: await node.keys(`*${prefix}*`) })),
    );
    const queueKeys = keysByMaster.flatMap((m) => m.keys.filter((k) => k.startsWith(`{${prefix}}:`)).map((k) => ({ port: m.port, k })));
    expect(queueKeys.length).toBeGreaterThan(0);
    expect(new Set(queueKeys.map((q) => q.port))).toEqual(new Set([queuesMaster.port]));
    // The ingest rate limit is counted under its own (unhashed) key, on whichever master its slot is.
    const rateKeys = keysByMaster.flatMap((m) => m.keys.filter((k) => k.startsWith(`${prefix}:rate:`)));
    expect(rateKeys).toContain(`${prefix}:rate:ingest:${principal.workspaceId}`);
    // A tryCode lease (a Lua script on one key) holds on the cluster: one place, taken, refused, freed.
    const gate = redisConcurrencyGate(app.redis, prefix, 1, app.logger);
    const leave = await gate.enter(principal.workspaceId);
    expect(leave).not.toBeNull();
    expect(await app.redis.zcard(`${prefix}:try-code:running:${principal.workspaceId}`)).toBe(1);
    expect(await gate.enter(principal.workspaceId)).toBeNull();
    await leave!();
    expect(await app.redis.zcard(`${prefix}:try-code:running:${principal.workspaceId}`)).toBe(0);
  });

  it("reconnects a cluster that a node pool drained during connect() left closed (what wedged a worker after a failover)", async () => {
    // The race BullMQ's blocking-connection recovery meets: disconnect(false), connect(), and the
    // old pool's last node ends (the pool emits "drain") while connect() resolves its startup nodes.
    // ioredis then aborts that connect() and nothing reconnects. The plain Cluster is the control
    // (it shows the reproduction is real); the HealingCluster the service uses answers again.
    const nodes = cluster.seeds.split(",").map((seed) => ({ host: "127.0.0.1", port: Number(seed.split(":")[1]) }));
    const outcome: Record<string, { status: string; answer: string; ended: boolean }> = {};
    for (const Kind of [Cluster, HealingCluster]) {
      const client = new Kind(nodes, { redisOptions: { maxRetriesPerRequest: null }, clusterRetryStrategy: (times: number) => Math.min(100 * times, 2_000) });
      await client.ping();
      client.disconnect(false);
      client.connect().catch(() => undefined);
      (client as unknown as { connectionPool: { emit(event: string): void } }).connectionPool.emit("drain");
      await sleep(3_000);
      const answer = await Promise.race([client.ping(), sleep(3_000).then(() => "no answer")]);
      const status = client.status;
      // And a disconnect() ends (BullMQ's Worker.close() waits for "end"; it hung on the wedged one).
      const ended = new Promise<boolean>((resolve) => client.once("end", () => resolve(true)));
      client.disconnect();
      outcome[Kind.name] = { status, answer, ended: await Promise.race([ended, sleep(3_000).then(() => false)]) };
    }
    expect(outcome).toEqual({ Cluster: { status: "close", answer: "no answer", ended: false }, HealingCluster: { status: "ready", answer: "PONG", ended: true } });
  });

  it("loses no run when the master of the queues' slot is killed and its replica takes over", async () => {
    const live = await workspace("cl-live");
    const exp = await workspace("cl-exp");
    const lines = Array.from({ length: ITEMS }, (_, i) => JSON.stringify({ id: `i${i}`, input: `question ${i}`, output: `answer ${i}` })).join("\n");
    const report = await app.services.datasets.importItems(exp.principal, { name: "cluster", mode: "abort" }, Readable.from([lines]));
    const evaluators = await app.prisma.evaluator.findMany({ where: { workspaceId: exp.principal.workspaceId } });
    const experiment = await app.services.experiments.createExperiment(exp.principal, { datasetId: report.datasetId, evaluatorIds: evaluators.map((e) => e.id), batchSize: 25 });

    const first = await ingest(live.secret, 0, SPANS / 2);
    // Kill while both paths are under way: some live runs and a tenth of the experiment's are in.
    await until(async () => (await app.prisma.run.count({ where: { workspaceId: live.principal.workspaceId } })) > 0, 60_000, "live runs");
    await until(async () => (await app.prisma.run.count({ where: { experimentId: experiment.id } })) >= (ITEMS * EVALUATORS.length) / 10, 60_000, "a tenth of the experiment");
    const victim = cluster.masterOf(`{${prefix}}`);
    const liveRunsBefore = await app.prisma.run.count({ where: { workspaceId: live.principal.workspaceId } });
    const experimentRunsBefore = await app.prisma.run.count({ where: { experimentId: experiment.id } });
    await cluster.kill(victim.port);
    // Spans keep coming while the replica is promoted (cluster-node-timeout 1 s, then an election).
    const second = await ingest(live.secret, SPANS / 2, SPANS / 2);
    await cluster.waitOk();
    const promoted = cluster.masterOf(`{${prefix}}`);
    expect(promoted.port).not.toBe(victim.port);
    expect(promoted.id).not.toBe(victim.id);

    const owedLive = SPANS * EVALUATORS.length;
    const owedExperiment = ITEMS * EVALUATORS.length;
    const runsOf = (where: object) => app.prisma.run.count({ where });
    await until(async () => (await runsOf({ workspaceId: live.principal.workspaceId, spanId: { not: null } })) >= owedLive, 240_000, `${owedLive} live runs`);
    const finished = await until(async () => {
      const e = await app.prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
      return e.status === "completed" ? e : null;
    }, 240_000, "the experiment to complete");
    const duplicates = await app.prisma.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM (SELECT 1 FROM "Run" WHERE "workspaceId" = ${live.principal.workspaceId}::uuid GROUP BY "spanId", "evaluatorId" HAVING count(*) > 1) d`;
    const missing = await app.prisma.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM "Span" s CROSS JOIN "Evaluator" e
      WHERE s."workspaceId" = ${live.principal.workspaceId}::uuid AND e."workspaceId" = s."workspaceId"
        AND NOT EXISTS (SELECT 1 FROM "Run" r WHERE r."spanId" = s.id AND r."evaluatorId" = e.id)`;
    const figures = {
      killedMaster: victim.port,
      promoted: promoted.port,
      liveRunsBeforeKill: liveRunsBefore,
      experimentRunsBeforeKill: experimentRunsBefore,
      spansAccepted: first.accepted + second.accepted,
      ingestErrorsDuringFailover: first.errors + second.errors,
      liveRuns: await runsOf({ workspaceId: live.principal.workspaceId }),
      experimentRuns: await runsOf({ experimentId: experiment.id }),
      experimentNotOk: await runsOf({ experimentId: experiment.id, outcome: { not: "ok" } }),
      duplicates: Number(duplicates[0]!.n),
      missing: Number(missing[0]!.n),
    };
    console.log("cluster failover:", JSON.stringify(figures));
    expect(figures.spansAccepted).toBe(SPANS);
    expect(await app.prisma.span.count({ where: { workspaceId: live.principal.workspaceId } })).toBe(SPANS);
    expect(figures.liveRuns).toBe(owedLive);
    expect(figures.duplicates).toBe(0);
    expect(figures.missing).toBe(0);
    expect(finished?.status).toBe("completed");
    expect(figures.experimentRuns).toBe(owedExperiment);
    expect(figures.experimentNotOk).toBe(0);
    expect(await app.prisma.owedEvaluation.count({ where: { workspaceId: live.principal.workspaceId } })).toBe(0);
  });
});
