// Blocked evaluators (src/modules/evaluators/blocking.ts): a terminal provider error blocks an
// evaluator with its reason, which Evaluator, Evaluator.stats, explainMatch and /metrics show until
// unblockEvaluator clears it. The judge executor calls blockEvaluator; here it is called directly
// and the skipped runs it leads to are written as the drivers write them.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { BLOCKED_REASON_PREFIX, MAX_BLOCKED_REASON_CHARS, blockEvaluator, blockedReasonOf, blockedSkipReason, countBlockedEvaluators } from "../../src/modules/evaluators/blocking.js";
import { INVOCATION_CAP_REASON } from "../../src/modules/evaluation/record.js";
import { NotFoundError } from "../../src/lib/errors.js";
import { createMetrics } from "../../src/modules/metrics/registry.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

const METRICS_TOKEN = `metrics-${randomUUID()}`;
let app: App;
let client: ReturnType<typeof graphqlClient>;
beforeAll(() => {
  app = createTestApp({ METRICS_TOKEN });
  client = graphqlClient(app);
});
afterAll(async () => {
  await app?.close();
});

const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");

/** A workspace with a keyword-check evaluator and one span of a trace that its rule matches. */
async function setUp(label: string) {
  const ws = await createTestWorkspace(app, label);
  const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
  const gql = async (query: string, variables: Record<string, unknown> = {}) => client.request(query, variables, ws.secret);
  const template = await app.services.templates.createTemplateFromStarter(principal, "keyword-check");
  const name = `Judge-like ${randomUUID().slice(0, 6)}`;
  const evaluator = await app.services.evaluators.createEvaluator(principal, { name, templateId: template.template.id, params: { required: ["refund"] } });
  const traceId = `blocked-${randomUUID()}`;
  const ingested = await gql("mutation($s: [JSON!]!) { ingestSpans(input: { spans: $s }) { spans { spanId } } }", { s: ["s1", "s2"].map((spanId) => ({ traceId, spanId, name: "chat", kind: "chat", output: "We will refund you." })) });
  expect(ingested.errors).toBeUndefined();
  const span = await app.prisma.span.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, traceId, spanId: "s1" } });
  const other = await app.prisma.span.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, traceId, spanId: "s2" } });
  return { ws, principal, gql, evaluator, name, span, other };
}

const EVALUATOR = `query($id: ID!) { evaluator(id: $id) { name blocked blockedAt blockedReason updatedAt stats { blocked blockedSince blockedReason skippedBlocked skippedInvocationCap runsByOutcome { outcome count } } } }`;
const EXPLAIN = `query($s: ID!, $e: ID!) { explainMatch(spanId: $s, evaluatorId: $e) { matched reason detail blockedReason } }`;
const UNBLOCK_BY_NAME = `mutation($n: String) { unblockEvaluator(input: { name: $n }) { evaluator { id name blocked blockedAt blockedReason } } }`;
const UNBLOCK_BY_ID = `mutation($id: ID) { unblockEvaluator(input: { id: $id }) { evaluator { id name blocked blockedAt blockedReason } } }`;

/** The value of the unlabelled gauge in a scrape. */
function gauge(text: string, name: string): number | undefined {
  const match = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  return match ? Number(match[1]) : undefined;
}

/** GET /metrics on the API (behind METRICS_TOKEN). */
async function scrape(): Promise<string> {
  const response = await client.yoga.fetch("http://localhost/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.status).toBe(200);
  return response.text();
}

/** The gauge as scraped, read between two counts of the database that agree (other test files may block evaluators meanwhile). */
async function blockedGauge(): Promise<{ scraped: number; counted: number }> {
  for (let attempt = 0; ; attempt += 1) {
    const before = await countBlockedEvaluators(app.prisma);
    const scraped = gauge(await scrape(), "oodle_evaluators_blocked");
    const after = await countBlockedEvaluators(app.prisma);
    if (before === after || attempt === 5) return { scraped: scraped!, counted: after };
  }
}

describe("blocking an evaluator", () => {
  it("blocks once with the first reason; Evaluator, stats and explainMatch say so; unblock clears it", async () => {
    const { gql, evaluator, name, span, other } = await setUp("blocking");
    const id = gid("Evaluator", evaluator.id);
    const fresh = await gql(EVALUATOR, { id });
    expect(fresh.errors).toBeUndefined();
    expect(fresh.data!.evaluator).toMatchObject({ blocked: false, blockedAt: null, blockedReason: null, stats: { blocked: false, blockedSince: null, blockedReason: null, skippedBlocked: 0 } });
    const gaugeBefore = await blockedGauge();

    const before = Date.now();
    expect(await app.services.evaluators.blockEvaluator(evaluator.id, "invalid_api_key: HTTP 401 from openai (Incorrect API key provided: sk-proj-abc123def456ghi789)")).toBe(true);
    // A second block (another worker, another error) keeps the first reason and time.
    const first = await app.prisma.evaluator.findUniqueOrThrow({ where: { id: evaluator.id } });
    expect(await blockEvaluator(app.prisma, evaluator.id, "quota_exhausted: HTTP 429 insufficient_quota")).toBe(false);
    const stored = await app.prisma.evaluator.findUniqueOrThrow({ where: { id: evaluator.id } });
    expect(stored.blockedReason).toBe("invalid_api_key: HTTP 401 from openai (Incorrect API key provided: [redacted])");
    expect(stored.blockedAt!.getTime()).toBe(first.blockedAt!.getTime());
    expect(stored.blockedAt!.getTime()).toBeGreaterThanOrEqual(before - 5_000);
    // Blocking changes no rule: updatedAt stays (explainMatch's ruleChangedSinceIngest).
    expect(stored.updatedAt.getTime()).toBe(evaluator.updatedAt.getTime());

    const skipReason = blockedSkipReason(stored)!;
    expect(skipReason).toBe(`the evaluator is blocked since ${stored.blockedAt!.toISOString()}: ${stored.blockedReason}; unblock it with unblockEvaluator`);
    expect(skipReason.startsWith(BLOCKED_REASON_PREFIX)).toBe(true);
    // The skipped run a driver records while it is blocked, and one of the invocation cap beside it.
    await app.prisma.run.create({ data: { workspaceId: stored.workspaceId, evaluatorId: evaluator.id, spanId: span.id, outcome: "skipped", skipReason } });
    await app.prisma.run.create({ data: { workspaceId: stored.workspaceId, evaluatorId: evaluator.id, spanId: other.id, outcome: "skipped", skipReason: `${INVOCATION_CAP_REASON} (10) reached: 10 runs in the last hour` } });

    const blocked = await gql(EVALUATOR, { id });
    expect(blocked.errors).toBeUndefined();
    expect(blocked.data!.evaluator).toMatchObject({
      blocked: true,
      blockedAt: stored.blockedAt!.toISOString(),
      blockedReason: stored.blockedReason,
      stats: { blocked: true, blockedSince: stored.blockedAt!.toISOString(), blockedReason: stored.blockedReason, skippedBlocked: 1, skippedInvocationCap: 1 },
    });
    expect(blocked.data!.evaluator.stats.runsByOutcome.find((o: { outcome: string }) => o.outcome === "skipped").count).toBe(2);

    const explained = await gql(EXPLAIN, { s: gid("Span", span.id), e: id });
    expect(explained.errors).toBeUndefined();
    expect(explained.data!.explainMatch).toEqual({ matched: true, reason: null, detail: expect.stringContaining(skipReason), blockedReason: skipReason });
    expect(explained.data!.explainMatch.detail).toContain("(a run here is skipped until then)");

    const gaugeBlocked = await blockedGauge();
    expect(gaugeBlocked.scraped).toBe(gaugeBlocked.counted);
    expect(gaugeBlocked.scraped).toBeGreaterThanOrEqual(1);
    if (gaugeBefore.counted === gaugeBlocked.counted - 1) expect(gaugeBlocked.scraped).toBe(gaugeBefore.scraped + 1);

    const unblocked = await gql(UNBLOCK_BY_NAME, { n: name });
    expect(unblocked.errors).toBeUndefined();
    expect(unblocked.data!.unblockEvaluator.evaluator).toEqual({ id, name, blocked: false, blockedAt: null, blockedReason: null });
    const after = await gql(EVALUATOR, { id });
    // Unblocked: the state clears, the skipped runs it caused stay counted.
    expect(after.data!.evaluator).toMatchObject({ blocked: false, blockedAt: null, blockedReason: null, stats: { blocked: false, blockedSince: null, blockedReason: null, skippedBlocked: 1 } });
    const explainedAfter = await gql(EXPLAIN, { s: gid("Span", span.id), e: id });
    expect(explainedAfter.data!.explainMatch.blockedReason).toBeNull();
    expect(explainedAfter.data!.explainMatch.detail).not.toContain(BLOCKED_REASON_PREFIX);
    expect((await app.prisma.evaluator.findUniqueOrThrow({ where: { id: evaluator.id } })).updatedAt.getTime()).toBe(evaluator.updatedAt.getTime());

    // Not blocked: unblock returns it unchanged; blocking again takes the new reason.
    const again = await gql(UNBLOCK_BY_ID, { id });
    expect(again.data!.unblockEvaluator.evaluator).toMatchObject({ blocked: false, blockedReason: null });
    expect(await app.services.evaluators.blockEvaluator(evaluator.id, "unknown_model: HTTP 404 model gpt-nope")).toBe(true);
    expect((await gql(EVALUATOR, { id })).data!.evaluator.blockedReason).toBe("unknown_model: HTTP 404 model gpt-nope");
  });

  it("unblockEvaluator: another workspace's evaluator is NOT_FOUND by id and by name and stays blocked; both or neither of id and name are refused", async () => {
    const a = await setUp("blocking-a");
    const b = await setUp("blocking-b");
    await app.services.evaluators.blockEvaluator(a.evaluator.id, "invalid_api_key: HTTP 401");
    for (const [query, variables] of [
      [UNBLOCK_BY_ID, { id: gid("Evaluator", a.evaluator.id) }],
      [UNBLOCK_BY_NAME, { n: a.name }],
    ] as const) {
      const res = await b.gql(query, variables);
      expect(res.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
      expect(res.data).toBeNull();
    }
    await expect(app.services.evaluators.unblockEvaluator(b.principal, { id: a.evaluator.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(app.services.evaluators.unblockEvaluator(b.principal, { name: a.name })).rejects.toBeInstanceOf(NotFoundError);
    expect((await app.prisma.evaluator.findUniqueOrThrow({ where: { id: a.evaluator.id } })).blockedReason).toBe("invalid_api_key: HTTP 401");
    // Nor does B see A's block in its own lists.
    const list = await b.gql("{ evaluators(first: 100) { edges { node { name blockedReason } } } }");
    expect(list.data!.evaluators.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual([b.name]);

    const both = await a.gql(`mutation($id: ID, $n: String) { unblockEvaluator(input: { id: $id, name: $n }) { evaluator { id } } }`, { id: gid("Evaluator", a.evaluator.id), n: a.name });
    expect(both.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    const neither = await a.gql(`mutation { unblockEvaluator(input: {}) { evaluator { id } } }`);
    expect(neither.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    const mine = await a.gql(UNBLOCK_BY_ID, { id: gid("Evaluator", a.evaluator.id) });
    expect(mine.data!.unblockEvaluator.evaluator.blocked).toBe(false);
  });

  it("an archived blocked evaluator is not counted by the gauge", async () => {
    const { principal, evaluator } = await setUp("blocking-archived");
    await app.services.evaluators.blockEvaluator(evaluator.id, "quota_exhausted");
    const withIt = await countBlockedEvaluators(app.prisma);
    await app.services.evaluators.deleteEvaluator(principal, evaluator.id);
    const counted = await app.prisma.evaluator.count({ where: { blockedAt: { not: null }, archivedAt: null } });
    expect(await countBlockedEvaluators(app.prisma)).toBe(counted);
    expect(await app.prisma.evaluator.count({ where: { id: evaluator.id, blockedAt: { not: null }, archivedAt: null } })).toBe(0);
    expect(withIt).toBeGreaterThanOrEqual(1);
    const { scraped, counted: now } = await blockedGauge();
    expect(scraped).toBe(now);
  });

  it("a trace evaluator's explainMatch says it is blocked too", async () => {
    const { principal, gql, span } = await setUp("blocking-trace");
    const template = await app.prisma.template.findFirstOrThrow({ where: { workspaceId: principal.workspaceId } });
    const traceEvaluator = await app.services.evaluators.createEvaluator(principal, { name: "Trace judge", templateId: template.id, params: { required: ["refund"] }, target: "trace" });
    await app.services.evaluators.blockEvaluator(traceEvaluator.id, "permission_denied: HTTP 403");
    const stored = await app.prisma.evaluator.findUniqueOrThrow({ where: { id: traceEvaluator.id } });
    const explained = await gql(EXPLAIN, { s: gid("Span", span.id), e: gid("Evaluator", traceEvaluator.id) });
    expect(explained.errors).toBeUndefined();
    expect(explained.data!.explainMatch.matched).toBe(true);
    expect(explained.data!.explainMatch.blockedReason).toBe(blockedSkipReason(stored));
    // Created after the span arrived: no schedule of its trace yet, as explainMatch says first.
    expect(explained.data!.explainMatch.detail).toBe(`this span matches; no span of the trace "${span.traceId}" was taken by the rule yet; ${blockedSkipReason(stored)} (a run here is skipped until then)`);
  });

  it("the gauge is NaN when Postgres cannot be read, and 0 without a source", async () => {
    for (const [source, expected] of [[async () => Promise.reject(new Error("connection refused")), Number.NaN], [undefined, 0], [async () => 3, 3]] as const) {
      const metrics = createMetrics({ redis: app.redis, queuePrefix: `oodle-test-blocked-${randomUUID().slice(0, 8)}`, pool: () => undefined, ...(source ? { blockedEvaluators: source } : {}) });
      try {
        expect(gauge((await metrics.scrape()).body, "oodle_evaluators_blocked")).toEqual(expected);
      } finally {
        await metrics.close();
      }
    }
  });

  it("a stored reason is capped at 1,000 characters, loses what looks like a key, and is never empty", () => {
    const long = blockedReasonOf(`quota_exhausted: ${"x".repeat(5_000)}`);
    expect(long).toHaveLength(MAX_BLOCKED_REASON_CHARS);
    expect(long.endsWith("…")).toBe(true);
    expect(blockedReasonOf("HTTP 401: Bearer abcdefghijklmnop rejected; see https://api.example/v1?key=AIzaSyD-secret&x=1")).toBe("HTTP 401: [redacted] rejected; see https://api.example/v1?key=[redacted]&x=1");
    expect(blockedReasonOf("invalid x-api-key sk-ant-api03-AAAABBBBCCCC")).toBe("invalid x-api-key [redacted]");
    expect(blockedReasonOf("  \u0000 ")).toBe("\uFFFD");
    expect(blockedReasonOf("   ")).toBe("the provider refused the call");
    expect(blockedSkipReason({ blockedAt: null, blockedReason: null })).toBeNull();
  });

  it("logs at warn once, with the evaluator, its workspace and the reason, never the key", async () => {
    const { ws, evaluator } = await setUp("blocking-log");
    const key = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm";
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    const logger = { warn: (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message }) } as never;
    expect(await blockEvaluator(app.prisma, evaluator.id, `invalid_api_key: Incorrect API key provided: ${key}`, logger)).toBe(true);
    expect(await blockEvaluator(app.prisma, evaluator.id, `invalid_api_key again: ${key}`, logger)).toBe(false);
    expect(lines).toEqual([{ fields: { evaluatorId: evaluator.id, workspaceId: ws.workspace.id, reason: "invalid_api_key: Incorrect API key provided: [redacted]" }, message: expect.stringContaining("evaluator blocked") }]);
    expect(JSON.stringify(lines)).not.toContain(key.slice(8));
  });

  it("blocking an unknown evaluator blocks nothing", async () => {
    expect(await blockEvaluator(app.prisma, randomUUID(), "invalid_api_key")).toBe(false);
    expect(await blockEvaluator(app.prisma, "not-a-uuid", "invalid_api_key")).toBe(false);
  });
});
